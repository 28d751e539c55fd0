// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_DETAIL_SPGEMM_KERNELS_HPP
#define SPMVKIT_OPERATIONS_DETAIL_SPGEMM_KERNELS_HPP

/// \file
/// The device code of SpGEMM (operations/spgemm.hpp): row bounds, row
/// binning, and the one TeamPolicy row kernel with its three accumulators
/// (scratch hash, scratch dense tiles, global pool), for both phases.

#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/operations/detail/spgemm_tuning.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

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

/// Whether a row of C whose columns span `words` 32-bit words is accumulated
/// as a bitmap window (SpgemmRows::window_row) in a launch whose scratch holds
/// `window_words` words: the count and fill passes and the position finding
/// (SpgemmPositionRows, which skips those rows) must agree on it.
KOKKOS_FORCEINLINE_FUNCTION bool spgemm_windowed(std::int64_t words, std::int64_t window_words) {
  return words > 0 && words <= window_words;
}

KOKKOS_FORCEINLINE_FUNCTION int spgemm_popcount(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

/// The lowest set bit of x != 0.
KOKKOS_FORCEINLINE_FUNCTION int spgemm_lowest_bit(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

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

/// Inserts column c into a linear-probing table of mask + 1 slots whose free
/// slots hold `empty`; returns its slot and whether this call inserted it.
/// Concurrent: other threads insert into the same table (compare-exchange;
/// a slot changes once, from empty to its column, so a stale read only costs
/// a failed exchange).
template <bool Concurrent, class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t
spgemm_hash_insert(Ordinal* keys, std::int64_t mask, Ordinal c, Ordinal empty, bool& inserted) {
  std::int64_t h = static_cast<std::int64_t>((static_cast<std::uint32_t>(c) * 2654435761u)) & mask;
  while (true) {
    if constexpr (Concurrent) {
      const Ordinal k = static_cast<Ordinal volatile*>(keys)[h];
      if (k == c) break;
      if (k == empty) {
        const Ordinal old = Kokkos::atomic_compare_exchange(keys + h, empty, c);
        if (old == empty) {
          inserted = true;
          return h;
        }
        if (old == c) break;
      }
    } else {
      const Ordinal k = keys[h];
      if (k == c) break;
      if (k == empty) {
        keys[h] = c;
        inserted = true;
        return h;
      }
    }
    h = (h + 1) & mask;
  }
  inserted = false;
  return h;
}

/// The slot of column c in a table of P = mask + 1 slots that holds it; the
/// search is bounded all the same, so that a pattern changed since the
/// symbolic phase cannot hang the device (the caller checks keys[slot] == c).
template <class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t spgemm_hash_find(Ordinal const* keys, std::int64_t mask,
                                                          Ordinal c) {
  std::int64_t h = static_cast<std::int64_t>((static_cast<std::uint32_t>(c) * 2654435761u)) & mask;
  for (std::int64_t t = 0; t <= mask && keys[h] != c; ++t) h = (h + 1) & mask;
  return h;
}

/// Marks a dense-accumulator column; returns whether this call marked it.
template <bool Concurrent, class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION bool spgemm_mark(Ordinal* flag) {
  if constexpr (Concurrent) {
    if (*static_cast<Ordinal volatile*>(flag) != 0) return false;
    return Kokkos::atomic_compare_exchange(flag, Ordinal(0), Ordinal(1)) == Ordinal(0);
  } else {
    if (*flag != 0) return false;
    *flag = 1;
    return true;
  }
}

template <bool Concurrent, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void spgemm_add(Scalar* v, Scalar x) {
  if constexpr (Concurrent) {
    Kokkos::atomic_add(v, x);
  } else {
    *v += x;
  }
}

/// Serial heap sort of n keys: a host team (one thread) sorts its row's
/// columns in place, O(n log n) and no extra memory.
template <class K>
KOKKOS_INLINE_FUNCTION void spgemm_heap_sort(K* k, std::int64_t n) {
  auto sift = [k](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t child = 2 * root + 1;
      if (child + 1 < end && k[child] < k[child + 1]) ++child;
      if (!(k[root] < k[child])) return;
      const K tk = k[root];
      k[root] = k[child];
      k[child] = tk;
      root = child;
    }
  };
  for (std::int64_t s = n / 2 - 1; s >= 0; --s) sift(s, n);
  for (std::int64_t end = n - 1; end > 0; --end) {
    const K tk = k[0];
    k[0] = k[end];
    k[end] = tk;
    sift(0, end);
  }
}

/// Bitonic sort of a power-of-two table of keys by the whole team; free
/// slots hold the largest key and so end up last. log2(P)
/// (log2(P) + 1) / 2 steps of P / 2 compare-exchanges, each step ended by a
/// team barrier.
template <class Member, class K>
KOKKOS_INLINE_FUNCTION void spgemm_team_bitonic_sort(Member const& team, K* keys, std::int64_t P) {
  for (std::int64_t k = 2; k <= P; k <<= 1) {
    for (std::int64_t j = k >> 1; j > 0; j >>= 1) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, P / 2), [&](std::int64_t q) {
        const std::int64_t a = 2 * q - (q & (j - 1));
        const std::int64_t b = a + j;
        const bool up = (a & k) == 0;
        const K ka = keys[a], kb = keys[b];
        if ((kb < ka) == up) {
          keys[a] = kb;
          keys[b] = ka;
        }
      });
      team.team_barrier();
    }
  }
}

