// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The spgemm benchmark family: C = A A of the FEM matrices (--spgemm-fem-n), R-MAT graphs
// (--spgemm-rmat-scale) and the real matrices, by SpMVKit (spmvkit::spgemm) and by Kokkos
// Kernels (its default algorithm: cuSPARSE on CUDA builds with that TPL), each timed in its
// symbolic phase, its numeric phase (repeated on one structure) and both. Before anything is
// timed, SpMVKit's C is checked against Kokkos Kernels' C: the same structure, and values within
// 4 eps (longest row of A + 2) (|A| |A|)_ij.
//
// Names: spgemm/<precision>/<matrix>/<spmvkit|spmvkit_rows|spmvkit_lists|kk_default|kk_native>/
// <phase>, phase symbolic, numeric or total. kk_native (CUDA builds with cuSPARSE only): Kokkos
// Kernels' own SpGEMM, reached by handing it A with 64-bit offsets, which cuSPARSE's path does not
// take (Kokkos Kernels calls cuSPARSE for 32-bit offsets and ordinals only; Tpetra's size_t
// offsets take the same kernels); its C is checked against SpMVKit's before timing.
// Counters: time_s (median), multiply_adds (the sum over a_ik of nnz(A row k)), GFlop/s
// (2 multiply-adds per median time), nnz_A, nnz_C, compression (multiply-adds per nonzero of C),
// output_bytes (C), and for SpMVKit peak_bytes, team_scratch_bytes, positions_bytes and
// symbolic_workspace_bytes (SpgemmMemory), and lists (1 where the numeric phase sums lists of
// products, SpgemmHandle::keeps_product_lists) and entries (1 where it adds products by entry
// of A, SpgemmPositionEntries).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/operations/spgemm.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit::perf {

namespace {

enum class Phase { symbolic, numeric, total };
char const* phase_name(Phase p) {
  return p == Phase::symbolic ? "symbolic" : p == Phase::numeric ? "numeric" : "total";
}

/// spmvkit: default options (numeric phases from the product positions; on GPUs by entry of A where
/// no row of B is long); spmvkit_rows: the positions' row and chunk kernels on every backend (the
/// state's test hook); spmvkit_lists: SpgemmOptions::product_lists (from lists of products);
/// kk_default: Kokkos Kernels' default SpGEMM; kk_native: its own kernels where the default is
/// a vendor library's.
enum class Impl { spmvkit, spmvkit_rows, spmvkit_lists, kk_default, kk_native };
char const* impl_name(Impl i) {
  return i == Impl::spmvkit         ? "spmvkit"
         : i == Impl::spmvkit_rows  ? "spmvkit_rows"
         : i == Impl::spmvkit_lists ? "spmvkit_lists"
         : i == Impl::kk_default    ? "kk_default"
                                    : "kk_native";
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE)
#define SPMVKIT_PERF_SPGEMM_KK_NATIVE 1
/// A with 64-bit offsets for Kokkos Kernels: its SpGEMM then runs its own kernels.
template <class Scalar>
using KKWideMatrix = kokkos_kernels_matrix_t<CrsMatrix<Scalar, Exec, Ordinal, std::int64_t>>;

struct WidenOffsets {
  Kokkos::View<const Offset*, Device> from;
  Kokkos::View<std::int64_t*, Device> to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) = from(i); }
};

template <class Scalar>
KKWideMatrix<Scalar> with_wide_offsets(Crs<Scalar> const& A) {
  Kokkos::View<std::int64_t*, Device> rs("SpMVKit::perf::wide_row_starts", A.num_rows() + 1);
  Kokkos::parallel_for("SpMVKit::perf::widen_offsets",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           0, static_cast<std::int64_t>(rs.extent(0))),
                       WidenOffsets{A.row_starts(), rs});
  using Graph = typename KKWideMatrix<Scalar>::staticcrsgraph_type;
  return KKWideMatrix<Scalar>("SpMVKit::perf::kk_native_A", A.num_cols(), A.values(),
                              Graph(A.column_indices(), rs));
}
#endif

