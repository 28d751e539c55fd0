// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_BICGSTAB_HPP
#define SPMVKIT_SOLVERS_BICGSTAB_HPP

/// \file
/// BiCGStab (van der Vorst 1992), right-preconditioned, for nonsymmetric
/// systems, on any operator (solvers/operator.hpp) and any preconditioner
/// (solvers/preconditioner.hpp).
///
/// Per iteration: two operator applies, two preconditioner applies (fused into
/// the vector kernels for an element-wise one such as Jacobi), three vector
/// kernels that carry their reductions ({‖s‖²}, {tᵀs, tᵀt}, {r̂ᵀr, ‖r‖²}) and
/// one dot product (r̂ᵀv): four host reads of scalars. With s = sizeof(Scalar)
/// and n rows the vector traffic besides the applies is 21 n s (KokkosBlas
/// calls for the same recurrence: 30 n s).
///
/// Breakdowns: ρ = r̂ᵀr vanishing (|ρ| <= ε ‖r̂‖ ‖r‖, ε of Scalar) or r̂ᵀv = 0
/// (the shadow residual has become orthogonal), and ω = 0 (tᵀs = 0: the
/// stabilisation step made no progress). After at least one iteration since
/// the last (re)start the solver restarts from the true residual b − A x with
/// it as the new r̂ (counted in residual_replacements), as a near-breakdown
/// deep in an erratic convergence history is a matter of rounding; a breakdown
/// right after a (re)start ends the solve with SolverStatus::breakdown naming
/// the quantity and the iteration. Convergence is declared on the true
/// residual (solvers/solver_options.hpp).
#include <spmvkit/core/detail/row_blocks.hpp>
#include <spmvkit/solvers/detail/krylov_base.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/solver_options.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

namespace spmvkit {

/// Options of bicgstab(): the shared stopping criteria and logging.
struct BicgstabOptions : SolverOptions {};

namespace detail {

/// p = r + β (p − ω v); phat = M⁻¹ p when M is element-wise.
template <class Vec, bool Diagonal>
struct BicgstabDirection {
  Vec r, p, v, phat, dinv;
  typename Vec::non_const_value_type beta, omega;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto pi = r(i) + beta * (p(i) - omega * v(i));
    p(i) = pi;
    if constexpr (Diagonal) phat(i) = dinv(i) * pi;
  }
};

/// s = r − α v (in place of r); shat = M⁻¹ s when element-wise; sum ‖s‖².
template <class Vec, bool Diagonal>
struct BicgstabHalf {
  Vec r, v, shat, dinv;
  typename Vec::non_const_value_type alpha;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& ss) const {
    const auto si = r(i) - alpha * v(i);
    r(i) = si;
    if constexpr (Diagonal) shat(i) = dinv(i) * si;
    ss += static_cast<double>(si) * static_cast<double>(si);
  }
};

/// sums = {tᵀs, tᵀt}.
template <class Vec>
struct BicgstabOmega {
  using value_type = double[];
  Vec t, s;
  unsigned value_count = 2;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const double ti = static_cast<double>(t(i));
    sums[0] += ti * static_cast<double>(s(i));
    sums[1] += ti * ti;
  }
};

/// x += α phat + ω shat; r = s − ω t (r holds s); sums = {r̂ᵀr, ‖r‖²}.
template <class Vec>
struct BicgstabUpdate {
  using value_type = double[];
  Vec x, phat, shat, r, t, rhat;
  typename Vec::non_const_value_type alpha, omega;
  unsigned value_count = 2;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    x(i) += alpha * phat(i) + omega * shat(i);
    const auto ri = r(i) - omega * t(i);
    r(i) = ri;
    sums[0] += static_cast<double>(rhat(i)) * static_cast<double>(ri);
    sums[1] += static_cast<double>(ri) * static_cast<double>(ri);
  }
};

/// x += α phat (the half step that met the tolerance).
template <class Vec>
struct BicgstabHalfStep {
  Vec x, phat;
  typename Vec::non_const_value_type alpha;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { x(i) += alpha * phat(i); }
};

