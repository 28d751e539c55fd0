// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The main job (scripts/run_main.sh): -Δu = f on the unit cube with Q1 finite
// elements, assembled on the device and solved by CG in every selected format
// of spmvkit::format_list, beside Kokkos Kernels' own SpMV (fem_cg.hpp).
//
// The exact solution is known, so each solve is checked against the nodal
// discretisation error in closed form; every format is timed over several
// repetitions, taken round-robin so that a noisy neighbour slows all formats
// alike, and reported as the median time per CG iteration with its min-max
// spread. A picture of those times (SVG) ends the run. `fem_cg --help` lists
// the options.
//
// Exits 0 when every solve converged (on the true residual) to the expected
// error, 1 when a check failed, 2 for a usage or runtime error.
#include "fem_cg.hpp"

#include <limits>
#include <string>
#include <vector>

namespace fem_cg {

template int run<double>(Config const&);

namespace {

constexpr char const* about =
    "Solves -Δu = f on the unit cube (u = 0 on the boundary) with trilinear (Q1) finite elements "
    "on a uniform mesh of N x N x N cubes, by conjugate gradients (CG) in every selected matrix "
    "format of SpMVKit's format list and with Kokkos Kernels' SpMV for comparison. The exact "
    "solution u = sin(πx) sin(πy) sin(πz) is known, so every solve is checked against the "
    "discretisation error, known in closed form. Each format solves the same system from the same "
    "rough start, several times (round-robin), and is reported as the median time per CG "
    "iteration with its spread; a picture of those times is written as SVG.";

} // namespace
} // namespace fem_cg

int main(int argc, char* argv[]) {
  using namespace fem_cg;
  Config cfg;
  const std::vector<ex::Option> options{
      ex::integer_option("N",
                         "mesh intervals per direction: (N-1)³ unknowns; at most 431, so that "
                         "the (3N-5)³ stored entries fit 32-bit offsets",
                         cfg.N, 2, 431),
      ex::formats_option<Exec>(cfg.formats, true),
      ex::choice_option("precision", "floating-point type of matrix and vectors", cfg.precision,
                        {"double", "float"}),
      ex::real_or_auto_option("tol",
                              "relative tolerance on the true residual ‖b − A x‖/‖b‖ (auto: "
                              "1e-10 in double, 1e-5 in float)",
                              cfg.tol, {0, false, 1, false}),
      ex::integer_option("max-iters", "CG iteration limit per solve", cfg.max_iters, 1,
                         std::numeric_limits<int>::max()),
      ex::integer_option("repetitions", "solves per format; times are their median and min-max",
                         cfg.repetitions, 1, 1000),
      ex::switch_option("jacobi", "Jacobi (diagonal) preconditioning (= --preconditioner jacobi)",
                        cfg.jacobi),
      ex::choice_option("preconditioner",
                        "preconditioner of every solve (ilu0 runs as IC(0), the symmetric "
                        "factorisation CG needs)",
                        cfg.preconditioner,
                        {"none", "jacobi", "block-jacobi", "chebyshev", "ilu0", "ic0", "amg"}),
      ex::integer_option("block-size", "block-Jacobi block size (0: one grid line, at most 32)",
                         cfg.block_size, 0, 32),
      ex::switch_option("zero-start",
                        "start CG from x = 0 instead of a rough guess (it then converges in one "
                        "iteration: b is an eigenvector of the matrix)",
                        cfg.zero_start),
      ex::integer_option("progress-every",
                         "print the CG residual every this many iterations (first repetition; 0: "
                         "never)",
                         cfg.progress_every, 0, std::numeric_limits<int>::max()),
      ex::output_file_option("plot", "SVG picture of the time per iteration by format", cfg.plot),
  };
  return ex::run_example(argc, argv, {"fem_cg", about}, options, [&] {
    Kokkos::Timer wall;
    const int status = cfg.precision == "float" ? run<float>(cfg) : run<double>(cfg);
    std::cout << "wall time " << ex::fixed(wall.seconds(), 1) << " s\n";
    return status;
  });
}
