// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_DETAIL_AMG_TRANSFER_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_DETAIL_AMG_TRANSFER_HPP

/// \file
/// AMG set-up, second half: the tentative prolongator (a QR factorisation of
/// the near-nullspace on every aggregate), its Jacobi smoothing, the
/// restriction as an explicit transpose with the map that refreshes its
/// values, and the dense inverse of the coarsest operator.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/transpose.hpp>
#include <spmvkit/solvers/preconditioners/detail/amg_aggregation.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit::detail {

/// The rows of each aggregate, in increasing order: rows of aggregate a are
/// members(starts(a) .. starts(a + 1) - 1).
template <class Device>
struct AmgMembers {
  Kokkos::View<std::int64_t*, Device> starts;
  Kokkos::View<std::int64_t*, Device> rows;
};

template <class Agg, class Starts>
struct AmgCountMembers {
  Agg agg;
  Starts count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    if (agg(i) >= 0)
      Kokkos::atomic_add(&count(static_cast<std::int64_t>(agg(i)) + 1),
                         typename Starts::non_const_value_type(1));
  }
};

template <class Agg, class Starts>
struct AmgPlaceMembers {
  Agg agg;
  Starts cursor, rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    if (agg(i) < 0) return;
    rows(Kokkos::atomic_fetch_add(&cursor(static_cast<std::int64_t>(agg(i))), std::int64_t(1))) = i;
  }
};

/// Sorts each aggregate's rows (the atomics placed them in any order):
/// aggregates are small, an insertion sort per aggregate suffices.
template <class Starts>
struct AmgSortMembers {
  Starts starts, rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t a) const {
    for (auto p = starts(a) + 1; p < starts(a + 1); ++p) {
      const std::int64_t v = rows(p);
      auto q = p;
      for (; q > starts(a) && rows(q - 1) > v; --q) rows(q) = rows(q - 1);
      rows(q) = v;
    }
  }
};

template <class Starts>
struct AmgInclusiveScan {
  Starts s;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool final) const {
    sum += s(i + 1);
    if (final) s(i + 1) = sum;
  }
};

/// The rows of every aggregate, sorted. Synchronous.
template <class ExecutionSpace, class Agg>
AmgMembers<typename Agg::device_type> amg_members(ExecutionSpace const& exec, Agg const& agg,
                                                  std::int64_t count) {
  using Device = typename Agg::device_type;
  using Starts = Kokkos::View<std::int64_t*, Device>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t n = static_cast<std::int64_t>(agg.extent(0));
  AmgMembers<Device> m;
  m.starts = Starts(Kokkos::view_alloc(exec, "SpMVKit::amg::member_starts"), count + 1);
  Kokkos::parallel_for("SpMVKit::amg::count_members", Range(exec, 0, n),
                       AmgCountMembers<Agg, Starts>{agg, m.starts});
  std::int64_t total = 0;
  Kokkos::parallel_scan("SpMVKit::amg::member_scan", Range(exec, 0, count),
                        AmgInclusiveScan<Starts>{m.starts}, total);
  m.rows = allocate_view<Starts>(exec, "SpMVKit::amg::members", total);
  Starts cursor = allocate_view<Starts>(exec, "SpMVKit::amg::member_cursor", count);
  Kokkos::deep_copy(exec, cursor,
                    Kokkos::subview(m.starts, Kokkos::make_pair(std::int64_t(0), count)));
  Kokkos::parallel_for("SpMVKit::amg::place_members", Range(exec, 0, n),
                       AmgPlaceMembers<Agg, Starts>{agg, cursor, m.rows});
  Kokkos::parallel_for("SpMVKit::amg::sort_members", Range(exec, 0, count),
                       AmgSortMembers<Starts>{m.starts, m.rows});
  exec.fence();
  return m;
}

/// Row starts of the tentative prolongator: k entries per aggregated row.
template <class Agg, class RowStarts>
struct AmgTentativeStarts {
  Agg agg;
  RowStarts rs;
  int k;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool final) const {
    if (i == 0 && final) rs(0) = 0;
    sum += agg(i) >= 0 ? k : 0;
    if (final) rs(i + 1) = static_cast<typename RowStarts::value_type>(sum);
  }
};

template <class Agg, class Crs>
struct AmgTentativeColumns {
  Agg agg;
  typename Crs::row_starts_type rs;
  typename Crs::column_indices_type col;
  int k;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    if (agg(i) < 0) return;
    for (int c = 0; c < k; ++c)
      col(rs(i) + c) = static_cast<typename Crs::ordinal_type>(agg(i)) * k + c;
  }
};

/// Modified Gram-Schmidt of the near-nullspace B (n x k, column-major) on the
/// rows of aggregate a, a thread per aggregate: Q into the tentative
/// prolongator's row entries, R into the coarse near-nullspace Bc (nc k x k,
/// column-major). A column that is dependent on the previous ones within the
/// aggregate (norm below tolerance times its own) becomes zero and is counted.
template <class Crs, class Starts, class Vec>
struct AmgQr {
  Starts mstart, mem;
  typename Crs::row_starts_type rs;
  typename Crs::values_type q;
  Vec B, Bc;
  int k;
  std::int64_t n, nck;
  double tolerance;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t a, std::int64_t& dependent) const {
    using S = typename Crs::value_type;
    const std::int64_t first = mstart(a), last = mstart(a + 1);
    for (int c = 0; c < k; ++c) {
      double norm0 = 0;
      for (auto m = first; m < last; ++m) {
        const std::int64_t i = mem(m);
        const double v = static_cast<double>(B(c * n + i));
        q(rs(i) + c) = static_cast<S>(v);
        norm0 += v * v;
      }
      for (int p = 0; p < c; ++p) {
        double r = 0;
        for (auto m = first; m < last; ++m) {
          const auto e = rs(mem(m));
          r += static_cast<double>(q(e + p)) * static_cast<double>(q(e + c));
        }
        for (auto m = first; m < last; ++m) {
          const auto e = rs(mem(m));
          q(e + c) =
              static_cast<S>(static_cast<double>(q(e + c)) - r * static_cast<double>(q(e + p)));
        }
        Bc(c * nck + a * k + p) = static_cast<S>(r);
      }
      double norm = 0;
      for (auto m = first; m < last; ++m) {
        const double v = static_cast<double>(q(rs(mem(m)) + c));
        norm += v * v;
      }
      norm = device_sqrt(norm);
      const bool ok = norm > 0 && norm > tolerance * device_sqrt(norm0);
      for (auto m = first; m < last; ++m) {
        const auto e = rs(mem(m)) + c;
        q(e) = ok ? static_cast<S>(static_cast<double>(q(e)) / norm) : S(0);
      }
      Bc(c * nck + a * k + c) = ok ? static_cast<S>(norm) : S(0);
      for (int r = c + 1; r < k; ++r) Bc(c * nck + a * k + r) = S(0);
      dependent += ok ? 0 : 1;
    }
  }
};

