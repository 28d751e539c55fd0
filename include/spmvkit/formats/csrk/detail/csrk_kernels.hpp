// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CSRK_DETAIL_CSRK_KERNELS_HPP
#define SPMVKIT_FORMATS_CSRK_DETAIL_CSRK_KERNELS_HPP

// Kernels of CSR-k: SpMV (host and GPU mappings) and diagonal.
// Templated on the matrix type, so this header does not need csrk_matrix.hpp.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/reorder/detail/permutation_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace spmvkit::detail {

/// How a CSR-k team spreads its rows (see CsrkSpmv).
enum class CsrkMapping { rows_in_order, lanes_over_rows, lanes_over_entries };

/// CSR-k SpMV. The stored rows are the user's rows in Band-k order with the
/// user's column numbers, so x is read directly and row i's result goes to
/// y(row_permutation(i)): no vector is permuted (see CsrkMatrix).
///
/// A team takes one super-super-row (CSR-3), or `sr_slots` consecutive
/// super-rows (CSR-2, which has no super-super-rows). Then:
/// - rows_in_order (host backends: one thread, one lane): the team's thread
///   walks its super-rows' rows in order, Listing 1's loop nest with the two
///   outer loops merged (the rows of consecutive super-rows are consecutive,
///   so one loop like CRS's does the same work with no inner loop restarts).
/// - GPUs: the team_size threads are sr_slots super-row slots of row_slots
///   threads each; slot z takes the team's super-rows z, z + sr_slots, ...
///   and its thread y the rows y, y + row_slots, ... of each. Vector lanes
///   take either those rows (lanes_over_rows), each lane summing its row
///   alone: the paper's GPUSpMV-3, for short rows; or the entries of one row
///   (lanes_over_entries), combined by a lane reduction: GPUSpMV-3.5, for
///   rows long enough to share.
/// The block shapes (lanes, row slots, super-row slots) come from
/// row_groups_shape() in launch_parameters.hpp.
template <CsrkMapping Mapping, bool Overwrite, class Matrix, class X, class Y>
struct CsrkSpmv {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>; // sums, alpha and beta (kernel_common.hpp)
  using Sum = spmv_sum_t<Acc, Y>;       // Lanes<Acc, K> for a block of K columns
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> row_starts;
  ro_view<Ordinal> cols;
  ro_view<Scalar> vals;
  ro_view<Ordinal> row_permutation;  // stored row -> the user's row
  ro_view<Ordinal> super_rows;       // row pointer of the super-rows
  ro_view<Ordinal> super_super_rows; // super-row pointer; empty for CSR-2
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_super_rows;
  int sr_slots;
  int row_slots;
  bool prefetch = false; ///< host: prefetch the rows' entries ahead (host_prefetch_worthwhile)

  // y(row_permutation(row)) = beta y(...) + alpha sum. Overwrite (beta = 0)
  // is a template argument so that the beta = 0 loop never reads y (which
  // may hold NaN) and holds no branch.
  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t row, Sum const& sum) const {
    using V = typename Y::value_type;
    const std::int64_t out = row_permutation(row);
    if constexpr (is_multi_vector_v<Y>) {
      store_row(y, out, alpha, Overwrite ? Acc(0) : beta, sum);
    } else if constexpr (Overwrite) {
      y(out) = static_cast<V>(alpha * sum);
    } else {
      y(out) = static_cast<V>(beta * y(out) + alpha * sum);
    }
  }

  // One row, summed by one thread (or lane).
  KOKKOS_FORCEINLINE_FUNCTION void row_product(std::int64_t row) const {
    const Offset begin = row_starts(row), end = row_starts(row + 1);
    Sum sum = 0;
    for (Offset k = begin; k < end; ++k)
      sum +=
          widened_product<Sum>(load_streaming(vals.data() + k), x(load_streaming(cols.data() + k)));
    store(row, sum);
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const Ordinal group = static_cast<Ordinal>(team.league_rank());
    Ordinal sr_begin, sr_end;
    if (super_super_rows.extent(0) != 0) {
      sr_begin = super_super_rows(group);
      sr_end = super_super_rows(group + 1);
    } else {
      sr_begin = group * sr_slots;
      sr_end = sr_begin + sr_slots < num_super_rows ? sr_begin + sr_slots : num_super_rows;
    }
    if constexpr (Mapping == CsrkMapping::rows_in_order) {
      const std::int64_t first_row = super_rows(sr_begin);
      // Host teams are one thread: the rows in order, their entries prefetched ahead.
      HostPrefetchCursor<Scalar> ahead_v(vals.data() + row_starts(first_row), prefetch);
      HostPrefetchCursor<Ordinal> ahead_c(cols.data() + row_starts(first_row), prefetch);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, super_rows(sr_end) - first_row),
                           [&](std::int64_t r) {
                             ahead_v.through(vals.data() + row_starts(first_row + r + 1));
                             ahead_c.through(cols.data() + row_starts(first_row + r + 1));
                             row_product(first_row + r);
                           });
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, sr_slots * row_slots), [&](int t) {
        const int z = t / row_slots, slot = t % row_slots;
        for (Ordinal sr = sr_begin + z; sr < sr_end; sr += sr_slots) {
          const std::int64_t first_row = super_rows(sr), last_row = super_rows(sr + 1);
          if constexpr (Mapping == CsrkMapping::lanes_over_entries) {
            for (std::int64_t row = first_row + slot; row < last_row; row += row_slots) {
              const Offset begin = row_starts(row), end = row_starts(row + 1);
              Sum sum = 0;
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, end - begin),
                  [&](Offset k, Sum& partial) {
                    partial += widened_product<Sum>(load_streaming(vals.data() + begin + k),
                                                    x(load_streaming(cols.data() + begin + k)));
                  },
                  sum);
              Kokkos::single(Kokkos::PerThread(team), [&]() { store(row, sum); });
            }
          } else {
            // Rows first_row + slot + j * row_slots, one per lane.
            const std::int64_t mine =
                last_row - first_row > slot
                    ? (last_row - first_row - slot + row_slots - 1) / row_slots
                    : 0;
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, mine), [&](std::int64_t j) {
              row_product(first_row + slot + j * row_slots);
            });
          }
        }
      });
    }
  }
};

