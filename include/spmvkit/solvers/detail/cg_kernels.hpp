// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_CG_KERNELS_HPP
#define SPMVKIT_SOLVERS_DETAIL_CG_KERNELS_HPP

// The vector kernels of CG and its stopping test (see solvers/cg.hpp for the
// traffic they move and why they are fused rather than KokkosBlas calls).
#include <spmvkit/core/detail/row_blocks.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

template <class ExecutionSpace>
using CgRange = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

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

/// The end of work item c's rows when each covers `block` rows (see cg_block()).
KOKKOS_INLINE_FUNCTION std::int64_t cg_block_end(std::int64_t c, std::int64_t block,
                                                 std::int64_t n) {
  return (c + 1) * block < n ? (c + 1) * block : n;
}

/// Work items of a kernel over n rows, `block` rows each.
inline std::int64_t cg_blocks(std::int64_t n, std::int64_t block) {
  return (n + block - 1) / block;
}

/// Where the iteration scalars live on the device: pᵀAp of the current
/// iteration, then a ring of `slots` records {rᵀr, rᵀz, pᵀAp}, one per
/// iteration, slot 0 first holding the start. The host reads the ring every
/// check interval, so `slots` = interval + 1 keeps every record until it is
/// read and the previous iteration's rᵀz until it is used.
///
/// Pipelined CG's records have four doubles, {rᵀr, rᵀz, wᵀz, pᵀAp}: the first
/// three are the fused reduction's partial sums (one all-reduce), the last is
/// formed on the device from earlier records. `pAp` is where pᵀAp sits in a
/// record, so the host reads both kinds alike.
struct CgScalarLayout {
  static constexpr int pq = 0;
  int slots = 2;
  int stride = 3;
  int pAp = 2;
  KOKKOS_INLINE_FUNCTION int record(int k) const { return 1 + stride * (k % slots); }
  int size() const { return 1 + stride * slots; }
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
/// {rᵀr, rᵀz, pᵀAp}, the last passed through (added by work item 0 only) so
/// that the iteration's record holds all three. Nothing is updated when pᵀAp
/// is not a positive finite number or when an earlier iteration stopped; the
/// record then carries pᵀAp = 0, which stops the direction kernel too.
template <class Vec, class Scalars, class Flag, std::int64_t Block = 1>
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
  std::int64_t n; // rows; work item c covers rows [c Block, min((c + 1) Block, n))
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
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, value_type& sums) const {
    using Scalar = typename Vec::non_const_value_type;
    const double pAp = stopped() ? 0.0 : scalars(CgScalarLayout::pq);
    const bool step = pAp > 0 && pAp <= largest;
    const auto alpha = step ? static_cast<Scalar>(scalars(previous + 1) / pAp) : Scalar(0);
    auto row = [&](std::int64_t i, double& rr, double& rz) {
      auto ri = r(i);
      if (step) {
        ri -= alpha * q(i);
        r(i) = ri;
      }
      const double rd = static_cast<double>(ri);
      rr += rd * rd;
      rz += jacobi ? rd * static_cast<double>(dinv(i) * ri) : rd * rd;
    };
    if constexpr (Block == 1) {
      // One row per item (GPUs): add into the reduction value directly, as the
      // compiler then fuses each product into the sum (one rounding, not two).
      row(c, sums.rr, sums.rz);
    } else {
      // Two lanes: with more, this loop (which also stores r) vectorises into shuffles.
      double rr[2] = {}, rz[2] = {};
      for_lanes<2>(c * Block, cg_block_end(c, Block, n),
                   [&](std::int64_t i, int l) { row(i, rr[l], rz[l]); });
      sums.rr += rr[0] + rr[1];
      sums.rz += rz[0] + rz[1];
    }
    if (c == 0) sums.pAp += pAp;
  }
};