template <class ExecutionSpace, class Op, class Prec, class BView, class XView>
class BicgstabSolver : KrylovBase<ExecutionSpace, Op, Prec, BView, XView> {
  using Base = KrylovBase<ExecutionSpace, Op, Prec, BView, XView>;
  using Base::elementwise_prec;
  using typename Base::Range;
  using typename Base::Scalar;
  using typename Base::Vec;

public:
  BicgstabSolver(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b, XView const& x,
                 BicgstabOptions const& opts)
      : Base("bicgstab", exec, op, M, b, x, opts) {
    this->agreed([&] {
      auto vec = [&](char const* label) {
        return work_view<Vec>(opts.workspace, exec, label, this->n_);
      };
      r_ = vec("SpMVKit::bicgstab::r");
      rhat_ = vec("SpMVKit::bicgstab::rhat");
      p_ = vec("SpMVKit::bicgstab::p");
      v_ = vec("SpMVKit::bicgstab::v");
      t_ = vec("SpMVKit::bicgstab::t");
      phat_ = vec("SpMVKit::bicgstab::phat");
      shat_ = vec("SpMVKit::bicgstab::shat");
    });
    if constexpr (elementwise_prec) dinv_ = M.inverse_diagonal();
  }

  SolverResult solve() {
    Kokkos::Timer total;
    auto& res = this->result_;
    double rnorm = 0;
    if (auto done = this->begin(r_, rnorm, total)) return *done;
    std::string message;
    const double nb = this->norm_b_;
    const double tol = this->tolerance();

    Kokkos::Timer loop;
    double previous_true = std::numeric_limits<double>::infinity();
    SolverStatus status = SolverStatus::iteration_limit;
    restart(rnorm);
    while (true) {
      status = iterate(loop, message);
      if (status == SolverStatus::breakdown && res.iterations > cycle_start_ &&
          res.iterations < this->opts_.max_iterations) {
        // ρ or r̂ᵀv vanished after progress (BiCGStab's residual can swing by
        // orders of magnitude, and one rounding order reaches a zero another
        // does not): restart from the true residual with it as the new r̂. A
        // breakdown in a cycle's first iteration is reported (nothing to gain).
        ++res.residual_replacements;
        message.clear();
        const double restart_norm = this->residual(r_);
        res.relative_residual = res.true_relative_residual = restart_norm / nb;
        if (restart_norm <= tol * nb) {
          status = SolverStatus::converged;
          break;
        }
        restart(restart_norm);
        continue;
      }
      if (status != SolverStatus::converged) {
        true_residual();
        break;
      }
      const double true_rel = true_residual();
      if (true_rel <= tol) break;
      // The recurrence met the tolerance, b − A x did not: go on from the true
      // residual while that still halves it.
      if (!(true_rel < 0.5 * previous_true) || res.iterations >= this->opts_.max_iterations) {
        status = res.iterations >= this->opts_.max_iterations && true_rel < 0.5 * previous_true
                     ? SolverStatus::iteration_limit
                     : SolverStatus::stagnated;
        message = "the recurrence residual " + solver_number(res.relative_residual) +
                  " met the tolerance " + solver_number(tol) +
                  " but the true residual ‖b − A x‖/‖b‖ is " + solver_number(true_rel) + " after " +
                  std::to_string(res.residual_replacements) + " residual replacement(s)";
        break;
      }
      previous_true = true_rel;
      ++res.residual_replacements;
      restart(this->residual(r_));
    }
    return this->finish(status, message, total, loop.seconds());
  }

private:
  /// A new shadow residual r̂ = r and fresh directions (start and replacement).
  void restart(double rnorm) {
    cycle_start_ = this->result_.iterations;
    rhat_norm_ = rnorm;
    Kokkos::deep_copy(this->exec_, rhat_, r_);
    Kokkos::deep_copy(this->exec_, p_, Scalar(0));
    Kokkos::deep_copy(this->exec_, v_, Scalar(0));
    rho_ = rnorm * rnorm;
    alpha_ = omega_ = 1;
  }

  /// ‖b − A x‖/‖b‖ into the result (r_ is left alone: tmp_ holds the residual).
  double true_residual() {
    auto& res = this->result_;
    this->apply_op(this->xw_, this->tmp_);
    double sums[2] = {0, 0};
    reduce_rows<2>("SpMVKit::bicgstab::true_residual", this->exec_, this->n_,
                   KrylovResidual<Vec, BView>{this->b_, this->tmp_, this->tmp_}, sums);
    this->all_reduce(sums, 2);
    res.true_relative_residual = std::sqrt(sums[0]) / this->norm_b_;
    return res.true_relative_residual;
  }

