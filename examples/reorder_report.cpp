// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What bandwidth-reducing orderings do to a set of matrices: for every
// Matrix Market file (*.mtx, *.mtx.gz) of a directory, the bandwidth max |i - j|
// in its own order, after spmvkit's RCM (reorder/rcm.hpp), after Kokkos
// Kernels' graph_rcm where this build has it, and after Band-2 (CSR-k's
// ordering, with CSR-k's model super-row size), and whether the matrix is
// SellOffset16-eligible (every entry within int16 reach of the diagonal,
// can_use_sell_offset16) before and after RCM. `reorder_report --help` lists the
// options. Checks that every ordering is a permutation that unreorders to the
// original matrix (exit 1 otherwise).
#include "example_cli.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/csrk/detail/csrk_tuning.hpp>
#include <spmvkit/formats/sell_offset16/sell_offset16_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/reorder/band_k.hpp>
#include <spmvkit/reorder/rcm.hpp>

#include <Kokkos_Core.hpp>
#if __has_include(<KokkosGraph_RCM.hpp>)
#include <KokkosGraph_RCM.hpp>
#define SPMVKIT_EXAMPLE_HAS_KK_RCM 1
#else
#define SPMVKIT_EXAMPLE_HAS_KK_RCM 0
#endif

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#ifndef SPMVKIT_MATRIX_DIR
#define SPMVKIT_MATRIX_DIR ""
#endif
#ifndef SPMVKIT_TEST_MATRIX_DIR
#define SPMVKIT_TEST_MATRIX_DIR ""
#endif

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;

struct Config {
  std::string dir;
};

std::string default_dir() {
  if (char const* env = std::getenv("SPMVKIT_MATRIX_DIR"); env && *env) return env;
  const std::string configured = SPMVKIT_MATRIX_DIR;
  return configured.empty() ? std::string(SPMVKIT_TEST_MATRIX_DIR) : configured;
}

bool ends_with(std::string const& s, std::string const& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// The Matrix Market files of `dir`, sorted by name.
std::vector<std::string> matrix_files(std::string const& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw ex::UsageError("--dir: cannot open '" + dir + "'");
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (ends_with(name, ".mtx") || ends_with(name, ".mtx.gz")) out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string stem(std::string const& file) { return file.substr(0, file.find(".mtx")); }

#if SPMVKIT_EXAMPLE_HAS_KK_RCM
/// Kokkos Kernels' RCM of A's symmetrized pattern (the graph spmvkit's RCM
/// orders), as a permutation.
spmvkit::Permutation<int, Crs::device_type> kokkos_kernels_rcm(Exec const& exec, Crs const& A) {
  const auto g = spmvkit::detail::host_pattern(A, "reorder_report");
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> starts("SpMVKit::reorder_report::starts", g.n + 1),
      adj("SpMVKit::reorder_report::adjacency", g.adj.size());
  for (std::int64_t i = 0; i <= g.n; ++i) starts(i) = g.starts[i];
  for (std::size_t k = 0; k < g.adj.size(); ++k) adj(k) = g.adj[k];
  const auto labels =
      KokkosGraph::Experimental::graph_rcm<Kokkos::HostSpace::device_type>(starts, adj);
  std::vector<std::int64_t> new_to_old(static_cast<std::size_t>(g.n));
  for (std::int64_t v = 0; v < g.n; ++v) new_to_old[labels(v)] = v; // labels: old -> new
  return spmvkit::make_permutation<int>(exec, new_to_old);
}
#endif

/// Whether B is P A P^T of A: unreordering gives A back, entry for entry.
bool unreorders_to(Exec const& exec, spmvkit::Reordered<Crs> const& R, Crs const& A) {
  const Crs back = spmvkit::unreorder(exec, R);
  auto a_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto b_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.column_indices());
  auto a_vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  auto b_vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.values());
  if (a_cols.extent(0) != b_cols.extent(0)) return false;
  // A's rows may be unsorted; compare each row as a multiset of (column, value).
  auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto back_starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.row_starts());
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    if (starts(i + 1) != back_starts(i + 1)) return false;
    std::vector<std::pair<int, double>> a, b;
    for (auto k = starts(i); k < starts(i + 1); ++k) {
      a.emplace_back(a_cols(k), a_vals(k));
      b.emplace_back(b_cols(k), b_vals(k));
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) return false;
  }
  return true;
}

