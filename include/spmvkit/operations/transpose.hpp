// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_TRANSPOSE_HPP
#define SPMVKIT_OPERATIONS_TRANSPOSE_HPP

/// \file
/// transpose(): the explicit transpose of a CrsMatrix, CRS to CRS on the
/// device, in a deterministic order (each row of Aᵀ lists A's rows in
/// increasing order, duplicates in A's storage order).
#include <spmvkit/formats/coo/detail/coo_kernels.hpp> // lower_bound
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/crs/detail/entry_rows.hpp>
#include <spmvkit/operations/detail/triplet_sort.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace spmvkit {

namespace detail {

/// A CRS matrix's column indices as a sort source (ColumnKeys reads col()).
template <class Columns>
struct CrsColumnSource {
  Columns columns;
  KOKKOS_INLINE_FUNCTION auto col(std::int64_t k) const { return columns(k); }
};

/// GPUs: each entry k of row r of A goes to the next free place of its
/// column's bucket as the key (r, k), so the buckets' sort gives A's row
/// order and the fill needs no per-entry row array.
template <class ExecutionSpace, class Starts, class Columns, class Keys>
struct PlaceRowEntries {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Starts row_starts;
  Columns columns;
  Keys cursor, placed;
  KeyPacking packing;
  std::int64_t num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t r = team_thread_bucket(team);
    if (r >= num_rows) return;
    const auto first = static_cast<std::int64_t>(row_starts(r));
    const auto n = static_cast<std::int64_t>(row_starts(r + 1)) - first;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](std::int64_t i) {
      const std::int64_t k = first + i;
      placed(Kokkos::atomic_fetch_add(&cursor(columns(k)), SortKey(1))) = packing.pack(r, k);
    });
  }
};

/// Lanes per row for PlaceRowEntries: about the rows' mean length, at most a warp.
template <class ExecutionSpace>
int transpose_row_lanes(std::int64_t num_rows, std::int64_t nnz) {
  if (is_host_space_v<ExecutionSpace>) return 1;
  const std::int64_t mean = num_rows > 0 ? nnz / num_rows : 0;
  int lanes = 1;
  while (lanes < 32 && lanes < mean) lanes *= 2;
  return lanes;
}

/// order may share values' storage: each p reads its key before writing its value.
template <class Keys, class Values, class Columns>
struct TransposeFillPacked {
  Keys order;
  Values a_values, values;
  Columns columns;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    const SortKey key = order(p);
    columns(p) = static_cast<typename Columns::value_type>(packing.high(key));
    values(p) = a_values(packing.low(key));
  }
};

template <class Keys, class Matrix>
struct TransposeFill {
  Keys keys;
  typename Matrix::column_indices_type rows_of; // the row of each entry of A
  typename Matrix::values_type a_values;
  typename Matrix::column_indices_type columns;
  typename Matrix::values_type values;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    const SortKey k = packing.low(keys(p));
    columns(p) = rows_of(k);
    values(p) = a_values(k);
  }
};

} // namespace detail

namespace detail {

template <class Columns>
struct ColumnOf {
  Columns columns;
  KOKKOS_INLINE_FUNCTION SortKey operator()(std::int64_t k) const {
    return static_cast<SortKey>(columns(k));
  }
};

/// Counts the rows whose start differs between two starts arrays.
template <class StartsA, class StartsB>
struct DifferentStarts {
  StartsA a;
  StartsB b;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& different) const {
    different += static_cast<std::int64_t>(a(i)) != static_cast<std::int64_t>(b(i)) ? 1 : 0;
  }
};

/// For a pattern that is its own transpose: entry (r, c) of A moves to entry
/// (c, r), found by a binary search for r in row c. Flags a row whose columns
/// do not strictly increase or an entry without its mirror.
template <class ExecutionSpace, class Starts, class Columns, class Values, class Flag>
struct MirrorValues {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Starts row_starts;
  Columns columns;
  Values a_values, t_values;
  Flag failed;
  std::int64_t num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t r = team_thread_bucket(team);
    if (r >= num_rows) return;
    const auto first = static_cast<std::int64_t>(row_starts(r));
    const auto end = static_cast<std::int64_t>(row_starts(r + 1));
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, end - first), [&](std::int64_t i) {
      const std::int64_t k = first + i;
      const auto c = static_cast<std::int64_t>(columns(k));
      const bool increasing = k + 1 >= end || columns(k) < columns(k + 1);
      const auto row_end = static_cast<std::int64_t>(row_starts(c + 1));
      const std::int64_t lo =
          lower_bound(columns, static_cast<std::int64_t>(row_starts(c)), row_end, r);
      if (increasing && lo < row_end && static_cast<std::int64_t>(columns(lo)) == r) {
        t_values(lo) = a_values(k);
      } else {
        Kokkos::atomic_exchange(&failed(), 1);
      }
    });
  }
};

