// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The spgemm benchmark family: C = A A of the FEM matrices (--spgemm-fem-n), R-MAT graphs
// (--spgemm-rmat-scale) and the real matrices, by SpMVKit (spmvkit::spgemm) and by Kokkos
// Kernels (its default algorithm: cuSPARSE on CUDA builds with that TPL), each timed in its
// symbolic phase, its numeric phase (repeated on one structure) and both. Before anything is
// timed, SpMVKit's C is checked against Kokkos Kernels' C: the same structure, and values within
// 4 eps (longest row of A + 2) (|A| |A|)_ij; where neither Kokkos Kernels path can compute C
// (cuSPARSE out of resources, Kokkos Kernels out of memory), against a long-double host product
// of up to 4097 sampled rows. The label's checked_against= says which (kk_default, kk_native,
// host_rows_<rows>), numeric= the numeric strategy that ran. A Kokkos Kernels path that cannot
// run is reported on its own benchmarks (skipped with its error) without failing the run.
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
//
// The galerkin family (--families=galerkin, the --spgemm-fem-n matrices): Pᵀ A P on every level of
// make_amg's hierarchy, names galerkin/<precision>/<matrix>/<spmvkit|kk_default>/<numeric|total>;
// spmvkit is triple_product (A P, then R (A P), handles kept), kk_default two Kokkos Kernels
// SpGEMMs in the same order. Counters: time_s, levels, multiply_adds (both products, every
// level), nnz_coarse, GFlop/s, kept_bytes (SpMVKit's handles).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/spgemm/spgemm.hpp>
#include <spmvkit/spgemm/triple_product.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit::perf {

namespace {

enum class Phase { symbolic, numeric, total };

/// Times `run` in the benchmark's loop: o.warmup calls first, then each iteration fenced before
/// and after. Returns the median of the iterations (each also given to Google Benchmark).
template <class Run>
double time_fenced(benchmark::State& state, Options const& o, Run const& run) {
  const Exec exec;
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
  return median(times);
}
char const* phase_name(Phase p) {
  return p == Phase::symbolic ? "symbolic" : p == Phase::numeric ? "numeric" : "total";
}

/// spmvkit: default options (numeric phases from the product positions; on GPUs by entry of A where
/// no row of B is long); spmvkit_rows: SpgemmNumeric::positions (the positions' row and chunk
/// kernels on every backend); spmvkit_lists: SpgemmNumeric::product_lists;
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

/// |M|, a copy: products of them bound the rounding errors of products of the originals.
template <class Scalar>
Crs<Scalar> absolute(Exec const& exec, Crs<Scalar> const& M) {
  Crs<Scalar> a = clone(M);
  Kokkos::parallel_for("SpMVKit::perf::abs",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, static_cast<std::int64_t>(a.nnz())),
                       AbsValues<Scalar>{a.values()});
  return a;
}

