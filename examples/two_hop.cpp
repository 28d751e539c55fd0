// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Two-hop neighbourhoods of a graph with spmvkit::spgemm: with A the adjacency
// matrix (A(i, j) = 1 for an edge i -> j), C = A A counts the walks of length
// two, C(i, j) = number of k with i -> k -> j, and row i of C lists the nodes
// two hops from i. The symbolic phase finds the structure once; the numeric
// phase then runs again with edge weights in place of the ones (same
// pattern, new values: the handle is reused), giving the weight of all two-hop
// walks from i to j.
//
// Without --matrix a random directed graph is generated, with a few hubs
// whose rows, and the rows of nodes that reach them, are long. Every
// stored entry of a file is an edge. Checks, against a plain host computation:
// C's structure (sorted columns, exact), the walk counts (exact integers), the
// weighted sums (within rounding); exits 1 otherwise. `two_hop --help` lists
// the options.
#include "example_cli.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;

struct Config {
  std::string matrix;
  int nodes = 20000;
  int hubs = 4;
  std::int64_t seed = 3;
};

/// A random directed graph: out-degrees 0..6, targets skewed towards low node
/// numbers, and `hubs` nodes with edges to a tenth of the graph.
Crs random_graph(int nodes, int hubs, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> degree(0, 6);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int> starts{0}, cols;
  for (int i = 0; i < nodes; ++i) {
    std::vector<int> targets;
    const int k = std::min(i < hubs ? nodes / 10 : degree(gen), nodes - 1);
    while (static_cast<int>(targets.size()) < k) {
      const int t = static_cast<int>(nodes * unit(gen) * (i < hubs ? 1.0 : unit(gen)));
      if (t != i && std::find(targets.begin(), targets.end(), t) == targets.end())
        targets.push_back(t);
    }
    std::sort(targets.begin(), targets.end());
    cols.insert(cols.end(), targets.begin(), targets.end());
    starts.push_back(static_cast<int>(cols.size()));
  }
  Crs A("graph", nodes, nodes, static_cast<std::int64_t>(cols.size()));
  auto rs = Kokkos::create_mirror_view(A.row_starts());
  auto ci = Kokkos::create_mirror_view(A.column_indices());
  for (std::size_t i = 0; i < starts.size(); ++i) rs(i) = starts[i];
  for (std::size_t k = 0; k < cols.size(); ++k) ci(k) = cols[k];
  Kokkos::deep_copy(A.row_starts(), rs);
  Kokkos::deep_copy(A.column_indices(), ci);
  return A;
}

/// Host copy of a matrix's three arrays.
struct HostMatrix {
  std::vector<int> rs, ci;
  std::vector<double> v;
  explicit HostMatrix(Crs const& A) {
    auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
    auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
    rs.assign(r.data(), r.data() + r.extent(0));
    ci.assign(c.data(), c.data() + c.extent(0));
    v.assign(x.data(), x.data() + x.extent(0));
  }
};

/// C = A A on the host, row by row, against the device's C: the same columns
/// in the same (sorted) order, values within 8 eps (walks + 2) (|A||A|)_ij.
void check_product(HostMatrix const& a, HostMatrix const& c, std::string const& what,
                   ex::Checks& checks) {
  const int n = static_cast<int>(a.rs.size()) - 1;
  std::int64_t wrong_rows = 0, first_wrong = -1;
  for (int i = 0; i < n; ++i) {
    std::map<int, std::pair<double, double>> row; // column -> (sum, sum of magnitudes)
    for (int ka = a.rs[i]; ka < a.rs[i + 1]; ++ka) {
      const int k = a.ci[ka];
      for (int kb = a.rs[k]; kb < a.rs[k + 1]; ++kb) {
        auto& e = row[a.ci[kb]];
        e.first += a.v[ka] * a.v[kb];
        e.second += std::fabs(a.v[ka] * a.v[kb]);
      }
    }
    bool ok = c.rs[i + 1] - c.rs[i] == static_cast<int>(row.size());
    int p = c.rs[i];
    for (auto const& [col, e] : row) {
      if (!ok) break;
      const double tol = 8 * 2.2e-16 * (a.rs[i + 1] - a.rs[i] + 2) * e.second;
      ok = c.ci[p] == col && std::fabs(c.v[p] - e.first) <= tol;
      ++p;
    }
    if (!ok && wrong_rows++ == 0) first_wrong = i;
  }
  checks.expect(wrong_rows == 0, what + ": " + std::to_string(wrong_rows) +
                                     " rows of C differ from the host's, the first is row " +
                                     std::to_string(first_wrong));
}

