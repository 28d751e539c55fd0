// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_TRIPLE_PRODUCT_HPP
#define SPMVKIT_SPGEMM_TRIPLE_PRODUCT_HPP

/// \file
/// Triple products R A P for multigrid (the Galerkin operator Pᵀ A P of a
/// level): two SpGEMMs, A P first, whose handles, and A P itself, are kept,
/// so that a numeric phase with new values of R, A or P (same patterns)
/// repeats both products without allocating.

#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/transpose.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

namespace detail {
struct TripleProductAccess;
} // namespace detail

/// What triple_product_symbolic() found about R A P: the handle of A P (the
/// intermediate product, kept with its values) and of R (A P).
///
/// A P is taken first: multigrid's A has many short rows and P few columns,
/// so A P is as small as it gets and R (A P) reads it once.
///
/// Copies share both products' arrays (A P, R A P, the plans' work arrays): a
/// numeric phase through one copy overwrites what the others see.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class TripleProductHandle {
public:
  /// The type of R, A, P, A P and R A P.
  using matrix_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The handle type of each of the two products.
  using handle_type = SpgemmHandle<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// A handle without structure. Both products take `options`; a memory
  /// limit there bounds both together (the second gets what the first keeps
  /// left over).
  explicit TripleProductHandle(SpgemmOptions const& options = {})
      : options_(options), right_(options), left_(options) {}

  /// The options given at construction.
  SpgemmOptions const& options() const { return options_; }
  /// Whether triple_product_symbolic() has run.
  bool has_structure() const { return left_.has_structure(); }
  /// R A P (values after triple_product_numeric()).
  matrix_type const& matrix() const { return left_.matrix(); }
  /// A P, kept between numeric phases.
  matrix_type const& intermediate() const { return right_.matrix(); }
  /// The handle of A P.
  handle_type const& intermediate_product() const { return right_; }
  /// The handle of R (A P).
  handle_type const& outer_product() const { return left_; }
  /// Multiply-adds of one numeric phase: those of A P and of R (A P).
  std::int64_t multiply_adds() const { return right_.multiply_adds() + left_.multiply_adds(); }
  /// Bytes kept between numeric phases: both products' outputs and workspaces.
  std::uint64_t kept_bytes() const {
    return right_.memory().output_bytes + right_.memory().workspace_bytes +
           left_.memory().output_bytes + left_.memory().workspace_bytes;
  }
  /// The most device memory held at once during the symbolic phase.
  std::uint64_t peak_bytes() const {
    const std::uint64_t first = right_.memory().peak_bytes;
    const std::uint64_t second =
        right_.memory().output_bytes + right_.memory().workspace_bytes + left_.memory().peak_bytes;
    return first > second ? first : second;
  }

private:
  friend struct detail::TripleProductAccess;
  SpgemmOptions options_;
  handle_type right_, left_;
};

namespace detail {
struct TripleProductAccess {
  template <class Handle>
  static auto& right(Handle& h) {
    return h.right_;
  }
  template <class Handle>
  static auto& left(Handle& h) {
    return h.left_;
  }
};

/// "R r x c, A r x c, P r x c" for error messages.
template <class Crs>
std::string triple_shapes(Crs const& R, Crs const& A, Crs const& P) {
  auto shape = [](Crs const& M) {
    return std::to_string(M.num_rows()) + " x " + std::to_string(M.num_cols());
  };
  return "R " + shape(R) + ", A " + shape(A) + ", P " + shape(P);
}
} // namespace detail

/// Symbolic phase of R A P: the structures of A P and of R (A P). Throws
/// std::invalid_argument naming the three shapes when they do not chain,
/// and what spgemm_symbolic() throws. Memory limit: the second product is
/// checked against what the first leaves (AllocationError where nothing is
/// left); its error names that remainder as SpgemmOptions::memory_limit,
/// whatever the limit's source. Synchronous.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void triple_product_symbolic(ExecutionSpace const& exec,
                             TripleProductHandle<Scalar, ExecutionSpace, Ordinal, Offset>& handle,
                             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& R,
                             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& P) {
  if (R.num_cols() != A.num_rows() || A.num_cols() != P.num_rows()) {
    throw std::invalid_argument(
        "spmvkit::triple_product: the shapes do not chain: " + detail::triple_shapes(R, A, P) +
        "; R A P needs R's columns = A's rows and A's columns = P's rows");
  }
  using Handle = SpgemmHandle<Scalar, ExecutionSpace, Ordinal, Offset>;
  auto& right = detail::TripleProductAccess::right(handle);
  auto& left = detail::TripleProductAccess::left(handle);
  // Both reset first: a failure below leaves no structure behind.
  left = Handle(handle.options());
  right = Handle(handle.options());
  spgemm_symbolic(exec, right, A, P);
  SpgemmOptions second = handle.options();
  const std::uint64_t limit = right.memory().limit_bytes;
  if (limit > 0) {
    const std::uint64_t kept = right.memory().output_bytes + right.memory().workspace_bytes;
    if (kept >= limit) {
      throw AllocationError("spmvkit::triple_product: A P keeps " + std::to_string(kept) +
                            " bytes, which leaves nothing of the memory limit of " +
                            std::to_string(limit) + " bytes (" + right.memory().limit_source +
                            ") for R (A P); " + detail::triple_shapes(R, A, P));
    }
    second.memory_limit = limit - kept;
  }
  left = Handle(second);
  spgemm_symbolic(exec, left, R, right.matrix());
}

/// Numeric phase of R A P: A P, then R (A P), into the arrays the symbolic
/// phase allocated. Returns R A P (shares its arrays with handle.matrix()).
/// R, A and P must have the patterns the symbolic phase saw (see
/// spgemm_numeric()). Asynchronous on exec.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
triple_product_numeric(ExecutionSpace const& exec,
                       TripleProductHandle<Scalar, ExecutionSpace, Ordinal, Offset>& handle,
                       CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& R,
                       CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                       CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& P) {
  if (!handle.has_structure()) {
    throw std::invalid_argument("spmvkit::triple_product_numeric: the handle has no structure; "
                                "run triple_product_symbolic first");
  }
  auto& right = detail::TripleProductAccess::right(handle);
  auto& left = detail::TripleProductAccess::left(handle);
  const auto AP = spgemm_numeric(exec, right, A, P);
  return spgemm_numeric(exec, left, R, AP);
}

/// R A P with a handle of its own. Throws like triple_product_symbolic().
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
triple_product(ExecutionSpace const& exec,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& R,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& P,
               SpgemmOptions const& options = {}) {
  TripleProductHandle<Scalar, ExecutionSpace, Ordinal, Offset> handle(options);
  triple_product_symbolic(exec, handle, R, A, P);
  return triple_product_numeric(exec, handle, R, A, P);
}

/// The Galerkin operator Pᵀ A P (R = transpose(exec, P)).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
galerkin_product(ExecutionSpace const& exec,
                 CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                 CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& P,
                 SpgemmOptions const& options = {}) {
  if (A.num_rows() != A.num_cols() || A.num_cols() != P.num_rows()) {
    throw std::invalid_argument(
        "spmvkit::galerkin_product: A is " + std::to_string(A.num_rows()) + " x " +
        std::to_string(A.num_cols()) + " and P " + std::to_string(P.num_rows()) + " x " +
        std::to_string(P.num_cols()) + "; Pᵀ A P needs a square A with as many rows as P");
  }
  return triple_product(exec, transpose(exec, P), A, P, options);
}

} // namespace spmvkit

#endif