/// The tentative prolongator (n x count k) and the coarse near-nullspace.
template <class Crs>
struct AmgTentative {
  Crs P;
  typename Crs::values_type Bc; ///< count k x k, column-major
  std::int64_t dependent = 0;   ///< columns dropped as dependent
};

/// Q R of B on every aggregate. Synchronous.
template <class Crs, class Agg>
AmgTentative<Crs> amg_tentative(typename Crs::execution_space const& exec, Agg const& agg,
                                std::int64_t count,
                                AmgMembers<typename Crs::device_type> const& members,
                                typename Crs::values_type const& B, int k) {
  using Exec = typename Crs::execution_space;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  using S = typename Crs::value_type;
  const std::int64_t n = static_cast<std::int64_t>(agg.extent(0));
  const std::int64_t nck = count * k;
  const std::int64_t nnz = static_cast<std::int64_t>(members.rows.extent(0)) * k;
  AmgTentative<Crs> t;
  t.P = Crs("amg_tentative", n, nck, nnz, exec);
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "SpMVKit::amg::tentative_row_starts", Range(exec, 0, n),
      AmgTentativeStarts<Agg, typename Crs::row_starts_type>{agg, t.P.row_starts(), k}, total);
  Kokkos::parallel_for(
      "SpMVKit::amg::tentative_columns", Range(exec, 0, n),
      AmgTentativeColumns<Agg, Crs>{agg, t.P.row_starts(), t.P.column_indices(), k});
  t.Bc = allocate_view<typename Crs::values_type>(exec, "SpMVKit::amg::coarse_near_nullspace",
                                                  nck * k);
  const double tolerance = sizeof(S) < sizeof(double) ? 1e-5 : 1e-10;
  Kokkos::parallel_reduce("SpMVKit::amg::tentative_qr", Range(exec, 0, count),
                          AmgQr<Crs, decltype(members.rows), typename Crs::values_type>{
                              members.starts, members.rows, t.P.row_starts(), t.P.values(), B, t.Bc,
                              k, n, nck, tolerance},
                          t.dependent);
  exec.fence();
  t.P.trust_structure();
  return t;
}

/// P = P_tent − ω D⁻¹ (A P_tent), on the pattern of A P_tent (which holds
/// P_tent's where every aggregated row has its diagonal entry).
template <class Crs, class Agg, class Vec>
struct AmgSmoothProlongator {
  typename Crs::row_starts_type ap_rs;
  typename Crs::column_indices_type ap_col;
  typename Crs::values_type ap_val, p_val;
  typename Crs::row_starts_type t_rs;
  typename Crs::values_type t_val;
  Agg agg;
  Vec dinv;
  double omega;
  int k;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using S = typename Crs::value_type;
    const double s = omega * static_cast<double>(dinv(i));
    const std::int64_t first = agg(i) >= 0 ? static_cast<std::int64_t>(agg(i)) * k : -1;
    for (auto e = ap_rs(i); e < ap_rs(i + 1); ++e) {
      double v = -s * static_cast<double>(ap_val(e));
      const std::int64_t j = ap_col(e);
      if (first >= 0 && j >= first && j < first + k)
        v += static_cast<double>(t_val(t_rs(i) + (j - first)));
      p_val(e) = static_cast<S>(v);
    }
  }
};

/// Rows of A at least this long (with the row's own aggregate, longer than the
/// scratch) cannot take the gather kernels below, which compare every pair of
/// a row's aggregates staged in scratch. On GPUs a row takes 32 vector lanes
/// (27-point rows fill a warp).
inline constexpr std::int64_t amg_gather_row_cap = 128;

/// P = P_tent − ω D⁻¹ A P_tent without spgemm: P_tent has k entries per
/// aggregated row (columns agg·k .. agg·k + k − 1), so row i of P holds, for
/// each distinct aggregate among i's own and its neighbours', k columns, and
/// its values are sums of A's entries grouped by aggregate. mode count: the
/// row's length into p_rs(i + 1); columns: the sorted columns; values: the
/// values (set-up and refresh), each slot summing its entries in row order
/// (deterministic).
template <class Crs, class Agg, class Vec>
struct AmgGatherProlongator {
  enum Mode { count, columns, values };
  using Exec = typename Crs::execution_space;
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  using O = typename Crs::ordinal_type;
  using Scratch = Kokkos::View<O*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  typename Crs::row_starts_type a_rs;
  typename Crs::column_indices_type a_col;
  typename Crs::values_type a_val;
  Agg agg;
  typename Crs::row_starts_type p_rs;
  typename Crs::column_indices_type p_col;
  typename Crs::values_type p_val;
  typename Crs::row_starts_type t_rs;
  typename Crs::values_type t_val;
  Vec dinv;
  double omega = 0;
  std::int64_t n = 0, rows_per_team = 1;
  int k = 1;
  Mode mode = count;

  using Products =
      Kokkos::View<double*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  static std::size_t scratch_bytes() {
    return 2 * Scratch::shmem_size(amg_gather_row_cap + 1) +
           Products::shmem_size(amg_gather_row_cap + 1);
  }