/// x += αp (the update's α), then p = z + βp with z = D⁻¹r recomputed (or r)
/// and β = rᵀz / previous rᵀz. A record without a usable pᵀAp (a breakdown,
/// or an earlier stop) leaves x and p alone; one that meets the rest of the
/// stopping test still takes its x step (its r step is done) but keeps p. In
/// both cases the flag tells later iterations' updates to leave r alone.
/// Every work item evaluates the same test, so only item 0 writes the flag.
template <class X, class Vec, class Scalars, class Flag, std::int64_t Block = 1>
struct CgDirection {
  X x;
  Vec r, p, dinv;
  Scalars scalars;
  Flag stopped;
  int current, previous;
  double threshold_sq, largest;
  bool jacobi;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c) const {
    using Scalar = typename Vec::non_const_value_type;
    const double rr = scalars(current), rz = scalars(current + 1), pAp = scalars(current + 2);
    if (!(pAp > 0 && pAp <= largest)) {
      if (c == 0) stopped() = 1;
      return;
    }
    const auto alpha = static_cast<Scalar>(scalars(previous + 1) / pAp);
    const bool go = cg_verdict(rr, rz, pAp, threshold_sq, largest) == CgVerdict::go;
    if (!go && c == 0) stopped() = 1;
    const auto beta = static_cast<Scalar>(rz / scalars(previous + 1));
    const std::int64_t begin = c * Block, end = Block == 1 ? begin + 1 : cg_block_end(c, Block, n);
    for (std::int64_t i = begin; i < end; ++i) {
      const auto pi = p(i);
      x(i) += alpha * pi;
      if (go) p(i) = (jacobi ? dinv(i) * r(i) : r(i)) + beta * pi;
    }
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

// ---------------------------------------------------------------------------------------------
// Pipelined CG (Ghysels and Vanroose 2014), with u = D⁻¹r, w = A u, m = D⁻¹w,
// n = A m and the auxiliary recurrences s = A p, q = D⁻¹s, z = A q. Without
// Jacobi u is r, m is w and q is s (the same Views), so the kernels load each
// vector once into a local and store it last.
// ---------------------------------------------------------------------------------------------

/// A pipelined record, three ring doubles summed over the rows (and ranks)
/// then pᵀAp, which the update kernel passes through from index 0 (see CgScalarLayout).
struct PipeCgSums {
  double rr, rz, wz;
};
struct PipeCgRecord {
  double rr, rz, wz, pAp;
};

struct CgRecordJoin {
  KOKKOS_INLINE_FUNCTION static void add(PipeCgSums& a, PipeCgSums const& b) {
    a.rr += b.rr;
    a.rz += b.rz;
    a.wz += b.wz;
  }
  KOKKOS_INLINE_FUNCTION static void add(PipeCgRecord& a, PipeCgRecord const& b) {
    a.rr += b.rr;
    a.rz += b.rz;
    a.wz += b.wz;
    a.pAp += b.pAp;
  }
};

/// The start's second half: m = D⁻¹w (w = A u just applied) and wᵀu.
template <class Vec>
struct PipeCgPrime {
  Vec w, u, m, dinv;
  bool jacobi;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& wu) const {
    const auto wi = w(i);
    if (jacobi) m(i) = dinv(i) * wi;
    wu += static_cast<double>(wi) * static_cast<double>(u(i));
  }
};

