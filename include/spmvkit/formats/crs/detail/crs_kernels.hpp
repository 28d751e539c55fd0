// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CRS_DETAIL_CRS_KERNELS_HPP
#define SPMVKIT_FORMATS_CRS_DETAIL_CRS_KERNELS_HPP

// Kernels of the CRS format: SpMV (every variant), structure check, diagonal.
// Templated on the matrix type, so this header does not need crs_matrix.hpp.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/formats/crs/detail/merge_path.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace spmvkit::detail {

/// The row source (core/format_concept.hpp) of a CRS matrix's arrays: the
/// route every conversion from CRS takes.
template <class Scalar, class Ordinal, class Offset, class Device>
struct CrsRowSource {
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> cols;
  Kokkos::View<const Scalar*, Device> vals;
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    return static_cast<Ordinal>(row_starts(row + 1) - row_starts(row));
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    for (Offset k = row_starts(row); k < row_starts(row + 1); ++k) f(cols(k), vals(k));
  }
};

template <class Crs>
CrsRowSource<typename Crs::value_type, typename Crs::ordinal_type, typename Crs::offset_type,
             typename Crs::device_type>
crs_row_source(Crs const& A) {
  return {A.row_starts(), A.column_indices(), A.values()};
}

/// lengths(row) = source.length(row).
template <class Source, class Lengths>
struct SourceRowLengths {
  Source source;
  Lengths lengths;
  KOKKOS_INLINE_FUNCTION void operator()(typename Source::ordinal_type row) const {
    lengths(row) = source.length(row);
  }
};

/// The source's entry count, summed in 64 bits.
template <class Source>
struct SourceNnz {
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(typename Source::ordinal_type row,
                                         std::int64_t& sum) const {
    sum += source.length(row);
  }
};

/// Exclusive scan of the source's row lengths into row_starts (n + 1 entries).
template <class Source, class Starts>
struct SourceRowStarts {
  using Offset = typename Starts::non_const_value_type;
  Source source;
  Starts starts;
  typename Source::ordinal_type num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(typename Source::ordinal_type row, Offset& partial,
                                         bool final) const {
    if (final) starts(row) = partial;
    partial += static_cast<Offset>(source.length(row));
    if (final && row + 1 == num_rows) starts(row + 1) = partial;
  }
};

/// Writes each row of the source into CRS arrays at its row start.
template <class Source, class Starts, class Cols, class Vals>
struct FillCrsFromSource {
  Source source;
  Starts starts;
  Cols cols;
  Vals vals;
  KOKKOS_INLINE_FUNCTION void operator()(typename Source::ordinal_type row) const {
    auto slot = starts(row);
    source.for_each_entry(
        row, [&](typename Source::ordinal_type col, typename Source::value_type value) {
          cols(slot) = col;
          vals(slot) = value;
          ++slot;
        });
  }
};

/// The first row whose row starts decrease or leave [0, nnz].
template <class Offset, class Device>
struct CrsRowStartsCheck {
  Kokkos::View<const Offset*, Device> row_starts;
  std::int64_t nnz;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, std::int64_t& first_bad) const {
    const std::int64_t begin = row_starts(row), end = row_starts(row + 1);
    if ((end < begin || begin < 0 || end > nnz) && row < first_bad) first_bad = row;
  }
};

/// The first entry whose column lies outside [0, num_cols): one entry a
/// thread, so that a power-law row is not one thread's walk.
template <class Ordinal, class Device>
struct CrsColumnsCheck {
  Kokkos::View<const Ordinal*, Device> cols;
  Ordinal num_cols;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k, std::int64_t& first_bad) const {
    const Ordinal c = cols(k);
    if ((c < 0 || c >= num_cols) && k < first_bad) first_bad = k;
  }
};

/// The row holding entry `entry` of monotone row starts.
template <class Offset, class Device>
struct CrsRowOfEntry {
  Kokkos::View<const Offset*, Device> row_starts;
  std::int64_t entry;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, std::int64_t& found) const {
    if (row_starts(row) <= entry && entry < row_starts(row + 1) && row < found) found = row;
  }
};

