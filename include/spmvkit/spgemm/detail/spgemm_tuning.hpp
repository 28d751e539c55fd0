// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_TUNING_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_TUNING_HPP

// SpGEMM's accumulator choice, scratch budgets and launch shapes, kept with
// SpGEMM (a constant here rebuilds only what includes SpGEMM).

#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// SpGEMM (spgemm/spgemm.hpp): where a row of C is accumulated, chosen
/// per row from a bound on its length (symbolic phase: min(sum over a_ik of
/// nnz(B row k), num_cols); numeric phase: the exact length).
/// - hash: a linear-probing hash table of 2 x bound slots (a power of two) in
///   team scratch, for rows whose table fits there (in the symbolic passes on
///   GPUs, rows of it whose columns span at most spgemm_max_window_words
///   32-bit words take a bitmap of that window instead);
/// - dense: a dense window over column tiles in team scratch (the tiled
///   accumulator of the CUDA SpGEMM project report that SpMVKit started
///   from), for rows too long for the scratch hash table when B has few
///   enough columns that at most spgemm_max_tile_passes tiles cover them
///   (each tile walks every product of the row once more);
/// - global: a hash table (or, where B has fewer columns than the table
///   would have slots, a dense array of num_cols entries) in a pool of device
///   memory with one slot per concurrently running team, for the rest.
/// - workspace (host symbolic phase only, every row at once, no bins): a
///   dense array of num_cols marks per thread, the seed's dense accumulator at
///   full width (Gustavson's, as Kokkos Kernels and MKL use on CPUs); see
///   spgemm_use_workspace().
enum class SpgemmAccumulator { hash, dense, global, workspace };

/// Scratch budget of one SpGEMM team, in bytes. GPUs: 24 KiB of shared
/// memory (2048 hash slots of int + double), so that several 128-thread teams
/// fit on a multiprocessor. Host backends: 192 KiB per thread (16384 hash
/// slots), which stays within a core's L2 cache on current x86 parts, so that
/// rows of up to 8K distinct columns never leave the team's scratch.
template <class ExecutionSpace>
constexpr std::size_t spgemm_scratch_budget() {
  return is_host_space_v<ExecutionSpace> ? std::size_t(192) * 1024 : std::size_t(24) * 1024;
}
/// Team scratch level of SpGEMM's accumulators: 0 (shared memory) on GPUs;
/// 1 on host backends, where both levels are the thread's own memory and
/// Kokkos caps level 0 at 32 KiB.
template <class ExecutionSpace>
constexpr int spgemm_scratch_level() {
  return is_host_space_v<ExecutionSpace> ? 1 : 0;
}
/// At most this many column tiles per row for the dense accumulator; beyond,
/// the row goes to the global accumulator (every tile re-reads the row's
/// products, so four tiles cost four passes).
inline constexpr int spgemm_max_tile_passes = 4;
/// Smallest hash table of a row: a few slots more than one probe sequence
/// needs, so that very short rows do not pay for power-of-two rounding.
inline constexpr int spgemm_min_hash_slots = 16;
/// Widest bitmap window of a row of C on the concurrent (GPU) path, in 32-bit
/// words: 65536 columns, 16.5 KiB of team scratch in the fill pass (bits, a
/// place per word, a summary), within spgemm_scratch_budget. Rows of the
/// scratch-hash bin whose columns span at most this are counted and filled
/// through the window instead of the hash table (SpgemmRows::window_row): a
/// 27-point FEM row of A A spans about 4 N^2 columns, about 1165 words at N = 96.
inline constexpr std::int64_t spgemm_max_window_words = 2048;
/// Device memory the global accumulator pool may take when the caller sets
/// no limit (SpgemmOptions::memory_limit): slots are dropped (teams loop over
/// more rows each) before the pool grows beyond this.
inline constexpr std::uint64_t spgemm_default_pool_bytes = std::uint64_t(512) << 20;
/// The numeric phase's stored product positions (SpgemmNumeric::positions)
/// may take at most this many times C's own bytes: 2 or 4 bytes per
/// multiply-add against 12 (double) or 8 (float, int columns) per nonzero of C,
/// so products of up to about 12 (resp. 8) multiply-adds per nonzero keep
/// them: every FEM product (27-point A·A: 5.8), every graph we measured.
/// Beyond, the positions would dominate the handle's memory for a phase that
/// hashing still does in time proportional to the same multiply-adds.
inline constexpr std::uint64_t spgemm_positions_max_ratio = 2;

/// The scratch accumulators' sizes for a value type and index type.
struct SpgemmScratchLimits {
  /// Slots of the scratch hash table (a power of two).
  std::int64_t hash_slots = 0;
  /// Columns of one dense tile.
  std::int64_t tile_columns = 0;
};

