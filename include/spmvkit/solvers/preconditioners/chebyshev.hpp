// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_CHEBYSHEV_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_CHEBYSHEV_HPP

/// \file
/// Chebyshev polynomial preconditioning around Jacobi (as Ifpack2, Belos and
/// hypre do): M⁻¹ r is `degree` steps of the Chebyshev iteration for A z = r,
/// preconditioned by D = diag(A), from z = 0, tuned to the eigenvalue interval
/// [λmax / eigenvalue_ratio, eigenvalue_boost · λmax] of D⁻¹A (Saad, Iterative
/// Methods for Sparse Linear Systems, Algorithm 12.1):
///
/// \verbatim
///   θ = (upper + lower) / 2,  δ = (upper − lower) / 2,  σ = θ / δ,  ρ₀ = 1 / σ
///   d = D⁻¹ r / θ,  z = d
///   k = 1 .. degree − 1:  ρₖ = 1 / (2σ − ρₖ₋₁)
///                         d = ρₖ ρₖ₋₁ d + (2 ρₖ / δ) D⁻¹ (r − A z),  z = z + d
/// \endverbatim
///
/// The coefficients depend on the interval only, so M⁻¹ = p(D⁻¹A) D⁻¹ is a fixed
/// polynomial of degree − 1 in A: a linear preconditioner (symmetric positive
/// definite for an SPD A whose interval covers the spectrum, so CG may use it),
/// unlike an inner Krylov solve. It damps the upper part of the spectrum, which
/// is what Jacobi leaves: a degree-3 apply costs two operator applies and
/// typically saves more iterations than it costs on Poisson-like problems.
///
/// λmax of D⁻¹A is estimated at set-up by power iterations from a fixed
/// pseudo-random start (deterministic: the same on every backend, run and
/// number of ranks), or
/// given (ChebyshevOptions::lambda_max). The estimate approaches λmax from
/// below for a symmetric D⁻¹A; eigenvalue_boost covers the gap. Nonsymmetric
/// problems (convection-diffusion) work as long as D⁻¹A's eigenvalues lie near
/// the positive real axis.
///
/// Per apply: degree − 1 operator applies and degree fused vector kernels (one
/// per step); nothing is allocated. Memory: three vectors of n (D⁻¹ and two work
/// vectors), so two solves must not apply one preconditioner at the same time.
///
/// apply() runs it in the equivalent three-term form, zₖ₊₁ = zₖ + ρₖρₖ₋₁ (zₖ −
/// zₖ₋₁) + (2ρₖ/δ) D⁻¹ (r − A zₖ), whose steps read five vectors and write one.
///
/// make_float_chebyshev() runs the polynomial in float over a float copy of A
/// (from a CRS matrix in its own automatic format, from an AutoMatrix in that
/// matrix's format) for double vectors: the steps read about two thirds of the
/// bytes; a second iterate and r in float take two more vectors.
#include <spmvkit/core/detail/row_blocks.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioner.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

namespace spmvkit {

/// Parameters of the Chebyshev preconditioner (defaults as Ifpack2's, but degree 3).
struct ChebyshevOptions {
  /// Chebyshev steps per apply, >= 1: degree − 1 operator applies (1 is scaled Jacobi).
  int degree = 3;
  /// λmax / λmin of the interval the polynomial is tuned to, > 1: the larger,
  /// the more of the spectrum is damped, and the less per eigenvalue.
  double eigenvalue_ratio = 30;
  /// Power iterations that estimate λmax of D⁻¹A at set-up, >= 1 (unless lambda_max is given).
  int power_iterations = 10;
  /// The interval's top is eigenvalue_boost · λmax, >= 1: an estimate from
  /// below must still cover the spectrum.
  double eigenvalue_boost = 1.1;
  /// λmax of D⁻¹A when known (> 0): no power iterations. 0 (default): estimate it.
  double lambda_max = 0;
};

namespace detail {

/// A deterministic pseudo-random start in [-1, 1) (splitmix64 of the global
/// row first + i): signs that vary excite the oscillatory modes λmax belongs
/// to; the same vector on any number of ranks.
template <class Vec>
struct ChebyshevStart {
  Vec x;
  std::int64_t first = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(first + i + 1);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
    x(i) = static_cast<typename Vec::value_type>(2 * u - 1);
  }
};

/// y = D⁻¹ (A x) in place of A x; sums = {xᵀy, xᵀx, yᵀy}.
template <class Vec>
struct ChebyshevPower {
  using value_type = double[];
  Vec dinv, x, y;
  unsigned value_count = 3;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const auto yi = dinv(i) * y(i);
    y(i) = yi;
    const double xd = static_cast<double>(x(i)), yd = static_cast<double>(yi);
    sums[0] += xd * yd;
    sums[1] += xd * xd;
    sums[2] += yd * yd;
  }
};

