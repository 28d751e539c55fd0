// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_KK_KRYLOV_HPP
#define SPMVKIT_PERF_KK_KRYLOV_HPP

// The solve family's baselines: right-preconditioned BiCGStab and GMRES(m) as a Kokkos user
// writes them, every vector operation a KokkosBlas call (dot, nrm2, axpy, axpby, update, mult,
// scal, gemv), every product Kokkos Kernels' SpMV (a KokkosKernelsOperator, handle kept), the
// scalars formed on the host after each reduction. Point Jacobi is KokkosBlas::mult by the
// inverted diagonal (an empty View: no preconditioner).
//
// They follow SpMVKit's recurrences and stopping rules (solvers/bicgstab.hpp, gmres.hpp,
// solver_options.hpp) so that iteration counts compare: the recurrence residual (GMRES: the
// Givens estimate) meeting rtol ‖b‖ triggers ‖b − A x‖, which decides; a miss replaces the
// residual and goes on while that halves the true residual. GMRES orthogonalises by classical
// Gram-Schmidt with one reorthogonalisation (CGS2), each pass two KokkosBlas::gemv on the
// basis, a LayoutLeft 2D View (h = Vᵀw, then w −= V h).
//
// Everything runs on the default execution space instance (Kokkos Kernels 3.x takes no
// instance); like spmvkit's solvers, each call allocates its work vectors.

#include "perf_common.hpp"

#include <spmvkit/solvers/solver_options.hpp>
#include <spmvkit/solvers/workspace.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#include <KokkosBlas2_gemv.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// The stopping test of the baselines (SolverOptions' meaning).
struct KkKrylovOptions {
  double relative_tolerance = 1e-8;
  int max_iterations = 1000;
  double divergence_factor = 1e10;
  int restart = 30; // GMRES
  /// Kept work vectors, as SolverOptions::workspace for SpMVKit's solvers; nullptr: allocated
  /// by each solve. Taken vectors are zeroed, as a new View is.
  SolverWorkspace* workspace = nullptr;
};

namespace detail {

inline std::string kk_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

/// A zeroed work vector, from the workspace when there is one.
template <class Vec>
Vec kk_vector(SolverWorkspace* workspace, std::string const& label, std::int64_t n) {
  if (!workspace) return Vec(label, n);
  Vec v = workspace->view<Vec>(Exec(), label, n);
  Kokkos::deep_copy(Exec(), v, typename Vec::non_const_value_type(0));
  return v;
}

/// r = b − A x; returns ‖r‖.
template <class Op, class Vec, class BView>
double kk_residual(Op& op, BView const& b, Vec const& x, Vec const& r) {
  using Scalar = typename Vec::non_const_value_type;
  op.apply(Exec(), x, r);
  KokkosBlas::axpby(Scalar(1), b, Scalar(-1), r);
  return static_cast<double>(KokkosBlas::nrm2(r));
}

} // namespace detail

