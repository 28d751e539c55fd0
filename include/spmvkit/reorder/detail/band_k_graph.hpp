// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_DETAIL_BAND_K_GRAPH_HPP
#define SPMVKIT_REORDER_DETAIL_BAND_K_GRAPH_HPP

// Band-k on the host (reorder/band_k.hpp): coarsening by aggregation, the
// coarse graphs, and the expansion that orders each group's members.
#include <spmvkit/reorder/detail/host_graph.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::detail {

/// The coarsening step of Band-k: contracts runs of `target` consecutive
/// vertices of the bandwidth-limiting order `order` (the last run shorter)
/// into one coarse vertex each. Consecutive vertices of a (reverse)
/// Cuthill-McKee order lie in the same or adjacent breadth-first levels, so a
/// run's rows share neighbours, and the coarse graph stays banded.
///
/// Why runs and not connected aggregates grown breadth first from seeds
/// (the usual aggregation coarsening, tried first): compact aggregates are
/// small balls of the mesh, the coarse graph a coarser mesh, and after
/// expansion the bandwidth came out 2 to 4 times RCM's (FEM N = 40, 96 rows
/// per group: 16,112 against RCM's 4,447; with the growth kept within the
/// band, 7,000 to 10,000). Runs give 4,446, and mostly 1.0 to 1.5 times
/// RCM's bandwidth on the real matrices (2.4 on the 1138-row 1138_bus, with
/// 96-row groups): the paper's "slightly wider than RCM".
/// Returns the coarse vertex of each vertex; `count` receives their number.
inline std::vector<std::int64_t> contract_runs(std::vector<std::int64_t> const& order,
                                               std::int64_t target, std::int64_t& count) {
  const auto n = static_cast<std::int64_t>(order.size());
  std::vector<std::int64_t> group(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) group[order[p]] = p / target;
  count = (n + target - 1) / target;
  return group;
}

/// The coarse graph of a contraction: one vertex per group, an edge between
/// two groups weighted by the summed weights of the fine edges between them,
/// and each vertex's size the fine vertices it holds.
inline HostGraph coarse_graph(HostGraph const& g, std::vector<std::int64_t> const& agg,
                              std::int64_t count) {
  std::vector<std::int64_t> from, to, w;
  for (std::int64_t v = 0; v < g.n; ++v) {
    for (std::int64_t k = g.starts[v]; k < g.starts[v + 1]; ++k) {
      const std::int64_t u = g.adj[k];
      if (v < u && agg[v] != agg[u]) { // each fine edge once
        from.push_back(agg[v]);
        to.push_back(agg[u]);
        w.push_back(g.weight[k]);
      }
    }
  }
  HostGraph c = symmetric_graph(count, from, to, w, true);
  c.size.assign(static_cast<std::size_t>(count), 0);
  for (std::int64_t v = 0; v < g.n; ++v) c.size[agg[v]] += g.size[v];
  return c;
}

