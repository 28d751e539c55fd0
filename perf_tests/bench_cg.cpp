// CG on the FEM Poisson problem for each format (the founding study's figure 6): iterations,
// time per iteration and MUPS (million unknowns updated per second = rows * iterations / time).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "spmv_setup.hpp"

#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::perf {

namespace {

/// Right-hand side b = M f and the rough start of fem_poisson_rough_guess (the zero start
/// converges in one iteration on this problem, see fem_poisson.hpp).
template <class Scalar>
struct CgProblem {
  int N = 0;
  Vector<Scalar> b, guess, x;
  explicit CgProblem(int intervals) : N(intervals) {
    const Exec exec;
    b = fem_poisson_rhs<Scalar, Exec>(exec, N);
    guess = fem_poisson_rough_guess<Scalar, Exec>(exec, N);
    x = Vector<Scalar>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::cg_x")),
        b.extent(0));
    exec.fence();
  }
};

template <class Scalar>
CgProblem<Scalar>& cg_problem(int N) {
  static std::unique_ptr<CgProblem<Scalar>> problem;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] { problem.reset(); });
  }
  if (!problem || problem->N != N) {
    problem.reset();
    problem = std::make_unique<CgProblem<Scalar>>(N);
  }
  return *problem;
}

template <class Scalar>
CgResult solve(SpmvSetup<Scalar>& s, CgProblem<Scalar>& p, CgOptions const& opts) {
  const Exec exec;
  Kokkos::deep_copy(p.x, p.guess);
  exec.fence();
  switch (s.format().kind) {
  case FormatSpec::Kind::sell: return cg(exec, s.sell_matrix(), p.b, p.x, opts);
  case FormatSpec::Kind::sell16: return cg(exec, s.sell16_matrix(), p.b, p.x, opts);
  case FormatSpec::Kind::crs_row_per_thread: {
    CgOptions o = opts;
    o.crs_kernel = CrsKernel::row_per_thread;
    return cg(exec, s.crs_matrix(), p.b, p.x, o);
  }
  case FormatSpec::Kind::crs_vector: {
    CgOptions o = opts;
    o.crs_kernel = CrsKernel::vector;
    return cg(exec, s.crs_matrix(), p.b, p.x, o);
  }
  case FormatSpec::Kind::kk_native:
  case FormatSpec::Kind::kk_default: return cg(exec, s.kk_matrix(), p.b, p.x, opts);
  default: return cg(exec, s.crs_matrix(), p.b, p.x, opts);
  }
}

template <class Scalar>
void bm_cg(benchmark::State& state, std::string const& name, MatrixSource const& source,
           FormatSpec const& format) {
  try {
    auto& s = spmv_setup<Scalar>(source, format);
    if (!s.ok()) {
      record_failure(name + ": " + s.error());
      state.SkipWithError((name + ": " + s.error()).c_str());
      return;
    }
    auto& problem = cg_problem<Scalar>(source.fem_n);
    CgOptions opts;
    opts.relative_tolerance =
        sizeof(Scalar) == 8 ? options().cg_tolerance_double : options().cg_tolerance_float;
    opts.max_iterations = options().cg_max_iterations;
    opts.use_initial_guess = true;
    opts.check_interval = options().cg_check_interval;
    opts.kokkos_kernels_algorithm = format.kind == FormatSpec::Kind::kk_native
                                        ? KokkosKernelsAlgorithm::native
                                        : KokkosKernelsAlgorithm::vendor_default;
    {
      CgOptions warm = opts; // a few iterations: first-touch, kernel loading
      warm.max_iterations = 3;
      solve(s, problem, warm);
    }
    CgResult result;
    std::vector<double> per_iteration, loop_seconds;
    for (auto _ : state) {
      result = solve(s, problem, opts);
      state.SetIterationTime(result.iteration_seconds);
      per_iteration.push_back(result.seconds_per_iteration);
      loop_seconds.push_back(result.iteration_seconds);
    }
    if (result.status == CgStatus::breakdown) {
      record_failure(name + ": CG breakdown: " + result.message);
      state.SkipWithError((name + ": CG breakdown: " + result.message).c_str());
      return;
    }
    const double t_iter = median(per_iteration);
    state.counters["cg_iterations"] = result.iterations;
    state.counters["converged"] = result.converged() ? 1 : 0;
    state.counters["time_per_iteration_s"] = t_iter;
    state.counters["time_s"] = median(loop_seconds);
    state.counters["MUPS"] = t_iter > 0 ? static_cast<double>(s.rows()) / t_iter * 1e-6 : 0.0;
    // Bytes an iteration moves: one SpMV under the byte model (it already counts reading p and
    // writing q) plus the other vector traffic of spmvkit::cg, 10 n s (include/spmvkit/cg.hpp:
    // 12 n s in all, 2 n s of which are the SpMV's). time / (bytes / copy bandwidth) says how
    // close an iteration runs to the copy yardstick (1 = as fast as a copy).
    const double iteration_bytes =
        s.bytes() + 10.0 * static_cast<double>(s.rows()) * sizeof(Scalar);
    state.counters["check_interval"] =
        opts.check_interval > 0 ? opts.check_interval : detail::cg_check_interval<Exec>();
    state.counters["iteration_bytes"] = iteration_bytes;
    state.counters["iteration_vs_copy_bound"] =
        t_iter / (iteration_bytes / (copy_bandwidth_gbs() * 1e9));
    state.counters["relative_residual"] = result.relative_residual;
    state.counters["true_relative_residual"] = result.true_relative_residual;
    state.counters["rows"] = static_cast<double>(s.rows());
    state.counters["nnz"] = static_cast<double>(s.nnz());
    state.counters["padding"] = s.padding();
    state.counters["fem_N"] = source.fem_n;
    state.counters["sizeof_scalar"] = sizeof(Scalar);
    state.counters["C"] = format.chunk;
    state.counters["sigma"] = static_cast<double>(format.sigma);
  } catch (std::length_error const& e) {
    std::fprintf(stderr, "spmvkit_perf: skipped %s: %s\n", name.c_str(), e.what());
    state.SkipWithError((name + ": skipped: " + e.what()).c_str());
  } catch (std::exception const& e) {
    record_failure(name + ": " + e.what());
    state.SkipWithError((name + ": " + e.what()).c_str());
  }
}

} // namespace

template <class Scalar>
void register_cg_benchmark(MatrixSource const& source, FormatSpec const& format) {
  const std::string name =
      std::string("cg/") + precision_name<Scalar>() + "/" + source.name + "/" + format.name();
  benchmark::RegisterBenchmark(
      name.c_str(),
      [name, source, format](benchmark::State& st) { bm_cg<Scalar>(st, name, source, format); })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(options().cg_repetitions)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
}

template void register_cg_benchmark<double>(MatrixSource const&, FormatSpec const&);
template void register_cg_benchmark<float>(MatrixSource const&, FormatSpec const&);

} // namespace spmvkit::perf
