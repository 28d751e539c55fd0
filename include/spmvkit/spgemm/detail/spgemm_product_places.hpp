// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_PRODUCT_PLACES_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_PRODUCT_PLACES_HPP

/// \file
/// The place in C of every product, found once by the symbolic phase
/// (positions, by row or in chunks of a long row), and the numeric phase that adds
/// each product at its place.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/spgemm/detail/spgemm_product_entries.hpp>
#include <spmvkit/spgemm/detail/spgemm_product_lists.hpp>
#include <spmvkit/spgemm/detail/spgemm_row_kernels.hpp>
#include <spmvkit/spgemm/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace spmvkit::detail {

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

/// Slots of a team's scratch in the position kernel, in the scratch-hash bin
/// (its table's slots: a table of columns and positions while the positions are
/// found, a dense array of the row's values in numeric phases); rows of the
/// other bins binary-search their row of C and accumulate in C itself.
inline std::int64_t spgemm_position_capacity(SpgemmBinLaunch const& l) {
  return l.accumulator == SpgemmAccumulator::hash ? l.capacity : 0;
}

/// One bin's launch of the position kernel (Find: the symbolic pass that
/// stores the positions; else the numeric phase).
template <bool Find, bool Concurrent, class Crs, class State, class Pos>
void spgemm_launch_positions_concurrency(typename Crs::execution_space const& exec, Crs const& A,
                                         Crs const& B, State const& s, SpgemmBinLaunch const& l,
                                         std::int64_t capacity,
                                         Kokkos::View<Pos*, typename Crs::device_type> const& pos,
                                         bool narrow, SpgemmBinLaunch const* beside) {
  using ExecutionSpace = typename Crs::execution_space;
  using F = SpgemmPositionRows<typename Crs::value_type, typename Crs::ordinal_type,
                               typename Crs::offset_type, typename Crs::device_type, Pos, Find,
                               Concurrent>;
  F f;
  spgemm_bind_rows(f, A, B, l, s.perm);
  f.c_rs = s.C.row_starts();
  f.c_ci = s.C.column_indices();
  f.c_v = s.C.values();
  f.starts = s.product_starts;
  f.pos = pos;
  f.capacity = capacity;
  f.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
  f.empty_key = std::numeric_limits<typename Crs::ordinal_type>::max();
  f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
  f.fingerprint = s.fingerprint_now;
  f.expected_fingerprint = s.fingerprint;
  f.strided = l.accumulator == SpgemmAccumulator::global;
  if (Find && Concurrent && !narrow && l.accumulator == SpgemmAccumulator::hash) {
    // The fill pass found the windowed rows' positions (SpgemmRows::window_row).
    f.window = s.window;
    f.window_words = s.window_words_fill;
  }
  LaunchParameters p = l.p;
  p.league_size = spgemm_league(l);
  if (narrow) {
    // The narrow bin: a row per thread, each in its own `capacity` values,
    // an odd number apart so that the threads of a warp, each at the same
    // place of its row, fall in different shared-memory banks (an even
    // stride of 64 doubles put all of them in one bank).
    f.narrow_segment = capacity | 1;
    f.capacity = f.narrow_segment * p.team_size;
    if (beside != nullptr) {
      f.team_first = beside->first;
      f.team_count = beside->count;
      f.capacity = std::max(f.capacity, spgemm_position_capacity(*beside));
      p.league_size += beside->count;
    }
  }
  auto policy =
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
          exec, static_cast<int>(p.league_size), p.team_size, p.vector_length));
  policy.set_scratch_size(f.scratch_level, Kokkos::PerTeam(F::scratch_bytes(f.capacity)));
  Kokkos::parallel_for(
      Find ? "SpMVKit::spgemm::find_positions" : "SpMVKit::spgemm::numeric_positions", policy, f);
}