/// The position of column c in the sorted row of C at [base, base + len) of
/// c_ci: the number of its columns below c (binary search).
template <class Columns, class Offset, class Ordinal>
KOKKOS_INLINE_FUNCTION std::int64_t spgemm_place(Columns const& c_ci, Offset base, std::int64_t len,
                                                 Ordinal c) {
  std::int64_t lo = 0, hi = len;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (c_ci(base + mid) < c) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The three passes of the row kernel: count (symbolic: the length of each
/// row of C), fill (symbolic: the columns of each row, sorted when asked) and
/// values (numeric: the values, for the columns fill wrote).
enum SpgemmPass : int { spgemm_count = 0, spgemm_fill = 1, spgemm_values = 2 };

/// The row kernel of every pass. A team accumulates one row of C at a time
/// (its threads over the row's entries a_ik, their vector lanes over row k of
/// B) and walks `rows_per_team` consecutive rows of its bin (perm[first ...]).
///
/// count: the number of distinct columns of row i goes to c_rs(i); `bound`
/// sizes the table. fill: the columns go to [c_rs(i), c_rs(i + 1)) of c_ci,
/// sorted when `sort`; the exact length sizes the table. values: the products
/// are accumulated by column, then each column of the row that fill wrote
/// fetches its sum, so that the numeric phase, the one users repeat, never
/// sorts.
///
/// Concurrent: a team has more than one thread or lane (GPUs), so that
/// insertions use atomics and sorts and writes are shared by the team; host
/// teams are one thread and use none of that.
template <class Scalar, class Ordinal, class Offset, class Device, int Pass, bool Concurrent>
struct SpgemmRows {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using scratch_view = Kokkos::View<T*, typename execution_space::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr bool with_values = Pass == spgemm_values;

  ro_view<Offset> a_rs, b_rs;
  ro_view<Ordinal> a_ci, b_ci;
  ro_view<Scalar> a_v, b_v;
  ro_view<Ordinal> perm;
  std::int64_t first = 0, count = 0, rows_per_team = 1;
  ro_view<Ordinal> bound; // count only
  Kokkos::View<Offset*, Device> c_rs;
  Kokkos::View<Ordinal*, Device> c_ci;
  Kokkos::View<Scalar*, Device> c_v;
  SpgemmAccumulator accumulator = SpgemmAccumulator::hash;
  /// Scratch: hash slots or tile columns. Global: the pool's slots per team.
  std::int64_t capacity = 0;
  /// Global: dense arrays of num_cols entries instead of hash tables.
  bool global_dense = false;
  std::int64_t num_cols = 0;
  Kokkos::View<Ordinal*, Device> pool_keys;
  Kokkos::View<Scalar*, Device> pool_vals;
  bool sort = true;
  /// What a free hash slot holds: the largest Ordinal, so that a sorted table
  /// ends with its free slots (set on the host: no numeric_limits in kernels).
  Ordinal empty_key = 0;
  /// Team scratch level of the accumulators (spgemm_scratch_level).
  int scratch_level = 0;
  /// The value of a column the table lacks (a pattern that changed after
  /// the symbolic phase): NaN, set on the host.
  Scalar not_found = Scalar(0);
  /// Symbolic passes of the hash bin on the concurrent path: each row's
  /// window (first 32-bit word of its column span, number of words; from
  /// SpgemmBounds), and the most words a window may have here (0: none).
  ro_view<Ordinal> window;
  std::int64_t window_words = 0;
  /// Fill: where each entry's products start and, where one is allocated, the
  /// place of every product, which windowed rows find as they fill.
  ro_view<std::int64_t> starts;
  Kokkos::View<std::uint16_t*, Device> pos16;
  Kokkos::View<std::uint32_t*, Device> pos32;

  /// 32-bit words of a window of `words` words: its bits; filling, also a
  /// summary bit per word that has a bit, a place per word, and per summary
  /// word the bits below it.
  KOKKOS_INLINE_FUNCTION static std::int64_t window_scratch_words(std::int64_t words) {
    if (words <= 0) return 0;
    const std::int64_t summary = (words + 31) / 32;
    return Pass == spgemm_count ? words : 2 * words + 2 * summary;
  }
  /// Keys of the team's scratch: the hash table's slots or tile columns, or
  /// the window's words, whichever is larger.
  KOKKOS_INLINE_FUNCTION static std::int64_t key_slots(std::int64_t capacity,
                                                       std::int64_t window_words) {
    const std::int64_t w =
        (window_scratch_words(window_words) * 4 + std::int64_t(sizeof(Ordinal)) - 1) /
        std::int64_t(sizeof(Ordinal));
    return capacity > w ? capacity : w;
  }

  static std::size_t scratch_bytes(SpgemmAccumulator acc, std::int64_t capacity, int team_size,
                                   std::int64_t window_words = 0) {
    std::size_t b = scratch_view<Offset>::shmem_size(static_cast<std::size_t>(team_size) + 1);
    if (acc != SpgemmAccumulator::global) {
      b += scratch_view<Ordinal>::shmem_size(
          static_cast<std::size_t>(key_slots(capacity, window_words)));
      if (with_values) b += scratch_view<Scalar>::shmem_size(static_cast<std::size_t>(capacity));
    }
    return b;
  }

  KOKKOS_INLINE_FUNCTION std::int64_t row_bound(Ordinal i) const {
    if constexpr (Pass == spgemm_count) {
      return static_cast<std::int64_t>(bound(i));
    } else {
      return static_cast<std::int64_t>(c_rs(i + 1) - c_rs(i));
    }
  }

  /// The products a_ik b_kj of row entries [a0, a1) for which is_new(kb)
  /// holds (it inserts column j and says whether this product did), summed
  /// over the team: threads over the entries, their lanes over rows of B.
  template <class IsNew>
  KOKKOS_INLINE_FUNCTION Offset count_new(member_type const& team, Offset a0, Offset a1,
                                          IsNew const& is_new) const {
    Offset added = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, a0, a1),
        [&](Offset ka, Offset& sum) {
          const Ordinal k = a_ci(ka);
          Offset mine = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, b_rs(k), b_rs(k + 1)),
              [&](Offset kb, Offset& s) { s += is_new(kb) ? 1 : 0; }, mine);
          sum += mine;
        },
        added);
    return added;
  }

  /// Writes the marked entries of [0, width) in order to c_ci from position
  /// base: every thread counts a segment, one thread scans the counts, every
  /// thread writes its segment. Returns the position after the last entry.
  template <class Marked, class Column>
  KOKKOS_INLINE_FUNCTION Offset ordered_write(member_type const& team, Offset* segs,
                                              std::int64_t width, Offset base, Marked marked,
                                              Column column) const {
    const int nseg = team.team_size();
    const std::int64_t seglen = (width + nseg - 1) / nseg;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nseg), [&](int s) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        Offset c = 0;
        const std::int64_t end = (s + 1) * seglen < width ? (s + 1) * seglen : width;
        for (std::int64_t j = s * seglen; j < end; ++j) c += marked(j) ? 1 : 0;
        segs[s] = c;
      });
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Offset run = base;
      for (int s = 0; s < nseg; ++s) {
        const Offset c = segs[s];
        segs[s] = run;
        run += c;
      }
      segs[nseg] = run;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nseg), [&](int s) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        Offset p = segs[s];
        const std::int64_t end = (s + 1) * seglen < width ? (s + 1) * seglen : width;
        for (std::int64_t j = s * seglen; j < end; ++j) {
          if (marked(j)) c_ci(p++) = column(j);
        }
      });
    });
    team.team_barrier();
    const Offset end = segs[nseg];
    team.team_barrier(); // segs is rewritten by the next call
    return end;
  }

  /// The symbolic passes of a row whose columns lie in a window of a few
  /// thousand words (FEM and other banded rows): a bitmap of the window in
  /// scratch, one atomic or per product. Count: a column is new where its bit
  /// was clear. Fill: the set bits are the row's columns in order, so nothing
  /// is sorted, and a product's position is the bits below its own (a place per
  /// word from a scan over the words that have one, found through a summary
  /// bit per word), so that filling and finding the positions are one pass.
  /// At FEM N = 96 the window's passes took less than half the hash table's
  /// time (docs/notes/2026-11-24-spgemm-symbolic-gpu.md).
  KOKKOS_INLINE_FUNCTION void window_row(member_type const& team, Ordinal i,
                                         std::uint32_t* bits) const {
    const auto w0 = static_cast<std::int64_t>(window(2 * static_cast<std::int64_t>(i)));
    const auto words = static_cast<std::int64_t>(window(2 * static_cast<std::int64_t>(i) + 1));
    const std::int64_t col0 = 32 * w0;
    const std::int64_t nsum = (words + 31) / 32;
    std::uint32_t* summary = bits + words;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, Pass == spgemm_count ? words : words + nsum),
                         [&](std::int64_t w) { bits[w] = 0; });
    team.team_barrier();
    const Offset a0 = a_rs(i), a1 = a_rs(i + 1);
    if constexpr (Pass == spgemm_count) {
      const Offset added = count_new(team, a0, a1, [&](Offset kb) {
        const std::int64_t c = static_cast<std::int64_t>(b_ci(kb)) - col0;
        const std::uint32_t bit = std::uint32_t(1) << (c & 31);
        return (Kokkos::atomic_fetch_or(bits + (c >> 5), bit) & bit) == 0;
      });
      Kokkos::single(Kokkos::PerTeam(team), [&]() { c_rs(i) = added; });
      team.team_barrier(); // the next row clears the window
      return;
    }
    std::uint32_t* place = summary + nsum;
    std::uint32_t* below = place + words;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a0, a1), [&](Offset ka) {
      const Ordinal k = a_ci(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b_rs(k), b_rs(k + 1)), [&](Offset kb) {
        const std::int64_t c = static_cast<std::int64_t>(b_ci(kb)) - col0;
        const std::int64_t w = c >> 5;
        if (Kokkos::atomic_fetch_or(bits + w, std::uint32_t(1) << (c & 31)) == 0) {
          Kokkos::atomic_fetch_or(summary + (w >> 5), std::uint32_t(1) << (w & 31));
        }
      });
    });
    team.team_barrier();
    // Bits per summary word, then the position of every word that has a bit.
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, nsum), [&](std::int64_t g) {
      std::uint32_t n = 0;
      for (std::uint32_t m = summary[g]; m != 0; m &= m - 1) {
        n += spgemm_popcount(bits[32 * g + spgemm_lowest_bit(m)]);
      }
      below[g] = n;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, nsum), [&](std::int64_t g) {
      std::uint32_t run = 0;
      for (std::int64_t h = 0; h < g; ++h) run += below[h];
      for (std::uint32_t m = summary[g]; m != 0; m &= m - 1) {
        const std::int64_t w = 32 * g + spgemm_lowest_bit(m);
        place[w] = run;
        run += spgemm_popcount(bits[w]);
      }
    });
    team.team_barrier();
    const Offset base = c_rs(i);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, words), [&](std::int64_t w) {
      std::uint32_t m = bits[w];
      if (m == 0) return;
      Offset p = base + static_cast<Offset>(place[w]);
      for (; m != 0; m &= m - 1) {
        c_ci(p++) = static_cast<Ordinal>(col0 + 32 * w + spgemm_lowest_bit(m));
      }
    });
    if (pos16.extent(0) > 0 || pos32.extent(0) > 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a0, a1), [&](Offset ka) {
        const Ordinal k = a_ci(ka);
        const Offset b0 = b_rs(k);
        const std::int64_t p0 = starts(ka);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b0, b_rs(k + 1)), [&](Offset kb) {
          const std::int64_t c = static_cast<std::int64_t>(b_ci(kb)) - col0;
          const std::int64_t w = c >> 5;
          const std::uint32_t below_bit = (std::uint32_t(1) << (c & 31)) - 1;
          const std::uint32_t at = place[w] + spgemm_popcount(bits[w] & below_bit);
          if (pos16.extent(0) > 0) {
            pos16(p0 + (kb - b0)) = static_cast<std::uint16_t>(at);
          } else {
            pos32(p0 + (kb - b0)) = at;
          }
        });
      });
    }
    team.team_barrier(); // the next row clears the window
  }

  KOKKOS_INLINE_FUNCTION void hash_row(member_type const& team, Ordinal i, Ordinal* keys,
                                       Scalar* vals, Offset* segs) const {
    if constexpr (Concurrent && !with_values) {
      if (accumulator == SpgemmAccumulator::hash &&
          spgemm_windowed(window.extent(0) > 0 ? window(2 * static_cast<std::int64_t>(i) + 1) : 0,
                          window_words)) {
        window_row(team, i, reinterpret_cast<std::uint32_t*>(keys));
        return;
      }
    }
    const Ordinal empty = empty_key;
    const std::int64_t P = spgemm_hash_slots(row_bound(i));
    const std::int64_t mask = P - 1;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, P), [&](std::int64_t h) {
      keys[h] = empty;
      if constexpr (with_values) vals[h] = Scalar(0);
    });
    team.team_barrier();
    const Offset a0 = a_rs(i), a1 = a_rs(i + 1);
    if constexpr (Pass == spgemm_count) {
      const Offset added = count_new(team, a0, a1, [&](Offset kb) {
        bool inserted = false;
        spgemm_hash_insert<Concurrent>(keys, mask, b_ci(kb), empty, inserted);
        return inserted;
      });
      Kokkos::single(Kokkos::PerTeam(team), [&]() { c_rs(i) = added; });
      team.team_barrier(); // the next row clears the table
      return;
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a0, a1), [&](Offset ka) {
      const Ordinal k = a_ci(ka);
      const Scalar av = with_values ? a_v(ka) : Scalar(0);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b_rs(k), b_rs(k + 1)), [&](Offset kb) {
        bool inserted = false;
        const std::int64_t h =
            spgemm_hash_insert<Concurrent>(keys, mask, b_ci(kb), empty, inserted);
        if constexpr (with_values) spgemm_add<Concurrent>(vals + h, av * b_v(kb));
      });
    });
    team.team_barrier();
    const Offset base = c_rs(i);
    const std::int64_t len = c_rs(i + 1) - base;
    if constexpr (with_values) {
      // Every column of the row is in the table: look its sum up.
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, len), [&](std::int64_t j) {
        const Ordinal c = c_ci(base + j);
        const std::int64_t h = spgemm_hash_find(keys, mask, c);
        c_v(base + j) = keys[h] == c ? vals[h] : not_found;
      });
    } else if (sort) {
      if constexpr (Concurrent) {
        spgemm_team_bitonic_sort(team, keys, P);
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, len),
                             [&](std::int64_t j) { c_ci(base + j) = keys[j]; });
      } else {
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          std::int64_t n = 0;
          for (std::int64_t h = 0; h < P; ++h) {
            if (keys[h] != empty) keys[n++] = keys[h];
          }
          spgemm_heap_sort(keys, n);
          for (std::int64_t j = 0; j < n; ++j) c_ci(base + j) = keys[j];
        });
      }
    } else {
      ordered_write(
          team, segs, P, base, [&](std::int64_t h) { return keys[h] != empty; },
          [&](std::int64_t h) { return keys[h]; });
    }
    team.team_barrier(); // the next row clears the table
  }

  KOKKOS_INLINE_FUNCTION void dense_row(member_type const& team, Ordinal i, std::int64_t tile,
                                        Ordinal* flags, Scalar* vals, Offset* segs) const {
    const Offset a0 = a_rs(i), a1 = a_rs(i + 1);
    Offset total = 0;
    Offset pos = Pass == spgemm_count ? Offset(0) : c_rs(i);
    const Offset row_end = Pass == spgemm_count ? Offset(0) : c_rs(i + 1);
    for (std::int64_t t0 = 0; t0 < num_cols; t0 += tile) {
      const std::int64_t w = num_cols - t0 < tile ? num_cols - t0 : tile;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, w), [&](std::int64_t j) {
        if constexpr (with_values) {
          vals[j] = Scalar(0);
        } else {
          flags[j] = 0;
        }
      });
      team.team_barrier();
      if constexpr (Pass == spgemm_count) {
        const Offset added = count_new(team, a0, a1, [&](Offset kb) {
          const std::int64_t c = static_cast<std::int64_t>(b_ci(kb)) - t0;
          return c >= 0 && c < w && spgemm_mark<Concurrent>(flags + c);
        });
        total += added;
        team.team_barrier(); // the next tile clears the flags
        continue;
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a0, a1), [&](Offset ka) {
        const Ordinal k = a_ci(ka);
        const Scalar av = with_values ? a_v(ka) : Scalar(0);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b_rs(k), b_rs(k + 1)), [&](Offset kb) {
          const std::int64_t c = static_cast<std::int64_t>(b_ci(kb)) - t0;
          if (c < 0 || c >= w) return;
          if constexpr (with_values) {
            spgemm_add<Concurrent>(vals + c, av * b_v(kb));
          } else {
            spgemm_mark<Concurrent>(flags + c);
          }
        });
      });
      team.team_barrier();
      if constexpr (with_values) {
        // The row's columns in this tile fetch their sums (any column order).
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, pos, row_end), [&](Offset p) {
          const std::int64_t c = static_cast<std::int64_t>(c_ci(p)) - t0;
          if (c >= 0 && c < w) c_v(p) = vals[c];
        });
        team.team_barrier(); // the next tile clears the sums
      } else {
        pos = ordered_write(
            team, segs, w, pos, [&](std::int64_t j) { return flags[j] != 0; },
            [&](std::int64_t j) { return static_cast<Ordinal>(t0 + j); });
      }
    }
    if constexpr (Pass == spgemm_count) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { c_rs(i) = total; });
      team.team_barrier();
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t begin = first + team.league_rank() * rows_per_team;
    const std::int64_t end =
        begin + rows_per_team < first + count ? begin + rows_per_team : first + count;
    scratch_view<Offset> segs(team.team_scratch(scratch_level),
                              static_cast<std::size_t>(team.team_size()) + 1);
    Ordinal* keys = nullptr;
    Scalar* vals = nullptr;
    if (accumulator == SpgemmAccumulator::global) {
      const std::int64_t slot = team.league_rank() * capacity;
      keys = pool_keys.data() + slot;
      if constexpr (with_values) vals = pool_vals.data() + slot;
    } else {
      scratch_view<Ordinal> k(team.team_scratch(scratch_level),
                              static_cast<std::size_t>(key_slots(capacity, window_words)));
      scratch_view<Scalar> v(team.team_scratch(scratch_level),
                             with_values ? static_cast<std::size_t>(capacity) : 0);
      keys = k.data();
      vals = v.data();
    }
    // The global bin's league is capped by its pool slots, so teams walk many
    // rows: every league_size-th row rather than a block of consecutive ones,
    // since long rows cluster (the hubs of a graph often have nearby numbers).
    const bool strided = accumulator == SpgemmAccumulator::global;
    const std::int64_t step = strided ? team.league_size() : 1;
    const std::int64_t r0 = strided ? first + team.league_rank() : begin;
    const std::int64_t r1 = strided ? first + count : end;
    for (std::int64_t r = r0; r < r1; r += step) {
      const Ordinal i = perm(r);
      if (accumulator == SpgemmAccumulator::dense) {
        dense_row(team, i, capacity, keys, vals, segs.data());
      } else if (accumulator == SpgemmAccumulator::global && global_dense) {
        dense_row(team, i, num_cols, keys, vals, segs.data());
      } else {
        hash_row(team, i, keys, vals, segs.data());
      }
    }
  }
};