/// SpMVKit's C = A A checked on a sample of its rows against a long-double host product, for
/// products where no Kokkos Kernels path gives a C (cuSPARSE out of resources, Kokkos Kernels
/// out of memory): every row up to 4096 rows, else 4096 evenly spaced rows and the row of A with
/// the most products. Only the sampled rows of C are copied to the host. Returns what differs
/// ("" where nothing does); `rows` gets the number of rows checked.
template <class Scalar>
std::string check_row_sample(Crs<Scalar> const& A, Crs<Scalar> const& C, std::int64_t& rows) {
  const auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  const auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const auto crs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.row_starts());
  const std::int64_t m = A.num_rows();
  std::vector<std::int64_t> sample;
  constexpr std::int64_t most = 4096;
  std::int64_t busiest = 0, busiest_products = -1;
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t products = 0;
    for (auto k = rs(i); k < rs(i + 1); ++k) products += rs(ci(k) + 1) - rs(ci(k));
    if (products > busiest_products) busiest = i, busiest_products = products;
    if (m <= most || i % ((m + most - 1) / most) == 0) sample.push_back(i);
  }
  if (m > most) sample.push_back(busiest);
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  std::map<Ordinal, std::pair<long double, long double>> row;
  for (const std::int64_t i : sample) {
    row.clear();
    for (auto k = rs(i); k < rs(i + 1); ++k) {
      const auto r = ci(k);
      for (auto q = rs(r); q < rs(r + 1); ++q) {
        const long double p = static_cast<long double>(v(k)) * static_cast<long double>(v(q));
        auto& e = row[ci(q)];
        e.first += p;
        e.second += p < 0 ? -p : p;
      }
    }
    const auto range =
        Kokkos::make_pair(static_cast<std::int64_t>(crs(i)), static_cast<std::int64_t>(crs(i + 1)));
    const auto cc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                        Kokkos::subview(C.column_indices(), range));
    const auto cv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                        Kokkos::subview(C.values(), range));
    const std::string where = "row " + std::to_string(i) + " of C";
    if (static_cast<std::size_t>(cc.extent(0)) != row.size()) {
      return where + " has " + std::to_string(cc.extent(0)) + " entries, the host product " +
             std::to_string(row.size());
    }
    const double tol = 4.0 * eps * static_cast<double>(rs(i + 1) - rs(i) + 2);
    std::size_t j = 0;
    for (auto const& [c, e] : row) {
      const double d = static_cast<double>(cv(j)) - static_cast<double>(e.first);
      if (cc(j) != c || !((d < 0 ? -d : d) <= tol * static_cast<double>(e.second))) {
        return where + ", entry " + std::to_string(j) + ": column " + std::to_string(cc(j)) +
               ", value " + std::to_string(static_cast<double>(cv(j))) + "; the host product's " +
               std::to_string(c) + ", " + std::to_string(static_cast<double>(e.first));
      }
      ++j;
    }
  }
  rows = static_cast<std::int64_t>(sample.size());
  return "";
}

/// One matrix's products, kept while its benchmarks run (both implementations, all phases).
template <class Scalar>
struct SpgemmSetup {
  Crs<Scalar> A;
  KKMatrix<Scalar> kk_A;
  SpgemmHandle<Scalar, Exec> handle;
  /// The same product with the positions' row and chunk kernels.
  SpgemmHandle<Scalar, Exec> rows{options_for(SpgemmNumeric::positions)};
  /// The same product with the numeric phase from lists of products.
  SpgemmHandle<Scalar, Exec> lists{options_for(SpgemmNumeric::product_lists)};
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
  /// Whether the Kokkos Kernels paths failed to run (not: ran and differ from SpMVKit's C). A
  /// reference that cannot run is reported on its benchmarks and does not fail the run.
  bool kk_default_failed = false, kk_native_failed = false;
  /// What SpMVKit's C was checked against (a label field).
  std::string reference = "kk_default";

  static SpgemmOptions options_for(SpgemmNumeric numeric) {
    SpgemmOptions o;
    o.numeric = numeric;
    return o;
  }

  SpgemmSetup(Options const& o, MatrixSource const& source)
      : A(load_matrix<Scalar>(o, source)), kk_A(to_kokkos_kernels(A)) {
    const Exec exec;
    if (A.num_rows() != A.num_cols()) {
      error = "A is not square";
      return;
    }
    for (auto* h : {&handle, &rows, &lists}) {
      spgemm_symbolic(exec, *h, A, A);
      spgemm_numeric(exec, *h, A, A);
    }
    try {
      kk.symbolic(kk_A, kk_A);
      kk.numeric(kk_A, kk_A);
    } catch (std::exception const& e) {
      kk_default_error = std::string("Kokkos Kernels' default SpGEMM failed: ") + e.what();
      kk_default_failed = true;
    }
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    try {
      kk_wide_A = with_wide_offsets(A);
      kk_native.symbolic(kk_wide_A, kk_wide_A);
      kk_native.numeric(kk_wide_A, kk_wide_A);
    } catch (std::exception const& e) {
      kk_native_error = std::string("Kokkos Kernels' own SpGEMM failed: ") + e.what();
      kk_native_failed = true;
    }
#endif
    exec.fence();
    // The bound's matrix |A| |A| has C's structure, sorted like SpMVKit's C.
    const Crs<Scalar> abs_A = absolute(exec, A);
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
      reference = "kk_native";
      if (check(kk_native.matrix(), "Kokkos Kernels' own C") == false) kk_native_error = error;
      return;
    }
#endif
    // No Kokkos Kernels C: a sample of rows against the host.
    for (auto const* h : {&handle, &rows, &lists}) {
      std::int64_t checked = 0;
      const std::string bad = check_row_sample(A, h->matrix(), checked);
      if (!bad.empty()) {
        error = kk_default_error + "; SpMVKit's C (" + to_string(h->numeric_algorithm()) +
                ") against a host product of sampled rows: " + bad;
        return;
      }
      reference = "host_rows_" + std::to_string(checked);
    }
  }
};

