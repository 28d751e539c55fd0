// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_ROW_BINS_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_ROW_BINS_HPP

/// \file
/// Row bounds and row bins: a bound on each row of C, the bitmap windows of
/// the concurrent path, and the order of rows by accumulator.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/spgemm/detail/spgemm_accumulators.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// Bins of rows by accumulator; the order is the launch order.
enum SpgemmBin : unsigned char {
  spgemm_bin_empty = 0,
  /// Scratch hash tables, a row per thread (spgemm_narrow_parameters).
  spgemm_bin_narrow = 1,
  /// Numeric plan only: rows of the scratch-hash bin whose values a thread's
  /// share of the bin's scratch holds; a row per thread in numeric phases
  /// from stored positions, a row per team in the symbolic passes.
  spgemm_bin_short = 2,
  spgemm_bin_hash = 3,
  spgemm_bin_dense = 4,
  spgemm_bin_global = 5
};

/// Bins narrow, short and hash are consecutive in the row order, so that any
/// two neighbours launch as one range where a bin is not worth a launch.
inline constexpr int spgemm_num_bins = 6;

/// Hash slots for a row of at most `bound` distinct columns: a power of two
/// with a load factor of at most one half, so that linear probing stays short.
KOKKOS_INLINE_FUNCTION std::int64_t spgemm_hash_slots(std::int64_t bound) {
  std::int64_t p = spgemm_min_hash_slots;
  while (p < 2 * bound) p *= 2;
  return p;
}

/// Per row of A: the bound min(sum over a_ik of nnz(B row k), num_cols) on
/// the length of row i of C; summed over rows (as an array reduction):
/// [0] multiply-adds (the unbounded sum), [1] a lower bound on nnz(C) (the
/// longest row of B the row reads), [2] the sum of the bounds.
template <class Ordinal, class Offset, class Device>
struct SpgemmBounds {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  size_type value_count = 3;
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> a_rs;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> a_ci;
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> b_rs;
  Kokkos::View<Ordinal*, Device> bound;
  std::int64_t num_cols;
  /// Where allocated: each row of B's smallest and largest column (SpgemmColumnSpans)
  /// in, the row of C's window (spgemm_window_words) out.
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> b_span;
  Kokkos::View<Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> window;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t* sums) const {
    std::int64_t upper = 0, lower = 0;
    const bool spans = window.extent(0) > 0;
    std::int64_t lo = num_cols, hi = -1;
    for (Offset k = a_rs(i); k < a_rs(i + 1); ++k) {
      const Ordinal c = a_ci(k);
      const std::int64_t len = static_cast<std::int64_t>(b_rs(c + 1) - b_rs(c));
      upper += len;
      lower = len > lower ? len : lower;
      if (spans && len > 0) {
        const auto first = static_cast<std::int64_t>(b_span(2 * c));
        const auto last = static_cast<std::int64_t>(b_span(2 * c + 1));
        lo = first < lo ? first : lo;
        hi = last > hi ? last : hi;
      }
    }
    if (spans) {
      window(2 * i) = static_cast<Ordinal>(hi >= lo ? lo / 32 : 0);
      window(2 * i + 1) = static_cast<Ordinal>(hi >= lo ? hi / 32 - lo / 32 + 1 : 0);
    }
    const std::int64_t b = upper < num_cols ? upper : num_cols;
    bound(i) = static_cast<Ordinal>(b);
    sums[0] += upper;
    sums[1] += lower < num_cols ? lower : num_cols;
    sums[2] += b;
  }
};

/// Per row k of B: its smallest and largest column at span(2k), span(2k + 1)
/// (an empty row: num_cols and 0, which no row of C reads).
template <class Ordinal, class Offset, class Device>
struct SpgemmColumnSpans {
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> b_rs;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> b_ci;
  Kokkos::View<Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> span;
  std::int64_t num_cols = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    std::int64_t lo = num_cols, hi = 0;
    for (Offset j = b_rs(k); j < b_rs(k + 1); ++j) {
      const auto c = static_cast<std::int64_t>(b_ci(j));
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    }
    span(2 * k) = static_cast<Ordinal>(lo);
    span(2 * k + 1) = static_cast<Ordinal>(hi);
  }
};

