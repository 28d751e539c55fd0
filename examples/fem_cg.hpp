// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_EXAMPLES_FEM_CG_HPP
#define SPMVKIT_EXAMPLES_FEM_CG_HPP

// fem_cg's solve in one precision (fem_cg.cpp is the program): -Δu = f on the
// unit cube with Q1 finite elements, assembled on the device and solved by CG in
// every selected format of spmvkit::format_list, beside Kokkos Kernels' own SpMV.
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
#include "example_cli.hpp"
#include "example_formats.hpp"
#include "example_memory.hpp"
#include "example_svg.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/select/matrix_features.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>
#include <spmvkit/solvers/preconditioners/ilu0.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fem_cg {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;

struct Config {
  // Defaults honest about the machine: a first run on a 2-core host stays well under a minute.
  static constexpr bool on_host = Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;
  std::int64_t N = on_host ? 48 : 128;
  std::string formats = ex::one_per_family(true);
  std::string precision = "double";
  double tol = std::numeric_limits<double>::quiet_NaN(); // auto
  int max_iters = 10000;
  int repetitions = on_host ? 3 : 5;
  bool jacobi = false;                 // --jacobi, the same as --preconditioner jacobi
  std::string preconditioner = "none"; // none, jacobi, block-jacobi, chebyshev, ic0 (ilu0), amg
  int block_size = 0;                  // block-Jacobi: 0 = one grid line (N - 1 rows)
  bool zero_start = false;
  int progress_every = 0;
  std::string plot = "fem_cg.svg";
};

/// The preconditioner of every solve, built once from the CRS matrix. Jacobi runs
/// as CgOptions::jacobi (the fused loop, every format and Kokkos Kernels alike);
/// the others are objects that cg() applies (solvers/preconditioners/).
template <class Scalar>
struct FemPreconditioner {
  using Crs = spmvkit::CrsMatrix<Scalar, Exec>;
  using CrsOperator = spmvkit::MatrixOperator<Crs>;
  std::string name = "none";
  double setup_seconds = 0;
  std::shared_ptr<const spmvkit::BlockJacobiPreconditioner<Scalar, Exec>> block_jacobi;
  std::shared_ptr<const spmvkit::ChebyshevPreconditioner<CrsOperator>> chebyshev;
  std::shared_ptr<const spmvkit::Ilu0Preconditioner<Scalar, Exec>> ic0;
  std::shared_ptr<const spmvkit::AmgPreconditioner<Scalar, Exec>> amg;

  /// CG on `op` (any operator of the matrix) with this preconditioner.
  template <class Op, class Vec>
  spmvkit::CgResult solve(Exec const& exec, Op& op, Vec const& b, Vec const& x,
                          spmvkit::CgOptions const& opts) const {
    if (block_jacobi) return spmvkit::cg(exec, op, *block_jacobi, b, x, opts);
    if (chebyshev) return spmvkit::cg(exec, op, *chebyshev, b, x, opts);
    if (ic0) return spmvkit::cg(exec, op, *ic0, b, x, opts);
    if (amg) return spmvkit::cg(exec, op, *amg, b, x, opts);
    return spmvkit::cg(exec, op, b, x, opts);
  }
};

template <class Scalar>
FemPreconditioner<Scalar> make_fem_preconditioner(Exec const& exec, Config const& cfg,
                                                  spmvkit::CrsMatrix<Scalar, Exec> const& A) {
  FemPreconditioner<Scalar> p;
  p.name = cfg.jacobi ? "jacobi" : cfg.preconditioner;
  if (p.name == "ilu0") p.name = "ic0"; // CG needs a symmetric one: IC(0) of the SPD matrix
  Kokkos::Timer timer;
  if (p.name == "block-jacobi") {
    const int size = cfg.block_size > 0 ? cfg.block_size
                                        : static_cast<int>(std::min<std::int64_t>(32, cfg.N - 1));
    p.block_jacobi = std::make_shared<const spmvkit::BlockJacobiPreconditioner<Scalar, Exec>>(
        spmvkit::make_block_jacobi(exec, A, size));
    p.name += " (blocks of " + std::to_string(size) + ")";
  } else if (p.name == "chebyshev") {
    p.chebyshev = std::make_shared<
        const spmvkit::ChebyshevPreconditioner<typename FemPreconditioner<Scalar>::CrsOperator>>(
        spmvkit::make_chebyshev(exec, A, spmvkit::ChebyshevOptions{}));
  } else if (p.name == "ic0") {
    p.ic0 = std::make_shared<const spmvkit::Ilu0Preconditioner<Scalar, Exec>>(
        spmvkit::make_ic0(exec, A));
  } else if (p.name == "amg") {
    p.amg = std::make_shared<const spmvkit::AmgPreconditioner<Scalar, Exec>>(
        spmvkit::make_amg(exec, A));
  }
  exec.fence();
  p.setup_seconds = timer.seconds();
  return p;
}

