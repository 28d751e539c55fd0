// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_DETAIL_HOST_GRAPH_HPP
#define SPMVKIT_REORDER_DETAIL_HOST_GRAPH_HPP

// Graphs on the host and the orderings computed on them: the symmetrized
// pattern of a matrix, breadth-first level structures, pseudo-peripheral
// vertices and (reverse) Cuthill-McKee, optionally weighted (Band-k's coarse
// graphs). These are sequential algorithms by nature (a breadth-first search
// whose visiting order is the result), so they run on the host, as Kokkos
// Kernels' graph_rcm does; the permutation they produce is applied on the
// device (reorder/permutation.hpp).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace spmvkit::detail {

/// An undirected graph in CSR form: the neighbours of v are
/// adj[starts[v] .. starts[v + 1]), sorted and without v itself, each edge
/// with a weight (1 for a matrix pattern; the number of fine edges between two
/// groups for a coarse graph). size[v] is how many fine vertices v stands for.
struct HostGraph {
  std::int64_t n = 0;
  std::vector<std::int64_t> starts{0};
  std::vector<std::int64_t> adj;
  std::vector<std::int64_t> weight;
  std::vector<std::int64_t> size;

  std::int64_t degree(std::int64_t v) const { return starts[v + 1] - starts[v]; }
  /// Sum of the edge weights of v: the degree that weighted orderings use.
  std::int64_t weighted_degree(std::int64_t v) const {
    std::int64_t d = 0;
    for (std::int64_t k = starts[v]; k < starts[v + 1]; ++k) d += weight[k];
    return d;
  }
};

/// A graph from a list of directed weighted edges (u, v, w), made symmetric:
/// each edge also counts for (v, u), loops are dropped and parallel edges
/// merge with their weights summed. Counting sort by u, then by v per list.
inline HostGraph symmetric_graph(std::int64_t n, std::vector<std::int64_t> const& from,
                                 std::vector<std::int64_t> const& to,
                                 std::vector<std::int64_t> const& w, bool sum_weights) {
  HostGraph g;
  g.n = n;
  std::vector<std::int64_t> count(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t e = 0; e < from.size(); ++e) {
    if (from[e] == to[e]) continue;
    ++count[from[e] + 1];
    ++count[to[e] + 1];
  }
  for (std::int64_t v = 0; v < n; ++v) count[v + 1] += count[v];
  std::vector<std::pair<std::int64_t, std::int64_t>> entries(static_cast<std::size_t>(count[n]));
  std::vector<std::int64_t> next(count.begin(), count.end() - 1);
  for (std::size_t e = 0; e < from.size(); ++e) {
    if (from[e] == to[e]) continue;
    entries[next[from[e]]++] = {to[e], w[e]};
    entries[next[to[e]]++] = {from[e], w[e]};
  }
  g.starts.assign(static_cast<std::size_t>(n) + 1, 0);
  g.adj.reserve(entries.size());
  g.weight.reserve(entries.size());
  for (std::int64_t v = 0; v < n; ++v) {
    auto first = entries.begin() + count[v], last = entries.begin() + count[v + 1];
    std::sort(first, last);
    for (auto it = first; it != last; ++it) {
      if (g.adj.size() > static_cast<std::size_t>(g.starts[v]) && g.adj.back() == it->first) {
        // A pattern edge present in A and in A^T is one edge of weight 1.
        if (sum_weights) g.weight.back() += it->second;
      } else {
        g.adj.push_back(it->first);
        g.weight.push_back(it->second);
      }
    }
    g.starts[v + 1] = static_cast<std::int64_t>(g.adj.size());
  }
  g.size.assign(static_cast<std::size_t>(n), 1);
  return g;
}

/// The pattern of A + A^T without the diagonal, from CRS arrays on the host
/// (any integer types). Entries with a column >= n (a rectangular matrix's
/// extra columns) are dropped.
template <class RowStarts, class Columns>
HostGraph symmetrized_pattern(std::int64_t n, RowStarts const& row_starts, Columns const& cols) {
  std::vector<std::int64_t> from, to;
  from.reserve(static_cast<std::size_t>(row_starts[n]));
  to.reserve(static_cast<std::size_t>(row_starts[n]));
  for (std::int64_t i = 0; i < n; ++i) {
    for (auto k = row_starts[i]; k < row_starts[i + 1]; ++k) {
      const auto j = static_cast<std::int64_t>(cols[k]);
      if (j < n) {
        from.push_back(i);
        to.push_back(j);
      }
    }
  }
  return symmetric_graph(n, from, to, std::vector<std::int64_t>(from.size(), 1), false);
}