/// x = s y (the power iteration's normalisation).
template <class Vec>
struct ChebyshevScale {
  Vec x, y;
  typename Vec::non_const_value_type s;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { x(i) = s * y(i); }
};

/// The first step from z = 0: d = D⁻¹ r / θ, z = d (AMG's smoother, which
/// continues from a given x with the d form, uses these two).
template <class Vec>
struct ChebyshevFirst {
  Vec dinv, r, d, z;
  typename Vec::non_const_value_type inv_theta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto di = inv_theta * dinv(i) * r(i);
    d(i) = di;
    z(i) = di;
  }
};

/// One step after w = A z: d = a d + c D⁻¹ (r − w), z += d (one pass).
template <class Vec>
struct ChebyshevStep {
  Vec dinv, r, w, d, z;
  typename Vec::non_const_value_type a, c;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto di = a * d(i) + c * dinv(i) * (r(i) - w(i));
    d(i) = di;
    z(i) += di;
  }
};

/// The preconditioner's first step: z₁ = D⁻¹ r / θ into out (the polynomial's
/// iterate, or for degree 1 the result); with StoreR, rp = r in the
/// polynomial's precision for the later steps.
template <class Vec, class RVec, class OutVec, bool StoreR>
struct ChebyshevPolyFirst {
  Vec dinv;
  RVec r;
  OutVec out;
  Vec rp;
  typename Vec::non_const_value_type inv_theta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using P = typename Vec::non_const_value_type;
    const P ri = static_cast<P>(r(i));
    if constexpr (StoreR) rp(i) = ri;
    out(i) = static_cast<typename OutVec::non_const_value_type>(inv_theta * dinv(i) * ri);
  }
};

/// A step after w = A zₖ in three-term form (zₖ − zₖ₋₁ is the last correction;
/// z₀ = 0 in the First step): zₖ₊₁ = zₖ + a (zₖ − zₖ₋₁) + c D⁻¹ (r − w), into
/// out, which is zₖ₋₁'s vector or, in the last step, the result. Five reads
/// and one write per row.
template <class Vec, class RVec, class OutVec, bool First>
struct ChebyshevPolyStep {
  Vec dinv;
  RVec r;
  Vec w, z, z_prev;
  OutVec out;
  typename Vec::non_const_value_type a, c;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using P = typename Vec::non_const_value_type;
    const P zi = z(i);
    const P last = First ? zi : zi - z_prev(i);
    const P next = zi + a * last + c * dinv(i) * (static_cast<P>(r(i)) - w(i));
    out(i) = static_cast<typename OutVec::non_const_value_type>(next);
  }
};

/// out(k) = float(in(k)), one entry per thread (coalesced on GPUs); bad = the
/// first entry whose float is not finite.
template <class In, class Out>
struct ChebyshevFloatValues {
  In in;
  Out out;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k, std::int64_t& bad) const {
    using F = typename Out::non_const_value_type;
    const F v = static_cast<F>(in(k));
    out(k) = v;
    // v - v is 0 for a finite v, NaN for an infinite or NaN one.
    if (!(v - v == F(0)) && k < bad) bad = k;
  }
};

} // namespace detail