template <class ExecutionSpace>
SpgemmScratchLimits spgemm_scratch_limits(std::size_t scalar_bytes, std::size_t ordinal_bytes) {
  const auto budget = static_cast<double>(spgemm_scratch_budget<ExecutionSpace>());
  SpgemmScratchLimits l;
  l.hash_slots =
      largest_power_of_two_at_most(budget / static_cast<double>(scalar_bytes + ordinal_bytes));
  l.tile_columns =
      static_cast<std::int64_t>(budget / static_cast<double>(scalar_bytes + ordinal_bytes));
  return l;
}

/// GPU vector lanes of an SpGEMM row kernel: a power of two near the mean
/// row of B (lanes walk a row of B), 4 to 32.
inline int spgemm_vector_lanes(double mean_b_row) {
  return std::clamp(largest_power_of_two_at_most(std::max(1.0, mean_b_row)), 4, 32);
}

/// Launch shape of one SpGEMM accumulator bin: a team accumulates one row at
/// a time, its threads over the entries a_ik of the row of A, each thread's
/// vector lanes over the row k of B. Teams walk rows_per_team consecutive
/// rows of the bin.
///
/// Host backends: teams of one thread (no atomics, a serial sort per row),
/// each walking rows worth about 16K multiply-adds so that scheduling stays
/// small against the work, at least 8 teams per thread for dynamic balance;
/// the global bin gets one team (one pool slot) per thread; the workspace
/// (all rows of A, empty ones included) is split like the hash bin.
/// GPUs: vector lanes sized to the mean row of B (a power of two, 4 to 32),
/// 128 threads per team for hash rows (about 27 x 27 products per FEM row
/// fill them), 256 for dense and global rows, which are long by construction;
/// one row per team. The global bin's league is capped by `max_slots` (the
/// pool's size, set from memory): its teams then walk several rows each.
template <class ExecutionSpace>
LaunchParameters spgemm_launch_parameters(ExecutionSpace const& exec, SpgemmAccumulator acc,
                                          std::int64_t rows, double mean_products_per_row,
                                          double mean_b_row, std::int64_t max_slots) {
  LaunchParameters p;
  if (rows <= 0) return p;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    (void)mean_b_row;
    const std::int64_t threads = std::max<std::int64_t>(1, exec.concurrency());
    p.team_size = 1;
    p.vector_length = 1;
    if (acc == SpgemmAccumulator::global) {
      p.league_size = std::min({rows, threads, std::max<std::int64_t>(1, max_slots)});
      p.work_per_team = (rows + p.league_size - 1) / p.league_size;
      p.league_size = (rows + p.work_per_team - 1) / p.work_per_team;
      return p;
    }
    const auto by_work = static_cast<std::int64_t>(16384.0 / std::max(1.0, mean_products_per_row));
    const std::int64_t by_balance = std::max<std::int64_t>(1, rows / (8 * threads));
    p.work_per_team = std::clamp<std::int64_t>(std::min(by_work, by_balance), 1, rows);
  } else {
    (void)exec, (void)mean_products_per_row;
    p.vector_length = spgemm_vector_lanes(mean_b_row);
    p.team_size = (acc == SpgemmAccumulator::hash ? 128 : 256) / p.vector_length;
    p.work_per_team = 1;
    if (acc == SpgemmAccumulator::global) {
      p.work_per_team =
          (rows + std::max<std::int64_t>(1, max_slots) - 1) / std::max<std::int64_t>(1, max_slots);
    }
  }
  p.league_size = (rows + p.work_per_team - 1) / p.work_per_team;
  return p;
}

/// The host symbolic phase's per-thread dense workspace (SpgemmAccumulator::
/// workspace): num_cols marks per thread, each holding the last row that
/// touched its column, and, in the fill pass, a buffer of num_cols + 1
/// entries per thread (gathered columns, then each column's position in its
/// row). A product then costs a load, a compare and a store, without
/// branches, in each pass, against a hash probe sequence in scratch and a
/// heap sort per row (SpgemmWorkspaceRows says how rows are sorted). A row is
/// read off its marks in order where its column span is at most
/// spgemm_workspace_scan_ratio times its length (FEM rows: ~9), else sorted
/// by rank up to spgemm_workspace_rank_sort_max columns, by std::sort beyond.
/// The rank sort beat std::sort on rows of ~22 columns on the 2-core VM
/// (docs/notes/2026-11-23-spgemm-host-workspace.md).
///
/// Chosen on host backends only (GPUs keep the binned accumulators: a
/// workspace per thread of a GPU is beyond any device's memory) when
/// `bytes` (all threads' workspaces) fit `budget`, the memory the global pool
/// may take, and the product is not so sparse that clearing the marks
/// (threads x num_cols stores) outweighs its multiply-adds: at most
/// spgemm_workspace_columns_per_product marks per multiply-add, so that a few
/// rows times a wide B keep the scratch hash tables. `forced` (SpgemmSymbolic::workspace)
/// skips the latter rule, never the budget.
inline constexpr std::int64_t spgemm_workspace_scan_ratio = 16;
inline constexpr std::int64_t spgemm_workspace_rank_sort_max = 64;
inline constexpr std::int64_t spgemm_workspace_columns_per_product = 8;

