// spmvkit_perf: SpMVKit's Google Benchmark driver. Kokkos takes its --kokkos-* flags, SpMVKit
// its own options (options.cpp), Google Benchmark the --benchmark_* rest; benchmarks are then
// registered from the options: copy first (its median is the frac_copy yardstick), then per
// precision and matrix: spmv, spmv200, cg per format, and the transfers.

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"

#include <spmvkit/version.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <string>

namespace {

void add_context() {
  using namespace spmvkit::perf;
  const Options& o = options();
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
  benchmark::AddCustomContext("llc_bytes", std::to_string(device_info().llc_bytes));
  benchmark::AddCustomContext("copy_elements", std::to_string(copy_elements()));
  benchmark::AddCustomContext("precision", precisions);
  benchmark::AddCustomContext("spmvkit_date", utc_date());
  benchmark::AddCustomContext("command_line", o.command_line);
  benchmark::AddCustomContext("smoke", o.smoke ? "true" : "false");
}

template <class Scalar>
void register_precision() {
  using namespace spmvkit::perf;
  for (auto const& source : matrix_sources()) register_matrix_benchmarks<Scalar>(source);
}

int run(int& argc, char** argv) {
  using namespace spmvkit::perf;
  Options& o = mutable_options();
  bool help = false;
  try {
    help = parse_options(argc, argv, o);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  if (help) print_usage(argv[0]);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  add_context();
  try {
    register_copy_benchmarks();
    if (o.has_precision("double")) register_precision<double>();
    if (o.has_precision("float")) register_precision<float>();
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
  Kokkos::initialize(argc, argv);
  int status = 0;
  {
    status = run(argc, argv);
    spmvkit::perf::run_cleanups();
  }
  Kokkos::finalize();
  return status;
}
