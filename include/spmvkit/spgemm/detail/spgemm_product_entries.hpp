// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_PRODUCT_ENTRIES_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_PRODUCT_ENTRIES_HPP

/// \file
/// The numeric phase by entry of A from the kept positions (GPUs): each
/// entry's row start of C, and the atomic adds of its products.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/spgemm/detail/spgemm_fingerprint.hpp>
#include <spmvkit/spgemm/detail/spgemm_memory_budget.hpp>
#include <spmvkit/spgemm/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

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

/// GPUs: after the positions, where spgemm_entry_parameters takes the numeric
/// phase by entry of A (SpgemmPositionEntries), each entry's row start of C,
/// if it fits the limit beside what the handle keeps (`held`: whatever else
/// is alive meanwhile).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class State>
void spgemm_store_entry_starts(ExecutionSpace const& exec, SpgemmLimit const& limit, State& s,
                               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                               std::uint64_t held) {
  using Device = typename State::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const SpgemmNumeric choice = s.options.numeric;
  if ((choice != SpgemmNumeric::automatic && choice != SpgemmNumeric::entries) || s.a_nnz == 0) {
    return;
  }
  const auto longest_b = [&] {
    std::int64_t longest = 0;
    Kokkos::parallel_reduce("SpMVKit::spgemm::longest_row_of_b", Range(exec, 0, s.k),
                            SpgemmMaxRow<Offset, Device>{B.row_starts()},
                            Kokkos::Max<std::int64_t>(longest));
    return longest;
  };
  const double mean_b_row = s.k > 0 ? static_cast<double>(s.b_nnz) / static_cast<double>(s.k) : 0.0;
  s.entry_plan = spgemm_entry_parameters(exec, mean_b_row, longest_b, s.multiply_adds,
                                         s.options.team_size, choice == SpgemmNumeric::entries);
  if (!s.entry_plan.use) return;
  const byte_count bytes =
      checked_bytes(s.a_nnz, sizeof(Offset), "entry starts", "spmvkit::spgemm");
  const std::uint64_t peak = s.memory.output_bytes + s.memory.workspace_bytes + held + bytes;
  if (!spgemm_optional_fits<typename Device::memory_space>(limit, peak, bytes)) {
    s.entry_plan.use = false;
    return;
  }
  s.entry_c_start =
      allocate_view<Kokkos::View<Offset*, Device>>(exec, "SpMVKit::spgemm::entry_starts", s.a_nnz);
  SpgemmEntryStarts<Offset, Device> f;
  f.a_rs = A.row_starts();
  f.c_rs = s.C.row_starts();
  f.c_start = s.entry_c_start;
  f.m = s.m;
  LaunchParameters const& p = s.entry_plan.starts;
  f.rows_per_team = p.work_per_team;
  Kokkos::parallel_for("SpMVKit::spgemm::entry_starts",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>((s.m + p.work_per_team - 1) / p.work_per_team),
                           p.team_size, p.vector_length)),
                       f);
  // The numeric launches sum the fingerprint into it; SpgemmPatternCheck clears it.
  Kokkos::deep_copy(exec, s.fingerprint_now, std::uint64_t(0));
  s.memory.workspace_bytes += bytes;
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes, peak);
}

/// The numeric phase from stored positions by entry of A: C's values cleared,
/// SpgemmPositionEntries, SpgemmPatternCheck's one team.
template <class Crs, class State, class Pos>
void spgemm_launch_entries_values(typename Crs::execution_space const& exec, Crs const& A,
                                  Crs const& B, State const& s,
                                  Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmPositionEntries<typename Crs::value_type, typename Crs::ordinal_type,
                        typename Crs::offset_type, typename Crs::device_type, Pos>
      f;
  f.b_rs = B.row_starts();
  f.c_start = s.entry_c_start;
  f.a_ci = A.column_indices();
  f.a_v = A.values();
  f.b_v = B.values();
  f.starts = s.product_starts;
  f.pos = pos;
  f.c_v = s.C.values();
  f.a_nnz = s.a_nnz;
  f.b_rows = s.k;
  f.b_nnz = s.b_nnz;
  LaunchParameters const& p = s.entry_plan.values;
  f.entries_per_team = p.work_per_team;
  f.fingerprint = spgemm_fingerprint_functor(A, B, false);
  f.fingerprint_items = s.entry_plan.fingerprint_items;
  f.fingerprint_teams = (f.fingerprint.b_end + f.fingerprint_items - 1) / f.fingerprint_items;
  f.sync = s.fingerprint_now;
  const std::int64_t league =
      f.fingerprint_teams + (s.a_nnz + p.work_per_team - 1) / p.work_per_team;
  Kokkos::parallel_for("SpMVKit::spgemm::numeric_entries",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>(league), p.team_size, p.vector_length)),
                       f);
}

template <class Crs, class State>
void spgemm_launch_entries(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                           State const& s) {
  Kokkos::deep_copy(exec, s.C.values(), typename Crs::value_type(0));
  if (s.positions16.extent(0) > 0) {
    spgemm_launch_entries_values(exec, A, B, s, s.positions16);
  } else {
    spgemm_launch_entries_values(exec, A, B, s, s.positions32);
  }
  spgemm_launch_pattern_check<Crs>(exec, s, s.fingerprint_now, s.entry_plan.check,
                                   "SpMVKit::spgemm::numeric_entries_check");
}

} // namespace spmvkit::detail

#endif