template <class ExecutionSpace>
bool spgemm_use_workspace(std::int64_t threads, std::int64_t num_cols, std::int64_t multiply_adds,
                          std::uint64_t bytes, std::uint64_t budget, bool forced = false) {
  if constexpr (is_host_space_v<ExecutionSpace>) {
    if (bytes > budget) return false;
    return forced ||
           num_cols / spgemm_workspace_columns_per_product <=
               std::max<std::int64_t>(1, multiply_adds) / std::max<std::int64_t>(1, threads);
  } else {
    (void)threads, (void)num_cols, (void)multiply_adds, (void)bytes, (void)budget, (void)forced;
    return false;
  }
}

/// Launch shape of SpgemmPositionChunks, the numeric phase (and the search
/// for the product positions) of rows that team scratch does not hold, split
/// into chunks of work_per_team consecutive products, one team each.
/// GPUs: 256 threads (8 x 32 lanes, which take consecutive products) and 16
/// products per thread, so that a chunk's one search for its first entry is
/// small against its work and a hub row of millions of products spreads over
/// hundreds of teams. Host backends keep such rows whole in teams of one
/// thread (no atomics, nothing to split); only SpgemmOptions::team_size, which forces the
/// concurrent path there, gets chunks, short ones, so that
/// tests split rows, and single entries of A, across chunks.
template <class ExecutionSpace>
LaunchParameters spgemm_chunk_parameters(ExecutionSpace const& exec, int team_size) {
  (void)exec;
  LaunchParameters p;
  if (is_host_space_v<ExecutionSpace> || team_size > 0) {
    p.team_size = std::max(1, team_size);
    p.vector_length = 1;
    p.work_per_team = 64;
    return p;
  }
  p.team_size = 8;
  p.vector_length = 32;
  p.work_per_team = 16 * p.team_size * p.vector_length;
  return p;
}

/// Launch shape of a numeric phase's pattern fingerprint
/// (SpgemmFingerprintTeams; the hashing teams of SpgemmListValues and
/// SpgemmPositionEntries):
/// work_per_team indices a team, 16 per thread on GPUs (8 x 32 lanes).
template <class ExecutionSpace>
LaunchParameters spgemm_fingerprint_parameters(ExecutionSpace const& exec, int team_size) {
  (void)exec;
  LaunchParameters p;
  if (is_host_space_v<ExecutionSpace> || team_size > 0) {
    p.team_size = std::max(1, team_size);
    p.work_per_team = 1024 * p.team_size;
    return p;
  }
  p.team_size = 8;
  p.vector_length = 32;
  p.work_per_team = 16 * p.team_size * p.vector_length;
  return p;
}

/// The GPUs' numeric phase from stored positions by entry of A
/// (SpgemmPositionEntries): `starts` writes each entry's row start of C (a
/// row per thread), `values` takes work_per_team entries of A a team, a
/// thread's vector lanes (sized to the mean row of B) over each entry's row
/// of B, beside teams that hash `fingerprint_items` of the patterns' indices
/// (spgemm_fingerprint_parameters), and `check` is the one team that compares
/// the fingerprint afterwards. `use`: GPUs, where no row of B is longer than
/// `longest_row` entries (a thread's lanes walk a whole row of B, so a hub
/// row of a power-law graph would hold one thread for thousands of products;
/// those products keep the row and chunk kernels) and the product has at most
/// `most_multiply_adds`: every product is an atomic add in the L2 cache,
/// while the row kernels merge a FEM row's products in scratch first: by
/// entry won on small products and lost on large ones
/// (docs/notes/2026-11-24-spgemm-numeric-by-entry.md). Host
/// backends keep the scratch kernels (one-thread teams, no atomics) unless
/// `forced` (SpgemmNumeric::entries), which takes it wherever rows of B allow.
struct SpgemmEntryPlan {
  LaunchParameters starts, values, check;
  std::int64_t fingerprint_items = 0;
  bool use = false;
  static constexpr std::int64_t longest_row = 2048;
  static constexpr std::int64_t most_multiply_adds = std::int64_t(1) << 24;
};

