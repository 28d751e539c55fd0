// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// fem_cg over MPI: the same FEM Poisson problem as fem_cg, assembled in
// parallel (each rank generates its slab of rows; no rank holds the global
// matrix) and solved by CG (or BiCGStab, GMRES) on the distributed operator,
// with a preconditioner over the ranks, one rank per GPU on GPU builds. Prints
// each rank's rows, nonzeros and halo, the iterations, the time per iteration
// and the L2 error, which must be fem_cg's (the closed-form discretisation
// error).
//
//   mpirun -np 2 ./fem_cg_mpi --N 64 --preconditioner ic0
//
// Exits 0 when the solve converged to the expected error, 1 when a check
// failed, 2 for a usage or runtime error (the same on every rank).
#include "example_cli.hpp"

#include <spmvkit/distributed/distributed.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/problems/fem_problem.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;

struct Config {
  std::int64_t N = 32;
  std::string format = "sell";
  std::string variant = "standard";
  std::string solver = "cg";
  std::string preconditioner = "none";
  bool jacobi = false; // the older spelling of --preconditioner jacobi
  int block_size = 8;
  double tol = 1e-10;
  int max_iters = 10000;
  int repetitions = 3;
};

constexpr char const* about =
    "Solves -Δu = f on the unit cube with trilinear finite elements on N x N x N cubes by CG over "
    "MPI: each rank assembles its own slab of rows (balanced by nonzeros) and holds its diagonal "
    "block and its off-process block; the halo exchange overlaps the diagonal-block SpMV and the "
    "dot products are MPI all-reduces. BiCGStab and GMRES(30) run on the same operator; Jacobi and "
    "Chebyshev precondition over the whole operator, block-Jacobi, ILU(0), IC(0) and AMG (a "
    "hierarchy per rank, rank 0's printed) within each rank's rows "
    "(distributed_preconditioners.hpp). Prints per-rank sizes and halos, iterations, "
    "the median "
    "time per iteration over the repetitions, and checks the L2 error against the closed-form "
    "discretisation error (the one fem_cg reaches). Run it with mpirun -np P.";

/// ‖u‖ in the nodal L2 norm: (1/2)^(3/2) for any N (fem_poisson.hpp).
constexpr double norm_u = 0.35355339059327373;