/// Sums the entries of row `row` whose column is `row` (duplicates add up, as
/// they do in SpMV); rows without a stored diagonal get 0.
template <class RowMap, class Entries, class Values, class Diag>
struct CrsDiagonal {
  RowMap row_map;
  Entries entries;
  Values values;
  Diag diag;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    double d = 0;
    for (auto k = row_map(row); k < row_map(row + 1); ++k)
      if (static_cast<std::int64_t>(entries(k)) == row) d += static_cast<double>(values(k));
    diag(row) = static_cast<typename Diag::value_type>(d);
  }
};

/// The first row of block `block` of `blocks` with rows split into equal shares of weighted
/// rows plus entries (balanced_first_unit with host_row_weight per row).
template <class Starts>
KOKKOS_INLINE_FUNCTION std::int64_t balanced_first_row(Starts const& starts, std::int64_t num_rows,
                                                       std::int64_t block, std::int64_t blocks) {
  return balanced_first_unit(starts, num_rows, block, blocks, host_row_weight);
}

/// A row's sum on a host in four interleaved partial sums, combined as (s0 + s1) + (s2 + s3) and
/// then the last entries: four chains of adds rather than one, so the row loop no longer waits on
/// each add (docs/notes/2026-12-04-host-crs-four-lanes.md). Deterministic, but not the order
/// of a plain loop.
template <class Sum, class Offset, class Values, class Cols, class X>
KOKKOS_FORCEINLINE_FUNCTION Sum four_lane_row_sum(Offset begin, Offset end, Values const& v,
                                                  Cols const& c, X const& x) {
  Sum s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  Offset k = begin;
  for (; end - k >= 4; k += 4) { // not k + 4 <= end, which could overflow Offset
    s0 += widened_product<Sum>(v(k), x(c(k)));
    s1 += widened_product<Sum>(v(k + 1), x(c(k + 1)));
    s2 += widened_product<Sum>(v(k + 2), x(c(k + 2)));
    s3 += widened_product<Sum>(v(k + 3), x(c(k + 3)));
  }
  Sum sum = (s0 + s1) + (s2 + s3);
  for (; k < end; ++k) sum += widened_product<Sum>(v(k), x(c(k)));
  return sum;
}

/// Whether the vector kernel's host shape sums rows of Sum in four partial sums: in double. In
/// float GCC already vectorises the plain loop's products, and the four sums were slower
/// (docs/notes/2026-12-04-host-crs-four-lanes.md).
template <class Sum>
inline constexpr bool host_four_lanes_v = std::is_same_v<Sum, double>;

/// CRS SpMV, both variants of the founding study (sums in Acc, the wider of
/// the matrix's and the vectors' value types: core/detail/kernel_common.hpp):
/// - Vector = false, one row per thread: on a GPU neighbouring threads read
///   different rows, so loads are not coalesced; on the host this is the
///   natural row loop.
/// - Vector = true, one row per group of vector lanes: lanes read consecutive
///   entries of a row (coalesced on a GPU) and combine them with a lane
///   reduction.
/// On host backends both run the host shape, a plain loop over the block's rows; a row is summed
/// in order by the row kernel and, in double, in four interleaved partial sums (four_lane_row_sum,
/// the host's lanes) by the vector kernel; for rank-1 sums in double spmv_crs replaces it by the
/// row kernel where rows are not alike (host_rows_alike). A rank-2 product (any number of columns)
/// carries one chain per column already, so both sum its rows in order.
template <bool Vector, class Matrix, class X, class Y>
struct CrsSpmv {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>;
  using Sum = spmv_sum_t<Acc, Y>; // Lanes<Acc, K> for a block of K columns
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;

  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> row_starts;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> cols;
  Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> vals;
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_rows;
  std::int64_t rows_per_team;
  /// Host static launches: this many blocks of equal weighted rows plus entries
  /// (balanced_first_row) rather than of rows_per_team rows, so a stretch of hub rows is not one
  /// thread's alone.
  std::int64_t balanced_blocks = 0;
  /// Host: how the rows' entries are prefetched (host_row_prefetch).
  HostRowPrefetch prefetch = HostRowPrefetch::none;

  static constexpr bool host_shape = true;
  template <HostRowPrefetch M>
  using prefetch_mode = std::integral_constant<HostRowPrefetch, M>;

