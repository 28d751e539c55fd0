// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SELECT_MATRIX_FEATURES_HPP
#define SPMVKIT_SELECT_MATRIX_FEATURES_HPP

/// \file
/// What the automatic format choice knows about a matrix before it converts
/// anything: MatrixFeatures and compute_features(). Four passes on the
/// device, three over the row starts (the row-length statistics of
/// core/matrix_statistics.hpp; the SELL padding at every chunk size the model
/// considers; the row-length divisors that rule BSR block sizes out) and one
/// over the column indices (the column reach of each row, which decides
/// SellOffset16 and is the bandwidth that reordering narrows), plus one over
/// the column indices per block size the divisors leave (BSR's blocks). Each
/// format's cost estimate (select/format_costs.hpp) is a function of these
/// numbers only, so the model never converts a matrix it will not keep.
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/select/detail/features_tuning.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace spmvkit {

/// The chunk sizes C whose SELL-C-1 padding compute_features() measures.
inline constexpr std::array<int, 5> feature_chunk_sizes = {4, 8, 16, 32, 64};

/// A matrix's features for the format model (select/format_model.hpp).
struct MatrixFeatures {
  /// Row-length statistics (nnz, mean, max, variance, empty rows, hubs).
  MatrixStatistics rows;
  /// Stored entries of SELL-C-1 (rows in their order, chunks padded to their
  /// longest row) for each C of feature_chunk_sizes, same order.
  std::array<std::int64_t, feature_chunk_sizes.size()> sell_padded_entries{};
  /// Largest col - row over the entries (0 without entries above the diagonal).
  std::int64_t max_offset_above = 0;
  /// Largest row - col over the entries (0 without entries below the diagonal).
  std::int64_t max_offset_below = 0;
  /// Whether every entry lies within int16 reach of its row and no empty row
  /// lies beyond x's reach: the SellOffset16 condition (formats/sell_offset16).
  bool sell_offset16_eligible = false;
  /// The block size BSR detects (the largest b of 8..2 whose full b x b
  /// blocks tile the pattern; 1 when none does) and its blocks (0 for b = 1).
  int bsr_block_size = 1;
  std::int64_t bsr_blocks = 0; ///< blocks of bsr_block_size BSR would store
  /// Seconds compute_features() took, fences included.
  double seconds = 0;

  /// The half bandwidth: max(max_offset_above, max_offset_below).
  std::int64_t bandwidth() const {
    return max_offset_above > max_offset_below ? max_offset_above : max_offset_below;
  }
  /// SELL-C-1 stored entries for chunk size c; for a C not measured, the
  /// next larger measured one (an upper bound), or num_rows * max_row_length.
  std::int64_t sell_padded(int c) const {
    for (std::size_t i = 0; i < feature_chunk_sizes.size(); ++i) {
      if (feature_chunk_sizes[i] >= c) return sell_padded_entries[i];
    }
    return rows.num_rows * rows.max_row_length;
  }
};

namespace detail {

/// The per-C padded entries summed by SellPaddingReduce (a fixed-size struct:
/// array reductions into host pointers are not portable across Kokkos 3 and 4).
struct PaddingSums {
  std::int64_t v[feature_chunk_sizes.size()];
};

/// Per-C sums of SELL-C-1 chunk widths times C, over blocks of 64 rows: a
/// thread owns one block and derives every smaller chunk from its rows, so
/// all chunk sizes cost one read of the row starts.
template <class RowStarts>
struct SellPaddingReduce {
  static constexpr int block = 64;
  static constexpr int count = static_cast<int>(feature_chunk_sizes.size());
  using value_type = PaddingSums;
  RowStarts row_starts;
  std::int64_t num_rows;

  KOKKOS_INLINE_FUNCTION void init(value_type& s) const {
    for (int i = 0; i < count; ++i) s.v[i] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    for (int i = 0; i < count; ++i) a.v[i] += b.v[i];
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    for (int i = 0; i < count; ++i) a.v[i] = a.v[i] + b.v[i];
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t b, value_type& sums) const {
    std::int64_t* v = sums.v;
    const std::int64_t first = b * block;
    const std::int64_t last = first + block < num_rows ? first + block : num_rows;
    // Widths of the 16 chunks of 4 rows; larger chunks are maxima of these.
    std::int64_t width4[block / 4] = {};
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t length =
          static_cast<std::int64_t>(row_starts(r + 1)) - static_cast<std::int64_t>(row_starts(r));
      auto& w = width4[(r - first) / 4];
      if (length > w) w = length;
    }
    // A partial last chunk is padded to full size like SELL stores it.
    for (int i = 0; i < count; ++i) {
      const int group = (4 << i) / 4; // chunks of 4 per chunk of C
      const std::int64_t chunk = 4 << i;
      for (int g = 0; g < block / 4; g += group) {
        if (first + 4 * g >= last) break;
        std::int64_t w = 0;
        for (int j = g; j < g + group; ++j) w = width4[j] > w ? width4[j] : w;
        v[i] += w * chunk;
      }
    }
  }
};

/// The column reach of the entries: largest col - row and row - col. A team
/// takes a block of rows and a group of vector lanes shares each row, so that
/// the hub rows of a power-law graph (10^5 entries) are not one thread's work.
template <class RowStarts, class Columns>
struct ColumnReachReduce {
  struct value_type {
    std::int64_t above, below;
  };
  RowStarts row_starts;
  Columns columns;
  std::int64_t num_rows;
  std::int64_t rows_per_team;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    if (b.above > a.above) a.above = b.above;
    if (b.below > a.below) a.below = b.below;
  }
#if KOKKOS_VERSION < 30700
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    if (b.above > a.above) a.above = b.above;
    if (b.below > a.below) a.below = b.below;
  }
