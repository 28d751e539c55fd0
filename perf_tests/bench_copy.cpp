// STREAM-style copy y(i) = x(i): the attainable-bandwidth yardstick. It is registered first, so
// its median is known when the SpMV benchmarks compute frac_copy.

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

namespace spmvkit::perf {

namespace {

struct CopyProblem {
  std::int64_t n = 0;
  Vector<double> x, y;

  CopyProblem(std::int64_t elements, std::uint64_t seed) : n(elements / 4 * 4) {
    // Filled on the device so that first touch places the pages where the kernel runs.
    x = random_vector<double>("stream_copy_x", n, seed + 101);
    y = random_vector<double>("stream_copy_y", n, seed + 102);
    Kokkos::fence();
  }

  double bytes() const { return 2.0 * sizeof(double) * static_cast<double>(n); }

  double run_once() const {
    Kokkos::fence();
    Kokkos::Timer timer;
    Kokkos::parallel_for("SpMVKit::perf::stream_copy",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n / 4),
                         CopyKernel<double>{x, y, n / 4});
    Kokkos::fence();
    return timer.seconds();
  }
};

std::unique_ptr<CopyProblem>& copy_problem_slot() {
  static std::unique_ptr<CopyProblem> p;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] { p.reset(); });
  }
  return p;
}

CopyProblem& copy_problem(Options const& o) {
  auto& p = copy_problem_slot();
  if (!p) p = std::make_unique<CopyProblem>(copy_elements(o), o.seed);
  return *p;
}

std::vector<double>& copy_results() {
  static std::vector<double> r;
  return r;
}

void bm_copy(benchmark::State& state, Options const& o) {
  CopyProblem& p = copy_problem(o);
  for (int i = 0; i < 2; ++i) p.run_once(); // warm-up
  std::vector<double> times;
  for (auto _ : state) {
    const double t = p.run_once();
    state.SetIterationTime(t);
    times.push_back(t);
  }
  const double t = median(times);
  const double gbs = p.bytes() / t * 1e-9;
  copy_results().push_back(gbs);
  state.SetLabel("yardstick=copy");
  state.counters["time_s"] = t;
  state.counters["GB/s"] = gbs;
  state.counters["bytes"] = p.bytes();
  state.counters["elements"] = static_cast<double>(p.n);
  state.counters["frac_copy"] = 1.0;
}

} // namespace

std::int64_t copy_elements(Options const& o) {
  if (o.copy_elements > 0) return o.copy_elements;
  if constexpr (device_is_host) {
    // Each array >= 4x the last-level cache, at least 2^24 doubles (128 MiB).
    const std::int64_t llc_elements = 4 * device_info().llc_bytes / 8;
    return std::max<std::int64_t>(std::int64_t(1) << 24, llc_elements);
  } else {
    return std::int64_t(1) << 27; // 1 GiB per array
  }
}

double copy_bandwidth_gbs(Options const& o) {
  auto& results = copy_results();
  if (results.empty()) {
    // The copy benchmark was filtered out: measure it here, the same way.
    CopyProblem& p = copy_problem(o);
    for (int i = 0; i < 2; ++i) p.run_once();
    std::vector<double> times;
    for (int i = 0; i < o.copy_iterations; ++i) times.push_back(p.run_once());
    results.push_back(p.bytes() / median(times) * 1e-9);
  }
  copy_problem_slot().reset(); // its arrays are large; the SpMV benchmarks need the memory
  return median(results);
}

void register_copy_benchmarks(std::shared_ptr<const Options> const& options) {
  if (!options->has_family("copy")) return;
  const std::string name =
      "copy/double/n=" + std::to_string(copy_elements(*options)) + "/stream_copy";
  benchmark::RegisterBenchmark(name.c_str(),
                               [options](benchmark::State& st) { bm_copy(st, *options); })
      ->UseManualTime()
      ->Iterations(options->copy_iterations)
      ->Repetitions(options->repetitions)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
}

} // namespace spmvkit::perf