int example(Config const& cfg) {
  const Exec exec;
  Crs A = cfg.matrix.empty() ? random_graph(cfg.nodes, cfg.hubs, static_cast<unsigned>(cfg.seed))
                             : spmvkit::read_matrix_market<double, Exec>(cfg.matrix, exec);
  if (A.num_rows() != A.num_cols()) {
    throw ex::UsageError("--matrix: the adjacency matrix must be square, it is " +
                         std::to_string(A.num_rows()) + " x " + std::to_string(A.num_cols()));
  }
  Kokkos::deep_copy(A.values(), 1.0); // every stored entry is an edge
  std::cout << "graph: " << A.num_rows() << " nodes, " << A.nnz() << " edges\n";

  spmvkit::SpgemmHandle<double, Exec> handle;
  Kokkos::Timer timer;
  spmvkit::spgemm_symbolic(exec, handle, A, A);
  const double t_symbolic = timer.seconds();
  timer.reset();
  Crs C = spmvkit::spgemm_numeric(exec, handle, A, A);
  exec.fence();
  const double t_numeric = timer.seconds();

  ex::Checks checks;
  const HostMatrix ha(A);
  HostMatrix hc(C);
  check_product(ha, hc, "walk counts", checks);
  std::int64_t pairs = 0, walks = 0, best = 0;
  int best_node = 0;
  for (int i = 0; i + 1 < static_cast<int>(hc.rs.size()); ++i) {
    const std::int64_t reach = hc.rs[i + 1] - hc.rs[i];
    pairs += reach;
    if (reach > best) best = reach, best_node = i;
    for (int p = hc.rs[i]; p < hc.rs[i + 1]; ++p) {
      checks.expect(hc.v[p] == std::floor(hc.v[p]) && hc.v[p] >= 1,
                    "C(" + std::to_string(i) + ", " + std::to_string(hc.ci[p]) +
                        ") is not a positive walk count");
      walks += static_cast<std::int64_t>(hc.v[p]);
    }
  }
  checks.expect(walks == handle.multiply_adds(),
                "the walk counts add up to " + std::to_string(walks) + ", not the " +
                    std::to_string(handle.multiply_adds()) + " multiply-adds");
  auto const bins = handle.row_bins();
  auto const& mem = handle.memory();
  std::cout << std::setprecision(4) << "two-hop pairs (i, j): " << pairs << " from " << walks
            << " walks of length two (compression " << handle.compression_ratio() << ")\n"
            << "most two-hop neighbours: node " << best_node << " reaches " << best << " nodes\n"
            << "rows by accumulator: narrow " << bins.narrow << ", hash " << bins.hash << ", dense "
            << bins.dense << ", global " << bins.global << ", empty " << bins.empty << "\n"
            << "memory: C " << mem.output_bytes / 1024.0 << " KiB, peak " << mem.peak_bytes / 1024.0
            << " KiB, team scratch " << mem.team_scratch_bytes << " bytes\n"
            << "symbolic " << t_symbolic * 1e3 << " ms, numeric " << t_numeric * 1e3 << " ms ("
            << (t_numeric > 0 ? 2.0 * static_cast<double>(walks) / t_numeric / 1e9 : 0.0)
            << " GFlop/s)\n";

  // Weighted walks: new values, same pattern, the same handle.
  std::vector<double> w(static_cast<std::size_t>(A.nnz()));
  std::mt19937_64 gen(static_cast<unsigned>(cfg.seed) + 1);
  std::uniform_real_distribution<double> weight(0.5, 2.0);
  for (auto& x : w) x = weight(gen);
  Kokkos::deep_copy(A.values(), Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                    w.data(), w.size()));
  timer.reset();
  spmvkit::spgemm_numeric(exec, handle, A, A);
  exec.fence();
  std::cout << "numeric phase again with edge weights: " << timer.seconds() * 1e3 << " ms\n";
  check_product(HostMatrix(A), HostMatrix(handle.matrix()), "weighted walks", checks);
  std::cout << (checks.failures() == 0 ? "checks: C matches the host's two-hop counts and sums\n"
                                       : "checks: FAILED\n");
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::input_file_option("matrix", "PATH",
                            "Matrix Market file of the graph (each stored entry is an edge)",
                            cfg.matrix, "a random graph"),
      ex::integer_option("nodes", "nodes of the random graph", cfg.nodes, 1, 10000000),
      ex::integer_option("hubs", "nodes of the random graph with edges to a tenth of it", cfg.hubs,
                         0, 1000),
      ex::integer_option("seed", "seed of the random graph and the weights", cfg.seed, 0,
                         std::int64_t(1) << 31),
  };
  return ex::run_example(
      argc, argv,
      {"two_hop",
       "Two-hop neighbourhoods of a graph: C = A A with spmvkit::spgemm (symbolic phase once, "
       "numeric phase for walk counts, then again for edge weights), checked against a host "
       "computation. Exit status 1 if a check fails."},
      options, [&] { return example(cfg); });
}
