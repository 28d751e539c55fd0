// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_MATRIX_STATISTICS_HPP
#define SPMVKIT_CORE_MATRIX_STATISTICS_HPP

/// \file
/// Row-length statistics of a sparse matrix, computed on the device in one
/// pass over its row starts. They say whether rows are alike (a row-per-thread
/// or vector kernel is fine) or whether a few long rows would serialise the
/// product (the balanced kernel splits work by nonzeros instead):
/// CrsKernel::automatic reads them (core/detail/launch_parameters.hpp,
/// automatic_crs_kernel), and CrsMatrix computes them once and keeps them
/// (CrsMatrix::statistics).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// A row is a hub when it is longer than this many times the mean row length.
/// 8x: far enough above the mean that ordinary variation (FEM rows of 8 to 27
/// entries, mean about 20) never counts, near enough that the few-hundred-entry
/// rows of bcsstk08 (mean 12) or a graph's hubs do.
inline constexpr double default_hub_factor = 8.0;

/// What CrsKernel::automatic (and on hosts CrsKernel::vector and the CRS row kernels' launches)
/// and a user choosing a format look at.
struct MatrixStatistics {
  std::int64_t num_rows = 0;              ///< rows of the matrix
  std::int64_t num_cols = 0;              ///< columns of the matrix
  std::int64_t nnz = 0;                   ///< stored entries
  double mean_row_length = 0;             ///< nnz / num_rows (0 without rows)
  std::int64_t max_row_length = 0;        ///< entries of the longest row
  double row_length_variance = 0;         ///< population variance of the row lengths
  std::int64_t empty_rows = 0;            ///< rows without entries
  double hub_factor = default_hub_factor; ///< the factor hub_rows was counted with
  std::int64_t hub_rows = 0;              ///< rows longer than hub_factor * mean_row_length
  /// Fraction of the nonzeros that lie in hub rows: near 0 for FEM matrices,
  /// a large share for power-law graphs (where a row-owned kernel waits on
  /// them), 1 for a matrix that is one dense row.
  double hub_mass = 0;

  /// max_row_length / mean_row_length; 0 for a matrix without nonzeros.
  double max_over_mean() const {
    return mean_row_length > 0 ? static_cast<double>(max_row_length) / mean_row_length : 0.0;
  }
};

namespace detail {

/// The per-row quantities summed in the one pass.
struct RowLengthSums {
  double squared_deviation;
  std::int64_t max_length;
  std::int64_t empty_rows;
  std::int64_t hub_rows;
  std::int64_t hub_nnz;
};

/// One pass over the row starts: the mean is known beforehand (nnz / rows),
/// so the variance is summed as squared deviations (no cancellation) and hubs
/// are recognised in the same pass.
template <class RowStarts>
struct RowLengthReduce {
  using value_type = RowLengthSums;
  RowStarts row_starts;
  double mean;
  double hub_threshold;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0.0, 0, 0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    a.squared_deviation += b.squared_deviation;
    a.max_length = a.max_length > b.max_length ? a.max_length : b.max_length;
    a.empty_rows += b.empty_rows;
    a.hub_rows += b.hub_rows;
    a.hub_nnz += b.hub_nnz;
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    a.squared_deviation = a.squared_deviation + b.squared_deviation;
    a.max_length = a.max_length > b.max_length ? a.max_length : b.max_length;
    a.empty_rows = a.empty_rows + b.empty_rows;
    a.hub_rows = a.hub_rows + b.hub_rows;
    a.hub_nnz = a.hub_nnz + b.hub_nnz;
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, value_type& v) const {
    const std::int64_t length =
        static_cast<std::int64_t>(row_starts(row + 1)) - static_cast<std::int64_t>(row_starts(row));
    const double deviation = static_cast<double>(length) - mean;
    v.squared_deviation += deviation * deviation;
    if (length > v.max_length) v.max_length = length;
    if (length == 0) ++v.empty_rows;
    if (static_cast<double>(length) > hub_threshold) {
      ++v.hub_rows;
      v.hub_nnz += length;
    }
  }
};

} // namespace detail

/// The row-length statistics of a matrix given by its row starts (num_rows + 1
/// entries, CRS convention), on exec. One reduction over the rows plus the
/// read of the last row start; the call waits for both (it fences exec).
template <class ExecutionSpace, class RowStarts>
MatrixStatistics row_length_statistics(ExecutionSpace const& exec, RowStarts const& row_starts,
                                       std::int64_t num_cols,
                                       double hub_factor = default_hub_factor) {
  static_assert(Kokkos::is_view<RowStarts>::value && RowStarts::rank == 1,
                "spmvkit::row_length_statistics: row_starts must be a rank-1 Kokkos::View");
  if (row_starts.extent(0) == 0) {
    throw std::invalid_argument("spmvkit::row_length_statistics: row_starts needs num_rows + 1 "
                                "entries, got none");
  }
  MatrixStatistics s;
  s.num_rows = static_cast<std::int64_t>(row_starts.extent(0)) - 1;
  s.num_cols = num_cols;
  s.hub_factor = hub_factor;
  if (s.num_rows == 0) return s;
  typename RowStarts::non_const_value_type last{};
  exec.fence(); // the row starts may still be being written on exec
  Kokkos::deep_copy(last, Kokkos::subview(row_starts, s.num_rows));
  s.nnz = static_cast<std::int64_t>(last);
  s.mean_row_length = static_cast<double>(s.nnz) / static_cast<double>(s.num_rows);
  detail::RowLengthSums sums{0.0, 0, 0, 0, 0};
  Kokkos::parallel_reduce(
      "SpMVKit::MatrixStatistics::row_lengths",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, s.num_rows),
      detail::RowLengthReduce<RowStarts>{row_starts, s.mean_row_length,
                                         hub_factor * s.mean_row_length},
      sums);
  s.row_length_variance = sums.squared_deviation / static_cast<double>(s.num_rows);
  s.max_row_length = sums.max_length;
  s.empty_rows = sums.empty_rows;
  s.hub_rows = sums.hub_rows;
  s.hub_mass = s.nnz > 0 ? static_cast<double>(sums.hub_nnz) / static_cast<double>(s.nnz) : 0.0;
  return s;
}

} // namespace spmvkit

#endif