  // Whether entry e holds the first occurrence of its aggregate in the row.
  KOKKOS_INLINE_FUNCTION static bool first_of(Scratch const& s, std::int64_t e) {
    const O a = s(e);
    if (a < 0) return false;
    for (std::int64_t f = 0; f < e; ++f)
      if (s(f) == a) return false;
    return true;
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    using S = typename Crs::value_type;
    const Scratch s(team.thread_scratch(0), amg_gather_row_cap + 1);
    const Scratch u(team.thread_scratch(0), amg_gather_row_cap + 1);
    const Products w(team.thread_scratch(0), amg_gather_row_cap + 1);
    amg_team_rows(team, n, rows_per_team, [&](std::int64_t i) {
      const std::int64_t b = a_rs(i), len = a_rs(i + 1) - b;
      // The row's aggregates, then its own (P_tent's entry of row i).
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len + 1),
                           [&](std::int64_t e) { s(e) = e < len ? agg(a_col(b + e)) : agg(i); });
      if (mode == count) {
        std::int64_t d = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, len + 1),
            [&](std::int64_t e, std::int64_t& c) { c += first_of(s, e) ? 1 : 0; }, d);
        Kokkos::single(Kokkos::PerThread(team),
                       [&] { p_rs(i + 1) = static_cast<typename Crs::offset_type>(d * k); });
      } else if (mode == columns) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len + 1),
                             [&](std::int64_t e) { u(e) = first_of(s, e) ? s(e) : O(-1); });
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len + 1), [&](std::int64_t e) {
          const O a = u(e);
          if (a < 0) return;
          std::int64_t rank = 0;
          for (std::int64_t f = 0; f <= len; ++f) rank += u(f) >= 0 && u(f) < a ? 1 : 0;
          for (int c = 0; c < k; ++c)
            p_col(p_rs(i) + rank * k + c) = static_cast<O>(static_cast<std::int64_t>(a) * k + c);
        });
      } else {
        const std::int64_t slots = (p_rs(i + 1) - p_rs(i)) / k;
        const double si = omega * static_cast<double>(dinv(i));
        for (int c = 0; c < k; ++c) {
          // The products a_ij t_jc over the lanes first (the gathers of t in
          // parallel), then each slot sums its aggregate's in row order.
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len), [&](std::int64_t e) {
            w(e) = s(e) < 0 ? 0.0
                            : static_cast<double>(a_val(b + e)) *
                                  static_cast<double>(t_val(t_rs(a_col(b + e)) + c));
          });
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, slots), [&](std::int64_t q) {
            const auto pe = p_rs(i) + q * k;
            const O a = static_cast<O>(static_cast<std::int64_t>(p_col(pe)) / k);
            double sum = 0;
            for (std::int64_t e = 0; e < len; ++e)
              if (s(e) == a) sum += w(e);
            const double own = s(len) == a ? static_cast<double>(t_val(t_rs(i) + c)) : 0.0;
            p_val(pe + c) = static_cast<S>(own - si * sum);
          });
        }
      }
    });
  }
};

template <class Crs>
struct AmgLongestRow {
  typename Crs::row_starts_type rs;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& m) const {
    const std::int64_t len = static_cast<std::int64_t>(rs(i + 1) - rs(i));
    if (len > m) m = len;
  }
};

/// The length of A's longest row. Synchronous.
template <class Crs>
std::int64_t amg_longest_row(typename Crs::execution_space const& exec, Crs const& A) {
  using Range = Kokkos::RangePolicy<typename Crs::execution_space, Kokkos::IndexType<std::int64_t>>;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce("SpMVKit::amg::longest_row", Range(exec, 0, A.num_rows()),
                          AmgLongestRow<Crs>{A.row_starts()}, Kokkos::Max<std::int64_t>(longest));
  exec.fence();
  return longest;
}

template <class Crs, class Agg, class Vec>
void amg_gather_run(typename Crs::execution_space const& exec,
                    AmgGatherProlongator<Crs, Agg, Vec> f, char const* label) {
  using Exec = typename Crs::execution_space;
  const LaunchParameters lp = amg_row_launch<Exec>(f.n, 32);
  f.rows_per_team = lp.work_per_team;
  Kokkos::TeamPolicy<Exec> policy(exec, lp.league_size, lp.team_size, lp.vector_length);
  policy.set_scratch_size(0, Kokkos::PerThread(f.scratch_bytes()));
  Kokkos::parallel_for(label, policy, f);
}

/// The gather kernel's fields shared by its three modes (P's row starts: the
/// count mode's output).
template <class Vec, class Crs, class Agg>
AmgGatherProlongator<Crs, Agg, Vec> amg_gather_functor(Crs const& A, Agg const& agg, int k,
                                                       typename Crs::row_starts_type const& p_rs) {
  AmgGatherProlongator<Crs, Agg, Vec> f;
  f.a_rs = A.row_starts();
  f.a_col = A.column_indices();
  f.a_val = A.values();
  f.agg = agg;
  f.p_rs = p_rs;
  f.n = A.num_rows();
  f.k = k;
  return f;
}

/// Row starts of P (A P_tent's pattern with each row's own aggregate) into
/// starts (n + 1); returns the number of entries, which the caller
/// checks against Offset and the memory limit before amg_gather_pattern().
template <class Crs, class Agg>
std::int64_t amg_gather_count(typename Crs::execution_space const& exec, Crs const& A,
                              Agg const& agg, int k, typename Crs::row_starts_type const& starts) {
  using Range = Kokkos::RangePolicy<typename Crs::execution_space, Kokkos::IndexType<std::int64_t>>;
  auto f = amg_gather_functor<typename Crs::values_type>(A, agg, k, starts);
  f.mode = decltype(f)::count;
  Kokkos::deep_copy(exec, Kokkos::subview(starts, 0), typename Crs::offset_type(0));
  amg_gather_run(exec, f, "SpMVKit::amg::prolongator_count");
  std::int64_t total = 0;
  Kokkos::parallel_scan("SpMVKit::amg::prolongator_row_starts", Range(exec, 0, A.num_rows()),
                        AmgScanCounts<typename Crs::row_starts_type>{starts}, total);
  exec.fence();
  return total;
}

