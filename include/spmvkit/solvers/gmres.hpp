// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_GMRES_HPP
#define SPMVKIT_SOLVERS_GMRES_HPP

/// \file
/// Restarted GMRES(m) (Saad and Schultz 1986), right-preconditioned, on any
/// operator and preconditioner.
///
/// Arnoldi with classical Gram-Schmidt and one reorthogonalisation (CGS2):
/// the projections h = Vᵀw of a step are one multi-dot kernel (one reduction
/// of j + 1 sums, one all-reduce for a distributed operator) rather than j + 1
/// dependent dot products, and the second pass restores the orthogonality that
/// classical Gram-Schmidt alone loses (Giraud et al. 2005). The least-squares
/// problem is kept triangular by Givens rotations on the host, whose last
/// entry |g_{j+1}| is the residual norm of the current iterate without forming
/// it. Right preconditioning keeps that estimate the true residual's (in exact
/// arithmetic): x = x0 + M⁻¹ V y.
///
/// At every restart, and when the estimate meets the tolerance, x is formed
/// and ‖b − A x‖ computed: convergence is declared on it (a missed tolerance
/// restarts from the true residual while that halves it, else stagnated).
/// A zero h_{j+1,j} (the Krylov space is invariant: the "happy breakdown") ends
/// the cycle with the exact solution of the projected problem.
///
/// Per iteration: one operator apply, one preconditioner apply and three
/// kernels over the basis (reading 3 (j + 1) n scalars: see
/// detail/gmres_kernels.hpp). On GPUs with a single-process operator the
/// step's sums stay on the device and the host reads them once per step
/// (elsewhere three times). Memory: m + 1 basis vectors, three work vectors
/// and, on GPUs, 32 partial sums per team of the projection kernel.
#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/solvers/detail/gmres_kernels.hpp>
#include <spmvkit/solvers/detail/krylov_base.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/solver_options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

/// Options of gmres(): the shared stopping criteria and logging, and the
/// restart length.
struct GmresOptions : SolverOptions {
  /// Krylov vectors per cycle (m): 0 (default) for min(30, n), else 1 <= m <= n;
  /// memory grows as (m + 1) n.
  int restart = 0;
};

namespace detail {

template <class ExecutionSpace, class Op, class Prec, class BView, class XView>
class GmresSolver : KrylovBase<ExecutionSpace, Op, Prec, BView, XView> {
  using Base = KrylovBase<ExecutionSpace, Op, Prec, BView, XView>;
  using typename Base::Range;
  using typename Base::Scalar;
  using typename Base::Vec;
  using Basis = Kokkos::View<Scalar*, typename Vec::device_type>;
  using Coefficients = Kokkos::View<Scalar*, typename Vec::device_type>;
  using StepSums = Kokkos::View<double*, typename ExecutionSpace::memory_space>;
  // One host read per Arnoldi step instead of three on GPUs, where each is a
  // fence and an idle device (docs/notes/2026-11-30-gmres-device-step.md); a
  // distributed operator sums the projections on the host between the passes.
  static constexpr bool device_steps =
      !is_host_space_v<ExecutionSpace> && std::is_same_v<typename Base::Reduction, LocalReduction>;

public:
  GmresSolver(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b, XView const& x,
              GmresOptions const& opts)
      : Base("gmres", exec, op, M, b, x, opts) {
    // n of the whole system: a distributed operator's rows are summed over its processes, so
    // that every process takes the same restart length.
    double global_rows = static_cast<double>(this->n_);
    this->all_reduce(&global_rows, 1);
    const auto n = static_cast<std::int64_t>(global_rows);
    m_ = opts.restart == 0 ? static_cast<int>(std::min<std::int64_t>(30, n)) : opts.restart;
    this->agreed([&] {
      if (opts.restart < 0 || opts.restart > n || (m_ < 1 && n > 0)) {
        throw std::invalid_argument("spmvkit::gmres: restart must be 0 (automatic) or in [1, n] = "
                                    "[1, " +
                                    std::to_string(n) + "], got " + std::to_string(opts.restart));
      }
      V_ = work_view<Basis>(
          opts.workspace, exec, "SpMVKit::gmres::basis",
          static_cast<std::int64_t>(checked_bytes(this->n_, static_cast<std::size_t>(m_) + 1,
                                                  "basis", "spmvkit::gmres")));
      w_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::gmres::w", this->n_);
      z_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::gmres::z", this->n_);
      h_ = allocate_view<Coefficients>(exec, "SpMVKit::gmres::coefficients", m_ + 1);
      h_host_ = Kokkos::create_mirror_view(h_);
      dots_ = make_gmres_dots_workspace(exec, this->n_);
      if constexpr (device_steps) {
        step_ = allocate_view<StepSums>(exec, "SpMVKit::gmres::step_sums", 2 * (m_ + 1) + 1);
        step_host_ = Kokkos::View<double*, StagingHostSpace>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::gmres::step_sums_host"),
            step_.extent(0));
      }
      H_.assign(static_cast<std::size_t>(m_ + 1) * std::max(m_, 1), 0.0);
      cs_.assign(m_, 0.0);
      sn_.assign(m_, 0.0);
      column_.assign(m_ + 2, 0.0);
      sums_.assign(m_ + 1, 0.0);
      g_.assign(m_ + 1, 0.0);
    });
  }