/// Counts the rows of C where SpMVKit's C and Kokkos Kernels' C differ: other lengths, a column
/// of Kokkos Kernels' row missing from SpMVKit's (sorted) row, or a value farther than
/// tol * (|A||A|)_ij (`bound`, which has SpMVKit's structure) from SpMVKit's.
template <class Scalar, class KKOffset = Offset>
struct CompareProducts {
  Kokkos::View<const Offset*, Device> rs;
  Kokkos::View<const KKOffset*, Device> kk_rs;
  Kokkos::View<const Ordinal*, Device> ci, kk_ci;
  Kokkos::View<const Scalar*, Device> v, kk_v, bound;
  double tol;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, std::int64_t& bad) const {
    const Offset b = rs(i), e = rs(i + 1);
    if (static_cast<std::int64_t>(e - b) != static_cast<std::int64_t>(kk_rs(i + 1) - kk_rs(i))) {
      ++bad;
      return;
    }
    for (KKOffset q = kk_rs(i); q < kk_rs(i + 1); ++q) {
      const Ordinal c = kk_ci(q);
      Offset lo = b, hi = e;
      while (lo < hi) {
        const Offset mid = lo + (hi - lo) / 2;
        if (ci(mid) < c) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      const double d = static_cast<double>(kk_v(q)) - static_cast<double>(v(lo < e ? lo : b));
      if (lo == e || ci(lo) != c || !((d < 0 ? -d : d) <= tol * static_cast<double>(bound(lo)))) {
        ++bad;
        return;
      }
    }
  }
};

template <class Scalar>
struct AbsValues {
  Kokkos::View<Scalar*, Device> v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const { v(k) = v(k) < 0 ? -v(k) : v(k); }
};

/// One matrix's products, kept while its benchmarks run (both implementations, all phases).
template <class Scalar>
struct SpgemmSetup {
  Crs<Scalar> A;
  KKMatrix<Scalar> kk_A;
  SpgemmHandle<Scalar, Exec> handle;
  /// The same product with the positions' row and chunk kernels.
  SpgemmHandle<Scalar, Exec> rows;
  /// The same product with the numeric phase from lists of products.
  SpgemmHandle<Scalar, Exec> lists{lists_options()};
  KokkosKernelsSpgemm<KKMatrix<Scalar>> kk;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  KKWideMatrix<Scalar> kk_wide_A;
  KokkosKernelsSpgemm<KKWideMatrix<Scalar>> kk_native;
#endif
  std::string error;
  /// Why kk_native cannot run here (its own failure skips only its benchmarks).
  std::string kk_native_error;
  /// Why Kokkos Kernels' default SpGEMM cannot run here (cuSPARSE runs out of
  /// resources on R-MAT scale 18 on an H200): only its benchmarks are skipped,
  /// where Kokkos Kernels' own C can check SpMVKit's instead.
  std::string kk_default_error;

  static SpgemmOptions lists_options() {
    SpgemmOptions o;
    o.product_lists = true;
    return o;
  }

