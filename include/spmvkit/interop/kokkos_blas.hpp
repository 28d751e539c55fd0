// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_INTEROP_KOKKOS_BLAS_HPP
#define SPMVKIT_INTEROP_KOKKOS_BLAS_HPP

/// \file
/// CG's vector operations through KokkosBlas: `cg(exec, A, b, x, opts,
/// KokkosBlasVectors())` runs the same CG loop, options, stopping test and
/// result as the default FusedVectors, with each vector operation a KokkosBlas
/// call (dot, axpy, axpby, update, mult, nrm2), the way a Kokkos user writes
/// CG. It is the benchmarks' baseline for what the fused kernels are worth.
///
/// Per iteration (n rows, s = sizeof(Scalar); D⁻¹ the inverted diagonal):
///
/// \verbatim
///   pᵀq = dot(p, q)                 read p, q            2 n s
///   r = r − α q   (axpy)            read r, q; write r   3 n s
///   z = D⁻¹ r     (mult, Jacobi)    read D⁻¹, r; write z (3 n s)
///   rᵀr, rᵀz = dot(r, r), dot(r, z) read r (r, z)        1 n s (2 n s)
///   x = x + α p   (axpy)            read x, p; write x   3 n s
///   p = z + β p   (axpby)           read z, p; write p   3 n s
///                                                        -------------
///                                                        12 n s (16 n s)
/// \endverbatim
///
/// plus the apply's 2 n s and the matrix, against 10 n s (12 n s) of the fused
/// kernels. Each dot returns its value to the host, so every iteration waits
/// for the device twice; α, β and the stopping test are formed on the host,
/// which examines every iteration (CgOptions::check_interval has no effect).
///
/// Execution-space instances: from Kokkos Kernels 4.2 on every call takes the
/// solver's instance and is ordered with the apply like any kernel. Kokkos
/// Kernels 3.x has no instance overloads: its calls run on the default instance,
/// so each call is preceded by a fence of the solver's instance and followed by
/// a fence of the default one. That is correct with any instance, and costs
/// nothing extra when the solver runs on the default instance, as the
/// benchmarks do.
///
/// Needs Kokkos Kernels (the SpMVKit::kokkos_kernels target defines
/// SPMVKIT_HAS_KOKKOS_KERNELS); the core library does not include this header.
#include <spmvkit/solvers/cg.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_update.hpp>
#include <KokkosKernels_config.h>

#include <Kokkos_Core.hpp>

#include <cmath>

// Execution-space-instance overloads of the KokkosBlas level-1 calls; 3.x
// does not define KOKKOSKERNELS_VERSION at all.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40200
/// 1 when KokkosBlas takes an execution-space instance (Kokkos Kernels 4.2 and later), else 0.
#define SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES 1
#else
#define SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES 0
#endif

namespace spmvkit {
namespace detail {

/// The KokkosBlas calls CG makes, on the solver's instance where Kokkos
/// Kernels allows it, else fenced around the default instance.
struct CgBlas {
  template <class E, class X, class Y>
  static double dot(E const& exec, X const& x, Y const& y) {
#if SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES
    return static_cast<double>(KokkosBlas::dot(exec, x, y));
#else
    exec.fence();
    return static_cast<double>(KokkosBlas::dot(x, y)); // returns on the host: synchronous
#endif
  }
  template <class E, class X>
  static double nrm2(E const& exec, X const& x) {
#if SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES
    return static_cast<double>(KokkosBlas::nrm2(exec, x));
#else
    exec.fence();
    return static_cast<double>(KokkosBlas::nrm2(x));
#endif
  }
  template <class E, class A, class X, class Y>
  static void axpby(E const& exec, A a, X const& x, A b, Y const& y) {
#if SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES
    KokkosBlas::axpby(exec, a, x, b, y);
#else
    exec.fence();
    KokkosBlas::axpby(a, x, b, y);
    E().fence();
#endif
  }
  template <class E, class A, class X, class Y>
  static void axpy(E const& exec, A a, X const& x, Y const& y) {
#if SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES
    KokkosBlas::axpy(exec, a, x, y);
#else
    exec.fence();
    KokkosBlas::axpy(a, x, y);
    E().fence();
#endif
  }
  /// z = a x + b y + c z.
  template <class E, class A, class X, class Y, class Z>
  static void update(E const& exec, A a, X const& x, A b, Y const& y, A c, Z const& z) {
#if SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES
    KokkosBlas::update(exec, a, x, b, y, c, z);
#else
    exec.fence();
    KokkosBlas::update(a, x, b, y, c, z);
    E().fence();
#endif
  }
  /// y = a D x (elementwise product).
  template <class E, class A, class D, class X, class Y>
  static void mult(E const& exec, A a, D const& d, X const& x, Y const& y) {
#if SPMVKIT_KOKKOS_BLAS_HAS_INSTANCES
    KokkosBlas::mult(exec, A(0), y, a, d, x);
#else
    exec.fence();
    KokkosBlas::mult(A(0), y, a, d, x);
    E().fence();
#endif
  }
};

/// The hooks of KokkosBlasVectors (see FusedCgVectorOps for what each does).
/// The records are formed on the host, in the ring's host mirror.
struct KokkosBlasCgVectorOps {
  static constexpr bool host_scalars = true;
  static constexpr bool needs_z = true; // z = D⁻¹r is stored with Jacobi

