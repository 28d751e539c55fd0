// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_CG_HPP
#define SPMVKIT_SOLVERS_CG_HPP

/// \file
/// Conjugate Gradient (optionally Jacobi-preconditioned; standard or pipelined)
/// for symmetric positive definite systems on one execution space instance, for any linear
/// operator (solvers/operator.hpp): a matrix of any SpMVKit format, a
/// KokkosSparse::CrsMatrix (include interop/kokkos_kernels.hpp), or a user
/// operator such as a distributed matrix, whose reduction policy makes the
/// dot products global.
///
/// Per iteration: one apply, the pᵀAp reduction, one update kernel (r and the
/// reductions rᵀr, rᵀz) and one direction kernel (x and p). All scalars (α, β,
/// the stopping test) are formed on the device, so the host only queues
/// kernels and reads the scalars back every CgOptions::check_interval
/// iterations: on a GPU the device never waits for the host. The device
/// applies the stopping test itself and leaves x untouched after the
/// iteration that meets it, so the result does not depend on the interval.
///
/// The vector kernels are SpMVKit's own rather than KokkosBlas calls, for two
/// reasons: KokkosBlas 3.x has no execution-space-instance overloads (its calls
/// would run on the default instance, out of order with `exec`), and fusing
/// saves memory traffic. With s = sizeof(Scalar) and n rows, the vector
/// traffic per iteration is
///
/// \verbatim
///   SpMV        read p, write q                          2 n s
///   pᵀq         read p, q                                2 n s
///   update      read r, q (+ D⁻¹); write r               3 n s (4 n s)
///   direction   read x, r, p (+ D⁻¹); write x, p         5 n s (6 n s)
///                                                        -------------
///                                                        12 n s (14 n s)
/// \endverbatim
///
/// plus the matrix once (unfused KokkosBlas dot/axpy/dot/axpby: 14 n s).
/// z = D⁻¹r is recomputed where needed rather than stored: same traffic, one
/// vector less. Nothing is allocated inside the loop.
///
/// Convergence is declared on the true residual. When the recurrence residual
/// meets the tolerance, CG computes ‖b − A x‖/‖b‖ (one apply and one
/// reduction; the final residual that CgResult reports anyway, so a solve that
/// converges costs nothing extra). If the true residual misses the tolerance,
/// which happens when rounding makes the recurrence drift (single precision,
/// ill-conditioned matrices), CG replaces the residual with b − A x, restarts
/// the directions from it and goes on. Each replacement costs one more apply
/// and start kernel. It gives up with CgStatus::stagnated, reporting both
/// residuals, once a replacement no longer halves the true residual.
///
/// **Vector operations.** The last argument of cg() picks who does the vector
/// work of the standard variant, in the same loop: FusedVectors (default, the
/// kernels above) or KokkosBlasVectors (interop/kokkos_blas.hpp: KokkosBlas
/// calls, scalars on the host, the baseline a Kokkos user would write).
///
/// **Pipelined.** CgOptions::variant = CgVariant::pipelined runs the pipelined
/// CG of Ghysels and Vanroose (2014) with u = D⁻¹r, w = A u and the auxiliary
/// recurrences s = A p, q = D⁻¹s, z = A q. An iteration is one apply (n = A m,
/// m = D⁻¹w) and one kernel that updates z, q, s, p, x, r, u, w and, in the same
/// pass, reduces {rᵀr, rᵀu, wᵀu} of the new vectors: one reduction, one
/// all-reduce of the operator's reduction policy for a distributed operator,
/// and no host synchronisation between the reduction and the next apply (on a
/// GPU both are queued back to back on the instance). pᵀAp comes from the
/// recurrence wᵀu − β² pᵀAp_prev; α, β and the stopping test are formed on the
/// device, so check_interval, the device-side stop and CgResult behave as for
/// the standard variant. Vector traffic besides the apply: read n, z, w, s, r,
/// p, x and write z, s, p, x, r, w, 13 n s (20 n s with Jacobi), against 10 n s (12 n s).
///
/// Its recurrences drift from b − A x faster than standard CG's. The
/// replacement rule: every CgOptions::replacement_interval iterations (default
/// 100 in double, 20 in float) r = b − A x, u, w, s = A p, q and z are
/// recomputed from x and the direction p (four applies, queued without a host
/// wait; directions kept, so convergence is not restarted); when the recurrence
/// meets the tolerance, the true-residual check and replacement above apply; and
/// when pᵀAp turns <= 0 after an iteration that went well (rounding, since it
/// did not at the start), the solve restarts from the true residual while that
/// halves it, else reports the breakdown. On the FEM problem and the shipped SPD
/// matrices in double it ends at the same true residual as standard CG. In
/// float on ill-conditioned matrices (bcsstk14, 1138_bus with Jacobi) the pᵀAp
/// recurrence loses its sign before the tolerance even with a replacement every
/// iteration, and the solve ends in CgStatus::breakdown: use the standard
/// variant there.
///
/// **Mixed precision.** With a float SpMVKit matrix and double b and x, cg()
/// runs on MatrixOperator<Matrix, double> (solvers/operator.hpp): every SpMV
/// reads 4-byte values and sums in double (operations/spmv.hpp), every vector
/// kernel, scalar and stopping test is double CG's. The apply of a CRS FEM
/// matrix (27 entries per row) then moves 236 instead of 344 bytes per row, an
/// iteration with the fused vectors 316 instead of 424 (0.75x). The float
/// matrix is the double one rounded, a different matrix: CG converges on it
/// to double tolerances (CgResult's true residual is against it), while the
/// residual against the double matrix stays at the rounding's level, about
/// 2⁻²⁴ ‖|A| |x|‖ / ‖b‖. unit_tests/solvers/test_cg_mixed.cpp prints both
/// residuals and the iteration counts beside double CG's.
#include <spmvkit/solvers/cg_options.hpp>
#include <spmvkit/solvers/detail/cg_solver.hpp>
#include <spmvkit/solvers/detail/pcg_solver.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioner.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <type_traits>