/// `longest_b_row()` finds the longest row of B (a reduction and a wait on
/// the device), called only where the other conditions hold.
template <class ExecutionSpace, class LongestRow>
SpgemmEntryPlan spgemm_entry_parameters(ExecutionSpace const& exec, double mean_b_row,
                                        LongestRow const& longest_b_row, std::int64_t multiply_adds,
                                        int team_size, bool forced) {
  SpgemmEntryPlan l;
  l.fingerprint_items = spgemm_fingerprint_parameters(exec, team_size).work_per_team;
  if (is_host_space_v<ExecutionSpace> || team_size > 0) {
    const int t = std::max(1, team_size);
    l.use = forced && longest_b_row() <= SpgemmEntryPlan::longest_row;
    l.starts.team_size = l.values.team_size = l.check.team_size = t;
    l.starts.work_per_team = 64 * t;
    l.values.work_per_team = 64 * t;
    return l;
  }
  l.use = (forced || multiply_adds <= SpgemmEntryPlan::most_multiply_adds) &&
          longest_b_row() <= SpgemmEntryPlan::longest_row;
  l.starts.vector_length = 8;
  l.starts.team_size = 32;
  l.starts.work_per_team = l.starts.team_size;
  l.values.vector_length = spgemm_vector_lanes(mean_b_row);
  l.values.team_size = 256 / l.values.vector_length;
  // Four entries a thread, in turn: one a thread helped long rows of B and
  // hurt FEM-like ones, not settled (docs/notes/2026-11-24-spgemm-product-lists.md).
  l.values.work_per_team = 4 * l.values.team_size;
  l.check.team_size = 8;
  l.check.vector_length = 32;
  return l;
}

/// The numeric phase from lists of products (SpgemmListValues,
/// SpgemmNumeric::product_lists): the symbolic phase lists, for every entry
/// of C, the products a_ik b_kj that land there (as the positions of a_ik in A
/// and of b_kj in B), so that a numeric phase sums each entry's list in a
/// register: no accumulator in scratch to clear, no atomics, one store per
/// entry. Shapes: `build` walks entries of A (work_per_team of them a team,
/// lanes over each row of B) to count and then write each entry's list,
/// `scan` turns a row's counts into starts (a row per thread, lanes over the
/// row); `values` sums work_per_team entries of C a team (a thread or lane
/// each, four times over on GPUs) beside teams that hash `fingerprint_items`
/// of the patterns' indices each (spgemm_fingerprint_parameters, whose team
/// shape is that of `values`), except the entries whose lists are longer
/// than `long_list`, which take a thread's vector lanes each (a warp on
/// GPUs; on host backends a thread is one lane, so none is long there but
/// through SpgemmOptions::team_size). `check` is the one team that compares the
/// fingerprint afterwards (SpgemmPatternCheck). SpgemmOptions::team_size
/// gives host teams that many threads and lists longer than 4 the long path.
struct SpgemmListPlan {
  LaunchParameters build, scan, values, check;
  std::int64_t fingerprint_items = 0;
  std::int64_t long_list = 0;
};

template <class ExecutionSpace>
SpgemmListPlan spgemm_list_parameters(ExecutionSpace const& exec, double mean_b_row,
                                      int team_size) {
  (void)exec;
  SpgemmListPlan l;
  if (is_host_space_v<ExecutionSpace> || team_size > 0) {
    const int t = std::max(1, team_size);
    l.build.team_size = l.values.team_size = t;
    l.build.work_per_team = 64 * t;
    l.scan.team_size = t;
    l.scan.work_per_team = 64 * t;
    l.values.work_per_team = 256 * t;
    l.check.team_size = t;
    l.long_list = team_size > 0 ? 4 : std::numeric_limits<std::int64_t>::max();
    l.fingerprint_items = spgemm_fingerprint_parameters(exec, team_size).work_per_team;
    return l;
  }
  l.build.vector_length = spgemm_vector_lanes(mean_b_row);
  l.build.team_size = 256 / l.build.vector_length;
  l.build.work_per_team = 4 * l.build.team_size;
  l.scan.vector_length = 32;
  l.scan.team_size = 4;
  l.scan.work_per_team = l.scan.team_size;
  l.values.team_size = 8;
  l.values.vector_length = 32;
  // Four entries a lane, in turn: one a lane was faster on bcsstk08 only
  // (docs/notes/2026-11-24-spgemm-product-lists.md).
  l.values.work_per_team = 4 * l.values.team_size * l.values.vector_length;
  l.check.team_size = 8;
  l.check.vector_length = 32;
  l.long_list = 32;
  l.fingerprint_items = spgemm_fingerprint_parameters(exec, team_size).work_per_team;
  return l;
}

