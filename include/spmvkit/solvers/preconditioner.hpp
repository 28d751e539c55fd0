// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONER_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONER_HPP

/// \file
/// The preconditioner concept, beside the operator concept of
/// solvers/operator.hpp: what bicgstab() and gmres() apply as M⁻¹ (right
/// preconditioning), and what cg() applies as M⁻¹ in z = M⁻¹ r.
///
/// | member | what |
/// | --- | --- |
/// | `execution_space`, `scalar_type`, `vector_type` | as the operator's |
/// | `num_rows()` | its size (`std::int64_t`); must equal the operator's |
/// | `apply(exec, r, z)` | z = M⁻¹ r, asynchronous on exec; r and z distinct |
///
/// An element-wise preconditioner (z_i = d_i r_i, the Jacobi kind) also has
/// `static constexpr bool is_elementwise = true` and `inverse_diagonal()`, the
/// View d: solvers with fused vector kernels then read d inside those kernels
/// instead of calling apply(), so a Jacobi-preconditioned iteration moves no
/// extra vector (is_elementwise_preconditioner_v tests for it).
///
/// The preconditioners of SpMVKit are in solvers/preconditioners/: Jacobi (this
/// file, with the identity), block-Jacobi, Chebyshev and ILU(0). Each is built
/// from the matrix or operator it preconditions, and checks at build time what
/// would make it unusable (a zero diagonal entry, a singular block), throwing
/// std::invalid_argument that names the row or block.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

namespace detail {

template <class P, class = void>
struct is_elementwise_preconditioner : std::false_type {};
template <class P>
struct is_elementwise_preconditioner<P, std::enable_if_t<P::is_elementwise>> : std::true_type {};

template <class P, class = void>
struct is_identity_preconditioner : std::false_type {};
template <class P>
struct is_identity_preconditioner<P, std::enable_if_t<P::is_identity>> : std::true_type {};

template <class P, class = void>
struct is_preconditioner : std::false_type {};
template <class P>
struct is_preconditioner<P, std::void_t<typename P::execution_space, typename P::vector_type,
                                        decltype(std::declval<P const&>().num_rows()),
                                        decltype(std::declval<P const&>().apply(
                                            std::declval<typename P::execution_space const&>(),
                                            std::declval<typename P::vector_type const&>(),
                                            std::declval<typename P::vector_type const&>()))>>
    : std::true_type {};

/// z = d .* r.
template <class Vec, class CVec>
struct ScaleByDiagonal {
  CVec d;
  CVec r;
  Vec z;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { z(i) = d(i) * r(i); }
};

/// d(i) = 1 / d(i) where usable, else 0; counts the rows that are not (zero,
/// non-finite, or not positive when `positive`).
template <class Vec>
struct JacobiInvert {
  Vec d;
  double largest;
  bool positive;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    const double v = static_cast<double>(d(i));
    const double m = v < 0 ? -v : v;
    const bool ok = m > 0 && m <= largest && (!positive || v > 0); // false for NaN and Inf
    d(i) = ok ? static_cast<typename Vec::value_type>(1.0 / v) : typename Vec::value_type(0);
    bad += ok ? 0 : 1;
  }
};

/// The first row that JacobiInvert zeroed.
template <class Vec>
struct JacobiFirstBad {
  Vec d;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& first) const {
    if (d(i) == typename Vec::value_type(0) && i < first) first = i;
  }
};

} // namespace detail

/// Whether P models the preconditioner concept (compile-time).
template <class P>
inline constexpr bool is_preconditioner_v = detail::is_preconditioner<P>::value;

/// Whether P is element-wise (z_i = d_i r_i): solvers fuse it into their kernels.
template <class P>
inline constexpr bool is_elementwise_preconditioner_v =
    detail::is_elementwise_preconditioner<P>::value;

/// Whether P is the identity (the solvers skip it).
template <class P>
inline constexpr bool is_identity_preconditioner_v = detail::is_identity_preconditioner<P>::value;

/// M = I: no preconditioning (what the solvers use when given none). Element-wise
/// kinds are not needed for it: the solvers test for it and skip the copy.
template <class Operator>
class IdentityPreconditioner {
public:
  /// The operator's execution space.
  using execution_space = typename Operator::execution_space;
  /// The vectors' scalar type.
  using scalar_type = typename Operator::scalar_type;
  /// The operator's vectors.
  using vector_type = typename Operator::vector_type;
  /// Marks the identity: the solvers skip it.
  static constexpr bool is_identity = true;

