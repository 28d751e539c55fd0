// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_DETAIL_LANCZOS_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_DETAIL_LANCZOS_HPP

/// \file
/// λmax(D⁻¹A) of a symmetric A with a positive diagonal by Lanczos steps on
/// the similar symmetric S = D^{-1/2} A D^{-1/2}: the largest eigenvalue of
/// the tridiagonal matrix after k steps approaches λmax from below, far
/// faster than k power iterations (the smoothers' interval needs its top).
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace spmvkit::detail {

/// t = D^{-1/2} u (the product's input).
template <class Vec>
struct LanczosScaleIn {
  Vec dinv, u, t;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using S = typename Vec::non_const_value_type;
    t(i) = static_cast<S>(device_sqrt(static_cast<double>(dinv(i)))) * u(i);
  }
};

/// w = D^{-1/2} w − β u_prev; sums[0] += u·w.
template <class Vec>
struct LanczosProject {
  Vec dinv, u, uprev, w;
  double beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& alpha) const {
    using S = typename Vec::non_const_value_type;
    const double wi = device_sqrt(static_cast<double>(dinv(i))) * static_cast<double>(w(i)) -
                      beta * static_cast<double>(uprev(i));
    w(i) = static_cast<S>(wi);
    alpha += static_cast<double>(u(i)) * wi;
  }
};

/// w −= α u; the sum of w².
template <class Vec>
struct LanczosOrthogonalise {
  Vec u, w;
  double alpha;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& norm2) const {
    using S = typename Vec::non_const_value_type;
    const double wi = static_cast<double>(w(i)) - alpha * static_cast<double>(u(i));
    w(i) = static_cast<S>(wi);
    norm2 += wi * wi;
  }
};

/// u_prev = u, u = w / β.
template <class Vec>
struct LanczosNext {
  Vec u, uprev, w;
  double inv_beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using S = typename Vec::non_const_value_type;
    uprev(i) = u(i);
    u(i) = static_cast<S>(inv_beta * static_cast<double>(w(i)));
  }
};

template <class Vec>
struct LanczosNorm2 {
  Vec u;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& s) const {
    const double v = static_cast<double>(u(i));
    s += v * v;
  }
};

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal a
/// and off-diagonal b (b[j] couples j and j + 1) by bisection on Sturm counts.
inline double tridiagonal_lambda_max(std::vector<double> const& a, std::vector<double> const& b) {
  const std::size_t k = a.size();
  if (k == 0) return 0;
  double lo = a[0], hi = a[0];
  for (std::size_t j = 0; j < k; ++j) { // Gershgorin
    const double r = (j > 0 ? std::abs(b[j - 1]) : 0.0) + (j + 1 < k ? std::abs(b[j]) : 0.0);
    lo = std::min(lo, a[j] - r);
    hi = std::max(hi, a[j] + r);
  }
  // Eigenvalues greater than x: sign changes of the LDLᵀ pivots of T − x.
  auto above = [&](double x) {
    std::size_t count = 0;
    double d = 1;
    for (std::size_t j = 0; j < k; ++j) {
      const double off = j > 0 ? b[j - 1] * b[j - 1] : 0.0;
      d = a[j] - x - (j > 0 ? off / d : 0.0);
      if (d == 0) d = -1e-300; // a zero pivot counts as below
      if (d > 0) ++count;
    }
    return count;
  };
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(std::abs(lo), std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (above(mid) > 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

/// The outcome of lanczos_lambda_max().
struct LanczosEstimate {
  double lambda = 0;  ///< largest Ritz value (NaN or <= 0: the caller reports it)
  int steps = 0;      ///< steps taken (fewer than asked on an invariant subspace)
  bool finite = true; ///< every coefficient was finite
};

/// λmax(D⁻¹A) of a symmetric A after `steps` Lanczos steps from the vector in
/// u (overwritten), with work vectors uprev, w, t of A's rows; apply(t, w)
/// computes w = A t. dinv must be positive. Synchronous.
template <class ExecutionSpace, class Vec, class Apply>
LanczosEstimate lanczos_lambda_max(ExecutionSpace const& exec, Vec const& dinv, Vec const& u,
                                   Vec const& uprev, Vec const& w, Vec const& t, int steps,
                                   Apply&& apply) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t n = static_cast<std::int64_t>(u.extent(0));
  const Range range(exec, 0, n);
  LanczosEstimate e;
  double norm2 = 0;
  Kokkos::parallel_reduce("SpMVKit::lanczos::start_norm", range, LanczosNorm2<Vec>{u}, norm2);
  exec.fence();
  if (!(norm2 > 0) || !std::isfinite(norm2)) {
    e.finite = false;
    e.lambda = std::nan("");
    return e;
  }
  Kokkos::parallel_for("SpMVKit::lanczos::start", range,
                       LanczosNext<Vec>{u, uprev, u, 1 / std::sqrt(norm2)});
  Kokkos::deep_copy(exec, uprev, typename Vec::non_const_value_type(0));
  std::vector<double> alpha, beta;
  double b = 0, scale = 0;
  // At most n steps; a β below rounding of ‖T‖ (the largest |α_j| + β_{j-1} + β_j) ends them.
  const double tol = sizeof(typename Vec::value_type) < sizeof(double) ? 1e-5 : 1e-12;
  const int last = static_cast<int>(std::min<std::int64_t>(steps, n));
  for (int j = 0; j < last; ++j) {
    Kokkos::parallel_for("SpMVKit::lanczos::scale_in", range, LanczosScaleIn<Vec>{dinv, u, t});
    apply(t, w);
    double a = 0;
    Kokkos::parallel_reduce("SpMVKit::lanczos::project", range,
                            LanczosProject<Vec>{dinv, u, uprev, w, b}, a);
    exec.fence();
    double wn2 = 0;
    Kokkos::parallel_reduce("SpMVKit::lanczos::orthogonalise", range,
                            LanczosOrthogonalise<Vec>{u, w, a}, wn2);
    exec.fence();
    if (!std::isfinite(a) || !std::isfinite(wn2)) {
      e.finite = false;
      break;
    }
    alpha.push_back(a);
    ++e.steps;
    const double previous = b;
    b = std::sqrt(wn2);
    scale = std::max(scale, std::abs(a) + previous + b);
    // An invariant subspace: T's eigenvalues are exact ones of S.
    if (j + 1 == last || !(b > tol * scale)) break;
    beta.push_back(b);
    Kokkos::parallel_for("SpMVKit::lanczos::next", range, LanczosNext<Vec>{u, uprev, w, 1 / b});
  }
  e.lambda = e.finite ? tridiagonal_lambda_max(alpha, beta) : std::nan("");
  return e;
}

} // namespace spmvkit::detail

#endif
