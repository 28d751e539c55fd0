// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmvkit_perf_petsc: the PETSc side of the solve family's anchor (petsc_anchor.hpp says why it
// is a process of its own). Reads a system file, assembles it as a MATSEQAIJ on PETSC_COMM_SELF,
// sets up one KSP and solves from x0 as often as asked, then writes
//   RESULTS: "matrix_seconds S", "setup_seconds S", "description D", one
//            "solve CONVERGED ITERATIONS SECONDS REASON" line per solve, or "setup_error MESSAGE";
//   SOLUTIONS: each solve's x (n doubles).
// Usage: spmvkit_perf_petsc SYSTEM RESULTS SOLUTIONS SOLVER PRECONDITIONER RTOL MAX_ITERATIONS
//        RESTART SOLVES
// Exit status 0; 3 when the preconditioner cannot be built (RESULTS says why); 1 otherwise.

#include "petsc_anchor.hpp"

#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using spmvkit::perf::PetscRequest;

/// A PETSc error; `setup` marks one of KSPSetUp (a factorisation PETSc refuses).
struct PetscFailure : std::runtime_error {
  bool setup;
  PetscFailure(std::string const& what, bool in_setup)
      : std::runtime_error(what), setup(in_setup) {}
};

void check(PetscErrorCode code, char const* what, bool setup = false) {
  if (!code) return;
  char const* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  throw PetscFailure(std::string(what) + ": " + (text ? text : "PETSc error"), setup);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct System {
  std::int64_t n = 0, nnz = 0;
  std::vector<PetscInt> row_starts, columns;
  std::vector<PetscScalar> values, b, x0;
};

System read_system(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof spmvkit::perf::petsc_system_magic] = {};
  in.read(magic, sizeof magic);
  if (!in || std::string(magic) != spmvkit::perf::petsc_system_magic) {
    throw std::runtime_error(path + ": not a system file of spmvkit_perf");
  }
  System s;
  in.read(reinterpret_cast<char*>(&s.n), sizeof s.n);
  in.read(reinterpret_cast<char*>(&s.nnz), sizeof s.nnz);
  auto ints = [&](std::size_t count, std::vector<PetscInt>& out) {
    std::vector<std::int32_t> v(count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * 4));
    out.assign(v.begin(), v.end());
  };
  auto doubles = [&](std::size_t count, std::vector<PetscScalar>& out) {
    std::vector<double> v(count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * 8));
    out.assign(v.begin(), v.end());
  };
  const auto n = static_cast<std::size_t>(s.n), nnz = static_cast<std::size_t>(s.nnz);
  ints(n + 1, s.row_starts);
  ints(nnz, s.columns);
  doubles(nnz, s.values);
  doubles(n, s.b);
  doubles(n, s.x0);
  if (!in) throw std::runtime_error(path + ": truncated system file");
  return s;
}

/// Copies values into a new sequential vector.
Vec make_vector(std::vector<PetscScalar> const& values) {
  Vec v = nullptr;
  check(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(values.size()), &v), "VecCreateSeq");
  PetscScalar* a = nullptr;
  check(VecGetArray(v, &a), "VecGetArray");
  for (std::size_t i = 0; i < values.size(); ++i) a[i] = values[i];
  check(VecRestoreArray(v, &a), "VecRestoreArray");
  return v;
}

