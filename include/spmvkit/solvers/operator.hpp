// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_OPERATOR_HPP
#define SPMVKIT_SOLVERS_OPERATOR_HPP

/// \file
/// What a solver sees of a matrix: a linear operator (the Ginkgo LinOp idea).
/// Solvers never list formats: a matrix of any SpMVKit format becomes an
/// operator through MatrixOperator, a Kokkos Kernels matrix through the
/// adapter in interop/kokkos_kernels.hpp, and a user type (a distributed
/// matrix, a matrix-free stencil) by modelling the concept itself:
///
/// | member | what |
/// | --- | --- |
/// | `execution_space`, `scalar_type` | the Kokkos execution space and the vectors' scalar type |
/// | `vector_type` | `Kokkos::View<scalar_type*, ...>`, the vectors of apply and diagonal |
/// | `num_rows()`, `num_cols()` | local sizes (`std::int64_t`) |
/// | `apply(exec, x, y)` | y = A x, asynchronous on exec (may be non-const) |
/// | `diagonal(exec, d)` | d = diag(A) (Jacobi), const |
/// | `reduction()` | a reduction policy (LocalReduction here), const |
///
/// Optional: `multi_vector_type` (rank 2, rows x k) with `apply(exec, X, Y)`
/// for k vectors at once (block Krylov, several right-hand sides), and
/// `apply_transpose(exec, x, y)` (y = Aᵀ x, both vector types);
/// MatrixOperator has them for every format.
///
/// The reduction policy combines the partial sums of the solver's dot
/// products: `all_reduce(exec, device_sums, count)` on sums that live on the
/// device, `all_reduce_host(host_sums, count)` on sums the host holds. A
/// single-process operator needs nothing (LocalReduction); a distributed one
/// sums over ranks, so the solver runs unchanged. A policy may also split the
/// device all-reduce into `all_reduce_begin(exec, device_sums, count)` and
/// `all_reduce_end(exec)`: the pipelined CG then posts its one all-reduce per
/// iteration and runs the next apply before waiting for it (MpiReduction of
/// distributed/mpi_reduction.hpp does so with MPI_Iallreduce). A policy of
/// several processes may also provide `agree_on_errors(step, message)`,
/// collective, throwing the same exception everywhere when any process has a
/// message: the solver then reports its argument checks and allocations
/// through it, so that one process's failure does not hang the others.
///
/// Mixed precision. scalar_type is the type of the solver's vectors, which
/// need not be the type the operator stores: MatrixOperator<Matrix, double>
/// applies a float matrix to double vectors (spmv sums in double), so CG runs
/// every vector operation in double and reads the matrix in float.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace spmvkit {

/// The reduction policy of an operator whose vectors live on one process:
/// partial sums are already global.
///
/// A distributed operator provides a policy with the same two members that
/// sums over its ranks (an `MPI_Allreduce` with `MPI_SUM` on doubles).
struct LocalReduction {
  /// Combines `count` partial sums held in device memory (a rank-1 View of
  /// double accessible from exec), in place, ordered on exec. Here: nothing to do.
  template <class ExecutionSpace, class DeviceSums>
  void all_reduce(ExecutionSpace const&, DeviceSums const&, int) const {}
  /// Combines `count` partial sums held in host memory, in place. Here: nothing to do.
  void all_reduce_host(double*, int) const {}
};

/// Any SpMVKit matrix as an operator, applied with the given format options
/// (for CRS: the kernel). Holds a reference: the matrix must outlive it.
///
/// cg() makes one itself from a matrix; make one (make_operator()) to choose
/// options, for example the CRS kernel: `cg(exec, make_operator(A,
/// CrsKernel::vector), b, x)`. It models the operator concept described in
/// solvers/operator.hpp.
///
/// \tparam Matrix       a matrix of any SpMVKit format
/// \tparam VectorScalar the vectors' scalar type: the matrix's value type
///                      (default), or for mixed precision double with a float
///                      matrix, float with a double matrix (make_mixed_operator())
template <class Matrix, class VectorScalar = typename Matrix::value_type>
class MatrixOperator {
  static_assert(is_spmvkit_matrix_v<Matrix>,
                "spmvkit::MatrixOperator: Matrix must be a matrix of an SpMVKit format");
  static_assert(detail::is_spmv_vector_scalar_v<typename Matrix::value_type, VectorScalar>,
                "spmvkit::MatrixOperator: VectorScalar must be the matrix's value_type, or "
                "(mixed precision) double for a float matrix or float for a double matrix");

public:
  /// The wrapped matrix type.
  using matrix_type = Matrix;
  /// The matrix's format tag, `format_of_t<Matrix>`.
  // Not `format_type`: that name is what makes a type an SpMVKit matrix.
  using matrix_format = format_of_t<Matrix>;
  /// The format's options (CrsOptions, SellOptions).
  using options_type = typename matrix_format::options_type;
  /// The matrix's execution space.
  using execution_space = typename Matrix::execution_space;
  /// The vectors' scalar type, VectorScalar (the matrix's value type unless mixed).
  using scalar_type = VectorScalar;
  /// The vectors apply() and diagonal() take: `Kokkos::View<scalar_type*, device_type>`.
  using vector_type = Kokkos::View<scalar_type*, typename Matrix::device_type>;

