// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_FINGERPRINT_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_FINGERPRINT_HPP

/// \file
/// The pattern fingerprint of A and B that numeric phases from kept
/// positions or lists, and every hashing numeric phase, compare with the
/// symbolic phase's.

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
/// instead of Kokkos' reduction of an array, which left multiprocessors idle
/// (docs/notes/2026-11-24-spgemm-numeric-by-entry.md).
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

/// After SpgemmListValues, SpgemmPositionEntries or a hashing numeric phase
/// (one team): compares the
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

/// The pattern fingerprint of A and B (SpgemmFingerprint) and its index
/// space; `check_order`: also count B's rows that are not strictly increasing.
template <class Crs>
SpgemmFingerprint<typename Crs::ordinal_type, typename Crs::offset_type, typename Crs::device_type>
spgemm_fingerprint_functor(Crs const& A, Crs const& B, bool check_order) {
  using F = SpgemmFingerprint<typename Crs::ordinal_type, typename Crs::offset_type,
                              typename Crs::device_type>;
  F f;
  f.a_rs = A.row_starts();
  f.a_ci = A.column_indices();
  f.b_rs = B.row_starts();
  f.b_ci = B.column_indices();
  const bool same = A.row_starts().data() == B.row_starts().data() &&
                    A.column_indices().data() == B.column_indices().data() &&
                    A.row_starts().extent(0) == B.row_starts().extent(0) && A.nnz() == B.nnz();
  f.a_weight = same ? F::weight + 1 : F::weight;
  f.a_rows = static_cast<std::int64_t>(A.row_starts().extent(0));
  f.a_end = f.a_rows + static_cast<std::int64_t>(A.nnz());
  f.b_rows = static_cast<std::int64_t>(B.row_starts().extent(0));
  f.b_end = same ? f.a_end : f.a_end + f.b_rows + static_cast<std::int64_t>(B.nnz());
  f.rows_end = check_order ? f.b_end + static_cast<std::int64_t>(B.num_rows()) : f.b_end;
  f.value_count = check_order ? 2 : 1;
  return f;
}

/// The patterns' fingerprint now, into s.fingerprint_now (zeroed first), for
/// the numeric kernels that compare it with the symbolic phase's.
template <class Crs, class State>
void spgemm_launch_fingerprint(typename Crs::execution_space const& exec, State const& s,
                               Crs const& A, Crs const& B) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmFingerprintTeams<typename Crs::ordinal_type, typename Crs::offset_type,
                         typename Crs::device_type>
      f;
  f.f = spgemm_fingerprint_functor(A, B, false);
  f.out = s.fingerprint_now;
  const LaunchParameters p = spgemm_fingerprint_parameters(exec, s.options.team_size);
  f.items = p.work_per_team;
  Kokkos::deep_copy(exec, s.fingerprint_now, std::uint64_t(0));
  Kokkos::parallel_for("SpMVKit::spgemm::pattern_fingerprint",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>((f.f.b_end + f.items - 1) / f.items), p.team_size,
                           p.vector_length)),
                       f);
}

/// SpgemmPatternCheck's one team after a numeric launch that summed the
/// fingerprint into `sync` (the lists', or the positions' by entry of A).
template <class Crs, class State>
void spgemm_launch_pattern_check(typename Crs::execution_space const& exec, State const& s,
                                 Kokkos::View<std::uint64_t*, typename Crs::device_type,
                                              Kokkos::MemoryTraits<Kokkos::Unmanaged>> const& sync,
                                 LaunchParameters const& p, char const* label) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmPatternCheck<typename Crs::value_type, typename Crs::device_type> check;
  check.sync = sync;
  check.c_v = s.C.values();
  check.expected_fingerprint = s.fingerprint;
  check.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
  Kokkos::parallel_for(
      label,
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(exec, 1, p.team_size, p.vector_length)),
      check);
}

} // namespace spmvkit::detail

#endif
