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

namespace spmvkit {

namespace detail {

/// A CRS matrix's column indices as a sort source (ColumnKeys reads col()).
template <class Columns>
struct CrsColumnSource {
  Columns columns;
  KOKKOS_INLINE_FUNCTION auto col(std::int64_t k) const { return columns(k); }
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

struct EntryIndex {
  KOKKOS_INLINE_FUNCTION SortKey operator()(std::int64_t k) const { return k; }
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
  // Each entry's row, for the gather (T's column indices).
  Columns rows_of = allocate_view<Columns>(exec, "SpMVKit::transpose::rows_of", nnz);
  Kokkos::parallel_for(
      "SpMVKit::transpose::rows_of", Range(exec, 0, A.num_rows()),
      CrsEntryRows<typename Matrix::row_starts_type, Columns>{A.row_starts(), rows_of});
  const bool host_path = is_host_space_v<ExecutionSpace> &&
                         (path == EntrySort::automatic || path == EntrySort::host_buckets);
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
    // GPUs: a column's entries are placed by an atomic cursor and rank-sorted
    // by entry index when no column is long; else one global sort of packed
    // (column, entry) keys.
    const std::int64_t largest = count_into_buckets(
        exec, A.num_cols(), nnz, ColumnOf<Columns>{A.column_indices()}, T.row_starts());
    if (path != EntrySort::global_sort &&
        (largest <= bucket_sort_largest || path == EntrySort::device_buckets)) {
      Keys placed = allocate_view<Keys>(exec, "SpMVKit::transpose::placed", nnz);
      bucket_order_device(exec, A.num_cols(), nnz, ColumnOf<Columns>{A.column_indices()},
                          EntryIndex{}, T.row_starts(), placed, order);
    } else {
      Kokkos::parallel_for(
          "SpMVKit::transpose::keys", Range(exec, 0, nnz),
          ColumnKeys<Keys, CrsColumnSource<Columns>>{order, {A.column_indices()}, packing});
      sort_distinct_keys(exec, order);
    }
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
/// per nonzero (the sort keys; 16 on GPUs when every column is short) and one
/// Ordinal per nonzero (each entry's row). Synchronous; the result's structure
/// is known valid.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
transpose(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return detail::transpose_by(exec, A, detail::EntrySort::automatic);
}

} // namespace spmvkit

#endif
