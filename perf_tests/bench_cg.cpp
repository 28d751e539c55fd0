// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CG on the FEM Poisson problem for every implementation of the registry (the founding
// study's figure 6): each format variant through make_operator(A, options), Kokkos Kernels
// through KokkosKernelsOperator; iterations, time per iteration and MUPS (million unknowns
// updated per second = rows * iterations / time). Each implementation runs in three ways
// (--cg-variants): standard CG with the fused vector kernels (cg/<p>/<source>/<impl>), with
// KokkosBlas vector calls (.../<impl>/kokkos_blas; with kk_default it is the CG a Kokkos user
// writes, KokkosBlas + Kokkos Kernels' SpMV) and pipelined CG (.../<impl>/pipelined). The
// fourth way, mixed, is mixed precision: the float matrix of a format with double vectors
// (make_mixed_operator<double>), fused standard CG to the double tolerance, named
// cg/mixed/<source>/<impl> to sit beside double CG's cg/double/<source>/<impl>; it is
// registered with the float matrices (--precision float) and has no Kokkos Kernels entry.

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "registry.hpp"
#include "spmv_setup.hpp"

#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/cg.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
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
typename Runner<Scalar>::Solve solve(SpmvSetup<Scalar>& s, CgProblem<Scalar>& p,
                                     CgOptions const& opts, bool kokkos_blas) {
  Kokkos::deep_copy(p.x, p.guess);
  Kokkos::fence();
  return s.runner().cg(p.b, p.x, opts, kokkos_blas);
}

/// The mixed way: the setup's (float) matrix with double vectors; empty without a mixed
/// product.
template <class Scalar>
std::optional<typename Runner<Scalar>::Solve>
solve_mixed(SpmvSetup<Scalar>& s, CgProblem<double>& p, CgOptions const& opts) {
  Kokkos::deep_copy(p.x, p.guess);
  Kokkos::fence();
  return s.runner().cg_mixed(p.b, p.x, opts);
}

/// Vector bytes of an iteration besides the apply's (which reads p and writes q), with
/// s = sizeof(Scalar) and no Jacobi: fused 10 n s (solvers/cg.hpp), KokkosBlas 12 n s
/// (interop/kokkos_blas.hpp), pipelined 13 n s (its update kernel reads n, z, w, s, r, p, x
/// and writes z, s, p, x, r, w); mixed is the fused CG, its s the double vectors'.
double vector_bytes_per_row(std::string const& way) {
  if (way == "kokkos_blas") return 12;
  if (way == "pipelined") return 13;
  return 10;
}

void skip(benchmark::State& state, std::string const& name, char const* why) {
  note_skip(name, why);
  state.SkipWithError((name + ": skipped: " + why).c_str());
}