/// The narrow bin (SpgemmNarrowRows, and the numeric phase from product
/// positions): rows short enough that each thread's vector lanes take a whole
/// row in the thread's own share of team scratch, without team barriers,
/// instead of a 128-thread team per row that a row of a few dozen products
/// leaves mostly idle (planar meshes, road networks: 5-40 products a row).
/// GPUs only, where teams are wide: host teams are one thread already, and
/// take no narrow bin except through SpgemmOptions::team_size, which forces the
/// concurrent path there (its threads, one lane each).
/// A row's share is about spgemm_narrow_row_bytes: a hash table of
/// `count_slots` columns while rows are counted (by their bound), of
/// `fill_slots` columns and positions while they are filled (by their exact
/// length). A row's vector lanes take its products flattened (a power of two
/// of the mean products per row of A, 8 to 32: a warp holds one to four rows,
/// which diverge little), 128 threads a team. The size of a share is chosen for
/// occupancy, not measured against other sizes. Numeric phases from stored
/// positions also take the short bin a row per thread (`short_limit`: FEM rows
/// of 125), in a share of the scratch-hash bin's scratch.
///
/// Only where the bin's rows fill the device (`min_rows`: as many as
/// spgemm_concurrent_teams() teams take): below, a team per row keeps more
/// lanes busy, and the rows stay in the scratch-hash bin (see
/// docs/notes/2026-11-23-spgemm-gpu-row-kernels.md).
inline constexpr std::size_t spgemm_narrow_row_bytes = 512;

struct SpgemmNarrowPlan {
  /// The symbolic passes (lanes over a row's products) and the numeric
  /// phase (lanes over each row of B, as the scratch-hash bin's teams).
  LaunchParameters p, values;
  /// Hash slots of a row's table: counting (0: no narrow bin), filling.
  std::int64_t count_slots = 0, fill_slots = 0;
  /// The longest row of the short bin: rows whose values a thread's share of
  /// the scratch-hash bin's scratch holds (its teams have as many threads as
  /// the narrow launch). SpgemmOptions::team_size takes fill_slots, so that tests keep
  /// rows of both kinds.
  std::int64_t short_limit = 0;
  /// Rows that fill the device: symbolic passes, numeric phase.
  std::int64_t min_rows = 0, values_min_rows = 0;
};

/// Teams of the global bin that may run at once, hence pool slots worth
/// having: host backends one per thread; GPUs as many 256-thread teams as the
/// device holds threads.
template <class ExecutionSpace>
std::int64_t spgemm_concurrent_teams(ExecutionSpace const& exec) {
  const std::int64_t c = std::max<std::int64_t>(1, exec.concurrency());
  return is_host_space_v<ExecutionSpace> ? c : std::max<std::int64_t>(1, c / 256);
}

template <class ExecutionSpace>
SpgemmNarrowPlan spgemm_narrow_parameters(ExecutionSpace const& exec, double mean_products,
                                          double mean_b_row, std::size_t ordinal_bytes,
                                          std::int64_t hash_slots, int team_size) {
  SpgemmNarrowPlan n;
  if (is_host_space_v<ExecutionSpace> && team_size <= 0) return n;
  n.count_slots = largest_power_of_two_at_most(
      static_cast<double>(spgemm_narrow_row_bytes / std::max<std::size_t>(1, ordinal_bytes)));
  n.fill_slots = n.count_slots / 2;
  if (team_size > 0) {
    n.p.team_size = team_size;
    n.p.vector_length = 1;
    n.short_limit = n.fill_slots;
  } else {
    n.p.vector_length =
        std::clamp(largest_power_of_two_at_most(std::max(1.0, mean_products)), 8, 32);
    n.p.team_size = 128 / n.p.vector_length;
    n.min_rows = spgemm_concurrent_teams(exec) * n.p.team_size;
    n.values.vector_length = spgemm_vector_lanes(mean_b_row);
    n.values.team_size = 128 / n.values.vector_length;
    n.values_min_rows = spgemm_concurrent_teams(exec) * n.values.team_size;
    n.short_limit = hash_slots / n.values.team_size;
  }
  n.p.work_per_team = n.p.team_size;
  if (n.values.team_size * n.values.vector_length <= 1) n.values = n.p;
  n.values.work_per_team = n.values.team_size;
  return n;
}

} // namespace spmvkit::detail

#endif