/// The setup of one matrix, kept while its benchmarks run (they run in a row) and dropped by
/// the cleanups before Kokkos is finalized: SpgemmSetup, GalerkinSetup.
template <class Setup>
Setup& cached_setup(Options const& o, MatrixSource const& source) {
  static std::unique_ptr<Setup> setup;
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
    setup = std::make_unique<Setup>(o, source);
    key = k;
  }
  return *setup;
}

template <class Scalar>
void bm_spgemm(benchmark::State& state, Options const& o, std::string const& name,
               MatrixSource const& source, Impl impl, Phase phase) {
  const bool ours = impl != Impl::kk_default && impl != Impl::kk_native;
  try {
    auto& s = cached_setup<SpgemmSetup<Scalar>>(o, source);
    auto const& error = impl == Impl::kk_native    ? s.kk_native_error
                        : impl == Impl::kk_default ? s.kk_default_error
                                                   : s.error;
    if (!s.error.empty() || !error.empty()) {
      const std::string why = s.error.empty() ? error : s.error;
      // A reference library that cannot run this product is reported, not a failure.
      const bool reference_failed =
          s.error.empty() && ((impl == Impl::kk_default && s.kk_default_failed) ||
                              (impl == Impl::kk_native && s.kk_native_failed));
      if (!reference_failed) record_failure(name + ": " + why);
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
    const double t = time_fenced(state, o, run);
    const auto madds = static_cast<double>(s.handle.multiply_adds());
    state.SetLabel(std::string(ours ? "family=spgemm;format=" : "family=kk;format=") +
                   impl_name(impl) + ";phase=" + phase_name(phase) +
                   (ours ? ";numeric=" + std::string(to_string(kept.numeric_algorithm())) +
                               ";checked_against=" + s.reference
                         : std::string()));
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
      state.counters["entries"] = kept.numeric_algorithm() == SpgemmNumeric::entries ? 1.0 : 0.0;
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

/// The galerkin family: Pᵀ A P on every level of make_amg's hierarchy of a FEM matrix (default
/// AmgOptions), by SpMVKit's triple_product and by two Kokkos Kernels SpGEMMs (A P, then R (A P);
/// its default algorithm, cuSPARSE on CUDA with that TPL), all levels in one timed call. Before
/// timing, each level's R A P of both is compared: the same structure, values within
/// 8 eps (longest rows of R and A + 2) (|R| |A| |P|)_ij.
template <class Scalar>
struct GalerkinSetup {
  struct Level {
    Crs<Scalar> A, P, R;
    KKMatrix<Scalar> kA, kP, kR;
    TripleProductHandle<Scalar, Exec> ours;
    KokkosKernelsSpgemm<KKMatrix<Scalar>> ap, rap;
  };
  std::vector<std::unique_ptr<Level>> levels;
  std::int64_t multiply_adds = 0, nnz_coarse = 0;
  std::uint64_t kept_bytes = 0;
  /// error: SpMVKit's products or the hierarchy are wrong (both implementations fail);
  /// kk_error: Kokkos Kernels could not run (its benchmarks skip, not a failure), so that
  /// SpMVKit's products stay unchecked (ours_error); nothing: no product to time.
  std::string error, kk_error, ours_error, nothing;

  GalerkinSetup(Options const& o, MatrixSource const& source) {
    const Exec exec;
    Crs<Scalar> const& A0 = load_matrix<Scalar>(o, source);
    const auto amg = make_amg(exec, A0);
    for (int l = 0; l + 1 < amg.num_levels(); ++l) {
      auto L = std::make_unique<Level>();
      L->A = amg.matrix(l);
      L->P = amg.prolongator(l);
      L->R = amg.restriction(l);
      L->kA = to_kokkos_kernels(L->A);
      L->kP = to_kokkos_kernels(L->P);
      L->kR = to_kokkos_kernels(L->R);
      triple_product_symbolic(exec, L->ours, L->R, L->A, L->P);
      triple_product_numeric(exec, L->ours, L->R, L->A, L->P);
      multiply_adds += L->ours.multiply_adds();
      nnz_coarse += L->ours.matrix().nnz();
      kept_bytes += L->ours.kept_bytes();
      try {
        L->ap.symbolic(L->kA, L->kP);
        L->ap.numeric(L->kA, L->kP);
        L->rap.symbolic(L->kR, L->ap.matrix());
        L->rap.numeric(L->kR, L->ap.matrix());
      } catch (std::exception const& e) {
        kk_error = std::string("Kokkos Kernels' SpGEMM failed: ") + e.what();
      }
      levels.push_back(std::move(L));
    }
    exec.fence();
    if (levels.empty()) {
      const std::string what = "the hierarchy of " + std::to_string(A0.num_rows()) +
                               " rows has one level: no Galerkin product to time";
      // Not a failure at or below AmgOptions::coarse_size (the smoke run's matrix); above, the
      // hierarchy should have coarsened.
      (A0.num_rows() <= AmgOptions().coarse_size ? nothing : error) = what;
      return;
    }
    // Kokkos Kernels unable to run: its benchmarks report it; SpMVKit's cannot run unchecked.
    if (!kk_error.empty()) {
      ours_error = kk_error + "; nothing to check SpMVKit's R A P against";
      return;
    }
    for (std::size_t l = 0; l < levels.size(); ++l) {
      Level const& L = *levels[l];
      const auto M =
          triple_product(exec, absolute(exec, L.R), absolute(exec, L.A), absolute(exec, L.P));
      const double tol = 8.0 * std::numeric_limits<Scalar>::epsilon() *
                         (static_cast<double>(max_row_length(L.R)) +
                          static_cast<double>(max_row_length(L.A)) + 2.0);
      auto const& C = L.ours.matrix();
      auto const& K = L.rap.matrix();
      std::int64_t bad = -1;
      if (static_cast<std::int64_t>(C.nnz()) == static_cast<std::int64_t>(K.nnz())) {
        bad = 0;
        Kokkos::parallel_reduce(
            "SpMVKit::perf::compare_galerkin",
            Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, C.num_rows()),
            CompareProducts<Scalar>{C.row_starts(), K.graph.row_map, C.column_indices(),
                                    K.graph.entries, C.values(), K.values, M.values(), tol},
            bad);
      }
      if (bad != 0) {
        error = "level " + std::to_string(l) + ": Kokkos Kernels' R (A P) (nnz " +
                std::to_string(K.nnz()) + ") differs from SpMVKit's (nnz " +
                std::to_string(C.nnz()) + ")" +
                (bad < 0 ? std::string() : " in " + std::to_string(bad) + " rows");
        return;
      }
    }
  }
};

template <class Scalar>
void bm_galerkin(benchmark::State& state, Options const& o, std::string const& name,
                 MatrixSource const& source, Impl impl, Phase phase) {
  const bool ours = impl == Impl::spmvkit;
  try {
    auto& s = cached_setup<GalerkinSetup<Scalar>>(o, source);
    if (!s.nothing.empty()) {
      state.SkipWithError((name + ": " + s.nothing).c_str());
      return;
    }
    const std::string why = !s.error.empty() ? s.error : ours ? s.ours_error : s.kk_error;
    if (!why.empty()) {
      if (!s.error.empty() || ours) record_failure(name + ": " + why);
      state.SkipWithError((name + ": " + why).c_str());
      return;
    }
    const Exec exec;
    std::vector<TripleProductHandle<Scalar, Exec>> handles(s.levels.size());
    std::vector<KokkosKernelsSpgemm<KKMatrix<Scalar>>> ap(s.levels.size()), rap(s.levels.size());
    auto run = [&] {
      for (std::size_t l = 0; l < s.levels.size(); ++l) {
        auto& L = *s.levels[l];
        if (ours) {
          if (phase == Phase::numeric) {
            triple_product_numeric(exec, L.ours, L.R, L.A, L.P);
          } else {
            handles[l] = TripleProductHandle<Scalar, Exec>();
            triple_product_symbolic(exec, handles[l], L.R, L.A, L.P);
            triple_product_numeric(exec, handles[l], L.R, L.A, L.P);
          }
        } else if (phase == Phase::numeric) {
          L.ap.numeric(L.kA, L.kP);
          L.rap.numeric(L.kR, L.ap.matrix());
        } else {
          ap[l].symbolic(L.kA, L.kP);
          ap[l].numeric(L.kA, L.kP);
          rap[l].symbolic(L.kR, ap[l].matrix());
          rap[l].numeric(L.kR, ap[l].matrix());
        }
      }
    };
    const double t = time_fenced(state, o, run);
    const auto madds = static_cast<double>(s.multiply_adds);
    state.SetLabel(std::string(ours ? "family=galerkin;format=" : "family=kk;format=") +
                   impl_name(impl) + ";phase=" + phase_name(phase));
    state.counters["time_s"] = t;
    state.counters["levels"] = static_cast<double>(s.levels.size());
    state.counters["rows"] = static_cast<double>(s.levels.front()->A.num_rows());
    state.counters["multiply_adds"] = madds;
    state.counters["nnz_coarse"] = static_cast<double>(s.nnz_coarse);
    state.counters["fem_N"] = source.fem_n;
    state.counters["sizeof_scalar"] = sizeof(Scalar);
    state.counters["GFlop/s"] = t > 0 ? 2.0 * madds / t / 1e9 : 0.0;
    if (ours) state.counters["kept_bytes"] = static_cast<double>(s.kept_bytes);
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
  auto add = [&](std::string const& name, auto const& bench) {
    benchmark::RegisterBenchmark(name.c_str(), bench)
        ->UseManualTime()
        ->MinTime(o.min_time)
        ->Repetitions(std::min(o.repetitions, 3))
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  };
  if (source.in_spgemm && source.kind == MatrixSource::Kind::fem && o.has_family("galerkin")) {
    for (Impl impl : {Impl::spmvkit, Impl::kk_default}) {
      for (Phase phase : {Phase::numeric, Phase::total}) {
        const std::string name = std::string("galerkin/") + precision_name<Scalar>() + "/" +
                                 source.name + "/" + impl_name(impl) + "/" + phase_name(phase);
        add(name, [options, name, source, impl, phase](benchmark::State& st) {
          bm_galerkin<Scalar>(st, *options, name, source, impl, phase);
        });
      }
    }
  }
  if (!source.in_spgemm || !o.has_family("spgemm")) return;
  std::vector<Impl> impls{Impl::spmvkit, Impl::spmvkit_rows, Impl::spmvkit_lists, Impl::kk_default};
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  impls.push_back(Impl::kk_native);
#endif
  for (Impl impl : impls) {
    for (Phase phase : {Phase::symbolic, Phase::numeric, Phase::total}) {
      const std::string name = std::string("spgemm/") + precision_name<Scalar>() + "/" +
                               source.name + "/" + impl_name(impl) + "/" + phase_name(phase);
      add(name, [options, name, source, impl, phase](benchmark::State& st) {
        bm_spgemm<Scalar>(st, *options, name, source, impl, phase);
      });
    }
  }
}

template void register_spgemm_benchmarks<double>(std::shared_ptr<const Options> const&,
                                                 MatrixSource const&);
template void register_spgemm_benchmarks<float>(std::shared_ptr<const Options> const&,
                                                MatrixSource const&);

} // namespace spmvkit::perf
