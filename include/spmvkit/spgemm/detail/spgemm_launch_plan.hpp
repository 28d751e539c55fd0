// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_LAUNCH_PLAN_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_LAUNCH_PLAN_HPP

/// \file
/// The launch of every bin: its accumulator, rows, capacity and launch shape,
/// and the global pool's share of memory.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/spgemm/detail/spgemm_row_bins.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// Bins lo..hi (consecutive in the row order) as one launch shaped like bin `shape`.
inline SpgemmBinLaunch spgemm_bin_range(SpgemmBinLaunch const (&launch)[spgemm_num_bins], int lo,
                                        int hi, int shape) {
  SpgemmBinLaunch l = launch[shape];
  l.first = launch[lo].first;
  l.count = 0;
  for (int b = lo; b <= hi; ++b) l.count += launch[b].count;
  return l;
}

/// Whether bins lo..hi take a row per thread: rows enough to fill the
/// device (spgemm_narrow_parameters), else they go with the hash bin's teams.
inline bool spgemm_rows_per_thread(SpgemmBinLaunch const (&launch)[spgemm_num_bins], int lo, int hi,
                                   std::int64_t min_rows) {
  const std::int64_t rows = spgemm_bin_range(launch, lo, hi, lo).count;
  return rows > 0 && rows >= min_rows;
}

/// The first bin of the symbolic passes' team-per-row hash launch: the short
/// bin where the narrow kernel takes the narrow bin, else the narrow bin.
inline int spgemm_first_team_bin(SpgemmBinLaunch const (&launch)[spgemm_num_bins],
                                 std::int64_t min_rows) {
  return spgemm_rows_per_thread(launch, spgemm_bin_narrow, spgemm_bin_narrow, min_rows)
             ? spgemm_bin_short
             : spgemm_bin_narrow;
}

/// Launch shapes of the bins; the global bin's pool slot size and slot count
/// from its longest row and the memory it may take. Returns the pool's entries.
template <class ExecutionSpace>
std::int64_t
spgemm_plan_launches(ExecutionSpace const& exec, SpgemmBinLaunch (&launch)[spgemm_num_bins],
                     std::int64_t global_max_bound, std::int64_t n, double mean_products,
                     double mean_b_row, std::uint64_t entry_bytes, std::uint64_t pool_budget,
                     int team_size) {
  for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
    auto& l = launch[b];
    std::int64_t max_slots = 0;
    if (b == spgemm_bin_global) {
      const std::int64_t slots = spgemm_hash_slots(global_max_bound);
      l.global_dense = n <= slots;
      l.capacity = l.global_dense ? n : slots;
      const std::uint64_t per_slot = static_cast<std::uint64_t>(l.capacity) * entry_bytes;
      max_slots = std::min<std::int64_t>(
          spgemm_concurrent_teams(exec),
          std::max<std::int64_t>(
              1, static_cast<std::int64_t>(pool_budget / std::max<std::uint64_t>(1, per_slot))));
    }
    // The hash bin's shape serves the narrow and short bins' rows too where
    // they go with its teams (spgemm_bin_range), even with no rows of its own.
    const std::int64_t rows =
        b == spgemm_bin_hash ? spgemm_bin_range(launch, spgemm_bin_narrow, b, b).count : l.count;
    l.p = spgemm_launch_parameters(exec, l.accumulator, rows, mean_products, mean_b_row, max_slots);
    l.concurrent = l.p.team_size * l.p.vector_length > 1;
    if (team_size > 0) {
      l.p.team_size = team_size;
      l.concurrent = true;
    }
  }
  auto const& g = launch[spgemm_bin_global];
  return g.count > 0 ? g.p.league_size * g.capacity : 0;
}

} // namespace spmvkit::detail

#endif