  /// M = I of size n.
  explicit IdentityPreconditioner(std::int64_t n) : n_(n) {}
  /// n.
  std::int64_t num_rows() const { return n_; }
  /// z = r.
  void apply(execution_space const& exec, vector_type const& r, vector_type const& z) const {
    Kokkos::deep_copy(exec, z, r);
  }

private:
  std::int64_t n_;
};

/// Point Jacobi: M = diag(A), applied as z_i = r_i / a_ii (element-wise).
///
/// Built from any operator with `diagonal()` (every SpMVKit format, the Kokkos
/// Kernels adapter, a distributed operator's local rows). Throws
/// std::invalid_argument naming the first row whose diagonal entry is zero or
/// not finite (and negative, with `require_positive`, as CG needs) and how many
/// such rows there are: no such row can be inverted.
template <class Operator>
class JacobiPreconditioner {
public:
  /// The operator's execution space.
  using execution_space = typename Operator::execution_space;
  /// The vectors' scalar type.
  using scalar_type = typename Operator::scalar_type;
  /// The operator's vectors.
  using vector_type = typename Operator::vector_type;
  /// Element-wise: the solvers read inverse_diagonal() inside their kernels.
  static constexpr bool is_elementwise = true;

  /// D⁻¹ of A's diagonal, on exec; `require_positive` also refuses negative entries.
  JacobiPreconditioner(execution_space const& exec, Operator const& A,
                       bool require_positive = false)
      : dinv_(detail::allocate_view<vector_type>(exec, "SpMVKit::preconditioner::jacobi_dinv",
                                                 A.num_rows())) {
    if (A.num_rows() != A.num_cols()) {
      throw std::invalid_argument("spmvkit::JacobiPreconditioner: the operator is " +
                                  std::to_string(A.num_rows()) + " x " +
                                  std::to_string(A.num_cols()) + ", not square");
    }
    A.diagonal(exec, dinv_);
    using Range = Kokkos::RangePolicy<execution_space>;
    const std::int64_t n = A.num_rows();
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "SpMVKit::preconditioner::jacobi_invert", Range(exec, 0, n),
        detail::JacobiInvert<vector_type>{
            dinv_, static_cast<double>(std::numeric_limits<scalar_type>::max()), require_positive},
        bad);
    if (bad > 0) {
      std::int64_t first = n;
      Kokkos::parallel_reduce("SpMVKit::preconditioner::jacobi_first_bad", Range(exec, 0, n),
                              detail::JacobiFirstBad<vector_type>{dinv_},
                              Kokkos::Min<std::int64_t>(first));
      exec.fence();
      throw std::invalid_argument("spmvkit::JacobiPreconditioner: " + std::to_string(bad) + " of " +
                                  std::to_string(n) + " rows have a zero" +
                                  (require_positive ? ", negative" : "") +
                                  " or non-finite diagonal entry (first: row " +
                                  std::to_string(first) + "); Jacobi divides by it");
    }
  }

  /// The operator's rows.
  std::int64_t num_rows() const { return static_cast<std::int64_t>(dinv_.extent(0)); }
  /// 1 / diag(A), what the fused kernels read.
  vector_type const& inverse_diagonal() const { return dinv_; }
  /// z = D⁻¹ r.
  void apply(execution_space const& exec, vector_type const& r, vector_type const& z) const {
    Kokkos::parallel_for("SpMVKit::preconditioner::jacobi_apply",
                         Kokkos::RangePolicy<execution_space>(exec, 0, num_rows()),
                         detail::ScaleByDiagonal<vector_type, vector_type>{dinv_, r, z});
  }

private:
  vector_type dinv_;
};

/// Point Jacobi of A: a matrix of any SpMVKit format, a KokkosSparse::CrsMatrix
/// (with interop/kokkos_kernels.hpp) or an operator; JacobiPreconditioner of its operator.
template <class ExecutionSpace, class Matrix>
auto make_jacobi(ExecutionSpace const& exec, Matrix const& A) {
  auto&& op = detail::as_operator<void>(A);
  using Op = std::remove_const_t<std::remove_reference_t<decltype(op)>>;
  return JacobiPreconditioner<Op>(exec, op);
}

namespace detail {

/// Throws std::invalid_argument (starting with `where`) unless M has n rows.
template <class P>
void check_preconditioner_size(P const& M, std::int64_t n, char const* where) {
  if (M.num_rows() != n) {
    throw std::invalid_argument(std::string(where) + ": the preconditioner has " +
                                std::to_string(M.num_rows()) + " rows, the operator " +
                                std::to_string(n) + " (built for another matrix?)");
  }
}

} // namespace detail

} // namespace spmvkit

#endif
