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
// SpMVKit's variants are made one at a time, each replacing the previous (its phases run on that
// product), so that a product that fills most of the device's memory can run: the label's
// offsets=64 marks products run with 64-bit offsets (--spgemm-offsets; by default where the
// multiply-adds exceed 32-bit offsets), where Kokkos Kernels' default SpGEMM is not run and its
// own is no reference: sampled host rows check SpMVKit's C, and Kokkos Kernels' own product is
// made by its benchmarks after SpMVKit's is released (an nnz other than SpMVKit's is its failure).
//
// Names: spgemm/<precision>/<matrix>/<spmvkit|spmvkit_rows|spmvkit_lists|kk_default|kk_native>/
// <phase>, phase symbolic, numeric or total. kk_native (CUDA builds with cuSPARSE only): Kokkos
// Kernels' own SpGEMM, reached by handing it A with 64-bit offsets, which cuSPARSE's path does not
// take (Kokkos Kernels calls cuSPARSE for 32-bit offsets and ordinals only; Tpetra's size_t
// offsets take the same kernels); its C is checked against SpMVKit's before timing (with 64-bit
// offsets its nnz only).
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
#include <typeinfo>
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

/// Row starts copied into a wider offset type.
template <class Off>
struct WidenOffsets {
  Kokkos::View<const Offset*, Device> from;
  Kokkos::View<Off*, Device> to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) = from(i); }
};

/// SpMVKit's products in 32-bit offsets, or in 64-bit ones where C may outgrow them
/// (--spgemm-offsets): A's row starts widened, its columns and values shared.
template <class Scalar, class Off>
using SpgemmCrs = CrsMatrix<Scalar, Exec, Ordinal, Off>;

template <class Off, class Scalar>
SpgemmCrs<Scalar, Off> with_offsets(Crs<Scalar> const& A) {
  if constexpr (std::is_same_v<Off, Offset>) {
    return A;
  } else {
    Kokkos::View<Off*, Device> rs("SpMVKit::perf::wide_row_starts", A.num_rows() + 1);
    Kokkos::parallel_for("SpMVKit::perf::widen_offsets",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                             0, static_cast<std::int64_t>(rs.extent(0))),
                         WidenOffsets<Off>{A.row_starts(), rs});
    return SpgemmCrs<Scalar, Off>(A.num_rows(), A.num_cols(), rs, A.column_indices(), A.values());
  }
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE)
#define SPMVKIT_PERF_SPGEMM_KK_NATIVE 1
/// A with 64-bit offsets for Kokkos Kernels: its SpGEMM then runs its own kernels.
template <class Scalar>
using KKWideMatrix = kokkos_kernels_matrix_t<CrsMatrix<Scalar, Exec, Ordinal, std::int64_t>>;

template <class Scalar>
KKWideMatrix<Scalar> with_wide_offsets(Crs<Scalar> const& A) {
  const auto W = with_offsets<std::int64_t>(A);
  using Graph = typename KKWideMatrix<Scalar>::staticcrsgraph_type;
  return KKWideMatrix<Scalar>("SpMVKit::perf::kk_native_A", A.num_cols(), A.values(),
                              Graph(A.column_indices(), W.row_starts()));
}
#endif