  SolverResult solve() {
    Kokkos::Timer total;
    auto& res = this->result_;
    double beta = 0;
    if (auto done = this->begin(w_, beta, total)) return *done;
    std::string message;
    const double nb = this->norm_b_;
    const double tol = this->tolerance();
    auto const& opts = this->opts_;

    Kokkos::Timer loop;
    double previous_true = std::numeric_limits<double>::infinity();
    SolverStatus status = SolverStatus::iteration_limit;
    while (true) {
      const Cycle cycle = arnoldi_cycle(beta, loop, message);
      // x += M⁻¹ V y; then the true residual decides.
      if (cycle.steps > 0) update_x(cycle.steps);
      beta = this->residual(w_);
      res.true_relative_residual = beta / nb;
      if (cycle.status == SolverStatus::non_finite || !std::isfinite(beta)) {
        status = SolverStatus::non_finite;
        if (message.empty()) message = "non-finite residual after a restart";
        break;
      }
      if (beta <= tol * nb) {
        status = SolverStatus::converged;
        res.relative_residual = beta / nb;
        break;
      }
      if (res.true_relative_residual > opts.divergence_factor) {
        status = SolverStatus::diverged;
        message = "the residual ‖r‖/‖b‖ = " + solver_number(res.true_relative_residual) +
                  " exceeds divergence_factor " + solver_number(opts.divergence_factor);
        break;
      }
      if (cycle.status == SolverStatus::converged) {
        // The estimate met the tolerance, the true residual did not.
        if (!(res.true_relative_residual < 0.5 * previous_true) ||
            res.iterations >= opts.max_iterations) {
          status = SolverStatus::stagnated;
          message = "the Arnoldi residual estimate " + solver_number(res.relative_residual) +
                    " met the tolerance " + solver_number(tol) +
                    " but the true residual ‖b − A x‖/‖b‖ is " +
                    solver_number(res.true_relative_residual);
          break;
        }
        previous_true = res.true_relative_residual;
        ++res.residual_replacements;
      }
      if (res.iterations >= opts.max_iterations) {
        status = SolverStatus::iteration_limit;
        break;
      }
    }
    return this->finish(status, message, total, loop.seconds());
  }

private:
  struct Cycle {
    int steps = 0;
    SolverStatus status = SolverStatus::iteration_limit; // converged: the estimate met tol
  };

  Scalar* column(int c) const { return V_.data() + static_cast<std::int64_t>(c) * this->n_; }