int run(int argc, char** argv) {
  if (argc != 11) {
    std::fprintf(stderr,
                 "usage: %s SYSTEM RESULTS SOLUTIONS SOLVER PRECONDITIONER RTOL "
                 "MAX_ITERATIONS RESTART SOLVES BLOCK_SIZE\n",
                 argv[0]);
    return 1;
  }
  PetscRequest r;
  r.solver = argv[4];
  r.preconditioner = argv[5];
  r.relative_tolerance = std::strtod(argv[6], nullptr);
  r.max_iterations = std::atoi(argv[7]);
  r.restart = std::atoi(argv[8]);
  r.solves = std::atoi(argv[9]);
  r.block_size = std::atoi(argv[10]);
  if (r.block_size < 1) {
    std::fprintf(stderr, "%s: BLOCK_SIZE '%s' is not a positive integer\n", argv[0], argv[10]);
    return 1;
  }
  if (!spmvkit::perf::petsc_supports(r.solver, r.preconditioner)) {
    std::fprintf(stderr, "%s: no KSP/PC for %s/%s\n", argv[0], argv[4], argv[5]);
    return 1;
  }
  const System s = read_system(argv[1]);
  std::ofstream results(argv[2]);
  std::ofstream solutions(argv[3], std::ios::binary);

  Mat A = nullptr;
  Vec b = nullptr, x = nullptr, x0 = nullptr;
  KSP ksp = nullptr;
  int status = 0;
  try {
    const auto n = static_cast<PetscInt>(s.n);
    // Assembly: PETSc copies our CRS (MatSeqAIJSetPreallocationCSR also assembles).
    const auto start = std::chrono::steady_clock::now();
    check(MatCreate(PETSC_COMM_SELF, &A), "MatCreate");
    check(MatSetSizes(A, n, n, n, n), "MatSetSizes");
    check(MatSetType(A, MATSEQAIJ), "MatSetType");
    check(MatSeqAIJSetPreallocationCSR(A, s.row_starts.data(), s.columns.data(), s.values.data()),
          "MatSeqAIJSetPreallocationCSR");
    results << "matrix_seconds " << seconds_since(start) << "\n";
    b = make_vector(s.b);
    x0 = make_vector(s.x0);
    check(VecDuplicate(b, &x), "VecDuplicate");

    check(KSPCreate(PETSC_COMM_SELF, &ksp), "KSPCreate");
    check(KSPSetOperators(ksp, A, A), "KSPSetOperators");
    KSPType type = r.solver == "cg" ? KSPCG : r.solver == "bicgstab" ? KSPBCGS : KSPGMRES;
    check(KSPSetType(ksp, type), "KSPSetType");
    std::string description = std::string("ksp=") + type;
    if (r.solver == "gmres") {
      check(KSPGMRESSetRestart(ksp, r.restart), "KSPGMRESSetRestart");
      // Classical Gram-Schmidt with a second pass every step, as SpMVKit's GMRES (CGS2);
      // PETSc's default never refines.
      check(KSPGMRESSetCGSRefinementType(ksp, KSP_GMRES_CGS_REFINE_ALWAYS),
            "KSPGMRESSetCGSRefinementType");
      description += ";restart=" + std::to_string(r.restart) + ";orthogonalization=cgs2";
    }
    PC pc = nullptr;
    check(KSPGetPC(ksp, &pc), "KSPGetPC");
    PCType pc_type = PCNONE;
    if (r.preconditioner == "jacobi") pc_type = PCJACOBI;
    std::vector<PetscInt> block_sizes; // block-jacobi: SpMVKit's blocks, inverted by PETSc
    if (r.preconditioner == "block-jacobi") {
      pc_type = PCVPBJACOBI;
      for (PetscInt start = 0; start < n; start += r.block_size)
        block_sizes.push_back(std::min<PetscInt>(r.block_size, n - start));
      check(MatSetVariableBlockSizes(A, static_cast<PetscInt>(block_sizes.size()),
                                     block_sizes.data()),
            "MatSetVariableBlockSizes");
    }
    if (r.preconditioner == "ilu0") pc_type = PCILU;
    if (r.preconditioner == "ic0") pc_type = PCICC;
    if (r.preconditioner == "amg") pc_type = PCGAMG; // smoothed aggregation, its defaults
    if (r.preconditioner == "hypre") pc_type = PCHYPRE;
    check(PCSetType(pc, pc_type), "PCSetType");
    description += std::string(";pc=") + pc_type;
    if (!block_sizes.empty()) description += ";block_size=" + std::to_string(r.block_size);
    if (r.preconditioner == "hypre") {
      check(PCHYPRESetType(pc, "boomeramg"), "PCHYPRESetType");
      description += ";hypre=boomeramg";
    }
    if (r.preconditioner == "ilu0" || r.preconditioner == "ic0") {
      check(PCFactorSetLevels(pc, 0), "PCFactorSetLevels");
      description += ";levels=0";
    }
    // SpMVKit's test: the unpreconditioned residual against rtol ‖b‖ (PETSc's reference norm
    // with a nonzero initial guess). BiCGStab and GMRES take that norm with right
    // preconditioning only, which is also SpMVKit's side; CG keeps the left side.
    if (r.solver != "cg") check(KSPSetPCSide(ksp, PC_RIGHT), "KSPSetPCSide");
    check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
    description +=
        std::string(";pc_side=") + (r.solver == "cg" ? "left" : "right") + ";norm=unpreconditioned";
    // abstol 0 and a divergence factor of 1e10, as SolverOptions' defaults.
    check(KSPSetTolerances(ksp, r.relative_tolerance, 0.0, 1e10, r.max_iterations),
          "KSPSetTolerances");
    check(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE), "KSPSetInitialGuessNonzero");

    const auto setup_start = std::chrono::steady_clock::now();
    check(KSPSetUp(ksp), "KSPSetUp", true);
    // Block preconditioners factor or invert their blocks here, not in the first solve.
    check(KSPSetUpOnBlocks(ksp), "KSPSetUpOnBlocks", true);
    results << "setup_seconds " << seconds_since(setup_start) << "\n";
    results << "description " << description << "\n";

    std::vector<double> out(static_cast<std::size_t>(s.n));
    for (int k = 0; k < r.solves; ++k) {
      check(VecCopy(x0, x), "VecCopy");
      const auto solve_start = std::chrono::steady_clock::now();
      check(KSPSolve(ksp, b, x), "KSPSolve");
      const double seconds = seconds_since(solve_start);
      KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
      PetscInt iterations = 0;
      check(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
      check(KSPGetIterationNumber(ksp, &iterations), "KSPGetIterationNumber");
      results << "solve " << (reason > 0 ? 1 : 0) << " " << iterations << " " << seconds << " "
              << KSPConvergedReasons[reason] << "\n";
      PetscScalar const* a = nullptr;
      check(VecGetArrayRead(x, &a), "VecGetArrayRead");
      for (std::int64_t i = 0; i < s.n; ++i) out[static_cast<std::size_t>(i)] = a[i];
      check(VecRestoreArrayRead(x, &a), "VecRestoreArrayRead");
      solutions.write(reinterpret_cast<char const*>(out.data()),
                      static_cast<std::streamsize>(out.size() * sizeof(double)));
      if (reason <= 0) break; // a failed solve is not repeated
    }
  } catch (PetscFailure const& e) {
    if (!e.setup) throw;
    results << "setup_error " << e.what() << "\n";
    status = 3;
  }
  results.flush();
  solutions.flush();
  if (ksp) KSPDestroy(&ksp);
  if (x) VecDestroy(&x);
  if (x0) VecDestroy(&x0);
  if (b) VecDestroy(&b);
  if (A) MatDestroy(&A);
  return status;
}

} // namespace

int main(int argc, char** argv) {
  // PETSc's own options would come from argv; these are ours, so PETSc gets none. It calls
  // MPI_Init itself (a singleton: one process, PETSC_COMM_SELF throughout).
  if (PetscInitializeNoArguments()) return 1;
  // Errors come back as codes (and become exceptions above) without PETSc's traceback.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  int status = 1;
  try {
    status = run(argc, argv);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "spmvkit_perf_petsc: %s\n", e.what());
    status = 1;
  }
  PetscFinalize();
  return status;
}
