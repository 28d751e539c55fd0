// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SpMV benchmark families: spmv (one SpMV, rotated copies), spmv200 (200 consecutive SpMVs,
// the founding study's figure 4) and transfer (host -> device of matrix + two vectors, figure 5),
// for every implementation of the registry (registry.hpp).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "registry.hpp"
#include "spmv_setup.hpp"

#include <benchmark/benchmark.h>
#include <spmvkit/core/memory_limit.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit::perf {

template <class Scalar>
SpmvSetup<Scalar>& spmv_setup(Options const& options, MatrixSource const& source,
                              Implementation<Scalar> const& implementation) {
  static std::unique_ptr<SpmvSetup<Scalar>> setup;
  static std::string key;
  static std::map<std::string, std::string> obstacles; // key -> why the format cannot hold it
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] {
      setup.reset();
      key.clear();
    });
  }
  const std::string k = source.name + "|" + source.path + "|" + implementation.name;
  if (auto const it = obstacles.find(k); it != obstacles.end()) throw Unrepresentable(it->second);
  if (!setup || key != k) {
    setup.reset(); // free the previous implementation's storage before building the next
    key.clear();
    try {
      setup = std::make_unique<SpmvSetup<Scalar>>(options, source, implementation);
    } catch (Unrepresentable const& e) {
      obstacles[k] = e.what();
      throw;
    }
    key = k;
  }
  return *setup;
}

template SpmvSetup<double>& spmv_setup<double>(Options const&, MatrixSource const&,
                                               Implementation<double> const&);
template SpmvSetup<float>& spmv_setup<float>(Options const&, MatrixSource const&,
                                             Implementation<float> const&);

namespace {

/// --rounds: every selected implementation of one matrix, built at once and timed in
/// interleaved rounds, so that the machine's drift over seconds (a shared host's neighbours,
/// clocks) falls on all of them alike instead of on whichever ran at a bad moment.
template <class Scalar>
class SpmvRounds {
public:
  struct Entry {
    std::string name; // the implementation's
    std::unique_ptr<SpmvSetup<Scalar>> setup;
    std::string skipped; // why the format cannot hold the matrix (Unrepresentable, length_error)
    std::string failed;  // any other error while building or timing it
    int copies = 1;
    std::string cut;           // "copies/wanted" where memory cut the rotated copies, else empty
    std::vector<double> times; // one per round: the median of that round's calls
    std::vector<int> calls;    // timed calls per round
    std::size_t next = 0;      // the round the next repetition reports
    int cursor = 0;            // the next copy: the one used longest ago
  };

  SpmvRounds(Options const& o, MatrixSource const& source) : rounds_(o.rounds) {
    const auto impls = spmv_implementations<Scalar>(&o);
    const auto chosen = select_implementations(o.formats, impls, "--formats");
    // All implementations and their rotated copies are held at once, in half of the memory free
    // now (a copy counted as the bytes one product moves). Where that is short, every
    // implementation rotates through the same smaller number of bytes, so that none is timed
    // more in cache than another, rather than sending the host into swap or the OOM killer.
    const MemoryLimit limit = memory_limit<Exec::memory_space>();
    double left = limit.known() ? 0.5 * static_cast<double>(limit.bytes)
                                : std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < impls.size(); ++i) {
      if (!chosen[i]) continue;
      Entry& e = entries_[impls[i].name];
      e.name = impls[i].name;
      capture(e, [&] {
        e.setup = std::make_unique<SpmvSetup<Scalar>>(o, source, impls[i]);
        left -= std::max(1.0, e.setup->bytes());
      });
    }
    std::vector<Entry*> built; // and checked: a setup that failed its check is not timed
    for (auto& named : entries_) {
      if (named.second.setup && named.second.setup->ok()) built.push_back(&named.second);
    }
    const double wanted_bytes = o.rotation_factor * static_cast<double>(device_info().llc_bytes);
    const double share =
        built.empty() ? 0 : std::max(0.0, left) / static_cast<double>(built.size());
    std::string cut;
    for (Entry* e : built) {
      capture(*e, [&] {
        const int wanted = e->setup->rotation();
        const double per_copy = std::max(1.0, e->setup->bytes());
        // Copy 0 exists; the rest share the memory left, the same bytes for everyone.
        const double fit = 1.0 + std::floor(std::min(wanted_bytes, share) / per_copy);
        e->copies = static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(wanted)));
        if (e->copies < wanted) {
          e->cut = std::to_string(e->copies) + "/" + std::to_string(wanted);
          cut += " " + e->name + " " + e->cut;
        }
        e->setup->ensure_copies(e->copies);
      });
    }
    if (!cut.empty()) {
      std::fprintf(stderr,
                   "spmvkit_perf: --rounds: %s: fewer rotated copies, to hold every implementation "
                   "in half of the %.0f MiB available (%s); copies/wanted:%s\n",
                   source.name.c_str(), static_cast<double>(limit.bytes) / (1 << 20),
                   limit.source.c_str(), cut.c_str());
    }
    // The orders differ from matrix to matrix, and --rounds-seed changes them alone.
    run(o, o.rounds_seed ^ std::hash<std::string>{}(source.name), built);
  }

  Entry& entry(std::string const& name) { return entries_.at(name); }

  /// Counts one reported repetition; true once every implementation reported every round, when
  /// the matrix's storage may go.
  bool reported_all() { return ++reported_ >= entries_.size() * static_cast<std::size_t>(rounds_); }