  /// Wraps A (by reference) with the options it was built with.
  explicit MatrixOperator(Matrix const& A) : A_(A), options_(matrix_format::options(A)) {}
  /// Wraps A (by reference) with the given options.
  MatrixOperator(Matrix const& A, options_type const& options) : A_(A), options_(options) {}

  /// Number of rows of the matrix.
  std::int64_t num_rows() const { return A_.num_rows(); }
  /// Number of columns of the matrix.
  std::int64_t num_cols() const { return A_.num_cols(); }
  /// The wrapped matrix.
  Matrix const& matrix() const { return A_; }
  /// The options apply() passes to spmv().
  options_type const& options() const { return options_; }
  /// y = A x: spmv(exec, 1, A, x, 0, y, options()); same checks, exceptions and
  /// cost (mixed: sums in the wider type, y rounded once).
  void apply(execution_space const& exec, vector_type const& x, vector_type const& y) const {
    spmv(exec, scalar_type(1), A_, x, scalar_type(0), y, options_);
  }
  /// Blocks of k vectors for the multi-vector apply: rows x k, LayoutLeft.
  using multi_vector_type =
      Kokkos::View<scalar_type**, Kokkos::LayoutLeft, typename Matrix::device_type>;
  /// Y = A X for every column at once (the matrix read once per block of up to
  /// 8 columns): spmv with rank-2 Views; same checks and exceptions.
  void apply(execution_space const& exec, multi_vector_type const& X,
             multi_vector_type const& Y) const {
    spmv(exec, scalar_type(1), A_, X, scalar_type(0), Y, options_);
  }
  /// y = Aᵀ x: spmv with SpmvMode::transpose (the matrix keeps a transposed
  /// twin from the first call on).
  void apply_transpose(execution_space const& exec, vector_type const& x,
                       vector_type const& y) const {
    spmv(exec, SpmvMode::transpose, scalar_type(1), A_, x, scalar_type(0), y, options_);
  }
  /// Y = Aᵀ X for every column at once.
  void apply_transpose(execution_space const& exec, multi_vector_type const& X,
                       multi_vector_type const& Y) const {
    spmv(exec, SpmvMode::transpose, scalar_type(1), A_, X, scalar_type(0), Y, options_);
  }
  /// d(i) = the sum of the matrix's stored entries (i, i), 0 for a row without
  /// one; d has num_rows entries. Asynchronous on exec; one pass over the entries.
  void diagonal(execution_space const& exec, vector_type const& d) const {
    matrix_format::diagonal(exec, A_, d);
  }
  /// The byte model of one apply (spmv_bytes<scalar_type>: the format's matrix
  /// traffic, x and y in the vectors' type): the solvers' bandwidth floor.
  SpmvBytes bytes() const { return spmv_bytes<scalar_type>(A_); }
  /// The reduction policy: LocalReduction (one process).
  LocalReduction reduction() const { return {}; }

private:
  Matrix const& A_;
  options_type options_;
};

/// An SpMVKit matrix as an operator, with the options it was built with.
///
/// The operator holds A by reference: A must outlive it. No allocation.
template <class Matrix, class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
MatrixOperator<Matrix> make_operator(Matrix const& A) {
  return MatrixOperator<Matrix>(A);
}
/// An SpMVKit matrix as an operator applied with the given format options
/// (for CRS a CrsKernel converts to CrsOptions).
///
/// The operator holds A by reference: A must outlive it. No allocation.
template <class Matrix, class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
MatrixOperator<Matrix> make_operator(Matrix const& A,
                                     typename format_of_t<Matrix>::options_type const& options) {
  return MatrixOperator<Matrix>(A, options);
}

