// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PageRank by power iteration, with the SpMV in every selected format of
// spmvkit::all_formats (the automatic choice, explained, unless --formats
// names others):
//
//   r <- d M r + (d * (sum of r over dangling nodes) + 1 - d) / n
//
// until the L1 change is below --tol. M is the column-stochastic transition
// matrix: M(j, i) = w(i, j) / (sum_k w(i, k)) for an edge i -> j. It is built on
// the device from the adjacency matrix (row i = out-edges of i): out-weights,
// a transpose through atomic counters, and a per-row sort so that the result
// does not depend on thread timing. Dangling nodes (no out-edges) spread their
// rank evenly.
//
// Without --matrix a random graph is generated. Every stored entry is an edge of
// weight 1 unless --weighted (then the values are the weights; they must be
// finite and >= 0: the reader names the line of the first that is not). The
// header is checked (square, non-empty, the memory it will take) before the
// entries are read, and each format's footprint before it is built. Checks: ranks sum to 1, every
// format converges and agrees with the first, and all match a plain host power iteration; exits 1
// otherwise.
// --max-iters must be at least 1 (0 would leave the uniform start unchecked).
// `pagerank --help` lists the options.
#include "example_cli.hpp"
#include "example_formats.hpp"
#include "example_memory.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/select/matrix_features.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;
using Vec = Kokkos::View<double*, Crs::device_type>;
using IntVec = Kokkos::View<int*, Crs::device_type>;

struct Config {
  std::string matrix;
  bool weighted = false;
  int nodes = 5000;
  std::int64_t seed = 1;
  double damping = 0.85;
  double tol = 1e-10;
  int max_iters = 1000;
  std::string formats = "auto"; // the automatic choice unless told (select/)
};

/// A random directed graph on the host (the stand-in for a file): out-degrees
/// 0..8 (about one node in nine dangles), targets skewed towards low node
/// numbers so that ranks differ.
Crs random_graph(int nodes, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> degree(0, 8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int> starts{0}, cols;
  for (int i = 0; i < nodes; ++i) {
    std::vector<int> targets;
    const int k = std::min(degree(gen), nodes - 1);
    while (static_cast<int>(targets.size()) < k) {
      const int t = static_cast<int>(nodes * unit(gen) * unit(gen));
      if (t != i && std::find(targets.begin(), targets.end(), t) == targets.end())
        targets.push_back(t);
    }
    std::sort(targets.begin(), targets.end());
    cols.insert(cols.end(), targets.begin(), targets.end());
    starts.push_back(static_cast<int>(cols.size()));
  }
  Crs A("random_graph", nodes, nodes, static_cast<std::int64_t>(cols.size()));
  auto hs = Kokkos::create_mirror_view(A.row_starts());
  auto hc = Kokkos::create_mirror_view(A.column_indices());
  auto hv = Kokkos::create_mirror_view(A.values());
  for (int i = 0; i <= nodes; ++i) hs(i) = starts[i];
  for (std::size_t k = 0; k < cols.size(); ++k) {
    hc(k) = cols[k];
    hv(k) = 1.0;
  }
  Kokkos::deep_copy(A.row_starts(), hs);
  Kokkos::deep_copy(A.column_indices(), hc);
  Kokkos::deep_copy(A.values(), hv);
  return A;
}

struct Transition {
  Crs M;
  Vec dangling; // 1 for nodes without out-weight, else 0
};

/// Column-stochastic transition matrix M = Wᵀ D⁻¹ on the device.
Transition transition_matrix(Exec const& exec, Crs const& W, bool weighted) {
  const int n = W.num_rows();
  const auto starts = W.row_starts();
  const auto cols = W.column_indices();
  const auto vals = W.values();
  Vec out("SpMVKit::pagerank::out_weight", n);
  int negative = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::pagerank::out_weights", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int i, int& bad) {
        double sum = 0;
        for (int k = starts(i); k < starts(i + 1); ++k) {
          const double w = weighted ? vals(k) : 1.0;
          bad += w >= 0 && w - w == 0 ? 0 : 1; // negative, NaN or infinite
          sum += w;
        }
        out(i) = sum;
      },
      negative);
  if (negative > 0) {
    throw std::invalid_argument(std::to_string(negative) +
                                " edge weights are negative, NaN or infinite; drop --weighted to "
                                "use the pattern");
  }
  // Transpose: count in-edges per node, scan to row starts, scatter through
  // per-row cursors.
  IntVec in_count("SpMVKit::pagerank::in_count", n);
  Kokkos::parallel_for(
      "SpMVKit::pagerank::count_in_edges", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int i) {
        for (int k = starts(i); k < starts(i + 1); ++k)
          Kokkos::atomic_fetch_add(&in_count(cols(k)), 1);
      });
  Transition t{Crs("pagerank_transition", n, n, W.nnz(), exec),
               Vec("SpMVKit::pagerank::dangling", n)};
  const auto mstarts = t.M.row_starts();
  const auto mcols = t.M.column_indices();
  const auto mvals = t.M.values();
  const auto dangling = t.dangling;
  Kokkos::parallel_scan(
      "SpMVKit::pagerank::transpose_starts", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int j, int& partial, bool final) {
        if (final) mstarts(j) = partial;
        partial += in_count(j);
        if (final && j == n - 1) mstarts(n) = partial;
      });
  IntVec cursor("SpMVKit::pagerank::cursor", n);
  Kokkos::parallel_for(
      "SpMVKit::pagerank::transpose_fill", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int i) {
        dangling(i) = out(i) > 0 ? 0.0 : 1.0;
        for (int k = starts(i); k < starts(i + 1); ++k) {
          const int j = cols(k);
          const int slot = mstarts(j) + Kokkos::atomic_fetch_add(&cursor(j), 1);
          mcols(slot) = i;
          mvals(slot) = out(i) > 0 ? (weighted ? vals(k) : 1.0) / out(i) : 0.0;
        }
      });
  // The scatter order depends on thread timing; sorting each row makes the
  // matrix, and so the rounding of every SpMV, reproducible.
  Kokkos::parallel_for(
      "SpMVKit::pagerank::sort_rows", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int j) {
        for (int a = mstarts(j) + 1; a < mstarts(j + 1); ++a) {
          const int c = mcols(a);
          const double v = mvals(a);
          int b = a - 1;
          for (; b >= mstarts(j) && mcols(b) > c; --b) {
            mcols(b + 1) = mcols(b);
            mvals(b + 1) = mvals(b);
          }
          mcols(b + 1) = c;
          mvals(b + 1) = v;
        }
      });
  return t;
}

