// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CRS_DETAIL_CRS_REFILL_HPP
#define SPMVKIT_FORMATS_CRS_DETAIL_CRS_REFILL_HPP

// The passes every F::refill (core/format_concept.hpp) runs to put a CRS matrix's new values into
// a layout made from the same pattern: shape, CRS structure, pattern, then the values alone.
#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// Tag of a refill functor's pattern pass: a Min reduction of the first original row whose
/// length or columns differ from the stored ones.
struct RefillCheck {};
/// Tag of a refill functor's values pass: writes the row's values into its stored slots.
struct RefillValues {};

/// Refills A, a matrix of some layout made from a CRS matrix, with B's values. `refill` is a
/// functor over A's `num_rows` stored rows with a RefillCheck reduction and a RefillValues pass.
/// The pattern is compared before anything is written, so a refused B leaves A as it was; the
/// values pass reads no column index. Synchronous: the check's verdict travels to the host.
template <class ExecutionSpace, class Matrix, class Crs, class Functor>
void refill_by_rows(ExecutionSpace const& exec, Matrix const& A, Crs const& B,
                    Functor const& refill, std::string const& label, std::string const& where) {
  if (static_cast<std::int64_t>(A.num_rows()) != B.num_rows() ||
      static_cast<std::int64_t>(A.num_cols()) != B.num_cols() ||
      static_cast<std::int64_t>(A.nnz()) != B.nnz()) {
    throw std::invalid_argument(
        where + ": the CRS matrix is " + std::to_string(B.num_rows()) + " x " +
        std::to_string(B.num_cols()) + " with " + std::to_string(B.nnz()) + " entries, this one " +
        std::to_string(A.num_rows()) + " x " + std::to_string(A.num_cols()) + " with " +
        std::to_string(A.nnz()) + "; convert it anew");
  }
  ensure_structure(exec, B);
  const std::int64_t n = A.num_rows();
  std::int64_t first = n;
  Kokkos::parallel_reduce(
      label + "refill_check",
      Kokkos::RangePolicy<ExecutionSpace, RefillCheck, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      refill, Kokkos::Min<std::int64_t>(first));
  if (first < n) {
    throw std::invalid_argument(where + ": row " + std::to_string(first) +
                                " of the CRS matrix has other columns (or another length) than "
                                "the pattern this matrix was made from; nothing was changed: "
                                "convert it anew");
  }
  Kokkos::parallel_for(
      label + "refill_values",
      Kokkos::RangePolicy<ExecutionSpace, RefillValues, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                                         n),
      refill);
  exec.fence();
  A.forget_transpose(); // the twin holds the old values
}

} // namespace spmvkit::detail

#endif