  /// One cycle from the residual in w_ (norm beta): up to m Arnoldi steps.
  Cycle arnoldi_cycle(double beta, Kokkos::Timer const& loop, std::string& message) {
    auto& res = this->result_;
    auto const& exec = this->exec_;
    const std::int64_t n = this->n_;
    const double nb = this->norm_b_;
    const double tol = this->tolerance();
    Kokkos::parallel_for("SpMVKit::gmres::first_vector", Range(exec, 0, n),
                         GmresStore<Vec, Basis>{V_, w_, n, 0, Scalar(1.0 / beta)});
    std::fill(g_.begin(), g_.end(), 0.0);
    g_[0] = beta;
    Cycle cycle;
    for (int j = 0; j < m_ && res.iterations < this->opts_.max_iterations; ++j) {
      // w = A M⁻¹ v_j
      const Vec vj(column(j), n);
      this->apply_prec(vj, z_);
      this->apply_op(z_, w_);
      // CGS2: h1 = Vᵀw; w −= V h1 and h2 = Vᵀw in one read of V; w −= V h2
      // with ‖w‖²: three reads of V, three host reads.
      // The step's column of H and its sums, kept between steps: no allocation per step.
      std::vector<double>& h = column_;
      std::vector<double>& sums = sums_;
      std::fill(h.begin(), h.begin() + j + 2, 0.0);
      double ww = 0;
      if constexpr (device_steps) {
        // Also stores v_{j+1} = w / ‖w‖ (unused when the cycle ends here).
        gmres_cgs2_step_on_device(exec, V_, w_, n, j + 1, step_, m_ + 1, dots_);
        Kokkos::deep_copy(exec, step_host_, step_);
        exec.fence();
        for (int c = 0; c <= j; ++c) h[c] = step_host_(c) + step_host_(m_ + 1 + c);
        ww = step_host_(2 * (m_ + 1));
      } else {
        for (int pass = 0; pass < 2; ++pass) {
          gmres_dots(exec, V_, w_, h_, n, pass == 0 ? 0 : j + 1, j + 1, sums.data(), dots_);
          this->all_reduce(sums.data(), j + 1);
          for (int c = 0; c <= j; ++c) {
            h[c] += sums[c];
            h_host_(c) = static_cast<Scalar>(sums[c]);
          }
          Kokkos::deep_copy(exec, h_, h_host_);
        }
        ww = gmres_subtract(exec, V_, w_, h_, n, j + 1);
        this->all_reduce(&ww, 1);
      }
      const int k = ++res.iterations;
      h[j + 1] = std::sqrt(ww);
      bool finite = std::isfinite(h[j + 1]);
      for (int c = 0; c <= j; ++c) finite = finite && std::isfinite(h[c]);
      if (!finite) {
        message = "non-finite Arnoldi coefficient at iteration " + std::to_string(k);
        cycle.status = SolverStatus::non_finite;
        return cycle; // the steps so far are discarded: x stays the cycle's start
      }
      // Apply the earlier rotations to the new column, then a new one that zeroes h[j+1].
      for (int c = 0; c < j; ++c) {
        const double a = cs_[c] * h[c] + sn_[c] * h[c + 1];
        h[c + 1] = -sn_[c] * h[c] + cs_[c] * h[c + 1];
        h[c] = a;
      }
      const double hj = h[j], hj1 = h[j + 1];
      const double rr = std::hypot(hj, hj1);
      cs_[j] = rr > 0 ? hj / rr : 1.0;
      sn_[j] = rr > 0 ? hj1 / rr : 0.0;
      h[j] = rr;
      h[j + 1] = 0;
      g_[j + 1] = -sn_[j] * g_[j];
      g_[j] = cs_[j] * g_[j];
      for (int c = 0; c <= j; ++c) H(c, j) = h[c];
      cycle.steps = j + 1;
      res.relative_residual = std::abs(g_[j + 1]) / nb;
      this->report(k, res.relative_residual, loop.seconds());
      if (rr == 0) {
        // H's column is zero: A M⁻¹ v_j lies in the earlier basis, and the
        // projected problem is singular in this direction; drop the step.
        cycle.steps = j;
        message = "breakdown: the Arnoldi column is zero at iteration " + std::to_string(k);
        cycle.status = SolverStatus::breakdown;
        return cycle;
      }
      if (std::abs(g_[j + 1]) <= tol * nb || hj1 == 0) {
        cycle.status = SolverStatus::converged;
        return cycle;
      }
      if (!device_steps && j + 1 < m_) {
        Kokkos::parallel_for("SpMVKit::gmres::next_vector", Range(exec, 0, n),
                             GmresStore<Vec, Basis>{V_, w_, n, j + 1, Scalar(1.0 / hj1)});
      }
    }
    return cycle;
  }