namespace spmvkit {

/// The default vector-operations policy of cg(): SpMVKit's fused vector
/// kernels, with every iteration scalar formed and tested on the device.
///
/// The vector traffic and kernels per iteration are those of this file's
/// documentation. The other policy is KokkosBlasVectors
/// (interop/kokkos_blas.hpp), the same CG with KokkosBlas calls.
struct FusedVectors : detail::FusedCgVectorOps {};

/// Solves A x = b by CG on `exec` (the operator's execution space). A is a
/// matrix of any SpMVKit format, a KokkosSparse::CrsMatrix (with
/// interop/kokkos_kernels.hpp included) or an operator (solvers/operator.hpp);
/// it must be square. b and x are rank-1 Views of A's scalar type accessible
/// from exec, with n entries each, and must not share storage.
///
/// Mixed precision: for a float SpMVKit matrix, b and x may hold double (and
/// for a double matrix, float). CG then runs on MatrixOperator<Matrix, V>: the
/// matrix is read in its own precision, every SpMV sums in the wider type and
/// every vector operation runs in V (make_mixed_operator() makes that
/// operator explicitly, with options). It solves the system of the matrix as
/// stored: a float matrix rounded from double data is a different matrix,
/// whose solution CG reaches to double tolerances when it is well conditioned
/// (cg.hpp's file documentation says what the tests and benchmarks measured).
///
/// Returns the status rather than throwing for numerical trouble; throws
/// std::invalid_argument for mismatched sizes, aliased vectors or bad options.
/// b = 0 gives x = 0, converged, 0 iterations. Synchronous: the result is
/// ready when cg returns.
///
/// \param exec execution space instance; its type must be the operator's
///             execution_space (compile-time check)
/// \param A    the matrix or operator, held by reference during the call
/// \param b    right-hand side: rank-1 View of n entries of the scalar type (const or
///             not), not modified
/// \param x    solution: rank-1 non-const View of n entries; the initial guess when
///             CgOptions::use_initial_guess is set, otherwise overwritten from 0
/// \param opts tolerance, iteration limit, preconditioning, variant (standard or
///             pipelined), progress reports (CgOptions)
/// \param vector_operations the vector-operations policy of the standard variant:
///             FusedVectors (default) or KokkosBlasVectors (interop/kokkos_blas.hpp);
///             CgVariant::pipelined needs FusedVectors
/// \return status, iterations, residuals, timings and a message (CgResult)
///
/// Wrong View types, ranks, scalar types or memory spaces, and an A that is
/// neither an SpMVKit matrix, a KokkosSparse::CrsMatrix nor an operator, are
/// compile errors (`static_assert` messages naming spmvkit::cg). Besides
/// std::invalid_argument, it throws AllocationError when a work vector cannot
/// be allocated, and whatever a user operator's apply() throws.
///
/// Cost: per iteration one apply and the vector traffic listed in cg.hpp's
/// file documentation (standard: 12 n s bytes, 14 n s with Jacobi; pipelined:
/// 15 n s, 22 n s with Jacobi); a converged solve adds one apply for the true
/// residual. Memory: three work vectors of n entries (r, p, q), plus the
/// inverted diagonal with Jacobi; pipelined adds four (six with Jacobi).
template <class ExecutionSpace, class Matrix, class BView, class XView,
          class VectorOperations = FusedVectors>
CgResult cg(ExecutionSpace const& exec, Matrix const& A, BView const& b, XView const& x,
            CgOptions const& opts = CgOptions(),
            VectorOperations const& vector_operations = VectorOperations()) {
  (void)vector_operations; // a policy type: its hooks are static
  auto&& op = detail::as_operator<BView>(A);
  using Op = std::remove_reference_t<decltype(op)>;
  detail::CgSolver<ExecutionSpace, Op, BView, XView, VectorOperations> solver(exec, op, b, x, opts);
  return solver.solve();
}

/// The same for an operator that keeps state between applies (a cached
/// handle): taken by non-const reference.
///
/// Chosen for a non-const lvalue operator, such as a KokkosKernelsOperator
/// whose apply() is non-const; parameters, exceptions and cost as above.
template <class ExecutionSpace, class Op, class BView, class XView,
          class VectorOperations = FusedVectors,
          class = std::enable_if_t<detail::is_linear_operator<Op>::value>>
CgResult cg(ExecutionSpace const& exec, Op& op, BView const& b, XView const& x,
            CgOptions const& opts = CgOptions(),
            VectorOperations const& vector_operations = VectorOperations()) {
  (void)vector_operations;
  detail::CgSolver<ExecutionSpace, Op, BView, XView, VectorOperations> solver(exec, op, b, x, opts);
  return solver.solve();
}

namespace detail {

template <class ExecutionSpace, class Op, class Prec, class BView, class XView>
CgResult preconditioned_cg(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b,
                           XView const& x, CgOptions const& opts) {
  check_preconditioner_size(M, op.num_rows(), "spmvkit::cg");
  if (opts.jacobi) {
    throw std::invalid_argument("spmvkit::cg: CgOptions::jacobi and a preconditioner object are "
                                "both given; use one (make_jacobi() is the object)");
  }
  if constexpr (is_identity_preconditioner_v<Prec>) {
    CgSolver<ExecutionSpace, Op, BView, XView, FusedVectors> solver(exec, op, b, x, opts);
    return solver.solve();
  } else if constexpr (is_elementwise_preconditioner_v<Prec>) {
    using Vec = typename Op::vector_type;
    static_assert(std::is_same_v<typename Prec::vector_type, Vec>,
                  "spmvkit::cg: the preconditioner's vector_type must be the operator's");
    CgSolver<ExecutionSpace, Op, BView, XView, FusedVectors> solver(exec, op, b, x, opts,
                                                                    M.inverse_diagonal(), true);
    return solver.solve();
  } else {
    if (opts.variant == CgVariant::pipelined) {
      throw std::invalid_argument(
          "spmvkit::cg: CgVariant::pipelined takes element-wise preconditioners only (Jacobi): "
          "its one fused reduction has no place for a general M⁻¹ apply");
    }
    PcgSolver<ExecutionSpace, Op, Prec, BView, XView> solver(exec, op, M, b, x, opts);
    return solver.solve();
  }
}

} // namespace detail

/// Preconditioned CG with a preconditioner object M (solvers/preconditioner.hpp):
/// z = M⁻¹ r, for M symmetric positive definite (Jacobi, block-Jacobi of an SPD
/// matrix, Chebyshev, IC(0)).
///
/// An element-wise M (JacobiPreconditioner) runs the fused loop above with M's
/// inverse diagonal (standard or pipelined, 14 n s bytes per iteration); any
/// other M runs the textbook loop with a stored z and host-formed scalars (one
/// apply of A and of M, three vector kernels and two dot products per iteration;
/// the pipelined variant then throws std::invalid_argument). A pᵀAp <= 0 or
/// rᵀM⁻¹r <= 0 ends the solve with SolverStatus::indefinite. Besides cg()'s
/// exceptions, throws std::invalid_argument when M's size is not A's or when
/// CgOptions::jacobi is also set (two preconditioners).
template <class ExecutionSpace, class Matrix, class Prec, class BView, class XView,
          class = std::enable_if_t<is_preconditioner_v<Prec>>>
CgResult cg(ExecutionSpace const& exec, Matrix const& A, Prec const& M, BView const& b,
            XView const& x, CgOptions const& opts = CgOptions()) {
  auto&& op = detail::as_operator<BView>(A);
  return detail::preconditioned_cg(exec, op, M, b, x, opts);
}

/// The same for an operator that keeps state between applies (taken by
/// non-const reference, as cg() without a preconditioner does).
template <
    class ExecutionSpace, class Op, class Prec, class BView, class XView,
    class = std::enable_if_t<detail::is_linear_operator<Op>::value && is_preconditioner_v<Prec>>>
CgResult cg(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b, XView const& x,
            CgOptions const& opts = CgOptions()) {
  return detail::preconditioned_cg(exec, op, M, b, x, opts);
}

} // namespace spmvkit

#endif
