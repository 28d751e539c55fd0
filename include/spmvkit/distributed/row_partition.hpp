// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_ROW_PARTITION_HPP
#define SPMVKIT_DISTRIBUTED_ROW_PARTITION_HPP

/// \file
/// Contiguous row partitions of a distributed matrix: rank r owns the global
/// rows [offsets[r], offsets[r+1]), and the same ranges of the vectors. Given
/// by the user (RowPartition::from_offsets) or balanced by nonzeros
/// (partition_by_nonzeros) without any rank seeing the whole matrix.
#include <spmvkit/distributed/detail/mpi_utils.hpp>
#include <spmvkit/distributed/distributed_error.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit {

/// A contiguous partition of the global rows over the ranks of a communicator.
///
/// Every rank owns at least one row. The communicator is not owned (it must
/// outlive the partition); the offsets are the same on every rank.
class RowPartition {
public:
  /// An empty partition (no communicator); assign a made one before use.
  RowPartition() = default;

  /// The partition given by `offsets` (size() + 1 entries, from 0 to the
  /// number of global rows, strictly increasing: every rank owns a row).
  ///
  /// Collective: every rank must pass the same offsets, which is checked.
  /// Throws DistributedError on every rank when the offsets are invalid on any
  /// rank or differ between ranks (the message names the first bad entry).
  static RowPartition from_offsets(MPI_Comm comm, std::vector<std::int64_t> offsets) {
    RowPartition p;
    p.comm_ = comm;
    p.rank_ = detail::mpi_rank(comm);
    p.size_ = detail::mpi_size(comm);
    detail::collective_step(comm, "spmvkit::RowPartition::from_offsets", [&] {
      if (static_cast<int>(offsets.size()) != p.size_ + 1) {
        throw std::invalid_argument("spmvkit::RowPartition: " + std::to_string(offsets.size()) +
                                    " offsets given for " + std::to_string(p.size_) +
                                    " ranks; expected ranks + 1 = " + std::to_string(p.size_ + 1));
      }
      if (offsets.front() != 0) {
        throw std::invalid_argument("spmvkit::RowPartition: offsets[0] must be 0, got " +
                                    std::to_string(offsets.front()));
      }
      for (int r = 0; r < p.size_; ++r) {
        if (offsets[r + 1] <= offsets[r]) {
          throw std::invalid_argument(
              "spmvkit::RowPartition: rank " + std::to_string(r) + " would own rows [" +
              std::to_string(offsets[r]) + ", " + std::to_string(offsets[r + 1]) +
              "); offsets must increase strictly (every rank needs at least one row)");
        }
      }
    });
    // Same offsets everywhere: compare with the lowest and highest of each entry.
    std::vector<std::int64_t> low(offsets.size()), high(offsets.size());
    const int count = static_cast<int>(offsets.size());
    detail::mpi_check(MPI_Allreduce(offsets.data(), low.data(), count, MPI_INT64_T, MPI_MIN, comm),
                      "MPI_Allreduce");
    detail::mpi_check(MPI_Allreduce(offsets.data(), high.data(), count, MPI_INT64_T, MPI_MAX, comm),
                      "MPI_Allreduce");
    for (int i = 0; i < count; ++i) {
      if (low[i] != high[i]) {
        throw DistributedError("spmvkit::RowPartition::from_offsets: the ranks passed different "
                               "offsets (entry " +
                               std::to_string(i) + " ranges from " + std::to_string(low[i]) +
                               " to " + std::to_string(high[i]) + ")");
      }
    }
    p.offsets_ = std::move(offsets);
    return p;
  }

  /// The communicator (not owned).
  MPI_Comm comm() const { return comm_; }
  /// This process's rank in comm().
  int rank() const { return rank_; }
  /// The number of ranks.
  int size() const { return size_; }
  /// The number of global rows.
  std::int64_t global_rows() const { return offsets_.empty() ? 0 : offsets_.back(); }
  /// The first global row of rank r.
  std::int64_t first_row(int r) const { return offsets_[static_cast<std::size_t>(r)]; }
  /// One past the last global row of rank r.
  std::int64_t end_row(int r) const { return offsets_[static_cast<std::size_t>(r) + 1]; }
  /// The number of rows of rank r.
  std::int64_t local_rows(int r) const { return end_row(r) - first_row(r); }
  /// The first global row of this rank.
  std::int64_t first_row() const { return first_row(rank_); }
  /// The number of rows of this rank.
  std::int64_t local_rows() const { return local_rows(rank_); }
  /// The rank owning global row `row` (in [0, global_rows())); O(log ranks).
  int owner(std::int64_t row) const {
    return static_cast<int>(std::upper_bound(offsets_.begin(), offsets_.end(), row) -
                            offsets_.begin()) -
           1;
  }
  /// The size() + 1 offsets.
  std::vector<std::int64_t> const& offsets() const { return offsets_; }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0;
  std::vector<std::int64_t> offsets_;
};