  double& H(int row, int col) { return H_[static_cast<std::size_t>(col) * (m_ + 1) + row]; }

  /// x += M⁻¹ V y with H y = g (upper triangular, `steps` columns).
  void update_x(int steps) {
    std::vector<double> y(steps, 0.0);
    for (int i = steps - 1; i >= 0; --i) {
      double s = g_[i];
      for (int c = i + 1; c < steps; ++c) s -= H(i, c) * y[c];
      y[i] = s / H(i, i);
    }
    for (int i = 0; i < steps; ++i) h_host_(i) = static_cast<Scalar>(y[i]);
    Kokkos::deep_copy(this->exec_, h_, h_host_);
    const std::int64_t n = this->n_;
    Kokkos::parallel_for("SpMVKit::gmres::combine", Range(this->exec_, 0, n),
                         GmresCombine<Vec, Basis, Coefficients>{V_, w_, h_, n, steps});
    this->apply_prec(w_, z_);
    Kokkos::parallel_for("SpMVKit::gmres::update_x", Range(this->exec_, 0, n),
                         GmresAdd<Vec>{this->xw_, z_});
  }

  int m_ = 0;
  Basis V_;
  Vec w_, z_;
  Coefficients h_;
  typename Coefficients::HostMirror h_host_;
  GmresDotsWorkspace<ExecutionSpace> dots_;
  StepSums step_;
  Kokkos::View<double*, StagingHostSpace> step_host_;
  std::vector<double> H_, cs_, sn_, g_, column_, sums_;
};

} // namespace detail

/// Solves A x = b by right-preconditioned restarted GMRES(m) on `exec`, with
/// preconditioner M (the overload without M runs unpreconditioned); m is
/// GmresOptions::restart (default 30).
///
/// A, b, x, the status, exceptions and synchrony as for bicgstab(); also throws
/// std::invalid_argument when restart is not in [1, n]. One iteration is one
/// Arnoldi step (one apply). Memory: (m + 1) n for the basis and four vectors (and the
/// projection's partial sums: 32 doubles per team on GPUs).
template <class ExecutionSpace, class Matrix, class Prec, class BView, class XView,
          class = std::enable_if_t<is_preconditioner_v<Prec>>>
SolverResult gmres(ExecutionSpace const& exec, Matrix const& A, Prec const& M, BView const& b,
                   XView const& x, GmresOptions const& opts = GmresOptions()) {
  auto&& op = detail::as_operator<BView>(A);
  return detail::run_krylov<detail::GmresSolver>(exec, op, M, b, x, opts);
}

/// The same for an operator that keeps state between applies (a cached
/// handle, such as KokkosKernelsOperator): taken by non-const reference.
template <
    class ExecutionSpace, class Op, class Prec, class BView, class XView,
    class = std::enable_if_t<detail::is_linear_operator<Op>::value && is_preconditioner_v<Prec>>>
SolverResult gmres(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b,
                   XView const& x, GmresOptions const& opts = GmresOptions()) {
  return detail::run_krylov<detail::GmresSolver>(exec, op, M, b, x, opts);
}

/// Unpreconditioned GMRES(m) (M = I); as above.
template <class ExecutionSpace, class Matrix, class BView, class XView,
          class = std::enable_if_t<Kokkos::is_view<BView>::value>>
SolverResult gmres(ExecutionSpace const& exec, Matrix const& A, BView const& b, XView const& x,
                   GmresOptions const& opts = GmresOptions()) {
  auto&& op = detail::as_operator<BView>(A);
  return detail::run_krylov_unpreconditioned<detail::GmresSolver>(exec, op, b, x, opts);
}

/// Unpreconditioned, for an operator taken by non-const reference; as above.
template <class ExecutionSpace, class Op, class BView, class XView,
          class = std::enable_if_t<detail::is_linear_operator<Op>::value &&
                                   Kokkos::is_view<BView>::value>>
SolverResult gmres(ExecutionSpace const& exec, Op& op, BView const& b, XView const& x,
                   GmresOptions const& opts = GmresOptions()) {
  return detail::run_krylov_unpreconditioned<detail::GmresSolver>(exec, op, b, x, opts);
}

} // namespace spmvkit

#endif
