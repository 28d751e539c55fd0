// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DISTRIBUTED_MATRIX_MARKET_HPP
#define SPMVKIT_DISTRIBUTED_DISTRIBUTED_MATRIX_MARKET_HPP

/// \file
/// A Matrix Market file read on one rank (the root) and scattered by rows.
///
/// **Memory limit.** The root holds the whole matrix on the host while it
/// reads and scatters: the reader's coordinate form (24 bytes per stored
/// entry after symmetric expansion) and then its CRS form (16 bytes per entry
/// plus 8 per row), about 40 bytes per entry at the peak (read_matrix_market's
/// own estimate is checked before it allocates). So the file must fit the
/// root's host memory, even when the distributed matrix would not fit one
/// GPU: 10⁹ entries need about 40 GB on the root. Other ranks hold only their
/// rows (16 bytes per entry on the host, then the blocks on the device).
/// Beyond that, generate the rows in parallel (make_distributed_matrix with a
/// slab source, as distributed_fem.hpp does).
#include <spmvkit/distributed/distributed_matrix.hpp>
#include <spmvkit/distributed/row_partition.hpp>
#include <spmvkit/io/matrix_market.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit {

/// Options of read_distributed_matrix_market.
struct DistributedReadOptions {
  /// The rank that reads the file and scatters it.
  int root = 0;
  /// The row partition's offsets (ranks + 1 entries); empty: balanced by nonzeros.
  std::vector<std::int64_t> offsets;
  /// GPU-aware MPI or staging for the halo exchange.
  HaloOptions halo;
};

namespace detail {

/// A rank's rows as host-read CRS arrays on the device, global columns.
template <class Scalar, class Device>
struct CrsSlab {
  using value_type = Scalar;
  Kokkos::View<const std::int64_t*, Device> row_starts, columns;
  Kokkos::View<const Scalar*, Device> values;
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(std::int64_t row, F&& f) const {
    for (std::int64_t k = row_starts(row); k < row_starts(row + 1); ++k) f(columns(k), values(k));
  }
};

} // namespace detail

/// Reads a square Matrix Market file on options.root and distributes it over
/// the ranks of comm by rows (balanced by nonzeros unless options.offsets
/// says otherwise). Collective.
///
/// Throws DistributedError on every rank, with the same message, when the
/// file cannot be read or parsed (the reader's MatrixMarketError text), is not
/// square, has fewer rows than there are ranks ("cannot partition 3 rows over
/// 4 ranks ..."), or any rank fails to allocate or build its blocks. See this
/// file's documentation for the root's memory.
template <class DiagFormat, class Scalar, class OffFormat = DiagFormat, class Ordinal = int,
          class Offset = int, class ExecutionSpace>
DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset>
read_distributed_matrix_market(MPI_Comm comm, ExecutionSpace const& exec, std::string const& path,
                               DistributedReadOptions const& options = {},
                               typename DiagFormat::options_type const& diag_options = {},
                               typename OffFormat::options_type const& off_options = {}) {
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  const int p = detail::mpi_size(comm), rank = detail::mpi_rank(comm);
  const int root = options.root;
  if (root < 0 || root >= p) {
    throw DistributedError("spmvkit::read_distributed_matrix_market: root " + std::to_string(root) +
                           " is not a rank of the communicator (" + std::to_string(p) + " ranks)");
  }
  detail::MatrixMarketCrs crs;
  std::int64_t rows = 0;
  detail::collective_step(comm, "spmvkit::read_distributed_matrix_market (read)", [&] {
    if (rank != root) return;
    crs = detail::read_matrix_market_crs(path);
    rows = crs.info.rows;
    if (crs.info.rows != crs.info.cols) {
      throw std::invalid_argument(path + ": the matrix is " + std::to_string(crs.info.rows) +
                                  " x " + std::to_string(crs.info.cols) +
                                  "; a distributed matrix must be square");
    }
    if (rows < p) throw std::invalid_argument(path + ": " + detail::too_many_ranks(rows, p));
  });
  detail::mpi_check(MPI_Bcast(&rows, 1, MPI_INT64_T, root, comm), "MPI_Bcast");

  // The partition: given, or balanced from the row starts the root holds.
  std::vector<std::int64_t> offsets = options.offsets;
  if (offsets.empty()) {
    offsets.resize(static_cast<std::size_t>(p) + 1);
    if (rank == root) {
      std::vector<std::int64_t> splits(static_cast<std::size_t>(p) - 1);
      const std::int64_t nnz = crs.row_starts.back();
      for (int k = 1; k < p; ++k) {
        const auto target = static_cast<std::int64_t>(static_cast<long double>(nnz) * k / p + 0.5L);
        splits[static_cast<std::size_t>(k) - 1] =
            std::lower_bound(crs.row_starts.begin(), crs.row_starts.end(), target) -
            crs.row_starts.begin();
      }
      offsets = detail::balanced_offsets(splits, rows);
    }
    detail::mpi_check(MPI_Bcast(offsets.data(), p + 1, MPI_INT64_T, root, comm), "MPI_Bcast");
  }
  RowPartition partition = RowPartition::from_offsets(comm, offsets);
  detail::collective_step(comm, "spmvkit::read_distributed_matrix_market (partition)", [&] {
    if (partition.global_rows() != rows) {
      throw std::invalid_argument("the offsets cover " + std::to_string(partition.global_rows()) +
                                  " rows, the file " + path + " has " + std::to_string(rows));
    }
  });

  // Each rank's entry count, then its rows: allocated everywhere before any
  // data moves, so a rank that cannot allocate stops every rank first.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p));
  if (rank == root) {
    for (int r = 0; r < p; ++r) {
      counts[static_cast<std::size_t>(r)] =
          crs.row_starts[static_cast<std::size_t>(partition.end_row(r))] -
          crs.row_starts[static_cast<std::size_t>(partition.first_row(r))];
    }
  }
  detail::mpi_check(MPI_Bcast(counts.data(), p, MPI_INT64_T, root, comm), "MPI_Bcast");
  const std::int64_t m = partition.local_rows(), nnz = counts[static_cast<std::size_t>(rank)];
  std::vector<std::int64_t> row_starts, columns;
  std::vector<double> values;
  detail::collective_step(comm, "spmvkit::read_distributed_matrix_market (allocate)", [&] {
    if (rank == root) return;
    row_starts.resize(static_cast<std::size_t>(m) + 1);
    columns.resize(static_cast<std::size_t>(nnz));
    values.resize(static_cast<std::size_t>(nnz));
  });
  constexpr int tag = 1718;
  if (rank == root) {
    for (int r = 0; r < p; ++r) {
      if (r == root) continue;
      const auto first = static_cast<std::size_t>(partition.first_row(r));
      const std::int64_t begin = crs.row_starts[first],
                         entries = counts[static_cast<std::size_t>(r)];
      detail::mpi_send_large(crs.row_starts.data() + first, partition.local_rows(r) + 1, r, tag,
                             comm);
      detail::mpi_send_large(crs.cols.data() + begin, entries, r, tag, comm);
      detail::mpi_send_large(crs.values.data() + begin, entries, r, tag, comm);
    }
    const auto first = static_cast<std::size_t>(partition.first_row());
    row_starts.assign(crs.row_starts.begin() + static_cast<std::ptrdiff_t>(first),
                      crs.row_starts.begin() + static_cast<std::ptrdiff_t>(first) + m + 1);
    columns.assign(crs.cols.begin() + row_starts.front(), crs.cols.begin() + row_starts.back());
    values.assign(crs.values.begin() + row_starts.front(), crs.values.begin() + row_starts.back());
    crs = detail::MatrixMarketCrs(); // the root keeps only its rows from here on
  } else {
    detail::mpi_recv_large(row_starts.data(), m + 1, root, tag, comm);
    detail::mpi_recv_large(columns.data(), nnz, root, tag, comm);
    detail::mpi_recv_large(values.data(), nnz, root, tag, comm);
  }

  detail::CrsSlab<Scalar, Device> slab;
  detail::collective_step(comm, "spmvkit::read_distributed_matrix_market (copy to device)", [&] {
    using Index64 = Kokkos::View<std::int64_t*, Device>;
    using Values = Kokkos::View<Scalar*, Device>;
    const std::int64_t base = row_starts.front();
    for (auto& s : row_starts) s -= base;
    auto rs = detail::allocate_view<Index64>(exec, "SpMVKit::distributed::mtx_row_starts", m + 1);
    auto cs = detail::allocate_view<Index64>(exec, "SpMVKit::distributed::mtx_columns", nnz);
    auto vs = detail::allocate_view<Values>(exec, "SpMVKit::distributed::mtx_values", nnz);
    Kokkos::deep_copy(exec, rs,
                      Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                          row_starts.data(), m + 1));
    Kokkos::deep_copy(exec, cs,
                      Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                          columns.data(), nnz));
    auto vh = Kokkos::create_mirror_view(vs);
    for (std::int64_t k = 0; k < nnz; ++k)
      vh(k) = static_cast<Scalar>(values[static_cast<std::size_t>(k)]);
    Kokkos::deep_copy(exec, vs, vh);
    exec.fence();
    slab = detail::CrsSlab<Scalar, Device>{rs, cs, vs};
  });
  return make_distributed_matrix<DiagFormat, OffFormat, Ordinal, Offset>(
      partition, exec, slab, diag_options, off_options, options.halo);
}

} // namespace spmvkit

#endif