  SpgemmSetup(Options const& o, MatrixSource const& source)
      : A(load_matrix<Scalar>(o, source)), kk_A(to_kokkos_kernels(A)) {
    const Exec exec;
    if (A.num_rows() != A.num_cols()) {
      error = "A is not square";
      return;
    }
    rows.state().test_entries = -1;
    for (auto* h : {&handle, &rows, &lists}) {
      spgemm_symbolic(exec, *h, A, A);
      spgemm_numeric(exec, *h, A, A);
    }
    try {
      kk.symbolic(kk_A, kk_A);
      kk.numeric(kk_A, kk_A);
    } catch (std::exception const& e) {
      kk_default_error = std::string("Kokkos Kernels' default SpGEMM failed: ") + e.what();
    }
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    try {
      kk_wide_A = with_wide_offsets(A);
      kk_native.symbolic(kk_wide_A, kk_wide_A);
      kk_native.numeric(kk_wide_A, kk_wide_A);
    } catch (std::exception const& e) {
      kk_native_error = std::string("Kokkos Kernels' own SpGEMM failed: ") + e.what();
    }
#endif
    exec.fence();
    // The bound's matrix |A| |A| has C's structure, sorted like SpMVKit's C.
    Crs<Scalar> abs_A = clone(A);
    Kokkos::parallel_for("SpMVKit::perf::abs",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                             exec, 0, static_cast<std::int64_t>(abs_A.nnz())),
                         AbsValues<Scalar>{abs_A.values()});
    const auto M = spgemm(exec, abs_A, abs_A);
    const double tol = 4.0 * std::numeric_limits<Scalar>::epsilon() *
                       (static_cast<double>(max_row_length(A)) + 2.0);
    // Rows of SpMVKit's C that another implementation's C (other) does not match; -1 where
    // the nnz differ.
    auto mismatches = [&](Crs<Scalar> const& C, auto const& other) {
      using KOffset = typename std::decay_t<decltype(other)>::non_const_size_type;
      if (static_cast<std::int64_t>(C.nnz()) != static_cast<std::int64_t>(other.nnz())) {
        return std::int64_t(-1);
      }
      std::int64_t bad = 0;
      Kokkos::parallel_reduce(
          "SpMVKit::perf::compare_spgemm",
          Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, C.num_rows()),
          CompareProducts<Scalar, KOffset>{C.row_starts(), other.graph.row_map, C.column_indices(),
                                           other.graph.entries, C.values(), other.values,
                                           M.values(), tol},
          bad);
      return bad;
    };
    auto differs = [](char const* what, std::int64_t ours, std::int64_t theirs, std::int64_t bad) {
      return std::string(what) + " (nnz " + std::to_string(theirs) +
             ") differs from SpMVKit's (nnz " + std::to_string(ours) + ")" +
             (bad < 0 ? std::string() : " in " + std::to_string(bad) + " rows");
    };
    // SpMVKit's C of every numeric path against a reference C: Kokkos
    // Kernels' default's, else its own kernels'.
    auto check = [&](auto const& K, char const* who) {
      for (auto const* h : {&handle, &rows, &lists}) {
        auto const& C = h->matrix();
        if (const auto bad = mismatches(C, K); bad != 0) {
          error = differs(who, C.nnz(), K.nnz(), bad) + (h == &lists  ? " (SpMVKit's lists)"
                                                         : h == &rows ? " (SpMVKit's row kernels)"
                                                                      : "");
          return false;
        }
      }
      return true;
    };
    if (kk_default_error.empty()) {
      if (!check(kk.matrix(), "Kokkos Kernels' C")) return;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
      // Kokkos Kernels' own C against SpMVKit's, which matched the default's above.
      if (kk_native_error.empty()) {
        auto const& W = kk_native.matrix();
        if (const auto bad = mismatches(handle.matrix(), W); bad != 0) {
          kk_native_error = differs("Kokkos Kernels' own C", handle.matrix().nnz(), W.nnz(), bad);
        }
      }
#endif
      return;
    }
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    if (kk_native_error.empty()) {
      if (check(kk_native.matrix(), "Kokkos Kernels' own C") == false) kk_native_error = error;
      return;
    }
#endif
    error = kk_default_error + "; no other reference to check SpMVKit's C against" +
            (kk_native_error.empty() ? std::string() : " (" + kk_native_error + ")");
  }
};

template <class Scalar>
SpgemmSetup<Scalar>& spgemm_setup(Options const& o, MatrixSource const& source) {
  static std::unique_ptr<SpgemmSetup<Scalar>> setup;
  static std::string key;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] {
      setup.reset();
      key.clear();
    });
  }
  const std::string k = source.name + "|" + source.path;
  if (!setup || key != k) {
    setup.reset();
    key.clear();
    setup = std::make_unique<SpgemmSetup<Scalar>>(o, source);
    key = k;
  }
  return *setup;
}