/// Chebyshev polynomial preconditioner of degree `degree` around Jacobi (the
/// file's documentation gives the recurrence and the cost).
///
/// Holds a copy of the operator it applies. MatrixOperator holds a reference to
/// its matrix, so the matrix that make_chebyshev() or the operator wraps must
/// outlive the preconditioner (make_float_chebyshev() keeps its own copy).
/// Models the preconditioner concept of solvers/preconditioner.hpp with
/// vectors of VectorScalar.
///
/// \tparam Operator     a linear operator (solvers/operator.hpp): the
///                      polynomial's products and recurrence run in its scalar type
/// \tparam VectorScalar the scalar of the vectors apply() takes: the
///                      operator's (default), or a wider one, as double vectors
///                      with a float polynomial (make_float_chebyshev()), which
///                      reads r once, in its first step, and writes z in its last
template <class Operator, class VectorScalar = typename Operator::scalar_type>
class ChebyshevPreconditioner {
  using poly_scalar = typename Operator::scalar_type;
  static constexpr bool mixed = !std::is_same_v<VectorScalar, poly_scalar>;
  static_assert(std::is_floating_point_v<VectorScalar> && std::is_floating_point_v<poly_scalar>,
                "spmvkit::ChebyshevPreconditioner: floating-point scalars only");

public:
  /// The operator it was built from (held by value).
  using operator_type = Operator;
  /// The operator's execution space.
  using execution_space = typename Operator::execution_space;
  /// The vectors' scalar type, VectorScalar.
  using scalar_type = VectorScalar;
  /// The operator's vectors, holding VectorScalar.
  using vector_type =
      std::conditional_t<mixed,
                         Kokkos::View<VectorScalar*, typename Operator::vector_type::device_type>,
                         typename Operator::vector_type>;
  /// The polynomial's vectors: the operator's.
  using polynomial_vector_type = typename Operator::vector_type;

  /// Inverts diag(A) (JacobiPreconditioner: throws std::invalid_argument naming
  /// the first zero or non-finite diagonal entry, or for a non-square A),
  /// allocates the work vectors and estimates λmax (or takes the given one).
  ///
  /// Throws std::invalid_argument for options out of range (naming the option
  /// and its value) and for an estimate of λmax that is not finite or not
  /// positive; AllocationError; what A's apply throws. Synchronous (the
  /// estimate is read back): power_iterations applies and reductions. An
  /// empty A (no rows on any rank) gives a preconditioner whose apply does nothing.
  ///
  /// keep_alive: what the operator refers to, held as long as the
  /// preconditioner and its copies (make_float_chebyshev() passes its float
  /// copy of the matrix); may be empty.
  ChebyshevPreconditioner(execution_space const& exec, Operator const& A,
                          ChebyshevOptions const& options = ChebyshevOptions(),
                          std::shared_ptr<void const> keep_alive = {})
      : keep_alive_(std::move(keep_alive)), options_(checked(options)), op_(A), jacobi_(exec, op_),
        d_(detail::allocate_view<polynomial_vector_type>(
            exec, "SpMVKit::preconditioner::chebyshev_d", A.num_rows())),
        w_(detail::allocate_view<polynomial_vector_type>(
            exec, "SpMVKit::preconditioner::chebyshev_w", A.num_rows())) {
    // In another precision the iterates live in two vectors of their own (z only
    // receives the result), and r is read once in the polynomial's precision.
    if (mixed && options_.degree > 1) {
      z_ = detail::allocate_view<polynomial_vector_type>(
          exec, "SpMVKit::preconditioner::chebyshev_z", A.num_rows());
      r_ = detail::allocate_view<polynomial_vector_type>(
          exec, "SpMVKit::preconditioner::chebyshev_r", A.num_rows());
    }
    // An empty A has nothing to precondition and no spectrum to estimate. Its
    // rows are summed over a distributed operator's ranks: every rank decides alike.
    double rows = static_cast<double>(A.num_rows());
    op_.reduction().all_reduce_host(&rows, 1);
    empty_ = rows == 0;
    lambda_max_ = options_.lambda_max > 0 ? options_.lambda_max
                  : empty_                ? 1.0
                                          : estimate_lambda_max(exec);
    upper_ = options_.eigenvalue_boost * lambda_max_;
    lower_ = lambda_max_ / options_.eigenvalue_ratio;
  }

  /// Number of rows n.
  std::int64_t num_rows() const { return jacobi_.num_rows(); }
  /// λmax of D⁻¹A: the power iterations' estimate, or ChebyshevOptions::lambda_max.
  double lambda_max() const { return lambda_max_; }
  /// The interval the polynomial is tuned to: [λmax / eigenvalue_ratio, ...
  double interval_lower() const { return lower_; }
  /// ... eigenvalue_boost · λmax].
  double interval_upper() const { return upper_; }
  /// The options it was built with.
  ChebyshevOptions const& options() const { return options_; }
  /// 1 / diag(A), in the polynomial's scalar type.
  polynomial_vector_type const& inverse_diagonal() const { return jacobi_.inverse_diagonal(); }
  /// The operator the polynomial applies.
  Operator const& polynomial_operator() const { return op_; }
  /// Device memory held besides the operator (and what keep_alive holds): D⁻¹
  /// and two work vectors, and in another precision (degree > 1) an iterate
  /// and r, in bytes.
  std::size_t memory_bytes() const {
    return (3 + 2 * static_cast<std::size_t>(z_.extent(0) > 0)) *
           static_cast<std::size_t>(num_rows()) * sizeof(poly_scalar);
  }