/// The last index e in [lo, hi) with v(e) <= x, for v ascending and v(lo) <=
/// x < v(hi): the entry of A holding product x, given where entries' products
/// start (an empty row of B repeats a start; the last of equal starts is the
/// entry that holds x).
template <class V, class T>
KOKKOS_INLINE_FUNCTION T spgemm_last_at_most(V const& v, T lo, T hi, std::int64_t x) {
  while (hi - lo > 1) {
    const T mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(v(mid)) <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The symbolic passes of the narrow bin (spgemm_narrow_parameters): a row
/// per thread, its vector lanes over the row's products (products()), its
/// table in the thread's share of team scratch, so that nothing waits on a
/// team barrier. Count (Fill false): the row's length into c_rs(i), its table
/// sized by the row's bound. Fill: the row's columns into c_ci, sorted by
/// rank (the table's columns are compacted by a scan of the lanes, then a
/// column's position is the number of smaller ones among them: len^2 compares,
/// against P^2 over the whole table, 1.3x slower in delaunay_n16's fill:
/// docs/notes/2026-11-24-spgemm-symbolic-gpu.md), its table sized by the exact
/// length; and,
/// where `pos` is allocated, the position of every product from the same table
/// (the positions SpgemmPositionRows<Find> finds for the other bins), so that
/// filling and finding are one pass.
template <class Ordinal, class Offset, class Device, class Pos, bool Fill, bool Concurrent>
struct SpgemmNarrowRows {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using scratch_view = Kokkos::View<T*, typename execution_space::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> a_rs, b_rs;
  ro_view<Ordinal> a_ci, b_ci, perm;
  ro_view<Ordinal> bound; // count only
  ro_view<std::int64_t> starts;
  Kokkos::View<Offset*, Device> c_rs;
  Kokkos::View<Ordinal*, Device> c_ci;
  Kokkos::View<Pos*, Device> pos;
  std::int64_t first = 0, count = 0;
  /// Slots of a row's table (a power of two).
  std::int64_t slots = 0;
  Ordinal empty_key = 0;
  int scratch_level = 0;

  /// A row's share: its table (and, filling, the table's positions and its
  /// compacted columns, at most half the slots), and one more entry, so that
  /// the rows of one warp, which read their shares at the same offsets, start
  /// in different banks; and where its entries' products start.
  KOKKOS_INLINE_FUNCTION static std::int64_t share(std::int64_t slots) {
    return (Fill ? 2 * slots + slots / 2 : slots) + 1;
  }
  /// Rows of at most this many entries take their products flattened
  /// (products()); longer ones, rare in this bin, entry by entry.
  static constexpr std::int64_t flat_entries = 32;
  static std::size_t scratch_bytes(int team_size, std::int64_t slots) {
    const auto rows = static_cast<std::size_t>(team_size);
    return scratch_view<Ordinal>::shmem_size(rows * static_cast<std::size_t>(share(slots))) +
           scratch_view<std::int64_t>::shmem_size(rows * (flat_entries + 1));
  }

  /// f(ka, kb, t) for every product a_ik b_kj of row i (entries [a0, a1) of
  /// A; t the product's number in the row). The lanes take the row's products
  /// flattened, each finding its entry by a binary search of where the
  /// entries' products start (`starts_at`, scanned here), so that they stay busy
  /// however short B's rows are: taken entry by entry, rows of B of a few
  /// entries left most lanes idle, and the rows of one warp diverged (5.9 of 32
  /// threads active on delaunay_n16; docs/notes/2026-11-24-spgemm-symbolic-gpu.md).
  template <class F>
  KOKKOS_INLINE_FUNCTION void products(member_type const& team, Offset a0, Offset a1,
                                       scratch_view<std::int64_t> const& starts_at,
                                       F const& f) const {
    const std::int64_t entries = a1 - a0;
    if (entries > flat_entries) {
      std::int64_t t0 = 0;
      for (Offset ka = a0; ka < a1; ++ka) {
        const Ordinal k = a_ci(ka);
        const Offset b0 = b_rs(k), b1 = b_rs(k + 1);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b0, b1),
                             [&](Offset kb) { f(ka, kb, t0 + (kb - b0)); });
        t0 += b1 - b0;
      }
      return;
    }
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, entries + 1),
                          [&](std::int64_t e, std::int64_t& run, bool final) {
                            if (final) starts_at(e) = run;
                            if (e < entries) {
                              const Ordinal k = a_ci(a0 + e);
                              run += b_rs(k + 1) - b_rs(k);
                            }
                          });
    Kokkos::single(Kokkos::PerThread(team), []() {});
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, starts_at(entries)), [&](std::int64_t t) {
      const std::int64_t e = spgemm_last_at_most(starts_at, std::int64_t(0), entries, t);
      const Offset ka = a0 + static_cast<Offset>(e);
      f(ka, b_rs(a_ci(ka)) + static_cast<Offset>(t - starts_at(e)), t);
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t rows = team.team_size();
    const std::int64_t begin = first + team.league_rank() * rows;
    const std::int64_t end = begin + rows < first + count ? begin + rows : first + count;
    const std::int64_t row_share = share(slots);
    scratch_view<Ordinal> table(team.team_scratch(scratch_level),
                                static_cast<std::size_t>(rows * row_share));
    scratch_view<std::int64_t> firsts(team.team_scratch(scratch_level),
                                      static_cast<std::size_t>(rows * (flat_entries + 1)));
    const Ordinal empty = empty_key;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](std::int64_t r) {
      const Ordinal i = perm(r);
      Ordinal* keys = table.data() + (r - begin) * row_share;
      const scratch_view<std::int64_t> starts_of(firsts.data() + (r - begin) * (flat_entries + 1),
                                                 flat_entries + 1);
      const std::int64_t P = spgemm_hash_slots(
          Fill ? static_cast<std::int64_t>(c_rs(i + 1) - c_rs(i)) : std::int64_t(bound(i)));
      const std::int64_t mask = P - 1;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, P),
                           [&](std::int64_t h) { keys[h] = empty; });
      // The lanes of a thread: ordered by an empty single, as in value_rows_narrow.
      Kokkos::single(Kokkos::PerThread(team), []() {});
      const Offset a0 = a_rs(i), a1 = a_rs(i + 1);
      products(team, a0, a1, starts_of, [&](Offset, Offset kb, std::int64_t) {
        bool inserted = false;
        spgemm_hash_insert<Concurrent>(keys, mask, b_ci(kb), empty, inserted);
      });
      Kokkos::single(Kokkos::PerThread(team), []() {});
      if constexpr (!Fill) {
        Offset added = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, P),
            [&](std::int64_t h, Offset& sum) { sum += keys[h] != empty ? 1 : 0; }, added);
        Kokkos::single(Kokkos::PerThread(team), [&]() { c_rs(i) = added; });
      } else {
        Ordinal* positions = keys + slots;
        Ordinal* list = positions + slots;
        Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, P),
                              [&](std::int64_t h, Ordinal& j, bool final) {
                                if (keys[h] == empty) return;
                                if (final) list[j] = keys[h];
                                j += 1;
                              });
        Kokkos::single(Kokkos::PerThread(team), []() {});
        const Offset base = c_rs(i);
        const std::int64_t len = c_rs(i + 1) - base;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len), [&](std::int64_t j) {
          const Ordinal c = list[j];
          Ordinal rank = 0;
          for (std::int64_t g = 0; g < len; ++g) rank += list[g] < c ? 1 : 0;
          c_ci(base + rank) = c;
          positions[spgemm_hash_find(keys, mask, c)] = rank;
        });
        if (pos.extent(0) == 0) return;
        Kokkos::single(Kokkos::PerThread(team), []() {});
        const std::int64_t p0 = starts(a0);
        products(team, a0, a1, starts_of, [&](Offset, Offset kb, std::int64_t t) {
          const Ordinal c = b_ci(kb);
          const std::int64_t h = spgemm_hash_find(keys, mask, c);
          pos(p0 + t) = static_cast<Pos>(keys[h] == c ? positions[h] : 0);
        });
      }
    });
  }
};