template <class F>
int solve(Config const& cfg) {
  MPI_Comm comm = MPI_COMM_WORLD;
  Exec exec;
  const int rank = spmvkit::detail::mpi_rank(comm), size = spmvkit::detail::mpi_size(comm);
  const spmvkit::FemPoisson problem(cfg.N);
  Kokkos::Timer setup;
  auto part = spmvkit::fem_poisson_partition(comm, exec, cfg.N);
  auto A = spmvkit::make_distributed_fem_poisson<F, double, spmvkit::CrsFormat>(part, exec, cfg.N);
  auto b = spmvkit::distributed_fem_poisson_rhs<double>(exec, part, cfg.N);
  exec.fence();
  const double setup_seconds = setup.seconds();

  // One line per rank, gathered on rank 0 so that the lines do not interleave.
  std::int64_t mine[6] = {part.first_row(),
                          part.local_rows(),
                          static_cast<std::int64_t>(A.diagonal_block().nnz()),
                          static_cast<std::int64_t>(A.num_ghosts()),
                          static_cast<std::int64_t>(A.halo().receives().size()),
                          A.halo().sent_entries()};
  std::vector<std::int64_t> all(6 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 6, MPI_INT64_T, all.data(), 6, MPI_INT64_T, 0, comm);
  if (rank == 0) {
    std::cout << "FEM Poisson N = " << cfg.N << ": " << problem.num_rows << " unknowns, "
              << problem.nnz << " stored entries, " << size << " rank(s), " << Exec::name()
              << ", diagonal block " << F::family << ", off-process block crs, halo "
              << (A.halo().staged()      ? "staged through host buffers"
                  : A.halo().gpu_aware() ? "GPU-aware"
                                         : "in host memory")
              << "\n";
    std::printf("%5s %12s %10s %12s %10s %6s %10s\n", "rank", "first row", "rows", "diag nnz",
                "ghosts", "from", "sent");
    for (int r = 0; r < size; ++r) {
      std::int64_t const* v = all.data() + 6 * r;
      std::printf("%5d %12lld %10lld %12lld %10lld %6lld %10lld\n", r, static_cast<long long>(v[0]),
                  static_cast<long long>(v[1]), static_cast<long long>(v[2]),
                  static_cast<long long>(v[3]), static_cast<long long>(v[4]),
                  static_cast<long long>(v[5]));
    }
    std::cout << "setup (partition, assembly, halo plan): " << setup_seconds << " s\n";
  }

  // From the rough start, as fem_cg: b alone converges in one step.
  auto fill = [&](spmvkit::SolverOptions& o) {
    o.relative_tolerance = cfg.tol;
    o.max_iterations = cfg.max_iters;
    o.use_initial_guess = true;
  };
  spmvkit::CgOptions cg_opts;
  fill(cg_opts);
  cg_opts.variant =
      cfg.variant == "pipelined" ? spmvkit::CgVariant::pipelined : spmvkit::CgVariant::standard;
  spmvkit::BicgstabOptions bicgstab_opts;
  fill(bicgstab_opts);
  spmvkit::GmresOptions gmres_opts;
  fill(gmres_opts);
  using Vector = decltype(b);
  auto run = [&](auto const& M, Vector const& x) -> spmvkit::SolverResult {
    if (cfg.solver == "bicgstab") return spmvkit::bicgstab(exec, A, M, b, x, bicgstab_opts);
    if (cfg.solver == "gmres") return spmvkit::gmres(exec, A, M, b, x, gmres_opts);
    return spmvkit::cg(exec, A, M, b, x, cg_opts);
  };
  // The preconditioner, built once (collectively) and timed.
  Kokkos::Timer precondition;
  std::function<spmvkit::SolverResult(Vector const&)> solve_once;
  if (cfg.preconditioner == "jacobi") {
    solve_once = [&, M = spmvkit::make_jacobi(exec, A)](Vector const& x) { return run(M, x); };
  } else if (cfg.preconditioner == "block-jacobi") {
    solve_once = [&, M = spmvkit::make_block_jacobi(exec, A, cfg.block_size)](Vector const& x) {
      return run(M, x);
    };
  } else if (cfg.preconditioner == "chebyshev") {
    solve_once = [&, M = spmvkit::make_chebyshev(exec, A)](Vector const& x) { return run(M, x); };
  } else if (cfg.preconditioner == "ilu0") {
    solve_once = [&, M = spmvkit::make_ilu0(exec, A)](Vector const& x) { return run(M, x); };
  } else if (cfg.preconditioner == "ic0") {
    solve_once = [&, M = spmvkit::make_ic0(exec, A)](Vector const& x) { return run(M, x); };
  } else if (cfg.preconditioner == "amg") {
    auto M = spmvkit::make_amg(exec, A);
    if (rank == 0) std::cout << "rank 0's hierarchy:\n" << M.describe();
    solve_once = [&, M](Vector const& x) { return run(M, x); };
  } else {
    solve_once = [&](Vector const& x) -> spmvkit::SolverResult {
      if (cfg.solver == "bicgstab") return spmvkit::bicgstab(exec, A, b, x, bicgstab_opts);
      if (cfg.solver == "gmres") return spmvkit::gmres(exec, A, b, x, gmres_opts);
      return spmvkit::cg(exec, A, b, x, cg_opts);
    };
  }
  exec.fence();
  double precondition_seconds = precondition.seconds();
  MPI_Allreduce(MPI_IN_PLACE, &precondition_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  std::vector<double> per_iteration;
  spmvkit::SolverResult first;
  double error = 0;
  for (int rep = 0; rep < cfg.repetitions; ++rep) {
    auto x = spmvkit::distributed_fem_poisson_rough_guess<double>(exec, part, cfg.N);
    MPI_Barrier(comm);
    const spmvkit::SolverResult r = solve_once(x);
    // The slowest rank's time is the solve's time.
    double t = r.seconds_per_iteration;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    per_iteration.push_back(t);
    if (rep == 0) {
      first = r;
      error = spmvkit::distributed_fem_poisson_l2_error(exec, part, cfg.N, x);
    }
  }
  std::sort(per_iteration.begin(), per_iteration.end());
  const double median = per_iteration[per_iteration.size() / 2];
  const double predicted = problem.predicted_l2_error();
  const double algebraic = static_cast<double>(cfg.N) * static_cast<double>(cfg.N) *
                           std::max(cfg.tol, std::numeric_limits<double>::epsilon()) * norm_u;
  ex::Checks checks;
  if (rank == 0) {
    std::cout << "preconditioner set-up (" << cfg.preconditioner
              << ", slowest rank): " << precondition_seconds << " s\n"
              << cfg.solver << (cfg.solver == "cg" ? " (" + cfg.variant + ")" : std::string())
              << ", preconditioner " << cfg.preconditioner << ": " << spmvkit::name(first.status)
              << " after " << first.iterations << " iterations, true relative residual "
              << first.true_relative_residual << "\n"
              << "time per iteration: " << 1e3 * median << " ms (median of " << cfg.repetitions
              << ", slowest rank; min " << 1e3 * per_iteration.front() << ", max "
              << 1e3 * per_iteration.back() << ")\n"
              << "L2 error " << error << ", discretisation error (closed form, as fem_cg) "
              << predicted << "\n";
    checks.expect(first.converged(), cfg.solver + " did not converge: " +
                                         spmvkit::name(first.status) + " " + first.message);
    checks.expect(std::fabs(error - predicted) <= 1e-3 * predicted + algebraic,
                  "the L2 error is not the discretisation error");
    std::cout << (checks.failures() == 0 ? "checks: converged to the discretisation error\n"
                                         : "checks: failed (above)\n");
  }
  int status = checks.exit_code();
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  return status;
}

} // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Config cfg;
  const std::vector<ex::Option> options = {
      ex::integer_option("N", "intervals per direction ((N-1)^3 unknowns)", cfg.N, 2, 2000),
      ex::choice_option("format", "format of the diagonal block", cfg.format,
                        {"crs", "sell", "sell_offset16", "ell", "ellr", "csrk", "coo", "hyb"}),
      ex::choice_option("variant", "CG variant", cfg.variant, {"standard", "pipelined"}),
      ex::choice_option("solver", "Krylov method", cfg.solver, {"cg", "bicgstab", "gmres"}),
      ex::choice_option("preconditioner", "preconditioner over the ranks", cfg.preconditioner,
                        {"none", "jacobi", "block-jacobi", "chebyshev", "ilu0", "ic0", "amg"}),
      ex::integer_option("block-size", "rows per block of block-Jacobi (within a rank)",
                         cfg.block_size, 1, 32),
      ex::switch_option("jacobi", "the same as --preconditioner jacobi", cfg.jacobi),
      ex::real_option("tol", "relative tolerance on the true residual", cfg.tol,
                      {0, false, 1, false}),
      ex::integer_option("max-iters", "iteration limit", cfg.max_iters, 1, 1000000),
      ex::integer_option("repetitions", "solves timed (median reported)", cfg.repetitions, 1, 100)};
  const ex::ProgramInfo info{"fem_cg_mpi", about};
  int status = ex::exit_ok;
  bool help = false;
  for (int i = 1; i < argc; ++i) help = help || std::string(argv[i]) == "--help";
  if (help) {
    if (rank == 0) ex::detail::print_help(std::cout, info, options);
  } else {
    try {
      ex::parse_command_line(argc, argv, options, info.name);
      if (cfg.jacobi && cfg.preconditioner != "none" && cfg.preconditioner != "jacobi") {
        throw std::invalid_argument("--jacobi and --preconditioner " + cfg.preconditioner +
                                    " contradict each other");
      }
      if (cfg.jacobi) cfg.preconditioner = "jacobi";
      if (cfg.variant == "pipelined" && (cfg.solver != "cg" || (cfg.preconditioner != "none" &&
                                                                cfg.preconditioner != "jacobi"))) {
        throw std::invalid_argument(
            "--variant pipelined is CG's, with no preconditioner or Jacobi; "
            "got --solver " +
            cfg.solver + " --preconditioner " + cfg.preconditioner);
      }
    } catch (std::exception const& e) {
      if (rank == 0) std::cerr << info.name << ": " << e.what() << "\n";
      status = ex::exit_usage;
    }
  }
  if (!help && status == ex::exit_ok) {
    spmvkit::initialize_kokkos_for_rank(MPI_COMM_WORLD); // threads: OMP_NUM_THREADS
    try {
      bool ran = false;
      spmvkit::for_each_type(spmvkit::format_list{}, [&](auto tag) {
        using F = typename decltype(tag)::type;
        if (!ran && cfg.format == F::family) {
          ran = true;
          status = solve<F>(cfg);
        }
      });
    } catch (std::exception const& e) {
      // DistributedError carries the same text on every rank: rank 0 says it.
      if (rank == 0) std::cerr << info.name << ": " << e.what() << "\n";
      status = ex::exit_usage;
    }
    Kokkos::finalize();
  }
  MPI_Finalize();
  return status;
}
