// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_DETAIL_AMG_AGGREGATION_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_DETAIL_AMG_AGGREGATION_HPP

/// \file
/// AMG set-up, first half: the strength-of-connection graph and the
/// aggregates (distance-2 maximal independent set, Bell, Dalton and Olson,
/// "Exposing fine-grained parallelism in algebraic multigrid methods", SISC
/// 2012), all on the device and deterministic: priorities are a hash of the
/// row, every tie is broken by the smaller index, no atomics decide anything.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace spmvkit::detail {

/// Launch shape of the set-up's row kernels (strength graph, independent
/// sets, joins, the gather prolongator): a row per thread, its entries over
/// `lanes` vector lanes (a power of two up to 32) on GPUs; host spaces: teams
/// of one thread over blocks of rows.
template <class ExecutionSpace>
LaunchParameters amg_row_launch(std::int64_t rows, int lanes) {
  LaunchParameters p;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    p.team_size = 1;
    p.vector_length = 1;
    p.work_per_team = 512;
  } else {
    p.vector_length = lanes;
    p.team_size = 128 / p.vector_length;
    p.work_per_team = p.team_size;
  }
  p.league_size = std::max<std::int64_t>(1, (rows + p.work_per_team - 1) / p.work_per_team);
  return p;
}

/// f(i) for the rows i of `team`'s block of [0, n) in a row launch (amg_row_policy), a row
/// per thread.
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void amg_team_rows(Member const& team, std::int64_t n,
                                          std::int64_t rows_per_team, F const& f) {
  const std::int64_t r0 = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
  const std::int64_t r1 = r0 + rows_per_team < n ? r0 + rows_per_team : n;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, r0, r1), f);
}

/// Runs op(team, i) for the rows i of [0, n), a row per thread (op splits
/// the row over the vector lanes).
template <class RowOp>
struct AmgRowTeams {
  RowOp op;
  std::int64_t n = 0, rows_per_team = 1;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team) const {
    amg_team_rows(team, n, rows_per_team, [&](std::int64_t i) { op(team, i); });
  }
};

/// The same, summing op's results.
template <class RowOp>
struct AmgRowTeamsCount {
  using value_type = std::int64_t;
  RowOp op;
  std::int64_t n = 0, rows_per_team = 1;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, std::int64_t& count) const {
    amg_team_rows(team, n, rows_per_team, [&](std::int64_t i) {
      const std::int64_t c = op(team, i);
      Kokkos::single(Kokkos::PerThread(team), [&] { count += c; });
    });
  }
};

template <class ExecutionSpace, class F>
Kokkos::TeamPolicy<ExecutionSpace> amg_row_policy(ExecutionSpace const& exec, std::int64_t n,
                                                  std::int64_t nnz, F& f) {
  // As many lanes as the CRS SpMV gives rows of this mean length.
  const LaunchParameters lp = amg_row_launch<ExecutionSpace>(
      n, crs_vector_lanes(n > 0 ? static_cast<double>(nnz) / static_cast<double>(n) : 1.0));
  f.n = n;
  f.rows_per_team = lp.work_per_team;
  return Kokkos::TeamPolicy<ExecutionSpace>(exec, lp.league_size, lp.team_size, lp.vector_length);
}

/// parallel_for of op over the rows.
template <class ExecutionSpace, class RowOp>
void amg_for_rows(ExecutionSpace const& exec, char const* label, std::int64_t n, std::int64_t nnz,
                  RowOp const& op) {
  AmgRowTeams<RowOp> f{op};
  const auto policy = amg_row_policy(exec, n, nnz, f);
  Kokkos::parallel_for(label, policy, f);
}

/// parallel_reduce of op's counts over the rows.
template <class ExecutionSpace, class RowOp>
std::int64_t amg_count_rows(ExecutionSpace const& exec, char const* label, std::int64_t n,
                            std::int64_t nnz, RowOp const& op) {
  AmgRowTeamsCount<RowOp> f{op};
  const auto policy = amg_row_policy(exec, n, nnz, f);
  std::int64_t count = 0;
  Kokkos::parallel_reduce(label, policy, f, count);
  return count;
}