template <CsrkMapping Mapping, bool Overwrite, class ExecutionSpace, class Matrix, class X, class Y>
void launch_csrk(ExecutionSpace const& exec, RowGroupsShape const& shape, std::int64_t league,
                 spmv_scalar_t<Matrix, Y> alpha, Matrix const& A, X const& x,
                 spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  Kokkos::parallel_for(
      Mapping == CsrkMapping::lanes_over_entries ? "SpMVKit::Csrk::spmv_lanes_over_entries"
      : Mapping == CsrkMapping::lanes_over_rows  ? "SpMVKit::Csrk::spmv_lanes_over_rows"
                                                 : "SpMVKit::Csrk::spmv",
      Policy(exec, league, shape.team_size(), shape.lanes),
      CsrkSpmv<Mapping, Overwrite, Matrix, X, Y>{
          A.row_starts(), A.column_indices(), A.values(), A.row_permutation(), A.super_rows(),
          A.super_super_rows(), x, y, alpha, beta,
          static_cast<typename Matrix::ordinal_type>(A.num_super_rows()), shape.super_row_slots,
          shape.row_slots,
          is_host_space_v<ExecutionSpace> && host_prefetch_worthwhile(A.nnz(), A.num_rows())});
}

/// y = beta y + alpha A x for a CSR-k matrix A with the given mapping and
/// block shape (on host backends a team holds at most the backend's team
/// size). spmv_csrk() picks the mapping; the tests call this directly to run
/// the GPU mappings on host backends too.
template <CsrkMapping Mapping, class ExecutionSpace, class Matrix, class X, class Y>
void spmv_csrk_mapped(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
                      X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y,
                      RowGroupsShape const& shape) {
  // One super-super-row per team (CSR-3), or super_row_slots super-rows (CSR-2).
  const std::int64_t league =
      A.k() == 3 ? A.num_super_super_rows()
                 : (A.num_super_rows() + shape.super_row_slots - 1) / shape.super_row_slots;
  if (league == 0) return;
  if (beta == spmv_scalar_t<Matrix, Y>(0)) {
    launch_csrk<Mapping, true>(exec, shape, league, alpha, A, x, beta, y);
  } else {
    launch_csrk<Mapping, false>(exec, shape, league, alpha, A, x, beta, y);
  }
}

/// y = beta y + alpha A x for a CSR-k matrix A, with the block shape of
/// `shape` (row_groups_shape(); only GPUs use more than one thread per team).
template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_csrk(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
               X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y, RowGroupsShape const& shape) {
  // Host backends (one thread, one lane) instantiate the row loop alone.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    spmv_csrk_mapped<CsrkMapping::rows_in_order>(exec, alpha, A, x, beta, y, shape);
  } else if (shape.lanes_over_entries) {
    spmv_csrk_mapped<CsrkMapping::lanes_over_entries>(exec, alpha, A, x, beta, y, shape);
  } else {
    spmv_csrk_mapped<CsrkMapping::lanes_over_rows>(exec, alpha, A, x, beta, y, shape);
  }
}

/// d(row_permutation(i)) = the entries of stored row i in that column.
template <class Matrix, class Diag>
struct CsrkDiagonal {
  using Ordinal = typename Matrix::ordinal_type;
  typename Matrix::row_starts_type row_starts;
  typename Matrix::ordinals_type cols;
  typename Matrix::values_type vals;
  typename Matrix::ordinals_type row_permutation;
  Diag diag;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row) const {
    const Ordinal original = row_permutation(row);
    double d = 0;
    for (auto k = row_starts(row); k < row_starts(row + 1); ++k)
      if (cols(k) == original) d += static_cast<double>(vals(k));
    diag(original) = static_cast<typename Diag::value_type>(d);
  }
};

} // namespace spmvkit::detail

#endif
