// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The attainable-bandwidth yardsticks, registered first so that their medians are known when
// the SpMV and CG benchmarks compute frac_copy and frac_read:
// - copy: STREAM-style y(i) = x(i), 2 x 8 x n bytes (read x, write y);
// - read: sum of x, 8 x n bytes. SpMV is almost all reads, and on CPUs a copy also pays a
//   write-allocate read of y that the byte model does not count, so the read is the fairer
//   yardstick there; on GPUs the two are close.

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace spmvkit::perf {

namespace {

struct YardstickProblem {
  Yardstick which;
  std::int64_t n = 0;
  Vector<double> x, y;
  Kokkos::View<double, MemSpace> sum;

  YardstickProblem(Yardstick w, std::int64_t elements, std::uint64_t seed)
      : which(w), n(elements / 4 * 4) {
    // Filled on the device so that first touch places the pages where the kernel runs.
    x = random_vector<double>(which == Yardstick::copy ? "stream_copy_x" : "stream_read_x", n,
                              seed + 101);
    if (which == Yardstick::copy) {
      y = random_vector<double>("stream_copy_y", n, seed + 102);
    } else {
      sum = Kokkos::View<double, MemSpace>("SpMVKit::perf::stream_read_sum");
    }
    Kokkos::fence();
  }

  double bytes() const {
    return (which == Yardstick::copy ? 2.0 : 1.0) * sizeof(double) * static_cast<double>(n);
  }

  double run_once() const {
    using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    Kokkos::fence();
    Kokkos::Timer timer;
    if (which == Yardstick::copy) {
      Kokkos::parallel_for("SpMVKit::perf::stream_copy", Policy(0, n / 4),
                           CopyKernel<double>{x, y, n / 4});
    } else {
      // Reduced into a device View: no device-to-host copy inside the timed region.
      Kokkos::parallel_reduce("SpMVKit::perf::stream_read", Policy(0, n / 4),
                              ReadKernel<double>{x, n / 4}, sum);
    }
    Kokkos::fence();
    return timer.seconds();
  }
};

char const* name_of(Yardstick w) { return w == Yardstick::copy ? "copy" : "read"; }

struct YardstickState {
  std::unique_ptr<YardstickProblem> problem;
  std::vector<double> results; // median GB/s of each repetition
};

YardstickState& state_of(Yardstick w) {
  static YardstickState states[2];
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] {
      for (auto& s : states) s.problem.reset();
    });
  }
  return states[w == Yardstick::copy ? 0 : 1];
}

YardstickProblem& problem(Options const& o, Yardstick w) {
  auto& p = state_of(w).problem;
  if (!p) p = std::make_unique<YardstickProblem>(w, yardstick_elements(o), o.seed);
  return *p;
}

void bm_yardstick(benchmark::State& state, Options const& o, Yardstick w) {
  // The other yardstick's arrays are not needed now (copy runs before read).
  state_of(w == Yardstick::copy ? Yardstick::read : Yardstick::copy).problem.reset();
  YardstickProblem& p = problem(o, w);
  for (int i = 0; i < 2; ++i) p.run_once(); // warm-up
  std::vector<double> times;
  for (auto _ : state) {
    const double t = p.run_once();
    state.SetIterationTime(t);
    times.push_back(t);
  }
  const double t = median(times);
  const double gbs = p.bytes() / t * 1e-9;
  state_of(w).results.push_back(gbs);
  state.SetLabel(std::string("yardstick=") + name_of(w));
  state.counters["time_s"] = t;
  state.counters["GB/s"] = gbs;
  state.counters["bytes"] = p.bytes();
  state.counters["elements"] = static_cast<double>(p.n);
  state.counters[w == Yardstick::copy ? "frac_copy" : "frac_read"] = 1.0;
}

} // namespace

std::int64_t yardstick_elements(Options const& o) {
  if (o.copy_elements > 0) return o.copy_elements;
  if constexpr (device_is_host) {
    // Each array >= 4x the last-level cache, at least 2^24 doubles (128 MiB).
    const std::int64_t llc_elements = 4 * device_info().llc_bytes / 8;
    return std::max<std::int64_t>(std::int64_t(1) << 24, llc_elements);
  } else {
    return std::int64_t(1) << 27; // 1 GiB per array
  }
}

double yardstick_gbs(Options const& o, Yardstick w) {
  auto& results = state_of(w).results;
  if (results.empty()) {
    // The yardstick's benchmark was filtered out: measure it here, the same way.
    YardstickProblem& p = problem(o, w);
    for (int i = 0; i < 2; ++i) p.run_once();
    std::vector<double> times;
    for (int i = 0; i < o.copy_iterations; ++i) times.push_back(p.run_once());
    results.push_back(p.bytes() / median(times) * 1e-9);
  }
  state_of(w).problem.reset(); // its arrays are large; the SpMV benchmarks need the memory
  return median(results);
}

void register_yardstick_benchmarks(std::shared_ptr<const Options> const& options) {
  for (Yardstick w : {Yardstick::copy, Yardstick::read}) {
    if (!options->has_family(name_of(w))) continue;
    const std::string name = std::string(name_of(w)) +
                             "/double/n=" + std::to_string(yardstick_elements(*options)) +
                             "/stream_" + name_of(w);
    benchmark::RegisterBenchmark(
        name.c_str(), [options, w](benchmark::State& st) { bm_yardstick(st, *options, w); })
        ->UseManualTime()
        ->Iterations(options->copy_iterations)
        ->Repetitions(options->repetitions)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  }
}

} // namespace spmvkit::perf
