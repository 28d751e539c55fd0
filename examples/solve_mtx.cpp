// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Solves A x = b for a Matrix Market matrix with a chosen Krylov solver and
// preconditioner (solvers/). `solve_mtx --help` lists the options.
//
// b is read from --rhs (a coordinate Matrix Market n x 1 file) or is A times
// the vector of ones. Without a matrix file it solves the 2D convection-
// diffusion problem of --N and --peclet, whose exact solution is known. It
// reports the preconditioner's set-up time, the iterations, the true residual
// ‖b − A x‖/‖b‖ recomputed here independently of the solver, the time per
// iteration and the whole solve, with a progress line every --progress-every
// iterations on long solves.
//
// Exits 0 when the solve converged (on the true residual), 1 when it did not
// (the status says why: iteration_limit, breakdown, stagnated, diverged,
// indefinite, non_finite), 2 for a usage or runtime error.
#include "example_cli.hpp"
#include "example_memory.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>
#include <spmvkit/solvers/preconditioners/ilu0.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;
using Vec = Kokkos::View<double*, Crs::device_type>;

struct Config {
  std::string path;
  std::string rhs;
  std::string solver = "gmres";
  std::string preconditioner = "jacobi";
  double tol = 1e-8;
  int max_iters = 10000;
  int restart = 0;
  int block_size = 8;
  int degree = 3;
  double eigenvalue_ratio = spmvkit::ChebyshevOptions().eigenvalue_ratio;
  int progress_every = 100;
  std::int64_t N = 128;
  double peclet = 1.0;
};

/// b from a coordinate Matrix Market n x 1 file: its entries, zeros elsewhere.
Vec read_rhs(Exec const& exec, std::string const& path, std::int64_t n) {
  const auto info = spmvkit::read_matrix_market_info(path);
  if (info.rows != n || info.cols != 1) {
    throw std::runtime_error(path + ": a right-hand side must be " + std::to_string(n) +
                             " x 1, the file is " + std::to_string(info.rows) + " x " +
                             std::to_string(info.cols));
  }
  spmvkit::MatrixMarketReadOptions o;
  o.values = spmvkit::MatrixMarketValues::finite;
  const auto B = spmvkit::read_matrix_market<double, Exec>(path, o, exec);
  Vec b("SpMVKit::solve_mtx::b", static_cast<std::size_t>(n));
  Vec one("SpMVKit::solve_mtx::one", 1);
  Kokkos::deep_copy(exec, one, 1.0);
  spmvkit::spmv(exec, 1.0, B, one, 0.0, b);
  return b;
}

/// Runs `solve(M)` with the preconditioner `name`, built from A and timed.
template <class Solve>
spmvkit::SolverResult with_preconditioner(Exec const& exec, Config const& cfg, Crs const& A,
                                          double& setup_seconds, Solve&& solve) {
  Kokkos::Timer timer;
  auto timed = [&](auto const& M) {
    exec.fence();
    setup_seconds = timer.seconds();
    std::cout << "preconditioner " << cfg.preconditioner << ": set up in "
              << ex::fixed(setup_seconds, 4) << " s\n";
    return solve(M);
  };
  const auto op = spmvkit::make_operator(A);
  using Op = std::decay_t<decltype(op)>;
  if (cfg.preconditioner == "none") return timed(spmvkit::IdentityPreconditioner<Op>(A.num_rows()));
  if (cfg.preconditioner == "jacobi") return timed(spmvkit::make_jacobi(exec, A));
  if (cfg.preconditioner == "block-jacobi")
    return timed(spmvkit::make_block_jacobi(exec, A, cfg.block_size));
  if (cfg.preconditioner == "chebyshev" || cfg.preconditioner == "chebyshev-float") {
    spmvkit::ChebyshevOptions o;
    o.degree = cfg.degree;
    o.eigenvalue_ratio = cfg.eigenvalue_ratio;
    // The float polynomial: a float copy of A in its own format, float vectors.
    if (cfg.preconditioner == "chebyshev-float")
      return timed(spmvkit::make_float_chebyshev(exec, A, o));
    return timed(spmvkit::make_chebyshev(exec, A, o));
  }
  if (cfg.preconditioner == "ilu0") return timed(spmvkit::make_ilu0(exec, A));
  if (cfg.preconditioner == "amg") {
    const auto M = spmvkit::make_amg(exec, A);
    std::cout << M.describe(); // the report's own times; timed() adds this print's microseconds
    return timed(M);
  }
  return timed(spmvkit::make_ic0(exec, A));
}