/// One pipelined iteration k after n = A m: pᵀAp_k from the records k − 1 and
/// k − 2 (pᵀAp_k = wᵀz_{k−1} − (rᵀz_{k−1}/rᵀz_{k−2})² pᵀAp_{k−1}, or wᵀz_{k−1}
/// right after a start), α = rᵀz_{k−1}/pᵀAp_k, β = rᵀz_{k−1}/rᵀz_{k−2};
///   z = n + βz, q = m + βq, s = w + βs, p = u + βp,
///   x += αp, r −= αs, u −= αq, w −= αz, m = D⁻¹w,
/// and record k = {rᵀr, rᵀu, wᵀu, pᵀAp_k} of the new vectors: one reduction.
/// The device stops (nothing is updated) once record k − 1 fails the stopping
/// test or pᵀAp_k is unusable; the record then holds zero sums and a pᵀAp that
/// fails it too (pᵀAp_k itself, or −1 after a stop), so later iterations stay
/// stopped without a flag, and no rank's sums count twice in an all-reduce.
template <class X, class Vec, class Scalars, std::int64_t Block = 1>
struct PipeCgUpdate {
  using value_type = PipeCgRecord;
  X x;
  Vec r, u, w, m, n, z, q, s, p, dinv;
  Scalars scalars;
  int previous, before_previous;
  bool restart; // record k − 1 is a start: no β, and the host has tested it
  double threshold_sq, largest;
  bool jacobi;
  std::int64_t n_rows; // n is a vector here
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    CgRecordJoin::add(a, b);
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    a.rr = a.rr + b.rr;
    a.rz = a.rz + b.rz;
    a.wz = a.wz + b.wz;
    a.pAp = a.pAp + b.pAp;
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, value_type& sums) const {
    using Scalar = typename Vec::value_type;
    const double rz1 = scalars(previous + 1), wz1 = scalars(previous + 2);
    double pAp = wz1, beta = 0;
    bool go = true;
    if (!restart) {
      const double rz2 = scalars(before_previous + 1), ratio = rz1 / rz2;
      beta = ratio;
      pAp = wz1 - ratio * ratio * scalars(previous + 3);
      go = cg_verdict(scalars(previous), rz1, scalars(previous + 3), threshold_sq, largest) ==
           CgVerdict::go;
      if (!go) pAp = -1; // keeps later iterations stopped
    }
    if (c == 0) sums.pAp += pAp;
    if (!go || !(pAp > 0 && pAp <= largest)) return;
    const auto alpha = static_cast<Scalar>(rz1 / pAp);
    const auto b = static_cast<Scalar>(beta);
    const std::int64_t begin = c * Block,
                       end = Block == 1 ? begin + 1 : cg_block_end(c, Block, n_rows);
    // One running sum each, unlike CgUpdate's two lanes: this loop stores up to nine vectors,
    // and lanes made it slower (docs/notes/2026-12-04-host-reduction-lanes.md).
    double rr_block = 0, rz_block = 0, wz_block = 0;
    double& rr = Block == 1 ? sums.rr : rr_block;
    double& rz = Block == 1 ? sums.rz : rz_block;
    double& wz = Block == 1 ? sums.wz : wz_block;
    for (std::int64_t i = begin; i < end; ++i) {
      const auto ni = n(i), wi = w(i);
      const auto zi = restart ? ni : ni + b * z(i);
      const auto si = restart ? wi : wi + b * s(i);
      const auto ri_old = r(i);
      const auto ui_old = jacobi ? u(i) : ri_old;
      const auto pi = restart ? ui_old : ui_old + b * p(i);
      z(i) = zi;
      s(i) = si;
      p(i) = pi;
      x(i) += alpha * pi;
      const auto ri = ri_old - alpha * si;
      const auto wn = wi - alpha * zi;
      r(i) = ri;
      w(i) = wn;
      Scalar ui = ri;
      if (jacobi) {
        const auto mi = m(i);
        const auto qi = restart ? mi : mi + b * q(i);
        q(i) = qi;
        ui = ui_old - alpha * qi;
        u(i) = ui;
        m(i) = dinv(i) * wn;
      }
      const double rd = static_cast<double>(ri), ud = static_cast<double>(ui);
      rr += rd * rd;
      rz += rd * ud;
      wz += static_cast<double>(wn) * ud;
    }
    if constexpr (Block != 1) {
      sums.rr += rr_block;
      sums.rz += rz_block;
      sums.wz += wz_block;
    }
  }
};

/// Residual replacement, first pass (t = A x just applied): r = b − t, u = D⁻¹r.
template <class B, class Vec>
struct PipeCgReplaceResidual {
  B b;
  Vec t, r, u, dinv;
  bool jacobi;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto ri = b(i) - t(i);
    r(i) = ri;
    if (jacobi) u(i) = dinv(i) * ri;
  }
};

/// Residual replacement with Jacobi (w = A u, s = A p just applied): m = D⁻¹w, q = D⁻¹s.
template <class Vec>
struct PipeCgReplaceScaled {
  Vec w, s, m, q, dinv;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    m(i) = dinv(i) * w(i);
    q(i) = dinv(i) * s(i);
  }
};

/// Residual replacement, sums of the recomputed r, u, w into scratch slots.
template <class Vec>
struct PipeCgReplaceSums {
  using value_type = PipeCgSums;
  Vec r, u, w;
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    CgRecordJoin::add(a, b);
  }
#if KOKKOS_VERSION < 30700
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    a.rr = a.rr + b.rr;
    a.rz = a.rz + b.rz;
    a.wz = a.wz + b.wz;
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type& sums) const {
    const double rd = static_cast<double>(r(i)), ud = static_cast<double>(u(i));
    sums.rr += rd * rd;
    sums.rz += rd * ud;
    sums.wz += static_cast<double>(w(i)) * ud;
  }
};

/// Residual replacement, last step (one thread): the recomputed sums replace
/// record k's unless record k already stops the device (a stop stays a stop).
template <class Scalars>
struct PipeCgReplaceRecord {
  Scalars scalars;
  int current, scratch;
  double threshold_sq, largest;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const {
    if (cg_verdict(scalars(current), scalars(current + 1), scalars(current + 3), threshold_sq,
                   largest) != CgVerdict::go)
      return;
    for (int j = 0; j < 3; ++j) scalars(current + j) = scalars(scratch + j);
  }
};

} // namespace spmvkit::detail

#endif
