// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_FEM_POISSON_HPP
#define SPMVKIT_PROBLEMS_FEM_POISSON_HPP

#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/problems/detail/fem_poisson_kernels.hpp>
#include <spmvkit/problems/fem_problem.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

/// \file
/// The founding study's model problem: -Δu = f on the unit cube with
/// homogeneous Dirichlet conditions, trilinear (Q1) hexahedral elements on a
/// uniform mesh of N intervals per direction. The unknowns are the (N-1)^3
/// interior nodes, numbered x fastest: row = i + n*(j + n*k), n = N-1, node
/// (i, j, k) at ((i+1)h, (j+1)h, (k+1)h), h = 1/N.
///
/// Everything is assembled on the execution space. Because the mesh is
/// uniform, an interior row is a fixed 27-point stencil cut off at the
/// boundary, and every entry depends only on how many coordinates differ
/// between the two nodes (0: same node, 1: face, 2: edge, 3: corner
/// neighbour). The assembled Q1 stencils are tensor products of the 1D ones
/// (stiffness [-1 2 -1]/h, mass h[1 4 1]/6):
///
/// \verbatim
///   stiffness  h * ( 8/3,  0,    -1/6,  -1/12 )
///   mass     h^3 * ( 8/27, 2/27, 1/54,  1/216 )   (= h^3 (2/3)^(3-d) (1/6)^d)
/// \endverbatim
///
/// The face couplings of the stiffness matrix are exactly zero but belong to
/// the element connectivity, so they are stored: a row has 8, 12, 18 or 27
/// entries and nnz = (3n - 2)^3, the pattern a general FEM code would produce.
///
/// With u = sin(πx)sin(πy)sin(πz), f = 3π²u and the consistent right-hand side
/// b = M f, the nodal samples of u are an eigenvector of both K and M, so the
/// discrete solution is exactly c_h * u at the nodes with
/// c_h = (πh)²(2 + cos πh) / (3 (2 - 2 cos πh)) = 1 - (πh)²/12 + O(h⁴):
/// second-order nodal error, known in closed form (FemPoisson::predicted_l2_error).
/// A consequence worth knowing: CG started from zero converges in one
/// iteration on this problem. To time CG realistically, start it from
/// fem_poisson_rough_guess(), which excites every mode.
namespace spmvkit {

/// Assembles the FEM stiffness matrix in any format on `exec`, straight from
/// its row source (Format::from_rows): nothing is built on the host and no
/// CRS copy is made for other formats. Throws std::invalid_argument for N < 2,
/// std::length_error when the problem does not fit Ordinal (rows) or Offset
/// (nonzeros), and what Format::from_rows throws (e.g. a format that cannot
/// represent the matrix).
///
/// \tparam Format    a format tag: CrsFormat, SellFormat, SellOffset16Format
/// \tparam Scalar    value type of the matrix
/// \tparam ExecutionSpace execution space (deduced from exec)
/// \tparam Ordinal   row and column index type, default `int`
/// \tparam Offset    entry index type, default `int`
/// \param exec    execution space instance the assembly runs on
/// \param N       intervals per direction, >= 2: (N-1)^3 rows and (3N-5)^3 stored entries
/// \param options the format's options (for SELL: C, σ; C = 0 picks the backend's default)
///
/// Usage: `make_fem_poisson<SellFormat, double>(exec, 64, SellOptions{32, 1})`.
/// Cost: O(nnz) work on the device, plus what the format's from_rows() does
/// (one count reduction read back to the host, then the fill).
template <class Format, class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
matrix_of_t<Format, Scalar, ExecutionSpace, Ordinal, Offset>
make_fem_poisson(ExecutionSpace const& exec, std::int64_t N,
                 typename Format::options_type const& options = {}) {
  constexpr char const* where = "spmvkit::make_fem_poisson";
  const FemPoisson p(N);
  detail::checked_index<Ordinal>(p.num_rows, "number of unknowns (N-1)^3", where);
  detail::checked_index<Offset>(p.nnz, "nonzeros (3N-5)^3", where);
  detail::FemRowSource<Scalar, Ordinal, Offset> source{p.n, {}};
  detail::fem_stiffness_weights(p.h, source.weight);
  return Format::from_rows(exec, p.num_rows, p.num_rows, source, options);
}

/// The FEM stiffness matrix in CRS (make_fem_poisson<CrsFormat>).
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> make_fem_poisson_crs(ExecutionSpace const& exec,
                                                                        std::int64_t N) {
  return make_fem_poisson<CrsFormat, Scalar, ExecutionSpace, Ordinal, Offset>(exec, N);
}

/// The FEM stiffness matrix in SELL-C-σ (make_fem_poisson<SellFormat>): the
/// same chunking, σ-window sort and padding as make_sell() of the CRS assembly
/// (the result is identical entry for entry).
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
SellMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_fem_poisson_sell(ExecutionSpace const& exec, std::int64_t N, int chunk_size,
                      std::int64_t sigma = 1) {
  // SellOptions reads C = 0 as "the backend's default"; this function asks for an explicit C.
  if (chunk_size < 1) {
    throw std::invalid_argument("spmvkit::make_fem_poisson_sell: chunk size C must be >= 1, got " +
                                std::to_string(chunk_size));
  }
  return make_fem_poisson<SellFormat, Scalar, ExecutionSpace, Ordinal, Offset>(
      exec, N, SellOptions{chunk_size, sigma});
}

/// Right-hand side b = M f (consistent Q1 mass matrix times the nodal values
/// of f = 3π² sin(πx)sin(πy)sin(πz)), computed in double and rounded to Scalar.
///
/// A new View of (N-1)^3 entries on exec's memory space, filled asynchronously
/// on exec. Throws what FemPoisson(N) throws and AllocationError.
template <class Scalar, class ExecutionSpace>
fem_vector_t<Scalar, ExecutionSpace> fem_poisson_rhs(ExecutionSpace const& exec, std::int64_t N) {
  const FemPoisson p(N);
  return detail::fem_sample<Scalar>(exec, p, "SpMVKit::fem_poisson::rhs", detail::FemRhs{p.n, p.h});
}

/// The exact solution u = sin(πx)sin(πy)sin(πz) at the interior nodes.
///
/// A new View of (N-1)^3 entries, filled asynchronously on exec. The discrete
/// solution differs from it by the factor FemPoisson::discrete_solution_factor().
template <class Scalar, class ExecutionSpace>
fem_vector_t<Scalar, ExecutionSpace> fem_poisson_exact(ExecutionSpace const& exec, std::int64_t N) {
  const FemPoisson p(N);
  return detail::fem_sample<Scalar>(exec, p, "SpMVKit::fem_poisson::exact",
                                    detail::FemExact{p.n, p.h});
}

/// A reproducible rough start in [0, 1) for CG: the zero start converges in
/// one iteration on this problem (b is an eigenvector of K), a rough one needs
/// the O(N) iterations of a general right-hand side.
///
/// A new View of (N-1)^3 entries, filled asynchronously on exec from a hash of
/// the row and `seed`: the same seed gives the same vector on every backend.
template <class Scalar, class ExecutionSpace>
fem_vector_t<Scalar, ExecutionSpace>
fem_poisson_rough_guess(ExecutionSpace const& exec, std::int64_t N, std::uint64_t seed = 1) {
  const FemPoisson p(N);
  return detail::fem_sample<Scalar>(exec, p, "SpMVKit::fem_poisson::rough_guess",
                                    detail::FemRoughGuess{seed});
}

/// Nodal L2 error sqrt(h^3 * sum_i (u_h,i - u(x_i))^2), accumulated in double
/// on `exec`. u_h is any rank-1 View of (N-1)^3 entries accessible from exec.
///
/// Synchronous (the reduction is read back). Throws std::invalid_argument when
/// u_h has the wrong extent. Compare it with FemPoisson::predicted_l2_error(),
/// the error of the exact discrete solution.
template <class ExecutionSpace, class UView>
double fem_poisson_l2_error(ExecutionSpace const& exec, std::int64_t N, UView const& u_h) {
  const FemPoisson p(N);
  if (static_cast<std::int64_t>(u_h.extent(0)) != p.num_rows) {
    throw std::invalid_argument("spmvkit::fem_poisson_l2_error: u_h has " +
                                std::to_string(u_h.extent(0)) + " entries, the problem has " +
                                std::to_string(p.num_rows));
  }
  using Const = Kokkos::View<typename UView::const_value_type*, typename UView::array_layout,
                             typename UView::device_type>;
  double sum = 0;
  Kokkos::parallel_reduce("SpMVKit::fem_poisson::l2_error",
                          detail::FemRange64<ExecutionSpace>(exec, 0, p.num_rows),
                          detail::FemSquaredError<Const>{u_h, {p.n, p.h}}, sum);
  return std::sqrt(p.h * p.h * p.h * sum);
}

} // namespace spmvkit

#endif
