// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_PCG_SOLVER_HPP
#define SPMVKIT_SOLVERS_DETAIL_PCG_SOLVER_HPP

// CG with a general preconditioner (block-Jacobi, Chebyshev, IC(0)): z = M⁻¹ r
// is a stored vector, so the loop is the textbook one with host-formed scalars.
// Element-wise preconditioners take the fused loop of cg_solver.hpp instead.
#include <spmvkit/solvers/cg_options.hpp>
#include <spmvkit/solvers/detail/krylov_base.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace spmvkit::detail {

/// x += α p; r −= α q; sum rᵀr.
template <class Vec>
struct PcgUpdate {
  Vec x, p, r, q;
  typename Vec::non_const_value_type alpha;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& rr) const {
    x(i) += alpha * p(i);
    const auto ri = r(i) - alpha * q(i);
    r(i) = ri;
    rr += static_cast<double>(ri) * static_cast<double>(ri);
  }
};

/// p = z + β p.
template <class Vec>
struct PcgDirection {
  Vec z, p;
  typename Vec::non_const_value_type beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { p(i) = z(i) + beta * p(i); }
};

template <class ExecutionSpace, class Op, class Prec, class BView, class XView>
class PcgSolver : KrylovBase<ExecutionSpace, Op, Prec, BView, XView> {
  using Base = KrylovBase<ExecutionSpace, Op, Prec, BView, XView>;
  using typename Base::Range;
  using typename Base::Scalar;
  using typename Base::Vec;

public:
  PcgSolver(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b, XView const& x,
            CgOptions const& opts)
      : Base("cg", exec, op, M, b, x, opts) {
    this->agreed([&] {
      r_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::r", this->n_);
      z_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::z", this->n_);
      p_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::p", this->n_);
      q_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::q", this->n_);
    });
  }

  SolverResult solve() {
    Kokkos::Timer total;
    auto& res = this->result_;
    double rnorm = 0;
    if (auto done = this->begin(r_, rnorm, total)) return *done;
    std::string message;
    const double tol = this->tolerance();
    Kokkos::Timer loop;
    double previous_true = std::numeric_limits<double>::infinity();
    SolverStatus status;
    while (true) {
      status = iterate(loop, message);
      const double true_rel = true_residual();
      if (status != SolverStatus::converged || true_rel <= tol) break;
      if (!(true_rel < 0.5 * previous_true) || res.iterations >= this->opts_.max_iterations) {
        status = SolverStatus::stagnated;
        message = "the recurrence residual " + solver_number(res.relative_residual) +
                  " met the tolerance " + solver_number(tol) +
                  " but the true residual ‖b − A x‖/‖b‖ is " + solver_number(true_rel);
        break;
      }
      previous_true = true_rel;
      ++res.residual_replacements;
      this->residual(r_);
    }
    return this->finish(status, message, total, loop.seconds());
  }

private:
  double true_residual() {
    this->apply_op(this->xw_, this->tmp_);
    double sums[2] = {0, 0};
    reduce_rows<2>("SpMVKit::cg::true_residual", this->exec_, this->n_,
                   KrylovResidual<Vec, BView>{this->b_, this->tmp_, this->tmp_}, sums);
    this->all_reduce(sums, 2);
    this->result_.true_relative_residual = std::sqrt(sums[0]) / this->norm_b_;
    return this->result_.true_relative_residual;
  }

  SolverStatus iterate(Kokkos::Timer const& loop, std::string& message) {
    auto& res = this->result_;
    auto const& exec = this->exec_;
    const std::int64_t n = this->n_;
    const double nb = this->norm_b_, tol = this->tolerance();
    // A (re)start: z = M⁻¹ r, p = z.
    this->apply_prec(r_, z_);
    double rz = this->dot(r_, z_);
    Kokkos::deep_copy(exec, p_, z_);
    while (res.iterations < this->opts_.max_iterations) {
      const int k = res.iterations + 1;
      if (!std::isfinite(rz)) {
        message = "non-finite rᵀM⁻¹r at iteration " + std::to_string(k);
        return SolverStatus::non_finite;
      }
      if (!(rz > 0)) {
        message = "the preconditioner is not positive definite (rᵀM⁻¹r = " + solver_number(rz) +
                  " at iteration " + std::to_string(k) + ")";
        return SolverStatus::indefinite;
      }
      this->apply_op(p_, q_);
      const double pq = this->dot(p_, q_);
      if (!std::isfinite(pq)) {
        message = "non-finite value in pᵀAp at iteration " + std::to_string(k);
        return SolverStatus::non_finite;
      }
      if (!(pq > 0)) {
        message = "matrix is not positive definite (pᵀAp = " + solver_number(pq) +
                  " at iteration " + std::to_string(k) + ")";
        return SolverStatus::indefinite;
      }
      double rr = 0;
      reduce_rows("SpMVKit::cg::update", exec, n,
                  PcgUpdate<Vec>{this->xw_, p_, r_, q_, Scalar(rz / pq)}, rr);
      this->all_reduce(&rr, 1);
      res.iterations = k;
      res.relative_residual = std::sqrt(rr) / nb;
      this->report(k, res.relative_residual, loop.seconds());
      if (!std::isfinite(rr)) {
        message = "non-finite residual at iteration " + std::to_string(k);
        return SolverStatus::non_finite;
      }
      if (res.relative_residual <= tol) return SolverStatus::converged;
      if (res.relative_residual > this->opts_.divergence_factor) {
        message = "the residual ‖r‖/‖b‖ = " + solver_number(res.relative_residual) +
                  " at iteration " + std::to_string(k) + " exceeds divergence_factor " +
                  solver_number(this->opts_.divergence_factor);
        return SolverStatus::diverged;
      }
      this->apply_prec(r_, z_);
      const double rz_new = this->dot(r_, z_);
      Kokkos::parallel_for("SpMVKit::cg::direction", Range(exec, 0, n),
                           PcgDirection<Vec>{z_, p_, Scalar(rz_new / rz)});
      rz = rz_new;
    }
    return SolverStatus::iteration_limit;
  }

  Vec r_, z_, p_, q_;
};

} // namespace spmvkit::detail

#endif