/// Per entry a_ik of A: where its products start in the list of all
/// products (row by row, and within a row entry by entry): an exclusive scan
/// of nnz(B row k) over A's entries, into starts (a_nnz + 1 entries; the last
/// receives the number of multiply-adds).
template <class Ordinal, class Offset, class Device>
struct SpgemmProductStarts {
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> a_ci;
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> b_rs;
  Kokkos::View<std::int64_t*, Device> starts;
  std::int64_t a_nnz = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t ka, std::int64_t& update, bool final) const {
    std::int64_t len = 0;
    if (ka < a_nnz) {
      const Ordinal k = a_ci(ka);
      len = static_cast<std::int64_t>(b_rs(k + 1) - b_rs(k));
    }
    if (final) starts(ka) = update;
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

/// The numeric phase without hashing. The symbolic phase stores, for every
/// product a_ik b_kj (in the order of SpgemmProductStarts), the position of
/// column j in the sorted row i of C (`Find`: a binary search of the row,
/// once); the numeric phase, the one users repeat, adds each product at its
/// place (`Find` false): no probing, no compare-exchange, no lookup, and no
/// column index is read: a product costs its place and b_kj.
///
/// A row is accumulated in team scratch when it fits `capacity` values, else
/// in place in C's values. Concurrent: threads of a team add to one row with
/// atomics (GPUs); host teams are one thread and use none. On GPUs the rows
/// that scratch does not hold go to SpgemmPositionChunks instead.
///
/// Whether A's and B's patterns are still those of the symbolic phase is
/// checked once per phase, not per product: a fingerprint of both patterns
/// (SpgemmFingerprint) is computed on the device before this kernel, and
/// every team compares it with the symbolic phase's. A changed pattern makes
/// every value of C NaN (`not_found`) and nothing is read through a place or
/// a row start that may no longer fit.
template <class Scalar, class Ordinal, class Offset, class Device, class Pos, bool Find,
          bool Concurrent>
struct SpgemmPositionRows {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using scratch_view = Kokkos::View<T*, typename execution_space::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> a_rs, b_rs, c_rs;
  ro_view<Ordinal> a_ci, b_ci, c_ci;
  ro_view<Scalar> a_v, b_v;
  ro_view<Ordinal> perm;
  ro_view<std::int64_t> starts;
  std::int64_t first = 0, count = 0, rows_per_team = 1;
  /// Teams walk every league_size-th row of the bin (the global bin).
  bool strided = false;
  /// Values, > 0: the rows are at most this long and a team accumulates
  /// rows_per_team (its threads) of them, a row per thread (value_rows_narrow).
  std::int64_t narrow_segment = 0;
  /// Values, narrow launches: the first team_count teams take the scratch-hash
  /// rows perm(team_first ...) a team each, beside the narrow rows, so that
  /// those few long rows overlap the narrow ones instead of running after them.
  std::int64_t team_first = 0, team_count = 0;
  Kokkos::View<Pos*, Device> pos;
  Kokkos::View<Scalar*, Device> c_v;
  /// Find: hash slots of a team's scratch table from column to place (rows
  /// whose table fits; longer rows binary-search their row of C). Values:
  /// values a team's scratch holds (longer rows accumulate in c_v).
  std::int64_t capacity = 0;
  int scratch_level = 0;
  Scalar not_found = Scalar(0);
  /// What a free hash slot holds (Find; set on the host).
  Ordinal empty_key = 0;
  /// Values: the patterns' fingerprint now (SpgemmFingerprint, computed on
  /// the device just before) and at the symbolic phase.
  Kokkos::View<const std::uint64_t*, Device> fingerprint;
  std::uint64_t expected_fingerprint = 0;
  /// Find: the rows that SpgemmRows' fill pass windowed (spgemm_windowed of
  /// their window under window_words) have their positions already.
  ro_view<Ordinal> window;
  std::int64_t window_words = 0;

  static std::size_t scratch_bytes(std::int64_t capacity) {
    const auto c = static_cast<std::size_t>(capacity);
    return Find ? 2 * scratch_view<Ordinal>::shmem_size(c) : scratch_view<Scalar>::shmem_size(c);
  }

  /// Positions through a scratch hash table of the row's columns: one probe
  /// sequence per product instead of a binary search of the row.
  KOKKOS_INLINE_FUNCTION void find_row_hashed(member_type const& team, Ordinal i, Ordinal* keys,
                                              Ordinal* positions) const {
    const Offset base = c_rs(i);
    const std::int64_t len = c_rs(i + 1) - base;
    const std::int64_t P = spgemm_hash_slots(len);
    const std::int64_t mask = P - 1;
    const Ordinal empty = empty_key;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, P),
                         [&](std::int64_t h) { keys[h] = empty; });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, len), [&](std::int64_t j) {
      bool inserted = false;
      const std::int64_t h =
          spgemm_hash_insert<Concurrent>(keys, mask, c_ci(base + j), empty, inserted);
      positions[h] = static_cast<Ordinal>(j);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_rs(i), a_rs(i + 1)), [&](Offset ka) {
      const Ordinal k = a_ci(ka);
      const Offset b0 = b_rs(k);
      const std::int64_t p0 = starts(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b0, b_rs(k + 1)), [&](Offset kb) {
        const Ordinal c = b_ci(kb);
        const std::int64_t h = spgemm_hash_find(keys, mask, c);
        pos(p0 + (kb - b0)) = static_cast<Pos>(keys[h] == c ? positions[h] : 0);
      });
    });
    team.team_barrier(); // the next row clears the table
  }

  KOKKOS_INLINE_FUNCTION void find_row(member_type const& team, Ordinal i) const {
    const Offset base = c_rs(i);
    const std::int64_t len = c_rs(i + 1) - base;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_rs(i), a_rs(i + 1)), [&](Offset ka) {
      const Ordinal k = a_ci(ka);
      const Offset b0 = b_rs(k);
      const std::int64_t p0 = starts(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b0, b_rs(k + 1)), [&](Offset kb) {
        pos(p0 + (kb - b0)) = static_cast<Pos>(spgemm_place(c_ci, base, len, b_ci(kb)));
      });
    });
  }

  template <bool Atomic>
  KOKKOS_INLINE_FUNCTION void value_row(member_type const& team, Ordinal i, Scalar* scratch) const {
    const Offset base = c_rs(i);
    const std::int64_t len = c_rs(i + 1) - base;
    if (len == 0) return;
    Scalar* acc = len <= capacity ? scratch : c_v.data() + base;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, len),
                         [&](std::int64_t j) { acc[j] = Scalar(0); });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_rs(i), a_rs(i + 1)), [&](Offset ka) {
      const Ordinal k = a_ci(ka);
      const Offset b0 = b_rs(k);
      const std::int64_t p0 = starts(ka);
      const Scalar av = a_v(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, std::int64_t(0), starts(ka + 1) - p0),
                           [&](std::int64_t t) {
                             spgemm_add<Atomic>(acc + pos(p0 + t),
                                                av * b_v(b0 + static_cast<Offset>(t)));
                           });
    });
    team.team_barrier();
    if (acc == scratch) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, len),
                           [&](std::int64_t j) { c_v(base + j) = acc[j]; });
      team.team_barrier(); // the next row clears the scratch
    }
  }

  /// Short rows (GPUs): each thread's vector lanes accumulate whole rows of
  /// [begin, end) in their own `segment` values of the scratch, so that a row
  /// of a few products does not hold a whole team through its barriers. The
  /// lanes of one thread are ordered by the end of each vector loop (and an
  /// empty PerThread single, a barrier of the lanes, between the phases).
  template <bool Atomic>
  KOKKOS_INLINE_FUNCTION void value_rows_narrow(member_type const& team, std::int64_t begin,
                                                std::int64_t end, Scalar* scratch,
                                                std::int64_t segment) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](std::int64_t r) {
      const Ordinal i = perm(r);
      const Offset base = c_rs(i);
      const std::int64_t len = c_rs(i + 1) - base;
      Scalar* acc = scratch + (r - begin) * segment;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len),
                           [&](std::int64_t j) { acc[j] = Scalar(0); });
      Kokkos::single(Kokkos::PerThread(team), []() {});
      // Entry by entry, the lanes over each row of B (lanes sized to B's
      // rows): the symbolic passes' flattened products (SpgemmNarrowRows::
      // products) with a search per product were about 1.25x slower here
      // (docs/notes/2026-11-23-spgemm-gpu-row-kernels.md).
      // The next entry's operands are loaded before this entry's products
      // are added: each entry is a chain of dependent loads (its column, the
      // start of that row of B, then positions and values), which a row of a few
      // entries otherwise waits out once per entry.
      const Offset a1 = a_rs(i + 1);
      Offset ka = a_rs(i);
      Offset b0 = 0;
      std::int64_t p0 = 0, p1 = 0;
      Scalar av = Scalar(0);
      if (ka < a1) {
        b0 = b_rs(a_ci(ka));
        p0 = starts(ka);
        p1 = starts(ka + 1);
        av = a_v(ka);
      }
      for (; ka < a1; ++ka) {
        Offset next_b0 = 0;
        std::int64_t next_p1 = p1;
        Scalar next_av = Scalar(0);
        if (ka + 1 < a1) {
          next_b0 = b_rs(a_ci(ka + 1));
          next_p1 = starts(ka + 2);
          next_av = a_v(ka + 1);
        }
        Kokkos::parallel_for(
            Kokkos::ThreadVectorRange(team, std::int64_t(0), p1 - p0), [&](std::int64_t t) {
              spgemm_add<Atomic>(acc + pos(p0 + t), av * b_v(b0 + static_cast<Offset>(t)));
            });
        b0 = next_b0;
        p0 = p1;
        p1 = next_p1;
        av = next_av;
      }
      Kokkos::single(Kokkos::PerThread(team), []() {});
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len),
                           [&](std::int64_t j) { c_v(base + j) = acc[j]; });
    });
  }

  /// A pattern changed since the symbolic phase: the row's values are NaN.
  KOKKOS_INLINE_FUNCTION void poison_row(member_type const& team, Ordinal i) const {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, c_rs(i), c_rs(i + 1)),
                         [&](Offset j) { c_v(j) = not_found; });
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    std::int64_t rank = team.league_rank();
    if constexpr (!Find) {
      if (rank < team_count) {
        // Threads of the team share the row: atomics whatever the backend.
        scratch_view<Scalar> scratch(team.team_scratch(scratch_level),
                                     static_cast<std::size_t>(capacity));
        const Ordinal i = perm(team_first + rank);
        if (fingerprint(0) != expected_fingerprint) {
          poison_row(team, i);
        } else {
          value_row<true>(team, i, scratch.data());
        }
        return;
      }
      rank -= team_count;
    }
    // As in SpgemmRows: a league capped below the bin's rows walks every
    // league_size-th row (long rows cluster).
    const std::int64_t step = strided ? team.league_size() : 1;
    const std::int64_t begin = strided ? first + rank : first + rank * rows_per_team;
    const std::int64_t end =
        strided || begin + rows_per_team >= first + count ? first + count : begin + rows_per_team;
    if constexpr (Find) {
      scratch_view<Ordinal> keys(team.team_scratch(scratch_level),
                                 static_cast<std::size_t>(capacity));
      scratch_view<Ordinal> positions(team.team_scratch(scratch_level),
                                      static_cast<std::size_t>(capacity));
      for (std::int64_t r = begin; r < end; r += step) {
        const Ordinal i = perm(r);
        if (window_words > 0 &&
            spgemm_windowed(window(2 * static_cast<std::int64_t>(i) + 1), window_words)) {
          continue;
        }
        if (spgemm_hash_slots(c_rs(i + 1) - c_rs(i)) <= capacity) {
          find_row_hashed(team, i, keys.data(), positions.data());
        } else {
          find_row(team, i);
        }
      }
      return;
    }
    scratch_view<Scalar> scratch(team.team_scratch(scratch_level),
                                 static_cast<std::size_t>(capacity));
    if (fingerprint(0) != expected_fingerprint) {
      for (std::int64_t r = begin; r < end; r += step) poison_row(team, perm(r));
      return;
    }
    if (narrow_segment > 0) {
      value_rows_narrow<Concurrent>(team, begin, end, scratch.data(), narrow_segment);
      return;
    }
    for (std::int64_t r = begin; r < end; r += step) {
      value_row<Concurrent>(team, perm(r), scratch.data());
    }
  }
};