  /// z = M⁻¹ r = p(D⁻¹A) D⁻¹ r: `degree` Chebyshev steps from z = 0;
  /// asynchronous on exec; r and z distinct. Uses the work vectors: one apply
  /// at a time per preconditioner.
  void apply(execution_space const& exec, vector_type const& r, vector_type const& z) const {
    using Range = Kokkos::RangePolicy<execution_space, Kokkos::IndexType<std::int64_t>>;
    using P = poly_scalar;
    using PVec = polynomial_vector_type;
    using V = vector_type;
    const Range range(exec, 0, num_rows());
    PVec const& dinv = jacobi_.inverse_diagonal();
    const double theta = (upper_ + lower_) / 2, delta = (upper_ - lower_) / 2;
    const double sigma = theta / delta;
    const int degree = options_.degree;
    if (empty_) return;
    if (degree == 1) {
      Kokkos::parallel_for(
          "SpMVKit::preconditioner::chebyshev_first", range,
          detail::ChebyshevPolyFirst<PVec, V, V, false>{dinv, r, z, PVec(), P(1 / theta)});
      return;
    }
    // zₖ alternates between two vectors, zₖ₊₁ overwriting zₖ₋₁. In the operator's
    // precision they are z and d_, arranged so that z_degree lands in z; in
    // another they are d_ and z_, and the last step writes z.
    auto iterate = [&](int k) -> PVec {
      if constexpr (mixed) {
        return k % 2 ? z_ : d_;
      } else {
        return (degree - k) % 2 ? d_ : z;
      }
    };
    // r in the polynomial's precision: r itself, or its copy r_ made by the first step.
    using RP = std::conditional_t<mixed, PVec, V>;
    RP rp;
    if constexpr (mixed) {
      rp = r_;
      Kokkos::parallel_for(
          "SpMVKit::preconditioner::chebyshev_first", range,
          detail::ChebyshevPolyFirst<PVec, V, PVec, true>{dinv, r, iterate(1), r_, P(1 / theta)});
    } else {
      rp = r;
      Kokkos::parallel_for("SpMVKit::preconditioner::chebyshev_first", range,
                           detail::ChebyshevPolyFirst<PVec, V, PVec, false>{dinv, r, iterate(1),
                                                                            PVec(), P(1 / theta)});
    }
    double rho = 1 / sigma;
    for (int k = 1; k < degree; ++k) {
      PVec const zk = iterate(k);
      op_.apply(exec, zk, w_);
      const double rho_next = 1 / (2 * sigma - rho);
      const P a = P(rho_next * rho), c = P(2 * rho_next / delta);
      const PVec prev = k > 1 ? iterate(k - 1) : PVec();
      const bool last = k + 1 == degree;
      auto run = [&](auto step) {
        Kokkos::parallel_for("SpMVKit::preconditioner::chebyshev_step", range, step);
      };
      if (last && mixed) {
        if (k == 1) {
          run(detail::ChebyshevPolyStep<PVec, RP, V, true>{dinv, rp, w_, zk, prev, z, a, c});
        } else {
          run(detail::ChebyshevPolyStep<PVec, RP, V, false>{dinv, rp, w_, zk, prev, z, a, c});
        }
      } else {
        // Not mixed, the last step's iterate(k + 1) is z.
        PVec const out = iterate(k + 1);
        if (k == 1) {
          run(detail::ChebyshevPolyStep<PVec, RP, PVec, true>{dinv, rp, w_, zk, prev, out, a, c});
        } else {
          run(detail::ChebyshevPolyStep<PVec, RP, PVec, false>{dinv, rp, w_, zk, prev, out, a, c});
        }
      }
      rho = rho_next;
    }
  }

private:
  static constexpr char const* where = "spmvkit::ChebyshevPreconditioner";

  static std::string text(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }

  static ChebyshevOptions const& checked(ChebyshevOptions const& o) {
    auto fail = [](std::string const& what) { throw std::invalid_argument(where + (": " + what)); };
    if (o.degree < 1) fail("degree = " + std::to_string(o.degree) + " must be at least 1");
    if (!(o.eigenvalue_ratio > 1) || !std::isfinite(o.eigenvalue_ratio)) {
      fail("eigenvalue_ratio = " + text(o.eigenvalue_ratio) +
           " must be finite and greater than 1 (λmax / λmin of the interval)");
    }
    if (!(o.eigenvalue_boost >= 1) || !std::isfinite(o.eigenvalue_boost)) {
      fail("eigenvalue_boost = " + text(o.eigenvalue_boost) + " must be finite and at least 1");
    }
    if (!(o.lambda_max >= 0) || !std::isfinite(o.lambda_max)) {
      fail("lambda_max = " + text(o.lambda_max) +
           " must be finite and positive, or 0 to estimate it");
    }
    if (o.lambda_max == 0 && o.power_iterations < 1) {
      fail("power_iterations = " + std::to_string(o.power_iterations) +
           " must be at least 1 to estimate λmax (or give lambda_max)");
    }
    return o;
  }

  /// Power iterations on D⁻¹A from a fixed start (d_ holds x, w_ holds y);
  /// the Rayleigh quotient xᵀy / xᵀx of the last one. The operator's
  /// reduction policy sums the partial sums (a distributed operator's ranks).
  double estimate_lambda_max(execution_space const& exec) {
    using Range = Kokkos::RangePolicy<execution_space, Kokkos::IndexType<std::int64_t>>;
    using S = poly_scalar;
    using PVec = polynomial_vector_type;
    const Range range(exec, 0, num_rows());
    const auto reduction = op_.reduction();
    Kokkos::parallel_for("SpMVKit::preconditioner::chebyshev_start", range,
                         detail::ChebyshevStart<PVec>{d_, detail::first_global_row(op_)});
    double lambda = 0;
    for (int k = 1; k <= options_.power_iterations; ++k) {
      op_.apply(exec, d_, w_);
      double sums[3] = {0, 0, 0};
      detail::reduce_rows("SpMVKit::preconditioner::chebyshev_power", exec, num_rows(),
                          detail::ChebyshevPower<PVec>{inverse_diagonal(), d_, w_}, sums);
      reduction.all_reduce_host(sums, 3);
      lambda = sums[0] / sums[1];
      const bool last = k == options_.power_iterations;
      if (!std::isfinite(lambda) || !(lambda > 0) || !(sums[2] > 0) || !std::isfinite(sums[2])) {
        throw std::invalid_argument(
            std::string(where) + ": the power iteration's estimate of λmax(D⁻¹A) is " +
            text(lambda) + " at iteration " + std::to_string(k) +
            " (not finite or not positive: is A finite, and are the eigenvalues of D⁻¹A on the "
            "positive side, as for a symmetric positive definite A?); give lambda_max if known");
      }
      if (!last) {
        Kokkos::parallel_for("SpMVKit::preconditioner::chebyshev_normalise", range,
                             detail::ChebyshevScale<PVec>{d_, w_, S(1 / std::sqrt(sums[2]))});
      }
    }
    return lambda;
  }

  std::shared_ptr<void const> keep_alive_;
  ChebyshevOptions options_;
  // Operators' apply() may be non-const (a cached handle); apply() here is const.
  mutable Operator op_;
  JacobiPreconditioner<Operator> jacobi_;
  polynomial_vector_type d_, w_, z_, r_;
  double lambda_max_ = 0, upper_ = 0, lower_ = 0;
  bool empty_ = false;
};

/// The Chebyshev preconditioner of A: a matrix of any SpMVKit format, a
/// KokkosSparse::CrsMatrix (with interop/kokkos_kernels.hpp) or an operator;
/// ChebyshevPreconditioner of its operator. A matrix is held by reference
/// (MatrixOperator): it must outlive the preconditioner.
template <class ExecutionSpace, class Matrix>
auto make_chebyshev(ExecutionSpace const& exec, Matrix const& A,
                    ChebyshevOptions const& options = ChebyshevOptions()) {
  auto&& op = detail::as_operator<void>(A);
  using Op = std::remove_const_t<std::remove_reference_t<decltype(op)>>;
  return ChebyshevPreconditioner<Op>(exec, op, options);
}

