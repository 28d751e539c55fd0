// SpMV benchmark families: spmv (one SpMV, rotated copies), spmv200 (200 consecutive SpMVs,
// the founding study's figure 4) and transfer (host -> device of matrix + two vectors, figure 5).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "spmv_setup.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::perf {

template <class Scalar>
SpmvSetup<Scalar>& spmv_setup(MatrixSource const& source, FormatSpec const& format) {
  static std::unique_ptr<SpmvSetup<Scalar>> setup;
  static std::string key;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] {
      setup.reset();
      key.clear();
    });
  }
  const std::string k = source.name + "|" + source.path + "|" + format.name();
  if (!setup || key != k) {
    setup.reset(); // free the previous format's storage before building the next
    key.clear();
    setup = std::make_unique<SpmvSetup<Scalar>>(source, format);
    key = k;
  }
  return *setup;
}

template SpmvSetup<double>& spmv_setup<double>(MatrixSource const&, FormatSpec const&);
template SpmvSetup<float>& spmv_setup<float>(MatrixSource const&, FormatSpec const&);

namespace {

void fail(benchmark::State& state, std::string const& what) {
  record_failure(what);
  state.SkipWithError(what.c_str());
}

/// A format that cannot hold this matrix with 32-bit indices (SELL padding of a power-law
/// graph can exceed 2^31 - 1 stored entries): skipped, not a failure.
void skip_too_large(benchmark::State& state, std::string const& name, std::length_error const& e) {
  std::fprintf(stderr, "spmvkit_perf: skipped %s: %s\n", name.c_str(), e.what());
  state.SkipWithError((name + ": skipped: " + e.what()).c_str());
}

template <class Scalar>
void common_counters(benchmark::State& state, SpmvSetup<Scalar> const& s) {
  state.counters["rows"] = static_cast<double>(s.rows());
  state.counters["nnz"] = static_cast<double>(s.nnz());
  state.counters["stored"] = static_cast<double>(s.stored());
  state.counters["padding"] = s.padding();
  state.counters["fem_N"] = s.fem_n();
  state.counters["sizeof_scalar"] = sizeof(Scalar);
  state.counters["C"] = s.format().chunk;
  state.counters["sigma"] = static_cast<double>(s.format().sigma);
}

template <class Scalar>
void bm_spmv(benchmark::State& state, std::string const& name, MatrixSource const& source,
             FormatSpec const& format) {
  try {
    auto& s = spmv_setup<Scalar>(source, format);
    if (!s.ok()) return fail(state, name + ": " + s.error());
    const int copies = s.rotation();
    s.ensure_copies(copies);
    const int warmup = std::max(options().warmup, copies);
    for (int i = 0; i < warmup; ++i) s.apply(i % copies);
    Kokkos::fence();

    std::vector<double> times;
    int k = 0;
    for (auto _ : state) {
      Kokkos::fence();
      Kokkos::Timer timer;
      s.apply(k);
      Kokkos::fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
      k = k + 1 == copies ? 0 : k + 1;
    }
    const double t = median(times);
    const double gbs = s.bytes() / t * 1e-9;
    state.counters["time_s"] = t;
    state.counters["GB/s"] = gbs;
    state.counters["GFlop/s"] = 2.0 * static_cast<double>(s.nnz()) / t * 1e-9;
    state.counters["frac_copy"] = gbs / copy_bandwidth_gbs();
    state.counters["bytes"] = s.bytes();
    state.counters["rotation"] = copies;
    state.counters["check_rel_err"] = s.relative_error();
    common_counters(state, s);
  } catch (std::length_error const& e) {
    skip_too_large(state, name, e);
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

constexpr int spmv_chain = 200;

template <class Scalar>
void bm_spmv200(benchmark::State& state, std::string const& name, MatrixSource const& source,
                FormatSpec const& format) {
  try {
    auto& s = spmv_setup<Scalar>(source, format);
    if (!s.ok()) return fail(state, name + ": " + s.error());
    for (int i = 0; i < options().warmup; ++i) s.apply(0);
    std::vector<double> times;
    for (auto _ : state) {
      Kokkos::fence();
      Kokkos::Timer timer;
      for (int i = 0; i < spmv_chain; ++i) s.apply(0);
      Kokkos::fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    const double gbs = spmv_chain * s.bytes() / t * 1e-9;
    state.counters["time_s"] = t;
    state.counters["time_per_spmv_s"] = t / spmv_chain;
    state.counters["GB/s"] = gbs;
    state.counters["GFlop/s"] = spmv_chain * 2.0 * static_cast<double>(s.nnz()) / t * 1e-9;
    state.counters["frac_copy"] = gbs / copy_bandwidth_gbs();
    state.counters["bytes"] = s.bytes();
    common_counters(state, s);
  } catch (std::length_error const& e) {
    skip_too_large(state, name, e);
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

// ----------------------------------------------------------------------------------------------
// Transfer: the arrays of the matrix (in the given format) and x, y, from host buffers
// (pageable or pinned) into separately allocated device buffers, one deep_copy per array.
// ----------------------------------------------------------------------------------------------

using DeviceBytes = Kokkos::View<char*, MemSpace>;
using DeviceBytesUnmanaged = Kokkos::View<char*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class View>
DeviceBytesUnmanaged as_bytes(View const& v) {
  return DeviceBytesUnmanaged(reinterpret_cast<char*>(v.data()),
                              v.span() * sizeof(typename View::value_type));
}

enum class HostMemory { pageable, pinned };

class TransferBase {
public:
  virtual ~TransferBase() = default;
  virtual double run_once() = 0;
  double bytes = 0;
  double spmv_seconds = 0;
};

template <class HostSpace>
class Transfer final : public TransferBase {
public:
  explicit Transfer(std::vector<DeviceBytesUnmanaged> const& arrays) {
    for (auto const& a : arrays) {
      if (a.extent(0) == 0) continue;
      Kokkos::View<char*, HostSpace> h(
          Kokkos::view_alloc(Kokkos::WithoutInitializing,
                             std::string("SpMVKit::perf::transfer_host")),
          a.extent(0));
      DeviceBytes d(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                       std::string("SpMVKit::perf::transfer_device")),
                    a.extent(0));
      Kokkos::deep_copy(h, a); // real matrix data on the host side
      host_.push_back(h);
      device_.push_back(d);
      bytes += static_cast<double>(a.extent(0));
    }
    Kokkos::fence();
  }

  double run_once() override {
    Kokkos::fence();
    Kokkos::Timer timer;
    for (std::size_t i = 0; i < host_.size(); ++i) Kokkos::deep_copy(device_[i], host_[i]);
    Kokkos::fence();
    return timer.seconds();
  }

private:
  std::vector<Kokkos::View<char*, HostSpace>> host_;
  std::vector<DeviceBytes> device_;
};

template <class Scalar>
std::unique_ptr<TransferBase> make_transfer(SpmvSetup<Scalar>& s, HostMemory memory) {
  std::vector<DeviceBytesUnmanaged> arrays;
  if (s.format().is_sell()) {
    auto const& S = s.sell_matrix();
    arrays = {as_bytes(S.chunk_starts()), as_bytes(S.chunk_widths()), as_bytes(S.column_indices()),
              as_bytes(S.values()), as_bytes(S.row_permutation())};
  } else if (s.format().is_sell16()) {
    auto const& S = s.sell16_matrix();
    arrays = {as_bytes(S.chunk_starts()), as_bytes(S.chunk_widths()), as_bytes(S.column_offsets()),
              as_bytes(S.values()), as_bytes(S.row_permutation())};
  } else {
    auto const& A = s.crs_matrix();
    arrays = {as_bytes(A.row_starts()), as_bytes(A.column_indices()), as_bytes(A.values())};
  }
  arrays.push_back(as_bytes(s.x(0)));
  arrays.push_back(as_bytes(s.y(0)));
  std::unique_ptr<TransferBase> t;
  if (memory == HostMemory::pinned) {
    t = std::make_unique<Transfer<PinnedHostSpace>>(arrays);
  } else {
    t = std::make_unique<Transfer<Kokkos::HostSpace>>(arrays);
  }
  // One SpMV of the same format, to put next to the transfer.
  for (int i = 0; i < 3; ++i) s.apply(0);
  std::vector<double> times;
  for (int i = 0; i < 11; ++i) {
    Kokkos::fence();
    Kokkos::Timer timer;
    s.apply(0);
    Kokkos::fence();
    times.push_back(timer.seconds());
  }
  t->spmv_seconds = median(times);
  return t;
}

template <class Scalar>
void bm_transfer(benchmark::State& state, std::string const& name, MatrixSource const& source,
                 FormatSpec const& format, HostMemory memory) {
  static std::unique_ptr<TransferBase> transfer;
  static std::string key;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] {
      transfer.reset();
      key.clear();
    });
  }
  try {
    auto& s = spmv_setup<Scalar>(source, format);
    if (!s.ok()) return fail(state, name + ": " + s.error());
    if (!transfer || key != name) {
      transfer.reset();
      transfer = make_transfer(s, memory);
      key = name;
    }
    transfer->run_once(); // warm-up
    std::vector<double> times;
    for (auto _ : state) {
      const double t = transfer->run_once();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    state.counters["time_s"] = t;
    state.counters["GB/s"] = transfer->bytes / t * 1e-9;
    state.counters["bytes"] = transfer->bytes;
    state.counters["spmv_time_s"] = transfer->spmv_seconds;
    state.counters["transfer_over_spmv"] = t / transfer->spmv_seconds;
    state.counters["pinned"] = memory == HostMemory::pinned ? 1 : 0;
    common_counters(state, s);
  } catch (std::length_error const& e) {
    skip_too_large(state, name, e);
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

template <class Scalar>
std::string prefix(char const* family, MatrixSource const& source) {
  return std::string(family) + "/" + precision_name<Scalar>() + "/" + source.name + "/";
}

} // namespace

template <class Scalar>
void register_matrix_benchmarks(MatrixSource const& source) {
  const Options& o = options();
  const bool fem = source.kind == MatrixSource::Kind::fem;
  // spmv200 and transfer iterations are long (200 SpMVs; a whole matrix): at most 3 repetitions.
  const int long_repetitions = std::min(o.repetitions, 3);
  auto configure = [&o](benchmark::internal::Benchmark* b, benchmark::TimeUnit unit,
                        int repetitions) {
    // Manual time is wall-clock time from Kokkos::Timer between fences; Google Benchmark
    // refuses UseRealTime together with UseManualTime.
    b->UseManualTime()
        ->MinTime(o.min_time)
        ->Repetitions(repetitions)
        ->ReportAggregatesOnly(true)
        ->Unit(unit);
  };
  // spmv, spmv200 and cg of one format follow each other, so they share one cached setup.
  for (auto const& format : selected_formats()) {
    if (source.in_sweep && o.has_family("spmv")) {
      const std::string name = prefix<Scalar>("spmv", source) + format.name();
      configure(benchmark::RegisterBenchmark(name.c_str(),
                                             [name, source, format](benchmark::State& st) {
                                               bm_spmv<Scalar>(st, name, source, format);
                                             }),
                benchmark::kMicrosecond, o.repetitions);
    }
    if (fem && source.in_sweep && o.has_family("spmv200")) {
      const std::string name = prefix<Scalar>("spmv200", source) + format.name();
      configure(benchmark::RegisterBenchmark(name.c_str(),
                                             [name, source, format](benchmark::State& st) {
                                               bm_spmv200<Scalar>(st, name, source, format);
                                             }),
                benchmark::kMillisecond, long_repetitions);
    }
    if (fem && source.in_cg && o.has_family("cg")) register_cg_benchmark<Scalar>(source, format);
  }
  if (source.in_sweep && o.has_family("transfer")) {
    for (auto const& format_name : o.transfer_formats) {
      const FormatSpec format = parse_format(format_name);
      std::vector<std::pair<HostMemory, std::string>> kinds;
      if constexpr (device_is_host) {
        kinds = {{HostMemory::pageable, "host_copy"}};
      } else {
        kinds = {{HostMemory::pageable, "pageable"}, {HostMemory::pinned, "pinned"}};
      }
      for (auto const& kind : kinds) {
        const HostMemory memory = kind.first;
        const std::string name =
            prefix<Scalar>("transfer", source) + format.name() + "/" + kind.second;
        configure(
            benchmark::RegisterBenchmark(name.c_str(),
                                         [name, source, format, memory](benchmark::State& st) {
                                           bm_transfer<Scalar>(st, name, source, format, memory);
                                         }),
            benchmark::kMillisecond, long_repetitions);
      }
    }
  }
}

template void register_matrix_benchmarks<double>(MatrixSource const&);
template void register_matrix_benchmarks<float>(MatrixSource const&);

} // namespace spmvkit::perf