/// Over the rows perm[first, first + count) that are windowed under `cap`
/// words: the largest window (the words a launch's scratch needs), or, with
/// `count_rows`, their number (a sum).
template <class Ordinal, class Device>
struct SpgemmMaxWindow {
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> perm;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> window;
  std::int64_t first = 0, cap = 0;
  bool count_rows = false;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& m) const {
    const auto w =
        static_cast<std::int64_t>(window(2 * static_cast<std::int64_t>(perm(first + r)) + 1));
    if (!spgemm_windowed(w, cap)) return;
    if (count_rows) {
      m += 1;
    } else if (w > m) {
      m = w;
    }
  }
};

/// Per row: its bin from its bound (see SpgemmAccumulator), counted per bin
/// (array reduction over spgemm_num_bins).
template <class Ordinal, class Device>
struct SpgemmClassify {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  size_type value_count = spgemm_num_bins;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bound;
  Kokkos::View<unsigned char*, Device> bin;
  std::int64_t narrow_slots; // a row's table in the narrow bin (0: no narrow bin)
  std::int64_t short_limit;  // the longest row of the short bin (0: no short bin)
  std::int64_t hash_slots;   // the scratch hash table's capacity
  std::int64_t dense_limit;  // at most this many columns for the dense tiles
  std::int64_t num_cols;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t* counts) const {
    const std::int64_t b = bound(i);
    unsigned char k = spgemm_bin_global;
    if (b == 0) {
      k = spgemm_bin_empty;
    } else if (spgemm_hash_slots(b) <= narrow_slots) {
      k = spgemm_bin_narrow;
    } else if (spgemm_hash_slots(b) <= hash_slots) {
      k = b <= short_limit ? spgemm_bin_short : spgemm_bin_hash;
    } else if (num_cols <= dense_limit) {
      k = spgemm_bin_dense;
    }
    bin(i) = k;
    counts[k] += 1;
  }
};

/// The longest bound among the rows of one bin (the global pool's slot size).
template <class Ordinal, class Device>
struct SpgemmMaxBound {
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bound;
  Kokkos::View<const unsigned char*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bin;
  unsigned char which;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& m) const {
    const std::int64_t b = bin(i) == which ? static_cast<std::int64_t>(bound(i)) : 0;
    if (b > m) m = b;
  }
};

/// Rows of one bin, in row order, at perm(first ...): a stable partition by
/// an exclusive scan of the bin's indicator.
template <class Ordinal, class Device>
struct SpgemmPartition {
  Kokkos::View<const unsigned char*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bin;
  Kokkos::View<Ordinal*, Device> perm;
  unsigned char which;
  std::int64_t first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& update, bool final) const {
    if (bin(i) != which) return;
    if (final) perm(first + update) = static_cast<Ordinal>(i);
    update += 1;
  }
};

/// v(i) = w(i) with a type change (row lengths into bounds and back).
template <class To, class From>
struct SpgemmCopy {
  To to;
  From from;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    to(i) = static_cast<typename To::value_type>(from(i));
  }
};

/// Row lengths (at row_starts(i)) into row starts, in place; row_starts has
/// num_rows + 1 entries and its last receives nnz.
template <class Offset, class Device>
struct SpgemmScan {
  Kokkos::View<Offset*, Device> row_starts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, Offset& update, bool final) const {
    const Offset len = row_starts(i);
    if (final) row_starts(i) = update;
    update += len;
  }
};

/// The longest row of C (the width a product's position in its row needs).
template <class Offset, class Device>
struct SpgemmMaxRow {
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> c_rs;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& m) const {
    const auto len = static_cast<std::int64_t>(c_rs(i + 1) - c_rs(i));
    if (len > m) m = len;
  }
};

/// The sum of n entries of a View, in 64 bits.
template <class View>
struct SpgemmSum {
  View v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& s) const {
    s += static_cast<std::int64_t>(v(i));
  }
};