/// A 64-bit fingerprint of the patterns of A and B, F = K H(A) + H(B) modulo
/// 2^64, where H(X) sums a mix of (place, value) over X's row starts and then
/// its column indices (one index space). Summed, so any order of threads gives
/// the same result; each term a bijection of (place, value) for a given place,
/// so that one changed index always changes F and several cancel with
/// probability about 2^-64. Where B's arrays are A's (A A), F = (K + 1) H(A):
/// one pass over A instead of two. It is how a numeric phase that reads no
/// column index (SpgemmPositionRows, SpgemmPositionChunks) learns that a
/// pattern changed since the symbolic phase: one pass over nnz(A) + nnz(B)
/// indices instead of one per product.
///
/// The symbolic phase's call (value_count 2, rows_end > b_end) also counts the
/// rows of B whose columns are not strictly increasing: where there are none,
/// no row of B repeats a column, so the vector lanes over a row of B never add
/// to the same place of C (SpgemmPositionRows::value_rows_narrow adds without
/// atomics, which are compare-and-swap loops for FP64 in GPU shared memory).
template <class Ordinal, class Offset, class Device>
struct SpgemmFingerprint {
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using value_type = std::uint64_t[];
  using size_type = unsigned;
  size_type value_count = 1;
  ro_view<Offset> a_rs, b_rs;
  ro_view<Ordinal> a_ci, b_ci;
  /// The joint index space: A's row starts [0, a_rows), A's columns
  /// [a_rows, a_end), B's row starts and columns [a_end, b_end) (empty where
  /// B is A), B's rows to check [b_end, rows_end) (symbolic phase only).
  std::int64_t a_rows = 0, a_end = 0, b_rows = 0, b_end = 0, rows_end = 0;
  /// K, or K + 1 where B is A.
  std::uint64_t a_weight = 1;

