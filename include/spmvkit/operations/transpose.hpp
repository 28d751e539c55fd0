// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_TRANSPOSE_HPP
#define SPMVKIT_OPERATIONS_TRANSPOSE_HPP

/// \file
/// transpose(): the explicit transpose of a CrsMatrix, CRS to CRS on the
/// device, in a deterministic order (each row of Aᵀ lists A's rows in
/// increasing order, duplicates in A's storage order).
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
/// column's bucket as the key (r, k), so the buckets' rank sort gives A's row
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

/// transpose() with the order's path chosen (tests force each on every backend).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
transpose_by(ExecutionSpace const& exec,
             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, EntrySort path) {
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
  const bool host_path = is_host_space_v<ExecutionSpace> &&
                         (path == EntrySort::automatic || path == EntrySort::host_buckets);
  if (!host_path) {
    // GPUs: a column's entries are placed by an atomic cursor as (row, entry)
    // keys and rank-sorted when no column is long and the keys fit; else one
    // global sort of packed (column, entry) keys.
    const std::int64_t largest = count_into_buckets(
        exec, A.num_cols(), nnz, ColumnOf<Columns>{A.column_indices()}, T.row_starts());
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
      bucket_rank_sort(exec, A.num_cols(), T.row_starts(), order, largest);
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
///
/// Checks A's structure first unless known (std::invalid_argument naming the
/// row). Throws std::length_error when num_cols times the power of two above nnz
/// exceeds 2^63 (the sort keys), AllocationError. Memory: the result plus 8 bytes
/// per nonzero (the sort keys) and one Ordinal per nonzero (each entry's row);
/// on GPUs with no column over 1024 entries instead 8 bytes per column, plus 8
/// bytes per nonzero for values that are not 8 bytes wide (8-byte values hold
/// the keys until they are filled in). Synchronous; the result's structure is known valid.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
transpose(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return detail::transpose_by(exec, A, detail::EntrySort::automatic);
}

} // namespace spmvkit

#endif