/// Counts the rows of C where SpMVKit's C and Kokkos Kernels' C differ: other lengths, a column
/// of Kokkos Kernels' row missing from SpMVKit's (sorted) row, or a value farther than
/// tol * (|A||A|)_ij (`bound`, which has SpMVKit's structure) from SpMVKit's.
template <class Scalar, class KKOffset = Offset, class OurOffset = Offset>
struct CompareProducts {
  Kokkos::View<const OurOffset*, Device> rs;
  Kokkos::View<const KKOffset*, Device> kk_rs;
  Kokkos::View<const Ordinal*, Device> ci, kk_ci;
  Kokkos::View<const Scalar*, Device> v, kk_v, bound;
  double tol;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, std::int64_t& bad) const {
    const OurOffset b = rs(i), e = rs(i + 1);
    if (static_cast<std::int64_t>(e - b) != static_cast<std::int64_t>(kk_rs(i + 1) - kk_rs(i))) {
      ++bad;
      return;
    }
    for (KKOffset q = kk_rs(i); q < kk_rs(i + 1); ++q) {
      const Ordinal c = kk_ci(q);
      OurOffset lo = b, hi = e;
      while (lo < hi) {
        const OurOffset mid = lo + (hi - lo) / 2;
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
template <class Scalar, class C_type>
std::string check_row_sample(Crs<Scalar> const& A, C_type const& C, std::int64_t& rows) {
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

/// A bound on nnz(A A): per row, its multiply-adds (the sum over a_ik of nnz(A row k)), at
/// most n.
struct ProductBound {
  Kokkos::View<const Offset*, Device> rs;
  Kokkos::View<const Ordinal*, Device> ci;
  std::int64_t n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, std::int64_t& sum) const {
    std::int64_t row = 0;
    for (Offset k = rs(i); k < rs(i + 1); ++k) {
      row += static_cast<std::int64_t>(rs(ci(k) + 1) - rs(ci(k)));
    }
    sum += row < n ? row : n;
  }
};

/// Whether A A runs with 64-bit offsets: --spgemm-offsets=64, or auto where a bound on nnz(C)
/// (ProductBound) exceeds what 32-bit offsets hold (R-MAT scale 20:
/// docs/notes/2026-12-02-spgemm-large-products.md).
template <class Scalar>
bool wide_spgemm(Options const& o, MatrixSource const& source) {
  if (o.spgemm_offsets != "auto") return o.spgemm_offsets == "64";
  Crs<Scalar> const& A = load_matrix<Scalar>(o, source);
  if (A.num_rows() != A.num_cols()) return false;
  std::int64_t bound = 0;
  Kokkos::parallel_reduce("SpMVKit::perf::product_bound",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(0, A.num_rows()),
                          ProductBound{A.row_starts(), A.column_indices(), A.num_cols()}, bound);
  return bound > static_cast<std::int64_t>(std::numeric_limits<Offset>::max());
}

/// One matrix's product, kept while its benchmarks run: the Kokkos Kernels references, computed
/// first (with 64-bit offsets, Kokkos Kernels' own product only by its benchmarks, last), and
/// SpMVKit's handle of one variant at a time (made and checked when its benchmarks start, replacing
/// the previous variant's), so that no two of SpMVKit's products are held at once (R-MAT scale 20's
/// C alone fills most of an H200); only a check against a Kokkos Kernels C makes a second, |A| |A|,
/// for the bound, while one exists.
template <class Scalar, class Off>
struct SpgemmSetup {
  using Handle = SpgemmHandle<Scalar, Exec, Ordinal, Off>;
  Crs<Scalar> A32;
  SpgemmCrs<Scalar, Off> A;
  KKMatrix<Scalar> kk_A;
  KokkosKernelsSpgemm<KKMatrix<Scalar>> kk;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  KKWideMatrix<Scalar> kk_wide_A;
  KokkosKernelsSpgemm<KKWideMatrix<Scalar>> kk_native;
#endif
  /// The product's sizes (SpMVKit's default variant), for every benchmark's counters.
  std::int64_t multiply_adds = 0, nnz = 0;
  double compression = 0;
  std::uint64_t output_bytes = 0;
  /// The variant held (valid where `held`) and why it failed ("" where it did not).
  Handle handle;
  Impl held_impl = Impl::spmvkit;
  bool held = false;
  std::string held_error;
  /// The matrix, or SpMVKit's default variant, failed (every benchmark of it fails).
  std::string error;
  /// Why kk_native cannot run here (its own failure skips only its benchmarks).
  std::string kk_native_error;
  /// Products with 64-bit offsets: Kokkos Kernels' own product is not a reference. Its
  /// benchmarks make it once SpMVKit's is released (`kk_native_made`), since the two Cs may not
  /// fit together, and an nnz other than SpMVKit's is reported as its failure.
  bool kk_native_deferred = false, kk_native_made = false;
  /// Why Kokkos Kernels' default SpGEMM cannot run here (cuSPARSE runs out of
  /// resources on R-MAT scale 18 on an H200, and takes 32-bit offsets only): only its
  /// benchmarks are skipped, and Kokkos Kernels' own C or a host product checks SpMVKit's.
  std::string kk_default_error;
  /// Whether the Kokkos Kernels paths failed to run (not: ran and differ from SpMVKit's C, except
  /// a deferred kk_native whose nnz differs). A reference that cannot run is reported on its
  /// benchmarks and does not fail the run.
  bool kk_default_failed = false, kk_native_failed = false;
  /// What SpMVKit's C is checked against (a label field): kk_default, kk_native, else a host
  /// product of sampled rows (host_rows_<rows>, set by the first check).
  std::string reference = "host_rows";

  static SpgemmOptions options_for(Impl impl) {
    SpgemmOptions o;
    if (impl == Impl::spmvkit_rows) o.numeric = SpgemmNumeric::positions;
    if (impl == Impl::spmvkit_lists) o.numeric = SpgemmNumeric::product_lists;
    return o;
  }

  SpgemmSetup(Options const& o, MatrixSource const& source)
      : A32(load_matrix<Scalar>(o, source)), A(with_offsets<Off>(A32)),
        kk_A(to_kokkos_kernels(A32)) {
    const Exec exec;
    if (A.num_rows() != A.num_cols()) {
      error = "A is not square";
      return;
    }
    if constexpr (std::is_same_v<Off, Offset>) {
      try {
        kk.symbolic(kk_A, kk_A);
        kk.numeric(kk_A, kk_A);
      } catch (std::exception const& e) {
        kk_default_error = std::string("Kokkos Kernels' default SpGEMM failed: ") + e.what();
        kk_default_failed = true;
      }
    } else {
      kk_default_error = "not run: this product runs with 64-bit offsets (--spgemm-offsets), "
                         "which Kokkos Kernels' default SpGEMM (cuSPARSE on CUDA) does not take";
      kk_default_failed = true;
    }
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    try {
      kk_wide_A = with_wide_offsets(A32);
    } catch (std::exception const& e) {
      kk_native_error = std::string("Kokkos Kernels' own SpGEMM failed: ") + e.what();
      kk_native_failed = true;
    }
    // R-MAT 20's C fits an H200 once, and Kokkos Kernels' own SpGEMM narrowed a range past 2^32
    // entries there (docs/notes/2026-12-02-spgemm-large-products.md).
    kk_native_deferred = !std::is_same_v<Off, Offset>;
    if (!kk_native_deferred && !kk_native_failed) make_kk_native();
#endif
    exec.fence();
    if (kk_default_error.empty()) {
      reference = "kk_default";
    } else {
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
      if (kk_native_error.empty() && !kk_native_deferred) reference = "kk_native";
#endif
    }
    Handle& h = product(Impl::spmvkit);
    if (!held_error.empty()) {
      error = held_error;
      return;
    }
    multiply_adds = h.multiply_adds();
    nnz = static_cast<std::int64_t>(h.nnz());
    compression = h.compression_ratio();
    output_bytes = h.memory().output_bytes;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    // Kokkos Kernels' own C against SpMVKit's, which matched the default's.
    if (reference == "kk_default" && kk_native_error.empty()) {
      auto const& W = kk_native.matrix();
      if (const auto bad = mismatches(h.matrix(), W); bad != 0) {
        kk_native_error = differs("Kokkos Kernels' own C", h.nnz(), W.nnz(), bad);
      }
    }
#endif
  }

#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  /// Drops Kokkos Kernels' own product (its C with it).
  void release_kk_native() {
    kk_native = KokkosKernelsSpgemm<KKWideMatrix<Scalar>>();
    kk_native_made = false;
  }

  /// Kokkos Kernels' own product into kk_native (failures recorded, not thrown).
  void make_kk_native() {
    try {
      kk_native.symbolic(kk_wide_A, kk_wide_A);
      kk_native.numeric(kk_wide_A, kk_wide_A);
      kk_native_made = true;
    } catch (std::exception const& e) {
      release_kk_native();
      kk_native_error = std::string("Kokkos Kernels' own SpGEMM failed: ") + e.what();
      kk_native_failed = true;
    }
  }

  /// A deferred kk_native product, made after SpMVKit's held one is released; one whose nnz is
  /// not SpMVKit's is a failure of Kokkos Kernels (reported on its benchmarks).
  void make_deferred_kk_native() {
    if (!kk_native_deferred || kk_native_made || kk_native_failed) return;
    handle = Handle();
    held = false;
    make_kk_native();
    if (kk_native_made && static_cast<std::int64_t>(kk_native.matrix().nnz()) != nnz) {
      kk_native_error = differs("Kokkos Kernels' own C", nnz,
                                static_cast<std::int64_t>(kk_native.matrix().nnz()), -1);
      kk_native_failed = true;
      release_kk_native();
    }
  }
#endif

  /// Rows of SpMVKit's C that another implementation's C (other) does not match, within
  /// 4 eps (longest row of A + 2) (|A| |A|)_ij; -1 where the nnz differ.
  template <class Other>
  std::int64_t mismatches(SpgemmCrs<Scalar, Off> const& C, Other const& other) const {
    using KOffset = typename std::decay_t<decltype(other)>::non_const_size_type;
    if (static_cast<std::int64_t>(C.nnz()) != static_cast<std::int64_t>(other.nnz())) {
      return std::int64_t(-1);
    }
    const Exec exec;
    // The bound's matrix |A| |A| has C's structure, sorted like SpMVKit's C.
    const auto abs_A = with_offsets<Off>(absolute(exec, A32));
    const auto M = spgemm(exec, abs_A, abs_A);
    const double tol = 4.0 * std::numeric_limits<Scalar>::epsilon() *
                       (static_cast<double>(max_row_length(A32)) + 2.0);
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "SpMVKit::perf::compare_spgemm",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, C.num_rows()),
        CompareProducts<Scalar, KOffset, Off>{C.row_starts(), other.graph.row_map,
                                              C.column_indices(), other.graph.entries, C.values(),
                                              other.values, M.values(), tol},
        bad);
    return bad;
  }

  static std::string differs(char const* what, std::int64_t ours, std::int64_t theirs,
                             std::int64_t bad) {
    return std::string(what) + " (nnz " + std::to_string(theirs) +
           ") differs from SpMVKit's (nnz " + std::to_string(ours) + ")" +
           (bad < 0 ? std::string() : " in " + std::to_string(bad) + " rows");
  }

  /// SpMVKit's product of variant `impl`, made and checked against the reference where another
  /// variant is held (which is released first); held_error says what failed.
  Handle& product(Impl impl) {
    if (held && held_impl == impl) return handle;
    const Exec exec;
    handle = Handle();
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    if (kk_native_deferred) release_kk_native(); // not two Cs at once
#endif
    held = true;
    held_impl = impl;
    held_error.clear();
    char const* which = impl == Impl::spmvkit_lists  ? " (SpMVKit's lists)"
                        : impl == Impl::spmvkit_rows ? " (SpMVKit's row kernels)"
                                                     : "";
    try {
      handle = Handle(options_for(impl));
      spgemm_symbolic(exec, handle, A, A);
      spgemm_numeric(exec, handle, A, A);
      exec.fence();
      std::int64_t bad = 0;
      if (reference == "kk_default") {
        bad = mismatches(handle.matrix(), kk.matrix());
        if (bad != 0)
          held_error = differs("Kokkos Kernels' C", handle.nnz(), kk.matrix().nnz(), bad);
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
      } else if (reference == "kk_native") {
        bad = mismatches(handle.matrix(), kk_native.matrix());
        if (bad != 0) {
          held_error =
              differs("Kokkos Kernels' own C", handle.nnz(), kk_native.matrix().nnz(), bad);
        }
#endif
      } else {
        // No Kokkos Kernels C: a sample of rows against the host.
        std::int64_t checked = 0;
        const std::string wrong = check_row_sample(A32, handle.matrix(), checked);
        if (!wrong.empty()) {
          held_error = kk_default_error + "; SpMVKit's C (" +
                       to_string(handle.numeric_algorithm()) +
                       ") against a host product of sampled rows: " + wrong;
        } else {
          reference = "host_rows_" + std::to_string(checked);
        }
      }
      if (!held_error.empty()) held_error += which;
    } catch (std::exception const& e) {
      held_error = std::string("SpMVKit's SpGEMM failed") + which + ": " + e.what();
    }
    return handle;
  }
};

/// One slot for the setup of one matrix (SpgemmSetup, GalerkinSetup; any precision and
/// offsets), kept while its benchmarks run (they run in a row), replaced by the next matrix's
/// (the old one released first) and dropped by the cleanups before Kokkos is finalized.
struct SetupSlot {
  std::shared_ptr<void> setup;
  std::string key;
};

SetupSlot& setup_slot() {
  static SetupSlot slot;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] {
      setup_slot().setup.reset();
      setup_slot().key.clear();
    });
  }
  return slot;
}

