// The founding study's main job: -Δu = f on the unit cube with Q1 finite
// elements, assembled on the device and solved by CG with every matrix format.
//
//   fem_cg [--N 64] [--formats crs-thread,crs-vector,sell,sell16,kk-native,kk-default]
//          [--precision double|float] [--C 4|32] [--sigma 1] [--tol auto]
//          [--max-iters 10000] [--jacobi] [--progress-every 100] [--zero-start]
//
// Prints one row per format: CG iterations, time, time per iteration, MUPS
// (million unknowns updated per second), the nodal L2 error against the exact
// solution, and the SpMV bandwidth under the byte model of example_utils.hpp.
// Exits non-zero if a solve does not converge or the formats disagree.
//
// CG starts from a rough (pseudo-random) guess: from zero it would converge in
// one iteration, because the right-hand side is an eigenvector of the matrix
// (see fem_poisson.hpp); --zero-start shows that.
#include "example_utils.hpp"

#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;

struct Row {
  std::string format;
  spmvkit::CgResult cg;
  double error = 0;
  double spmv_gbs = 0;
};

template <class Scalar>
int run(ex::Args const& args) {
  const Exec exec;
  const std::int64_t N = args.integer("N");
  const spmvkit::FemPoisson problem(N);
  const int C = args.str("C") == "auto" ? ex::default_chunk_size<Exec>()
                                        : static_cast<int>(args.integer("C"));
  const std::int64_t sigma = args.integer("sigma");
  spmvkit::CgOptions opts;
  opts.relative_tolerance =
      args.str("tol") == "auto" ? (sizeof(Scalar) == 8 ? 1e-10 : 1e-5) : args.real("tol");
  opts.max_iterations = static_cast<int>(args.integer("max-iters"));
  opts.jacobi = args.flag("jacobi");
  opts.use_initial_guess = !args.flag("zero-start");
  opts.progress_every = static_cast<int>(args.integer("progress-every"));
  opts.progress_stream = &std::cout;

  std::cout << "FEM Poisson, Q1 on the unit cube: N = " << N << ", " << problem.num_rows
            << " unknowns, " << problem.nnz << " nonzeros, "
            << (sizeof(Scalar) == 8 ? "double" : "float") << ", " << Exec::name() << " ("
            << exec.concurrency() << " threads), tolerance " << opts.relative_tolerance
            << (opts.jacobi ? ", Jacobi" : "") << "\n";

  Kokkos::Timer timer;
  const auto A = spmvkit::make_fem_poisson_crs<Scalar>(exec, N);
  const auto b = spmvkit::fem_poisson_rhs<Scalar>(exec, N);
  exec.fence();
  std::cout << "assembly (CRS + right-hand side) on the device: " << ex::fixed(timer.seconds(), 3)
            << " s\n";

  using Vec = spmvkit::fem_vector_t<Scalar, Exec>;
  // Operands of the separate SpMV timing (the solves use their own vectors).
  Vec x(std::string("SpMVKit::fem_cg::x"), static_cast<std::size_t>(problem.num_rows));
  Vec y(std::string("SpMVKit::fem_cg::y"), static_cast<std::size_t>(problem.num_rows));
  Kokkos::deep_copy(x, Scalar(1));

  std::vector<Row> rows;
  // Solves with `matrix` through `spmv_once` (for the bandwidth figure).
  auto solve = [&](std::string const& name, auto const& matrix, double bytes, auto&& spmv_once) {
    std::cout << "-- " << name << "\n";
    Row row;
    row.format = name;
    row.spmv_gbs = bytes / ex::median_seconds(exec, spmv_once) / 1e9;
    auto u = spmvkit::fem_poisson_rough_guess<Scalar>(exec, N);
    row.cg = spmvkit::cg(exec, matrix, b, u, opts);
    row.error = spmvkit::fem_poisson_l2_error(exec, N, u);
    rows.push_back(row);
  };

  for (auto const& format : args.list("formats")) {
    if (format == "crs-thread" || format == "crs-vector") {
      const auto kernel =
          format == "crs-thread" ? spmvkit::CrsKernel::row_per_thread : spmvkit::CrsKernel::vector;
      opts.crs_kernel = kernel;
      solve(format, A, ex::spmv_bytes(A),
            [&] { spmvkit::spmv(exec, Scalar(1), A, x, Scalar(0), y, kernel); });
      opts.crs_kernel = spmvkit::CrsKernel::automatic;
    } else if (format == "sell") {
      const auto S = spmvkit::make_fem_poisson_sell<Scalar>(exec, N, C, sigma);
      solve("sell-" + std::to_string(C) + "-" + std::to_string(sigma), S, ex::spmv_bytes(S),
            [&] { spmvkit::spmv(exec, Scalar(1), S, x, Scalar(0), y); });
    } else if (format == "sell16") {
      const auto S = spmvkit::make_sell16(exec, A, C, 1);
      solve("sell16-" + std::to_string(C) + "-1", S, ex::spmv_bytes(S),
            [&] { spmvkit::spmv(exec, Scalar(1), S, x, Scalar(0), y); });
    } else if (format == "kk-native" || format == "kk-default") {
      const auto algorithm = format == "kk-native"
                                 ? spmvkit::KokkosKernelsAlgorithm::native
                                 : spmvkit::KokkosKernelsAlgorithm::vendor_default;
      const auto K = spmvkit::to_kokkos_kernels(A);
      spmvkit::KokkosKernelsSpmv<std::decay_t<decltype(K)>, Vec, Vec> kk(algorithm);
      opts.kokkos_kernels_algorithm = algorithm;
      solve(spmvkit::name(algorithm), K, ex::spmv_bytes(A),
            [&] { kk.apply(exec, Scalar(1), K, x, Scalar(0), y); });
    } else {
      std::cerr << "unknown format '" << format
                << "' (crs-thread, crs-vector, sell, sell16, kk-native, kk-default)\n";
      return 2;
    }
  }

  ex::Table table({"format", "iterations", "time [s]", "time/it [ms]", "MUPS", "true rel. res.",
                   "L2 error", "SpMV GB/s"});
  for (auto const& r : rows) {
    const double t = r.cg.iteration_seconds;
    table.add({r.format, std::to_string(r.cg.iterations), ex::fixed(t, 3),
               ex::fixed(1e3 * r.cg.seconds_per_iteration, 3),
               ex::fixed(t > 0 ? problem.num_rows * r.cg.iterations / t / 1e6 : 0.0, 1),
               ex::sci(r.cg.true_relative_residual, 2), ex::sci(r.error, 4),
               ex::fixed(r.spmv_gbs, 2)});
  }
  std::cout << "\n";
  table.print(std::cout);
  std::cout << "nodal L2 error of the exact discrete solution (closed form): "
            << ex::sci(problem.predicted_l2_error(), 4) << "\n";

  // Every format solves the same system: the errors may differ by rounding and
  // by what the tolerance leaves (the algebraic error is below tol * ‖u‖,
  // ‖u‖_h = 0.354), nothing more.
  if (rows.empty()) {
    std::cerr << "no formats given\n";
    return 2;
  }
  int failures = 0;
  for (auto const& r : rows) {
    if (!r.cg.converged()) {
      std::cerr << "FAILED: " << r.format << " did not converge: " << spmvkit::name(r.cg.status)
                << (r.cg.message.empty() ? "" : " (" + r.cg.message + ")") << "\n";
      ++failures;
    }
    if (&r == &rows.front()) continue; // the others are compared with it
    const double allowed = 1e-3 * rows.front().error + 10 * opts.relative_tolerance * 0.354;
    if (!(std::fabs(r.error - rows.front().error) <= allowed)) {
      std::cerr << "FAILED: " << r.format << " error " << r.error << " differs from "
                << rows.front().format << " (" << rows.front().error << ") by more than " << allowed
                << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    const ex::Args args(argc, argv,
                        {{"N", "64"},
                         {"formats", "crs-thread,crs-vector,sell,sell16,kk-native,kk-default"},
                         {"precision", "double"},
                         {"C", "auto"},
                         {"sigma", "1"},
                         {"tol", "auto"},
                         {"max-iters", "10000"},
                         {"progress-every", "100"}},
                        {"jacobi", "zero-start"});
    if (args.help()) {
      std::cout << "fem_cg: FEM Poisson on the unit cube solved by CG in every format"
                << args.usage() << "\n";
      return 0;
    }
    Kokkos::Timer wall;
    int rc = 2;
    if (args.str("precision") == "double") {
      rc = run<double>(args);
    } else if (args.str("precision") == "float") {
      rc = run<float>(args);
    } else {
      std::cerr << "--precision must be double or float\n";
    }
    std::cout << "wall time " << ex::fixed(wall.seconds(), 2) << " s\n";
    return rc;
  } catch (std::exception const& e) {
    std::cerr << "fem_cg: " << e.what() << "\n";
    return 2;
  }
}