/// The same teams, the smallest row i where op.first(team, i) holds; n if none.
template <class RowOp>
struct AmgRowTeamsFirst {
  using value_type = std::int64_t;
  RowOp op;
  std::int64_t n = 0, rows_per_team = 1;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, std::int64_t& first) const {
    amg_team_rows(team, n, rows_per_team, [&](std::int64_t i) {
      const bool hit = op.first(team, i);
      Kokkos::single(Kokkos::PerThread(team), [&] {
        if (hit && i < first) first = i;
      });
    });
  }
};

/// The first row where op.first(team, i) holds, by the launch amg_count_rows() makes (the
/// same lanes, so the same sums as its counts); n if none. Synchronous.
template <class ExecutionSpace, class RowOp>
std::int64_t amg_first_row(ExecutionSpace const& exec, char const* label, std::int64_t n,
                           std::int64_t nnz, RowOp const& op) {
  AmgRowTeamsFirst<RowOp> f{op};
  const auto policy = amg_row_policy(exec, n, nnz, f);
  std::int64_t first = n;
  Kokkos::parallel_reduce(label, policy, f, Kokkos::Min<std::int64_t>(first));
  exec.fence();
  return first < n ? first : n;
}

/// The strength graph: row i lists the j != i with |a_ij| >= θ sqrt(|a_ii a_jj|)
/// (a_ij != 0), and the measure |a_ij| / sqrt(|a_ii a_jj|) that picks among them.
template <class Offset, class Ordinal, class Device>
struct AmgStrength {
  using device_type = Device;
  Kokkos::View<Offset*, Device> row_starts;
  Kokkos::View<Ordinal*, Device> columns;
  Kokkos::View<float*, Device> measure;
  std::int64_t isolated = 0; ///< rows without strong connections (not aggregated)
};

/// d(i) = |sum of A's diagonal entries of row i| (duplicates summed).
template <class Crs, class Mag>
struct AmgDiagonalMagnitude {
  typename Crs::row_starts_type rs;
  typename Crs::column_indices_type col;
  typename Crs::values_type val;
  Mag d;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, std::int64_t i) const {
    double s = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, rs(i), rs(i + 1)),
        [&](auto e, double& t) {
          if (static_cast<std::int64_t>(col(e)) == i) t += static_cast<double>(val(e));
        },
        s);
    Kokkos::single(Kokkos::PerThread(team), [&] { d(i) = s < 0 ? -s : s; });
  }
};

/// Whether a_ij (j != i) is a strong connection, and its measure.
KOKKOS_INLINE_FUNCTION bool amg_strong(double a, double di, double dj, double theta, float& m) {
  const double mag = a < 0 ? -a : a;
  const double scale = device_sqrt(di * dj);
  if (!(mag > 0)) return false;
  if (!(mag >= theta * scale)) return false;
  m = scale > 0 ? static_cast<float>(mag / scale) : 1.0f;
  return true;
}

/// Counts (fill = false) or lists in row order (fill = true) the strong
/// connections of each row.
template <class Crs, class Mag, class Strength>
struct AmgStrongRows {
  typename Crs::row_starts_type rs;
  typename Crs::column_indices_type col;
  typename Crs::values_type val;
  Mag d;
  double theta;
  Strength s;
  bool fill;
  KOKKOS_INLINE_FUNCTION bool strong(std::int64_t i, std::int64_t e, float& m) const {
    const auto j = col(e);
    return static_cast<std::int64_t>(j) != i &&
           amg_strong(static_cast<double>(val(e)), d(i), d(j), theta, m);
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, std::int64_t i) const {
    using O = typename decltype(s.row_starts)::value_type;
    const std::int64_t b = static_cast<std::int64_t>(rs(i));
    const std::int64_t len = static_cast<std::int64_t>(rs(i + 1)) - b;
    if (!fill) {
      O c = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, len),
          [&](std::int64_t e, O& t) {
            float m = 0;
            t += strong(i, b + e, m) ? 1 : 0;
          },
          c);
      Kokkos::single(Kokkos::PerThread(team), [&] { s.row_starts(i + 1) = c; });
      return;
    }
    const O first = s.row_starts(i);
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, len),
                          [&](std::int64_t e, O& before, bool final) {
                            float m = 0;
                            const bool st = strong(i, b + e, m);
                            if (final && st) {
                              s.columns(first + before) = col(b + e);
                              s.measure(first + before) = m;
                            }
                            before += st ? 1 : 0;
                          });
  }
};