/// One bin's launch of the chunked position kernel (SpgemmPositionChunks),
/// after clearing the bin's rows in numeric phases.
template <bool Find, class Crs, class State, class Pos>
void spgemm_launch_chunks(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                          State const& s, int b,
                          Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  using Scalar = typename Crs::value_type;
  using Ordinal = typename Crs::ordinal_type;
  using Offset = typename Crs::offset_type;
  using Device = typename Crs::device_type;
  auto const& l = s.launch[b];
  auto const& p = s.chunk;
  if constexpr (!Find) {
    SpgemmChunkClear<Scalar, Ordinal, Offset, Device> clear;
    clear.c_rs = s.C.row_starts();
    clear.perm = s.perm;
    clear.first = l.first;
    clear.c_v = s.C.values();
    clear.fingerprint = s.fingerprint_now;
    clear.expected_fingerprint = s.fingerprint;
    clear.not_found = std::numeric_limits<Scalar>::quiet_NaN();
    Kokkos::parallel_for("SpMVKit::spgemm::clear_chunked_rows",
                         argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                             exec, static_cast<int>(l.count), p.team_size, p.vector_length)),
                         clear);
  }
  SpgemmPositionChunks<Scalar, Ordinal, Offset, Device, Pos, Find> f;
  spgemm_bind_operands(f, A, B, l, s.perm);
  f.c_rs = s.C.row_starts();
  f.c_ci = s.C.column_indices();
  f.c_v = s.C.values();
  f.starts = s.product_starts;
  f.chunk_first = s.chunk_first[b];
  f.chunk = p.work_per_team;
  f.pos = pos;
  f.fingerprint = s.fingerprint_now;
  f.expected_fingerprint = s.fingerprint;
  Kokkos::parallel_for(Find ? "SpMVKit::spgemm::find_positions_chunked"
                            : "SpMVKit::spgemm::numeric_positions_chunked",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>(s.num_chunks[b]), p.team_size, p.vector_length)),
                       f);
}

template <bool Find, class Crs, class State>
void spgemm_launch_positions(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                             State const& s) {
  if constexpr (!Find) {
    // Checked by every team of the kernels below (SpgemmFingerprint).
    spgemm_launch_fingerprint(exec, s, A, B);
  }
  const auto launch = [&](SpgemmBinLaunch const& l, std::int64_t capacity, bool narrow,
                          SpgemmBinLaunch const* beside) {
    if (l.count == 0) return;
    // The bin's scratch was sized for a column and a value per slot; finding
    // positions takes two indices per slot.
    using Ordinal = typename Crs::ordinal_type;
    if (Find && sizeof(Ordinal) > sizeof(typename Crs::value_type)) capacity /= 2;
    // A row per thread adds with plain stores where no row of B repeats a
    // column: a thread's lanes then add to distinct positions, and its vector
    // loops are ordered (each ends with a warp barrier on GPUs). Team rows
    // that join the launch add with atomics regardless (SpgemmPositionRows).
    const bool concurrent = l.concurrent && !(narrow && !Find && s.b_rows_strict);
    if (s.positions16.extent(0) > 0) {
      if (concurrent) {
        spgemm_launch_positions_concurrency<Find, true>(exec, A, B, s, l, capacity, s.positions16,
                                                        narrow, beside);
      } else {
        spgemm_launch_positions_concurrency<Find, false>(exec, A, B, s, l, capacity, s.positions16,
                                                         narrow, beside);
      }
    } else {
      if (concurrent) {
        spgemm_launch_positions_concurrency<Find, true>(exec, A, B, s, l, capacity, s.positions32,
                                                        narrow, beside);
      } else {
        spgemm_launch_positions_concurrency<Find, false>(exec, A, B, s, l, capacity, s.positions32,
                                                         narrow, beside);
      }
    }
  };
  // Scratch rows. Find: the narrow kernel found the narrow bin's positions as it
  // filled its rows (where it took them), the hash bin's teams find the
  // others'. Values: a row per thread in its share of the hash bin's scratch
  // for the narrow and short bins, where they fill the device, a team per
  // row for the rest.
  int team_bin = spgemm_first_team_bin(s.launch, s.narrow.min_rows);
  bool hash_done = false;
  if constexpr (!Find) {
    team_bin = spgemm_bin_narrow;
    if (spgemm_rows_per_thread(s.launch, spgemm_bin_narrow, spgemm_bin_short,
                               s.narrow.values_min_rows)) {
      team_bin = spgemm_bin_hash;
      // The hash bin's rows join the launch where their teams have its shape.
      auto const& h = s.launch[spgemm_bin_hash];
      const auto rows =
          spgemm_bin_range(s.launch, spgemm_bin_narrow, spgemm_bin_short, spgemm_bin_short);
      hash_done = h.count > 0 && h.concurrent == rows.concurrent &&
                  h.p.team_size == rows.p.team_size && h.p.vector_length == rows.p.vector_length;
      launch(
          rows,
          std::max(s.launch[spgemm_bin_short].capacity, s.launch[spgemm_bin_narrow].capacity / 2),
          true, hash_done ? &h : nullptr);
    }
  }
  if (!hash_done) {
    const auto hash = spgemm_bin_range(s.launch, team_bin, spgemm_bin_hash, spgemm_bin_hash);
    // Find: none of the rows left where the fill pass windowed them all.
    if (!Find || s.window_words_fill == 0 || s.window_rows_fill < hash.count) {
      launch(hash, spgemm_position_capacity(hash), false, nullptr);
    }
  }
  // Rows beyond scratch: chunks of products on GPUs, else a team per row.
  for (int b = spgemm_bin_dense; b < spgemm_num_bins; ++b) {
    auto const& l = s.launch[b];
    if (l.count == 0) continue;
    if (s.chunk_first[b].extent(0) > 0) {
      if (s.positions16.extent(0) > 0) {
        spgemm_launch_chunks<Find>(exec, A, B, s, b, s.positions16);
      } else {
        spgemm_launch_chunks<Find>(exec, A, B, s, b, s.positions32);
      }
    } else {
      launch(l, spgemm_position_capacity(l), false, nullptr);
    }
  }
}