/// Releases the slot's setup if it belongs to another matrix (before this one is loaded).
void release_other_setup(MatrixSource const& source) {
  auto& slot = setup_slot();
  const std::string tail = "|" + source.name + "|" + source.path;
  if (slot.key.size() < tail.size() ||
      slot.key.compare(slot.key.size() - tail.size(), tail.size(), tail) != 0) {
    slot.setup.reset();
    slot.key.clear();
  }
}

template <class Setup>
Setup& cached_setup(Options const& o, MatrixSource const& source) {
  auto& slot = setup_slot();
  const std::string k = std::string(typeid(Setup).name()) + "|" + source.name + "|" + source.path;
  if (!slot.setup || slot.key != k) {
    slot.setup.reset();
    slot.key.clear();
    slot.setup = std::make_shared<Setup>(o, source);
    slot.key = k;
  }
  return *static_cast<Setup*>(slot.setup.get());
}

template <class Scalar, class Off>
void bm_spgemm_offsets(benchmark::State& state, Options const& o, std::string const& name,
                       MatrixSource const& source, Impl impl, Phase phase) {
  const bool ours = impl != Impl::kk_default && impl != Impl::kk_native;
  auto& s = cached_setup<SpgemmSetup<Scalar, Off>>(o, source);
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  if (impl == Impl::kk_native && s.error.empty()) s.make_deferred_kk_native();
#endif
  std::string why = !s.error.empty()           ? s.error
                    : impl == Impl::kk_native  ? s.kk_native_error
                    : impl == Impl::kk_default ? s.kk_default_error
                                               : std::string();
  auto* kept = why.empty() && ours ? &s.product(impl) : nullptr;
  if (kept != nullptr) why = s.held_error;
  if (!why.empty()) {
    // A reference library that cannot run this product is reported, not a failure.
    const bool reference_failed =
        s.error.empty() && ((impl == Impl::kk_default && s.kk_default_failed) ||
                            (impl == Impl::kk_native && s.kk_native_failed));
    if (!reference_failed) record_failure(name + ": " + why);
    state.SkipWithError((name + ": " + why).c_str());
    return;
  }
  const Exec exec;
  // SpMVKit's phases run on the held product itself, so that no second C is allocated (each
  // symbolic phase releases the previous structure first); Kokkos Kernels' symbolic phases
  // make a new product beside the kept one.
  KokkosKernelsSpgemm<KKMatrix<Scalar>> kk;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
  KokkosKernelsSpgemm<KKWideMatrix<Scalar>> kk_native;
#endif
  auto run = [&] {
    if (ours) {
      if (phase != Phase::numeric) spgemm_symbolic(exec, *kept, s.A, s.A);
      if (phase != Phase::symbolic) spgemm_numeric(exec, *kept, s.A, s.A);
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
      // A deferred product's phases run on the kept one, which drops its C first.
      auto& k = s.kk_native_deferred ? s.kk_native : kk_native;
      k.symbolic(s.kk_wide_A, s.kk_wide_A);
      if (phase == Phase::total) k.numeric(s.kk_wide_A, s.kk_wide_A);
#endif
    }
  };
  double t = 0;
  try {
    t = time_fenced(state, o, run);
  } catch (...) {
    // A phase that threw may have left the held product without its structure: made anew next.
    if (ours) s.held = false;
#ifdef SPMVKIT_PERF_SPGEMM_KK_NATIVE
    if (impl == Impl::kk_native && s.kk_native_deferred) s.release_kk_native();
#endif
    throw;
  }
  const auto madds = static_cast<double>(s.multiply_adds);
  state.SetLabel(std::string(ours ? "family=spgemm;format=" : "family=kk;format=") +
                 impl_name(impl) + ";phase=" + phase_name(phase) +
                 (ours ? ";numeric=" + std::string(to_string(kept->numeric_algorithm())) +
                             ";checked_against=" + s.reference
                       : std::string()) +
                 (std::is_same_v<Off, Offset> ? "" : ";offsets=64"));
  state.counters["time_s"] = t;
  state.counters["rows"] = static_cast<double>(s.A.num_rows());
  state.counters["nnz_A"] = static_cast<double>(s.A.nnz());
  state.counters["nnz_C"] = static_cast<double>(s.nnz);
  state.counters["multiply_adds"] = madds;
  state.counters["compression"] = s.compression;
  state.counters["fem_N"] = source.fem_n;
  state.counters["sizeof_scalar"] = sizeof(Scalar);
  state.counters["output_bytes"] = static_cast<double>(s.output_bytes);
  if (phase != Phase::symbolic) state.counters["GFlop/s"] = t > 0 ? 2.0 * madds / t / 1e9 : 0.0;
  if (ours) {
    auto const& m = kept->memory();
    state.counters["peak_bytes"] = static_cast<double>(m.peak_bytes);
    state.counters["team_scratch_bytes"] = static_cast<double>(m.team_scratch_bytes);
    state.counters["positions_bytes"] = static_cast<double>(m.positions_bytes);
    state.counters["lists"] = kept->keeps_product_lists() ? 1.0 : 0.0;
    state.counters["entries"] = kept->numeric_algorithm() == SpgemmNumeric::entries ? 1.0 : 0.0;
    state.counters["symbolic_workspace_bytes"] = static_cast<double>(m.symbolic_workspace_bytes);
    auto const bins = kept->row_bins();
    state.counters["rows_narrow"] = static_cast<double>(bins.narrow);
    state.counters["rows_hash"] = static_cast<double>(bins.hash);
    state.counters["rows_dense"] = static_cast<double>(bins.dense);
    state.counters["rows_global"] = static_cast<double>(bins.global);
  }
}

template <class Scalar>
void bm_spgemm(benchmark::State& state, Options const& o, std::string const& name,
               MatrixSource const& source, Impl impl, Phase phase) {
  try {
    release_other_setup(source);
    if (wide_spgemm<Scalar>(o, source)) {
      bm_spgemm_offsets<Scalar, std::int64_t>(state, o, name, source, impl, phase);
    } else {
      bm_spgemm_offsets<Scalar, Offset>(state, o, name, source, impl, phase);
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
      (A0.num_rows() <= amg_coarse_size<Exec>(AmgOptions()) ? nothing : error) = what;
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