struct Ranks {
  Vec r;
  int iterations = 0; ///< power iterations done
  double change = 0;  ///< L1 change of the last one
  bool converged = false;
};

template <class Matrix, class Options>
Ranks power_iteration(Exec const& exec, Matrix const& M, Options const& options,
                      Vec const& dangling, double d, double tol, int max_iterations) {
  const int n = M.num_rows();
  Ranks out{Vec("SpMVKit::pagerank::r", n)};
  Vec y("SpMVKit::pagerank::y", n);
  const auto r = out.r;
  Kokkos::deep_copy(exec, r, 1.0 / n);
  while (out.iterations < max_iterations && !out.converged) {
    spmvkit::spmv(exec, 1.0, M, r, 0.0, y, options);
    double lost = 0; // rank held by dangling nodes
    Kokkos::parallel_reduce(
        "SpMVKit::pagerank::dangling_rank", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(int i, double& sum) { sum += dangling(i) * r(i); }, lost);
    const double shift = (d * lost + 1.0 - d) / n;
    out.change = 0;
    Kokkos::parallel_reduce(
        "SpMVKit::pagerank::update", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(int i, double& l1) {
          const double next = d * y(i) + shift;
          l1 += ex::kmath::fabs(next - r(i));
          r(i) = next;
        },
        out.change);
    ++out.iterations;
    out.converged = out.change < tol;
  }
  return out;
}