private:
  /// Runs a step of an implementation's set-up; a format that cannot hold the matrix is
  /// skipped, any other error fails that implementation alone.
  template <class Step>
  static void capture(Entry& e, Step&& step) {
    try {
      step();
    } catch (Unrepresentable const& x) {
      e.setup.reset();
      e.skipped = x.what();
    } catch (std::length_error const& x) {
      e.setup.reset();
      e.skipped = x.what();
    } catch (std::exception const& x) {
      e.setup.reset();
      e.failed = x.what();
    }
  }

  /// Times the implementations built and checked (`ready`; one that fails in the copies step
  /// has no setup left and is dropped here).
  void run(Options const& o, std::uint64_t seed, std::vector<Entry*> ready) {
    ready.erase(std::remove_if(ready.begin(), ready.end(), [](Entry* e) { return !e->setup; }),
                ready.end());
    // Each call takes the copy used longest ago (the cursor goes round the copies across the
    // warm-ups and rounds), so that no timed call finds its matrix in cache from a warm-up.
    auto call = [](Entry& e) {
      e.setup->apply(e.cursor);
      e.cursor = e.cursor + 1 == e.copies ? 0 : e.cursor + 1;
    };
    // An implementation that throws while timed fails alone; the others go on.
    auto guarded = [&ready](Entry* e, auto&& work) {
      try {
        work();
      } catch (std::exception const& x) {
        e->failed = std::string("while timed: ") + x.what();
        e->setup.reset();
        ready.erase(std::find(ready.begin(), ready.end(), e));
      }
    };
    // One untimed pass over every copy first: page faults and first touch out of the rounds.
    for (Entry* e : std::vector<Entry*>(ready)) {
      guarded(e, [&] {
        for (int i = 0; i < std::max(o.warmup, e->copies); ++i) call(*e);
        Kokkos::fence();
      });
    }
    std::mt19937_64 shuffle(seed);
    std::vector<double> batch;
    for (int round = 0; round < o.rounds; ++round) {
      std::shuffle(ready.begin(), ready.end(), shuffle);
      for (Entry* e : std::vector<Entry*>(ready)) {
        guarded(e, [&] {
          // Threads and caches warm again after the previous implementation.
          for (int i = 0; i < o.warmup; ++i) call(*e);
          Kokkos::fence();
          batch.clear();
          double spent = 0;
          while (batch.empty() || (spent < o.min_time && batch.size() < max_calls)) {
            Kokkos::fence();
            Kokkos::Timer timer;
            call(*e);
            Kokkos::fence();
            const double t = timer.seconds();
            batch.push_back(t);
            spent += t;
          }
          e->times.push_back(median(batch));
          e->calls.push_back(static_cast<int>(batch.size()));
        });
      }
    }
  }

  static constexpr std::size_t max_calls = 1000000;
  int rounds_ = 0;
  std::size_t reported_ = 0;
  std::map<std::string, Entry> entries_;
};