template <class Scalar>
void bm_spgemm(benchmark::State& state, Options const& o, std::string const& name,
               MatrixSource const& source, Impl impl, Phase phase) {
  const bool ours = impl != Impl::kk_default && impl != Impl::kk_native;
  try {
    auto& s = spgemm_setup<Scalar>(o, source);
    auto const& error = impl == Impl::kk_native    ? s.kk_native_error
                        : impl == Impl::kk_default ? s.kk_default_error
                                                   : s.error;
    if (!s.error.empty() || !error.empty()) {
      const std::string why = s.error.empty() ? error : s.error;
      record_failure(name + ": " + why);
      state.SkipWithError((name + ": " + why).c_str());
      return;
    }
    const Exec exec;
    // Each iteration's product replaces the previous one, so at most two are alive at once.
    SpgemmHandle<Scalar, Exec> handle;
    KokkosKernelsSpgemm<KKMatrix<Scalar>> kk;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    KokkosKernelsSpgemm<KKWideMatrix<Scalar>> kk_native;
#endif
    auto& kept = impl == Impl::spmvkit_lists  ? s.lists
                 : impl == Impl::spmvkit_rows ? s.rows
                                              : s.handle;
    auto run = [&] {
      if (ours) {
        if (phase == Phase::numeric) {
          spgemm_numeric(exec, kept, s.A, s.A);
          return;
        }
        handle = SpgemmHandle<Scalar, Exec>(kept.options());
        handle.state().test_entries = kept.state().test_entries;
        spgemm_symbolic(exec, handle, s.A, s.A);
        if (phase == Phase::total) spgemm_numeric(exec, handle, s.A, s.A);
      } else if (impl == Impl::kk_default) {
        if (phase == Phase::numeric) {
          s.kk.numeric(s.kk_A, s.kk_A);
          return;
        }
        kk.symbolic(s.kk_A, s.kk_A);
        if (phase == Phase::total) kk.numeric(s.kk_A, s.kk_A);
      } else {
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
        if (phase == Phase::numeric) {
          s.kk_native.numeric(s.kk_wide_A, s.kk_wide_A);
          return;
        }
        kk_native.symbolic(s.kk_wide_A, s.kk_wide_A);
        if (phase == Phase::total) kk_native.numeric(s.kk_wide_A, s.kk_wide_A);
#endif
      }
    };
    for (int i = 0; i < std::max(1, o.warmup); ++i) run();
    exec.fence();
    std::vector<double> times;
    for (auto _ : state) {
      exec.fence();
      Kokkos::Timer timer;
      run();
      exec.fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    const auto madds = static_cast<double>(s.handle.multiply_adds());
    state.SetLabel(std::string(ours ? "family=spgemm;format=" : "family=kk;format=") +
                   impl_name(impl) + ";phase=" + phase_name(phase));
    state.counters["time_s"] = t;
    state.counters["rows"] = static_cast<double>(s.A.num_rows());
    state.counters["nnz_A"] = static_cast<double>(s.A.nnz());
    state.counters["nnz_C"] = static_cast<double>(s.handle.nnz());
    state.counters["multiply_adds"] = madds;
    state.counters["compression"] = s.handle.compression_ratio();
    state.counters["fem_N"] = source.fem_n;
    state.counters["sizeof_scalar"] = sizeof(Scalar);
    state.counters["output_bytes"] = static_cast<double>(s.handle.memory().output_bytes);
    if (phase != Phase::symbolic) state.counters["GFlop/s"] = t > 0 ? 2.0 * madds / t / 1e9 : 0.0;
    if (ours) {
      state.counters["peak_bytes"] = static_cast<double>(kept.memory().peak_bytes);
      state.counters["team_scratch_bytes"] = static_cast<double>(kept.memory().team_scratch_bytes);
      state.counters["positions_bytes"] = static_cast<double>(kept.memory().positions_bytes);
      state.counters["lists"] = kept.keeps_product_lists() ? 1.0 : 0.0;
      state.counters["entries"] = kept.state().entry_c_start.extent(0) > 0 ? 1.0 : 0.0;
      state.counters["symbolic_workspace_bytes"] =
          static_cast<double>(kept.memory().symbolic_workspace_bytes);
      auto const bins = kept.row_bins();
      state.counters["rows_narrow"] = static_cast<double>(bins.narrow);
      state.counters["rows_hash"] = static_cast<double>(bins.hash);
      state.counters["rows_dense"] = static_cast<double>(bins.dense);
      state.counters["rows_global"] = static_cast<double>(bins.global);
    }
  } catch (std::exception const& e) {
    record_failure(name + ": " + e.what());
    state.SkipWithError((name + ": " + e.what()).c_str());
  }
}

} // namespace

template <class Scalar>
void register_spgemm_benchmarks(std::shared_ptr<const Options> const& options,
                                MatrixSource const& source) {
  Options const& o = *options;
  if (!source.in_spgemm || !o.has_family("spgemm")) return;
  std::vector<Impl> impls{Impl::spmvkit, Impl::spmvkit_rows, Impl::spmvkit_lists, Impl::kk_default};
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  impls.push_back(Impl::kk_native);
#endif
  for (Impl impl : impls) {
    for (Phase phase : {Phase::symbolic, Phase::numeric, Phase::total}) {
      const std::string name = std::string("spgemm/") + precision_name<Scalar>() + "/" +
                               source.name + "/" + impl_name(impl) + "/" + phase_name(phase);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [options, name, source, impl, phase](benchmark::State& st) {
                                     bm_spgemm<Scalar>(st, *options, name, source, impl, phase);
                                   })
          ->UseManualTime()
          ->MinTime(o.min_time)
          ->Repetitions(std::min(o.repetitions, 3))
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

template void register_spgemm_benchmarks<double>(std::shared_ptr<const Options> const&,
                                                 MatrixSource const&);
template void register_spgemm_benchmarks<float>(std::shared_ptr<const Options> const&,
                                                MatrixSource const&);

} // namespace spmvkit::perf