#endif
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, value_type& v) const {
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < num_rows ? first + rows_per_team : num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t r) {
      std::int64_t above = 0, below = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, row_starts(r), row_starts(r + 1)),
          [&](auto k, std::int64_t& m) {
            const std::int64_t d = static_cast<std::int64_t>(columns(k)) - r;
            if (d > m) m = d;
          },
          Kokkos::Max<std::int64_t>(above));
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, row_starts(r), row_starts(r + 1)),
          [&](auto k, std::int64_t& m) {
            const std::int64_t d = r - static_cast<std::int64_t>(columns(k));
            if (d > m) m = d;
          },
          Kokkos::Max<std::int64_t>(below));
      Kokkos::single(Kokkos::PerThread(team), [&] {
        if (above > v.above) v.above = above;
        if (below > v.below) v.below = below;
      });
    });
  }
};

} // namespace detail

/// The features of a CRS matrix (any SpMVKit CrsMatrix), computed on exec.
///
/// Three reductions (two over the row starts, one over the column indices)
/// and the read of the results; the call waits for them. The structure is
/// assumed valid (make_auto_matrix() checks it first when asked to). Costs far less
/// than one SpMV: the value array, the largest one, is never read.
template <class ExecutionSpace, class Crs>
MatrixFeatures compute_features(ExecutionSpace const& exec, Crs const& A) {
  Kokkos::Timer timer;
  MatrixFeatures f;
  f.rows = row_length_statistics(exec, A.row_starts(), A.num_cols());
  const std::int64_t n = A.num_rows();
  if (n > 0) {
    using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    using PaddingReduce = detail::SellPaddingReduce<typename Crs::row_starts_type>;
    const std::int64_t blocks = (n + PaddingReduce::block - 1) / PaddingReduce::block;
    detail::PaddingSums padding{};
    Kokkos::parallel_reduce("SpMVKit::select::sell_padding", Policy(exec, 0, blocks),
                            PaddingReduce{A.row_starts(), n}, padding);
    using Reach =
        detail::ColumnReachReduce<typename Crs::row_starts_type, typename Crs::column_indices_type>;
    const auto lp = detail::features_launch_parameters<ExecutionSpace>(n);
    typename Reach::value_type reach{0, 0};
    Kokkos::parallel_reduce(
        "SpMVKit::select::column_reach",
        Kokkos::TeamPolicy<ExecutionSpace>(exec, lp.league_size, lp.team_size, lp.vector_length),
        Reach{A.row_starts(), A.column_indices(), n, lp.work_per_team}, reach);
    exec.fence();
    for (std::size_t i = 0; i < feature_chunk_sizes.size(); ++i) {
      f.sell_padded_entries[i] = padding.v[i];
    }
    f.max_offset_above = reach.above;
    f.max_offset_below = reach.below;
  }
  // BSR's detection: a pass over the row starts rules most block sizes out;
  // a remaining one costs a pass over the column indices.
  const auto plan = detail::bsr_plan(exec, A, BsrOptions{}, false);
  if (plan.obstacle.empty() && plan.block_size > 1) {
    f.bsr_block_size = plan.block_size;
    f.bsr_blocks = plan.blocks;
  }
  // The SellOffset16 rule (formats/sell_offset16): offsets in [-32768, 32767], and an
  // empty row's padding (its own row number as column) must reach x.
  f.sell_offset16_eligible = f.max_offset_above <= 32767 && f.max_offset_below <= 32768 &&
                             !(f.rows.nnz > 0 && n > A.num_cols() + 32768);
  f.seconds = timer.seconds();
  return f;
}

} // namespace spmvkit

#endif