/// Right-preconditioned BiCGStab (van der Vorst 1992): SpMVKit's recurrence, with KokkosBlas
/// calls where spmvkit::bicgstab fuses. x holds the start on entry.
template <class Op, class Vec>
SolverResult kk_bicgstab(Op& op, Vec const& dinv, Vec const& b, Vec const& x,
                         KkKrylovOptions const& o) {
  using Scalar = typename Vec::non_const_value_type;
  const auto n = b.extent(0);
  const bool jacobi = dinv.extent(0) > 0;
  Kokkos::Timer total;
  auto vec = [&](char const* label) {
    return detail::kk_vector<Vec>(o.workspace, label, static_cast<std::int64_t>(n));
  };
  Vec r = vec("SpMVKit::perf::kk_bicgstab::r"), rhat = vec("SpMVKit::perf::kk_bicgstab::rhat"),
      p = vec("SpMVKit::perf::kk_bicgstab::p"), v = vec("SpMVKit::perf::kk_bicgstab::v"),
      t = vec("SpMVKit::perf::kk_bicgstab::t");
  // Without a preconditioner phat is p and shat is s (held in r).
  Vec phat = jacobi ? vec("SpMVKit::perf::kk_bicgstab::phat") : p;
  Vec shat = jacobi ? vec("SpMVKit::perf::kk_bicgstab::shat") : r;

  SolverResult res;
  const double nb = static_cast<double>(KokkosBlas::nrm2(b));
  double rnorm = detail::kk_residual(op, b, x, r);
  const double tol = o.relative_tolerance;
  auto finish = [&](SolverStatus s, std::string message) {
    res.status = s;
    res.message = std::move(message);
    res.total_seconds = total.seconds();
    return res;
  };
  if (nb == 0) {
    Kokkos::deep_copy(x, Scalar(0));
    return finish(SolverStatus::converged, "");
  }
  res.relative_residual = res.true_relative_residual = rnorm / nb;
  if (rnorm <= tol * nb) return finish(SolverStatus::converged, "");

  double rho = 0, rho_old = 1, alpha = 1, omega = 1, previous_true = 1e300, rhat_norm = 0;
  bool first = true;
  int cycle_start = 0;
  auto restart = [&](double norm) {
    cycle_start = res.iterations;
    rhat_norm = norm;
    Kokkos::deep_copy(rhat, r);
    Kokkos::deep_copy(p, Scalar(0));
    Kokkos::deep_copy(v, Scalar(0));
    rho = norm * norm;
    alpha = omega = 1;
    first = true;
  };
  restart(rnorm);
  while (true) {
    // One run of the recurrence; "met" when its residual meets the tolerance.
    bool met = false;
    std::string why;
    SolverStatus stop = SolverStatus::iteration_limit;
    while (res.iterations < o.max_iterations) {
      const int k = res.iterations + 1;
      const double beta = first ? 0.0 : (rho / rho_old) * (alpha / omega);
      first = false;
      // p = r + β (p − ω v)
      KokkosBlas::update(Scalar(1), r, static_cast<Scalar>(-beta * omega), v,
                         static_cast<Scalar>(beta), p);
      if (jacobi) KokkosBlas::mult(Scalar(0), phat, Scalar(1), dinv, p);
      op.apply(Exec(), phat, v);
      const double sigma = static_cast<double>(KokkosBlas::dot(rhat, v));
      if (!std::isfinite(sigma) || sigma == 0) {
        stop = std::isfinite(sigma) ? SolverStatus::breakdown : SolverStatus::non_finite;
        why = "r̂ᵀv = " + detail::kk_number(sigma) + " at iteration " + std::to_string(k);
        break;
      }
      alpha = rho / sigma;
      KokkosBlas::axpy(static_cast<Scalar>(-alpha), v, r); // r holds s = r − α v
      const double snorm = static_cast<double>(KokkosBlas::nrm2(r));
      if (snorm <= tol * nb) {
        KokkosBlas::axpy(static_cast<Scalar>(alpha), phat, x);
        res.iterations = k;
        res.relative_residual = snorm / nb;
        met = true;
        break;
      }
      if (jacobi) KokkosBlas::mult(Scalar(0), shat, Scalar(1), dinv, r);
      op.apply(Exec(), shat, t);
      const double ts = static_cast<double>(KokkosBlas::dot(t, r));
      const double tt = static_cast<double>(KokkosBlas::dot(t, t));
      if (!std::isfinite(ts) || !std::isfinite(tt) || ts == 0 || tt == 0) {
        stop = std::isfinite(ts) && std::isfinite(tt) ? SolverStatus::breakdown
                                                      : SolverStatus::non_finite;
        why = "ω = tᵀs / tᵀt = " + detail::kk_number(ts) + " / " + detail::kk_number(tt) +
              " at iteration " + std::to_string(k);
        break;
      }
      omega = ts / tt;
      // x += α phat + ω shat; r = s − ω t
      KokkosBlas::update(static_cast<Scalar>(alpha), phat, static_cast<Scalar>(omega), shat,
                         Scalar(1), x);
      KokkosBlas::axpy(static_cast<Scalar>(-omega), t, r);
      rho_old = rho;
      rho = static_cast<double>(KokkosBlas::dot(rhat, r));
      rnorm = static_cast<double>(KokkosBlas::nrm2(r));
      res.iterations = k;
      res.relative_residual = rnorm / nb;
      if (!std::isfinite(rnorm)) {
        stop = SolverStatus::non_finite;
        why = "non-finite residual at iteration " + std::to_string(k);
        break;
      }
      if (rnorm <= tol * nb) {
        met = true;
        break;
      }
      if (res.relative_residual > o.divergence_factor) {
        stop = SolverStatus::diverged;
        why = "‖r‖/‖b‖ = " + detail::kk_number(res.relative_residual);
        break;
      }
      if (!(std::fabs(rho) > std::numeric_limits<Scalar>::epsilon() * rhat_norm * rnorm)) {
        stop = SolverStatus::breakdown;
        why = "ρ = r̂ᵀr = " + detail::kk_number(rho) + " at iteration " + std::to_string(k);
        break;
      }
    }
    if (!met && stop == SolverStatus::breakdown && res.iterations > cycle_start &&
        res.iterations < o.max_iterations) {
      // As spmvkit::bicgstab: restart from the true residual after progress.
      ++res.residual_replacements;
      const double restart_norm = detail::kk_residual(op, b, x, r);
      res.relative_residual = res.true_relative_residual = restart_norm / nb;
      if (restart_norm <= tol * nb) return finish(SolverStatus::converged, "");
      restart(restart_norm);
      continue;
    }
    // The true residual decides (into t, so that r stays the recurrence's).
    const double true_rel = detail::kk_residual(op, b, x, t) / nb;
    res.true_relative_residual = true_rel;
    if (!met) return finish(stop, why);
    if (true_rel <= tol) return finish(SolverStatus::converged, "");
    if (!(true_rel < 0.5 * previous_true) || res.iterations >= o.max_iterations) {
      return finish(SolverStatus::stagnated, "true residual " + detail::kk_number(true_rel) +
                                                 " after the recurrence met the tolerance");
    }
    previous_true = true_rel;
    ++res.residual_replacements;
    restart(detail::kk_residual(op, b, x, r));
  }
}