  /// Host shape (launch_parameters.hpp's HostBlock): the block's rows in a plain loop.
  KOKKOS_INLINE_FUNCTION void operator()(HostBlock block) const {
    with_beta_known(alpha, beta, [&](Acc a, Acc b, auto zero) {
      with_blocks_known(x, [&](auto blocked) {
        // One row loop per prefetch mode, so that a mode's code is not in the others' loops: the
        // cursor's test per row cost road graphs' short rows
        // (docs/notes/2026-12-07-host-crs-short-row-prefetch.md).
        switch (prefetch) {
        case HostRowPrefetch::lines:
          host_rows(block.index, a, b, zero, blocked, prefetch_mode<HostRowPrefetch::lines>());
          break;
        case HostRowPrefetch::row_end:
          host_rows(block.index, a, b, zero, blocked, prefetch_mode<HostRowPrefetch::row_end>());
          break;
        case HostRowPrefetch::none:
          host_rows(block.index, a, b, zero, blocked, prefetch_mode<HostRowPrefetch::none>());
          break;
        }
      });
    });
  }

  /// The rows [first, last) of host block `block`.
  KOKKOS_INLINE_FUNCTION Kokkos::pair<std::int64_t, std::int64_t>
  block_rows(std::int64_t block) const {
    if (balanced_blocks > 0) {
      return {balanced_first_row(row_starts, num_rows, block, balanced_blocks),
              balanced_first_row(row_starts, num_rows, block + 1, balanced_blocks)};
    }
    const std::int64_t first = block * rows_per_team;
    return {first, first + rows_per_team < num_rows ? first + rows_per_team : num_rows};
  }

  template <class BetaZero, class Blocked, class Prefetch>
  KOKKOS_INLINE_FUNCTION void host_rows(std::int64_t block, Acc a, Acc b, BetaZero zero, Blocked,
                                        Prefetch) const {
    const auto starts = row_starts;
    const auto c = cols;
    const auto v = vals;
    const auto rows = block_rows(block);
    const std::int64_t first = rows.first, last = rows.second;
    const int blocks = Blocked::value ? column_blocks(x) : 1;
    constexpr bool cursor = Prefetch::value == HostRowPrefetch::lines;
    HostPrefetchCursor<Scalar> ahead_v(v.data() + starts(first), cursor);
    HostPrefetchCursor<Ordinal> ahead_c(c.data() + starts(first), cursor);
    for (std::int64_t row = first; row < last; ++row) {
      const Offset begin = starts(row);
      const Offset end = starts(row + 1);
      if constexpr (cursor) {
        ahead_v.through(v.data() + end);
        ahead_c.through(c.data() + end);
      } else if constexpr (Prefetch::value == HostRowPrefetch::row_end) {
        host_prefetch_past(v.data() + end);
        host_prefetch_past(c.data() + end);
      }
      // Several blocks of columns: the row's entries come from L1 for every block after the
      // first, and x's and y's rows are read whole.
      for (int cb = 0; cb < blocks; ++cb) {
        const auto xb = host_columns(column_block_at(x, cb));
        Sum sum = 0;
        if constexpr (Vector && !is_multi_vector_v<Y> && host_four_lanes_v<Sum>) {
          sum = four_lane_row_sum<Sum>(begin, end, v, c, xb);
        } else {
          for (Offset k = begin; k < end; ++k) sum += widened_product<Sum>(v(k), xb(c(k)));
        }
        store_row(column_block_at(y, cb), row, a, b, sum, zero);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t first = team.league_rank() * rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](std::int64_t r) {
      const std::int64_t row = first + r;
      if (row >= num_rows) return;
      const Offset begin = row_starts(row);
      const Offset end = row_starts(row + 1);
      Sum sum = 0;
      if constexpr (Vector) {
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, end - begin),
            [&](Offset k, Sum& partial) {
              partial += widened_product<Sum>(vals(begin + k), x(cols(begin + k)));
            },
            sum);
        Kokkos::single(Kokkos::PerThread(team), [&]() { store_row(y, row, alpha, beta, sum); });
      } else {
        for (Offset k = begin; k < end; ++k) sum += widened_product<Sum>(vals(k), x(cols(k)));
        store_row(y, row, alpha, beta, sum);
      }
    });
  }
};

