// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Solves the 3D linear elasticity problem (problems/elasticity.hpp: Q1
// hexahedra, three displacements per node, face x = 0 clamped, loads of a
// manufactured solution) with CG and each preconditioner, the matrix in BSR
// with its detected 3 x 3 blocks, and reports iterations, time per iteration
// and the error against the manufactured displacement; then the time per
// CG-Jacobi iteration with the matrix in each format of --formats.
// `elasticity --help` lists the options. Exits 0 when every solve converged,
// 1 when one did not, 2 for a usage or runtime error.
#include "example_cli.hpp"
#include "example_memory.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/problems/elasticity.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>

#include <Kokkos_Core.hpp>

#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Vec = spmvkit::elasticity_vector_t<double, Exec>;

struct Config {
  std::int64_t N = 16;
  double E = 1.0;
  double nu = 0.3;
  double tol = 1e-8;
  int max_iters = 100000;
  std::string preconditioners = "none,jacobi,block-jacobi,amg";
  std::string formats = "bsr,crs,sell,auto";
};

std::vector<std::string> split(std::string const& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(',', start);
    const std::string item = text.substr(start, end == std::string::npos ? end : end - start);
    if (!item.empty()) out.push_back(item);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

int example(Config const& cfg) {
  const Exec exec;
  const spmvkit::ElasticityMaterial material{cfg.E, cfg.nu};
  const spmvkit::Elasticity problem(cfg.N, material); // checks N and the material first
  for (auto const& p : split(cfg.preconditioners)) {
    if (p != "none" && p != "jacobi" && p != "block-jacobi" && p != "amg")
      throw std::invalid_argument("--preconditioners: unknown '" + p +
                                  "' (none, jacobi, block-jacobi, amg)");
  }
  for (auto const& f : split(cfg.formats)) {
    if (f != "bsr" && f != "crs" && f != "sell" && f != "auto")
      throw std::invalid_argument("--formats: unknown '" + f + "' (bsr, crs, sell, auto)");
  }
  const auto budget = ex::MemoryBudget::of<Exec>();
  // CRS and BSR copies, AMG's hierarchy (about the matrix again) and the vectors.
  budget.require(
      3.0 * ex::crs_bytes(static_cast<double>(problem.num_rows), static_cast<double>(problem.nnz)) +
          8.0 * 16 * static_cast<double>(problem.num_rows),
      "elasticity N = " + std::to_string(cfg.N), "the matrices and the vectors");

  Kokkos::Timer timer;
  const auto A = spmvkit::make_elasticity<spmvkit::CrsFormat, double>(exec, cfg.N, material);
  const auto B = spmvkit::make_bsr(exec, A);
  const auto b = spmvkit::elasticity_rhs<double>(exec, cfg.N, material);
  exec.fence();
  std::cout << "3D linear elasticity, N = " << cfg.N << ", E = " << cfg.E << ", nu = " << cfg.nu
            << ": " << A.num_rows() << " unknowns, " << A.nnz() << " nonzeros, BSR blocks "
            << B.block_size() << " x " << B.block_size() << " (" << B.num_blocks()
            << "); assembled in " << ex::fixed(timer.seconds(), 3) << " s; " << Exec::name() << ", "
            << exec.concurrency() << " threads\n\n";

  ex::Checks checks;
  spmvkit::CgOptions opts;
  opts.relative_tolerance = cfg.tol;
  opts.max_iterations = cfg.max_iters;
  std::cout << "preconditioner   set-up [s]  iterations  time/it [ms]  solve [s]  error vs u*\n";
  auto report = [&](std::string const& name, double setup, spmvkit::SolverResult const& r,
                    Vec const& x) {
    const double error = spmvkit::elasticity_relative_error(exec, cfg.N, x);
    std::cout << name << std::string(17 - std::min<std::size_t>(16, name.size()), ' ')
              << ex::fixed(setup, 4) << "      " << r.iterations << "  "
              << ex::fixed(1e3 * r.seconds_per_iteration, 4) << "  "
              << ex::fixed(r.total_seconds, 4) << "  " << ex::sci(error, 3)
              << (r.converged() ? "" : "  (" + std::string(spmvkit::name(r.status)) + ")") << "\n";
    checks.expect(r.converged(), name + ": the solve ended " + spmvkit::name(r.status));
  };
  for (auto const& p : split(cfg.preconditioners)) {
    Vec x("SpMVKit::elasticity::x", static_cast<std::size_t>(A.num_rows()));
    Kokkos::Timer setup_timer;
    if (p == "none") {
      report(p, 0, spmvkit::cg(exec, B, b, x, opts), x);
    } else if (p == "jacobi") {
      const auto M = spmvkit::make_jacobi(exec, B);
      exec.fence();
      const double setup = setup_timer.seconds();
      report(p, setup, spmvkit::cg(exec, B, M, b, x, opts), x);
    } else if (p == "block-jacobi") {
      // The BSR matrix's diagonal blocks: each node's 3 x 3 block inverted.
      const auto M = spmvkit::make_block_jacobi(exec, B);
      exec.fence();
      const double setup = setup_timer.seconds();
      report(p + " (b=" + std::to_string(B.block_size()) + ")", setup,
             spmvkit::cg(exec, B, M, b, x, opts), x);
    } else {
      // The six rigid-body modes as the near-nullspace: what smoothed
      // aggregation needs for elasticity (the constant alone coarsens badly).
      const auto modes = spmvkit::elasticity_rigid_body_modes<double>(exec, cfg.N);
      const auto M = spmvkit::make_amg(exec, A, modes, spmvkit::AmgOptions{});
      exec.fence();
      const double setup = setup_timer.seconds();
      report("amg (6 modes)", setup, spmvkit::cg(exec, B, M, b, x, opts), x);
    }
  }

  // Time per CG-Jacobi iteration with the matrix in each format: the same
  // solve, so only the SpMV differs.
  std::cout << "\nformat   stored as                    iterations  time/it [ms]\n";
  for (auto const& f : split(cfg.formats)) {
    Vec x("SpMVKit::elasticity::x", static_cast<std::size_t>(A.num_rows()));
    auto run = [&](auto const& M, std::string const& stored) {
      const auto J = spmvkit::make_jacobi(exec, M);
      const auto r = spmvkit::cg(exec, M, J, b, x, opts);
      std::cout << f << std::string(9 - std::min<std::size_t>(8, f.size()), ' ') << stored
                << std::string(29 - std::min<std::size_t>(28, stored.size()), ' ') << r.iterations
                << "  " << ex::fixed(1e3 * r.seconds_per_iteration, 4) << "\n";
      checks.expect(r.converged(), f + ": the CG-Jacobi solve ended " + spmvkit::name(r.status));
    };
    if (f == "bsr") run(B, "bsr b=" + std::to_string(B.block_size()));
    if (f == "crs") run(A, "crs");
    if (f == "sell")
      run(spmvkit::SellFormat::from_crs(exec, A, spmvkit::SellOptions{}), "sell (default C)");
    if (f == "auto") {
      const auto M = spmvkit::make_auto_matrix(exec, A);
      run(M, "auto: " + M.selection().format);
    }
  }
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::integer_option("N", "intervals per direction (3N(N+1)^2 unknowns)", cfg.N, 2, 2000),
      ex::real_option("E", "Young's modulus", cfg.E, {0, false, 1e30, true}),
      ex::real_option("nu", "Poisson's ratio", cfg.nu, {-1, false, 0.5, false}),
      ex::real_option("tol", "relative tolerance of CG", cfg.tol, {0, false, 1, false}),
      ex::integer_option("max-iters", "CG iteration limit", cfg.max_iters, 1,
                         std::numeric_limits<int>::max()),
      {"preconditioners", "LIST",
       "preconditioners of CG, in order: none, jacobi, block-jacobi (the 3 x 3 node blocks), "
       "amg (rigid-body modes)",
       [&cfg] { return cfg.preconditioners; },
       [&cfg](std::string const& text) { cfg.preconditioners = text; }},
      {"formats", "LIST", "formats timed with CG-Jacobi: bsr, crs, sell, auto",
       [&cfg] { return cfg.formats; }, [&cfg](std::string const& text) { cfg.formats = text; }},
  };
  return ex::run_example(
      argc, argv,
      {"elasticity",
       "Solves 3D linear elasticity (Q1 hexahedra, 3 unknowns per node, one face clamped, loads "
       "of a manufactured solution) with CG and each preconditioner on the BSR matrix, reports "
       "iterations, time per iteration and the error against the manufactured displacement, "
       "then the time per CG-Jacobi iteration by format. Exit status 1 when a solve did not "
       "converge."},
      options, [&] { return example(cfg); });
}