/// An SpMVKit matrix as an operator on vectors of VectorScalar (mixed
/// precision): `cg(exec, make_mixed_operator<double>(A_float), b, x)` solves
/// with double vectors and a float matrix. VectorScalar may also be the
/// matrix's own type (then it is make_operator(A)).
///
/// The operator holds A by reference: A must outlive it. No allocation.
template <class VectorScalar, class Matrix, class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
MatrixOperator<Matrix, VectorScalar> make_mixed_operator(Matrix const& A) {
  return MatrixOperator<Matrix, VectorScalar>(A);
}
/// The same with the given format options.
///
/// The operator holds A by reference: A must outlive it. No allocation.
template <class VectorScalar, class Matrix, class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
MatrixOperator<Matrix, VectorScalar>
make_mixed_operator(Matrix const& A, typename format_of_t<Matrix>::options_type const& options) {
  return MatrixOperator<Matrix, VectorScalar>(A, options);
}

/// Customisation point: specialise for a matrix type that is neither an
/// SpMVKit matrix nor an operator, with `static auto make(A)` returning an
/// operator (interop/kokkos_kernels.hpp does so for KokkosSparse::CrsMatrix).
template <class T, class Enable = void>
struct operator_adapter {
  /// false here; a specialisation sets it to true.
  static constexpr bool specialized = false;
};

namespace detail {

template <class T, class = void>
struct is_linear_operator : std::false_type {};
template <class T>
struct is_linear_operator<
    T, std::void_t<typename T::execution_space, typename T::scalar_type, typename T::vector_type,
                   decltype(std::declval<T const&>().num_rows()),
                   decltype(std::declval<T const&>().num_cols()),
                   decltype(std::declval<T&>().apply(
                       std::declval<typename T::execution_space const&>(),
                       std::declval<typename T::vector_type const&>(),
                       std::declval<typename T::vector_type const&>())),
                   decltype(std::declval<T const&>().diagonal(
                       std::declval<typename T::execution_space const&>(),
                       std::declval<typename T::vector_type const&>())),
                   decltype(std::declval<T const&>().reduction())>> : std::true_type {};

/// The global index of an operator's first row: partition().first_row() of an
/// operator over ranks (a DistributedMatrix), 0 otherwise. Set-up steps that
/// seed vectors by row (Chebyshev's power iterations) index them globally, so
/// their result does not depend on the number of ranks.
template <class T, class = void>
struct has_row_partition : std::false_type {};
template <class T>
struct has_row_partition<T, std::void_t<decltype(std::declval<T const&>().partition().first_row())>>
    : std::true_type {};
template <class T>
std::int64_t first_global_row(T const& op) {
  if constexpr (has_row_partition<T>::value) {
    return static_cast<std::int64_t>(op.partition().first_row());
  } else {
    (void)op;
    return 0;
  }
}

template <class T, class = void>
struct has_operator_adapter : std::false_type {};
template <class T>
struct has_operator_adapter<T, std::enable_if_t<operator_adapter<T>::specialized>>
    : std::true_type {};

/// The vectors' scalar type of the MatrixOperator a solver makes for a matrix
/// of Scalar given right-hand sides B: B's value type where spmv takes it
/// (mixed precision), else Scalar (and the solver's own check reports B).
template <class Scalar, class B, class = void>
struct solver_vector_scalar {
  using type = Scalar;
};
template <class Scalar, class B>
struct solver_vector_scalar<
    Scalar, B,
    std::enable_if_t<Kokkos::is_view<B>::value &&
                     is_spmv_vector_scalar_v<Scalar, typename B::non_const_value_type>>> {
  using type = typename B::non_const_value_type;
};

/// What a solver runs on: the operator itself, the MatrixOperator of an
/// SpMVKit matrix (on vectors of the right-hand side BView's type when spmv
/// takes it, see solver_vector_scalar), or an adapter's operator. Operators
/// are taken by reference, so stateful ones (cached handles) keep their state.
template <class BView = void, class T>
decltype(auto) as_operator(T& A) {
  if constexpr (is_spmvkit_matrix_v<std::remove_const_t<T>>) {
    using Matrix = std::remove_const_t<T>;
    using V = typename solver_vector_scalar<typename Matrix::value_type, BView>::type;
    return MatrixOperator<Matrix, V>(A);
  } else if constexpr (has_operator_adapter<std::remove_const_t<T>>::value) {
    return operator_adapter<std::remove_const_t<T>>::make(A);
  } else {
    static_assert(is_linear_operator<std::remove_const_t<T>>::value,
                  "spmvkit solver: A must be a matrix of an SpMVKit format, a KokkosSparse::"
                  "CrsMatrix (include <spmvkit/interop/kokkos_kernels.hpp>) or an operator with "
                  "execution_space, scalar_type, vector_type, num_rows(), num_cols(), "
                  "apply(exec, x, y), diagonal(exec, d) and reduction() (solvers/operator.hpp)");
    return static_cast<T&>(A);
  }
}

} // namespace detail
} // namespace spmvkit

#endif