  static constexpr std::uint64_t weight = 0x2545f4914f6cdd1dull;

  KOKKOS_INLINE_FUNCTION static std::uint64_t mix(std::int64_t place, std::uint64_t v) {
    std::uint64_t x = (static_cast<std::uint64_t>(place) * 0x9e3779b97f4a7c15ull) ^ v;
    x = (x ^ (x >> 32)) * 0xd6e8feb86659fd93ull;
    return x ^ (x >> 32);
  }

  /// The term of index t < b_end in F.
  KOKKOS_INLINE_FUNCTION std::uint64_t term(std::int64_t t) const {
    if (t < a_end) {
      const auto v =
          static_cast<std::uint64_t>(t < a_rows ? static_cast<std::int64_t>(a_rs(t))
                                                : static_cast<std::int64_t>(a_ci(t - a_rows)));
      return a_weight * mix(t, v);
    }
    const std::int64_t u = t - a_end;
    const auto v =
        static_cast<std::uint64_t>(u < b_rows ? static_cast<std::int64_t>(b_rs(u))
                                              : static_cast<std::int64_t>(b_ci(u - b_rows)));
    return mix(u, v);
  }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, std::uint64_t* sums) const {
    if (t < b_end) {
      sums[0] += term(t);
    } else if (t < rows_end) {
      const std::int64_t r = t - b_end;
      bool strict = true;
      for (Offset q = b_rs(r) + 1, e = b_rs(r + 1); q < e; ++q)
        strict = strict && b_ci(q - 1) < b_ci(q);
      sums[1] += strict ? 0 : 1;
    }
  }
};

/// The pattern fingerprint of a numeric phase (SpgemmFingerprint's sum,
/// without the symbolic phase's count of rows), a team per `items` indices,
/// each adding its sum to `out`, which starts at zero: one atomic per team
/// instead of Kokkos' reduction of an array, which left the multiprocessors
/// idle half of the time (docs/notes/2026-11-24-spgemm-numeric-by-entry.md).
template <class Ordinal, class Offset, class Device>
struct SpgemmFingerprintTeams {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  SpgemmFingerprint<Ordinal, Offset, Device> f;
  Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out;
  std::int64_t items = 1;

  /// F's terms of [t0, t1), summed by the team (every thread gets the sum).
  KOKKOS_INLINE_FUNCTION static std::uint64_t
  sum(member_type const& team, SpgemmFingerprint<Ordinal, Offset, Device> const& f, std::int64_t t0,
      std::int64_t t1) {
    std::uint64_t h = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, t0, t1),
        [&](std::int64_t t, std::uint64_t& partial) { partial += f.term(t); }, h);
    return h;
  }

  /// Team `rank`'s share of F (`items` indices) added to out(0), one atomic.
  template <class Out>
  KOKKOS_INLINE_FUNCTION static void add(member_type const& team,
                                         SpgemmFingerprint<Ordinal, Offset, Device> const& f,
                                         std::int64_t rank, std::int64_t items, Out const& out) {
    const std::int64_t t0 = rank * items;
    const std::int64_t t1 = t0 + items < f.b_end ? t0 + items : f.b_end;
    const std::uint64_t h = sum(team, f, t0, t1);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&out(0), h); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    add(team, f, team.league_rank(), items, out);
  }
};

/// An entry of a list of products (SpgemmListValues): the positions of a_ik in
/// A's arrays and of b_kj in B's, aligned as one load. 32-bit where A and B
/// have fewer than 2^32 entries each (8 bytes a product instead of 16: the
/// list kernel reads them once per product and ran about 1.5x faster;
/// docs/notes/2026-11-24-spgemm-product-lists.md), else 64-bit.
template <class Index>
struct alignas(2 * sizeof(Index)) SpgemmPair {
  Index a, b;
};

/// The symbolic phase's lists of products by entry of C, from the product
/// positions (SpgemmPositionRows<Find> and the other passes that store them):
/// the count pass (Write false) counts each entry's products into `ends`,
/// an exclusive scan (SpgemmListScan) turns the counts into where each list
/// starts, and the write pass (Write true) appends every product to its
/// entry's list, which leaves in `ends` where each list ends. A team takes
/// `entries_per_team` consecutive entries of A (a thread each, the row found
/// by a binary search of A's row starts), the lanes a row of B each, so that
/// a row of A of a hundred thousand entries spreads over many teams like any
/// other. The order of products within a list depends on the threads' order
/// (atomics): fixed for a handle, so its numeric phases give the same values
/// every time, but not from one symbolic phase to the next.
template <class Ordinal, class Offset, class Device, class Pos, class Index, bool Write>
struct SpgemmListBuild {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> a_rs, b_rs, c_rs;
  ro_view<Ordinal> a_ci;
  ro_view<std::int64_t> starts;
  ro_view<Pos> pos;
  Kokkos::View<std::int64_t*, Device> ends;
  Kokkos::View<SpgemmPair<Index>*, Device> pairs;
  std::int64_t m = 0, a_nnz = 0, entries_per_team = 1;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t e0 = team.league_rank() * entries_per_team;
    const std::int64_t e1 = e0 + entries_per_team < a_nnz ? e0 + entries_per_team : a_nnz;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, e0, e1), [&](std::int64_t ka) {
      const std::int64_t i = spgemm_last_at_most(a_rs, std::int64_t(0), m, ka);
      const auto base = static_cast<std::int64_t>(c_rs(i));
      const std::int64_t p0 = starts(ka);
      const Offset b0 = b_rs(a_ci(ka));
      Kokkos::parallel_for(
          Kokkos::ThreadVectorRange(team, starts(ka + 1) - p0), [&](std::int64_t t) {
            const std::int64_t p = base + static_cast<std::int64_t>(pos(p0 + t));
            if constexpr (Write) {
              const std::int64_t q = Kokkos::atomic_fetch_add(&ends(p), std::int64_t(1));
              pairs(q) = SpgemmPair<Index>{static_cast<Index>(ka), static_cast<Index>(b0 + t)};
            } else {
              Kokkos::atomic_add(&ends(p), std::int64_t(1));
            }
          });
    });
  }
};

/// Counts to starts in place (SpgemmListBuild), a row of C per thread (its
/// lanes scan the row): row i's lists start where its products start (the
/// first product of its first entry of A), so rows need no global scan
/// (Kokkos' scan over C's entries took two launches of its own;
/// docs/notes/2026-11-24-spgemm-product-lists.md). Entries whose lists are longer
/// than `long_list` are appended to `long_entries` (their number in
/// long_count(0)): SpgemmListValues gives each of them a thread's vector
/// lanes instead of one lane. At most multiply-adds / (long_list + 1) of
/// them exist, which is how many `long_entries` holds.
template <class Ordinal, class Offset, class Device>
struct SpgemmListScan {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  ro_view<Offset> a_rs, c_rs;
  ro_view<std::int64_t> starts;
  Kokkos::View<std::int64_t*, Device> ends;
  Kokkos::View<std::int64_t*, Device> long_entries, long_count;
  std::int64_t m = 0, rows_per_team = 1, long_list = 0;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t r0 = team.league_rank() * rows_per_team;
    const std::int64_t r1 = r0 + rows_per_team < m ? r0 + rows_per_team : m;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, r0, r1), [&](std::int64_t i) {
      const auto base = static_cast<std::int64_t>(c_rs(i));
      const std::int64_t first = starts(a_rs(i));
      Kokkos::parallel_scan(
          Kokkos::ThreadVectorRange(team, c_rs(i + 1) - base),
          [&](std::int64_t j, std::int64_t& update, bool final) {
            const std::int64_t count = ends(base + j);
            if (final) {
              ends(base + j) = first + update;
              if (count > long_list) {
                long_entries(Kokkos::atomic_fetch_add(&long_count(0), std::int64_t(1))) = base + j;
              }
            }
            update += count;
          });
    });
  }
};

/// The numeric phase from lists of products (spgemm_list_parameters), one
/// launch: the first `fingerprint_teams` teams hash `fingerprint_items`
/// indices of A's and B's patterns each (SpgemmFingerprint) into sync(0),
/// one atomic a team; the next `list_teams` sum the lists of
/// `entries_per_team` consecutive entries of C each, c_p = sum over its list
/// of a_v(a) b_v(b), in a register and in list order, except the entries
/// listed in `long_entries`, which the last teams take a thread (its vector
/// lanes) each. No list reads a pattern, so a changed pattern cannot send a
/// read out of bounds (the sizes are checked on the host); SpgemmPatternCheck,
/// launched next, compares the fingerprint.
///
/// Why this shape: hashing teams first, so that they overlap the lists
/// instead of trailing them; a last team that counted every team done and
/// compared in the same launch cost more than a launch of its own (one
/// counter that thousands of teams increment); and a lane per entry leaves
/// one lane walking a list of hundreds of products while its warp waits
/// (bcsstk08: over 3x faster with its long lists split over a warp's lanes;
/// docs/notes/2026-11-24-spgemm-product-lists.md).
template <class Scalar, class Ordinal, class Offset, class Device, class Index>
struct SpgemmListValues {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Scalar> a_v, b_v;
  ro_view<std::int64_t> ends;
  ro_view<SpgemmPair<Index>> pairs;
  ro_view<std::int64_t> long_entries;
  Kokkos::View<Scalar*, Device> c_v;
  std::int64_t nnz = 0, entries_per_team = 1, list_teams = 0, long_count = 0, long_list = 0;
  SpgemmFingerprint<Ordinal, Offset, Device> fingerprint;
  std::int64_t fingerprint_items = 1, fingerprint_teams = 0;
  /// The fingerprint's sum (zero before each launch; SpgemmPatternCheck clears it).
  Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sync;