/// The bytes of the positions and their starts, and whether 16 bits hold a
/// position (every row of C at most 65536 long); 0 bytes where they are not
/// kept: hashing asked for, unsorted rows, no products, or (automatic only)
/// more than spgemm_positions_max_ratio times C's own bytes.
template <class State>
std::pair<byte_count, bool>
spgemm_positions_bytes(typename State::crs_type::execution_space const& exec,
                       SpgemmOptions const& options, State const& s) {
  using Range = Kokkos::RangePolicy<typename State::crs_type::execution_space,
                                    Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::spgemm";
  if (options.numeric == SpgemmNumeric::hash || !options.sort_columns || s.multiply_adds == 0) {
    return {0, false};
  }
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::spgemm::longest_row", Range(exec, 0, s.m),
      SpgemmMaxRow<typename State::crs_type::offset_type, typename State::device_type>{
          s.C.row_starts()},
      Kokkos::Max<std::int64_t>(longest));
  const bool fit16 = longest <= 65536;
  const byte_count bytes = checked_add(
      checked_bytes(s.multiply_adds, fit16 ? sizeof(std::uint16_t) : sizeof(std::uint32_t),
                    "product positions", where),
      checked_bytes(s.a_nnz + 2, sizeof(std::int64_t), "product starts", where), "positions",
      where);
  if (options.numeric == SpgemmNumeric::automatic &&
      bytes > spgemm_positions_max_ratio * s.memory.output_bytes) {
    return {0, false};
  }
  return {bytes, fit16};
}

/// Where the products of each entry of A start (one entry more: the numeric
/// phases' fingerprint, SpgemmState::fingerprint_now), and the positions' array.
template <class Crs, class State>
void spgemm_allocate_positions(typename Crs::execution_space const& exec, State& s, Crs const& A,
                               Crs const& B, bool fit16) {
  using Device = typename State::device_type;
  using Range = Kokkos::RangePolicy<typename Crs::execution_space, Kokkos::IndexType<std::int64_t>>;
  s.product_starts = allocate_view<Kokkos::View<std::int64_t*, Device>>(
      exec, "SpMVKit::spgemm::product_starts", s.a_nnz + 2);
  Kokkos::parallel_scan(
      "SpMVKit::spgemm::product_starts", Range(exec, 0, s.a_nnz + 1),
      SpgemmProductStarts<typename Crs::ordinal_type, typename Crs::offset_type, Device>{
          A.column_indices(), B.row_starts(), s.product_starts, s.a_nnz});
  if (fit16) {
    s.positions16 = allocate_view<Kokkos::View<std::uint16_t*, Device>>(
        exec, "SpMVKit::spgemm::product_positions", s.multiply_adds);
  } else {
    s.positions32 = allocate_view<Kokkos::View<std::uint32_t*, Device>>(
        exec, "SpMVKit::spgemm::product_positions", s.multiply_adds);
  }
  s.fingerprint_now = Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      reinterpret_cast<std::uint64_t*>(s.product_starts.data() + s.a_nnz + 1), 1);
}

