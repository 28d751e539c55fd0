// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmvkit_perf: SpMVKit's Google Benchmark driver. Kokkos takes its --kokkos-* flags, SpMVKit
// its own options (the table of options.cpp), Google Benchmark the --benchmark_* rest; the
// benchmarks are then registered from the (immutable) options: the copy and read yardsticks
// first (their medians are the frac_copy and frac_read references), then per precision and
// matrix: spmv, spmv200, cg for every implementation of the registry (registry.hpp), the
// transfers, conversions and spgemm; then the solve family (bench_solve.cpp).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "petsc_anchor.hpp"

#include <spmvkit/core/host_cpu.hpp>
#include <spmvkit/version.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace {

void add_context(spmvkit::perf::Options const& o) {
  using namespace spmvkit::perf;
  std::string precisions;
  for (auto const& p : o.precisions) precisions += (precisions.empty() ? "" : ",") + p;
  benchmark::AddCustomContext("spmvkit_version", SPMVKIT_VERSION_STRING);
  benchmark::AddCustomContext("spmvkit_git_hash", SPMVKIT_GIT_HASH);
  benchmark::AddCustomContext("kokkos_version", kokkos_version_string());
  benchmark::AddCustomContext("kokkos_backends", enabled_backends());
  benchmark::AddCustomContext("execution_space", Exec::name());
  benchmark::AddCustomContext("device_name", device_info().name);
  benchmark::AddCustomContext("device_is_host", device_is_host ? "true" : "false");
  benchmark::AddCustomContext("concurrency", std::to_string(Exec().concurrency()));
  // fit_format_model.py keys the host tables by thread count and this vendor.
  benchmark::AddCustomContext(
      "host_cpu_vendor", spmvkit::detail::host_cpu_vendor_name(spmvkit::detail::host_cpu_vendor()));
  benchmark::AddCustomContext("llc_bytes", std::to_string(device_info().llc_bytes));
  benchmark::AddCustomContext("copy_elements", std::to_string(yardstick_elements(o)));
  benchmark::AddCustomContext("precision", precisions);
  benchmark::AddCustomContext("spmvkit_date", utc_date());
  benchmark::AddCustomContext("command_line", o.command_line);
  benchmark::AddCustomContext("smoke", o.smoke ? "true" : "false");
#ifdef SPMVKIT_PERF_REDUCED_OPTIMIZATION
  // The test suite's build (scripts/build.sh --tests): results are checked, timings are not
  // measurements.
  benchmark::AddCustomContext("perf_optimization", SPMVKIT_PERF_REDUCED_OPTIMIZATION);
  if (!o.smoke) {
    std::fprintf(stderr,
                 "spmvkit_perf: this binary's sources were compiled with %s "
                 "(SPMVKIT_PERF_OPTIMIZATION, the test suite's build): its timings are not "
                 "measurements; rebuild with scripts/build.sh (or -DSPMVKIT_PERF_OPTIMIZATION=) "
                 "to benchmark\n",
                 SPMVKIT_PERF_REDUCED_OPTIMIZATION);
  }
#else
  benchmark::AddCustomContext("perf_optimization", "build type");
#endif
  // The solve family's PETSc anchor: which PETSc, if any ("" without).
  benchmark::AddCustomContext("petsc_version", petsc_version());
  // The benchmark labels are "key=value;..." (perf_tests/README.md, "Labels").
  benchmark::AddCustomContext("spmvkit_label_format", "1");
}

int run(int& argc, char** argv) {
  using namespace spmvkit::perf;
  std::shared_ptr<const Options> options;
  try {
    options = parse_options(argc, argv);
  } catch (OptionError const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  try {
    check_format_selection(*options);
    add_context(*options);
    register_yardstick_benchmarks(options);
    const auto sources = matrix_sources(*options);
    if (options->has_precision("double")) {
      for (auto const& source : sources) {
        register_matrix_benchmarks<double>(options, source);
        register_conversion_benchmarks<double>(options, source);
        register_spgemm_benchmarks<double>(options, source);
        register_ops_benchmarks<double>(options, source);
      }
      if (options->has_family("solve")) register_solve_benchmarks<double>(options, sources);
    }
    if (options->has_precision("float")) {
      for (auto const& source : sources) {
        register_matrix_benchmarks<float>(options, source);
        register_conversion_benchmarks<float>(options, source);
        register_spgemm_benchmarks<float>(options, source);
        register_ops_benchmarks<float>(options, source);
      }
      if (options->has_family("solve")) register_solve_benchmarks<float>(options, sources);
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "spmvkit_perf: %s\n", e.what());
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  run_cleanups(); // every cached View goes before Kokkos::finalize
  if (failure_count() > 0) {
    std::fprintf(stderr, "spmvkit_perf: %d benchmark(s) failed (see the error lines above)\n",
                 failure_count());
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (spmvkit::perf::wants_help(argc, argv)) {
    // Our options and formats first, then Google Benchmark's options (its --help exits);
    // Kokkos is not started.
    std::fputs(spmvkit::perf::usage(argv[0]).c_str(), stdout);
    std::fputs((spmvkit::perf::format_names() + "\n").c_str(), stdout);
    std::fflush(stdout);
    char help[] = "--help";
    char* gb_argv[] = {argv[0], help, nullptr};
    int gb_argc = 2;
    benchmark::Initialize(&gb_argc, gb_argv);
    return 0;
  }
  Kokkos::initialize(argc, argv);
  int status = 0;
  {
    status = run(argc, argv);
    spmvkit::perf::run_cleanups();
  }
  Kokkos::finalize();
  return status;
}