/// ‖u‖ in the nodal L2 norm: (1/2)^(3/2) for any N (fem_poisson.hpp).
constexpr double norm_u = 0.35355339059327373;

/// One format (or Kokkos Kernels SpMV) holding the matrix, ready to solve.
template <class Vec>
struct Contender {
  std::string name;
  bool kokkos_kernels = false;
  spmvkit::SpmvBytes bytes;
  double convert_seconds = 0;
  std::function<spmvkit::CgResult(Vec const&, Vec const&, spmvkit::CgOptions const&)> solve;
  // Results: the first repetition's solve, every repetition's time per iteration.
  spmvkit::CgResult first;
  double error = 0;
  std::vector<double> ms_per_iteration;
};

/// What the run shows and what its columns mean, printed first.
inline void print_intro() {
  std::cout << ex::detail::wrap(
                   "fem_cg: the 3D Poisson problem -Δu = f on the unit cube, u = 0 on the "
                   "boundary, with Q1 finite elements on N³ cubes, solved by CG in each selected "
                   "SpMVKit format and with Kokkos Kernels' SpMV. The exact solution u = "
                   "sin(πx)sin(πy)sin(πz) is known: every solve must reach the closed-form "
                   "discretisation error. The formats are compared on the time per CG iteration "
                   "over several round-robin repetitions.",
                   0, 0)
            << "\n\ncolumns:\n";
  const std::pair<char const*, char const*> columns[] = {
      {"iterations", "CG iterations to reach the tolerance on the true residual"},
      {"true res.", "‖b − A x‖/‖b‖ at the end (dimensionless)"},
      {"L2 error", "nodal L2 norm of u_h − u (compare: the discretisation error, below)"},
      {"time/it [ms]", "milliseconds per CG iteration, median of the repetitions"},
      {"min-max [ms]", "the fastest and the slowest repetition"},
      {"GB/s", "10^9 bytes/s by the byte model: (the format's matrix arrays, F::bytes, + CG's "
               "vector traffic, 12 n s, 14 n s with Jacobi) / median time; (cache) when the "
               "working set fits in the last-level cache, where it would measure the cache"},
      {"vs KK [x]", "median time over that of kokkos_kernels_native (below 1: faster)"},
  };
  for (auto const& [name, text] : columns) {
    const std::string head = std::string("  ") + name;
    std::cout << head << std::string(18 - ex::display_width(head), ' ')
              << ex::detail::wrap(text, 18, 18) << "\n";
  }
  std::cout << "\n";
}