/// P's sorted columns (its row starts from amg_gather_count()). Synchronous.
template <class Crs, class Agg>
void amg_gather_pattern(typename Crs::execution_space const& exec, Crs const& A, Agg const& agg,
                        int k, Crs const& P) {
  auto f = amg_gather_functor<typename Crs::values_type>(A, agg, k, P.row_starts());
  f.p_col = P.column_indices();
  f.mode = decltype(f)::columns;
  amg_gather_run(exec, f, "SpMVKit::amg::prolongator_columns");
  exec.fence();
}

/// P's values = P_tent − omega D⁻¹ A P_tent on the pattern of
/// amg_gather_pattern(). Asynchronous.
template <class Crs, class Agg, class Vec>
void amg_gather_values(typename Crs::execution_space const& exec, Crs const& A, Agg const& agg,
                       Crs const& Pt, Vec const& dinv, double omega, int k, Crs const& P) {
  auto f = amg_gather_functor<Vec>(A, agg, k, P.row_starts());
  f.p_col = P.column_indices();
  f.p_val = P.values();
  f.t_rs = Pt.row_starts();
  f.t_val = Pt.values();
  f.dinv = dinv;
  f.omega = omega;
  f.mode = decltype(f)::values;
  amg_gather_run(exec, f, "SpMVKit::amg::prolongator_values");
}

template <class Vals, class Map>
struct AmgGather {
  Vals src, dst;
  Map map;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    dst(e) = src(static_cast<std::int64_t>(map(e)));
  }
};

template <class Vals>
struct AmgIota {
  Vals v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    v(e) = static_cast<typename Vals::value_type>(e);
  }
};

/// R = Pᵀ and, for each entry of R, the entry of P it copies (kept so that a
/// refresh copies values instead of transposing again).
template <class Crs>
struct AmgRestriction {
  Crs R;
  Kokkos::View<double*, typename Crs::device_type> map;
};

/// Pᵀ through transpose() of P's pattern carrying entry numbers (exact in
/// double up to 2⁵³ entries). Synchronous.
template <class Crs>
AmgRestriction<Crs> amg_restriction(typename Crs::execution_space const& exec, Crs const& P) {
  using Exec = typename Crs::execution_space;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  using Index = CrsMatrix<double, Exec, typename Crs::ordinal_type, typename Crs::offset_type>;
  const std::int64_t nnz = P.nnz();
  auto iota = allocate_view<typename Index::values_type>(exec, "SpMVKit::amg::entry_numbers", nnz);
  Kokkos::parallel_for("SpMVKit::amg::entry_numbers", Range(exec, 0, nnz),
                       AmgIota<decltype(iota)>{iota});
  Index numbered(P.num_rows(), P.num_cols(), P.row_starts(), P.column_indices(), iota);
  numbered.trust_structure();
  const Index T = transpose(exec, numbered);
  AmgRestriction<Crs> r;
  r.map = T.values();
  r.R =
      Crs(T.num_rows(), T.num_cols(), T.row_starts(), T.column_indices(),
          allocate_view<typename Crs::values_type>(exec, "SpMVKit::amg::restriction_values", nnz));
  Kokkos::parallel_for(
      "SpMVKit::amg::restriction_values", Range(exec, 0, nnz),
      AmgGather<typename Crs::values_type, decltype(r.map)>{P.values(), r.R.values(), r.map});
  exec.fence();
  r.R.trust_structure();
  return r;
}

/// The inverse of the dense n x n matrix A (row-major, in place) by
/// Gauss-Jordan elimination with partial pivoting. Rows and columns that are
/// entirely zero (coarse unknowns of dropped near-nullspace columns) are
/// left out: their rows and columns of the inverse are zero. Throws
/// std::invalid_argument naming `what` and the pivot where A is singular.
/// Before the elimination: zero[i] for the unknowns whose row and column are entirely zero, whose
/// diagonal becomes 1 (they are zeroed again at the end); returns the largest |a_ij|.
inline double amg_dense_prepare(std::vector<double>& a, std::int64_t n, std::vector<char>& zero) {
  zero.assign(static_cast<std::size_t>(n), 1);
  double scale = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double v = std::abs(a[i * n + j]);
      if (v != 0) zero[i] = zero[j] = 0;
      scale = v > scale ? v : scale;
    }
  for (std::int64_t i = 0; i < n; ++i)
    if (zero[i]) a[i * n + i] = 1;
  return scale;
}

inline void amg_dense_inverse(std::vector<double>& a, std::int64_t n, std::string const& what) {
  std::vector<char> zero;
  const double scale = amg_dense_prepare(a, n, zero);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  const double tiny = scale * 1e-14 * static_cast<double>(n > 0 ? n : 1);
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t i = c + 1; i < n; ++i)
      if (std::abs(a[i * n + c]) > std::abs(a[p * n + c])) p = i;
    const double pivot = a[p * n + c];
    if (!(std::abs(pivot) > tiny) || !std::isfinite(pivot)) {
      throw std::invalid_argument(what + " is singular or not finite: pivot " + std::to_string(c) +
                                  " of " + std::to_string(n) + " is " + std::to_string(pivot) +
                                  " (largest entry " + std::to_string(scale) + ")");
    }
    perm[c] = p;
    if (p != c)
      for (std::int64_t j = 0; j < n; ++j) std::swap(a[p * n + j], a[c * n + j]);
    // Gauss-Jordan in place: column c becomes column c of the inverse.
    double* rc = &a[c * n];
    const double inv = 1 / pivot;
    rc[c] = 1;
    for (std::int64_t j = 0; j < n; ++j) rc[j] *= inv;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == c) continue;
      double* ri = &a[i * n];
      const double f = ri[c];
      if (f == 0) continue;
      ri[c] = 0;
      for (std::int64_t j = 0; j < n; ++j) ri[j] -= f * rc[j];
    }
  }
  // Undo the row swaps as column swaps, in reverse.
  for (std::int64_t c = n - 1; c >= 0; --c) {
    const std::int64_t p = perm[c];
    if (p == c) continue;
    for (std::int64_t i = 0; i < n; ++i) std::swap(a[i * n + p], a[i * n + c]);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    if (!zero[i]) continue;
    for (std::int64_t j = 0; j < n; ++j) a[i * n + j] = a[j * n + i] = 0;
  }
}

