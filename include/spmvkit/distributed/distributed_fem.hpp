// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DISTRIBUTED_FEM_HPP
#define SPMVKIT_DISTRIBUTED_DISTRIBUTED_FEM_HPP

/// \file
/// The FEM Poisson problem of problems/fem_poisson.hpp assembled in parallel:
/// each rank generates only its slab of rows (global rows are numbered x
/// fastest, so a contiguous range of rows is a slab of z-planes, cut inside a
/// plane where the balance asks for it) and its parts of the vectors. No rank
/// ever holds the global matrix or a global vector.
#include <spmvkit/distributed/distributed_matrix.hpp>
#include <spmvkit/distributed/row_partition.hpp>
#include <spmvkit/problems/detail/fem_poisson_kernels.hpp>
#include <spmvkit/problems/fem_problem.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

namespace detail {

template <class MemorySpace>
struct FemGlobalRowLength {
  using memory_space = MemorySpace;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t row) const {
    return fem_row_length(n, row);
  }
};

template <class Scalar>
struct FemSlab {
  using value_type = Scalar;
  FemRowSource<Scalar, std::int64_t, std::int64_t> rows;
  std::int64_t first;
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(std::int64_t row, F&& f) const {
    rows.for_each_entry(first + row, f);
  }
};

template <class Vector, class NodalFunction>
struct FemSlabSample {
  Vector v;
  NodalFunction f;
  std::int64_t first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    v(i) = static_cast<typename Vector::value_type>(f(first + i));
  }
};

template <class Vector>
struct FemSlabSquaredError {
  Vector u_h;
  FemExact exact;
  std::int64_t first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    const double e = static_cast<double>(u_h(i)) - exact(first + i);
    sum += e * e;
  }
};

inline void check_fem_partition(RowPartition const& partition, FemPoisson const& p,
                                char const* where) {
  if (partition.global_rows() != p.num_rows) {
    throw std::invalid_argument(std::string(where) + ": the partition covers " +
                                std::to_string(partition.global_rows()) +
                                " rows, the problem with N = " + std::to_string(p.N) + " has " +
                                std::to_string(p.num_rows));
  }
}

template <class Scalar, class ExecutionSpace, class NodalFunction>
fem_vector_t<Scalar, ExecutionSpace> fem_slab_sample(ExecutionSpace const& exec,
                                                     RowPartition const& partition, std::int64_t N,
                                                     char const* label, NodalFunction const& f) {
  const FemPoisson p(N);
  check_fem_partition(partition, p, label);
  using Vector = fem_vector_t<Scalar, ExecutionSpace>;
  auto v = allocate_view<Vector>(exec, label, partition.local_rows());
  Kokkos::parallel_for(label, FemRange64<ExecutionSpace>(exec, 0, partition.local_rows()),
                       FemSlabSample<Vector, NodalFunction>{v, f, partition.first_row()});
  return v;
}

} // namespace detail

/// The partition of the FEM problem with N intervals balanced by nonzeros
/// (partition_by_nonzeros on its row lengths). Collective; throws
/// DistributedError when there are more ranks than the (N-1)^3 rows.
template <class ExecutionSpace>
RowPartition fem_poisson_partition(MPI_Comm comm, ExecutionSpace const& exec, std::int64_t N) {
  const FemPoisson p(N);
  return partition_by_nonzeros(
      comm, exec, p.num_rows,
      detail::FemGlobalRowLength<typename ExecutionSpace::memory_space>{p.n});
}

/// The FEM stiffness matrix (make_fem_poisson) distributed by `partition`:
/// each rank generates its own rows on exec and builds both blocks from them
/// (make_distributed_matrix). Collective. Throws DistributedError on every
/// rank when the partition does not cover (N-1)^3 rows or any rank fails.
///
/// Usage: `auto A = make_distributed_fem_poisson<SellFormat, double>(part, exec, N);`
template <class DiagFormat, class Scalar, class OffFormat = DiagFormat, class Ordinal = int,
          class Offset = int, class ExecutionSpace>
DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset>
make_distributed_fem_poisson(RowPartition const& partition, ExecutionSpace const& exec,
                             std::int64_t N,
                             typename DiagFormat::options_type const& diag_options = {},
                             typename OffFormat::options_type const& off_options = {},
                             HaloOptions const& halo_options = {}) {
  const FemPoisson p(N);
  detail::collective_step(partition.comm(), "spmvkit::make_distributed_fem_poisson", [&] {
    detail::check_fem_partition(partition, p, "spmvkit::make_distributed_fem_poisson");
  });
  detail::FemSlab<Scalar> slab{{p.n, {}}, partition.first_row()};
  detail::fem_stiffness_weights(p.h, slab.rows.weight);
  return make_distributed_matrix<DiagFormat, OffFormat, Ordinal, Offset>(
      partition, exec, slab, diag_options, off_options, halo_options);
}

/// This rank's entries of the right-hand side b = M f (fem_poisson_rhs).
/// A new View of partition.local_rows() entries, filled asynchronously.
template <class Scalar, class ExecutionSpace>
fem_vector_t<Scalar, ExecutionSpace> distributed_fem_poisson_rhs(ExecutionSpace const& exec,
                                                                 RowPartition const& partition,
                                                                 std::int64_t N) {
  const FemPoisson p(N);
  return detail::fem_slab_sample<Scalar>(exec, partition, N, "SpMVKit::distributed::fem_rhs",
                                         detail::FemRhs{p.n, p.h});
}

/// This rank's entries of the exact solution (fem_poisson_exact).
template <class Scalar, class ExecutionSpace>
fem_vector_t<Scalar, ExecutionSpace> distributed_fem_poisson_exact(ExecutionSpace const& exec,
                                                                   RowPartition const& partition,
                                                                   std::int64_t N) {
  const FemPoisson p(N);
  return detail::fem_slab_sample<Scalar>(exec, partition, N, "SpMVKit::distributed::fem_exact",
                                         detail::FemExact{p.n, p.h});
}

/// This rank's entries of the rough start (fem_poisson_rough_guess): the same
/// global vector as on one rank, whatever the partition.
template <class Scalar, class ExecutionSpace>
fem_vector_t<Scalar, ExecutionSpace>
distributed_fem_poisson_rough_guess(ExecutionSpace const& exec, RowPartition const& partition,
                                    std::int64_t N, std::uint64_t seed = 1) {
  return detail::fem_slab_sample<Scalar>(
      exec, partition, N, "SpMVKit::distributed::fem_rough_guess", detail::FemRoughGuess{seed});
}

/// The global nodal L2 error (fem_poisson_l2_error) of a distributed
/// solution: each rank's sum, one MPI_Allreduce. Collective and synchronous;
/// throws std::invalid_argument when u_h does not have local_rows() entries.
template <class ExecutionSpace, class UView>
double distributed_fem_poisson_l2_error(ExecutionSpace const& exec, RowPartition const& partition,
                                        std::int64_t N, UView const& u_h) {
  const FemPoisson p(N);
  detail::check_fem_partition(partition, p, "spmvkit::distributed_fem_poisson_l2_error");
  if (static_cast<std::int64_t>(u_h.extent(0)) != partition.local_rows()) {
    throw std::invalid_argument("spmvkit::distributed_fem_poisson_l2_error: u_h has " +
                                std::to_string(u_h.extent(0)) + " entries, this rank owns " +
                                std::to_string(partition.local_rows()) + " rows");
  }
  using Const = Kokkos::View<typename UView::const_value_type*, typename UView::array_layout,
                             typename UView::device_type>;
  double sum = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::distributed::fem_l2_error",
      detail::FemRange64<ExecutionSpace>(exec, 0, partition.local_rows()),
      detail::FemSlabSquaredError<Const>{u_h, {p.n, p.h}, partition.first_row()}, sum);
  detail::mpi_check(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, partition.comm()),
                    "MPI_Allreduce");
  return std::sqrt(p.h * p.h * p.h * sum);
}

} // namespace spmvkit

#endif