/// Breadth-first search from `root` over the vertices with allowed[v] set,
/// writing the visiting order (level by level) to `order`; returns the number
/// of levels (the eccentricity of root + 1) and leaves the first vertex of the
/// last level at level_start. `stamp` marks visited vertices with `mark`.
inline std::int64_t bfs_levels(HostGraph const& g, std::int64_t root,
                               std::vector<char> const& allowed, std::vector<std::int64_t>& stamp,
                               std::int64_t mark, std::vector<std::int64_t>& order,
                               std::size_t& level_start) {
  order.clear();
  order.push_back(root);
  stamp[root] = mark;
  std::size_t begin = 0;
  std::int64_t levels = 0;
  while (begin < order.size()) {
    const std::size_t end = order.size();
    level_start = begin;
    ++levels;
    for (std::size_t q = begin; q < end; ++q) {
      const std::int64_t v = order[q];
      for (std::int64_t k = g.starts[v]; k < g.starts[v + 1]; ++k) {
        const std::int64_t u = g.adj[k];
        if (allowed[u] && stamp[u] != mark) {
          stamp[u] = mark;
          order.push_back(u);
        }
      }
    }
    begin = end;
  }
  return levels;
}

/// Cuthill-McKee over the vertices with allowed[v] set, appended to `out`
/// component by component: each component starts at a pseudo-peripheral
/// vertex (George and Liu: from the component's vertex of smallest degree,
/// move to the smallest-degree vertex of the last breadth-first level while
/// that lengthens the level structure), and each visited vertex queues its
/// unvisited neighbours by increasing degree, ties by index. `weighted`
/// uses the weighted degree (the sum of edge weights), as Band-k's coarse
/// graphs do; otherwise the number of neighbours. The caller reverses the
/// result for RCM. Deterministic: no step depends on anything but the graph.
inline void cuthill_mckee(HostGraph const& g, std::vector<char> const& allowed, bool weighted,
                          std::vector<std::int64_t>& out) {
  const std::int64_t n = g.n;
  std::vector<std::int64_t> deg(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) deg[v] = weighted ? g.weighted_degree(v) : g.degree(v);
  std::vector<std::int64_t> stamp(static_cast<std::size_t>(n), -1);
  std::vector<char> placed(static_cast<std::size_t>(n), 0);
  std::vector<std::int64_t> level_order, candidates;
  std::int64_t mark = 0;
  std::size_t last_level = 0;
  const auto by_degree = [&](std::int64_t a, std::int64_t b) {
    return deg[a] < deg[b] || (deg[a] == deg[b] && a < b);
  };
  for (std::int64_t seed = 0; seed < n; ++seed) {
    if (!allowed[seed] || placed[seed]) continue;
    // The component of seed, and its vertex of smallest degree.
    bfs_levels(g, seed, allowed, stamp, mark++, level_order, last_level);
    std::int64_t root = *std::min_element(level_order.begin(), level_order.end(), by_degree);
    std::int64_t levels = bfs_levels(g, root, allowed, stamp, mark++, level_order, last_level);
    while (true) {
      const std::int64_t x =
          *std::min_element(level_order.begin() + static_cast<std::ptrdiff_t>(last_level),
                            level_order.end(), by_degree);
      std::size_t x_last = 0;
      std::vector<std::int64_t> x_order;
      const std::int64_t x_levels = bfs_levels(g, x, allowed, stamp, mark++, x_order, x_last);
      if (x_levels <= levels) break;
      root = x;
      levels = x_levels;
      level_order.swap(x_order);
      last_level = x_last;
    }
    // Cuthill-McKee from root.
    std::size_t head = out.size();
    out.push_back(root);
    placed[root] = 1;
    while (head < out.size()) {
      const std::int64_t v = out[head++];
      candidates.clear();
      for (std::int64_t k = g.starts[v]; k < g.starts[v + 1]; ++k) {
        const std::int64_t u = g.adj[k];
        if (allowed[u] && !placed[u]) {
          placed[u] = 1;
          candidates.push_back(u);
        }
      }
      std::sort(candidates.begin(), candidates.end(), by_degree);
      out.insert(out.end(), candidates.begin(), candidates.end());
    }
  }
}

/// Reverse Cuthill-McKee of the whole graph: new_to_old[new] = old.
inline std::vector<std::int64_t> reverse_cuthill_mckee(HostGraph const& g, bool weighted = false) {
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(g.n));
  cuthill_mckee(g, std::vector<char>(static_cast<std::size_t>(g.n), 1), weighted, order);
  std::reverse(order.begin(), order.end());
  return order;
}

} // namespace spmvkit::detail

#endif