/// The expansion step of Band-k: the members of each group, group after
/// group in `coarse_order`, each group's members in the order `fine_order`
/// (the weighted RCM order of the fine graph, from which the groups were
/// contracted) gives them. That order restricted to a group is a
/// bandwidth-limiting order of its members which also agrees with its
/// neighbours. When the coarse order runs against the fine one (RCM may start
/// from either end of the graph), the members are taken in the reverse fine
/// order, so that the sweep does not turn around inside every group.
/// (Ordering each group by RCM of the subgraph it induces, blind to its
/// neighbours, gave FEM N = 14 a bandwidth of 886 with k = 2 against RCM's
/// 469.) group_sizes receives each group's member count, in coarse order.
inline std::vector<std::int64_t> expand(HostGraph const& g, std::vector<std::int64_t> const& agg,
                                        std::vector<std::int64_t> const& coarse_order,
                                        std::vector<std::int64_t> const& fine_order,
                                        std::vector<std::int64_t>& group_sizes) {
  const std::int64_t count = static_cast<std::int64_t>(coarse_order.size());
  // Members listed in fine order, per aggregate.
  std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(count));
  for (std::int64_t v : fine_order) members[agg[v]].push_back(v);
  // Orientation: does the coarse order visit the fine order forwards?
  std::vector<std::int64_t> position(static_cast<std::size_t>(g.n));
  for (std::size_t p = 0; p < fine_order.size(); ++p) position[fine_order[p]] = p;
  const auto mean_position = [&](std::int64_t a) {
    double sum = 0;
    for (std::int64_t v : members[a]) sum += static_cast<double>(position[v]);
    return members[a].empty() ? 0.0 : sum / static_cast<double>(members[a].size());
  };
  double agree = 0; // sum over consecutive aggregates of the direction they move in
  for (std::int64_t c = 0; c + 1 < count; ++c)
    agree += mean_position(coarse_order[c + 1]) > mean_position(coarse_order[c]) ? 1 : -1;
  const bool forwards = agree >= 0;
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(g.n));
  group_sizes.clear();
  for (std::int64_t a : coarse_order) {
    auto const& m = members[a];
    if (forwards) {
      out.insert(out.end(), m.begin(), m.end());
    } else {
      out.insert(out.end(), m.rbegin(), m.rend());
    }
    group_sizes.push_back(static_cast<std::int64_t>(m.size()));
  }
  return out;
}

/// Band-k (Kabir, Booth and Raghavan's ordering for CSR-k; Listing 2 of Lane
/// and Booth's heterogeneous CSR-k paper) on the graph g of the matrix rows:
/// k - 1 coarsening levels, level l contracting runs of `targets[l - 1]`
/// consecutive vertices of level l - 1's weighted RCM order (level 1: rows
/// per super-row; level 2: super-rows per super-super-row); the coarsest
/// graph ordered by weighted RCM; then expanded level by level, each group's
/// members in their level's RCM order. The groups of level 1 become the
/// super-rows, those of level 2 the super-super-rows, both contiguous in the
/// final order by construction.
///
/// Returns new_to_old for the rows; group_pointers[0] receives the row
/// pointer of the super-rows (count + 1 entries), group_pointers[1] (k = 3)
/// the super-row pointer of the super-super-rows.
inline std::vector<std::int64_t>
band_k_order(HostGraph const& g0, int k, std::vector<std::int64_t> const& targets,
             std::vector<std::vector<std::int64_t>>& group_pointers) {
  if (k < 2 || static_cast<int>(targets.size()) != k - 1) {
    throw std::invalid_argument("spmvkit::band_k: k must be >= 2 with k - 1 group sizes, got k = " +
                                std::to_string(k));
  }
  for (auto t : targets) {
    if (t < 1) throw std::invalid_argument("spmvkit::band_k: group sizes must be >= 1");
  }
  std::vector<HostGraph> graphs{g0};
  std::vector<std::vector<std::int64_t>> aggs, orders;
  for (int level = 1; level < k; ++level) {
    HostGraph const& fine = graphs.back();
    std::int64_t count = 0;
    orders.push_back(reverse_cuthill_mckee(fine, true));
    aggs.push_back(contract_runs(orders.back(), targets[level - 1], count));
    graphs.push_back(coarse_graph(fine, aggs.back(), count));
  }
  std::vector<std::int64_t> order = reverse_cuthill_mckee(graphs.back(), true);
  group_pointers.assign(static_cast<std::size_t>(k - 1), std::vector<std::int64_t>{0});
  for (int level = k - 1; level >= 1; --level) {
    std::vector<std::int64_t> sizes;
    order = expand(graphs[level - 1], aggs[level - 1], order, orders[level - 1], sizes);
    auto& pointer = group_pointers[level - 1];
    for (std::int64_t s : sizes) pointer.push_back(pointer.back() + s);
  }
  return order;
}

} // namespace spmvkit::detail

#endif