template <class Scalar>
void bm_cg(benchmark::State& state, Options const& o, std::string const& name,
           MatrixSource const& source, Implementation<Scalar> const& implementation,
           std::string const& way) {
  try {
    auto& s = spmv_setup<Scalar>(o, source, implementation);
    if (!s.ok()) {
      record_failure(name + ": " + s.error());
      state.SkipWithError((name + ": " + s.error()).c_str());
      return;
    }
    const bool mixed = way == "mixed";
    CgOptions opts;
    opts.relative_tolerance =
        sizeof(Scalar) == 8 || mixed ? o.cg_tolerance_double : o.cg_tolerance_float;
    opts.max_iterations = o.cg_max_iterations;
    opts.use_initial_guess = true;
    opts.check_interval = o.cg_check_interval;
    if (way == "pipelined") opts.variant = CgVariant::pipelined;
    const bool kokkos_blas = way == "kokkos_blas";
    // One solve of this way; empty when the implementation has no mixed product.
    auto run = [&](CgOptions const& w) -> std::optional<typename Runner<Scalar>::Solve> {
      if (mixed) return solve_mixed(s, cg_problem<double>(source.fem_n), w);
      return solve(s, cg_problem<Scalar>(source.fem_n), w, kokkos_blas);
    };
    {
      CgOptions warm = opts; // a few iterations: first-touch, kernel loading
      warm.max_iterations = 3;
      if (!run(warm)) {
        skip(state, name, "no mixed-precision SpMV (mixed runs SpMVKit's float matrices)");
        return;
      }
    }
    typename Runner<Scalar>::Solve solved;
    std::vector<double> per_iteration, loop_seconds;
    for (auto _ : state) {
      solved = *run(opts);
      state.SetIterationTime(solved.result.iteration_seconds);
      per_iteration.push_back(solved.result.seconds_per_iteration);
      loop_seconds.push_back(solved.result.iteration_seconds);
    }
    CgResult const& result = solved.result;
    if (result.status == CgStatus::breakdown || result.status == CgStatus::indefinite ||
        result.status == CgStatus::non_finite || result.status == CgStatus::diverged) {
      record_failure(name + ": CG breakdown: " + result.message);
      state.SkipWithError((name + ": CG breakdown: " + result.message).c_str());
      return;
    }
    const double t_iter = median(per_iteration);
    state.SetLabel(implementation.label + ";cg=" + way +
                   (mixed ? ";matrix=float;vectors=double" : ""));
    state.counters["cg_iterations"] = result.iterations;
    state.counters["converged"] = result.converged() ? 1 : 0;
    state.counters["time_per_iteration_s"] = t_iter;
    state.counters["time_s"] = median(loop_seconds);
    state.counters["MUPS"] = t_iter > 0 ? static_cast<double>(s.rows()) / t_iter * 1e-6 : 0.0;
    // Bytes an iteration moves: one apply under the operator's byte model
    // (MatrixOperator::bytes(), which already counts reading p and writing q) plus the other
    // vector traffic of this way (vector_bytes_per_row). time / (bytes / yardstick bandwidth)
    // says how close an iteration runs to the yardstick (1 = as fast as a copy, or as a read).
    // The fused standard CG's bytes are the floor of every way: iteration_vs_fused_copy_bound
    // compares each way with the least traffic that solves the problem.
    const double n_s = static_cast<double>(s.rows()) * (mixed ? sizeof(double) : sizeof(Scalar));
    const double iteration_bytes = solved.operator_bytes.total() + vector_bytes_per_row(way) * n_s;
    const double fused_bytes = solved.operator_bytes.total() + vector_bytes_per_row("fused") * n_s;
    const double copy_bps = yardstick_gbs(o, Yardstick::copy) * 1e9;
    state.counters["check_interval"] =
        opts.check_interval > 0 ? opts.check_interval : spmvkit::detail::cg_check_interval<Exec>();
    state.counters["iteration_bytes"] = iteration_bytes;
    state.counters["iteration_vs_copy_bound"] = t_iter / (iteration_bytes / copy_bps);
    state.counters["iteration_vs_read_bound"] =
        t_iter / (iteration_bytes / (yardstick_gbs(o, Yardstick::read) * 1e9));
    state.counters["iteration_vs_fused_copy_bound"] = t_iter / (fused_bytes / copy_bps);
    state.counters["residual_replacements"] = result.residual_replacements;
    state.counters["relative_residual"] = result.relative_residual;
    state.counters["true_relative_residual"] = result.true_relative_residual;
    state.counters["rows"] = static_cast<double>(s.rows());
    state.counters["nnz"] = static_cast<double>(s.nnz());
    state.counters["padding"] = s.padding();
    state.counters["fem_N"] = source.fem_n;
    state.counters["sizeof_scalar"] = sizeof(Scalar); // the matrix's
    state.counters["sizeof_vector_scalar"] = mixed ? sizeof(double) : sizeof(Scalar);
  } catch (Unrepresentable const& e) {
    skip(state, name, e.what());
  } catch (std::length_error const& e) {
    skip(state, name, e.what());
  } catch (std::exception const& e) {
    record_failure(name + ": " + e.what());
    state.SkipWithError((name + ": " + e.what()).c_str());
  }
}

} // namespace

template <class Scalar>
void register_cg_benchmark(std::shared_ptr<const Options> const& options,
                           MatrixSource const& source,
                           Implementation<Scalar> const& implementation) {
  for (std::string const way : {"fused", "kokkos_blas", "pipelined", "mixed"}) {
    if (std::find(options->cg_variants.begin(), options->cg_variants.end(), way) ==
        options->cg_variants.end())
      continue;
    // Mixed precision reads a float matrix: it comes with the float registrations.
    if (way == "mixed" && sizeof(Scalar) != sizeof(float)) continue;
    // The fused standard CG keeps the name it had before the other ways existed; mixed is a
    // precision of its own (cg/mixed/...), beside cg/double/....
    const std::string name = way == "mixed" ? "cg/mixed/" + source.name + "/" + implementation.name
                                            : std::string("cg/") + precision_name<Scalar>() + "/" +
                                                  source.name + "/" + implementation.name +
                                                  (way == "fused" ? "" : "/" + way);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [options, name, source, implementation, way](benchmark::State& st) {
          bm_cg<Scalar>(st, *options, name, source, implementation, way);
        })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(options->cg_repetitions)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  }
}

template void register_cg_benchmark<double>(std::shared_ptr<const Options> const&,
                                            MatrixSource const&, Implementation<double> const&);
template void register_cg_benchmark<float>(std::shared_ptr<const Options> const&,
                                           MatrixSource const&, Implementation<float> const&);

} // namespace spmvkit::perf
