#ifndef SPMVKIT_SOLVERS_OPERATOR_HPP
#define SPMVKIT_SOLVERS_OPERATOR_HPP

/// What a solver sees of a matrix: a linear operator (the Ginkgo LinOp idea).
/// Solvers never list formats: a matrix of any SpMVKit format becomes an
/// operator through MatrixOperator, a Kokkos Kernels matrix through the
/// adapter in interop/kokkos_kernels.hpp, and a user type (a distributed
/// matrix, a matrix-free stencil) by modelling the concept itself:
///
/// | member | what |
/// | --- | --- |
/// | `execution_space`, `scalar_type`, `vector_type` | vector_type: `Kokkos::View<scalar_type*,
/// ...>` | | `num_rows()`, `num_cols()` | local sizes (`std::int64_t`) | | `apply(exec, x, y)` | y
/// = A x, asynchronous on exec | | `diagonal(exec, d)` | d = diag(A) (Jacobi) | | `reduction()` | a
/// reduction policy (LocalReduction here) |
///
/// The reduction policy combines the partial sums of the solver's dot
/// products: `all_reduce(exec, device_sums, count)` on sums that live on the
/// device, `all_reduce_host(host_sums, count)` on sums the host holds. A
/// single-process operator needs nothing (LocalReduction); a distributed one
/// sums over ranks, so the solver runs unchanged.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace spmvkit {

/// The reduction policy of an operator whose vectors live on one process:
/// partial sums are already global.
struct LocalReduction {
  template <class Exec, class DeviceSums>
  void all_reduce(Exec const&, DeviceSums const&, int) const {}
  void all_reduce_host(double*, int) const {}
};

/// Any SpMVKit matrix as an operator, applied with the given format options
/// (for CRS: the kernel). Holds a reference: the matrix must outlive it.
template <class Matrix>
class MatrixOperator {
  static_assert(is_spmvkit_matrix_v<Matrix>,
                "spmvkit::MatrixOperator: Matrix must be a matrix of an SpMVKit format");

public:
  using matrix_type = Matrix;
  // Not `format_type`: that name is what makes a type an SpMVKit matrix.
  using matrix_format = format_of_t<Matrix>;
  using options_type = typename matrix_format::options_type;
  using execution_space = typename Matrix::execution_space;
  using scalar_type = typename Matrix::value_type;
  using vector_type = Kokkos::View<scalar_type*, typename Matrix::device_type>;

  explicit MatrixOperator(Matrix const& A) : A_(A), options_(matrix_format::options(A)) {}
  MatrixOperator(Matrix const& A, options_type const& options) : A_(A), options_(options) {}

  std::int64_t num_rows() const { return A_.num_rows(); }
  std::int64_t num_cols() const { return A_.num_cols(); }
  Matrix const& matrix() const { return A_; }
  options_type const& options() const { return options_; }
  void apply(execution_space const& exec, vector_type const& x, vector_type const& y) const {
    spmv(exec, scalar_type(1), A_, x, scalar_type(0), y, options_);
  }
  void diagonal(execution_space const& exec, vector_type const& d) const {
    matrix_format::diagonal(exec, A_, d);
  }
  /// The byte model of one apply (matrix_format::bytes): the solvers' bandwidth floor.
  SpmvBytes bytes() const { return matrix_format::bytes(A_); }
  LocalReduction reduction() const { return {}; }

private:
  Matrix const& A_;
  options_type options_;
};

/// make_operator(A) / make_operator(A, options): an SpMVKit matrix as an operator.
template <class Matrix, class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
MatrixOperator<Matrix> make_operator(Matrix const& A) {
  return MatrixOperator<Matrix>(A);
}
template <class Matrix, class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
MatrixOperator<Matrix> make_operator(Matrix const& A,
                                     typename format_of_t<Matrix>::options_type const& options) {
  return MatrixOperator<Matrix>(A, options);
}

/// Customisation point: specialise for a matrix type that is neither an
/// SpMVKit matrix nor an operator, with `static auto make(A)` returning an
/// operator (interop/kokkos_kernels.hpp does so for KokkosSparse::CrsMatrix).
template <class T, class Enable = void>
struct operator_adapter {
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

template <class T, class = void>
struct has_operator_adapter : std::false_type {};
template <class T>
struct has_operator_adapter<T, std::enable_if_t<operator_adapter<T>::specialized>>
    : std::true_type {};

/// What a solver runs on: the operator itself, the MatrixOperator of an
/// SpMVKit matrix, or an adapter's operator. Operators are taken by
/// reference, so stateful ones (cached handles) keep their state.
template <class T>
decltype(auto) as_operator(T& A) {
  if constexpr (is_spmvkit_matrix_v<std::remove_const_t<T>>) {
    return MatrixOperator<std::remove_const_t<T>>(A);
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
