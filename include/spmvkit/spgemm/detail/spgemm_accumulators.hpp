// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_ACCUMULATORS_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_ACCUMULATORS_HPP

/// \file
/// The accumulators' building blocks shared by SpGEMM's row kernels: the
/// scratch hash table, marks and atomic adds, bitmap words, team and thread
/// sorts, and the search of a column in a sorted row of C.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/spgemm/detail/spgemm_tuning.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

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

/// Inserts column c into a linear-probing table of mask + 1 slots whose free
/// slots hold `empty`; returns its slot and whether this call inserted it, or
/// -1 when the table is full without c. Only a numeric phase's table, sized
/// by the symbolic phase's row of C, can fill up: a pattern changed since.
/// Concurrent: other threads insert into the same table (compare-exchange;
/// a slot changes once, from empty to its column, so a stale read only costs
/// a failed exchange).
template <bool Concurrent, class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t
spgemm_hash_insert(Ordinal* keys, std::int64_t mask, Ordinal c, Ordinal empty, bool& inserted) {
  std::int64_t h = static_cast<std::int64_t>((static_cast<std::uint32_t>(c) * 2654435761u)) & mask;
  inserted = false;
  for (std::int64_t t = 0; t <= mask; ++t) {
    if constexpr (Concurrent) {
      const Ordinal k = static_cast<Ordinal volatile*>(keys)[h];
      if (k == c) return h;
      if (k == empty) {
        const Ordinal old = Kokkos::atomic_compare_exchange(keys + h, empty, c);
        if (old == empty) {
          inserted = true;
          return h;
        }
        if (old == c) return h;
      }
    } else {
      const Ordinal k = keys[h];
      if (k == c) return h;
      if (k == empty) {
        keys[h] = c;
        inserted = true;
        return h;
      }
    }
    h = (h + 1) & mask;
  }
  return -1;
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

} // namespace spmvkit::detail

#endif
