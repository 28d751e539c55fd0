// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_PETSC_ANCHOR_HPP
#define SPMVKIT_PERF_PETSC_ANCHOR_HPP

// The PETSc anchor of the solve family. PETSc runs in a process of its own, the helper
// spmvkit_perf_petsc (petsc_helper.cpp), not in spmvkit_perf: Debian's PETSc links Trilinos
// (ML), whose shared Kokkos library then sits beside the Kokkos spmvkit_perf is built with, and
// two Kokkos in one process corrupt each other (measured: a double free at exit, options
// misparsed). spmvkit_perf writes the system to a file, runs the helper (posix_spawn) and
// reads its timings and solutions back (petsc_anchor.cpp). Nothing here includes PETSc or
// Kokkos; both sides include this header for the request and the file layout.

#include <cstdint>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// Whether this build has the helper (PETSc found by pkg-config at configure time).
bool petsc_available();
/// "PETSc 3.18.5", or "" without PETSc.
std::string petsc_version();

/// Whether the anchor has a KSP and PC for the pair: cg with none, jacobi, block-jacobi, ic0;
/// bicgstab with none, jacobi, block-jacobi, ilu0; gmres with jacobi, block-jacobi, ilu0; every
/// solver with amg (PCGAMG, smoothed aggregation) and hypre (PCHYPRE BoomerAMG). block-jacobi is
/// PCVPBJACOBI on SpMVKit's blocks (the inverted diagonal blocks of block_size rows), not
/// PCBJACOBI, whose one block per process is an ILU(0) of the whole matrix.
inline bool petsc_supports(std::string const& solver, std::string const& preconditioner) {
  auto const& p = preconditioner;
  if (p == "amg" || p == "hypre")
    return solver == "cg" || solver == "bicgstab" || solver == "gmres";
  if (solver == "cg") return p == "none" || p == "jacobi" || p == "block-jacobi" || p == "ic0";
  if (solver == "bicgstab") {
    return p == "none" || p == "jacobi" || p == "block-jacobi" || p == "ilu0";
  }
  if (solver == "gmres") return p == "jacobi" || p == "block-jacobi" || p == "ilu0";
  return false;
}

/// A square system in host CRS with 32-bit indices (read, not kept).
struct PetscSystem {
  std::int64_t n = 0;
  int const* row_starts = nullptr;
  int const* columns = nullptr;
  double const* values = nullptr;
  double const* b = nullptr;
  double const* x0 = nullptr; // the start of every solve
};

/// What to solve with: the solve family's names and its stopping test.
struct PetscRequest {
  std::string solver;         // cg, bicgstab, gmres
  std::string preconditioner; // none, jacobi, block-jacobi, ilu0, ic0, amg (GAMG), hypre
  double relative_tolerance = 1e-8;
  int max_iterations = 10000;
  int restart = 30;   // GMRES
  int block_size = 8; // block-jacobi: diagonal blocks of this many rows, the last one the rest
  int solves = 1;     // solves from x0 after the set-up; the helper stops after one that fails
};

/// What the helper measured.
struct PetscRun {
  bool setup_failed = false; // the preconditioner cannot be built (PETSc's message in error)
  std::string error;
  double matrix_seconds = 0; // assembly of the MATSEQAIJ
  double setup_seconds = 0;  // KSPSetUp + KSPSetUpOnBlocks (the factorisation)
  std::string description;   // "ksp=bcgs;pc=ilu;levels=0;pc_side=right;norm=unpreconditioned"
  struct Solve {
    bool converged = false; // KSPConvergedReason > 0 (on PETSc's own residual)
    int iterations = 0;
    double seconds = 0; // KSPSolve alone
    std::string reason; // KSPConvergedReasons[...]
  };
  std::vector<Solve> solves;
  std::vector<double> solutions; // solves.size() x n, solve after solve
};

/// Runs the helper on the system. Throws std::runtime_error when it cannot be run or fails
/// other than in the preconditioner's set-up.
PetscRun run_petsc(PetscSystem const& system, PetscRequest const& request);

/// The system file the helper reads: a magic line, then n and nnz (int64), row starts and
/// columns (int32), values, b and x0 (double), native byte order.
inline constexpr char petsc_system_magic[16] = "spmvkit-petsc-1";

} // namespace spmvkit::perf

#endif
