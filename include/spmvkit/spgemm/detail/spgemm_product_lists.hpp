// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_PRODUCT_LISTS_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_PRODUCT_LISTS_HPP

/// \file
/// The lists of products per entry of C, built from the kept positions, and
/// the numeric phase that sums each list in a register.

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

/// One pass of SpgemmListBuild over every entry of A.
template <bool Write, class Crs, class State, class Pos, class Index>
void spgemm_launch_list_build(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, State const& s,
    Kokkos::View<Pos*, typename Crs::device_type> const& pos,
    Kokkos::View<SpgemmPair<Index>*, typename Crs::device_type> const& pairs) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmListBuild<typename Crs::ordinal_type, typename Crs::offset_type, typename Crs::device_type,
                  Pos, Index, Write>
      f;
  f.a_rs = A.row_starts();
  f.a_ci = A.column_indices();
  f.b_rs = B.row_starts();
  f.c_rs = s.C.row_starts();
  f.starts = s.product_starts;
  f.pos = pos;
  f.ends = s.list_ends;
  f.pairs = pairs;
  f.m = s.m;
  f.a_nnz = s.a_nnz;
  LaunchParameters const& p = s.list_plan.build;
  f.entries_per_team = p.work_per_team;
  const std::int64_t league = (s.a_nnz + p.work_per_team - 1) / p.work_per_team;
  Kokkos::parallel_for(
      Write ? "SpMVKit::spgemm::write_product_lists" : "SpMVKit::spgemm::count_product_lists",
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(exec, static_cast<int>(league),
                                                         p.team_size, p.vector_length)),
      f);
}

/// The bytes of the lists of products (pairs, list ends, long lists) and their widths.
struct SpgemmListSizes {
  bool wide = false;
  /// Lists longer than long_list: at most this many (each holds more products).
  std::int64_t long_max = 0;
  byte_count bytes = 0;
};

template <class State>
SpgemmListSizes spgemm_list_sizes(SpgemmOptions const& options, State const& s) {
  constexpr char const* where = "spmvkit::spgemm";
  constexpr auto narrow_max = static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max());
  SpgemmListSizes z;
  z.wide = options.wide_product_lists || s.a_nnz > narrow_max || s.b_nnz > narrow_max;
  z.long_max =
      s.list_plan.long_list < s.multiply_adds ? s.multiply_adds / (s.list_plan.long_list + 1) : 0;
  const std::size_t pair =
      z.wide ? sizeof(SpgemmPair<std::uint64_t>) : sizeof(SpgemmPair<std::uint32_t>);
  z.bytes = checked_add(
      checked_add(checked_bytes(s.multiply_adds, pair, "product lists", where),
                  checked_bytes(s.C.nnz() + 2, sizeof(std::int64_t), "product list ends", where),
                  "lists", where),
      checked_bytes(z.long_max + 1, sizeof(std::int64_t), "long product lists", where), "lists",
      where);
  return z;
}

/// The lists' arrays. Two entries beyond the list ends: the numeric launch's
/// fingerprint sum, and the count of long lists while they are found (returned).
template <class ExecutionSpace, class State>
auto spgemm_allocate_lists(ExecutionSpace const& exec, State& s, SpgemmListSizes const& z) {
  using Device = typename State::device_type;
  const std::int64_t nnz = s.C.nnz();
  const auto ends = allocate_view<Kokkos::View<std::int64_t*, Device>>(
      exec, "SpMVKit::spgemm::product_list_ends", nnz + 2);
  Kokkos::deep_copy(exec, ends, std::int64_t(0));
  s.list_ends = Kokkos::subview(ends, Kokkos::pair<std::int64_t, std::int64_t>(0, nnz));
  s.list_sync = Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      reinterpret_cast<std::uint64_t*>(ends.data() + nnz), 1);
  s.list_long = spgemm_allocate<Kokkos::View<std::int64_t*, Device>>(
      exec, "SpMVKit::spgemm::long_product_lists", z.long_max);
  if (z.wide) {
    s.list_pairs64 = allocate_view<Kokkos::View<SpgemmPair<std::uint64_t>*, Device>>(
        exec, "SpMVKit::spgemm::product_lists", s.multiply_adds);
  } else {
    s.list_pairs32 = allocate_view<Kokkos::View<SpgemmPair<std::uint32_t>*, Device>>(
        exec, "SpMVKit::spgemm::product_lists", s.multiply_adds);
  }
  return Kokkos::subview(ends, Kokkos::pair<std::int64_t, std::int64_t>(nnz + 1, nnz + 2));
}