namespace detail {

/// in's values in float, one thread per value; `bad` = the first whose float
/// is not finite, in.extent(0) when none.
template <class ExecutionSpace, class In>
Kokkos::View<float*, typename In::device_type> float_values(ExecutionSpace const& exec,
                                                            In const& in, std::int64_t& bad) {
  using Out = Kokkos::View<float*, typename In::device_type>;
  const auto count = static_cast<std::int64_t>(in.extent(0));
  auto out = allocate_view<Out>(exec, "SpMVKit::preconditioner::chebyshev_float_values", count);
  bad = count;
  Kokkos::parallel_reduce(
      "SpMVKit::preconditioner::chebyshev_float_values",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count),
      ChebyshevFloatValues<In, Out>{in, out}, Kokkos::Min<std::int64_t>(bad));
  return out;
}

/// A's values in float as a CRS sharing A's structure (checked first, or its
/// kept verdict); throws std::invalid_argument naming the first entry, and its
/// row, that float cannot hold. `where` names the caller.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
CrsMatrix<float, ExecutionSpace, Ordinal, Offset>
float_values_crs(ExecutionSpace const& exec,
                 CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, char const* where) {
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using FloatCrs = CrsMatrix<float, ExecutionSpace, Ordinal, Offset>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  // The float matrix shares A's structure: it must be valid (a kept verdict when checked before).
  ensure_structure(exec, A);
  const auto nnz = static_cast<std::int64_t>(A.nnz());
  std::int64_t bad = nnz;
  const auto values = float_values(exec, A.values(), bad);
  if (bad < nnz) {
    std::int64_t row = A.num_rows();
    Kokkos::parallel_reduce("SpMVKit::preconditioner::chebyshev_row_of_entry",
                            Range(exec, 0, A.num_rows()),
                            CrsRowOfEntry<Offset, typename Crs::device_type>{A.row_starts(), bad},
                            Kokkos::Min<std::int64_t>(row));
    throw std::invalid_argument(std::string(where) + ": entry " + std::to_string(bad) + " (row " +
                                std::to_string(row) +
                                ") of A is not finite in float (NaN, infinite, or beyond "
                                "float's range)");
  }
  const FloatCrs F(A.num_rows(), A.num_cols(), A.row_starts(), A.column_indices(), values);
  F.trust_structure(); // A's, checked above
  return F;
}

/// Whether a matrix of this type keeps all its values in values() (padding 0)
/// and can share every other array with a copy of another scalar type: CRS
/// and both SELL kinds.
template <class M>
struct shares_structure_across_scalars : std::false_type {};
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
struct shares_structure_across_scalars<CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>>
    : std::true_type {};
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
struct shares_structure_across_scalars<
    BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns>> : std::true_type {};

/// B's twin of type FM (B's format with float values) on B's structure arrays
/// and the given values (B.values()'s layout).
template <class FM, class M, class Values>
FM with_values(M const& B, Values const& values) {
  if constexpr (is_crs_matrix<M>::value) {
    const FM F(B.num_rows(), B.num_cols(), B.row_starts(), B.column_indices(), values);
    if (B.structure_known()) F.trust_structure();
    return F;
  } else {
    return FM(B.num_rows(), B.num_cols(), B.nnz(), B.chunk_size(), B.sigma(), B.chunk_starts(),
              B.chunk_widths(), B.stored_columns(), values, B.row_permutation(), B.row_lengths());
  }
}

} // namespace detail