/// The same iteration on the host, straight from the adjacency lists.
std::vector<double> host_pagerank(Crs const& W, bool weighted, double d, double tol,
                                  int max_iterations) {
  auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), W.row_starts());
  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), W.column_indices());
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), W.values());
  const int n = W.num_rows();
  std::vector<double> r(n, 1.0 / n), next(n), out(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = s(i); k < s(i + 1); ++k) out[i] += weighted ? v(k) : 1.0;
  for (int it = 0; it < max_iterations; ++it) {
    double lost = 0;
    for (int i = 0; i < n; ++i) lost += out[i] > 0 ? 0.0 : r[i];
    std::fill(next.begin(), next.end(), (d * lost + 1.0 - d) / n);
    for (int i = 0; i < n; ++i)
      for (int k = s(i); k < s(i + 1); ++k)
        if (out[i] > 0) next[c(k)] += d * r[i] * (weighted ? v(k) : 1.0) / out[i];
    double change = 0;
    for (int i = 0; i < n; ++i) change += std::fabs(next[i] - r[i]);
    r.swap(next);
    if (change < tol) break;
  }
  return r;
}

/// What is alive beside the formats: the adjacency matrix W, the transition
/// matrix M (as many entries), and about a dozen vectors of n (out-weights,
/// dangling flags, in-edge counters and cursors, ranks, the host iteration).
double base_bytes(double n, double nnz) { return 2 * ex::crs_bytes(n, nnz) + 12 * 8.0 * n; }

std::string base_parts(double n, double nnz) {
  return "adjacency and transition matrices " + ex::memory_size(2 * ex::crs_bytes(n, nnz)) +
         ", vectors " + ex::memory_size(12 * 8.0 * n);
}

void require_square(std::string const& what, std::int64_t rows, std::int64_t cols) {
  if (rows != cols || rows == 0) {
    throw std::invalid_argument(what + ": the adjacency matrix must be square and non-empty, got " +
                                std::to_string(rows) + " x " + std::to_string(cols));
  }
}