namespace detail {

/// The split rows of a partition with about total/p entries per rank, from
/// the exclusive prefix sums of the row lengths, then nudged so that every
/// rank owns a row. Shared by partition_by_nonzeros and the Matrix Market
/// scatter (whose root has the prefix of every row).
inline std::vector<std::int64_t> balanced_offsets(std::vector<std::int64_t> splits,
                                                  std::int64_t rows) {
  const int p = static_cast<int>(splits.size()) + 1;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(p) + 1);
  offsets[0] = 0;
  offsets[static_cast<std::size_t>(p)] = rows;
  for (int k = 1; k < p; ++k) {
    const std::int64_t at_least = offsets[static_cast<std::size_t>(k) - 1] + 1;
    const std::int64_t at_most = rows - (p - k);
    offsets[static_cast<std::size_t>(k)] =
        std::min(std::max(splits[static_cast<std::size_t>(k) - 1], at_least), at_most);
  }
  return offsets;
}

inline std::string too_many_ranks(std::int64_t rows, int ranks) {
  return "cannot partition " + std::to_string(rows) + " rows over " + std::to_string(ranks) +
         " ranks: every rank needs at least one row (run on at most " + std::to_string(rows) +
         " ranks)";
}

template <class Length>
struct RowLengthAt {
  Length length;
  std::int64_t first;
  Kokkos::View<std::int64_t*, typename Length::memory_space> prefix;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool last) const {
    if (last) prefix(i) = sum;
    if (i < static_cast<std::int64_t>(prefix.extent(0)) - 1) sum += length(first + i);
  }
};

} // namespace detail

/// A partition balanced by nonzeros: rank r gets the rows whose entries come
/// closest to r * nnz / p, each rank at least one row.
///
/// `length` is a device functor with `std::int64_t operator()(std::int64_t
/// global_row) const` and a `memory_space` member type; each rank evaluates it
/// on a 1/p block of the rows only, so no rank needs the whole matrix:
/// O(rows / p) work per rank, two collectives of p entries.
/// Collective. Throws DistributedError on every rank when there are more
/// ranks than rows or a length is negative.
template <class ExecutionSpace, class Length>
RowPartition partition_by_nonzeros(MPI_Comm comm, ExecutionSpace const& exec,
                                   std::int64_t global_rows, Length const& length) {
  const int p = detail::mpi_size(comm), rank = detail::mpi_rank(comm);
  if (global_rows < p) {
    throw DistributedError("spmvkit::partition_by_nonzeros: " +
                           detail::too_many_ranks(global_rows, p));
  }
  const std::int64_t first = global_rows * rank / p, end = global_rows * (rank + 1) / p;
  Kokkos::View<std::int64_t*, typename Length::memory_space> prefix;
  std::int64_t total = 0;
  detail::collective_step(comm, "spmvkit::partition_by_nonzeros", [&] {
    prefix = Kokkos::View<std::int64_t*, typename Length::memory_space>(
        "SpMVKit::distributed::partition_prefix", end - first + 1);
    Kokkos::parallel_scan("SpMVKit::distributed::partition_prefix",
                          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                              exec, 0, end - first + 1),
                          detail::RowLengthAt<Length>{length, first, prefix}, total);
    exec.fence();
    if (total < 0) throw std::invalid_argument("a row length is negative");
  });
  std::vector<std::int64_t> block_totals(static_cast<std::size_t>(p));
  detail::mpi_check(
      MPI_Allgather(&total, 1, MPI_INT64_T, block_totals.data(), 1, MPI_INT64_T, comm),
      "MPI_Allgather");
  std::int64_t before = 0, all = 0;
  for (int r = 0; r < p; ++r) {
    if (r < rank) before += block_totals[static_cast<std::size_t>(r)];
    all += block_totals[static_cast<std::size_t>(r)];
  }
  // Split k is the first row with at least k * all / p entries before it; the
  // rank whose block holds that count finds it in its own prefix.
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), prefix);
  std::vector<std::int64_t> mine(static_cast<std::size_t>(p) - 1, -1), splits(mine.size());
  for (int k = 1; k < p; ++k) {
    const std::int64_t target = static_cast<std::int64_t>(
        static_cast<long double>(all) * k / p + 0.5L); // rounded, not truncated: symmetric splits
    if (target < before || (target >= before + total && rank != p - 1)) continue;
    const std::int64_t* data = host.data();
    const std::int64_t at = std::lower_bound(data, data + host.extent(0), target - before) - data;
    mine[static_cast<std::size_t>(k) - 1] = first + at;
  }
  if (p > 1) {
    detail::mpi_check(MPI_Allreduce(mine.data(), splits.data(), p - 1, MPI_INT64_T, MPI_MAX, comm),
                      "MPI_Allreduce");
  }
  for (int k = 1; k < p; ++k) {
    // No entries at all: an even split by rows.
    if (splits[static_cast<std::size_t>(k) - 1] < 0) {
      splits[static_cast<std::size_t>(k) - 1] = global_rows * k / p;
    }
  }
  return RowPartition::from_offsets(comm, detail::balanced_offsets(splits, global_rows));
}

} // namespace spmvkit

#endif
