// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_COO_DETAIL_COO_KERNELS_HPP
#define SPMVKIT_FORMATS_COO_DETAIL_COO_KERNELS_HPP

// Kernels of the COO format: conversions from and to CRS, the checks of
// user triplets, the diagonal, and the SpMV on the merge-path machinery of the
// balanced CRS kernel (formats/crs/detail/merge_path.hpp). Every conversion
// kernel works per nonzero or per row with a binary search, so none of them
// leaves a long row to one thread either.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/formats/crs/detail/merge_path.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

/// First position in keys[lo, hi) whose key is >= value (keys ascending).
template <class Keys, class T>
KOKKOS_INLINE_FUNCTION std::int64_t lower_bound(Keys const& keys, std::int64_t lo, std::int64_t hi,
                                                T value) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys(mid) < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The row of nonzero k: the last row whose start is <= k, found among the
/// non-empty rows by a binary search on the row starts.
template <class RowStarts, class Rows>
struct RowOfEachNonzero {
  RowStarts row_starts;
  Rows rows;
  std::int64_t num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    // Upper bound of k in row_starts[0, num_rows], minus one.
    std::int64_t lo = 0, hi = num_rows + 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(row_starts(mid)) <= k) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    rows(k) = static_cast<typename Rows::value_type>(lo - 1);
  }
};

/// row_starts(r) = first nonzero whose row is >= r, for r in [0, num_rows].
template <class Rows, class RowStarts>
struct RowStartsOfSortedRows {
  Rows rows;
  RowStarts row_starts;
  std::int64_t nnz;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r) const {
    row_starts(r) = static_cast<typename RowStarts::value_type>(lower_bound(rows, 0, nnz, r));
  }
};

/// The first nonzero k whose triplet is out of range or out of row order
/// (Min reduction; nnz when all are fine).
template <class Rows, class Cols>
struct CooTripletCheck {
  Rows rows;
  Cols cols;
  std::int64_t num_rows, num_cols, nnz;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k, std::int64_t& first_bad) const {
    const std::int64_t r = rows(k), c = cols(k);
    const bool bad =
        r < 0 || r >= num_rows || c < 0 || c >= num_cols || (k + 1 < nnz && rows(k + 1) < r);
    if (bad && k < first_bad) first_bad = k;
  }
};

/// d(r) = sum of row r's entries in column r (in double, then rounded once).
template <class Rows, class Cols, class Vals, class Diag>
struct CooDiagonal {
  Rows rows;
  Cols cols;
  Vals vals;
  Diag diag;
  std::int64_t nnz;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r) const {
    const std::int64_t begin = lower_bound(rows, 0, nnz, r);
    const std::int64_t end = lower_bound(rows, begin, nnz, r + 1);
    double d = 0;
    for (std::int64_t k = begin; k < end; ++k)
      if (static_cast<std::int64_t>(cols(k)) == r) d += static_cast<double>(vals(k));
    diag(r) = static_cast<typename Diag::value_type>(d);
  }
};

/// y = beta y + alpha A x for a COO matrix A (CooMatrix), on its merge-path
/// plan. row_map (HYB's tail): A's row r is y(row_map(r)); empty: identity.
template <class ExecutionSpace, class Coo, class X, class Y, class Map>
void spmv_coo(ExecutionSpace const& exec, spmv_scalar_t<Coo, Y> alpha, Coo const& A, X const& x,
              spmv_scalar_t<Coo, Y> beta, Y const& y, Map const& row_map,
              char const* label = "SpMVKit::spmv::coo") {
  using Ordinal = typename Coo::ordinal_type;
  using Offset = typename Coo::offset_type;
  using Device = typename Coo::device_type;
  spmv_merge_path(exec, merge_path_parameters<ExecutionSpace>(A.num_rows(), A.nnz()), A.plan(),
                  CooRowKeys<Ordinal, Offset, Device>{A.row_indices()}, A.column_indices(),
                  A.values(), row_map, A.num_rows(), x, y, alpha, beta, label);
}

} // namespace spmvkit::detail

#endif