  template <class W, class V>
  static void start(W& w, bool from_x, V const& z_out, double* sums) {
    using Scalar = typename V::non_const_value_type;
    if (from_x) {
      CgBlas::update(w.exec, Scalar(1), w.b, Scalar(-1), w.q, Scalar(0), w.r);
    } else {
      CgBlas::axpby(w.exec, Scalar(1), w.b, Scalar(0), w.r);
    }
    if (w.jacobi) {
      CgBlas::mult(w.exec, Scalar(1), w.dinv, w.r, z_out);
    } else {
      CgBlas::axpby(w.exec, Scalar(1), w.r, Scalar(0), z_out);
    }
    sums[0] = CgBlas::dot(w.exec, w.r, w.r);
    sums[1] = w.jacobi ? CgBlas::dot(w.exec, w.r, z_out) : sums[0];
    const double norm_b = CgBlas::nrm2(w.exec, w.b);
    sums[2] = norm_b * norm_b;
  }

  template <class W>
  static bool p_dot_q(W& w, int k) {
    double pq = CgBlas::dot(w.exec, w.p, w.q);
    w.reduction.all_reduce_host(&pq, 1);
    const int current = w.layout.record(k);
    w.host_scalars(current + w.layout.pAp) = pq;
    if (pq > 0 && pq <= w.largest) return true;
    // A breakdown: the record fails the stopping test on pᵀAp; r, x, p keep
    // their values, as with the fused kernels.
    w.host_scalars(current) = w.host_scalars(w.layout.record(k - 1));
    w.host_scalars(current + 1) = w.host_scalars(w.layout.record(k - 1) + 1);
    return false;
  }

  template <class W>
  static bool update(W& w, int k) {
    using Scalar = typename decltype(w.r)::non_const_value_type;
    const int current = w.layout.record(k), previous = w.layout.record(k - 1);
    const double pAp = w.host_scalars(current + w.layout.pAp);
    CgBlas::axpy(w.exec, static_cast<Scalar>(-(w.host_scalars(previous + 1) / pAp)), w.q, w.r);
    double sums[2];
    sums[0] = CgBlas::dot(w.exec, w.r, w.r);
    if (w.jacobi) {
      CgBlas::mult(w.exec, Scalar(1), w.dinv, w.r, w.z);
      sums[1] = CgBlas::dot(w.exec, w.r, w.z);
    } else {
      sums[1] = sums[0];
    }
    w.reduction.all_reduce_host(sums, 2);
    w.host_scalars(current) = sums[0];
    w.host_scalars(current + 1) = sums[1];
    return true;
  }

  template <class W>
  static void direction(W& w, int k) {
    using Scalar = typename decltype(w.r)::non_const_value_type;
    const int current = w.layout.record(k), previous = w.layout.record(k - 1);
    const double rr = w.host_scalars(current), rz = w.host_scalars(current + 1),
                 pAp = w.host_scalars(current + w.layout.pAp),
                 rz_old = w.host_scalars(previous + 1);
    CgBlas::axpy(w.exec, static_cast<Scalar>(rz_old / pAp), w.p, w.x);
    // The x step of the iteration that meets the test is taken, p is kept.
    if (cg_verdict(rr, rz, pAp, w.threshold_sq, w.largest) != CgVerdict::go) return;
    CgBlas::axpby(w.exec, Scalar(1), w.jacobi ? w.z : w.r, static_cast<Scalar>(rz / rz_old), w.p);
  }

  template <class W>
  static double residual_norm_sq(W& w) {
    using Scalar = typename decltype(w.r)::non_const_value_type;
    // q = b − q in place: each entry reads its own b and q, then is written.
    CgBlas::update(w.exec, Scalar(1), w.b, Scalar(-1), w.q, Scalar(0), w.q);
    const double norm = CgBlas::nrm2(w.exec, w.q);
    return norm * norm;
  }
};

} // namespace detail

/// The vector-operations policy that makes cg() call KokkosBlas (dot, axpy,
/// axpby, update, mult, nrm2) for its vector work: `cg(exec, A, b, x, opts,
/// KokkosBlasVectors())`.
///
/// Same options, stopping test (true-residual check, residual replacement) and
/// CgResult as the default FusedVectors; the scalars are formed on the host,
/// which waits for the device at each dot (this file's documentation lists the
/// calls, their traffic and the fences on Kokkos Kernels 3.x). Stores z = D⁻¹r,
/// one work vector more, with Jacobi. Not usable with CgVariant::pipelined,
/// whose single reduction is fused with its vector updates.
struct KokkosBlasVectors : detail::KokkosBlasCgVectorOps {};

} // namespace spmvkit

#endif
