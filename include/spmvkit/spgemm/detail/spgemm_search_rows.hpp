// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_SEARCH_ROWS_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_SEARCH_ROWS_HPP

/// \file
/// The hashing numeric phase's short rows (SpgemmNumeric::hash on GPUs): a
/// row per thread, each product's place found by a binary search of its
/// sorted row of C, with its launcher.

#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/spgemm/detail/spgemm_accumulators.hpp>
#include <spmvkit/spgemm/detail/spgemm_fingerprint.hpp>
#include <spmvkit/spgemm/detail/spgemm_launch_plan.hpp>
#include <spmvkit/spgemm/detail/spgemm_row_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace spmvkit::detail {

/// Numeric phase of the narrow and short bins when no positions are kept:
/// each thread's vector lanes accumulate whole rows in their own `segment`
/// values of team scratch, as the positions' row-per-thread kernel
/// (SpgemmPositionRows::value_rows_narrow) does, but each product finds its
/// place by a binary search of its row of C (sorted, at most `segment` long)
/// instead of reading a stored position. A team per row of a few products
/// (a FEM matrix times a prolongator) left most of its threads idle through
/// its barriers and table clears: docs/notes/2026-12-02-spgemm-search-rows.md.
///
/// A changed pattern (SpgemmFingerprint, computed on the device just before)
/// makes the rows NaN. A product whose column its row lacks adds NaN within
/// the row (a plain add that may race with another lane's where rows of B are
/// strict): nothing is read or written out of the row even if the fingerprint
/// missed the change.
template <class Scalar, class Ordinal, class Offset, class Device, bool Atomic>
struct SpgemmSearchRows {
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
  std::int64_t first = 0, count = 0;
  Kokkos::View<Scalar*, Device> c_v;
  /// Values of a thread's share of scratch (odd: see scratch_bytes).
  std::int64_t segment = 1;
  int scratch_level = 0;
  Scalar not_found = Scalar(0);
  Kokkos::View<const std::uint64_t*, Device> fingerprint;
  std::uint64_t expected_fingerprint = 0;

  /// A team's scratch: its threads' shares.
  static std::size_t scratch_bytes(std::int64_t segment, int team_size) {
    return scratch_view<Scalar>::shmem_size(static_cast<std::size_t>(segment) *
                                            static_cast<std::size_t>(team_size));
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t begin = first + std::int64_t(team.league_rank()) * team.team_size();
    const std::int64_t end =
        begin + team.team_size() < first + count ? begin + team.team_size() : first + count;
    scratch_view<Scalar> scratch(team.team_scratch(scratch_level),
                                 static_cast<std::size_t>(segment * team.team_size()));
    const bool changed = fingerprint(0) != expected_fingerprint;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](std::int64_t r) {
      const Ordinal i = perm(r);
      const Offset base = c_rs(i);
      const std::int64_t len = c_rs(i + 1) - base;
      if (changed) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len),
                             [&](std::int64_t j) { c_v(base + j) = not_found; });
        return;
      }
      Scalar* acc = scratch.data() + (r - begin) * segment;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len),
                           [&](std::int64_t j) { acc[j] = Scalar(0); });
      Kokkos::single(Kokkos::PerThread(team), []() {});
      for (Offset ka = a_rs(i); ka < a_rs(i + 1); ++ka) {
        const Ordinal k = a_ci(ka);
        const Scalar av = a_v(ka);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b_rs(k), b_rs(k + 1)), [&](Offset kb) {
          const Ordinal c = b_ci(kb);
          const std::int64_t p = spgemm_place(c_ci, base, len, c);
          if (p < len && c_ci(base + p) == c) {
            spgemm_add<Atomic>(acc + p, av * b_v(kb));
          } else if (len > 0) {
            spgemm_add<Atomic>(acc + (p < len ? p : len - 1), not_found);
          }
        });
      }
      Kokkos::single(Kokkos::PerThread(team), []() {});
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len),
                           [&](std::int64_t j) { c_v(base + j) = acc[j]; });
    });
  }
};

/// Whether the hashing numeric phase takes the narrow and short bins a row
/// per thread (SpgemmSearchRows): sorted rows of C (the search needs them), and
/// rows whose lanes fill the device, or half of it where a row has at most as
/// many products (the mean over all rows of A) as a hash team has lanes. Below a full device a
/// thread's chain of searches is the critical path; a team per row then wins
/// once its lanes are busy: docs/notes/2026-12-02-spgemm-search-rows.md.
template <class State>
bool spgemm_search_rows_apply(State const& s, bool sorted) {
  // No narrow or short rows where the plan has no row-per-thread shares (host backends
  // without SpgemmOptions::team_size).
  if (!sorted || s.narrow.fill_slots <= 0) return false;
  const std::int64_t rows =
      spgemm_bin_range(s.launch, spgemm_bin_narrow, spgemm_bin_short, spgemm_bin_short).count;
  const std::int64_t half = s.narrow.values_min_rows;
  if (rows == 0 || rows < half) return false;
  if (rows >= 2 * half) return true;
  auto const& team = s.launch[spgemm_bin_hash].p;
  const double team_lanes = static_cast<double>(team.team_size) * team.vector_length;
  return static_cast<double>(s.multiply_adds) <=
         team_lanes * static_cast<double>(std::max<std::int64_t>(1, s.m));
}

/// SpgemmSearchRows over the narrow and short bins, after the patterns'
/// fingerprint now (spgemm_launch_fingerprint, by the caller).
template <class Crs, class State>
void spgemm_launch_search_rows(typename Crs::execution_space const& exec, Crs const& A,
                               Crs const& B, State const& s) {
  using ExecutionSpace = typename Crs::execution_space;
  const auto l = spgemm_bin_range(s.launch, spgemm_bin_narrow, spgemm_bin_short, spgemm_bin_short);
  if (l.count == 0) return;
  const auto launch = [&](auto atomic) {
    using F = SpgemmSearchRows<typename Crs::value_type, typename Crs::ordinal_type,
                               typename Crs::offset_type, typename Crs::device_type,
                               decltype(atomic)::value>;
    F f;
    spgemm_bind_operands(f, A, B, l, s.perm);
    f.c_rs = s.C.row_starts();
    f.c_ci = s.C.column_indices();
    f.c_v = s.C.values();
    // Odd, so that the threads of a warp, each at the same place of its row,
    // fall in different shared-memory banks (as the positions' kernel).
    f.segment =
        std::max(s.launch[spgemm_bin_short].capacity, s.launch[spgemm_bin_narrow].capacity / 2) | 1;
    f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
    f.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
    f.fingerprint = s.fingerprint_now;
    f.expected_fingerprint = s.fingerprint;
    const LaunchParameters p = l.p;
    auto policy =
        argument_launch(Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
            exec, static_cast<int>((l.count + p.team_size - 1) / p.team_size), p.team_size,
            p.vector_length));
    policy.set_scratch_size(f.scratch_level,
                            Kokkos::PerTeam(F::scratch_bytes(f.segment, p.team_size)));
    Kokkos::parallel_for("SpMVKit::spgemm::numeric_search_rows", policy, f);
  };
  // A thread's lanes add to distinct places where no row of B repeats a
  // column, and its vector loops are ordered (each ends with a warp barrier).
  if (s.b_rows_strict) {
    launch(std::false_type());
  } else {
    launch(std::true_type());
  }
}

} // namespace spmvkit::detail

#endif
