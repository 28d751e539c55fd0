// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The baseline issue 32 sets for assemble_crs: what a user writes with a
// library sort, namely keys row * num_cols + column sorted with their values
// (Kokkos::Experimental::sort_by_key, Thrust's radix sort on CUDA, Kokkos 4.3
// and later), then equal keys reduced into CRS entries.
#ifndef SPMVKIT_PERF_SORT_REDUCE_ASSEMBLY_HPP
#define SPMVKIT_PERF_SORT_REDUCE_ASSEMBLY_HPP

#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <cstdint>

#define SPMVKIT_PERF_HAS_SORT_BY_KEY (KOKKOS_VERSION >= 40300)

namespace spmvkit::perf {

#if SPMVKIT_PERF_HAS_SORT_BY_KEY
/// The triplets (rows(t), cols(t), values(t)) as a CRS matrix, equal (row,
/// column) summed in sorted order.
template <class Scalar, class Exec, class Rows, class Cols, class Values>
CrsMatrix<Scalar, Exec> sort_reduce_assembly(Exec const& exec, std::int64_t num_rows,
                                             std::int64_t num_cols, Rows const& rows,
                                             Cols const& cols, Values const& values) {
  using Matrix = CrsMatrix<Scalar, Exec>;
  using Keys = Kokkos::View<std::int64_t*, typename Exec::memory_space>;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  const auto n = static_cast<std::int64_t>(values.extent(0));
  Keys keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::perf::sort_reduce::keys"), n);
  typename Matrix::values_type vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::perf::sort_reduce::values"), n);
  Kokkos::parallel_for(
      "SpMVKit::perf::sort_reduce::keys", Range(exec, 0, n), KOKKOS_LAMBDA(std::int64_t t) {
        keys(t) = static_cast<std::int64_t>(rows(t)) * num_cols + cols(t);
        vals(t) = values(t);
      });
  Kokkos::Experimental::sort_by_key(exec, keys, vals);
  // run(p): the entry of sorted position p (an exclusive scan of the heads of equal keys).
  Keys run(Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::perf::sort_reduce::run"), n);
  std::int64_t nnz = 0;
  Kokkos::parallel_scan(
      "SpMVKit::perf::sort_reduce::runs", Range(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t p, std::int64_t & s, bool final) {
        const bool head = p == 0 || keys(p) != keys(p - 1);
        if (final) run(p) = s;
        s += head ? 1 : 0;
      },
      nnz);
  typename Matrix::row_starts_type row_starts("SpMVKit::perf::sort_reduce::row_starts",
                                              num_rows + 1);
  typename Matrix::column_indices_type columns(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::perf::sort_reduce::columns"), nnz);
  typename Matrix::values_type sums(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::perf::sort_reduce::sums"), nnz);
  Kokkos::parallel_for(
      "SpMVKit::perf::sort_reduce::reduce", Range(exec, 0, n), KOKKOS_LAMBDA(std::int64_t p) {
        if (p > 0 && keys(p) == keys(p - 1)) return;
        Scalar sum = 0;
        for (std::int64_t q = p; q < n && keys(q) == keys(p); ++q) sum += vals(q);
        const std::int64_t s = run(p);
        sums(s) = sum;
        columns(s) = static_cast<int>(keys(p) % num_cols);
        Kokkos::atomic_add(&row_starts(keys(p) / num_cols + 1), 1);
      });
  Kokkos::parallel_scan(
      "SpMVKit::perf::sort_reduce::row_starts", Range(exec, 0, num_rows + 1),
      KOKKOS_LAMBDA(std::int64_t i, int& s, bool final) {
        s += row_starts(i);
        if (final) row_starts(i) = s;
      });
  exec.fence();
  return Matrix(num_rows, num_cols, row_starts, columns, sums);
}
#endif

} // namespace spmvkit::perf

#endif