/// A CRS matrix of at most a few thousand rows as a dense row-major n x n array on the host,
/// duplicates summed.
template <class Crs>
std::vector<double> amg_dense_on_host(Crs const& A) {
  const std::int64_t n = A.num_rows();
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto col = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  std::vector<double> a(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (auto e = rs(i); e < rs(i + 1); ++e) a[i * n + col(e)] += static_cast<double>(val(e));
  return a;
}

/// Columns of one panel of the device Gauss-Jordan (amg_coarse_inverse_on_device): the panel's
/// pivot steps run in one team, and three more launches (gather, swaps, update) serve the whole
/// panel, so that n rows take 4 ceil(n / 32) launches instead of 2 n.
inline constexpr std::int64_t amg_jordan_panel = 32;

/// Step c's pivot row p recorded in perm; a pivot that is not finite or not above `tiny` recorded
/// in failed (column, value) the first time (one thread of the panel's team).
template <class Perm, class Failed>
KOKKOS_INLINE_FUNCTION void amg_jordan_record(Perm const& perm, Failed const& failed,
                                              std::int64_t c, std::int64_t p, double pivot,
                                              double tiny) {
  perm(c) = p;
  const double m = pivot < 0 ? -pivot : pivot;
  if ((!(m > tiny) || !(m - m == 0)) && failed(0) < 0) { // m - m: NaN for Inf and NaN
    failed(0) = static_cast<double>(c);
    failed(1) = pivot;
  }
}

/// Step c's pivot row from the column's diagonal entry and the first row `first` (> c) holding
/// the largest magnitude `largest` below: the host loop's choice (a NaN diagonal stays, and a
/// row is taken only where it is strictly larger).
KOKKOS_INLINE_FUNCTION std::int64_t amg_jordan_pivot(double diagonal, double largest,
                                                     std::int64_t first, std::int64_t c,
                                                     std::int64_t n) {
  const double kept = diagonal < 0 ? -diagonal : diagonal;
  const bool below = (first > c) && (first < n) && (largest > kept);
  return (diagonal == diagonal && below) ? first : c;
}

/// Gauss-Jordan on the device, the pivot steps of the columns [c0, c0 + w) of one panel, as one
/// team, on the panel's copy pc (column-major, pc(s n + i) = a(i, c0 + s), so that a step's
/// reads of one column are contiguous); AmgJordanUpdate applies the steps to the other columns.
/// Step c: the pivot p (the first largest |a(i, c)|, i >= c, as the host's loop picks it: a NaN
/// a(c, c) stays, a later NaN never wins) recorded in perm(c); the new row c is old row p / pivot
/// (its entry c becoming 1 / pivot); every other row i, row p holding old row c, loses f_i times
/// it, f_i its old entry c (which becomes -f_i / pivot). Rows c and p are staged in `rows` (2 w
/// entries) first, so that no thread reads a row another one writes; a thread takes a whole row,
/// so that it reads f_i before it writes a(i, c). A pivot that is not finite or not above `tiny`
/// is recorded in failed (column, value) the first time.
template <class Device>
struct AmgJordanPanel {
  Kokkos::View<double*, Device> pc, rows, failed;
  Kokkos::View<std::int64_t*, Device> perm;
  std::int64_t n = 0, c0 = 0, w = 0;
  double tiny = 0;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& t) const {
    for (std::int64_t c = c0; c < c0 + w; ++c) {
      const std::int64_t s = c - c0;
      const double* col = pc.data() + s * n;
      // The largest |a(i, c)|, then the first row holding it: MaxLoc's join keeps either of two
      // equal values, so on a tie it could pick another row than the host's loop.
      double largest = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(t, c, n),
          [&](std::int64_t i, double& v) {
            const double x = col[i] < 0 ? -col[i] : col[i];
            if (x > v) v = x;
          },
          Kokkos::Max<double>(largest));
      std::int64_t first = n;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(t, c, n),
          [&](std::int64_t i, std::int64_t& v) {
            const double x = col[i] < 0 ? -col[i] : col[i];
            if (x == largest && i < v) v = i;
          },
          Kokkos::Min<std::int64_t>(first));
      const std::int64_t p = amg_jordan_pivot(col[c], largest, first, c, n);
      const double pivot = col[p];
      // Old row p's panel entries in rows(0 .. w), old row c's in rows(w .. 2 w).
      Kokkos::parallel_for(Kokkos::TeamVectorRange(t, 2 * w), [&](std::int64_t e) {
        const std::int64_t r = e < w ? p : c;
        rows(e) = pc((e < w ? e : e - w) * n + r);
      });
      t.team_barrier();
      const double inv = 1 / pivot;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n), [&](std::int64_t i) {
        // Row i's old entries: row c's for i == p (the swap), its own otherwise.
        const std::int64_t from = i == p && p != c ? w : -1;
        const double f = i == c ? 0.0 : (from >= 0 ? rows(from + s) : pc(s * n + i));
        for (std::int64_t j = 0; j < w; ++j) {
          const double pivot_row = (j == s ? 1.0 : rows(j)) * inv;
          const double old = j == s ? 0.0 : (from >= 0 ? rows(from + j) : pc(j * n + i));
          pc(j * n + i) = i == c ? pivot_row : old - f * pivot_row;
        }
      });
      Kokkos::single(Kokkos::PerTeam(t),
                     [&] { amg_jordan_record(perm, failed, c, p, pivot, tiny); });
      t.team_barrier();
    }
  }
};