int example(Config const& cfg) {
  const Exec exec;
  const double d = cfg.damping, tol = cfg.tol;
  const auto budget = ex::MemoryBudget::of<Exec>();
  if (!cfg.matrix.empty()) {
    // The header alone decides shape and cost: refuse before reading the entries.
    const auto info = spmvkit::read_matrix_market_info(cfg.matrix);
    require_square(cfg.matrix, info.rows, info.cols);
    const double rows = static_cast<double>(info.rows);
    budget.require(base_bytes(rows, ex::declared_entries(info)),
                   cfg.matrix + " (" + std::to_string(info.rows) + " nodes, " +
                       std::to_string(info.entries) + " declared edges)",
                   base_parts(rows, ex::declared_entries(info)));
  }
  spmvkit::MatrixMarketReadOptions read_options;
  // Weights must make a transition matrix: the reader names the first bad one by line.
  if (cfg.weighted) read_options.values = spmvkit::MatrixMarketValues::nonnegative;
  const auto W = cfg.matrix.empty()
                     ? random_graph(cfg.nodes, static_cast<unsigned>(cfg.seed))
                     : spmvkit::read_matrix_market<double, Exec>(cfg.matrix, read_options, exec);
  require_square(cfg.matrix.empty() ? "random graph" : cfg.matrix, W.num_rows(), W.num_cols());
  const int n = W.num_rows();
  budget.require(base_bytes(n, static_cast<double>(W.nnz())),
                 cfg.matrix.empty() ? "the random graph" : cfg.matrix,
                 base_parts(n, static_cast<double>(W.nnz())));
  std::cout << "pagerank: " << (cfg.matrix.empty() ? "random graph" : cfg.matrix) << ", " << n
            << " nodes, " << W.nnz() << " edges, damping " << d << ", " << Exec::name() << " ("
            << exec.concurrency() << " threads)\n";

  const Transition t = transition_matrix(exec, W, cfg.weighted);
  double dangling_nodes = 0;
  const auto dangling = t.dangling;
  Kokkos::parallel_reduce(
      "SpMVKit::pagerank::count_dangling", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int i, double& s) { s += dangling(i); }, dangling_nodes);
  std::cout << static_cast<std::int64_t>(dangling_nodes) << " dangling nodes\n";
  const auto host = host_pagerank(W, cfg.weighted, d, tol, cfg.max_iters);
  double host_max = 0;
  for (double v : host) host_max = std::max(host_max, v);

  // Both stop at an L1 change below tol, so they sit within ~tol/(1-d) of the
  // fixed point and of each other.
  const double allowed = 10 * tol / (1 - d);
  const double in_use = base_bytes(n, static_cast<double>(W.nnz()));
  const auto features = spmvkit::compute_features(exec, t.M);
  ex::Checks checks;
  Vec first;
  std::string first_name;
  ex::for_each_selected_format<Exec>(
      ex::select_formats<Exec>(cfg.formats, false),
      [&](auto tag, auto const& o, std::string const& format) {
        using F = typename decltype(tag)::type;
        if (!ex::can_hold<F>(exec, t.M, o, format)) return;
        if (!ex::fits_memory<F, Exec>(budget, in_use, t.M, features, o, format)) return;
        const auto M = F::from_crs(exec, t.M, o);
        const std::string name = ex::shown_name<F>(format, M);
        ex::explain_choice<F>(format, M);
        Kokkos::Timer timer;
        const Ranks ranks = power_iteration(exec, M, o, t.dangling, d, tol, cfg.max_iters);
        const double seconds = timer.seconds();
        auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ranks.r);
        const double sum = std::accumulate(r.data(), r.data() + n, 0.0);
        double to_host = 0;
        for (int i = 0; i < n; ++i) to_host = std::max(to_host, std::fabs(r(i) - host[i]));
        std::cout << name << ": " << ranks.iterations << " iterations in " << ex::fixed(seconds, 3)
                  << " s, last L1 change " << ex::sci(ranks.change, 2)
                  << ", sum of ranks - 1 = " << ex::sci(sum - 1, 2)
                  << ", max |r - host r| / max r = " << ex::sci(to_host / host_max, 2) << "\n";
        checks.expect(ranks.converged, name + ": no convergence in --max-iters " +
                                           std::to_string(cfg.max_iters) + " iterations");
        checks.expect(std::fabs(sum - 1) < 1e-9, name + ": ranks do not sum to 1");
        checks.expect(to_host <= allowed, name + ": ranks differ from the host power iteration");
        if (first_name.empty()) {
          first = ranks.r;
          first_name = name;
          std::vector<int> order(n);
          std::iota(order.begin(), order.end(), 0);
          std::partial_sort(order.begin(), order.begin() + std::min(n, 5), order.end(),
                            [&](int a, int b) { return r(a) > r(b); });
          std::cout << "top nodes:";
          for (int k = 0; k < std::min(n, 5); ++k)
            std::cout << " " << order[k] << " (" << ex::sci(r(order[k])) << ")";
          std::cout << "\n";
        } else {
          checks.expect(ex::relative_difference(ranks.r, first) * host_max <= allowed,
                        name + ": ranks differ from " + first_name + "'s");
        }
      });
  if (first_name.empty()) {
    throw std::runtime_error("none of the selected formats (--formats " + cfg.formats +
                             ") can hold the transition matrix");
  }
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::input_file_option("matrix", "PATH",
                            "adjacency matrix as Matrix Market (.mtx or .mtx.gz): row i holds "
                            "the out-edges of node i",
                            cfg.matrix, "a random graph"),
      ex::switch_option("weighted", "use the stored values as edge weights (>= 0)", cfg.weighted),
      ex::integer_option("nodes", "nodes of the random graph", cfg.nodes, 1, 10000000),
      ex::integer_option("seed", "seed of the random graph", cfg.seed, 0,
                         std::numeric_limits<std::uint32_t>::max()),
      ex::real_option("damping", "damping factor d", cfg.damping, {0, true, 1, false}),
      ex::real_option("tol", "stop once the L1 change of the ranks is below this", cfg.tol,
                      {0, false, 1, false}),
      ex::integer_option("max-iters", "power iteration limit (at least 1)", cfg.max_iters, 1,
                         100000000),
      ex::formats_option<Exec>(cfg.formats, false),
  };
  return ex::run_example(
      argc, argv,
      {"pagerank",
       "PageRank by power iteration, r <- d M r + (d * (rank of dangling nodes) + 1 - d) / n, "
       "until the L1 change is below --tol, with the SpMV in every selected format. M is the "
       "column-stochastic transition matrix, built on the device from the adjacency matrix of a "
       "file or of a random graph. Exit status 1 unless the ranks sum to 1 and every format "
       "matches a plain host power iteration."},
      options, [&] { return example(cfg); });
}
