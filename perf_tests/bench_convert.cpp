// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a format or an ordering costs before the first SpMV, in SpMVs:
// - convert/<precision>/<matrix>/<format>: CRS -> each format variant of the registry
//   (F::from_crs through its Runner, on the device; CSR-k includes its Band-k on the host);
//   spmv_equivalents = conversion time / one SpMV of the converted matrix.
// - convert/<precision>/<matrix>/check_structure: the CRS structure check every matrix gets
//   once before its first operation; spmv_equivalents against one SpMV in default CRS.
// - reorder/<precision>/<matrix>/{rcm,band2,band3}: the ordering on the host and P A P^T on the
//   device (reorder_rcm, reorder_band_k with CSR-k's model sizes); spmv_equivalents = that time
//   / one SpMV of the original matrix in CRS (the default CrsFormat), the format one would keep.
// spmv_equivalents is how many SpMVs the conversion costs: a solver running fewer SpMVs than
// that with the new format cannot win back its cost, whatever its speed-up.

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "registry.hpp"

#include <spmvkit/formats/csrk/detail/csrk_tuning.hpp>
#include <spmvkit/reorder/band_k.hpp>
#include <spmvkit/reorder/rcm.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::perf {

namespace {

void fail(benchmark::State& state, std::string const& what) {
  record_failure(what);
  state.SkipWithError(what.c_str());
}

void skip(benchmark::State& state, std::string const& name, std::string const& why) {
  note_skip(name, why);
  state.SkipWithError((name + ": skipped: " + why).c_str());
}

/// The median of 11 SpMVs (y = A x) of copy 0 of `runner`, after 3 untimed ones: the
/// denominator, taken the way the transfer family takes its own.
template <class Scalar>
double spmv_seconds(Options const& o, Runner<Scalar>& runner, std::int64_t rows,
                    std::int64_t cols) {
  const auto x = random_vector<Scalar>("x", cols, o.seed + 1);
  const auto y = random_vector<Scalar>("y", rows, o.seed + 2);
  for (int i = 0; i < 3; ++i) runner.apply(0, x, y);
  std::vector<double> times;
  for (int i = 0; i < 11; ++i) {
    Kokkos::fence();
    Kokkos::Timer timer;
    runner.apply(0, x, y);
    Kokkos::fence();
    times.push_back(timer.seconds());
  }
  return median(times);
}

template <class Scalar>
void size_counters(benchmark::State& state, Crs<Scalar> const& A, MatrixSource const& source) {
  state.counters["rows"] = static_cast<double>(A.num_rows());
  state.counters["nnz"] = static_cast<double>(A.nnz());
  state.counters["fem_N"] = source.fem_n;
  state.counters["sizeof_scalar"] = sizeof(Scalar);
}

template <class Scalar>
void bm_convert(benchmark::State& state, Options const& o, std::string const& name,
                MatrixSource const& source, Implementation<Scalar> const& implementation) {
  try {
    Crs<Scalar> const& A = load_matrix<Scalar>(o, source);
    double spmv_time = 0;
    {
      auto runner = implementation.make();
      const std::string why = runner->obstacle(A);
      if (!why.empty()) return skip(state, name, why);
      runner->add_copy(A);
      spmv_time = spmv_seconds(o, *runner, A.num_rows(), A.num_cols());
    } // freed before the timed conversions
    std::vector<double> times;
    for (auto _ : state) {
      auto runner = implementation.make();
      Kokkos::fence();
      Kokkos::Timer timer;
      runner->add_copy(A);
      Kokkos::fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    state.SetLabel(implementation.label);
    state.counters["time_s"] = t;
    state.counters["spmv_time_s"] = spmv_time;
    state.counters["spmv_equivalents"] = spmv_time > 0 ? t / spmv_time : 0.0;
    size_counters(state, A, source);
  } catch (std::length_error const& e) {
    skip(state, name, e.what());
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

/// The CRS structure check that the first operation on a matrix runs once
/// (formats/crs/crs_matrix.hpp), against one SpMV in default CRS.
template <class Scalar>
void bm_check_structure(benchmark::State& state, Options const& o, std::string const& name,
                        MatrixSource const& source) {
  try {
    Crs<Scalar> const& A = load_matrix<Scalar>(o, source);
    FormatRunner<Scalar, CrsFormat> crs{CrsOptions()};
    crs.add_copy(A);
    const double spmv_time = spmv_seconds(o, crs, A.num_rows(), A.num_cols());
    const Exec exec;
    std::vector<double> times;
    for (auto _ : state) {
      Kokkos::fence();
      Kokkos::Timer timer;
      detail::check_crs_structure(exec, A); // the check itself, not its kept verdict
      Kokkos::fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    state.SetLabel("family=convert;format=check_structure");
    state.counters["time_s"] = t;
    state.counters["spmv_time_s"] = spmv_time;
    state.counters["spmv_equivalents"] = spmv_time > 0 ? t / spmv_time : 0.0;
    size_counters(state, A, source);
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

/// An ordering of the reorder family: RCM (k = 0) or Band-k (k = 2, 3).
struct Ordering {
  std::string name;
  int k = 0;
};

template <class Scalar>
void bm_reorder(benchmark::State& state, Options const& o, std::string const& name,
                MatrixSource const& source, Ordering const& ordering) {
  try {
    Crs<Scalar> const& A = load_matrix<Scalar>(o, source);
    if (A.num_rows() != A.num_cols()) return skip(state, name, "a rectangular matrix");
    const Exec exec;
    const double rdensity = A.num_rows() ? double(A.nnz()) / double(A.num_rows()) : 0.0;
    const auto sizes = detail::csrk_model<Exec>(ordering.k == 0 ? 2 : ordering.k, rdensity);
    const auto reorder = [&]() {
      return ordering.k == 0 ? reorder_rcm(exec, A)
                             : reorder_band_k(exec, A, ordering.k, sizes.rows_per_super_row,
                                              sizes.super_rows_per_super_super_row);
    };
    FormatRunner<Scalar, CrsFormat> crs{CrsOptions()};
    crs.add_copy(A);
    const double spmv_time = spmv_seconds(o, crs, A.num_rows(), A.num_cols());
    const auto before = bandwidth(exec, A);
    const auto after = bandwidth(exec, reorder().matrix);
    std::vector<double> times;
    for (auto _ : state) {
      Kokkos::fence();
      Kokkos::Timer timer;
      auto R = reorder();
      Kokkos::fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    std::string label = "family=reorder;format=" + ordering.name;
    if (ordering.k != 0) {
      label += ";SRS=" + std::to_string(sizes.rows_per_super_row);
      if (ordering.k == 3) label += ";SSRS=" + std::to_string(sizes.super_rows_per_super_super_row);
    }
    state.SetLabel(label);
    state.counters["time_s"] = t;
    state.counters["spmv_time_s"] = spmv_time;
    state.counters["spmv_equivalents"] = spmv_time > 0 ? t / spmv_time : 0.0;
    state.counters["bandwidth_before"] = static_cast<double>(before);
    state.counters["bandwidth_after"] = static_cast<double>(after);
    size_counters(state, A, source);
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
void register_conversion_benchmarks(std::shared_ptr<const Options> const& options,
                                    MatrixSource const& source) {
  Options const& o = *options;
  if (!source.in_sweep) return;
  // A conversion or an ordering runs for a while: at most 3 repetitions.
  auto configure = [&o](benchmark::internal::Benchmark* b) {
    b->UseManualTime()
        ->MinTime(o.min_time)
        ->Repetitions(std::min(o.repetitions, 3))
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  };
  if (o.has_family("convert")) {
    const auto impls = spmv_implementations<Scalar>(&o);
    const auto chosen = select_implementations(o.formats, impls, "--formats");
    for (std::size_t i = 0; i < impls.size(); ++i) {
      auto const& impl = impls[i];
      if (impl.is_reference || !chosen[i]) continue;
      const std::string name = prefix<Scalar>("convert", source) + impl.name;
      configure(benchmark::RegisterBenchmark(name.c_str(),
                                             [options, name, source, impl](benchmark::State& st) {
                                               bm_convert<Scalar>(st, *options, name, source, impl);
                                             }));
    }
  }
  if (o.has_family("convert")) {
    const std::string name = prefix<Scalar>("convert", source) + "check_structure";
    configure(
        benchmark::RegisterBenchmark(name.c_str(), [options, name, source](benchmark::State& st) {
          bm_check_structure<Scalar>(st, *options, name, source);
        }));
  }
  if (o.has_family("reorder")) {
    for (Ordering const& ordering :
         {Ordering{"rcm", 0}, Ordering{"band2", 2}, Ordering{"band3", 3}}) {
      const std::string name = prefix<Scalar>("reorder", source) + ordering.name;
      configure(benchmark::RegisterBenchmark(
          name.c_str(), [options, name, source, ordering](benchmark::State& st) {
            bm_reorder<Scalar>(st, *options, name, source, ordering);
          }));
    }
  }
}

template void register_conversion_benchmarks<double>(std::shared_ptr<const Options> const&,
                                                     MatrixSource const&);
template void register_conversion_benchmarks<float>(std::shared_ptr<const Options> const&,
                                                    MatrixSource const&);

} // namespace spmvkit::perf
