// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_SPADD_HPP
#define SPMVKIT_OPERATIONS_SPADD_HPP

/// \file
/// Sparse addition C = alpha A + beta B of CrsMatrix operands, in a symbolic
/// phase (C's pattern: the union of A's and B's, each row's columns sorted,
/// duplicates merged) and a numeric phase that can be repeated when only the
/// values change, as for spgemm(). SpaddHandle keeps what the symbolic phase
/// found. The sums run in a fixed order (no atomics): the result is the same
/// bit for bit on every run.
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/crs/detail/entry_rows.hpp>
#include <spmvkit/operations/detail/triplet_sort.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

namespace detail {

/// A's entries then B's as one sort source (rows expanded per entry).
template <class Rows, class Columns>
struct TwoMatrixSource {
  Rows rows_a, rows_b;
  Columns cols_a, cols_b;
  std::int64_t nnz_a;
  KOKKOS_INLINE_FUNCTION auto row(std::int64_t t) const {
    return t < nnz_a ? rows_a(t) : rows_b(t - nnz_a);
  }
  KOKKOS_INLINE_FUNCTION auto col(std::int64_t t) const {
    return t < nnz_a ? cols_a(t) : cols_b(t - nnz_a);
  }
};

template <class Values>
struct TwoMatrixValue {
  Values a, b;
  std::int64_t nnz_a;
  typename Values::non_const_value_type alpha, beta;
  KOKKOS_INLINE_FUNCTION auto operator()(std::int64_t t) const {
    return t < nnz_a ? alpha * a(t) : beta * b(t - nnz_a);
  }
};

} // namespace detail

/// What spadd_symbolic() found about C = alpha A + beta B: C (its row starts
/// and columns set, its values allocated) and, for each entry of C, which
/// entries of A and B add into it, in a fixed order. A handle serves one pair
/// of patterns: the numeric phase checks the shapes and entry counts, not the
/// column indices themselves, so run spadd_symbolic() again when a pattern
/// changes.
///
/// \tparam Scalar, ExecutionSpace, Ordinal, Offset those of the CrsMatrix operands
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class SpaddHandle {
public:
  /// The type of A, B and C.
  using matrix_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// Whether spadd_symbolic() has run.
  bool has_structure() const { return ready_; }
  /// C: after spadd_symbolic() its structure, after spadd_numeric() its values too.
  matrix_type const& matrix() const { return C_; }
  /// Entries of C (0 before the symbolic phase).
  std::int64_t nnz() const { return ready_ ? static_cast<std::int64_t>(C_.nnz()) : 0; }

  /// Internal: set by spadd_symbolic().
  template <class Sorted>
  void set(matrix_type const& C, Sorted const& sorted, std::int64_t nnz_a, std::int64_t nnz_b) {
    C_ = C;
    order_ = sorted.order;
    run_starts_ = sorted.run_starts;
    nnz_a_ = nnz_a;
    nnz_b_ = nnz_b;
    ready_ = true;
  }
  /// Internal: the operands' entries in C's order.
  Kokkos::View<detail::SortKey*, typename matrix_type::device_type> const& order() const {
    return order_;
  }
  /// Internal: where each entry of C starts in order(); nnz + 1.
  Kokkos::View<detail::SortKey*, typename matrix_type::device_type> const& run_starts() const {
    return run_starts_;
  }
  /// Entries of A the symbolic phase saw.
  std::int64_t nnz_a() const { return nnz_a_; }
  /// Entries of B the symbolic phase saw.
  std::int64_t nnz_b() const { return nnz_b_; }

private:
  matrix_type C_;
  Kokkos::View<detail::SortKey*, typename matrix_type::device_type> order_, run_starts_;
  std::int64_t nnz_a_ = 0, nnz_b_ = 0;
  bool ready_ = false;
};