/// Rows that team scratch does not hold (GPUs, the concurrent path), in chunks
/// of products: where each row's chunks start, per bin. Returns their bytes.
template <class Crs, class State>
std::uint64_t spgemm_plan_chunks(typename Crs::execution_space const& exec, State& s,
                                 Crs const& A) {
  using Device = typename State::device_type;
  using Range = Kokkos::RangePolicy<typename Crs::execution_space, Kokkos::IndexType<std::int64_t>>;
  s.chunk = spgemm_chunk_parameters(exec, s.options.team_size);
  std::uint64_t chunk_bytes = 0;
  for (int b = 1; b < spgemm_num_bins; ++b) {
    auto const& l = s.launch[b];
    if (b <= spgemm_bin_hash || l.count == 0 || !l.concurrent) continue;
    s.chunk_first[b] = allocate_view<Kokkos::View<std::int64_t*, Device>>(
        exec, "SpMVKit::spgemm::chunk_starts", l.count + 1);
    SpgemmChunkScan<typename Crs::ordinal_type, typename Crs::offset_type, Device> f;
    f.a_rs = A.row_starts();
    f.perm = s.perm;
    f.starts = s.product_starts;
    f.chunk_first = s.chunk_first[b];
    f.first = l.first;
    f.count = l.count;
    f.chunk = s.chunk.work_per_team;
    Kokkos::parallel_scan("SpMVKit::spgemm::chunk_starts", Range(exec, 0, l.count + 1), f);
    exec.fence();
    Kokkos::deep_copy(s.num_chunks[b], Kokkos::subview(s.chunk_first[b], l.count));
    chunk_bytes += static_cast<std::uint64_t>(l.count + 1) * sizeof(std::int64_t);
  }
  return chunk_bytes;
}

/// The patterns' fingerprint that numeric phases compare, and whether every
/// row of B has strictly increasing columns.
template <class Crs, class State>
void spgemm_take_fingerprint(typename Crs::execution_space const& exec, State& s, Crs const& A,
                             Crs const& B) {
  using Range = Kokkos::RangePolicy<typename Crs::execution_space, Kokkos::IndexType<std::int64_t>>;
  const auto f = spgemm_fingerprint_functor(A, B, true);
  std::uint64_t sums[2] = {0, 0};
  Kokkos::parallel_reduce("SpMVKit::spgemm::pattern_fingerprint", Range(exec, 0, f.rows_end), f,
                          sums);
  s.fingerprint = sums[0];
  s.b_rows_strict = sums[1] == 0;
}

/// The symbolic phase's last step: the position of every product in its row of
/// C, so that numeric phases add without hashing (SpgemmPositionRows). Kept
/// only for sorted rows (the place is found by binary search), where the
/// options do not ask for hashing, and where the positions fit the limit
/// beside everything else the handle keeps (automatic: and take at most
/// spgemm_positions_max_ratio times C's own bytes); the numeric global pool
/// is then released. Otherwise numeric phases hash as the symbolic one did.
/// `find` fills the allocated positions (the position kernel, or the host
/// workspace's fill pass, which writes the columns too); `held` is what else
/// it holds meanwhile (the host workspace). The lists of products or the
/// entry starts follow where chosen. Returns whether the positions were kept.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class State, class Find>
bool spgemm_store_positions(ExecutionSpace const& exec, SpgemmOptions const& options,
                            SpgemmLimit const& limit, State& s,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                            std::uint64_t held, Find const& find) {
  using Device = typename State::device_type;
  const auto [bytes, fit16] = spgemm_positions_bytes(exec, options, s);
  if (bytes == 0) return false;
  const std::uint64_t perm_bytes = static_cast<std::uint64_t>(s.perm.extent(0)) * sizeof(Ordinal);
  const std::uint64_t kept = s.memory.output_bytes + perm_bytes + bytes;
  // While the positions are found the numeric pool still exists.
  const std::uint64_t peak = std::max<std::uint64_t>(
      kept, s.memory.output_bytes + s.memory.workspace_bytes + bytes + held);
  if (!spgemm_optional_fits<typename ExecutionSpace::memory_space>(limit, peak, bytes))
    return false;
  spgemm_allocate_positions(exec, s, A, B, fit16);
  const std::uint64_t chunk_bytes = spgemm_plan_chunks(exec, s, A);
  spgemm_take_fingerprint(exec, s, A, B);
  find();
  s.positions = true;
  s.pool_keys = Kokkos::View<Ordinal*, Device>();
  s.pool_vals = Kokkos::View<Scalar*, Device>();
  s.memory.positions_bytes = bytes;
  s.memory.workspace_bytes = perm_bytes + bytes + chunk_bytes;
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes, peak);
  if (!spgemm_store_lists(exec, options, limit, s, A, B, s.memory.workspace_bytes + held)) {
    spgemm_store_entry_starts(exec, limit, s, A, B, held);
  }
  return true;
}

} // namespace spmvkit::detail

#endif