/// Builds, converts, solves and reports the FEM problem in precision Scalar (instantiated
/// in fem_cg.cpp for double and fem_cg_float.cpp for float, which compile in parallel).
template <class Scalar>
int run(Config const& cfg) {
  using Vec = spmvkit::fem_vector_t<Scalar, Exec>;
  using Crs = spmvkit::CrsMatrix<Scalar, Exec>;
  const Exec exec;
  const spmvkit::FemPoisson problem(cfg.N);
  const double tol = std::isnan(cfg.tol) ? (sizeof(Scalar) == 8 ? 1e-10 : 1e-5) : cfg.tol;
  const std::int64_t n = problem.num_rows;
  const double s = sizeof(Scalar);

  print_intro();
  std::cout << "problem: N = " << cfg.N << ", " << n << " unknowns, " << problem.nnz
            << " stored entries, " << cfg.precision << "\n"
            << "CG: tolerance " << tol << ", start "
            << (cfg.zero_start ? "x = 0" : "rough (random)") << ", " << cfg.repetitions
            << " repetitions per format\n";
  const auto llc = ex::last_level_cache<Exec>();
  std::cout << "machine: " << Exec::name() << ", " << exec.concurrency() << " threads\n"
            << "last-level cache: " << (llc.bytes > 0 ? llc.description : "unknown on this backend")
            << "\n";
  const std::string binding = ex::openmp_binding<Exec>();
  if (!binding.empty()) std::cout << binding << "\n";

  // Every format stays alive beside the CRS matrix and CG's vectors (b, u, x,
  // r, p, q and D⁻¹, the L2 error's work): weighed before anything is built.
  const auto budget = ex::MemoryBudget::of<Exec>();
  const double crs_bytes =
      ex::crs_bytes(static_cast<double>(n), static_cast<double>(problem.nnz), static_cast<int>(s));
  double in_use = crs_bytes + 8.0 * n * s;
  budget.require(in_use, "the FEM problem N = " + std::to_string(cfg.N),
                 "CRS matrix " + ex::memory_size(crs_bytes) + ", eight vectors " +
                     ex::memory_size(8.0 * n * s));

  Kokkos::Timer timer;
  const Crs A = spmvkit::make_fem_poisson_crs<Scalar>(exec, cfg.N);
  const Vec b = spmvkit::fem_poisson_rhs<Scalar>(exec, cfg.N);
  exec.fence();
  std::cout << "assembly of the CRS matrix and right-hand side on the device: "
            << ex::fixed(timer.seconds(), 3) << " s\n";
  const auto precond = make_fem_preconditioner<Scalar>(exec, cfg, A);
  const bool fused_jacobi = precond.name == "jacobi";
  std::cout << "preconditioner: " << precond.name;
  if (precond.name != "none" && !fused_jacobi)
    std::cout << ", set up in " << ex::fixed(precond.setup_seconds, 3) << " s";
  std::cout << "\n" << (precond.amg ? precond.amg->describe() : "") << "\n";

  // Every selected format converts the CRS matrix; Kokkos Kernels shares its arrays.
  const auto selected = ex::select_formats<Exec>(cfg.formats, true);
  std::vector<Contender<Vec>> contenders;
  const auto features = spmvkit::compute_features(exec, A);
  ex::for_each_selected_format<Exec>(selected, [&](auto tag, auto const& o,
                                                   std::string const& name) {
    using F = typename decltype(tag)::type;
    if (!ex::can_hold<F>(exec, A, o, name)) return;
    if (!ex::fits_memory<F, Exec>(budget, in_use, A, features, o, name)) return;
    timer.reset();
    auto M = std::make_shared<const spmvkit::matrix_of_t<F, Scalar, Exec>>(F::from_crs(exec, A, o));
    exec.fence();
    Contender<Vec> c;
    c.convert_seconds = timer.seconds();
    c.name = ex::shown_name<F>(name, *M);
    ex::explain_choice<F>(name, *M);
    c.bytes = F::bytes(*M);
    in_use += c.bytes.matrix;
    c.solve = [M, o, exec, precond](Vec const& rhs, Vec const& x, spmvkit::CgOptions const& opts) {
      auto op = spmvkit::make_operator(*M, o);
      return precond.solve(exec, op, rhs, x, opts);
    };
    contenders.push_back(std::move(c));
  });
  using KK = spmvkit::kokkos_kernels_matrix_t<Crs>;
  struct KokkosKernelsState {
    KK K;
    spmvkit::KokkosKernelsOperator<KK> op; // refers to K
    KokkosKernelsState(KK k, spmvkit::KokkosKernelsAlgorithm a) : K(std::move(k)), op(K, a) {}
  };
  for (auto algorithm :
       {spmvkit::KokkosKernelsAlgorithm::native, spmvkit::KokkosKernelsAlgorithm::vendor_default}) {
    const std::string name = spmvkit::name(algorithm);
    if (std::find(selected.begin(), selected.end(), name) == selected.end()) continue;
    auto state = std::make_shared<KokkosKernelsState>(spmvkit::to_kokkos_kernels(A), algorithm);
    Contender<Vec> c;
    c.name = name;
    c.kokkos_kernels = true;
    c.bytes = spmvkit::CrsFormat::bytes(A); // the same arrays as CRS
    c.solve = [state, exec, precond](Vec const& rhs, Vec const& x, spmvkit::CgOptions const& opts) {
      return precond.solve(exec, state->op, rhs, x, opts);
    };
    contenders.push_back(std::move(c));
  }
  if (contenders.empty()) {
    throw std::runtime_error("none of the selected formats (--formats " + cfg.formats +
                             ") can hold this matrix");
  }

  // The bytes an iteration moves under the model, and what stays alive
  // (matrix and the CG vectors x, b, r, p, q, and D⁻¹ with Jacobi).
  const double vector_bytes = (fused_jacobi ? 12.0 : 10.0) * n * s;
  const double live_vectors = (fused_jacobi ? 6.0 : 5.0) * n * s;
  bool any_in_cache = false;
  for (auto const& c : contenders) {
    const double working_set = c.bytes.matrix + live_vectors;
    const bool in_cache = llc.bytes > 0 && working_set <= llc.bytes;
    any_in_cache = any_in_cache || in_cache;
    std::cout << "  " << c.name << ": matrix " << ex::megabytes(c.bytes.matrix) << ", working set "
              << ex::megabytes(working_set) << (in_cache ? " (in cache)" : "");
    if (!c.kokkos_kernels)
      std::cout << ", converted in " << ex::fixed(c.convert_seconds, 3) << " s";
    std::cout << "\n";
  }
  if (any_in_cache) {
    std::cout << ex::detail::wrap("note: a working set that fits in the last-level cache (" +
                                      ex::megabytes(llc.bytes) +
                                      ") can stay there between iterations, so bytes / time "
                                      "would measure the cache, not memory: those rows show "
                                      "time only",
                                  0, 6)
              << "\n";
  }
  std::cout << "\n";

  spmvkit::CgOptions opts;
  opts.relative_tolerance = tol;
  opts.max_iterations = cfg.max_iters;
  opts.jacobi = fused_jacobi;
  opts.use_initial_guess = !cfg.zero_start;
  opts.progress_stream = &std::cout;
  Kokkos::Timer wall;
  for (int rep = 0; rep < cfg.repetitions; ++rep) {
    for (auto& c : contenders) {
      // Progress, when asked for, in the first repetition only.
      opts.progress_every = rep == 0 ? cfg.progress_every : 0;
      if (opts.progress_every > 0) std::cout << "-- " << c.name << "\n";
      const Vec u = spmvkit::fem_poisson_rough_guess<Scalar>(exec, cfg.N);
      const auto r = c.solve(b, u, opts);
      c.ms_per_iteration.push_back(1e3 * r.seconds_per_iteration);
      if (rep == 0) {
        c.first = r;
        c.error = spmvkit::fem_poisson_l2_error(exec, cfg.N, u);
      }
    }
    std::cout << "repetition " << rep + 1 << " of " << cfg.repetitions << " done ("
              << ex::fixed(wall.seconds(), 1) << " s)\n";
  }

  double kk_native_ms = 0;
  for (auto const& c : contenders)
    if (c.name == ex::kk_native_name) kk_native_ms = ex::spread_of(c.ms_per_iteration).median;
  ex::Table table({"format", "iterations", "true res.", "L2 error", "time/it [ms]", "min-max [ms]",
                   "GB/s", "vs KK [x]"});
  for (auto const& c : contenders) {
    const auto t = ex::spread_of(c.ms_per_iteration);
    const double working_set = c.bytes.matrix + live_vectors;
    const bool in_cache = llc.bytes > 0 && working_set <= llc.bytes;
    const double gbs = (c.bytes.total() + vector_bytes) / (t.median * 1e-3) / 1e9;
    table.add({c.name, std::to_string(c.first.iterations),
               ex::sci(c.first.true_relative_residual, 2), ex::sci(c.error, 4),
               ex::fixed(t.median, 3), ex::fixed(t.min, 3) + " - " + ex::fixed(t.max, 3),
               // The byte model counts CG's own vectors: none for a preconditioner object.
               !(precond.name == "none" || fused_jacobi) ? "-"
               : in_cache || !(t.median > 0)             ? "(cache)"
                                                         : ex::fixed(gbs, 1),
               kk_native_ms > 0 ? ex::fixed(t.median / kk_native_ms, 2) : "-"});
  }
  std::cout << "\n";
  table.print(std::cout);
  const double predicted = problem.predicted_l2_error();
  std::cout << "discretisation error (nodal L2 error of the exact discrete solution, closed form): "
            << ex::sci(predicted, 4) << "\n";

  // Checks: converged on the true residual; the L2 error is the discretisation
  // error up to what the tolerance leaves (algebraic error <= κ tol ‖u‖, κ < N²)
  // and rounding; all formats agree.
  ex::Checks checks;
  const double unit_roundoff = std::numeric_limits<Scalar>::epsilon();
  const double algebraic = static_cast<double>(cfg.N) * static_cast<double>(cfg.N) *
                           std::max(tol, unit_roundoff) * norm_u;
  Contender<Vec> const* reference = nullptr;
  for (auto const& c : contenders) {
    checks.expect(c.first.converged(),
                  c.name + " did not converge: " + spmvkit::name(c.first.status) +
                      (c.first.message.empty() ? "" : " (" + c.first.message + ")") +
                      ", true residual " + ex::sci(c.first.true_relative_residual, 2) +
                      ", recurrence residual " + ex::sci(c.first.relative_residual, 2));
    checks.expect(std::fabs(c.error - predicted) <= 1e-3 * predicted + algebraic,
                  c.name + ": L2 error " + ex::sci(c.error, 4) +
                      " is not the discretisation error " + ex::sci(predicted, 4) + " (allowed " +
                      ex::sci(1e-3 * predicted + algebraic, 2) + ")");
    if (reference == nullptr) {
      reference = &c;
      continue;
    }
    const double allowed = 1e-3 * reference->error + 10 * tol * norm_u;
    checks.expect(std::fabs(c.error - reference->error) <= allowed,
                  c.name + ": L2 error " + ex::sci(c.error, 4) + " differs from " +
                      reference->name + "'s " + ex::sci(reference->error, 4) + " by more than " +
                      ex::sci(allowed, 2));
  }
  std::cout << (checks.failures() == 0
                    ? "checks: every solve converged to the discretisation error\n"
                    : "checks: " + std::to_string(checks.failures()) + " failed (above)\n");

  if (cfg.plot != "none") {
    ex::BarChart chart;
    chart.title = "FEM Poisson (Q1, N = " + std::to_string(cfg.N) + ", " + std::to_string(n) +
                  " unknowns, " + cfg.precision + "): time per CG iteration";
    chart.subtitle = std::string(Exec::name()) + ", " + std::to_string(exec.concurrency()) +
                     " threads; bar: median of " + std::to_string(cfg.repetitions) +
                     " solves, whisker: min-max; shorter is faster";
    chart.axis_label = "time per CG iteration [ms]";
    chart.unit = "ms";
    chart.legend_main = "SpMVKit formats";
    chart.legend_reference = "Kokkos Kernels SpMV";
    for (auto const& c : contenders) {
      const auto t = ex::spread_of(c.ms_per_iteration);
      chart.bars.push_back({c.name, t.median, t.min, t.max, c.kokkos_kernels});
    }
    ex::write_svg(chart, cfg.plot);
    std::cout << "picture: " << cfg.plot << " (time per CG iteration by format)\n";
  }
  return checks.exit_code();
}

extern template int run<double>(Config const&);
extern template int run<float>(Config const&);

} // namespace fem_cg

#endif