  SolverStatus iterate(Kokkos::Timer const& loop, std::string& message) {
    auto& res = this->result_;
    auto const& opts = this->opts_;
    const double nb = this->norm_b_;
    const double tol = this->tolerance();
    const std::int64_t n = this->n_;
    auto const& exec = this->exec_;
    bool first = true;
    while (res.iterations < opts.max_iterations) {
      const int k = res.iterations + 1;
      auto fail = [&](SolverStatus s, std::string what) {
        message = std::move(what) + " at iteration " + std::to_string(k);
        return s;
      };
      // β = (ρ_k / ρ_{k−1}) (α / ω); the first step after a (re)start has p = r.
      const double beta = first ? 0.0 : (rho_ / rho_old_) * (alpha_ / omega_);
      first = false;
      Kokkos::parallel_for("SpMVKit::bicgstab::direction", Range(exec, 0, n),
                           BicgstabDirection<Vec, elementwise_prec>{r_, p_, v_, phat_, dinv_,
                                                                    Scalar(beta), Scalar(omega_)});
      if constexpr (!elementwise_prec) this->apply_prec(p_, phat_);
      this->apply_op(phat_, v_);
      const double sigma = this->dot(rhat_, v_);
      if (!std::isfinite(sigma)) return fail(SolverStatus::non_finite, "non-finite r̂ᵀv");
      if (sigma == 0) return fail(SolverStatus::breakdown, "breakdown: r̂ᵀv = 0");
      alpha_ = rho_ / sigma;
      double ss = 0;
      reduce_rows<2>("SpMVKit::bicgstab::half", exec, n,
                     BicgstabHalf<Vec, elementwise_prec>{r_, v_, shat_, dinv_, Scalar(alpha_)}, ss);
      this->all_reduce(&ss, 1);
      if (!std::isfinite(ss)) return fail(SolverStatus::non_finite, "non-finite ‖s‖");
      if (std::sqrt(ss) <= tol * nb) {
        // The half step already meets the tolerance: x += α phat, r = s.
        Kokkos::parallel_for("SpMVKit::bicgstab::half_step", Range(exec, 0, n),
                             BicgstabHalfStep<Vec>{this->xw_, phat_, Scalar(alpha_)});
        res.iterations = k;
        res.relative_residual = std::sqrt(ss) / nb;
        this->report(k, res.relative_residual, loop.seconds());
        return SolverStatus::converged;
      }
      if constexpr (!elementwise_prec) this->apply_prec(r_, shat_);
      this->apply_op(shat_, t_);
      double ts[2] = {0, 0};
      reduce_rows<2>("SpMVKit::bicgstab::omega", exec, n, BicgstabOmega<Vec>{t_, r_}, ts);
      this->all_reduce(ts, 2);
      if (!std::isfinite(ts[0]) || !std::isfinite(ts[1]))
        return fail(SolverStatus::non_finite, "non-finite tᵀs or tᵀt");
      if (ts[1] == 0 || ts[0] == 0)
        return fail(SolverStatus::breakdown, "breakdown: ω = tᵀs / tᵀt = 0");
      omega_ = ts[0] / ts[1];
      double sums[2] = {0, 0};
      reduce_rows("SpMVKit::bicgstab::update", exec, n,
                  BicgstabUpdate<Vec>{this->xw_, phat_, shat_, r_, t_, rhat_, Scalar(alpha_),
                                      Scalar(omega_)},
                  sums);
      this->all_reduce(sums, 2);
      res.iterations = k;
      const double rnorm = std::sqrt(sums[1]);
      if (!std::isfinite(rnorm) || !std::isfinite(sums[0]))
        return fail(SolverStatus::non_finite, "non-finite residual");
      res.relative_residual = rnorm / nb;
      this->report(k, res.relative_residual, loop.seconds());
      if (rnorm <= tol * nb) return SolverStatus::converged;
      if (res.relative_residual > opts.divergence_factor) {
        message = "the residual ‖r‖/‖b‖ = " + solver_number(res.relative_residual) +
                  " at iteration " + std::to_string(k) + " exceeds divergence_factor " +
                  solver_number(opts.divergence_factor);
        return SolverStatus::diverged;
      }
      rho_old_ = rho_;
      rho_ = sums[0];
      // ρ this small against ‖r̂‖ ‖r‖ makes β all rounding: a breakdown in all but name.
      if (!(std::fabs(rho_) > std::numeric_limits<Scalar>::epsilon() * rhat_norm_ * rnorm))
        return fail(SolverStatus::breakdown,
                    "breakdown: ρ = r̂ᵀr = " + solver_number(rho_) +
                        " (‖r̂‖ ‖r‖ = " + solver_number(rhat_norm_ * rnorm) + ")");
    }
    return SolverStatus::iteration_limit;
  }

