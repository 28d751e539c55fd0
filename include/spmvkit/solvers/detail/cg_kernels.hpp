// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_CG_KERNELS_HPP
#define SPMVKIT_SOLVERS_DETAIL_CG_KERNELS_HPP

// The vector kernels of CG and its stopping test (see solvers/cg.hpp for the
// traffic they move and why they are fused rather than KokkosBlas calls).
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

template <class ExecSpace>
using CgRange = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;

/// Turns the diagonal into its inverse in place and counts the rows whose
/// diagonal is not a positive finite number (their inverse is set to 0).
/// `largest` comes from the host: std::numeric_limits is not device code.
template <class Vec>
struct InvertDiagonal {
  Vec d;
  double largest;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    const double v = static_cast<double>(d(i));
    const bool ok = v > 0 && v <= largest; // false for NaN and Inf
    d(i) = ok ? static_cast<typename Vec::value_type>(1.0 / v) : typename Vec::value_type(0);
    bad += ok ? 0 : 1;
  }
};

template <class Vec>
struct FirstZero {
  Vec d;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& first) const {
    if (d(i) == typename Vec::value_type(0) && i < first) first = i;
  }
};

template <class From, class To>
struct CgCopy {
  From from;
  To to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) = from(i); }
};

template <class X>
struct CgZero {
  X x;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { x(i) = 0; }
};

/// Start: r = b − q (q = A x0, or nothing for x0 = 0), p = z = D⁻¹r;
/// sums = {rᵀr, rᵀz, bᵀb}.
template <class B, class Vec>
struct CgStart {
  using value_type = double[];
  unsigned value_count = 3;
  B b;
  Vec q, r, p, dinv;
  bool subtract_q, jacobi;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const auto ri = subtract_q ? b(i) - q(i) : b(i);
    const auto zi = jacobi ? dinv(i) * ri : ri;
    r(i) = ri;
    p(i) = zi;
    sums[0] += static_cast<double>(ri) * static_cast<double>(ri);
    sums[1] += static_cast<double>(ri) * static_cast<double>(zi);
    sums[2] += static_cast<double>(b(i)) * static_cast<double>(b(i));
  }
};

template <class Vec>
struct CgDot {
  Vec p, q;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    sum += static_cast<double>(p(i)) * static_cast<double>(q(i));
  }
};

/// Where the iteration scalars live on the device: pᵀAp of the current
/// iteration, then a ring of `slots` records {rᵀr, rᵀz, pᵀAp}, one per
/// iteration, slot 0 first holding the start. The host reads the ring every
/// check interval, so `slots` = interval + 1 keeps every record until it is
/// read and the previous iteration's rᵀz until it is used.
struct CgScalarLayout {
  static constexpr int pq = 0;
  int slots = 2;
  KOKKOS_INLINE_FUNCTION int record(int k) const { return 1 + 3 * (k % slots); }
  int size() const { return 1 + 3 * slots; }
};

/// The stopping test, once for the device and the host: the device stops on
/// anything but `go`, the host names the reason. pᵀAp must be a positive
/// finite number and rᵀr, rᵀz finite; rᵀr <= (tol ‖b‖)² means the recurrence
/// has converged (the host then checks the true residual). `largest` is the
/// largest double (std::numeric_limits is not device code); every comparison
/// is false for NaN, so NaN never passes as finite.
enum class CgVerdict : int { go, converged, nonfinite_pAp, not_positive_definite, nonfinite_r };

KOKKOS_INLINE_FUNCTION CgVerdict cg_verdict(double rr, double rz, double pAp, double threshold_sq,
                                            double largest) {
  if (!(pAp >= -largest && pAp <= largest)) return CgVerdict::nonfinite_pAp;
  if (!(pAp > 0)) return CgVerdict::not_positive_definite;
  if (!(rr <= largest && rz >= -largest && rz <= largest)) return CgVerdict::nonfinite_r;
  return rr <= threshold_sq ? CgVerdict::converged : CgVerdict::go;
}

/// An iteration's record; laid out as three doubles of the scalar ring.
struct CgRecord {
  double rr, rz, pAp;
};

/// r −= αq with α = rᵀz / pᵀAp read from the device scalars; sums =
/// {rᵀr, rᵀz, pᵀAp}, the last passed through (added by one index only) so
/// that the iteration's record holds all three. Nothing is updated when pᵀAp
/// is not a positive finite number or when an earlier iteration stopped; the
/// record then carries pᵀAp = 0, which stops the direction kernel too.
template <class Vec, class Scalars, class Flag>
struct CgUpdate {
  // A fixed-size struct rather than a double[] array reduction: GPU backends
  // keep it in registers instead of per-thread shared memory.
  using value_type = CgRecord;
  Vec q, r, dinv;
  Scalars scalars;
  Flag stopped;
  int previous;
  double largest;
  bool jacobi;
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    a.rr += b.rr;
    a.rz += b.rz;
    a.pAp += b.pAp;
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  // Plain assignments: compound assignment to volatile is deprecated in C++20.
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    a.rr = a.rr + b.rr;
    a.rz = a.rz + b.rz;
    a.pAp = a.pAp + b.pAp;
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type& sums) const {
    const double pAp = stopped() ? 0.0 : scalars(CgScalarLayout::pq);
    auto ri = r(i);
    if (pAp > 0 && pAp <= largest) {
      const auto alpha = static_cast<typename Vec::value_type>(scalars(previous + 1) / pAp);
      ri -= alpha * q(i);
      r(i) = ri;
    }
    const double rd = static_cast<double>(ri);
    sums.rr += rd * rd;
    sums.rz += jacobi ? rd * static_cast<double>(dinv(i) * ri) : rd * rd;
    if (i == 0) sums.pAp += pAp;
  }
};

/// x += αp (the update's α), then p = z + βp with z = D⁻¹r recomputed (or r)
/// and β = rᵀz / previous rᵀz. A record without a usable pᵀAp (a breakdown,
/// or an earlier stop) leaves x and p alone; one that meets the rest of the
/// stopping test still takes its x step (its r step is done) but keeps p. In
/// both cases the flag tells later iterations' updates to leave r alone.
/// Every thread evaluates the same test, so only index 0 writes the flag.
template <class X, class Vec, class Scalars, class Flag>
struct CgDirection {
  X x;
  Vec r, p, dinv;
  Scalars scalars;
  Flag stopped;
  int current, previous;
  double threshold_sq, largest;
  bool jacobi;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using Scalar = typename Vec::value_type;
    const double rr = scalars(current), rz = scalars(current + 1), pAp = scalars(current + 2);
    if (!(pAp > 0 && pAp <= largest)) {
      if (i == 0) stopped() = 1;
      return;
    }
    const auto pi = p(i);
    x(i) += static_cast<Scalar>(scalars(previous + 1) / pAp) * pi;
    if (cg_verdict(rr, rz, pAp, threshold_sq, largest) != CgVerdict::go) {
      if (i == 0) stopped() = 1;
      return;
    }
    p(i) = (jacobi ? dinv(i) * r(i) : r(i)) + static_cast<Scalar>(rz / scalars(previous + 1)) * pi;
  }
};

/// ‖b − q‖² for the true residual.
template <class B, class Vec>
struct CgResidualNorm {
  B b;
  Vec q;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    const double e = static_cast<double>(b(i)) - static_cast<double>(q(i));
    sum += e * e;
  }
};

} // namespace spmvkit::detail

#endif
