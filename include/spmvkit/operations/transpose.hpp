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

template <class Starts, class Columns>
struct CountColumns {
  Starts counts;
  Columns columns;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    Kokkos::atomic_add(&counts(columns(k) + 1), typename Starts::non_const_value_type(1));
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

/// Returns Aᵀ (num_cols x num_rows) as a new CrsMatrix on `exec`: entry (i, j)
/// of A becomes entry (j, i), duplicates and explicit zeros kept. Each row of
/// the result lists A's rows in increasing order (duplicates in A's storage
/// order), so transpose(transpose(A)) equals A with each row's columns sorted.
///
/// Checks A's structure first unless known (std::invalid_argument naming the
/// row). Throws std::length_error when num_cols times the power of two above nnz
/// exceeds 2^63 (the sort keys), AllocationError. Memory: the result plus 8 bytes
/// per nonzero (the sort keys) and one Ordinal per nonzero (each entry's row).
/// Synchronous; the result's structure is known valid.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
transpose(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Matrix::device_type;
  using Keys = Kokkos::View<detail::SortKey*, Device>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::transpose";
  detail::ensure_structure(exec, A);
  const std::int64_t nnz = A.nnz();
  const auto packing = detail::key_packing(A.num_cols(), nnz, "the number of columns", where);
  Matrix T("transpose", A.num_cols(), A.num_rows(), nnz, exec);
  Kokkos::deep_copy(exec, T.row_starts(), Offset(0));
  if constexpr (detail::is_host_space_v<ExecutionSpace>) {
    if (nnz > 0) {
      // Host backends: entries bucketed by column, each bucket sorted by entry
      // index (A's row order, duplicates in storage order), then gathered.
      using Columns = typename Matrix::column_indices_type;
      Columns rows_of = detail::allocate_view<Columns>(exec, "SpMVKit::transpose::rows_of", nnz);
      Kokkos::parallel_for(
          "SpMVKit::transpose::rows_of", Range(exec, 0, A.num_rows()),
          detail::CrsEntryRows<typename Matrix::row_starts_type, Columns>{A.row_starts(), rows_of});
      Keys order = detail::allocate_view<Keys>(exec, "SpMVKit::transpose::order", nnz);
      const auto a_cols = A.column_indices();
      detail::bucket_order_host(
          exec, A.num_cols(), nnz,
          [=](std::int64_t k) { return static_cast<std::int64_t>(a_cols(k)); },
          [](std::int64_t k) { return detail::SortKey(k); }, T.row_starts(), order);
      const auto a_vals = A.values();
      const auto t_cols = T.column_indices();
      const auto t_vals = T.values();
      Kokkos::parallel_for("SpMVKit::transpose::gather", Range(exec, 0, nnz), [=](std::int64_t p) {
        const auto k = order(p);
        t_cols(p) = rows_of(k);
        t_vals(p) = a_vals(k);
      });
    }
  } else if (nnz > 0) {
    using Columns = typename Matrix::column_indices_type;
    Kokkos::parallel_for("SpMVKit::transpose::count", Range(exec, 0, nnz),
                         detail::CountColumns<typename Matrix::row_starts_type, Columns>{
                             T.row_starts(), A.column_indices()});
    Kokkos::parallel_scan("SpMVKit::transpose::row_starts",
                          Range(exec, 0, static_cast<std::int64_t>(A.num_cols()) + 1),
                          detail::ScanStarts<typename Matrix::row_starts_type>{T.row_starts()});
    Keys keys = detail::allocate_view<Keys>(exec, "SpMVKit::transpose::keys", nnz);
    Kokkos::parallel_for("SpMVKit::transpose::keys", Range(exec, 0, nnz),
                         detail::ColumnKeys<Keys, detail::CrsColumnSource<Columns>>{
                             keys, {A.column_indices()}, packing});
    Columns rows_of = detail::allocate_view<Columns>(exec, "SpMVKit::transpose::rows_of", nnz);
    Kokkos::parallel_for(
        "SpMVKit::transpose::rows_of", Range(exec, 0, A.num_rows()),
        detail::CrsEntryRows<typename Matrix::row_starts_type, Columns>{A.row_starts(), rows_of});
    detail::sort_distinct_keys(exec, keys);
    Kokkos::parallel_for("SpMVKit::transpose::fill", Range(exec, 0, nnz),
                         detail::TransposeFill<Keys, Matrix>{
                             keys, rows_of, A.values(), T.column_indices(), T.values(), packing});
  }
  exec.fence();
  T.trust_structure();
  return T;
}

} // namespace spmvkit

#endif
