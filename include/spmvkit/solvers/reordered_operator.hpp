// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_REORDERED_OPERATOR_HPP
#define SPMVKIT_SOLVERS_REORDERED_OPERATOR_HPP

/// A reordered matrix of any format as an operator (solvers/operator.hpp)
/// that takes and returns vectors in the user's numbering: spmv, cg and any
/// solver run on it unchanged, as if on the original matrix.
///
/// Two ways to use a reordering, and why both exist:
/// - ReorderedOperator: apply(x, y) permutes x into a work vector, multiplies
///   with the reordered matrix and scatters the result back to y. Nothing
///   changes for the caller, at the price of two extra vector passes per
///   apply (read x and the permutation, write and re-read the work vectors:
///   about 4 n sizeof(Scalar) + 2 n sizeof(Ordinal) bytes, some 8% of a CG
///   iteration on the 27-point FEM matrix in double).
/// - permute / unpermute (reorder/permutation.hpp) at the edges of a whole
///   solve: permute b once, solve with the reordered matrix itself, unpermute
///   x once. No per-iteration cost: the way for long solves.
/// Both give the same iterates up to rounding, since CG (and Jacobi-PCG) is
/// invariant under a symmetric permutation.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/reorder/permutation.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// Matrix is the reordered matrix B = P A P^T in any SpMVKit format; the
/// operator applies A. It owns two work vectors, so one operator runs one
/// apply at a time (as a solver does); Views are shared handles, so copies of
/// it share them too.
template <class Matrix>
class ReorderedOperator {
  static_assert(is_spmvkit_matrix_v<Matrix>,
                "spmvkit::ReorderedOperator: Matrix must be a matrix of an SpMVKit format");

public:
  /// The wrapped matrix type (that of B).
  using matrix_type = Matrix;
  /// The format tag of the wrapped matrix.
  using matrix_format = format_of_t<Matrix>;
  /// Conversion and kernel choices.
  using options_type = typename matrix_format::options_type;
  /// Where the arrays live and the kernels run.
  using execution_space = typename Matrix::execution_space;
  /// Scalar type of apply.
  using scalar_type = typename Matrix::value_type;
  /// Vector type of apply.
  using vector_type = Kokkos::View<scalar_type*, typename Matrix::device_type>;
  /// The permutation type.
  using permutation_type = Permutation<typename Matrix::ordinal_type, typename Matrix::device_type>;

  /// Wraps B = P A P^T, applied with B's own options, as an operator in A's numbering.
  ReorderedOperator(Matrix const& B, permutation_type const& P)
      : ReorderedOperator(B, P, matrix_format::options(B)) {}
  /// Wraps B = P A P^T, applied with `options`, as an operator in A's numbering.
  ReorderedOperator(Matrix const& B, permutation_type const& P, options_type const& options)
      : B_(B), P_(P), options_(options) {
    if (B.num_rows() != B.num_cols() || P.size() != B.num_rows()) {
      throw std::invalid_argument(
          "spmvkit::ReorderedOperator: needs a square matrix and a permutation of its size; the "
          "matrix is " +
          std::to_string(B.num_rows()) + " x " + std::to_string(B.num_cols()) +
          ", the permutation has " + std::to_string(P.size()) + " entries");
    }
    const execution_space exec;
    x_new_ =
        detail::allocate_view<vector_type>(exec, "SpMVKit::ReorderedOperator::x_new", B.num_rows());
    y_new_ =
        detail::allocate_view<vector_type>(exec, "SpMVKit::ReorderedOperator::y_new", B.num_rows());
  }

  /// Number of rows.
  std::int64_t num_rows() const { return B_.num_rows(); }
  /// Number of columns.
  std::int64_t num_cols() const { return B_.num_cols(); }
  /// The reordered matrix B = P A P^T.
  Matrix const& matrix() const { return B_; }
  /// The permutation P.
  permutation_type const& permutation() const { return P_; }
  /// The options it was built (or is applied) with.
  options_type const& options() const { return options_; }

  /// y = A x, x and y in the user's numbering.
  void apply(execution_space const& exec, vector_type const& x, vector_type const& y) const {
    permute(exec, P_, x, x_new_);
    spmv(exec, scalar_type(1), B_, x_new_, scalar_type(0), y_new_, options_);
    unpermute(exec, P_, y_new_, y);
  }
  /// d = diag(A) in the user's numbering.
  void diagonal(execution_space const& exec, vector_type const& d) const {
    matrix_format::diagonal(exec, B_, y_new_);
    unpermute(exec, P_, y_new_, d);
  }
  /// The matrix's byte model plus the two permutations.
  SpmvBytes bytes() const {
    SpmvBytes b = matrix_format::bytes(B_);
    const double n = static_cast<double>(B_.num_rows());
    b.matrix += 2 * n * sizeof(typename Matrix::ordinal_type) + 4 * n * sizeof(scalar_type);
    return b;
  }
  /// The reduction policy of the solvers (solvers/operator.hpp).
  LocalReduction reduction() const { return {}; }

private:
  Matrix B_;
  permutation_type P_;
  options_type options_;
  vector_type x_new_, y_new_;
};

/// The operator of a reordered CRS matrix (reorder_rcm, reorder/band_k.hpp)
/// converted to Format on exec.
template <class Format, class Crs>
ReorderedOperator<matrix_of_t<Format, typename Crs::value_type, typename Crs::execution_space,
                              typename Crs::ordinal_type, typename Crs::offset_type>>
make_reordered_operator(typename Crs::execution_space const& exec, Reordered<Crs> const& R,
                        typename Format::options_type const& options = {}) {
  return {Format::from_crs(exec, R.matrix, options), R.permutation, options};
}

} // namespace spmvkit

#endif
