// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_CG_OPTIONS_HPP
#define SPMVKIT_SOLVERS_CG_OPTIONS_HPP

/// \file
/// CG's options, status and result (the solver is in solvers/cg.hpp).
#include <spmvkit/solvers/solver_options.hpp>

#include <string>

namespace spmvkit {

/// How a cg() solve ended: the status every solver shares (solvers/solver_options.hpp).
/// CG reports SolverStatus::indefinite for pᵀAp <= 0, non_finite for NaN/Inf, breakdown for
/// an unusable Jacobi diagonal.
using CgStatus = SolverStatus;

/// Which CG recurrence cg() runs (CgOptions::variant); name() gives it as text.
///
/// Both solve the same system with the same options, stopping test and result;
/// they differ in how the iteration's reductions are arranged.
enum class CgVariant {
  /// Hestenes-Stiefel CG: two reductions per iteration (pᵀAp, then rᵀr and rᵀz),
  /// each waited for by the next kernel. Fewest bytes per iteration.
  standard,
  /// Pipelined CG (Ghysels and Vanroose 2014): one fused reduction per iteration
  /// (rᵀr, rᵀz, wᵀz with w = A z) in the same kernel as the vector updates, so an
  /// iteration is one apply and one kernel, and a distributed operator needs one
  /// all-reduce. Costs four more work vectors (six with Jacobi), 3 n s more
  /// traffic per iteration (8 n s with Jacobi) and a periodic residual replacement
  /// (CgOptions::replacement_interval); pays off where launches and reductions,
  /// not bandwidth, bound an iteration (small problems on GPUs, many ranks).
  pipelined
};

/// The variant as text: "standard" or "pipelined".
inline char const* name(CgVariant v) {
  return v == CgVariant::pipelined ? "pipelined" : "standard";
}

/// Handed to CgOptions::progress_callback every progress_every iterations.
using CgProgress = SolverProgress;

/// Options of cg(): stopping test, preconditioning, start, progress reports, timing.
///
/// An aggregate with usable defaults (relative tolerance 1e-8, 1000 iterations,
/// no preconditioning, zero start, silent); set the fields to change them.
/// cg() throws std::invalid_argument when relative_tolerance is negative or
/// NaN, or max_iterations, progress_every or check_interval is negative.
struct CgOptions : SolverOptions {
  /// Jacobi (diagonal) preconditioning. The diagonal is extracted on the device;
  /// a zero, negative or non-finite diagonal entry ends the solve with a breakdown
  /// naming the first such row.
  bool jacobi = false;
  /// The CG recurrence: CgVariant::standard (default) or CgVariant::pipelined.
  /// The pipelined variant needs the fused vector kernels: with cg()'s
  /// KokkosBlasVectors policy it throws std::invalid_argument.
  CgVariant variant = CgVariant::standard;
  /// Pipelined CG only: every replacement_interval iterations its recurrence
  /// vectors are recomputed from x and the direction (r = b − A x and the
  /// auxiliary vectors, four applies, no host synchronisation), which bounds the
  /// drift of the pipelined recurrences; the directions are kept, so
  /// convergence is not restarted. 0: automatic (every 100 iterations in double,
  /// 20 in float, whose recurrences drift faster); must be
  /// >= 0. Both variants also replace the residual when the recurrence meets the
  /// tolerance but the true residual does not (see solvers/cg.hpp); pipelined CG
  /// also restarts from the true residual when its recurrence pᵀAp turns <= 0
  /// after an iteration that went well (rounding, not the matrix), while that
  /// halves the true residual.
  int replacement_interval = 0;
};

/// What cg() returns: the result every solver shares (solvers/solver_options.hpp).
using CgResult = SolverResult;

} // namespace spmvkit

#endif
