// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_ROW_KERNELS_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_ROW_KERNELS_HPP

/// \file
/// The row kernels: SpgemmRows (a team per row: hash, window, dense tile or
/// global pool) and SpgemmNarrowRows (a row per thread), for the count, fill and
/// hashing numeric passes, with their launchers.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/spgemm/detail/spgemm_launch_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

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
        if constexpr (with_values) {
          // A full table (h < 0) means a changed pattern: the product is
          // dropped, and the fingerprint check after the launch makes C NaN.
          if (h >= 0) spgemm_add<Concurrent>(vals + h, av * b_v(kb));
        }
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

/// A's and B's patterns and the bin's rows of a kernel (SpgemmNarrowRows; with
/// the values, spgemm_bind_operands: SpgemmRows, SpgemmPositionRows,
/// SpgemmPositionChunks).
template <class F, class Crs, class Perm>
void spgemm_bind_pattern(F& f, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
                         Perm const& perm) {
  f.a_rs = A.row_starts();
  f.a_ci = A.column_indices();
  f.b_rs = B.row_starts();
  f.b_ci = B.column_indices();
  f.perm = perm;
  f.first = l.first;
  f.count = l.count;
}

/// spgemm_bind_pattern, and A's and B's values.
template <class F, class Crs, class Perm>
void spgemm_bind_operands(F& f, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
                          Perm const& perm) {
  spgemm_bind_pattern(f, A, B, l, perm);
  f.a_v = A.values();
  f.b_v = B.values();
}

/// Teams of a launch whose teams walk work_per_team rows each.
inline int spgemm_league(SpgemmBinLaunch const& l) {
  return static_cast<int>((l.count + l.p.work_per_team - 1) / l.p.work_per_team);
}

/// spgemm_bind_operands, and the rows a team walks (the row kernels).
template <class F, class Crs, class Perm>
void spgemm_bind_rows(F& f, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
                      Perm const& perm) {
  spgemm_bind_operands(f, A, B, l, perm);
  f.rows_per_team = l.p.work_per_team;
}

/// The symbolic passes' bitmap windows for one launch (SpgemmRows::window_row):
/// the rows' windows, the most words of one here, and for the fill pass the
/// product starts and positions it finds.
template <class Ordinal, class Device>
struct SpgemmWindowArgs {
  Kokkos::View<Ordinal*, Device> window;
  std::int64_t words = 0;
  Kokkos::View<std::int64_t*, Device> starts;
  Kokkos::View<std::uint16_t*, Device> pos16;
  Kokkos::View<std::uint32_t*, Device> pos32;
};

template <int Pass, bool Concurrent, class Crs, class Perm, class Bound, class Keys, class Vals>
void spgemm_launch_concurrency(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
    Perm const& perm, Bound const& bound, typename Crs::row_starts_type const& c_rs,
    typename Crs::column_indices_type const& c_ci, typename Crs::values_type const& c_v,
    Keys const& pool_keys, Vals const& pool_vals, bool sort,
    SpgemmWindowArgs<typename Crs::ordinal_type, typename Crs::device_type> const& win) {
  using ExecutionSpace = typename Crs::execution_space;
  using Ordinal = typename Crs::ordinal_type;
  using F = SpgemmRows<typename Crs::value_type, Ordinal, typename Crs::offset_type,
                       typename Crs::device_type, Pass, Concurrent>;
  F f;
  spgemm_bind_rows(f, A, B, l, perm);
  f.bound = bound;
  f.c_rs = c_rs;
  f.c_ci = c_ci;
  f.c_v = c_v;
  f.accumulator = l.accumulator;
  f.capacity = l.capacity;
  f.global_dense = l.global_dense;
  f.num_cols = B.num_cols();
  f.pool_keys = pool_keys;
  f.pool_vals = pool_vals;
  f.sort = sort;
  f.empty_key = std::numeric_limits<Ordinal>::max();
  f.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
  if (Concurrent && Pass != spgemm_values && l.accumulator == SpgemmAccumulator::hash) {
    f.window = win.window;
    f.window_words = win.words;
    f.starts = win.starts;
    f.pos16 = win.pos16;
    f.pos32 = win.pos32;
  }
  static constexpr char const* names[3][3] = {
      {"SpMVKit::spgemm::count_hash", "SpMVKit::spgemm::count_dense",
       "SpMVKit::spgemm::count_global"},
      {"SpMVKit::spgemm::fill_hash", "SpMVKit::spgemm::fill_dense", "SpMVKit::spgemm::fill_global"},
      {"SpMVKit::spgemm::numeric_hash", "SpMVKit::spgemm::numeric_dense",
       "SpMVKit::spgemm::numeric_global"}};
  // The league from the rows: a hash launch may carry the narrow and short
  // bins' rows too (spgemm_bin_range), or was shaped for them (spgemm_plan_launches).
  auto policy =
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
          exec, spgemm_league(l), l.p.team_size, l.p.vector_length));
  f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
  policy.set_scratch_size(
      f.scratch_level,
      Kokkos::PerTeam(F::scratch_bytes(l.accumulator, l.capacity, l.p.team_size, f.window_words)));
  Kokkos::parallel_for(names[Pass][static_cast<int>(l.accumulator)], policy, f);
}

