// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SpMV of one matrix in every selected format of spmvkit::format_list (all
// variants unless --formats says otherwise) and in Kokkos Kernels, checked
// against Kokkos Kernels' native SpMV. `matrix_market_spmv --help` lists the
// options.
//
// Without a file it uses the FEM Poisson matrix. Prints per format the bytes of
// its matrix arrays (F::bytes, and their ratio to CRS), the median and spread
// of the time of one SpMV, the bandwidth under the byte model (F::bytes(M) /
// time; only when the working set exceeds the last-level cache, since a matrix
// that stays in cache would report the cache's bandwidth) and GFlop/s (2 flops
// per nonzero). Every result must match Kokkos Kernels' native SpMV row by row
// within rounding (exit 1 otherwise); a matrix holding NaN or Inf cannot be
// checked that way and is reported as such (exit 2).
#include "example_cli.hpp"
#include "example_formats.hpp"
#include "example_memory.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/select/matrix_features.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;
using Vec = Kokkos::View<double*, Crs::device_type>;

struct Config {
  std::string path;
  std::string formats = "all,kk";
  int repetitions = 21;
  std::int64_t N = 24;
};

/// Throws naming the first stored entry that is NaN or Inf (1-based row and
/// column, as in a Matrix Market file): the SpMV check cannot judge such data.
void reject_non_finite(Exec const& exec, Crs const& A, std::string const& what) {
  std::int64_t first = 0;
  const auto values = A.values();
  Kokkos::parallel_reduce(
      "SpMVKit::matrix_market_spmv::find_non_finite",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, A.nnz()),
      KOKKOS_LAMBDA(std::int64_t k, std::int64_t & m) {
        const double v = values(k);
        if (!(v - v == 0) && k < m) m = k; // NaN or ±Inf
      },
      Kokkos::Min<std::int64_t>(first));
  if (A.nnz() == 0 || first >= static_cast<std::int64_t>(A.nnz())) return;
  auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const auto* row_end = std::upper_bound(starts.data(), starts.data() + A.num_rows() + 1, first);
  const std::int64_t row = (row_end - starts.data()) - 1;
  const double v = vals(first);
  throw std::runtime_error(what + ": the matrix holds " +
                           (std::isnan(v) ? std::string("NaN")
                            : v > 0       ? "Inf"
                                          : "-Inf") +
                           " at row " + std::to_string(row + 1) + ", column " +
                           std::to_string(cols(first) + 1) +
                           " (1-based), so SpMV results cannot be checked");
}

/// What is alive beside the formats: the matrix, x, y, y_ref, y_abs, and
/// while y_abs is computed the copy |A| and |x|.
double base_bytes(double rows, double cols, double nnz) {
  return 2 * ex::crs_bytes(rows, nnz) + 8.0 * (2 * cols + 3 * rows);
}

std::string base_parts(double rows, double cols, double nnz) {
  return "the matrix and its copy |A| " + ex::memory_size(2 * ex::crs_bytes(rows, nnz)) +
         ", five vectors " + ex::memory_size(8.0 * (2 * cols + 3 * rows));
}