/// Exclusive scan of counts stored at (i + 1) into row starts; counts rows with none.
template <class Starts>
struct AmgScanCounts {
  Starts s;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool final) const {
    const std::int64_t c = static_cast<std::int64_t>(s(i + 1));
    sum += c;
    if (final) s(i + 1) = static_cast<typename Starts::value_type>(sum);
  }
};

template <class Starts>
struct AmgCountEmpty {
  Starts s;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& n) const {
    n += s(i + 1) == s(i) ? 1 : 0;
  }
};

/// Builds the strength graph of A with threshold θ on exec. Synchronous.
template <class Crs>
AmgStrength<typename Crs::offset_type, typename Crs::ordinal_type, typename Crs::device_type>
amg_strength(typename Crs::execution_space const& exec, Crs const& A, double theta) {
  using Device = typename Crs::device_type;
  using Offset = typename Crs::offset_type;
  using Ordinal = typename Crs::ordinal_type;
  using Mag = Kokkos::View<double*, Device>;
  using Result = AmgStrength<Offset, Ordinal, Device>;
  using Range = Kokkos::RangePolicy<typename Crs::execution_space, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t n = A.num_rows();
  Result s;
  Mag d = allocate_view<Mag>(exec, "SpMVKit::amg::diagonal_magnitude", n);
  s.row_starts =
      allocate_view<decltype(s.row_starts)>(exec, "SpMVKit::amg::strength_row_starts", n + 1);
  Kokkos::deep_copy(exec, Kokkos::subview(s.row_starts, 0), Offset(0));
  const std::int64_t a_nnz = A.nnz();
  amg_for_rows(exec, "SpMVKit::amg::diagonal_magnitude", n, a_nnz,
               AmgDiagonalMagnitude<Crs, Mag>{A.row_starts(), A.column_indices(), A.values(), d});
  amg_for_rows(exec, "SpMVKit::amg::strength_count", n, a_nnz,
               AmgStrongRows<Crs, Mag, Result>{A.row_starts(), A.column_indices(), A.values(), d,
                                               theta, s, false});
  std::int64_t nnz = 0;
  Kokkos::parallel_scan("SpMVKit::amg::strength_scan", Range(exec, 0, n),
                        AmgScanCounts<decltype(s.row_starts)>{s.row_starts}, nnz);
  Kokkos::parallel_reduce("SpMVKit::amg::strength_isolated", Range(exec, 0, n),
                          AmgCountEmpty<decltype(s.row_starts)>{s.row_starts}, s.isolated);
  exec.fence();
  s.columns = allocate_view<decltype(s.columns)>(exec, "SpMVKit::amg::strength_columns", nnz);
  s.measure = allocate_view<decltype(s.measure)>(exec, "SpMVKit::amg::strength_measure", nnz);
  amg_for_rows(exec, "SpMVKit::amg::strength_fill", n, a_nnz,
               AmgStrongRows<Crs, Mag, Result>{A.row_starts(), A.column_indices(), A.values(), d,
                                               theta, s, true});
  return s;
}

// MIS-2 keys: state in the top two bits (0 out, 1 undecided, 2 in the set),
// a 20-bit hash of the row, then the row (42 bits): the largest key wins.
inline constexpr int amg_state_shift = 62;
inline constexpr int amg_hash_shift = 42;
inline constexpr std::uint64_t amg_index_mask = (std::uint64_t(1) << amg_hash_shift) - 1;

KOKKOS_INLINE_FUNCTION std::uint64_t amg_key(std::uint64_t state, std::int64_t i) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(i + 1);
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  return (state << amg_state_shift) | ((h & 0xFFFFFull) << amg_hash_shift) |
         static_cast<std::uint64_t>(i);
}

template <class Keys, class Starts>
struct AmgMisInit {
  Keys key;
  Starts s;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    key(i) = amg_key(s(i + 1) > s(i) ? 1 : 0, i); // isolated rows are out from the start
  }
};

