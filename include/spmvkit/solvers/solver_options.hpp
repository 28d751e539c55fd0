// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_SOLVER_OPTIONS_HPP
#define SPMVKIT_SOLVERS_SOLVER_OPTIONS_HPP

/// \file
/// What every Krylov solver of SpMVKit shares (cg, bicgstab, gmres): the
/// stopping criteria and logging options (SolverOptions, which each solver's
/// options extend), one status enum (SolverStatus) and one result type
/// (SolverResult). The stopping rules, in the order a solver applies them:
///
/// 1. NaN or Inf in a reduction, the right-hand side or the start: non_finite.
/// 2. A method's breakdown (BiCGStab's ρ or ω zero, GMRES's lost basis):
///    breakdown, with the iteration in the message. CG's pᵀAp <= 0: indefinite.
/// 3. Recurrence residual ‖r‖/‖b‖ above divergence_factor: diverged.
/// 4. Recurrence residual at or below the tolerance: the true residual
///    ‖b − A x‖ is computed; it decides. If it misses, the residual is replaced
///    by b − A x and the solve goes on; once a replacement no longer halves the
///    true residual: stagnated (both residuals reported).
/// 5. max_iterations: iteration_limit.
///
/// "Converged" is only ever declared on the true residual.
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace spmvkit {

class SolverWorkspace; // solvers/workspace.hpp

/// How a solve ended (SolverResult::status); name() gives it as text.
enum class SolverStatus {
  converged,       ///< true residual ‖b − A x‖ within the tolerance
  iteration_limit, ///< max_iterations reached first
  breakdown,       ///< the method cannot go on (a zero it divides by); see message
  stagnated,       ///< the recurrence met the tolerance, the true residual did not, and replacing
                   ///< the residual stopped helping; see message and both residuals
  diverged,        ///< the residual grew past SolverOptions::divergence_factor times ‖b‖
  indefinite,      ///< CG met pᵀAp <= 0: the operator (or preconditioner) is not SPD
  non_finite       ///< NaN or Inf in the data or a reduction; see message
};

/// The status as text: "converged", "iteration_limit", "breakdown",
/// "stagnated", "diverged", "indefinite" or "non_finite".
inline char const* name(SolverStatus s) {
  switch (s) {
  case SolverStatus::converged: return "converged";
  case SolverStatus::iteration_limit: return "iteration_limit";
  case SolverStatus::breakdown: return "breakdown";
  case SolverStatus::stagnated: return "stagnated";
  case SolverStatus::diverged: return "diverged";
  case SolverStatus::indefinite: return "indefinite";
  case SolverStatus::non_finite: return "non_finite";
  }
  return "unknown";
}

/// Handed to SolverOptions::progress_callback every progress_every iterations.
struct SolverProgress {
  /// Iterations completed so far (a multiple of SolverOptions::progress_every).
  int iteration = 0;
  double relative_residual = 0; ///< recurrence ‖r_k‖/‖b‖ (GMRES: its Arnoldi estimate)
  double elapsed_seconds = 0;   ///< since the iteration loop started
};

/// Stopping criteria and logging shared by every solver; each solver's options
/// derive from it (CgOptions, BicgstabOptions, GmresOptions).
///
/// The solvers throw std::invalid_argument when a tolerance is negative or
/// NaN, divergence_factor is not above 1, or max_iterations, progress_every or
/// check_interval is negative.
struct SolverOptions {
  /// Converged when ‖b − A x‖/‖b‖ <= relative_tolerance or ‖b − A x‖ <=
  /// absolute_tolerance (checked once the recurrence residual meets it).
  double relative_tolerance = 1e-8;
  /// Absolute tolerance on ‖b − A x‖ (0: only the relative one counts).
  double absolute_tolerance = 0;
  /// Iteration limit (one operator apply each for CG and GMRES, two for
  /// BiCGStab); >= 0. Reaching it ends the solve with iteration_limit and x the
  /// last iterate.
  int max_iterations = 1000;
  /// Diverged when the recurrence residual exceeds divergence_factor ‖b‖; must
  /// be > 1; infinity disables it.
  double divergence_factor = 1e10;
  /// false: x is overwritten and the solve starts from 0. true: x is the start.
  bool use_initial_guess = false;
  /// Report every progress_every iterations (0: never) to progress_stream (one
  /// line; nullptr: silent) and to progress_callback (if set).
  int progress_every = 0;
  /// Stream for the progress lines ("<solver>: iteration k  relative residual
  /// ...") and, with them, a final summary line; nullptr: silent. Not owned.
  std::ostream* progress_stream = nullptr;
  /// Called on the host with a SolverProgress every progress_every iterations.
  std::function<void(SolverProgress const&)> progress_callback;
  /// Time the operator applies separately (SolverResult::spmv_seconds); two
  /// extra fences per apply, so off unless asked for.
  bool time_spmv = false;
  /// Iterations between two reads of the iteration scalars by the host, for
  /// solvers that form their scalars on the device (CG); 0: automatic. Solvers
  /// whose scalars the host forms (BiCGStab, GMRES) read every iteration.
  int check_interval = 0;
  /// Where the solve takes its work vectors and leaves them for the next solve
  /// (solvers/workspace.hpp); nullptr: allocated by each solve. Not owned; one
  /// solve at a time per workspace.
  SolverWorkspace* workspace = nullptr;
};

/// What every solver returns: how the solve ended, iterations, residuals and
/// timings (wall-clock seconds on the host, measured with the device fenced).
struct SolverResult {
  /// How the solve ended; converged() tests for SolverStatus::converged.
  SolverStatus status = SolverStatus::iteration_limit;
  /// Why the solve did not converge (breakdown, stagnation, divergence...); empty otherwise.
  std::string message;
  /// Completed iterations; a breakdown in iteration k leaves k - 1.
  int iterations = 0;
  /// ‖r_k‖/‖b‖ from the recurrence (what the stopping test saw).
  double relative_residual = 0;
  /// ‖b − A x‖/‖b‖ recomputed at the end: what `converged` is decided on.
  double true_relative_residual = 0;
  /// How often the residual was replaced by b − A x (GMRES: restarts that
  /// continued after a true-residual check; BiCGStab: also its restarts after
  /// a breakdown).
  int residual_replacements = 0;
  double total_seconds = 0;         ///< whole call, set-up and final residual included
  double iteration_seconds = 0;     ///< the iteration loop only
  double seconds_per_iteration = 0; ///< iteration_seconds / iterations (0 if none)
  double spmv_seconds = -1;         ///< apply share of the loop; -1 unless options.time_spmv
  /// Whether status is SolverStatus::converged.
  bool converged() const { return status == SolverStatus::converged; }
};

namespace detail {

/// The checks every solver makes of SolverOptions (std::invalid_argument
/// starting with `where`).
inline void check_solver_options(SolverOptions const& o, char const* where) {
  auto bad = [&](std::string const& what) {
    throw std::invalid_argument(std::string(where) + ": " + what);
  };
  if (!(o.relative_tolerance >= 0))
    bad("relative_tolerance must be >= 0, got " + std::to_string(o.relative_tolerance));
  if (!(o.absolute_tolerance >= 0))
    bad("absolute_tolerance must be >= 0, got " + std::to_string(o.absolute_tolerance));
  if (!(o.divergence_factor > 1))
    bad("divergence_factor must be > 1, got " + std::to_string(o.divergence_factor));
  if (o.max_iterations < 0)
    bad("max_iterations must be >= 0, got " + std::to_string(o.max_iterations));
  if (o.progress_every < 0)
    bad("progress_every must be >= 0, got " + std::to_string(o.progress_every));
  if (o.check_interval < 0)
    bad("check_interval must be >= 0, got " + std::to_string(o.check_interval));
}

} // namespace detail

} // namespace spmvkit

#endif
