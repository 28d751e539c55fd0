// PageRank by power iteration, with the SpMV in CRS and in SELL-C-σ:
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
//   pagerank [--matrix graph.mtx[.gz]] [--weighted] [--nodes 5000] [--seed 1]
//            [--damping 0.85] [--tol 1e-10] [--C auto] [--sigma 1]
//
// Without --matrix a random graph is generated. Every stored entry is an edge of
// weight 1 unless --weighted (then the values are the weights; they must be
// >= 0). Checks: ranks sum to 1, CRS and SELL agree, and both match a plain
// host power iteration; exits non-zero otherwise.
#include "example_main.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
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
          bad += w < 0 ? 1 : 0;
          sum += w;
        }
        out(i) = sum;
      },
      negative);
  if (negative > 0) {
    throw std::invalid_argument(std::to_string(negative) +
                                " edge weights are negative; drop --weighted to use the pattern");
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
  int iterations = 0;
  double change = 0;
};

template <class Matrix>
Ranks power_iteration(Exec const& exec, Matrix const& M, Vec const& dangling, double d, double tol,
                      int max_iterations) {
  const int n = M.num_rows();
  Ranks out{Vec("SpMVKit::pagerank::r", n)};
  Vec y("SpMVKit::pagerank::y", n);
  const auto r = out.r;
  Kokkos::deep_copy(exec, r, 1.0 / n);
  for (out.iterations = 1; out.iterations <= max_iterations; ++out.iterations) {
    spmvkit::spmv(exec, 1.0, M, r, 0.0, y);
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
    if (out.change < tol) break;
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

int example(ex::Args const& args) {
  const Exec exec;
  const bool weighted = args.flag("weighted");
  const double d = args.real("damping"), tol = args.real("tol");
  const int max_iterations = static_cast<int>(args.integer("max-iters"));
  const int C = ex::chunk_size_option<Exec>(args);
  const auto W = args.str("matrix").empty()
                     ? random_graph(static_cast<int>(args.integer("nodes")),
                                    static_cast<unsigned>(args.integer("seed")))
                     : spmvkit::read_matrix_market<double, Exec>(args.str("matrix"), exec);
  if (W.num_rows() != W.num_cols() || W.num_rows() == 0) {
    throw std::invalid_argument("the adjacency matrix must be square and non-empty");
  }
  const int n = W.num_rows();
  std::cout << "pagerank: " << (args.str("matrix").empty() ? "random graph" : args.str("matrix"))
            << ", " << n << " nodes, " << W.nnz() << " edges, damping " << d << ", " << Exec::name()
            << "\n";

  const Transition t = transition_matrix(exec, W, weighted);
  double dangling_nodes = 0;
  const auto dangling = t.dangling;
  Kokkos::parallel_reduce(
      "SpMVKit::pagerank::count_dangling", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int i, double& s) { s += dangling(i); }, dangling_nodes);
  const auto S = spmvkit::make_sell(exec, t.M, C, args.integer("sigma"));
  Kokkos::Timer timer;
  const Ranks crs = power_iteration(exec, t.M, t.dangling, d, tol, max_iterations);
  const double crs_seconds = timer.seconds();
  timer.reset();
  const Ranks sell = power_iteration(exec, S, t.dangling, d, tol, max_iterations);
  const double sell_seconds = timer.seconds();
  const auto host = host_pagerank(W, weighted, d, tol, max_iterations);

  auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), crs.r);
  const double sum = std::accumulate(r.data(), r.data() + n, 0.0);
  double to_host = 0, rmax = 0;
  for (int i = 0; i < n; ++i) {
    to_host = std::max(to_host, std::fabs(r(i) - host[i]));
    rmax = std::max(rmax, r(i));
  }
  const double crs_vs_sell = ex::relative_difference(sell.r, crs.r);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + std::min(n, 5), order.end(),
                    [&](int a, int b) { return r(a) > r(b); });
  std::cout << static_cast<std::int64_t>(dangling_nodes)
            << " dangling nodes; crs: " << crs.iterations << " iterations in "
            << ex::fixed(crs_seconds, 3) << " s, sell-" << C << "-" << S.sigma() << ": "
            << sell.iterations << " iterations in " << ex::fixed(sell_seconds, 3)
            << " s\ntop nodes:";
  for (int k = 0; k < std::min(n, 5); ++k)
    std::cout << " " << order[k] << " (" << ex::sci(r(order[k])) << ")";
  std::cout << "\nsum of ranks - 1 = " << ex::sci(sum - 1, 2)
            << ", max |r - host r| / max r = " << ex::sci(to_host / rmax, 2)
            << ", crs vs sell = " << ex::sci(crs_vs_sell, 2) << "\n";

  ex::Checks checks;
  checks.expect(!(crs.change >= tol || sell.change >= tol),
                "no convergence in " + std::to_string(max_iterations) + " iterations");
  checks.expect(std::fabs(sum - 1) < 1e-9, "ranks do not sum to 1");
  // Both stop at an L1 change below tol, so they sit within ~tol/(1-d) of the
  // fixed point and of each other.
  checks.expect(to_host <= 10 * tol / (1 - d) && crs_vs_sell * rmax <= 10 * tol / (1 - d),
                "device ranks differ from the host power iteration or between formats");
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  return ex::run_example(argc, argv, "pagerank", "power iteration with CRS and SELL SpMV",
                         {{"matrix", ""},
                          {"nodes", "5000"},
                          {"seed", "1"},
                          {"damping", "0.85"},
                          {"tol", "1e-10"},
                          {"max-iters", "1000"},
                          {"C", "auto"},
                          {"sigma", "1"}},
                         {"weighted"}, example);
}