/// The row kernel (Vector: crs_vector) of a launch p: a host static launch's blocks (one per
/// thread) take equal shares of weighted rows plus entries.
template <class ExecutionSpace, bool Vector, class Matrix, class X, class Y>
CrsSpmv<Vector, Matrix, X, Y>
crs_row_kernel(LaunchParameters const& p, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
               X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  const std::int64_t balanced =
      is_host_space_v<ExecutionSpace> && p.static_schedule ? p.league_size : 0;
  HostRowPrefetch prefetch = HostRowPrefetch::none;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    if (p.host_prefetch) { // the statistics are computed once per matrix and kept
      // The wider stream decides: float values with 64-bit column indices fill a line of
      // indices in half the entries.
      constexpr std::size_t entry_bytes =
          std::max(sizeof(typename Matrix::value_type), sizeof(typename Matrix::ordinal_type));
      prefetch = host_row_prefetch(true, static_cast<std::int64_t>(A.nnz()),
                                   static_cast<std::int64_t>(A.num_rows()),
                                   static_cast<std::int64_t>(entry_bytes),
                                   A.statistics(ExecutionSpace()).hub_mass, host_cpu_vendor());
    }
  }
  return {A.row_starts(), A.column_indices(), A.values(),      x,        y,       alpha,
          beta,           A.num_rows(),       p.work_per_team, balanced, prefetch};
}

/// The balanced CRS kernel (merge_path.hpp) over the matrix's kept tile plan.
template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_crs_balanced(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
                       X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  const auto plan = A.analysis().plan(exec, A.row_starts(), A.num_rows(), A.nnz());
  spmv_merge_path(exec, merge_path_parameters<ExecutionSpace>(A.num_rows(), A.nnz()), plan,
                  CsrRowEnds<Ordinal, Offset, Device>{A.row_starts()}, A.column_indices(),
                  A.values(), Kokkos::View<const Ordinal*, Device>(), A.num_rows(), x, y, alpha,
                  beta, "SpMVKit::spmv::crs_balanced");
}

template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_crs(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
              X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y, CrsKernel kernel) {
  // The statistics are computed by the first product that reads them and kept.
  if (kernel == CrsKernel::automatic) kernel = automatic_crs_kernel(exec, A.statistics(exec));
  if constexpr (is_host_space_v<ExecutionSpace> &&
                host_four_lanes_v<spmv_sum_t<spmv_scalar_t<Matrix, Y>, Y>>) {
    // Four partial sums only where rows are alike; elsewhere the row loop (host_rows_alike).
    if (kernel == CrsKernel::vector && !host_rows_alike(A.statistics(exec))) {
      kernel = CrsKernel::row_per_thread;
    }
  }
  // Only the host shapes walk several blocks of columns (walks_column_blocks).
  if (column_blocks(x) > 1 && !is_host_space_v<ExecutionSpace>) {
    for_each_block(x, y, [&](auto const& xb, auto const& yb) {
      spmv_crs(exec, alpha, A, xb, beta, yb, kernel);
    });
    return;
  }
  if (kernel == CrsKernel::balanced) {
    spmv_crs_balanced(exec, alpha, A, x, beta, y); // a block of columns per tile
    return;
  }
  const auto kind =
      kernel == CrsKernel::vector ? KernelKind::crs_vector : KernelKind::crs_row_per_thread;
  const LaunchParameters p = crs_rows_launch_parameters(exec, kind, A.num_rows(), A.nnz(),
                                                        [&] { return A.statistics(exec); });
  auto launch = [&](char const* label, auto vector) {
    const auto k = crs_row_kernel<ExecutionSpace, decltype(vector)::value>(p, alpha, A, x, beta, y);
    static_assert(has_host_shape<decltype(k)>::value,
                  "CrsSpmv: the host shape must be taken on hosts");
    parallel_for_teams(label, exec, p, k);
  };
  if (kernel == CrsKernel::vector) {
    launch("SpMVKit::spmv::crs_vector", std::true_type{});
  } else {
    launch("SpMVKit::spmv::crs_row_per_thread", std::false_type{});
  }
}

} // namespace spmvkit::detail

#endif