/// The transpose of a square A whose pattern is its own transpose (FEM and
/// most PDE matrices) has A's structure: copies it and moves each value to its
/// mirror, no sort. Fills T (allocated num_cols x num_rows with A's nnz) and
/// returns true; returns false when A is not square, a column's count differs
/// from the row's length, a row's columns do not strictly increase (unsorted or
/// duplicates) or an entry has no mirror. `largest` is then the longest
/// column's count when counted (T's row starts hold the column starts), else -1.
/// Synchronous.
template <class ExecutionSpace, class Matrix>
bool mirror_transpose(ExecutionSpace const& exec, Matrix const& A, Matrix const& T,
                      std::int64_t& largest) {
  using Columns = typename Matrix::column_indices_type;
  largest = -1;
  const std::int64_t n = A.num_rows();
  if (n != A.num_cols() || A.nnz() == 0) return false;
  largest =
      count_into_buckets(exec, n, A.nnz(), ColumnOf<Columns>{A.column_indices()}, T.row_starts());
  std::int64_t different = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::transpose::compare_starts",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n + 1),
      DifferentStarts<typename Matrix::row_starts_type, typename Matrix::row_starts_type>{
          A.row_starts(), T.row_starts()},
      different);
  exec.fence();
  if (different != 0) return false;
  Kokkos::deep_copy(exec, T.column_indices(), A.column_indices());
  using Flag = Kokkos::View<int, typename Matrix::device_type>;
  Flag failed("SpMVKit::transpose::mirror_failed");
  const int lanes = transpose_row_lanes<ExecutionSpace>(n, A.nnz());
  const int per_team = is_host_space_v<ExecutionSpace> ? 1 : 128 / lanes;
  Kokkos::parallel_for("SpMVKit::transpose::mirror",
                       Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>((n + per_team - 1) / per_team), per_team, lanes),
                       MirrorValues<ExecutionSpace, typename Matrix::row_starts_type, Columns,
                                    typename Matrix::values_type, Flag>{
                           A.row_starts(), A.column_indices(), A.values(), T.values(), failed, n});
  int h = 0;
  Kokkos::deep_copy(exec, h, failed);
  exec.fence();
  return h == 0;
}