int example(Config const& cfg) {
  const Exec exec;
  const auto files = matrix_files(cfg.dir);
  std::cout << "matrices of " << cfg.dir << ": " << files.size() << "; " << Exec::name() << ", "
            << exec.concurrency() << " threads; KokkosGraph graph_rcm: "
            << (SPMVKIT_EXAMPLE_HAS_KK_RCM ? "yes" : "not in this build") << "\n";
  ex::Table table({"matrix", "rows", "nnz", "bandwidth", "RCM", "KK RCM", "Band-2 (SRS)",
                   "SellOffset16", "SellOffset16 after RCM", "RCM [s]"});
  int failures = 0, square = 0, before = 0, after = 0, after_kk = 0;
  for (auto const& file : files) {
    const Crs A = spmvkit::read_matrix_market<double, Exec>(cfg.dir + "/" + file, exec);
    const bool sell_offset16 = spmvkit::can_use_sell_offset16(exec, A);
    if (A.num_rows() != A.num_cols()) {
      table.add({stem(file), std::to_string(A.num_rows()), std::to_string(A.nnz()),
                 std::to_string(spmvkit::bandwidth(exec, A)), "(rectangular)", "", "",
                 sell_offset16 ? "yes" : "no", "", ""});
      continue;
    }
    ++square;
    const auto t0 = std::chrono::steady_clock::now();
    const auto R = spmvkit::reorder_rcm(exec, A);
    exec.fence();
    const double rcm_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool sell_offset16_rcm = spmvkit::can_use_sell_offset16(exec, R.matrix);
    std::string kk = "n/a";
#if SPMVKIT_EXAMPLE_HAS_KK_RCM
    const Crs K = spmvkit::permute_symmetric(exec, A, kokkos_kernels_rcm(exec, A));
    kk = std::to_string(spmvkit::bandwidth(exec, K));
    after_kk += spmvkit::can_use_sell_offset16(exec, K);
#endif
    const double rdensity = A.num_rows() ? double(A.nnz()) / double(A.num_rows()) : 0.0;
    const auto srs = spmvkit::detail::csrk_model<Exec>(2, rdensity).rows_per_super_row;
    const auto B = spmvkit::reorder_band_k(exec, A, 2, srs);
    if (!unreorders_to(exec, R, A) || !unreorders_to(exec, B, A)) {
      std::cerr << file << ": an ordering does not unreorder to the matrix\n";
      ++failures;
    }
    before += sell_offset16;
    after += sell_offset16_rcm;
    table.add(
        {stem(file), std::to_string(A.num_rows()), std::to_string(A.nnz()),
         std::to_string(spmvkit::bandwidth(exec, A)),
         std::to_string(spmvkit::bandwidth(exec, R.matrix)), kk,
         std::to_string(spmvkit::bandwidth(exec, B.matrix)) + " (" + std::to_string(srs) + ")",
         sell_offset16 ? "yes" : "no", sell_offset16_rcm ? "yes" : "no",
         ex::fixed(rcm_seconds, 3)});
  }
  std::cout << "\n";
  table.print(std::cout);
  std::cout << "\nSellOffset16-eligible square matrices: " << before << " of " << square
            << " in their own order, " << after << " after RCM";
  if (SPMVKIT_EXAMPLE_HAS_KK_RCM) std::cout << ", " << after_kk << " after KokkosGraph RCM";
  std::cout
      << "\n"
      << ex::detail::wrap(
             "bandwidth: max |i - j| over the entries; RCM: spmvkit::reorder_rcm; KK RCM: "
             "KokkosGraph::Experimental::graph_rcm on the same symmetrized pattern; Band-2: "
             "spmvkit::reorder_band_k with k = 2 and CSR-k's model super-row size; SellOffset16: "
             "spmvkit::can_use_sell_offset16; RCM [s]: reorder_rcm (ordering on the host, P A P^T "
             "on the device), wall time",
             0, 0)
      << "\n";
  return failures == 0 ? ex::exit_ok : ex::exit_check_failed;
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  cfg.dir = default_dir();
  const std::vector<ex::Option> options{
      {"dir", "DIR",
       "directory of Matrix Market files (default: the SPMVKIT_MATRIX_DIR environment variable, "
       "else the configured SPMVKIT_MATRIX_DIR, else the shipped test matrices)",
       [&cfg] { return cfg.dir; }, [&cfg](std::string const& text) { cfg.dir = text; }},
  };
  return ex::run_example(
      argc, argv,
      {"reorder_report",
       "Bandwidth of every Matrix Market file of a directory in its own order, after RCM (ours "
       "and Kokkos Kernels'), after Band-2, and whether it is SellOffset16-eligible before and "
       "after "
       "RCM. Exit status 1 if an ordering fails to unreorder to the matrix."},
      options, [&] { return example(cfg); });
}