  KOKKOS_INLINE_FUNCTION std::int64_t list_start(std::int64_t p) const {
    return p > 0 ? ends(p - 1) : 0;
  }

  /// A lane per entry of C, consecutive entries on consecutive lanes (ends
  /// and values read and written coalesced). Latency-bound: a list is a chain
  /// of dependent loads (its start and end, each pair, then the two values).
  /// Four consecutive entries a thread, or a team's products staged in scratch
  /// and then summed per entry, measured slower
  /// (docs/notes/2026-11-24-spgemm-product-lists.md).
  KOKKOS_INLINE_FUNCTION void sum_lists(member_type const& team, std::int64_t rank) const {
    const std::int64_t p0 = rank * entries_per_team;
    const std::int64_t p1 = p0 + entries_per_team < nnz ? p0 + entries_per_team : nnz;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, p0, p1), [&](std::int64_t p) {
      const std::int64_t e = ends(p);
      const std::int64_t q0 = list_start(p);
      if (e - q0 > long_list) return;
      Scalar c = Scalar(0);
      for (std::int64_t q = q0; q < e; ++q) {
        const SpgemmPair<Index> r = pairs(q);
        c += a_v(r.a) * b_v(r.b);
      }
      c_v(p) = c;
    });
  }

  /// The long lists: a thread's vector lanes per list.
  KOKKOS_INLINE_FUNCTION void sum_long_lists(member_type const& team, std::int64_t rank) const {
    const std::int64_t l0 = rank * team.team_size();
    const std::int64_t l1 = l0 + team.team_size() < long_count ? l0 + team.team_size() : long_count;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, l0, l1), [&](std::int64_t l) {
      const std::int64_t p = long_entries(l);
      Scalar c = Scalar(0);
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, list_start(p), ends(p)),
          [&](std::int64_t q, Scalar& partial) {
            const SpgemmPair<Index> r = pairs(q);
            partial += a_v(r.a) * b_v(r.b);
          },
          c);
      Kokkos::single(Kokkos::PerThread(team), [&]() { c_v(p) = c; });
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    std::int64_t rank = team.league_rank();
    if (rank < fingerprint_teams) {
      SpgemmFingerprintTeams<Ordinal, Offset, Device>::add(team, fingerprint, rank,
                                                           fingerprint_items, sync);
      return;
    }
    rank -= fingerprint_teams;
    if (rank < list_teams) {
      sum_lists(team, rank);
    } else {
      sum_long_lists(team, rank - list_teams);
    }
  }
};

/// After SpgemmListValues or SpgemmPositionEntries (one team): compares the
/// fingerprint the launch summed into sync(0) with the symbolic phase's,
/// clears it for the next numeric phase, and makes every value of C NaN
/// (`not_found`) if a pattern changed. One team, so that the read comes before the clear without a
/// counter across teams; poisoning C is then slow, but only a changed
/// pattern takes that path.
template <class Scalar, class Device>
struct SpgemmPatternCheck {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sync;
  Kokkos::View<Scalar*, Device> c_v;
  std::uint64_t expected_fingerprint = 0;
  Scalar not_found = Scalar(0);

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::uint64_t now = sync(0);
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() { sync(0) = 0; });
    if (now == expected_fingerprint) return;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, c_v.extent(0)),
                         [&](std::size_t p) { c_v(p) = not_found; });
  }
};

/// Where each entry a_ik of A adds into C: c_start(ka) = C's row start of
/// the row of ka (SpgemmPositionEntries), a thread per row of A.
template <class Offset, class Device>
struct SpgemmEntryStarts {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> a_rs, c_rs;
  Kokkos::View<Offset*, Device> c_start;
  std::int64_t m = 0, rows_per_team = 1;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t r0 = team.league_rank() * rows_per_team;
    const std::int64_t r1 = r0 + rows_per_team < m ? r0 + rows_per_team : m;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, r0, r1), [&](std::int64_t i) {
      const Offset c = c_rs(i);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, a_rs(i), a_rs(i + 1)),
                           [&](Offset ka) { c_start(ka) = c; });
    });
  }
};

/// The numeric phase from stored positions by entry of A (GPUs, where no row of
/// B is long: spgemm_entry_parameters): C's values are cleared, then a
/// thread's vector lanes take an entry a_ik and add a_ik b_kj for the row k
/// of B straight into C at c_start(ka) + place, with a global atomic add
/// (a reduction the L2 cache performs; its result is not read). No scratch,
/// no barrier, no row of A held by one team: a row of a few products costs
/// what its products cost (the scratch kernels zero, add and copy out a row
/// per thread or team). The first `fingerprint_teams` teams hash the
/// patterns into fingerprint(0) (SpgemmFingerprint), which SpgemmPatternCheck
/// compares afterwards. A changed pattern cannot send a read or a write out
/// of bounds here: each place is below its row's length (C is the handle's),
/// and an entry whose column is no row of B, or whose row of B would end
/// past B's entries, adds nothing.
///
/// Measured before it was written, against cuSPARSE's numeric phase: within
/// about 6% where rows of B are short, 1.33x slower on email-Enron's long ones
/// (docs/notes/2026-11-24-spgemm-numeric-by-entry.md).
template <class Scalar, class Ordinal, class Offset, class Device, class Pos>
struct SpgemmPositionEntries {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> b_rs, c_start;
  ro_view<Ordinal> a_ci;
  ro_view<Scalar> a_v, b_v;
  ro_view<std::int64_t> starts;
  ro_view<Pos> pos;
  Kokkos::View<Scalar*, Device> c_v;
  std::int64_t a_nnz = 0, b_rows = 0, b_nnz = 0, entries_per_team = 1;
  SpgemmFingerprint<Ordinal, Offset, Device> fingerprint;
  std::int64_t fingerprint_items = 1, fingerprint_teams = 0;
  Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sync;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    std::int64_t rank = team.league_rank();
    if (rank < fingerprint_teams) {
      SpgemmFingerprintTeams<Ordinal, Offset, Device>::add(team, fingerprint, rank,
                                                           fingerprint_items, sync);
      return;
    }
    rank -= fingerprint_teams;
    const std::int64_t e0 = rank * entries_per_team;
    const std::int64_t e1 = e0 + entries_per_team < a_nnz ? e0 + entries_per_team : a_nnz;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, e0, e1), [&](std::int64_t ka) {
      const auto k = static_cast<std::int64_t>(a_ci(ka));
      if (k < 0 || k >= b_rows) return;
      const std::int64_t p0 = starts(ka);
      const std::int64_t len = starts(ka + 1) - p0;
      const auto b0 = static_cast<std::int64_t>(b_rs(k));
      if (b0 < 0 || b0 + len > b_nnz) return;
      const auto base = static_cast<std::int64_t>(c_start(ka));
      const Scalar av = a_v(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len), [&](std::int64_t t) {
        Kokkos::atomic_add(&c_v(base + static_cast<std::int64_t>(pos(p0 + t))), av * b_v(b0 + t));
      });
    });
  }
};

/// Per row of a bin that SpgemmPositionChunks accumulates: its number of
/// chunks of at most `chunk` products, scanned into chunk_first (count + 1
/// entries; the last receives the bin's number of chunks).
template <class Ordinal, class Offset, class Device>
struct SpgemmChunkScan {
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> a_rs;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> perm;
  Kokkos::View<const std::int64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> starts;
  Kokkos::View<std::int64_t*, Device> chunk_first;
  std::int64_t first = 0, count = 0, chunk = 1;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& update, bool final) const {
    std::int64_t n = 0;
    if (r < count) {
      const Ordinal i = perm(first + r);
      const std::int64_t products = starts(a_rs(i + 1)) - starts(a_rs(i));
      n = (products + chunk - 1) / chunk;
    }
    if (final) chunk_first(r) = update;
    update += n;
  }
};