/// The host values of one bin's launch.
struct SpgemmBinLaunch {
  SpgemmAccumulator accumulator = SpgemmAccumulator::hash;
  std::int64_t first = 0, count = 0;
  /// Scratch hash slots or tile columns; narrow: hash slots of a row's table;
  /// global: entries per pool slot.
  std::int64_t capacity = 0;
  bool global_dense = false;
  /// Insert with atomics and sort as a team (GPU code path): teams of more than one thread or lane.
  bool concurrent = false;
  LaunchParameters p;
};

/// Bins the non-empty rows by accumulator from their bounds: counts per bin,
/// the stable row order perm (bins 1.. in order), and the largest bound of
/// the global bin (its pool's slot size). perm is allocated here
/// unless it already has the length.
template <class ExecutionSpace, class Bound, class Bin, class Perm>
std::int64_t
spgemm_bin_rows(ExecutionSpace const& exec, char const* phase, Bound const& bound, Bin const& bin,
                Perm& perm, std::int64_t n, SpgemmScratchLimits const& limits,
                SpgemmBinLaunch (&launch)[spgemm_num_bins], std::int64_t (&counts)[spgemm_num_bins],
                SpgemmNarrowPlan const& narrow, std::int64_t narrow_slots,
                std::int64_t short_limit) {
  using Ordinal = typename Perm::value_type;
  using Device = typename Perm::device_type;
  const auto m = static_cast<std::int64_t>(bound.extent(0));
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  for (auto& c : counts) c = 0;
  if (m > 0) {
    SpgemmClassify<Ordinal, Device> f;
    f.bound = bound;
    f.bin = bin;
    f.narrow_slots = narrow_slots;
    f.short_limit = short_limit;
    f.hash_slots = limits.hash_slots;
    f.dense_limit = limits.tile_columns * spgemm_max_tile_passes;
    f.num_cols = n;
    Kokkos::parallel_reduce(
        "SpMVKit::spgemm::bin_rows", Range(exec, 0, m), f,
        Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            counts, spgemm_num_bins));
  }
  // A row order of the right length is rewritten in place (the numeric plan
  // takes over the symbolic one's: the same rows are non-empty in both).
  if (static_cast<std::int64_t>(perm.extent(0)) != m - counts[spgemm_bin_empty]) {
    perm = allocate_view<Perm>(exec, std::string("SpMVKit::spgemm::row_order(") + phase + ")",
                               m - counts[spgemm_bin_empty]);
  }
  std::int64_t first = 0;
  for (int b = 1; b < spgemm_num_bins; ++b) {
    launch[b].first = first;
    launch[b].count = counts[b];
    if (counts[b] > 0) {
      Kokkos::parallel_scan(
          "SpMVKit::spgemm::order_rows", Range(exec, 0, m),
          SpgemmPartition<Ordinal, Device>{bin, perm, static_cast<unsigned char>(b), first});
    }
    first += counts[b];
  }
  for (int b : {spgemm_bin_narrow, spgemm_bin_short}) {
    launch[b].accumulator = SpgemmAccumulator::hash;
    launch[b].concurrent = true;
  }
  // The narrow bin's shape is its symbolic kernel's; the short bin's, the
  // numeric row-per-thread launch's (which takes both bins).
  launch[spgemm_bin_narrow].p = narrow.p;
  launch[spgemm_bin_short].p = narrow.values;
  launch[spgemm_bin_narrow].capacity = narrow_slots;
  launch[spgemm_bin_short].capacity = short_limit;
  launch[spgemm_bin_hash].accumulator = SpgemmAccumulator::hash;
  launch[spgemm_bin_hash].capacity = limits.hash_slots;
  launch[spgemm_bin_dense].accumulator = SpgemmAccumulator::dense;
  launch[spgemm_bin_dense].capacity = limits.tile_columns;
  launch[spgemm_bin_global].accumulator = SpgemmAccumulator::global;
  std::int64_t max_bound = 0;
  if (counts[spgemm_bin_global] > 0) {
    Kokkos::parallel_reduce(
        "SpMVKit::spgemm::global_bound", Range(exec, 0, m),
        SpgemmMaxBound<Ordinal, Device>{bound, bin, static_cast<unsigned char>(spgemm_bin_global)},
        Kokkos::Max<std::int64_t>(max_bound));
  }
  return max_bound;
}

} // namespace spmvkit::detail

#endif