/// Right-preconditioned restarted GMRES(m), CGS2 by KokkosBlas::gemv, Givens rotations on the
/// host: SpMVKit's algorithm with KokkosBlas calls. x holds the start on entry.
template <class Op, class Vec>
SolverResult kk_gmres(Op& op, Vec const& dinv, Vec const& b, Vec const& x,
                      KkKrylovOptions const& o) {
  using Scalar = typename Vec::non_const_value_type;
  using Device = typename Vec::device_type;
  const auto n = static_cast<std::int64_t>(b.extent(0));
  const int m = static_cast<int>(std::min<std::int64_t>(o.restart, n));
  const bool jacobi = dinv.extent(0) > 0;
  Kokkos::Timer total;
  // The basis: m + 1 columns of n, column-major, so that V(:, 0:j) is one LayoutLeft block
  // for gemv and V(:, j) one contiguous vector for the SpMV.
  const Vec basis = detail::kk_vector<Vec>(o.workspace, "SpMVKit::perf::kk_gmres::basis",
                                           n * (static_cast<std::int64_t>(m) + 1));
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> V(
      basis.data(), n, m + 1);
  Vec w = detail::kk_vector<Vec>(o.workspace, "SpMVKit::perf::kk_gmres::w", n),
      z = detail::kk_vector<Vec>(o.workspace, "SpMVKit::perf::kk_gmres::z", n);
  Vec h("SpMVKit::perf::kk_gmres::coefficients", m + 1);
  auto h_host = Kokkos::create_mirror_view(h);
  auto column = [&](int j) {
    return Vec(V.data() + static_cast<std::int64_t>(j) * V.stride_1(), n);
  };
  std::vector<double> H(static_cast<std::size_t>(m + 1) * m, 0.0), cs(m), sn(m), g(m + 1);
  auto Hc = [&](int row, int col) -> double& {
    return H[static_cast<std::size_t>(col) * (m + 1) + row];
  };

  SolverResult res;
  auto finish = [&](SolverStatus s, std::string message) {
    res.status = s;
    res.message = std::move(message);
    res.total_seconds = total.seconds();
    return res;
  };
  const double nb = static_cast<double>(KokkosBlas::nrm2(b));
  const double tol = o.relative_tolerance;
  if (nb == 0) {
    Kokkos::deep_copy(x, Scalar(0));
    return finish(SolverStatus::converged, "");
  }
  double beta = detail::kk_residual(op, b, x, w);
  res.relative_residual = res.true_relative_residual = beta / nb;
  if (beta <= tol * nb) return finish(SolverStatus::converged, "");
  double previous_true = 1e300;
  while (true) {
    // One cycle from the residual in w.
    KokkosBlas::scal(column(0), static_cast<Scalar>(1.0 / beta), w);
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int steps = 0;
    bool met = false;
    std::string why;
    SolverStatus stop = SolverStatus::iteration_limit;
    for (int j = 0; j < m && res.iterations < o.max_iterations; ++j) {
      const Vec vj = column(j);
      // w = A M⁻¹ v_j
      if (jacobi) {
        KokkosBlas::mult(Scalar(0), z, Scalar(1), dinv, vj);
        op.apply(Exec(), z, w);
      } else {
        op.apply(Exec(), vj, w);
      }
      // CGS2: h = V_jᵀ w, w −= V_j h, twice.
      const auto Vj = Kokkos::subview(V, Kokkos::ALL(), Kokkos::make_pair(0, j + 1));
      const auto hj = Kokkos::subview(h, Kokkos::make_pair(0, j + 1));
      std::vector<double> hc(j + 2, 0.0);
      for (int pass = 0; pass < 2; ++pass) {
        KokkosBlas::gemv("T", Scalar(1), Vj, w, Scalar(0), hj);
        KokkosBlas::gemv("N", Scalar(-1), Vj, hj, Scalar(1), w);
        Kokkos::deep_copy(h_host, h);
        for (int c = 0; c <= j; ++c) hc[c] += static_cast<double>(h_host(c));
      }
      const double hn = static_cast<double>(KokkosBlas::nrm2(w));
      const int k = ++res.iterations;
      hc[j + 1] = hn;
      bool finite = std::isfinite(hn);
      for (int c = 0; c <= j; ++c) finite = finite && std::isfinite(hc[c]);
      if (!finite) {
        stop = SolverStatus::non_finite;
        why = "non-finite Arnoldi coefficient at iteration " + std::to_string(k);
        steps = 0; // the cycle's steps are dropped: x stays its start
        break;
      }
      for (int c = 0; c < j; ++c) {
        const double a = cs[c] * hc[c] + sn[c] * hc[c + 1];
        hc[c + 1] = -sn[c] * hc[c] + cs[c] * hc[c + 1];
        hc[c] = a;
      }
      const double rr = std::hypot(hc[j], hn);
      cs[j] = rr > 0 ? hc[j] / rr : 1.0;
      sn[j] = rr > 0 ? hn / rr : 0.0;
      hc[j] = rr;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      for (int c = 0; c <= j; ++c) Hc(c, j) = hc[c];
      steps = j + 1;
      res.relative_residual = std::abs(g[j + 1]) / nb;
      if (rr == 0) {
        steps = j;
        stop = SolverStatus::breakdown;
        why = "the Arnoldi column is zero at iteration " + std::to_string(k);
        break;
      }
      if (std::abs(g[j + 1]) <= tol * nb || hn == 0) {
        met = true;
        break;
      }
      if (j + 1 < m) KokkosBlas::scal(column(j + 1), static_cast<Scalar>(1.0 / hn), w);
    }
    if (steps > 0) {
      // x += M⁻¹ V y with H y = g (back substitution on the host).
      std::vector<double> y(steps);
      for (int i = steps - 1; i >= 0; --i) {
        double s = g[i];
        for (int c = i + 1; c < steps; ++c) s -= Hc(i, c) * y[c];
        y[i] = s / Hc(i, i);
      }
      for (int i = 0; i < steps; ++i) h_host(i) = static_cast<Scalar>(y[i]);
      Kokkos::deep_copy(h, h_host);
      const auto Vs = Kokkos::subview(V, Kokkos::ALL(), Kokkos::make_pair(0, steps));
      const auto ys = Kokkos::subview(h, Kokkos::make_pair(0, steps));
      KokkosBlas::gemv("N", Scalar(1), Vs, ys, Scalar(0), w);
      if (jacobi) {
        KokkosBlas::mult(Scalar(0), z, Scalar(1), dinv, w);
        KokkosBlas::axpy(Scalar(1), z, x);
      } else {
        KokkosBlas::axpy(Scalar(1), w, x);
      }
    }
    beta = detail::kk_residual(op, b, x, w);
    res.true_relative_residual = beta / nb;
    if (stop == SolverStatus::non_finite || !std::isfinite(beta)) {
      return finish(SolverStatus::non_finite, why.empty() ? "non-finite residual" : why);
    }
    if (beta <= tol * nb) {
      res.relative_residual = beta / nb;
      return finish(SolverStatus::converged, "");
    }
    if (stop == SolverStatus::breakdown) return finish(stop, why);
    if (res.true_relative_residual > o.divergence_factor) {
      return finish(SolverStatus::diverged,
                    "‖r‖/‖b‖ = " + detail::kk_number(res.true_relative_residual));
    }
    if (met) {
      // The estimate met the tolerance, the true residual did not.
      if (!(res.true_relative_residual < 0.5 * previous_true) ||
          res.iterations >= o.max_iterations) {
        return finish(SolverStatus::stagnated, "true residual " +
                                                   detail::kk_number(res.true_relative_residual) +
                                                   " after the Arnoldi estimate met the tolerance");
      }
      previous_true = res.true_relative_residual;
      ++res.residual_replacements;
    }
    if (res.iterations >= o.max_iterations) return finish(SolverStatus::iteration_limit, "");
  }
}

} // namespace spmvkit::perf

#endif