/// AmgJordanPanel with the panel in registers: thread r of a team of T holds rows r, r + T, ...
/// (R of them, W entries each) from the first step to the last, so that a step moves no panel
/// entry through memory; only the candidates of the pivot search and rows c and p pass through
/// team scratch. Same steps, pivots and failures as AmgJordanPanel; needs n <= R T and w <= W.
/// (AmgJordanPanel streams n w entries through one multiprocessor per step, a cost that grows
/// with n: docs/notes/2026-12-03-amg-device-inverse-coarse-size.md.)
template <class Device, int W, int R>
struct AmgJordanPanelRegisters {
  using Scratch = Kokkos::View<double*, typename Device::execution_space::scratch_memory_space,
                               Kokkos::MemoryUnmanaged>;
  using IndexScratch =
      Kokkos::View<std::int64_t*, typename Device::execution_space::scratch_memory_space,
                   Kokkos::MemoryUnmanaged>;
  Kokkos::View<double*, Device> pc, failed;
  Kokkos::View<std::int64_t*, Device> perm;
  std::int64_t n = 0, c0 = 0, w = 0;
  double tiny = 0;
  static std::size_t scratch_bytes(int team) {
    return Scratch::shmem_size(static_cast<std::size_t>(2 * W + team)) +
           IndexScratch::shmem_size(static_cast<std::size_t>(team));
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& t) const {
    const std::int64_t T = t.team_size(), me = t.team_rank();
    // Rows c and p (2 W), then each thread's candidate value and row (T each).
    const Scratch rows(t.team_scratch(0), static_cast<std::size_t>(2 * W + T));
    const IndexScratch where(t.team_scratch(0), static_cast<std::size_t>(T));
    double* const crow = rows.data();
    double* const prow = rows.data() + W;
    double* const best = rows.data() + 2 * W;
    double v[R][W];
    for (int k = 0; k < R; ++k) {
      const std::int64_t i = me + k * T;
      for (int j = 0; j < W; ++j) v[k][j] = i < n && j < w ? pc(j * n + i) : 0.0;
    }
    for (std::int64_t s = 0; s < w; ++s) {
      const std::int64_t c = c0 + s;
      // Entry s of a held row, by compile-time indices (a runtime index would move v to memory).
      auto at = [&](int k) {
        double x = 0;
        for (int j = 0; j < W; ++j)
          if (j == s) x = v[k][j];
        return x;
      };
      // This thread's largest |a(i, c)|, i >= c (NaN never wins), and its first row holding it.
      double largest = 0;
      std::int64_t first = n;
      for (int k = 0; k < R; ++k) {
        const std::int64_t i = me + k * T;
        if (i < c || i >= n) continue;
        const double y = at(k);
        const double x = y < 0 ? -y : y;
        if (x > largest) {
          largest = x;
          first = i;
        } else if (x == largest && i < first) {
          first = i;
        }
        if (i == c) {
          for (int j = 0; j < W; ++j) crow[j] = v[k][j];
        }
      }
      best[me] = largest;
      where(me) = first;
      t.team_barrier();
      double top = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(t, T),
          [&](std::int64_t r, double& m) {
            if (best[r] > m) m = best[r];
          },
          Kokkos::Max<double>(top));
      std::int64_t row = n;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(t, T),
          [&](std::int64_t r, std::int64_t& m) {
            if (best[r] == top && where(r) < m) m = where(r);
          },
          Kokkos::Min<std::int64_t>(row));
      const std::int64_t p = amg_jordan_pivot(crow[s], top, row, c, n);
      if (p % T == me) {
        for (int k = 0; k < R; ++k)
          if (me + k * T == p)
            for (int j = 0; j < W; ++j) prow[j] = v[k][j];
      }
      t.team_barrier();
      const double pivot = prow[s];
      const double inv = 1 / pivot;
      for (int k = 0; k < R; ++k) {
        const std::int64_t i = me + k * T;
        if (i >= n) continue;
        // Row i's old entries: row c's for i == p (the swap), its own otherwise.
        const bool swapped = i == p && p != c;
        const double f = i == c ? 0.0 : (swapped ? crow[s] : at(k));
        for (int j = 0; j < W; ++j) {
          const double pivot_row = (j == s ? 1.0 : prow[j]) * inv;
          const double old = j == s ? 0.0 : (swapped ? crow[j] : v[k][j]);
          v[k][j] = i == c ? pivot_row : old - f * pivot_row;
        }
      }
      Kokkos::single(Kokkos::PerTeam(t),
                     [&] { amg_jordan_record(perm, failed, c, p, pivot, tiny); });
      t.team_barrier();
    }
    for (int k = 0; k < R; ++k) {
      const std::int64_t i = me + k * T;
      if (i >= n) continue;
      for (int j = 0; j < W; ++j)
        if (j < w) pc(j * n + i) = v[k][j];
    }
  }
};

/// The panel's columns of a copied into pc (AmgJordanPanel's layout), e = s n + i.
template <class Device>
struct AmgJordanGather {
  Kokkos::View<double*, Device> a, pc;
  std::int64_t n = 0, c0 = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    const std::int64_t s = e / n, i = e % n;
    pc(e) = a(i * n + c0 + s);
  }
};

/// For each column j outside the panel: the panel's row swaps in order, then the swapped pivot
/// rows c0 .. c0 + w - 1 copied into x (x(s n + j)), which AmgJordanUpdate reads while it
/// overwrites those rows. Consecutive j are consecutive entries of a row: coalesced.
template <class Device>
struct AmgJordanSwap {
  Kokkos::View<double*, Device> a, x;
  Kokkos::View<std::int64_t*, Device> perm;
  std::int64_t n = 0, c0 = 0, w = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t j) const {
    if (j >= c0 && j < c0 + w) return;
    for (std::int64_t c = c0; c < c0 + w; ++c) {
      const std::int64_t p = perm(c);
      if (p == c) continue;
      const double y = a(p * n + j);
      a(p * n + j) = a(c * n + j);
      a(c * n + j) = y;
    }
    for (std::int64_t s = 0; s < w; ++s) x(s * n + j) = a((c0 + s) * n + j);
  }
};