int example(Config const& cfg) {
  const Exec exec;
  const std::string what = cfg.path.empty() ? "FEM Poisson N = " + std::to_string(cfg.N) : cfg.path;
  const auto budget = ex::MemoryBudget::of<Exec>();
  if (!cfg.path.empty()) {
    // The header alone says what the file will cost: refuse before reading it.
    const auto info = spmvkit::read_matrix_market_info(cfg.path);
    const double rows = static_cast<double>(info.rows), cols = static_cast<double>(info.cols);
    budget.require(base_bytes(rows, cols, ex::declared_entries(info)),
                   cfg.path + " (" + std::to_string(info.rows) + " x " + std::to_string(info.cols) +
                       ", " + std::to_string(info.entries) + " declared entries)",
                   base_parts(rows, cols, ex::declared_entries(info)));
  }
  const Crs A = cfg.path.empty() ? spmvkit::make_fem_poisson_crs<double>(exec, cfg.N)
                                 : spmvkit::read_matrix_market<double, Exec>(cfg.path, exec);
  std::cout << what << ": " << A.num_rows() << " x " << A.num_cols() << ", " << A.nnz()
            << " nonzeros; " << Exec::name() << ", " << exec.concurrency() << " threads\n";
  const double rows = A.num_rows(), cols = A.num_cols(), nnz = static_cast<double>(A.nnz());
  budget.require(base_bytes(rows, cols, nnz), what, base_parts(rows, cols, nnz));
  // During the formats: the matrix and four vectors (|A| and |x| are gone).
  const double in_use = ex::crs_bytes(rows, nnz) + 8.0 * (cols + 3 * rows);
  reject_non_finite(exec, A, what);
  const auto llc = ex::last_level_cache<Exec>();
  std::cout << "last-level cache: " << (llc.bytes > 0 ? llc.description : "unknown") << "\n";
  const std::string binding = ex::openmp_binding<Exec>();
  if (!binding.empty()) std::cout << binding << "\n";

  Vec x("SpMVKit::matrix_market_spmv::x", static_cast<std::size_t>(A.num_cols()));
  Vec y("SpMVKit::matrix_market_spmv::y", static_cast<std::size_t>(A.num_rows()));
  Vec y_ref("SpMVKit::matrix_market_spmv::y_ref", static_cast<std::size_t>(A.num_rows()));
  Vec y_abs("SpMVKit::matrix_market_spmv::y_abs", static_cast<std::size_t>(A.num_rows()));
  {
    auto h = Kokkos::create_mirror_view(x);
    std::mt19937_64 gen(42);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = u(gen);
    Kokkos::deep_copy(x, h);
  }

  // Reference: Kokkos Kernels native. Tolerance per row: |A||x| scales the
  // rounding error of the row's sum, whatever the summation order.
  const auto K = spmvkit::to_kokkos_kernels(A);
  using KSpmv = spmvkit::KokkosKernelsSpmv<std::decay_t<decltype(K)>, Vec, Vec>;
  KSpmv(spmvkit::KokkosKernelsAlgorithm::native).apply(exec, 1.0, K, x, 0.0, y_ref);
  {
    Crs absA("abs", A.num_rows(), A.num_cols(), A.nnz(), exec);
    Kokkos::deep_copy(exec, absA.row_starts(), A.row_starts());
    Kokkos::deep_copy(exec, absA.column_indices(), A.column_indices());
    Vec absx("SpMVKit::matrix_market_spmv::abs_x", x.extent(0));
    const auto av = absA.values(), v = A.values();
    Kokkos::parallel_for(
        "SpMVKit::matrix_market_spmv::abs", Kokkos::RangePolicy<Exec>(exec, 0, A.nnz()),
        KOKKOS_LAMBDA(int k) { av(k) = ex::kmath::fabs(v(k)); });
    Kokkos::parallel_for(
        "SpMVKit::matrix_market_spmv::abs_x", Kokkos::RangePolicy<Exec>(exec, 0, A.num_cols()),
        KOKKOS_LAMBDA(int i) { absx(i) = ex::kmath::fabs(x(i)); });
    spmvkit::spmv(exec, 1.0, absA, absx, 0.0, y_abs);
  }
  auto check = [&](Vec const& result) {
    auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result);
    auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_ref);
    auto mag = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_abs);
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < r.extent(0); ++i)
      if (!(std::fabs(r(i) - ref(i)) <= 1e-12 * mag(i) + 1e-300)) ++bad;
    return bad;
  };

  const double crs_matrix_bytes = spmvkit::CrsFormat::bytes(A).matrix;
  ex::Table table({"format", "matrix [MB]", "vs CRS [x]", "time [µs]", "min-max [µs]", "GB/s",
                   "GFlop/s", "check"});
  int failures = 0;
  bool any_in_cache = false;
  // is_reference: the kernel that computed y_ref, so checking it proves nothing.
  auto measure = [&](std::string const& name, spmvkit::SpmvBytes const& bytes, auto&& op,
                     bool is_reference = false) {
    Kokkos::deep_copy(y, -1.0);
    const auto t = ex::time_repeated(exec, op, cfg.repetitions);
    const auto bad = is_reference ? 0 : check(y);
    failures += bad > 0;
    const bool in_cache = llc.bytes > 0 && bytes.total() <= llc.bytes;
    any_in_cache = any_in_cache || in_cache;
    table.add({name, ex::fixed(bytes.matrix / 1e6, 3),
               ex::fixed(bytes.matrix / crs_matrix_bytes, 3), ex::fixed(1e6 * t.median, 1),
               ex::fixed(1e6 * t.min, 1) + " - " + ex::fixed(1e6 * t.max, 1),
               in_cache ? "(cache)" : ex::fixed(bytes.total() / t.median / 1e9, 2),
               ex::fixed(2.0 * A.nnz() / t.median / 1e9, 2),
               is_reference ? "reference"
               : bad == 0   ? "ok"
                            : std::to_string(bad) + " rows wrong"});
  };

  const auto selected = ex::select_formats<Exec>(cfg.formats, true);
  const auto features = spmvkit::compute_features(exec, A);
  ex::for_each_selected_format<Exec>(
      selected, [&](auto tag, auto const& o, std::string const& format) {
        using F = typename decltype(tag)::type;
        if (!ex::can_hold<F>(exec, A, o, format)) return;
        if (!ex::fits_memory<F, Exec>(budget, in_use, A, features, o, format)) return;
        const auto M = F::from_crs(exec, A, o);
        ex::explain_choice<F>(format, M);
        measure(ex::shown_name<F>(format, M), F::bytes(M),
                [&] { spmvkit::spmv(exec, 1.0, M, x, 0.0, y, o); });
      });
  for (auto algorithm :
       {spmvkit::KokkosKernelsAlgorithm::native, spmvkit::KokkosKernelsAlgorithm::vendor_default}) {
    const std::string name = spmvkit::name(algorithm);
    if (std::find(selected.begin(), selected.end(), name) == selected.end()) continue;
    KSpmv kk(algorithm);
    measure(
        name, spmvkit::CrsFormat::bytes(A), [&] { kk.apply(exec, 1.0, K, x, 0.0, y); },
        algorithm == spmvkit::KokkosKernelsAlgorithm::native);
  }
  std::cout << "\n";
  table.print(std::cout);
  std::cout << ex::detail::wrap("matrix [MB]: the format's matrix arrays under the byte model "
                                "(F::bytes), 10^6 bytes; vs CRS [x]: their ratio to CRS; time "
                                "[µs]: one SpMV, median of " +
                                    std::to_string(cfg.repetitions) +
                                    " runs, and min-max; GB/s: (matrix + x + y bytes) / median "
                                    "time; GFlop/s: 2 nnz / median time",
                                0, 0)
            << "\n";
  if (any_in_cache) {
    std::cout << ex::detail::wrap("note: the working set of the rows marked (cache) fits in the "
                                  "last-level cache (" +
                                      ex::megabytes(llc.bytes) +
                                      "), where repeated SpMVs find it: their time is reported, "
                                      "not a bandwidth, which would exceed memory bandwidth",
                                  0, 6)
              << "\n";
  }
  if (failures > 0) {
    std::cerr << "FAILED: " << failures << " formats disagree with Kokkos Kernels native\n";
  }
  return failures == 0 ? ex::exit_ok : ex::exit_check_failed;
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::input_file_option("", "MATRIX", "Matrix Market file (.mtx or .mtx.gz)", cfg.path,
                            "the FEM Poisson matrix of --N"),
      ex::formats_option<Exec>(cfg.formats, true),
      ex::integer_option("repetitions", "timed SpMVs per format (after one warm-up)",
                         cfg.repetitions, 1, 100000),
      ex::integer_option("N", "FEM Poisson mesh intervals per direction when no MATRIX is given",
                         cfg.N, 2, 431),
  };
  return ex::run_example(
      argc, argv,
      {"matrix_market_spmv",
       "SpMV y = A x of one matrix in every selected format and in Kokkos Kernels, each timed and "
       "checked row by row against Kokkos Kernels' native SpMV (exit status 1 if one disagrees). "
       "A matrix holding NaN or Inf is reported as such (exit status 2)."},
      options, [&] { return example(cfg); });
}
