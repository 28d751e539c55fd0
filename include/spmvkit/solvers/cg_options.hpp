// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_CG_OPTIONS_HPP
#define SPMVKIT_SOLVERS_CG_OPTIONS_HPP

/// \file
/// CG's options, status and result (the solver is in solvers/cg.hpp).
#include <functional>
#include <ostream>
#include <string>

namespace spmvkit {

/// How a cg() solve ended (CgResult::status); name() gives it as text.
enum class CgStatus {
  converged,       ///< true residual ‖b − A x‖/‖b‖ <= relative_tolerance
  iteration_limit, ///< max_iterations reached first
  breakdown,       ///< pᵀAp <= 0, a non-finite reduction, or an unusable diagonal; see message
  stagnated ///< the recurrence met the tolerance, the true residual did not, and replacing the
            ///< residual stopped helping; see message and both residuals
};

/// The status as text: "converged", "iteration_limit", "breakdown" or "stagnated".
inline char const* name(CgStatus s) {
  switch (s) {
  case CgStatus::converged: return "converged";
  case CgStatus::iteration_limit: return "iteration_limit";
  case CgStatus::breakdown: return "breakdown";
  case CgStatus::stagnated: return "stagnated";
  }
  return "unknown";
}

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
struct CgProgress {
  /// Iterations completed so far (a multiple of CgOptions::progress_every).
  int iteration = 0;
  double relative_residual = 0; ///< recurrence ‖r_k‖/‖b‖
  double elapsed_seconds = 0;   ///< since the iteration loop started
};

/// Options of cg(): stopping test, preconditioning, start, progress reports, timing.
///
/// An aggregate with usable defaults (relative tolerance 1e-8, 1000 iterations,
/// no preconditioning, zero start, silent); set the fields to change them.
/// cg() throws std::invalid_argument when relative_tolerance is negative or
/// NaN, or max_iterations, progress_every or check_interval is negative.
struct CgOptions {
  /// Converged when ‖b − A x‖/‖b‖ <= relative_tolerance (checked once the
  /// recurrence residual ‖r‖/‖b‖ meets it).
  double relative_tolerance = 1e-8;
  /// Iteration limit (one apply each); >= 0. Reaching it ends the solve with
  /// CgStatus::iteration_limit and x the last iterate.
  int max_iterations = 1000;
  /// Jacobi (diagonal) preconditioning. The diagonal is extracted on the device;
  /// a zero, negative or non-finite diagonal entry ends the solve with a breakdown.
  bool jacobi = false;
  /// false: x is overwritten and the solve starts from 0. true: x is the start.
  bool use_initial_guess = false;
  /// Report every progress_every iterations (0: never) to progress_stream
  /// (one line; nullptr: silent) and to progress_callback (if set).
  int progress_every = 0;
  /// Stream for the progress lines ("cg: iteration k  relative residual ...")
  /// and, with them, a final summary line; nullptr: silent. Not owned; must
  /// outlive the solve.
  std::ostream* progress_stream = nullptr;
  /// Called on the host with a CgProgress every progress_every iterations;
  /// empty: not called. Each report reads the residual back from the device.
  std::function<void(CgProgress const&)> progress_callback;
  /// Time the applies separately (CgResult::spmv_seconds). Costs two extra
  /// fences per iteration, so it is off unless asked for.
  bool time_spmv = false;
  /// Iterations between two reads of the iteration scalars by the host (the
  /// only synchronisation in the loop). The device stops updating x at the
  /// exact iteration that meets the tolerance or breaks down, so iterations,
  /// residuals, status and x do not depend on it; a longer interval saves a
  /// device-to-host round trip per iteration and costs up to interval - 1
  /// applies run after the stop. Progress reports read back at their own
  /// iterations. 0: automatic (8 on GPUs, 1 on host backends); values above
  /// max_iterations act as max_iterations.
  int check_interval = 0;
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

/// What cg() returns: how the solve ended, iterations, residuals and timings.
///
/// Times are wall-clock seconds on the host (`Kokkos::Timer`), measured with
/// the device fenced.
struct CgResult {
  /// How the solve ended; converged() tests for CgStatus::converged.
  CgStatus status = CgStatus::iteration_limit;
  /// Why the solve broke down or stagnated; empty otherwise.
  std::string message;
  /// Completed iterations (one apply each); a breakdown in iteration k leaves k - 1.
  int iterations = 0;
  /// ‖r_k‖/‖b‖ from the CG recurrence (what the device's stopping test saw).
  double relative_residual = 0;
  /// ‖b − A x‖/‖b‖ recomputed at the end: what `converged` is decided on.
  double true_relative_residual = 0;
  /// How often the residual was replaced by b − A x (see the header comment).
  int residual_replacements = 0;
  double total_seconds = 0;         ///< whole call, set-up and final residual included
  double iteration_seconds = 0;     ///< the iteration loop only
  double seconds_per_iteration = 0; ///< iteration_seconds / iterations (0 if none)
  double spmv_seconds = -1;         ///< apply share of the loop; -1 unless options.time_spmv
  /// Whether status is CgStatus::converged.
  bool converged() const { return status == CgStatus::converged; }
};

} // namespace spmvkit

#endif