/// The Chebyshev preconditioner of A with its polynomial in float: products
/// with a float copy of A's values (sharing A's structure, stored in the
/// format make_auto_matrix() chooses for it with `format`), recurrence on
/// float vectors, applied to vectors of A's scalar. A step reads float values
/// and half the vector bytes: about 6 bytes per entry instead of 10 with
/// SellOffset16's 16-bit column offsets (8 instead of 12 with 32-bit
/// indices), so on a GPU a polynomial of higher degree pays; CG keeps A's own
/// products, so it still reaches double tolerances (the float rounding of M⁻¹
/// costs a few iterations at most). The copy is the preconditioner's own.
/// Values below float's range round to 0 or a subnormal: harmless off the
/// diagonal, and a diagonal entry that becomes 0 is Jacobi's error naming its row.
///
/// Throws std::invalid_argument for a broken CRS structure of A
/// (check_crs_structure()) and for a value that is not finite in float
/// (beyond float's range, or NaN/Inf in A), naming the first such entry and
/// its row; what make_auto_matrix() and the preconditioner's constructor
/// throw; AllocationError. Synchronous. Extra memory: A's values in float and
/// the chosen format's copy of them, five float vectors of n.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
ChebyshevPreconditioner<MatrixOperator<AutoMatrix<float, ExecutionSpace, Ordinal, Offset>>, Scalar>
make_float_chebyshev(ExecutionSpace const& exec,
                     CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                     ChebyshevOptions const& options = ChebyshevOptions(),
                     AutoOptions const& format = AutoOptions()) {
  using FloatAuto = AutoMatrix<float, ExecutionSpace, Ordinal, Offset>;
  const auto F = detail::float_values_crs(exec, A, "spmvkit::make_float_chebyshev");
  auto stored = std::make_shared<FloatAuto const>(make_auto_matrix(exec, F, format));
  using Op = MatrixOperator<FloatAuto>;
  return ChebyshevPreconditioner<Op, Scalar>(exec, Op(*stored), options, stored);
}

/// The same from A in the automatic format (the solver's own matrix): the
/// float copy takes A's chosen format and options instead of choosing again.
/// CRS and both SELL kinds share A's structure arrays and convert only the
/// stored values (padding included), so the copy costs one pass over them;
/// the other formats convert a float copy of A's CRS form. Extra memory: the
/// float values (of the chosen format; for the others also A's CRS form and a
/// float copy of its values while converting), five float vectors of n. Throws as the CRS overload
/// (naming the first bad entry of A's CRS form and its row) and std::logic_error for an empty
/// handle.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
ChebyshevPreconditioner<MatrixOperator<AutoMatrix<float, ExecutionSpace, Ordinal, Offset>>, Scalar>
make_float_chebyshev(ExecutionSpace const& exec,
                     AutoMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                     ChebyshevOptions const& options = ChebyshevOptions()) {
  using FloatAuto = AutoMatrix<float, ExecutionSpace, Ordinal, Offset>;
  using Variant = typename FloatAuto::variant_type;
  constexpr char const* where = "spmvkit::make_float_chebyshev";
  Kokkos::Timer timer;
  Variant v = A.visit([&](auto const& B, auto const& o) -> Variant {
    using M = std::decay_t<decltype(B)>;
    using Fmt = format_of_t<M>;
    using FM = matrix_of_t<Fmt, float, ExecutionSpace, Ordinal, Offset>;
    if constexpr (detail::shares_structure_across_scalars<M>::value) {
      const auto stored_entries = static_cast<std::int64_t>(B.values().extent(0));
      std::int64_t bad = stored_entries;
      const auto values = detail::float_values(exec, B.values(), bad);
      if (bad < stored_entries) {
        // Named as the CRS overload names it: the entry of A's CRS form and its row.
        detail::float_values_crs(exec, Fmt::to_crs(exec, B), where);
        throw std::invalid_argument(std::string(where) + ": stored entry " + std::to_string(bad) +
                                    " of A's " + A.selection().format +
                                    " form is not finite in float (NaN, infinite, or beyond "
                                    "float's range)");
      }
      return AutoEntry<Fmt, FM>{detail::with_values<FM>(B, values), o};
    } else {
      const auto F = detail::float_values_crs(exec, Fmt::to_crs(exec, B), where);
      return AutoEntry<Fmt, FM>{Fmt::from_crs(exec, F, o), o};
    }
  });
  exec.fence();
  FormatSelection s = A.selection();
  s.reason = "the double matrix's choice, its values converted to float";
  s.conversion_seconds = timer.seconds();
  s.check_seconds = 0;
  s.tuning_seconds = 0;
  s.bytes = std::visit(
      [](auto const& e) { return std::decay_t<decltype(e)>::format_type::bytes(e.matrix); }, v);
  auto stored = std::make_shared<FloatAuto const>(std::move(v), std::move(s), A.options(),
                                                  A.num_rows(), A.num_cols(), A.nnz());
  using Op = MatrixOperator<FloatAuto>;
  return ChebyshevPreconditioner<Op, Scalar>(exec, Op(*stored), options, stored);
}

} // namespace spmvkit

#endif