  Vec r_, rhat_, p_, v_, t_, phat_, shat_, dinv_;
  double rho_ = 1, rho_old_ = 1, alpha_ = 1, omega_ = 1;
  double rhat_norm_ = 0; // ‖r̂‖
  int cycle_start_ = 0;  // iterations done at the last (re)start
};

} // namespace detail

/// Solves A x = b by right-preconditioned BiCGStab on `exec`, with preconditioner
/// M (solvers/preconditioner.hpp; the overload without M runs unpreconditioned).
///
/// A is a matrix of any SpMVKit format, a KokkosSparse::CrsMatrix (with
/// interop/kokkos_kernels.hpp) or an operator (solvers/operator.hpp), square;
/// b and x rank-1 Views of its scalar type with n entries, not sharing storage.
/// Returns the status rather than throwing for numerical trouble (breakdown,
/// non_finite, diverged, stagnated, iteration_limit: solvers/solver_options.hpp);
/// throws std::invalid_argument for mismatched sizes (operator, vectors,
/// preconditioner), aliased vectors or bad options, AllocationError when a work
/// vector cannot be allocated. Synchronous. Memory: eight work vectors of n.
template <class ExecutionSpace, class Matrix, class Prec, class BView, class XView,
          class = std::enable_if_t<is_preconditioner_v<Prec>>>
SolverResult bicgstab(ExecutionSpace const& exec, Matrix const& A, Prec const& M, BView const& b,
                      XView const& x, BicgstabOptions const& opts = BicgstabOptions()) {
  auto&& op = detail::as_operator<BView>(A);
  return detail::run_krylov<detail::BicgstabSolver>(exec, op, M, b, x, opts);
}

/// The same for an operator that keeps state between applies (a cached
/// handle, such as KokkosKernelsOperator): taken by non-const reference.
template <
    class ExecutionSpace, class Op, class Prec, class BView, class XView,
    class = std::enable_if_t<detail::is_linear_operator<Op>::value && is_preconditioner_v<Prec>>>
SolverResult bicgstab(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b,
                      XView const& x, BicgstabOptions const& opts = BicgstabOptions()) {
  return detail::run_krylov<detail::BicgstabSolver>(exec, op, M, b, x, opts);
}

/// Unpreconditioned BiCGStab (M = I); as above.
template <class ExecutionSpace, class Matrix, class BView, class XView,
          class = std::enable_if_t<Kokkos::is_view<BView>::value>>
SolverResult bicgstab(ExecutionSpace const& exec, Matrix const& A, BView const& b, XView const& x,
                      BicgstabOptions const& opts = BicgstabOptions()) {
  auto&& op = detail::as_operator<BView>(A);
  return detail::run_krylov_unpreconditioned<detail::BicgstabSolver>(exec, op, b, x, opts);
}

/// Unpreconditioned, for an operator taken by non-const reference; as above.
template <class ExecutionSpace, class Op, class BView, class XView,
          class = std::enable_if_t<detail::is_linear_operator<Op>::value &&
                                   Kokkos::is_view<BView>::value>>
SolverResult bicgstab(ExecutionSpace const& exec, Op& op, BView const& b, XView const& x,
                      BicgstabOptions const& opts = BicgstabOptions()) {
  return detail::run_krylov_unpreconditioned<detail::BicgstabSolver>(exec, op, b, x, opts);
}

} // namespace spmvkit

#endif