/// The position kernel for long rows on GPUs: a row that team scratch does
/// not hold is split into chunks of `chunk` consecutive products (in the
/// order of SpgemmProductStarts), one team per chunk, so that a hub row of a
/// power-law graph (millions of products) is spread over the whole device
/// instead of one multiprocessor. The team's threads and lanes take
/// consecutive products (coalesced reads of the positions and of B's values),
/// each finding its entry a_ik by binary search among the chunk's entries.
///
/// Find (symbolic): the position of each product by binary search of its row of
/// C. Values: each product is added at its place in C with a global atomic;
/// SpgemmChunkClear zeroes the rows first. The fingerprint check is that of
/// SpgemmPositionRows (a changed pattern: the clear writes NaN, this kernel
/// adds nothing).
template <class Scalar, class Ordinal, class Offset, class Device, class Pos, bool Find>
struct SpgemmPositionChunks {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> a_rs, b_rs, c_rs;
  ro_view<Ordinal> a_ci, b_ci, c_ci;
  ro_view<Scalar> a_v, b_v;
  ro_view<Ordinal> perm;
  ro_view<std::int64_t> starts, chunk_first;
  std::int64_t first = 0, count = 0, chunk = 1;
  Kokkos::View<Pos*, Device> pos;
  Kokkos::View<Scalar*, Device> c_v;
  Kokkos::View<const std::uint64_t*, Device> fingerprint;
  std::uint64_t expected_fingerprint = 0;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    if constexpr (!Find) {
      if (fingerprint(0) != expected_fingerprint) return;
    }
    const std::int64_t q = team.league_rank();
    const std::int64_t r = spgemm_last_at_most(chunk_first, std::int64_t(0), count, q);
    const Ordinal i = perm(first + r);
    const Offset e0 = a_rs(i), e1 = a_rs(i + 1);
    const std::int64_t q0 = starts(e0) + (q - chunk_first(r)) * chunk;
    const std::int64_t row_end = starts(e1);
    const std::int64_t q1 = q0 + chunk < row_end ? q0 + chunk : row_end;
    // The chunk's entries: from the one holding product q0 to the one holding q1 - 1.
    const Offset k0 = spgemm_last_at_most(starts, e0, e1, q0);
    const Offset k1 = spgemm_last_at_most(starts, k0, e1, q1 - 1) + 1;
    const Offset base = c_rs(i);
    const std::int64_t len = c_rs(i + 1) - base;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, q0, q1), [&](std::int64_t p) {
      const Offset ka = spgemm_last_at_most(starts, k0, k1, p);
      const Offset kb = b_rs(a_ci(ka)) + static_cast<Offset>(p - starts(ka));
      if constexpr (Find) {
        pos(p) = static_cast<Pos>(spgemm_place(c_ci, base, len, b_ci(kb)));
      } else {
        Kokkos::atomic_add(&c_v(base + static_cast<Offset>(pos(p))), a_v(ka) * b_v(kb));
      }
    });
  }
};

/// Zeroes the rows of a bin before SpgemmPositionChunks adds to them (NaN
/// when the patterns' fingerprint changed since the symbolic phase).
template <class Scalar, class Ordinal, class Offset, class Device>
struct SpgemmChunkClear {
  using member_type = typename Kokkos::TeamPolicy<typename Device::execution_space>::member_type;
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> c_rs;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> perm;
  std::int64_t first = 0;
  Kokkos::View<Scalar*, Device> c_v;
  Kokkos::View<const std::uint64_t*, Device> fingerprint;
  std::uint64_t expected_fingerprint = 0;
  Scalar not_found = Scalar(0);
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const Ordinal i = perm(first + team.league_rank());
    const Scalar v = fingerprint(0) == expected_fingerprint ? Scalar(0) : not_found;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, c_rs(i), c_rs(i + 1)),
                         [&](Offset j) { c_v(j) = v; });
  }
};

/// The host symbolic phase with a dense workspace per thread
/// (SpgemmAccumulator::workspace, chosen by spgemm_use_workspace()): every
/// row of A, empty ones included, in blocks of rows_per_team rows per team of
/// one thread. The thread's marks (num_cols entries, found through a
/// UniqueToken) hold the last row that touched each column, so a column is
/// new to row i when its mark is not i: no table to clear per row, no probing.
/// The loops over products are branch-free (a store and an add per product):
/// on graphs whether a column is new is a coin toss that a branch mispredicts.
///
/// count (Fill false): the number of new columns of row i goes to c_rs(i).
/// Fill: a first walk marks the row's columns and finds its first and last
/// column. Sorted rows whose span is at most scan_ratio times their length
/// (FEM rows: about 9) are then read off the marks in order, without a
/// gather; other rows gather their columns in product order into the
/// thread's buffer (num_cols + 1 entries: a column seen again is stored one
/// past the gathered ones and not counted) in a second walk, and are sorted
/// by rank (each column's position is the number of smaller ones: branch-free,
/// for rows of at most rank_sort_max columns, where std::sort's
/// mispredicted comparisons cost more) or by std::sort. With `find` the
/// buffer then maps each column to its place in the row, and every product
/// a_ik b_kj gets the position of j (pos at starts(ka) + (kb - b_rs(k)), as
/// SpgemmPositionRows reads them), so the positions cost no pass of their own.
/// The count pass needs every mark to hold `none` (no row) at launch; the
/// fill pass needs no more than the count pass's marks (one of them equal to
/// i is a column of row i) or none.
///
/// Host execution spaces only (a plain host operator: std::sort).
template <class Ordinal, class Offset, class Device, class Pos, bool Fill>
struct SpgemmWorkspaceRows {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> a_rs, b_rs;
  ro_view<Ordinal> a_ci, b_ci;
  std::int64_t num_rows = 0, rows_per_team = 1, num_cols = 0;
  Kokkos::View<Offset*, Device> c_rs;
  Kokkos::View<Ordinal*, Device> c_ci;
  /// token.size() x num_cols marks; Fill: token.size() x (num_cols + 1) buffer entries.
  Kokkos::View<Ordinal*, Device> marks, buffer;
  Kokkos::Experimental::UniqueToken<execution_space> token;
  bool sort = true, find = false;
  std::int64_t scan_ratio = 0, rank_sort_max = 0;
  Ordinal none = 0;
  ro_view<std::int64_t> starts;
  Kokkos::View<Pos*, Device> pos;

  /// Calls f(c) for the column c of every product of row r (raw pointers:
  /// the stores to the marks must not make the compiler reload B's bounds).
  template <class F>
  void products(std::int64_t r, F const& f) const {
    const Offset* const brs = b_rs.data();
    const Ordinal* const bci = b_ci.data();
    const Ordinal* const aci = a_ci.data();
    for (Offset ka = a_rs(r), a1 = a_rs(r + 1); ka < a1; ++ka) {
      const Ordinal k = aci[ka];
      for (Offset kb = brs[k], b1 = brs[k + 1]; kb < b1; ++kb) f(bci[kb]);
    }
  }

  void fill_row(std::int64_t r, Ordinal* mark, Ordinal* buf) const {
    const auto i = static_cast<Ordinal>(r);
    const Offset base = c_rs(r);
    const std::int64_t len = c_rs(r + 1) - base;
    if (len == 0) return;
    Ordinal* const out = c_ci.data() + base;
    Ordinal lo = std::numeric_limits<Ordinal>::max(), hi = 0;
    products(r, [&](Ordinal c) {
      mark[c] = i;
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    });
    if (sort && static_cast<std::int64_t>(hi) - lo < scan_ratio * len) {
      // hi is marked and comes last, so n < len at every store.
      std::int64_t n = 0;
      for (Ordinal c = lo; c <= hi; ++c) {
        out[n] = c;
        n += mark[c] == i ? 1 : 0;
      }
    } else {
      // The count pass saw the same operands: exactly len columns are marked.
      std::int64_t n = 0;
      products(r, [&](Ordinal c) {
        buf[n] = c;
        n += mark[c] == i ? 1 : 0;
        mark[c] = none;
      });
      if (sort && len <= rank_sort_max) {
        for (std::int64_t j = 0; j < len; ++j) {
          const Ordinal x = buf[j];
          int rank = 0;
          for (std::int64_t l = 0; l < len; ++l) rank += buf[l] < x ? 1 : 0;
          out[rank] = x;
        }
      } else {
        std::copy(buf, buf + len, out);
        if (sort) std::sort(out, out + len);
      }
    }
    if (!find) return;
    for (std::int64_t j = 0; j < len; ++j) buf[out[j]] = static_cast<Ordinal>(j);
    const Offset* const brs = b_rs.data();
    const Ordinal* const bci = b_ci.data();
    for (Offset ka = a_rs(r), a1 = a_rs(r + 1); ka < a1; ++ka) {
      const Ordinal k = a_ci(ka);
      const Offset b0 = brs[k], b1 = brs[k + 1];
      Pos* const p = pos.data() + starts(ka);
      for (Offset kb = b0; kb < b1; ++kb) p[kb - b0] = static_cast<Pos>(buf[bci[kb]]);
    }
  }

  void operator()(member_type const& team) const {
    const std::int64_t begin = team.league_rank() * rows_per_team;
    const std::int64_t end = begin + rows_per_team < num_rows ? begin + rows_per_team : num_rows;
    const int t = token.acquire();
    Ordinal* const mark = marks.data() + static_cast<std::int64_t>(t) * num_cols;
    if constexpr (Fill) {
      Ordinal* const buf = buffer.data() + static_cast<std::int64_t>(t) * (num_cols + 1);
      for (std::int64_t r = begin; r < end; ++r) fill_row(r, mark, buf);
    } else {
      for (std::int64_t r = begin; r < end; ++r) {
        const auto i = static_cast<Ordinal>(r);
        Offset len = 0;
        products(r, [&](Ordinal c) {
          len += mark[c] != i ? 1 : 0;
          mark[c] = i;
        });
        c_rs(r) = len;
      }
    }
    token.release(t);
  }
};

} // namespace spmvkit::detail

#endif