/// The rounds of the matrix being reported, per precision: measured when its first spmv
/// benchmark asks, released once all its benchmarks reported (or when another matrix asks).
template <class Scalar>
struct RoundsCache {
  std::unique_ptr<SpmvRounds<Scalar>> rounds;
  std::string key;
  std::string failed; // the matrix whose rounds could not be set up, and why
  std::string why;

  static RoundsCache& get() {
    static RoundsCache cache;
    static bool registered = false;
    if (!registered) {
      registered = true;
      register_cleanup([] { cache.release(); });
    }
    return cache;
  }
  void release() {
    rounds.reset();
    key.clear();
  }
};

template <class Scalar>
SpmvRounds<Scalar>& spmv_rounds(Options const& options, MatrixSource const& source) {
  auto& cache = RoundsCache<Scalar>::get();
  const std::string k = source.name + "|" + source.path;
  // Once per matrix: its other benchmarks fail with the same reason, without building again.
  if (cache.failed == k) throw std::runtime_error(cache.why);
  if (!cache.rounds || cache.key != k) {
    cache.release(); // free the previous matrix's implementations first
    try {
      cache.rounds = std::make_unique<SpmvRounds<Scalar>>(options, source);
    } catch (std::exception const& e) {
      cache.failed = k;
      cache.why = std::string("--rounds: ") + e.what();
      throw std::runtime_error(cache.why);
    }
    cache.key = k;
  }
  return *cache.rounds;
}

} // namespace