/// One panel's pivot steps applied to every entry e = i n + j: a panel column takes its value
/// from pc; elsewhere row c0 + r becomes sum_s pc(s, i) x_s(j) (the panel's block of the inverse
/// times the swapped pivot rows) and every other row i gains that sum. Each entry is read and
/// written by its own thread only (the pivot rows come from x), so any order gives one result.
template <class Device>
struct AmgJordanUpdate {
  Kokkos::View<double*, Device> a, pc, x;
  std::int64_t n = 0, c0 = 0, w = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    const std::int64_t i = e / n, j = e % n;
    if (j >= c0 && j < c0 + w) {
      a(e) = pc((j - c0) * n + i);
      return;
    }
    double sum = i >= c0 && i < c0 + w ? 0.0 : a(e);
    for (std::int64_t s = 0; s < w; ++s) sum += pc(s * n + i) * x(s * n + j);
    a(e) = sum;
  }
};

/// The inverse's entry e: column src(j) of the eliminated array (the row swaps undone as column
/// swaps), 0 in the rows and columns of zero ones.
template <class Device, class Out>
struct AmgJordanOut {
  Kokkos::View<double*, Device> a;
  Kokkos::View<std::int64_t*, Device> src;
  Kokkos::View<char*, Device> zero;
  Out out;
  std::int64_t n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    const std::int64_t i = e / n, j = e % n;
    out(e) = zero(i) || zero(j) ? typename Out::value_type(0)
                                : static_cast<typename Out::value_type>(a(i * n + src(j)));
  }
};

/// Which kernel takes a panel's pivot steps in amg_coarse_inverse_on_device: AmgJordanPanel
/// (panels of 32 columns in memory, any size) or AmgJordanPanelRegisters (panels of
/// amg_jordan_register_width columns in registers, up to amg_jordan_register_rows rows a thread
/// of one team; larger matrices take AmgJordanPanel). `automatic` (the default) takes the
/// register panel from amg_jordan_register_min_rows rows: it halves the pivot steps' time but
/// launches four times as many gathers, swaps and updates, which outweigh that on small matrices
/// (docs/notes/2026-12-03-amg-register-inverse-coarse-size.md).
enum class AmgJordanKind { memory, registers, automatic };
/// The automatic kind's crossover: on an H200 the memory panel was faster at 512 rows, as fast at
/// 729 and slower at 1000 (docs/notes/2026-12-03-distributed-amg-multivector.md).
inline constexpr std::int64_t amg_jordan_register_min_rows = 750;
inline constexpr int amg_jordan_register_width = 8;
/// GPUs: 4 rows of 8 entries a thread fit the registers of a team of 256 threads (1024 rows)
/// without spilling, 16 x 2 did not fit 512
/// (docs/notes/2026-12-03-amg-device-inverse-coarse-size.md); hosts: one thread (tests).
template <class ExecutionSpace>
inline constexpr int amg_jordan_register_rows = is_host_space_v<ExecutionSpace> ? 128 : 4;

/// The team of AmgJordanPanelRegisters for n rows: a thread per amg_jordan_register_rows rows
/// (GPUs: a multiple of 32 threads, within the largest team the kernel's registers allow; hosts:
/// one thread), or 0 where n rows do not fit one team (then the memory panel runs).
template <class Device>
int amg_jordan_register_team(typename Device::execution_space const& exec, std::int64_t n) {
  using Exec = typename Device::execution_space;
  constexpr int R = amg_jordan_register_rows<Exec>;
  using Registers = AmgJordanPanelRegisters<Device, amg_jordan_register_width, R>;
  if (is_host_space_v<Exec>) return n <= R ? 1 : 0;
  if (n > std::int64_t(R) * 1024) return 0;
  const int team = static_cast<int>(((n + R - 1) / R + 31) / 32 * 32);
  const int largest = Kokkos::TeamPolicy<Exec>(exec, 1, 1)
                          .set_scratch_size(0, Kokkos::PerTeam(Registers::scratch_bytes(team)))
                          .team_size_max(Registers{}, Kokkos::ParallelForTag());
  return team <= largest ? team : 0;
}