/// The symbolic phase of C = alpha A + beta B: C's pattern, the union of A's
/// and B's (duplicates within A or B merged, each row's columns sorted; an
/// entry present in either is kept even where its sum comes out zero), into
/// `handle`.
///
/// Checks both structures first unless known. Throws std::invalid_argument
/// when A and B differ in shape (naming both), std::length_error when C's
/// entries do not fit Offset or the sort keys do not fit 64 bits,
/// AllocationError. Memory besides C: 8 bytes per entry of A and B kept in
/// the handle, 20 more during the phase (24 on host backends). Synchronous.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spadd_symbolic(ExecutionSpace const& exec,
                    CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                    CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                    SpaddHandle<Scalar, ExecutionSpace, Ordinal, Offset>& handle) {
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Rows = Kokkos::View<Ordinal*, typename Matrix::device_type>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::spadd_symbolic";
  if (A.num_rows() != B.num_rows() || A.num_cols() != B.num_cols()) {
    throw std::invalid_argument(std::string(where) + ": A is " + std::to_string(A.num_rows()) +
                                " x " + std::to_string(A.num_cols()) + " but B is " +
                                std::to_string(B.num_rows()) + " x " +
                                std::to_string(B.num_cols()));
  }
  detail::ensure_structure(exec, A);
  detail::ensure_structure(exec, B);
  const std::int64_t na = A.nnz(), nb = B.nnz();
  Rows rows_a = detail::allocate_view<Rows>(exec, "SpMVKit::spadd::rows_a", na);
  Rows rows_b = detail::allocate_view<Rows>(exec, "SpMVKit::spadd::rows_b", nb);
  Kokkos::parallel_for(
      "SpMVKit::spadd::rows_a", Range(exec, 0, A.num_rows()),
      detail::CrsEntryRows<typename Matrix::row_starts_type, Rows>{A.row_starts(), rows_a});
  Kokkos::parallel_for(
      "SpMVKit::spadd::rows_b", Range(exec, 0, B.num_rows()),
      detail::CrsEntryRows<typename Matrix::row_starts_type, Rows>{B.row_starts(), rows_b});
  const detail::TwoMatrixSource<Rows, typename Matrix::column_indices_type> source{
      rows_a, rows_b, A.column_indices(), B.column_indices(), na};
  auto sorted = detail::sort_entries<Ordinal, Offset>(exec, A.num_rows(), A.num_cols(), na + nb,
                                                      source, where);
  auto values = detail::allocate_view<typename Matrix::values_type>(
      exec, "SpMVKit::CrsMatrix::values(spadd)", sorted.nnz);
  Matrix C(A.num_rows(), A.num_cols(), sorted.row_starts, sorted.columns, values);
  C.trust_structure();
  handle.set(C, sorted, na, nb);
}

/// The numeric phase: C = alpha A + beta B into handle.matrix()'s values, A and
/// B of the patterns the symbolic phase saw (values may differ). Each entry of
/// C sums its terms in a fixed order (A's entries in storage order, then B's).
///
/// Throws std::invalid_argument when the symbolic phase has not run or A or B
/// differs from what it saw in shape or entry count. Asynchronous on exec.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spadd_numeric(ExecutionSpace const& exec, Scalar alpha,
                   CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, Scalar beta,
                   CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                   SpaddHandle<Scalar, ExecutionSpace, Ordinal, Offset> const& handle) {
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::spadd_numeric";
  if (!handle.has_structure()) {
    throw std::invalid_argument(std::string(where) + ": run spadd_symbolic() on the handle first");
  }
  Matrix const& C = handle.matrix();
  if (A.num_rows() != C.num_rows() || A.num_cols() != C.num_cols() ||
      B.num_rows() != C.num_rows() || B.num_cols() != C.num_cols() ||
      static_cast<std::int64_t>(A.nnz()) != handle.nnz_a() ||
      static_cast<std::int64_t>(B.nnz()) != handle.nnz_b()) {
    throw std::invalid_argument(
        std::string(where) + ": A (" + std::to_string(A.num_rows()) + " x " +
        std::to_string(A.num_cols()) + ", " + std::to_string(A.nnz()) + " entries) and B (" +
        std::to_string(B.num_rows()) + " x " + std::to_string(B.num_cols()) + ", " +
        std::to_string(B.nnz()) + " entries) are not the matrices of the symbolic phase (" +
        std::to_string(C.num_rows()) + " x " + std::to_string(C.num_cols()) + ", " +
        std::to_string(handle.nnz_a()) + " and " + std::to_string(handle.nnz_b()) + " entries)");
  }
  using Vals = typename Matrix::values_type;
  Kokkos::parallel_for(
      "SpMVKit::spadd::numeric", Range(exec, 0, handle.nnz()),
      detail::SumRuns<Vals, std::decay_t<decltype(handle.order())>, detail::TwoMatrixValue<Vals>>{
          C.values(),
          handle.order(),
          handle.run_starts(),
          {A.values(), B.values(), handle.nnz_a(), alpha, beta}});
}

/// C = alpha A + beta B in one call (spadd_symbolic() then spadd_numeric());
/// see those for the pattern, the order of the sums and the exceptions.
/// Synchronous.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
spadd(ExecutionSpace const& exec, Scalar alpha,
      CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, Scalar beta,
      CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  SpaddHandle<Scalar, ExecutionSpace, Ordinal, Offset> handle;
  spadd_symbolic(exec, A, B, handle);
  spadd_numeric(exec, alpha, A, beta, B, handle);
  exec.fence();
  return handle.matrix();
}

} // namespace spmvkit

#endif