namespace {

void fail(benchmark::State& state, std::string const& what) {
  record_failure(what);
  state.SkipWithError(what.c_str());
}

/// A format that cannot hold this matrix (F::obstacle, e.g. SellOffset16 offsets beyond 16 bits) or
/// not with 32-bit indices (SELL padding of a power-law graph can exceed 2^31 - 1 stored
/// entries): skipped with a note (once per benchmark), not a failure.
void skip(benchmark::State& state, std::string const& name, char const* why) {
  note_skip(name, why);
  state.SkipWithError((name + ": skipped: " + why).c_str());
}

template <class Scalar>
void common_counters(benchmark::State& state, SpmvSetup<Scalar> const& s) {
  state.counters["rows"] = static_cast<double>(s.rows());
  state.counters["nnz"] = static_cast<double>(s.nnz());
  state.counters["stored"] = static_cast<double>(s.stored());
  state.counters["padding"] = s.padding();
  state.counters["fem_N"] = s.fem_n();
  state.counters["sizeof_scalar"] = sizeof(Scalar);
}

/// What the format model sees (scripts/fit_format_model.py fits its constants from these and
/// time_s): the matrix's features, the variant's cost terms where it has a cost model, and for
/// the automatic format what its choice cost.
template <class Scalar>
void model_counters(benchmark::State& state, SpmvSetup<Scalar>& s,
                    Implementation<Scalar> const& implementation) {
  auto const& f = s.features();
  state.counters["f_mean_row"] = f.rows.mean_row_length;
  state.counters["f_max_row"] = static_cast<double>(f.rows.max_row_length);
  state.counters["f_row_variance"] = f.rows.row_length_variance;
  state.counters["f_hub_mass"] = f.rows.hub_mass;
  state.counters["f_bandwidth"] = static_cast<double>(f.bandwidth());
  state.counters["f_sell_offset16"] = f.sell_offset16_eligible ? 1 : 0;
  state.counters["f_seconds"] = f.seconds;
  if (implementation.estimate) {
    if (auto const e = implementation.estimate(f)) {
      state.counters["model_bytes"] = e->bytes;
      state.counters["model_critical"] = e->critical_entries;
      state.counters["model_rows"] = e->rows;
      state.counters["model_row_spread"] = e->row_spread;
    }
  }
  if (auto const* c = s.runner().selection_costs()) {
    state.counters["select_check_s"] = c->check_seconds;
    state.counters["select_features_s"] = c->features.seconds;
    state.counters["select_conversion_s"] = c->conversion_seconds;
    state.counters["select_tuning_s"] = c->tuning_seconds;
  }
}

/// GB/s and its fractions of the two yardsticks.
void bandwidth_counters(benchmark::State& state, Options const& o, double gbs) {
  state.counters["GB/s"] = gbs;
  state.counters["frac_copy"] = gbs / yardstick_gbs(o, Yardstick::copy);
  state.counters["frac_read"] = gbs / yardstick_gbs(o, Yardstick::read);
}

/// The spmv row's counters for time t of one SpMV.
template <class Scalar>
void spmv_counters(benchmark::State& state, Options const& o, SpmvSetup<Scalar>& s,
                   Implementation<Scalar> const& implementation, double t, int copies,
                   std::string const& more_label = "") {
  const std::string built = s.runner().built_label();
  state.SetLabel(implementation.label + (built.empty() ? "" : ";" + built) + more_label);
  state.counters["time_s"] = t;
  bandwidth_counters(state, o, s.bytes() / t * 1e-9);
  state.counters["GFlop/s"] = 2.0 * static_cast<double>(s.nnz()) / t * 1e-9;
  state.counters["bytes"] = s.bytes();
  state.counters["rotation"] = copies;
  state.counters["check_rel_err"] = s.relative_error();
  common_counters(state, s);
  model_counters(state, s, implementation);
}

/// One repetition of spmv under --rounds: round r's time (the median of its calls), measured
/// beside every other implementation of the matrix (SpmvRounds); repetition r reports round r.
template <class Scalar>
void bm_spmv_round(benchmark::State& state, Options const& o, std::string const& name,
                   MatrixSource const& source, Implementation<Scalar> const& implementation) {
  auto& rounds = spmv_rounds<Scalar>(o, source);
  auto& e = rounds.entry(implementation.name);
  if (!e.skipped.empty()) {
    skip(state, name, e.skipped.c_str());
  } else if (!e.failed.empty()) {
    fail(state, name + ": " + e.failed);
  } else if (!e.setup->ok()) {
    fail(state, name + ": " + e.setup->error());
  } else {
    const std::size_t r = e.next++ % e.times.size();
    for (auto _ : state) state.SetIterationTime(e.times[r]);
    // Fewer copies than the cache wants (memory): a small matrix may be timed partly in cache.
    spmv_counters(state, o, *e.setup, implementation, e.times[r], e.copies,
                  e.cut.empty() ? "" : ";rotation_cut=" + e.cut);
    state.counters["round"] = static_cast<double>(r);
    state.counters["round_calls"] = e.calls[r];
  }
  if (rounds.reported_all()) RoundsCache<Scalar>::get().release();
}

template <class Scalar>
void bm_spmv(benchmark::State& state, Options const& o, std::string const& name,
             MatrixSource const& source, Implementation<Scalar> const& implementation) {
  try {
    if (o.rounds > 0) return bm_spmv_round(state, o, name, source, implementation);
    auto& s = spmv_setup<Scalar>(o, source, implementation);
    if (!s.ok()) return fail(state, name + ": " + s.error());
    const int copies = s.rotation();
    s.ensure_copies(copies);
    const int warmup = std::max(o.warmup, copies);
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
    spmv_counters(state, o, s, implementation, median(times), copies);
  } catch (Unrepresentable const& e) {
    skip(state, name, e.what());
  } catch (std::length_error const& e) {
    skip(state, name, e.what());
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

/// spmv/mixed/<source>/<impl>: the float matrix of copy k with double x and y (mixed-precision
/// spmv: sums in double), checked against Kokkos Kernels native on the same values in double
/// (exact conversions), timed like spmv; bytes under spmv_bytes<double> (vectors of 8 bytes).
template <class Scalar>
void bm_spmv_mixed(benchmark::State& state, Options const& o, std::string const& name,
                   MatrixSource const& source, Implementation<Scalar> const& implementation) {
  try {
    auto& s = spmv_setup<Scalar>(o, source, implementation);
    if (!s.ok()) return fail(state, name + ": " + s.error());
    const int copies = s.rotation();
    s.ensure_copies(copies);
    std::vector<Vector<double>> x, y;
    for (int k = 0; k < copies; ++k) {
      x.push_back(converted<double>(s.x(k), "x_mixed"));
      y.push_back(converted<double>(s.y(k), "y_mixed"));
    }
    // The float matrix's values in double (exact): what the mixed product computes, up to
    // double rounding.
    typename Crs<double>::row_starts_type starts(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::ref_starts")),
        static_cast<std::size_t>(s.rows() + 1));
    typename Crs<double>::column_indices_type columns(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::ref_cols")),
        static_cast<std::size_t>(s.nnz()));
    Kokkos::deep_copy(starts, s.crs_matrix().row_starts());
    Kokkos::deep_copy(columns, s.crs_matrix().column_indices());
    const Crs<double> A(s.rows(), s.cols(), starts, columns,
                        converted<double>(s.crs_matrix().values(), "ref_values"));
    Vector<double> y_ref(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::y_ref")),
        static_cast<std::size_t>(s.rows()));
    KKSpmv<double>(KokkosKernelsAlgorithm::native)
        .apply(Exec(), 1.0, to_kokkos_kernels(A), x[0], 0.0, y_ref);
    if (!s.runner().apply_mixed(0, x[0], y[0])) {
      return skip(state, name, "no mixed-precision SpMV (SpMVKit's float matrices have one)");
    }
    Kokkos::fence();
    const double scale = abs_product_norm<double>(A, x[0]);
    const double err = max_abs_diff<double>(y[0], y_ref);
    const double rel = scale > 0 ? err / scale : err;
    const double tol = check_tolerance<double>(max_row_length<double>(A));
    if (!(rel <= tol)) {
      return fail(state, name + ": result differs from Kokkos Kernels native in double: " +
                             std::to_string(rel) + " > " + std::to_string(tol));
    }
    const int warmup = std::max(o.warmup, copies);
    for (int i = 0; i < warmup; ++i)
      s.runner().apply_mixed(i % copies, x[i % copies], y[i % copies]);
    Kokkos::fence();
    std::vector<double> times;
    int k = 0;
    for (auto _ : state) {
      Kokkos::fence();
      Kokkos::Timer timer;
      s.runner().apply_mixed(k, x[k], y[k]);
      Kokkos::fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
      k = k + 1 == copies ? 0 : k + 1;
    }
    const double t = median(times);
    // spmv_bytes<double>: the format's matrix traffic, x and y in double.
    const double bytes =
        s.runner().bytes().matrix + static_cast<double>(s.rows() + s.cols()) * sizeof(double);
    const std::string built = s.runner().built_label();
    state.SetLabel(implementation.label + (built.empty() ? "" : ";" + built) +
                   ";matrix=float;vectors=double");
    state.counters["time_s"] = t;
    bandwidth_counters(state, o, bytes / t * 1e-9);
    state.counters["GFlop/s"] = 2.0 * static_cast<double>(s.nnz()) / t * 1e-9;
    state.counters["bytes"] = bytes;
    state.counters["rotation"] = copies;
    state.counters["check_rel_err"] = rel;
    common_counters(state, s);
    state.counters["sizeof_vector_scalar"] = sizeof(double);
  } catch (Unrepresentable const& e) {
    skip(state, name, e.what());
  } catch (std::length_error const& e) {
    skip(state, name, e.what());
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

constexpr int spmv_chain = 200;

template <class Scalar>
void bm_spmv200(benchmark::State& state, Options const& o, std::string const& name,
                MatrixSource const& source, Implementation<Scalar> const& implementation) {
  try {
    auto& s = spmv_setup<Scalar>(o, source, implementation);
    if (!s.ok()) return fail(state, name + ": " + s.error());
    for (int i = 0; i < o.warmup; ++i) s.apply(0);
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
    state.SetLabel(implementation.label);
    state.counters["time_s"] = t;
    state.counters["time_per_spmv_s"] = t / spmv_chain;
    bandwidth_counters(state, o, spmv_chain * s.bytes() / t * 1e-9);
    state.counters["GFlop/s"] = spmv_chain * 2.0 * static_cast<double>(s.nnz()) / t * 1e-9;
    state.counters["bytes"] = s.bytes();
    common_counters(state, s);
  } catch (Unrepresentable const& e) {
    skip(state, name, e.what());
  } catch (std::length_error const& e) {
    skip(state, name, e.what());
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

// ----------------------------------------------------------------------------------------------
// Transfer: what one SpMV of the format reads (F::bytes(A).matrix: the format's arrays as the
// byte model counts them), x and y, from host buffers (pageable or pinned) into separately
// allocated device buffers, one deep_copy each.
// ----------------------------------------------------------------------------------------------

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
  explicit Transfer(std::vector<std::size_t> const& sizes) {
    for (std::size_t size : sizes) {
      if (size == 0) continue;
      Kokkos::View<char*, HostSpace> h(
          Kokkos::view_alloc(Kokkos::WithoutInitializing,
                             std::string("SpMVKit::perf::transfer_host")),
          size);
      Kokkos::View<char*, MemSpace> d(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::transfer_"
                                                                      "device")),
          size);
      Kokkos::deep_copy(h, char(1)); // touch every host page before timing
      host_.push_back(h);
      device_.push_back(d);
      bytes += static_cast<double>(size);
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
  std::vector<Kokkos::View<char*, MemSpace>> device_;
};

template <class Scalar>
std::unique_ptr<TransferBase> make_transfer(SpmvSetup<Scalar>& s, HostMemory memory) {
  const SpmvBytes b = s.runner().bytes();
  const std::vector<std::size_t> sizes{static_cast<std::size_t>(b.matrix),
                                       static_cast<std::size_t>(b.x),
                                       static_cast<std::size_t>(b.y)};
  std::unique_ptr<TransferBase> t;
  if (memory == HostMemory::pinned) {
    t = std::make_unique<Transfer<PinnedHostSpace>>(sizes);
  } else {
    t = std::make_unique<Transfer<Kokkos::HostSpace>>(sizes);
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
void bm_transfer(benchmark::State& state, Options const& o, std::string const& name,
                 MatrixSource const& source, Implementation<Scalar> const& implementation,
                 HostMemory memory) {
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
    auto& s = spmv_setup<Scalar>(o, source, implementation);
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
    // A transfer moves the storage: label it with the options the matrix was built with.
    state.SetLabel(s.runner().storage_label(implementation.name));
    state.counters["time_s"] = t;
    state.counters["GB/s"] = transfer->bytes / t * 1e-9;
    state.counters["bytes"] = transfer->bytes;
    state.counters["spmv_time_s"] = transfer->spmv_seconds;
    state.counters["transfer_over_spmv"] = t / transfer->spmv_seconds;
    state.counters["pinned"] = memory == HostMemory::pinned ? 1 : 0;
    common_counters(state, s);
  } catch (Unrepresentable const& e) {
    skip(state, name, e.what());
  } catch (std::length_error const& e) {
    skip(state, name, e.what());
  } catch (std::exception const& e) {
    fail(state, name + ": " + e.what());
  }
}

template <class Scalar>
std::string prefix(char const* family, MatrixSource const& source) {
  return std::string(family) + "/" + precision_name<Scalar>() + "/" + source.name + "/";
}

/// The transfer entries that --transfer-formats selects ("default": each format with its
/// default options).
template <class Scalar>
std::vector<Implementation<Scalar>> selected_transfers(Options const& o) {
  const auto impls = transfer_implementations<Scalar>();
  const auto chosen = select_implementations(o.transfer_formats, impls, "--transfer-formats", true);
  std::vector<Implementation<Scalar>> out;
  for (std::size_t i = 0; i < impls.size(); ++i) {
    if (chosen[i]) out.push_back(impls[i]);
  }
  return out;
}

} // namespace

std::string format_names() {
  std::string spmv, transfer;
  for (auto const& impl : spmv_implementations<double>()) {
    spmv += (spmv.empty() ? "" : ", ") + impl.name;
  }
  for (auto const& impl : transfer_implementations<double>()) {
    if (impl.is_default) transfer += (transfer.empty() ? "" : ", ") + impl.name;
  }
  return "--formats of this build (spmv, spmv200, cg): " + spmv +
         "\n--transfer-formats also accepts each format with its default options: " + transfer +
         "\n";
}

void check_format_selection(Options const& o) {
  select_implementations(o.formats, spmv_implementations<double>(&o), "--formats");
  select_implementations(o.transfer_formats, transfer_implementations<double>(),
                         "--transfer-formats", true);
}

template <class Scalar>
void register_matrix_benchmarks(std::shared_ptr<const Options> const& options,
                                MatrixSource const& source) {
  Options const& o = *options;
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
  // spmv, spmv200 and cg of one implementation follow each other: they share one cached setup.
  const auto impls = spmv_implementations<Scalar>(&o);
  const auto chosen = select_implementations(o.formats, impls, "--formats");
  for (std::size_t i = 0; i < impls.size(); ++i) {
    if (!chosen[i]) continue;
    auto const& impl = impls[i];
    if (source.in_sweep && o.has_family("spmv")) {
      const std::string name = prefix<Scalar>("spmv", source) + impl.name;
      auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                             [options, name, source, impl](benchmark::State& st) {
                                               bm_spmv<Scalar>(st, *options, name, source, impl);
                                             });
      if (o.rounds > 0) {
        // The rounds were timed beforehand (SpmvRounds): each repetition reports one.
        b->UseManualTime()->Iterations(1)->Repetitions(o.rounds)->ReportAggregatesOnly(true)->Unit(
            benchmark::kMicrosecond);
      } else {
        configure(b, benchmark::kMicrosecond, o.repetitions);
      }
    }
    if constexpr (std::is_same_v<Scalar, float>) {
      // Mixed precision: the float matrix with double vectors, beside spmv/double/....
      if (source.in_sweep && o.has_family("spmv_mixed") && !impl.is_reference) {
        const std::string name = "spmv/mixed/" + source.name + "/" + impl.name;
        configure(benchmark::RegisterBenchmark(name.c_str(),
                                               [options, name, source, impl](benchmark::State& st) {
                                                 bm_spmv_mixed<Scalar>(st, *options, name, source,
                                                                       impl);
                                               }),
                  benchmark::kMicrosecond, o.repetitions);
      }
    }
    if (fem && source.in_sweep && o.has_family("spmv200")) {
      const std::string name = prefix<Scalar>("spmv200", source) + impl.name;
      configure(benchmark::RegisterBenchmark(name.c_str(),
                                             [options, name, source, impl](benchmark::State& st) {
                                               bm_spmv200<Scalar>(st, *options, name, source, impl);
                                             }),
                benchmark::kMillisecond, long_repetitions);
    }
    if (fem && source.in_cg && o.has_family("cg") && impl.solves) {
      register_cg_benchmark<Scalar>(options, source, impl);
    }
  }
  if (source.in_sweep && o.has_family("transfer")) {
    for (auto const& impl : selected_transfers<Scalar>(o)) {
      std::vector<std::pair<HostMemory, std::string>> kinds;
      if constexpr (device_is_host) {
        kinds = {{HostMemory::pageable, "host_copy"}};
      } else {
        kinds = {{HostMemory::pageable, "pageable"}, {HostMemory::pinned, "pinned"}};
      }
      for (auto const& kind : kinds) {
        const HostMemory memory = kind.first;
        const std::string name = prefix<Scalar>("transfer", source) + impl.name + "/" + kind.second;
        configure(benchmark::RegisterBenchmark(
                      name.c_str(),
                      [options, name, source, impl, memory](benchmark::State& st) {
                        bm_transfer<Scalar>(st, *options, name, source, impl, memory);
                      }),
                  benchmark::kMillisecond, long_repetitions);
      }
    }
  }
}

template void register_matrix_benchmarks<double>(std::shared_ptr<const Options> const&,
                                                 MatrixSource const&);
template void register_matrix_benchmarks<float>(std::shared_ptr<const Options> const&,
                                                MatrixSource const&);

} // namespace spmvkit::perf