/// amg_dense_inverse() on the execution space, blocked: per panel of amg_jordan_panel columns
/// one team takes its pivot steps on a column-major copy, then the swaps and the update reach
/// the other columns a thread per column and per entry, and nothing goes to the host until the
/// end, since the host loop's n³ serial multiply-adds dominate a GPU set-up for large coarse
/// levels (docs/notes/2026-12-02-amg-h200-third-run.md; a team per tile of columns was slower:
/// docs/notes/2026-12-03-amg-device-inverse-coarse-size.md). Same pivots, results up to rounding
/// and the same errors. Synchronous.
template <class Crs>
typename Crs::values_type
amg_coarse_inverse_on_device(typename Crs::execution_space const& exec, Crs const& A,
                             std::string const& what,
                             AmgJordanKind kind = AmgJordanKind::automatic) {
  using Exec = typename Crs::execution_space;
  using Device = typename Crs::device_type;
  using Team = Kokkos::TeamPolicy<Exec>;
  const std::int64_t n = A.num_rows();
  std::vector<double> h = amg_dense_on_host(A);
  std::vector<char> zero;
  const double scale = amg_dense_prepare(h, n, zero);
  using Doubles = Kokkos::View<double*, Device>;
  using Indices = Kokkos::View<std::int64_t*, Device>;
  auto a = allocate_view<Doubles>(exec, "SpMVKit::amg::coarse_elimination", n * n);
  Kokkos::deep_copy(
      exec, a,
      Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), h.size()));
  auto perm = allocate_view<Indices>(exec, "SpMVKit::amg::coarse_pivots", n);
  auto failed = allocate_view<Doubles>(exec, "SpMVKit::amg::coarse_failed_pivot", 2);
  Kokkos::deep_copy(exec, failed, -1.0);
  constexpr int W = amg_jordan_register_width, R = amg_jordan_register_rows<Exec>;
  using Registers = AmgJordanPanelRegisters<Device, W, R>;
  const double tiny = scale * 1e-14 * static_cast<double>(n);
  if (kind == AmgJordanKind::automatic)
    kind = n >= amg_jordan_register_min_rows ? AmgJordanKind::registers : AmgJordanKind::memory;
  const int register_team =
      kind == AmgJordanKind::registers ? amg_jordan_register_team<Device>(exec, n) : 0;
  const bool registers = register_team > 0;
  const std::int64_t width = registers ? W : amg_jordan_panel;
  auto rows = allocate_view<Doubles>(exec, "SpMVKit::amg::coarse_pivot_rows", 2 * amg_jordan_panel);
  const std::int64_t wmax = std::min(width, n);
  auto pc = allocate_view<Doubles>(exec, "SpMVKit::amg::coarse_panel_columns", wmax * n);
  auto x = allocate_view<Doubles>(exec, "SpMVKit::amg::coarse_panel_rows", wmax * n);
  Registers in_registers{pc, failed, perm, n, 0, 0, tiny};
  AmgJordanPanel<Device> panel{pc, rows, failed, perm, n, 0, 0, tiny};
  AmgJordanGather<Device> gather{a, pc, n, 0};
  AmgJordanSwap<Device> swap{a, x, perm, n, 0, 0};
  AmgJordanUpdate<Device> update{a, pc, x, n, 0, 0};
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  // The panel's one team: a thread per row up to the largest team (GPUs); one thread on hosts.
  int team = 1;
  if (!is_host_space_v<Exec>) {
    team = Team(exec, 1, 1).team_size_max(panel, Kokkos::ParallelForTag());
    team = static_cast<int>(std::min<std::int64_t>(team, (n + 31) / 32 * 32));
  }
  for (std::int64_t c0 = 0; c0 < n; c0 += width) {
    const std::int64_t w = std::min(width, n - c0);
    panel.c0 = in_registers.c0 = gather.c0 = swap.c0 = update.c0 = c0;
    panel.w = in_registers.w = swap.w = update.w = w;
    Kokkos::parallel_for("SpMVKit::amg::coarse_panel_gather", Range(exec, 0, w * n), gather);
    if (registers) {
      Kokkos::parallel_for(
          "SpMVKit::amg::coarse_panel_registers",
          Team(exec, 1, register_team)
              .set_scratch_size(0, Kokkos::PerTeam(Registers::scratch_bytes(register_team))),
          in_registers);
    } else {
      Kokkos::parallel_for("SpMVKit::amg::coarse_panel", Team(exec, 1, team), panel);
    }
    if (w < n) Kokkos::parallel_for("SpMVKit::amg::coarse_swap", Range(exec, 0, n), swap);
    Kokkos::parallel_for("SpMVKit::amg::coarse_update", Range(exec, 0, n * n), update);
  }
  auto failed_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), failed);
  if (failed_h(0) >= 0) {
    throw std::invalid_argument(what + " is singular or not finite: pivot " +
                                std::to_string(static_cast<std::int64_t>(failed_h(0))) + " of " +
                                std::to_string(n) + " is " + std::to_string(failed_h(1)) +
                                " (largest entry " + std::to_string(scale) + ")");
  }
  // The row swaps undone as column swaps, in reverse: column j of the result is src[j].
  auto perm_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), perm);
  std::vector<std::int64_t> src(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) src[j] = j;
  for (std::int64_t c = n - 1; c >= 0; --c) std::swap(src[perm_h(c)], src[c]);
  auto src_d = allocate_view<Indices>(exec, "SpMVKit::amg::coarse_columns", n);
  Kokkos::deep_copy(exec, src_d,
                    Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        src.data(), src.size()));
  auto zero_d = allocate_view<Kokkos::View<char*, Device>>(exec, "SpMVKit::amg::coarse_zero", n);
  Kokkos::deep_copy(exec, zero_d,
                    Kokkos::View<const char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        zero.data(), zero.size()));
  auto inv = allocate_view<typename Crs::values_type>(exec, "SpMVKit::amg::coarse_inverse", n * n);
  Kokkos::parallel_for("SpMVKit::amg::coarse_inverse",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n * n),
                       AmgJordanOut<Device, typename Crs::values_type>{a, src_d, zero_d, inv, n});
  exec.fence();
  return inv;
}

/// Rows from which a GPU inverts the coarsest operator on the device (amg_coarse_inverse):
/// above the hosts' coarse size (300), where the host's n³ loop starts to weigh on the set-up.
inline constexpr std::int64_t amg_device_inverse_min_rows = 400;

/// The dense inverse of a CRS matrix (row-major, n²): on the host (amg_dense_inverse), or on
/// GPUs from amg_device_inverse_min_rows rows on the device. Synchronous.
template <class Crs>
typename Crs::values_type amg_coarse_inverse(typename Crs::execution_space const& exec,
                                             Crs const& A, std::string const& what) {
  const std::int64_t n = A.num_rows();
  if (!is_host_space_v<typename Crs::execution_space> && n >= amg_device_inverse_min_rows)
    return amg_coarse_inverse_on_device(exec, A, what);
  std::vector<double> a = amg_dense_on_host(A);
  amg_dense_inverse(a, n, what);
  auto inv = allocate_view<typename Crs::values_type>(exec, "SpMVKit::amg::coarse_inverse", n * n);
  auto h = Kokkos::create_mirror_view(inv);
  for (std::int64_t i = 0; i < n * n; ++i) h(i) = static_cast<typename Crs::value_type>(a[i]);
  Kokkos::deep_copy(exec, inv, h);
  exec.fence();
  return inv;
}

} // namespace spmvkit::detail

#endif