/// out(i) = the largest of in(i) and in(j) over i's strong neighbours; where
/// `undecided_only` holds keys, only for the rows still undecided there (the
/// second hop: AmgMisDecide reads no other row's, and most rows are decided
/// after the first rounds).
template <class Keys, class Strength>
struct AmgMisPropagate {
  Keys in, out;
  Strength s;
  Keys undecided_only = {};
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, std::int64_t i) const {
    if (undecided_only.data() != nullptr && (undecided_only(i) >> amg_state_shift) != 1) return;
    std::uint64_t m = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, s.row_starts(i), s.row_starts(i + 1)),
        [&](auto e, std::uint64_t& t) {
          const std::uint64_t k = in(s.columns(e));
          t = k > t ? k : t;
        },
        Kokkos::Max<std::uint64_t>(m));
    Kokkos::single(Kokkos::PerThread(team), [&] {
      const std::uint64_t own = in(i);
      out(i) = own > m ? own : m;
    });
  }
};

/// An undecided row joins the set when it holds the largest key within
/// distance 2, and leaves when a member of the set is within distance 2.
template <class Keys>
struct AmgMisDecide {
  Keys key, t2;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& undecided) const {
    const std::uint64_t k = key(i);
    if ((k >> amg_state_shift) != 1) return;
    const std::uint64_t w = t2(i);
    if ((w & amg_index_mask) == static_cast<std::uint64_t>(i)) {
      key(i) = amg_key(2, i);
    } else if ((w >> amg_state_shift) == 2) {
      key(i) = amg_key(0, i);
    } else {
      ++undecided;
    }
  }
};

/// Aggregate numbers of the roots (rows in the set), in row order.
template <class Keys, class Agg>
struct AmgNumberRoots {
  Keys key;
  Agg agg;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool final) const {
    const bool root = (key(i) >> amg_state_shift) == 2;
    if (final) agg(i) = root ? static_cast<typename Agg::value_type>(sum) : -1;
    sum += root ? 1 : 0;
  }
};

inline constexpr int amg_isolated = -2;

/// Pass 1: a row next to a root joins the root's aggregate (the smallest
/// aggregate where it neighbours several, which only a nonsymmetric strength
/// graph allows); isolated rows are marked.
template <class Agg, class Strength>
struct AmgJoinRoots {
  Agg root_agg, agg;
  Strength s;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, std::int64_t i) const {
    using A = typename Agg::value_type;
    constexpr A none = Kokkos::reduction_identity<A>::min();
    A best = none;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, s.row_starts(i), s.row_starts(i + 1)),
        [&](auto e, A& t) {
          const A a = root_agg(s.columns(e));
          if (a >= 0 && a < t) t = a;
        },
        Kokkos::Min<A>(best));
    Kokkos::single(Kokkos::PerThread(team), [&] {
      if (root_agg(i) >= 0) {
        agg(i) = root_agg(i);
      } else if (s.row_starts(i + 1) == s.row_starts(i)) {
        agg(i) = A(amg_isolated);
      } else {
        agg(i) = best == none ? A(-1) : best;
      }
    });
  }
};

/// Pass 2: a row still without an aggregate joins the one of its most
/// strongly connected aggregated neighbour (ties: the smaller aggregate).
template <class Agg, class Strength>
struct AmgJoinNeighbours {
  Agg in, out;
  Strength s;
  template <class Member>
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(Member const& team, std::int64_t i) const {
    using A = typename Agg::value_type;
    const A own = in(i);
    constexpr A none = Kokkos::reduction_identity<A>::min();
    float top = -1;
    A best = none;
    if (own == -1) {
      const auto b = s.row_starts(i), e1 = s.row_starts(i + 1);
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, b, e1),
          [&](auto e, float& t) {
            if (in(s.columns(e)) >= 0 && s.measure(e) > t) t = s.measure(e);
          },
          Kokkos::Max<float>(top));
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, b, e1),
          [&](auto e, A& t) {
            const A a = in(s.columns(e));
            if (a >= 0 && s.measure(e) == top && a < t) t = a;
          },
          Kokkos::Min<A>(best));
    }
    const A chosen = own != -1 ? own : best == none ? A(-1) : best;
    Kokkos::single(Kokkos::PerThread(team), [&] { out(i) = chosen; });
    return chosen < 0 && own == -1 ? 1 : 0;
  }
};