/// One bin's launch: atomics only where a team has more than one thread or lane.
template <int Pass, class Crs, class Perm, class Bound, class Keys, class Vals>
void spgemm_launch(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
    Perm const& perm, Bound const& bound, typename Crs::row_starts_type const& c_rs,
    typename Crs::column_indices_type const& c_ci, typename Crs::values_type const& c_v,
    Keys const& pool_keys, Vals const& pool_vals, bool sort,
    SpgemmWindowArgs<typename Crs::ordinal_type, typename Crs::device_type> const& win = {}) {
  if (l.count == 0) return;
  if (l.concurrent) {
    spgemm_launch_concurrency<Pass, true>(exec, A, B, l, perm, bound, c_rs, c_ci, c_v, pool_keys,
                                          pool_vals, sort, win);
  } else {
    spgemm_launch_concurrency<Pass, false>(exec, A, B, l, perm, bound, c_rs, c_ci, c_v, pool_keys,
                                           pool_vals, sort, win);
  }
}

/// The rows of launch l that are windowed (spgemm_windowed) under `cap`
/// words: the most words of one (what the launch's scratch must hold; 0:
/// none) and, where `rows` is asked for, their number.
template <class ExecutionSpace, class Window, class Perm>
std::int64_t spgemm_launch_window(ExecutionSpace const& exec, SpgemmBinLaunch const& l,
                                  Window const& window, Perm const& perm, std::int64_t cap,
                                  std::int64_t* rows = nullptr) {
  if (rows != nullptr) *rows = 0;
  if (window.extent(0) == 0 || l.count == 0 || !l.concurrent || cap <= 0) return 0;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  SpgemmMaxWindow<typename Perm::value_type, typename Perm::device_type> f{perm, window, l.first,
                                                                           cap, false};
  std::int64_t m = 0;
  Kokkos::parallel_reduce("SpMVKit::spgemm::window_words", Range(exec, 0, l.count), f,
                          Kokkos::Max<std::int64_t>(m));
  if (rows != nullptr && m > 0) {
    f.count_rows = true;
    Kokkos::parallel_reduce("SpMVKit::spgemm::windowed_rows", Range(exec, 0, l.count), f, *rows);
  }
  return std::max<std::int64_t>(m, 0);
}

/// The narrow bin's symbolic passes (SpgemmNarrowRows): count (rows by their
/// bound) or fill, which also finds the product positions where `pos` is allocated.
template <bool Fill, class Crs, class Perm, class Pos>
void spgemm_launch_narrow(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
    Perm const& perm,
    Kokkos::View<typename Crs::ordinal_type*, typename Crs::device_type> const& bound,
    typename Crs::row_starts_type const& c_rs, typename Crs::column_indices_type const& c_ci,
    Kokkos::View<std::int64_t*, typename Crs::device_type> const& starts,
    Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  using Ordinal = typename Crs::ordinal_type;
  using F = SpgemmNarrowRows<Ordinal, typename Crs::offset_type, typename Crs::device_type, Pos,
                             Fill, true>;
  if (l.count == 0) return;
  F f;
  spgemm_bind_pattern(f, A, B, l, perm);
  f.bound = bound;
  f.starts = starts;
  f.c_rs = c_rs;
  f.c_ci = c_ci;
  f.pos = pos;
  f.slots = l.capacity;
  f.empty_key = std::numeric_limits<Ordinal>::max();
  f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
  auto policy = argument_launch(
      Kokkos::TeamPolicy<ExecutionSpace>(exec, spgemm_league(l), l.p.team_size, l.p.vector_length));
  policy.set_scratch_size(f.scratch_level,
                          Kokkos::PerTeam(F::scratch_bytes(l.p.team_size, l.capacity)));
  Kokkos::parallel_for(Fill ? "SpMVKit::spgemm::fill_narrow" : "SpMVKit::spgemm::count_narrow",
                       policy, f);
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
std::uint64_t spgemm_scratch_of(SpgemmBinLaunch const (&launch)[spgemm_num_bins], bool values) {
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  std::uint64_t m = 0;
  for (int b = 1; b < spgemm_num_bins; ++b) {
    auto const& l = launch[b];
    if (l.count == 0) continue;
    if (b == spgemm_bin_short) continue; // a hash-bin team, or a narrow launch
    if (b == spgemm_bin_narrow) {
      // Values: the numeric plan's rows are filled (two indices a slot), then
      // a row per thread accumulates in a share of the hash bin's scratch
      // (SpgemmPositionRows::value_rows_narrow).
      const std::uint64_t team = static_cast<std::uint64_t>(launch[spgemm_bin_short].p.team_size);
      const std::int64_t segment = std::max(launch[spgemm_bin_short].capacity, l.capacity / 2);
      m = std::max<std::uint64_t>(
          {m,
           values ? SpgemmNarrowRows<Ordinal, Offset, Device, std::uint16_t, true,
                                     true>::scratch_bytes(l.p.team_size, l.capacity)
                  : SpgemmNarrowRows<Ordinal, Offset, Device, std::uint16_t, false,
                                     true>::scratch_bytes(l.p.team_size, l.capacity),
           values ? team * static_cast<std::uint64_t>(segment) * sizeof(Scalar) : 0});
      continue;
    }
    const std::uint64_t s =
        values ? SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_values, true>::scratch_bytes(
                     l.accumulator, l.capacity, l.p.team_size)
               : SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_count, true>::scratch_bytes(
                     l.accumulator, l.capacity, l.p.team_size);
    m = std::max(m, s);
  }
  return m;
}

} // namespace spmvkit::detail

#endif