/// transpose() with the order's path chosen (tests force each on every backend)
/// and the mirror path for self-transposed patterns tried first unless `mirror` is false.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
transpose_by(ExecutionSpace const& exec,
             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, EntrySort path,
             bool mirror = true) {
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Matrix::device_type;
  using Keys = Kokkos::View<SortKey*, Device>;
  using Columns = typename Matrix::column_indices_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::transpose";
  ensure_structure(exec, A);
  const std::int64_t nnz = A.nnz();
  const auto packing = key_packing(A.num_cols(), nnz, "the number of columns", where);
  Matrix T("transpose", A.num_cols(), A.num_rows(), nnz, exec);
  Kokkos::deep_copy(exec, T.row_starts(), Offset(0));
  if (nnz == 0) {
    exec.fence();
    T.trust_structure();
    return T;
  }
  std::int64_t counted_largest = -1; // the column counts, when the mirror path counted them
  if (mirror && mirror_transpose(exec, A, T, counted_largest)) {
    T.trust_structure();
    return T;
  }
  const bool host_path = is_host_space_v<ExecutionSpace> &&
                         (path == EntrySort::automatic || path == EntrySort::host_buckets);
  if (!host_path) {
    // GPUs: a column's entries are placed by an atomic cursor as (row, entry)
    // keys and sorted in scratch (bucket_sort) when no column is long and the
    // keys fit; else one global sort of packed (column, entry) keys.
    const std::int64_t largest =
        counted_largest >= 0
            ? counted_largest
            : count_into_buckets(exec, A.num_cols(), nnz, ColumnOf<Columns>{A.column_indices()},
                                 T.row_starts());
    const bool fits = A.num_rows() <= (SortKey(1) << (63 - packing.shift));
    if (fits && path != EntrySort::global_sort &&
        (largest <= bucket_sort_largest || path == EntrySort::device_buckets)) {
      const auto row_packing = key_packing(A.num_rows(), nnz, "the number of rows", where);
      // 8-byte values hold the keys until the fill, which reads each key before
      // writing its value in its place: one allocation fewer. Else one scratch
      // allocation: the keys, then the cursors.
      constexpr bool keys_in_values = sizeof(Scalar) == sizeof(SortKey) &&
                                      alignof(Scalar) >= alignof(SortKey) &&
                                      std::is_trivially_copyable_v<Scalar>;
      const std::int64_t scratch_keys = keys_in_values ? 0 : nnz;
      Keys scratch =
          allocate_view<Keys>(exec, "SpMVKit::transpose::keys", scratch_keys + A.num_cols());
      const Keys order = keys_in_values ? Keys(reinterpret_cast<SortKey*>(T.values().data()), nnz)
                                        : Keys(scratch, std::make_pair(std::int64_t(0), nnz));
      const Keys cursor(scratch, std::make_pair(scratch_keys, scratch_keys + A.num_cols()));
      Kokkos::parallel_for(
          "SpMVKit::transpose::cursor", Range(exec, 0, A.num_cols()),
          CursorsFromStarts<Keys, typename Matrix::row_starts_type>{cursor, T.row_starts()});
      const int lanes = transpose_row_lanes<ExecutionSpace>(A.num_rows(), nnz);
      const int per_team = is_host_space_v<ExecutionSpace> ? 1 : 128 / lanes;
      Kokkos::parallel_for(
          "SpMVKit::transpose::place",
          Kokkos::TeamPolicy<ExecutionSpace>(
              exec, static_cast<int>((A.num_rows() + per_team - 1) / per_team), per_team, lanes),
          PlaceRowEntries<ExecutionSpace, typename Matrix::row_starts_type, Columns, Keys>{
              A.row_starts(), A.column_indices(), cursor, order, row_packing, A.num_rows()});
      bucket_sort(exec, A.num_cols(), T.row_starts(), order, largest);
      Kokkos::parallel_for("SpMVKit::transpose::fill", Range(exec, 0, nnz),
                           TransposeFillPacked<Keys, typename Matrix::values_type, Columns>{
                               order, A.values(), T.values(), T.column_indices(), row_packing});
      exec.fence();
      T.trust_structure();
      return T;
    }
  }
  // Each entry's row, for the gather (T's column indices).
  Columns rows_of = allocate_view<Columns>(exec, "SpMVKit::transpose::rows_of", nnz);
  Kokkos::parallel_for(
      "SpMVKit::transpose::rows_of", Range(exec, 0, A.num_rows()),
      CrsEntryRows<typename Matrix::row_starts_type, Columns>{A.row_starts(), rows_of});
  Keys order = allocate_view<Keys>(exec, "SpMVKit::transpose::order", nnz);
  if constexpr (is_host_space_v<ExecutionSpace>) {
    if (host_path) {
      // Host backends: entries bucketed by column, each bucket sorted by entry
      // index (A's row order, duplicates in storage order).
      const auto a_cols = A.column_indices();
      bucket_order_host(
          exec, A.num_cols(), nnz, [=](std::int64_t k) { return static_cast<SortKey>(a_cols(k)); },
          [](std::int64_t k) { return SortKey(k); }, T.row_starts(), order);
    }
  }
  if (!host_path) {
    Kokkos::parallel_for(
        "SpMVKit::transpose::keys", Range(exec, 0, nnz),
        ColumnKeys<Keys, CrsColumnSource<Columns>>{order, {A.column_indices()}, packing});
    sort_distinct_keys(exec, order);
  }
  // order(p) is k, or (column, k) packed: low() is k either way.
  Kokkos::parallel_for("SpMVKit::transpose::fill", Range(exec, 0, nnz),
                       TransposeFill<Keys, Matrix>{order, rows_of, A.values(), T.column_indices(),
                                                   T.values(), packing});
  exec.fence();
  T.trust_structure();
  return T;
}

} // namespace detail

/// Returns Aᵀ (num_cols x num_rows) as a new CrsMatrix on `exec`: entry (i, j)
/// of A becomes entry (j, i), duplicates and explicit zeros kept. Each row of
/// the result lists A's rows in increasing order (duplicates in A's storage
/// order), so transpose(transpose(A)) equals A with each row's columns sorted.
/// When A is square, its rows' columns strictly increase and its pattern is its
/// own transpose (FEM and most PDE matrices), the result takes A's structure and
/// each value moves to its mirror entry, found by a binary search: no sort. The
/// result is the same either way.
///
/// Checks A's structure first unless known (std::invalid_argument naming the
/// row). Throws std::length_error when num_cols times the power of two above nnz
/// exceeds 2^63 (the sort keys), AllocationError. Memory: the result plus 8 bytes
/// per nonzero (the sort keys) and one Ordinal per nonzero (each entry's row);
/// on GPUs with no column over 1024 entries instead 8 bytes per column, plus 8
/// bytes per nonzero for values that are not 8 bytes wide (8-byte values hold
/// the keys until they are filled in); host backends up to 4 more bytes per
/// nonzero (each thread's counts). Synchronous; the result's structure is known valid.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
transpose(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return detail::transpose_by(exec, A, detail::EntrySort::automatic);
}

} // namespace spmvkit

#endif
