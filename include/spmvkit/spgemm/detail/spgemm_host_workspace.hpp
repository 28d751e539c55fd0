// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_HOST_WORKSPACE_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_HOST_WORKSPACE_HPP

/// \file
/// Host backends' symbolic phase in a dense workspace of num_cols marks per
/// thread: row lengths, then columns (and positions) in one pass.

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

/// A launch of the host symbolic phase's workspace kernel (SpgemmWorkspaceRows)
/// over every row of A: the count pass (Fill false) or the fill pass, which
/// also finds the product positions when they are allocated (`pos`).
template <bool Fill, class Pos, class Crs, class Ws>
void spgemm_launch_workspace(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                             LaunchParameters const& p, Ws const& marks, Ws const& buffer,
                             typename Crs::row_starts_type const& c_rs,
                             typename Crs::column_indices_type const& c_ci, bool sort,
                             Kokkos::View<std::int64_t*, typename Crs::device_type> const& starts,
                             Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  // Compiled for host execution spaces only: the kernel's operator is host code (std::sort),
  // and the phase never chooses the workspace elsewhere.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    using F = SpgemmWorkspaceRows<typename Crs::ordinal_type, typename Crs::offset_type,
                                  typename Crs::device_type, Pos, Fill>;
    if (A.num_rows() == 0) return;
    F f;
    f.a_rs = A.row_starts();
    f.a_ci = A.column_indices();
    f.b_rs = B.row_starts();
    f.b_ci = B.column_indices();
    f.num_rows = A.num_rows();
    f.rows_per_team = p.work_per_team;
    f.num_cols = B.num_cols();
    f.c_rs = c_rs;
    f.c_ci = c_ci;
    f.marks = marks;
    f.buffer = buffer;
    f.token = Kokkos::Experimental::UniqueToken<ExecutionSpace>(exec);
    f.sort = sort;
    f.find = pos.extent(0) > 0;
    f.scan_ratio = spgemm_workspace_scan_ratio;
    f.rank_sort_max = spgemm_workspace_rank_sort_max;
    f.none = std::numeric_limits<typename Crs::ordinal_type>::max();
    f.starts = starts;
    f.pos = pos;
    Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(
        exec, static_cast<int>(p.league_size), p.team_size, p.vector_length);
    Kokkos::parallel_for(
        Fill ? "SpMVKit::spgemm::fill_workspace" : "SpMVKit::spgemm::count_workspace", policy, f);
  } else {
    (void)exec, (void)A, (void)B, (void)p, (void)marks, (void)buffer, (void)c_rs, (void)c_ci;
    (void)sort, (void)starts, (void)pos;
  }
}

} // namespace spmvkit::detail

#endif