/// Pass 3: rows no pass reached (a nonsymmetric strength graph) become
/// aggregates of their own, numbered after the others in row order.
template <class Agg>
struct AmgNumberLeftovers {
  Agg agg;
  std::int64_t first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool final) const {
    const bool left = agg(i) == -1;
    if (final && left) agg(i) = static_cast<typename Agg::value_type>(first + sum);
    sum += left ? 1 : 0;
  }
};

/// Aggregates of a strength graph: agg(i) in [0, count) or amg_isolated.
template <class Agg>
struct AmgAggregates {
  Agg agg;
  std::int64_t count = 0;
  std::int64_t isolated = 0;
  int mis_rounds = 0;
};

/// MIS-2 aggregation of the strength graph s of n rows. Synchronous.
template <class ExecutionSpace, class Ordinal, class Strength>
AmgAggregates<Kokkos::View<Ordinal*, typename Strength::device_type>>
amg_aggregate(ExecutionSpace const& exec, Strength const& s, std::int64_t n) {
  using Device = typename Strength::device_type;
  using Agg = Kokkos::View<Ordinal*, Device>;
  using Keys = Kokkos::View<std::uint64_t*, Device>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const Range range(exec, 0, n);
  AmgAggregates<Agg> r;
  r.isolated = s.isolated;
  const std::int64_t snnz = static_cast<std::int64_t>(s.columns.extent(0));
  {
    Keys key = allocate_view<Keys>(exec, "SpMVKit::amg::mis_keys", n);
    Keys t1 = allocate_view<Keys>(exec, "SpMVKit::amg::mis_t1", n);
    Keys t2 = allocate_view<Keys>(exec, "SpMVKit::amg::mis_t2", n);
    Kokkos::parallel_for("SpMVKit::amg::mis_init", range,
                         AmgMisInit<Keys, decltype(s.row_starts)>{key, s.row_starts});
    std::int64_t undecided = n;
    // Each round decides at least the undecided row with the largest key.
    while (undecided > 0) {
      amg_for_rows(exec, "SpMVKit::amg::mis_propagate", n, snnz,
                   AmgMisPropagate<Keys, Strength>{key, t1, s});
      amg_for_rows(exec, "SpMVKit::amg::mis_propagate", n, snnz,
                   AmgMisPropagate<Keys, Strength>{t1, t2, s, key});
      undecided = 0;
      Kokkos::parallel_reduce("SpMVKit::amg::mis_decide", range, AmgMisDecide<Keys>{key, t2},
                              undecided);
      ++r.mis_rounds;
    }
    Agg roots = allocate_view<Agg>(exec, "SpMVKit::amg::roots", n);
    std::int64_t count = 0;
    Kokkos::parallel_scan("SpMVKit::amg::number_roots", range,
                          AmgNumberRoots<Keys, Agg>{key, roots}, count);
    r.count = count;
    r.agg = allocate_view<Agg>(exec, "SpMVKit::amg::aggregates", n);
    amg_for_rows(exec, "SpMVKit::amg::join_roots", n, snnz,
                 AmgJoinRoots<Agg, Strength>{roots, r.agg, s});
    Agg other = roots; // reused as the second buffer of pass 2
    std::int64_t left = 0, before = n + 1;
    for (;;) {
      left = amg_count_rows(exec, "SpMVKit::amg::join_neighbours", n, snnz,
                            AmgJoinNeighbours<Agg, Strength>{r.agg, other, s});
      std::swap(r.agg, other);
      exec.fence();
      if (left == 0 || left >= before) break;
      before = left;
    }
    if (left > 0) {
      std::int64_t extra = 0;
      Kokkos::parallel_scan("SpMVKit::amg::number_leftovers", range,
                            AmgNumberLeftovers<Agg>{r.agg, r.count}, extra);
      r.count += extra;
    }
  }
  exec.fence();
  return r;
}

} // namespace spmvkit::detail

#endif