/// Writes the lists from the positions: each list's length (a first build
/// pass), their ends by a scan per row of C (which also collects the long
/// lists), then the pairs (the second pass).
template <class Crs, class State, class Count>
void spgemm_build_lists(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                        State& s, Count const& long_count, bool wide) {
  using ExecutionSpace = typename Crs::execution_space;
  const auto build = [&](auto const& pos, auto const& pairs) {
    spgemm_launch_list_build<false>(exec, A, B, s, pos, pairs);
    SpgemmListScan<typename Crs::ordinal_type, typename Crs::offset_type, typename Crs::device_type>
        scan;
    scan.a_rs = A.row_starts();
    scan.c_rs = s.C.row_starts();
    scan.starts = s.product_starts;
    scan.ends = s.list_ends;
    scan.long_entries = s.list_long;
    scan.long_count = long_count;
    scan.long_list = s.list_plan.long_list;
    scan.m = s.m;
    LaunchParameters const& p = s.list_plan.scan;
    scan.rows_per_team = p.work_per_team;
    Kokkos::parallel_for("SpMVKit::spgemm::product_list_starts",
                         argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                             exec, static_cast<int>((s.m + p.work_per_team - 1) / p.work_per_team),
                             p.team_size, p.vector_length)),
                         scan);
    spgemm_launch_list_build<true>(exec, A, B, s, pos, pairs);
  };
  const auto build_pairs = [&](auto const& pos) {
    if (wide) {
      build(pos, s.list_pairs64);
    } else {
      build(pos, s.list_pairs32);
    }
  };
  if (s.positions16.extent(0) > 0) {
    build_pairs(s.positions16);
  } else {
    build_pairs(s.positions32);
  }
}

/// The symbolic phase's step after the positions: the lists of products by
/// entry of C (SpgemmListValues), where the options ask for them
/// (SpgemmNumeric::product_lists) and they fit the limit while the positions
/// (`held`, with whatever else is held besides C) still exist. The positions,
/// their starts, the chunk starts and the row order are then released.
/// Returns whether the lists were kept.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class State>
bool spgemm_store_lists(ExecutionSpace const& exec, SpgemmOptions const& options,
                        SpgemmLimit const& limit, State& s,
                        CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                        CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                        std::uint64_t held) {
  using Device = typename State::device_type;
  const double mean_b_row = s.k > 0 ? static_cast<double>(s.b_nnz) / static_cast<double>(s.k) : 0.0;
  if (options.numeric != SpgemmNumeric::product_lists || s.C.nnz() == 0) return false;
  s.list_plan = spgemm_list_parameters(exec, mean_b_row, options.team_size);
  const SpgemmListSizes z = spgemm_list_sizes(options, s);
  const std::uint64_t peak = s.memory.output_bytes + held + z.bytes;
  if (!spgemm_optional_fits<typename ExecutionSpace::memory_space>(limit, peak, z.bytes))
    return false;
  const auto long_count = spgemm_allocate_lists(exec, s, z);
  spgemm_build_lists(exec, A, B, s, long_count, z.wide);
  // The numeric launch's league depends on it; the symbolic phase ends with a
  // fence anyway.
  Kokkos::deep_copy(exec, Kokkos::View<std::int64_t, Kokkos::HostSpace>(&s.list_long_count),
                    Kokkos::subview(long_count, 0));
  exec.fence();
  s.lists = true;
  s.positions16 = Kokkos::View<std::uint16_t*, Device>();
  s.positions32 = Kokkos::View<std::uint32_t*, Device>();
  s.product_starts = Kokkos::View<std::int64_t*, Device>();
  for (auto& c : s.chunk_first) c = Kokkos::View<std::int64_t*, Device>();
  s.perm = Kokkos::View<Ordinal*, Device>();
  s.memory.positions_bytes = z.bytes;
  s.memory.workspace_bytes = z.bytes;
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes, peak);
  return true;
}

/// The numeric phase from lists of products: two launches (SpgemmListValues,
/// then SpgemmPatternCheck's one team).
template <class Crs, class State, class Index>
void spgemm_launch_lists_values(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, State const& s,
    Kokkos::View<SpgemmPair<Index>*, typename Crs::device_type> const& pairs) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmListValues<typename Crs::value_type, typename Crs::ordinal_type, typename Crs::offset_type,
                   typename Crs::device_type, Index>
      f;
  f.a_v = A.values();
  f.b_v = B.values();
  f.ends = s.list_ends;
  f.pairs = pairs;
  f.long_entries = s.list_long;
  f.long_count = s.list_long_count;
  f.long_list = s.list_plan.long_list;
  f.c_v = s.C.values();
  f.nnz = s.C.nnz();
  LaunchParameters const& p = s.list_plan.values;
  f.entries_per_team = p.work_per_team;
  f.list_teams = (f.nnz + p.work_per_team - 1) / p.work_per_team;
  f.fingerprint = spgemm_fingerprint_functor(A, B, false);
  f.fingerprint_items = s.list_plan.fingerprint_items;
  f.fingerprint_teams = (f.fingerprint.b_end + f.fingerprint_items - 1) / f.fingerprint_items;
  f.sync = s.list_sync;
  const std::int64_t league =
      f.fingerprint_teams + f.list_teams + (f.long_count + p.team_size - 1) / p.team_size;
  Kokkos::parallel_for("SpMVKit::spgemm::numeric_lists",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>(league), p.team_size, p.vector_length)),
                       f);
}

template <class Crs, class State>
void spgemm_launch_lists(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                         State const& s) {
  if (s.list_pairs64.extent(0) > 0) {
    spgemm_launch_lists_values(exec, A, B, s, s.list_pairs64);
  } else {
    spgemm_launch_lists_values(exec, A, B, s, s.list_pairs32);
  }
  spgemm_launch_pattern_check<Crs>(exec, s, s.list_sync, s.list_plan.check,
                                   "SpMVKit::spgemm::numeric_lists_check");
}

} // namespace spmvkit::detail

#endif