int example(Config const& cfg) {
  const Exec exec;
  const auto budget = ex::MemoryBudget::of<Exec>();
  // The solver's vectors besides the matrix: GMRES's basis dominates.
  const int basis = cfg.solver == "gmres" ? (cfg.restart > 0 ? cfg.restart : 30) + 1 : 0;
  const double vectors_per_row = 8.0 * (basis + 12);
  if (!cfg.path.empty()) {
    const auto info = spmvkit::read_matrix_market_info(cfg.path);
    if (info.rows != info.cols) {
      throw std::runtime_error(cfg.path + ": the matrix is " + std::to_string(info.rows) + " x " +
                               std::to_string(info.cols) + "; a linear system needs it square");
    }
    const double rows = static_cast<double>(info.rows);
    budget.require(ex::crs_bytes(rows, ex::declared_entries(info)) + vectors_per_row * rows,
                   cfg.path, "the matrix and the solver's vectors");
  }
  Crs A;
  Vec b, x_exact;
  std::string what;
  if (cfg.path.empty()) {
    const spmvkit::ConvectionDiffusion problem(2, cfg.N, cfg.peclet);
    what = "2D convection-diffusion, N = " + std::to_string(cfg.N) + ", mesh Péclet number " +
           ex::sci(cfg.peclet, 3);
    budget.require(ex::crs_bytes(problem.num_rows, problem.nnz) +
                       vectors_per_row * problem.num_rows,
                   what, "the matrix and the solver's vectors");
    A = spmvkit::make_convection_diffusion_crs<double>(exec, problem);
    b = spmvkit::convection_diffusion_rhs<double>(exec, problem);
    x_exact = spmvkit::convection_diffusion_solution<double>(exec, problem);
  } else {
    spmvkit::MatrixMarketReadOptions o;
    o.values = spmvkit::MatrixMarketValues::finite;
    what = cfg.path;
    A = spmvkit::read_matrix_market<double, Exec>(cfg.path, o, exec);
    if (!cfg.rhs.empty()) {
      b = read_rhs(exec, cfg.rhs, A.num_rows());
    } else {
      Vec ones("SpMVKit::solve_mtx::ones", static_cast<std::size_t>(A.num_cols()));
      Kokkos::deep_copy(exec, ones, 1.0);
      b = Vec("SpMVKit::solve_mtx::b", static_cast<std::size_t>(A.num_rows()));
      spmvkit::spmv(exec, 1.0, A, ones, 0.0, b);
    }
  }
  std::cout << what << ": " << A.num_rows() << " x " << A.num_cols() << ", " << A.nnz()
            << " nonzeros; " << Exec::name() << ", " << exec.concurrency() << " threads\n"
            << "right-hand side: "
            << (cfg.rhs.empty() ? (cfg.path.empty() ? "A u* for the known solution u*" : "A 1")
                                : cfg.rhs)
            << "\nsolver " << cfg.solver << ", tolerance " << cfg.tol << " on ‖b − A x‖/‖b‖\n";

  Vec x("SpMVKit::solve_mtx::x", static_cast<std::size_t>(A.num_rows()));
  double setup = 0;
  auto solve = [&](auto const& M) -> spmvkit::SolverResult {
    auto fill = [&](auto& o) {
      o.relative_tolerance = cfg.tol;
      o.max_iterations = cfg.max_iters;
      o.progress_every = cfg.progress_every;
      o.progress_stream = cfg.progress_every > 0 ? &std::cout : nullptr;
    };
    if (cfg.solver == "cg" || cfg.solver == "pipelined-cg") {
      spmvkit::CgOptions o;
      fill(o);
      if (cfg.solver == "pipelined-cg") o.variant = spmvkit::CgVariant::pipelined;
      return spmvkit::cg(exec, A, M, b, x, o);
    }
    if (cfg.solver == "bicgstab") {
      spmvkit::BicgstabOptions o;
      fill(o);
      return spmvkit::bicgstab(exec, A, M, b, x, o);
    }
    spmvkit::GmresOptions o;
    fill(o);
    o.restart = cfg.restart;
    return spmvkit::gmres(exec, A, M, b, x, o);
  };
  const auto r = with_preconditioner(exec, cfg, A, setup, solve);

  // The true residual, recomputed here: spmv and a host sum, not the solver's.
  Vec ax("SpMVKit::solve_mtx::ax", static_cast<std::size_t>(A.num_rows()));
  spmvkit::spmv(exec, 1.0, A, x, 0.0, ax);
  auto axh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ax);
  auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double rr = 0, bb = 0;
  for (std::size_t i = 0; i < bh.extent(0); ++i) {
    rr += (bh(i) - axh(i)) * (bh(i) - axh(i));
    bb += bh(i) * bh(i);
  }
  const double true_res = bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
  std::cout << "\nstatus            " << spmvkit::name(r.status)
            << (r.message.empty() ? "" : " (" + r.message + ")") << "\n"
            << "iterations        " << r.iterations << "\n"
            << "true residual     " << ex::sci(true_res, 3)
            << " (solver's: " << ex::sci(r.true_relative_residual, 3) << ")\n"
            << "set-up [s]        " << ex::fixed(setup, 4) << "\n"
            << "time/it [ms]      " << ex::fixed(1e3 * r.seconds_per_iteration, 4) << "\n"
            << "solve [s]         " << ex::fixed(r.total_seconds, 4) << "\n";
  if (x_exact.extent(0) > 0) {
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto eh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_exact);
    double err = 0, ref = 0;
    for (std::size_t i = 0; i < xh.extent(0); ++i) {
      err = std::max(err, std::abs(xh(i) - eh(i)));
      ref = std::max(ref, std::abs(eh(i)));
    }
    std::cout << "max error         " << ex::sci(err / ref, 3) << " (relative to max |u*|)\n";
  }
  ex::Checks checks;
  checks.expect(r.converged(), "the solve ended " + std::string(spmvkit::name(r.status)));
  checks.expect(!r.converged() || true_res <= 1.01 * cfg.tol + 1e-15,
                "converged, but the recomputed true residual " + ex::sci(true_res, 3) +
                    " exceeds the tolerance");
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::input_file_option("", "MATRIX", "Matrix Market file (.mtx or .mtx.gz), square", cfg.path,
                            "the 2D convection-diffusion problem of --N and --peclet"),
      ex::input_file_option("rhs", "FILE", "right-hand side: a coordinate Matrix Market n x 1 file",
                            cfg.rhs, "A times the vector of ones"),
      ex::choice_option("solver", "Krylov method", cfg.solver,
                        {"cg", "pipelined-cg", "bicgstab", "gmres"}),
      ex::choice_option(
          "preconditioner",
          "preconditioner (right-preconditioning for BiCGStab "
          "and GMRES; ic0 and chebyshev assume SPD; chebyshev-float: its "
          "polynomial in float; amg: smoothed aggregation)",
          cfg.preconditioner,
          {"none", "jacobi", "block-jacobi", "chebyshev", "chebyshev-float", "ilu0", "ic0", "amg"}),
      ex::real_option("tol", "relative tolerance on the true residual ‖b − A x‖/‖b‖", cfg.tol,
                      {0, false, 1, false}),
      ex::integer_option("max-iters", "iteration limit", cfg.max_iters, 1,
                         std::numeric_limits<int>::max()),
      ex::integer_option("restart", "GMRES restart length (0: min(30, n))", cfg.restart, 0, 100000),
      ex::integer_option("block-size", "block-Jacobi block size (1..32)", cfg.block_size, 1, 32),
      ex::integer_option("degree", "Chebyshev polynomial degree", cfg.degree, 1, 100),
      ex::real_option("eigenvalue-ratio",
                      "Chebyshev: λmax / λmin of the interval its polynomial is tuned to",
                      cfg.eigenvalue_ratio, {1, false, 1e6, true}),
      ex::integer_option("progress-every",
                         "print the residual every this many iterations (0: "
                         "never)",
                         cfg.progress_every, 0, std::numeric_limits<int>::max()),
      ex::integer_option("N", "grid intervals per direction of the built-in problem", cfg.N, 2,
                         40000),
      ex::real_option("peclet", "mesh Péclet number of the built-in problem", cfg.peclet,
                      {0, true, 1e6, true}),
  };
  return ex::run_example(
      argc, argv,
      {"solve_mtx",
       "Solves A x = b for a Matrix Market matrix (or a built-in convection-diffusion problem) "
       "with CG, pipelined CG, BiCGStab or GMRES and a preconditioner, and reports the "
       "preconditioner's set-up time, iterations, the true residual (recomputed), the time per "
       "iteration and the whole solve. Exit status 1 when the solve did not converge."},
      options, [&] { return example(cfg); });
}
