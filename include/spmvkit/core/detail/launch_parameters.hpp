// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_LAUNCH_PARAMETERS_HPP
#define SPMVKIT_CORE_DETAIL_LAUNCH_PARAMETERS_HPP

#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// CRS kernel variants: one row per thread (the Uppsala report's "Thread"
/// kernel), one row per group of vector lanes ("warp"), or balanced: the work
/// split by nonzeros and rows together (merge path), so that no row, however
/// long, is left to one thread. automatic picks one from the matrix's row
/// statistics (automatic_crs_kernel below).
enum class CrsKernel { automatic, row_per_thread, vector, balanced };

namespace detail {

/// Kernel shapes, not formats: a new format whose kernel has one of these
/// shapes (a row per thread, a row per group of vector lanes, chunks of C rows
/// column-major, rows of a column-major block, equal tiles of the merge path
/// of rows and nonzeros) reuses its heuristic; only a new shape adds a case
/// here. column_major_rows: rows of one n-row column-major block (entry j of
/// row i at j * n + i, ELL): a row per thread on GPUs, so that a warp reads
/// one column in one coalesced sweep; on host backends strips of
/// rows_per_thread consecutive rows per thread, walked column by column.
enum class KernelKind { crs_row_per_thread, crs_vector, sell, column_major_rows, merge_path };

struct LaunchParameters {
  std::int64_t league_size = 0;
  int team_size = 1;
  int vector_length = 1;
  /// Rows (CRS) or chunks (SELL) handled by one team.
  std::int64_t work_per_team = 1;
  /// SELL: rows of a chunk handled by one thread; column_major_rows: rows of
  /// the strip one thread walks (both compile-time in the kernel).
  int rows_per_thread = 1;
  /// Merge path: path items (row ends and nonzeros) walked by one thread.
  std::int64_t items_per_thread = 1;
  /// Merge path: a team stages its tile's products and row ends in scratch
  /// and combines its threads' partial rows with a segmented scan (GPUs);
  /// otherwise a team is one thread that walks its tile in place (host).
  bool staged = false;
  /// Merge path: rows that cross tiles are fixed by the last tile to finish
  /// rather than by a second launch, in plans of at most this many tiles.
  bool carries_in_kernel = false;
  std::int64_t carries_in_kernel_max_tiles = 0;
  /// Merge path: a tile boundary that falls inside a row of at most this many
  /// entries moves to the nearer end of the row, so such rows are never
  /// split (0: boundaries stay where the equal split puts them).
  std::int64_t whole_rows_up_to = 0;
};

/// Merge-path tiles (KernelKind::merge_path). A tile is a fixed number of
/// consecutive items of the merge path (num_rows row ends interleaved with nnz
/// nonzeros), so every tile has the same work however rows are distributed.
///
/// Host: one thread walks a tile (a RangePolicy over tiles, no teams). The
/// tile length depends on the matrix only, never on the thread count, so that
/// the tiles, and with them the order of every floating-point sum, are the
/// same for any OMP_NUM_THREADS: results are bit-identical across thread
/// counts. path / 256 tiles of at least 16K items: each tile costs a
/// scheduler step, a carry store and an atomic count, which cost ~2 us under
/// contention on the 16-core Xeon of the H200 node (FP64, email-Enron, 16
/// threads: 16K-item tiles 95 us, 4K 317 us, 1K 854 us, 64K 201 us (6 tiles
/// for 16 threads); R-MAT scale 18: 16K 691 us, 4K 700, 64K 845; 2 threads:
/// 1K to 64K within 8%; 2026-11-23).
///
/// A host tile boundary never splits a row shorter than a quarter tile (it
/// moves to the nearer end of the row; tiles stay within +-25% of equal).
/// Such rows are then summed exactly as the row-per-thread kernel sums them,
/// so on matrices without rows that long the balanced kernel, COO and the
/// row kernels give the same bits, and a float CG run does not change its
/// course with the kernel. Only the long rows it exists for are split.
inline constexpr std::int64_t merge_path_host_tiles = 256;
inline constexpr std::int64_t merge_path_host_min_tile = 16384;
inline constexpr std::int64_t merge_path_host_max_tile = 1 << 18;
inline constexpr std::int64_t merge_path_host_whole_row_divisor = 4;
/// Rows that cross tiles: the last tile to finish adds the carries (an
/// integer counter tells it), saving a second launch. On the host always: a
/// launch costs as much as a small product. On a GPU only in plans of at
/// most merge_path_gpu_in_kernel_tiles tiles: against a second launch it
/// saved 0.4-0.6 us of 9 (H200, FP64, 6 and 15 tiles: 1138_bus, bcsstk08),
/// gained nothing at 182 tiles (cage10) and cost 1.2 us at 452 (email-Enron),
/// where one team fixes what a second launch spreads over the GPU.
inline constexpr std::int64_t merge_path_gpu_in_kernel_tiles = 128;

/// GPU: teams of 128 threads, 7 path items each (896-item tiles, about 13 KB
/// of scratch in FP64), the shape of CUB's merge-based SpMV. The count is odd
/// so that the threads of a warp, each reading its own stretch of the staged
/// products, fall on different shared-memory banks. Boundaries are not moved
/// to row ends: a GPU tile is short, and its threads split rows anyway.
/// H200 sweep (FP64 unless said, 2026-11-23; teams of 64/128/256 threads x
/// 3-15 items): R-MAT scale 22 592 us at 128 x 7 (best 591, 128 x 5; 128 x 9
/// 806), FP32 596 (best 538, 256 x 5); R-MAT 20 156 (best 149); FEM N = 161
/// 689 (best 671, 128 x 9; 128 x 5 828); email-Enron 12.4 (best 10.5, 3
/// items). 128 x 7 is within 5% of the best on the large matrices.
inline constexpr int merge_path_gpu_team_size = 128;
inline constexpr int merge_path_gpu_items_per_thread = 7;

/// The merge-path launch for a matrix (path = num_rows + nnz). A function of
/// the matrix and the backend only, so that a tile plan computed once per
/// matrix stays valid for every product.
template <class ExecutionSpace>
LaunchParameters merge_path_parameters(std::int64_t num_rows, std::int64_t nnz) {
  LaunchParameters p;
  const std::int64_t path = num_rows + nnz;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    p.team_size = 1;
    p.items_per_thread = std::clamp(path / merge_path_host_tiles, merge_path_host_min_tile,
                                    merge_path_host_max_tile);
    p.staged = false;
    p.carries_in_kernel = true;
    p.carries_in_kernel_max_tiles = std::numeric_limits<std::int64_t>::max();
    p.whole_rows_up_to = p.items_per_thread / merge_path_host_whole_row_divisor;
  } else {
    p.team_size = merge_path_gpu_team_size;
    p.items_per_thread = merge_path_gpu_items_per_thread;
    p.staged = true;
    p.carries_in_kernel = true;
    p.carries_in_kernel_max_tiles = merge_path_gpu_in_kernel_tiles;
  }
  p.work_per_team = p.items_per_thread * p.team_size;
  p.league_size = (path + p.work_per_team - 1) / p.work_per_team;
  return p;
}

/// Row counts per thread for which the SELL kernel is instantiated; on the
/// host one thread walks a whole chunk, column by column, when C is one of
/// these, so that its C accumulators stay in registers.
inline constexpr int sell_host_rows_per_thread[] = {1, 2, 4, 8, 16, 32, 64};

/// Width-loop unrolling of the GPU SELL kernel (independent loads in flight
/// per thread). On an H200 (FP64, FEM N = 161, 2026-11-21) unroll factors 1,
/// 4, 6, 8, 9 and 12 all ran at 617-642 GFlop/s; 8 is a general-purpose middle
/// that does not assume the FEM matrix's 27-entry rows.
inline constexpr int sell_gpu_unroll = 8;

/// Rows per host thread of the column_major_rows shape: an n-row column-major
/// block puts consecutive entries of a row n entries apart, so a host thread
/// walks a strip of consecutive rows column by column and each step reads
/// this many contiguous values (8 doubles: one cache line) with as many
/// accumulators in registers. On the 2-core CI machine (Xeon VM, ELL of FEM
/// N = 40, FP64, one OpenMP thread, best of 15 rounds, 2026-11-23) strips of
/// 1, 4, 8, 16 and 64 rows took 1.39, 0.94, 0.96, 1.00 and 1.44 ms (CRS 1.06,
/// SELL-4 1.04): 8 is one cache line of doubles (two of floats) per step.
/// The machine was shared, so only the ranking is worth keeping.
inline constexpr int column_major_host_rows_per_thread = 8;

/// Width-loop unrolling of the column_major_rows kernel on GPUs: the loop of
/// the GPU SELL kernel (one row per thread, stride between a row's entries),
/// so SELL's measured factor until ELL is measured on its own.
inline constexpr int column_major_gpu_unroll = sell_gpu_unroll;

inline int largest_power_of_two_at_most(double v) {
  int p = 1;
  while (p * 2 <= v && p < (1 << 30)) p *= 2;
  return p;
}

/// Vector lanes per row of the GPU CRS vector kernel (see launch_parameters()).
inline int crs_vector_lanes(double mean_row) {
  return std::min(32, largest_power_of_two_at_most(std::max(1.0, mean_row / 6.0)));
}

/// Every launch heuristic of SpMVKit lives here, so that the kernels stay
/// free of backend conditionals: host backends get teams of one thread that
/// loop over a block of rows (or chunks); GPU backends get C threads per SELL
/// chunk, and CRS rows spread over vector lanes sized to the mean row length.
template <class ExecutionSpace>
LaunchParameters launch_parameters(ExecutionSpace const& exec, KernelKind kind,
                                   std::int64_t num_rows, std::int64_t nnz, int chunk_size = 1) {
  if (kind == KernelKind::merge_path) return merge_path_parameters<ExecutionSpace>(num_rows, nnz);
  LaunchParameters p;
  const double mean_row = num_rows > 0 ? static_cast<double>(nnz) / num_rows : 0.0;
  const std::int64_t num_chunks =
      kind == KernelKind::sell ? (num_rows + chunk_size - 1) / chunk_size : 0;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    // About 32 teams per thread for dynamic balance, but no team under ~16K
    // nonzeros so that scheduling overhead stays small against the work
    // (16-core Xeon, FEM matrix: 1-4K rows per team beat 64-256 by ~3%).
    const std::int64_t threads = std::max<std::int64_t>(1, exec.concurrency());
    const double target_nnz =
        std::max(16384.0, static_cast<double>(nnz) / static_cast<double>(32 * threads));
    if (kind == KernelKind::sell) {
      p.rows_per_thread = 1;
      for (int r : sell_host_rows_per_thread)
        if (r == chunk_size) p.rows_per_thread = r;
      const double nnz_per_chunk = std::max(1.0, mean_row * chunk_size);
      // Never more than there is: a team loops over its whole share, and a
      // 16K-row share of a 10-row matrix is 16K empty iterations.
      p.work_per_team = std::clamp<std::int64_t>(
          static_cast<std::int64_t>(target_nnz / nnz_per_chunk), 1,
          std::max<std::int64_t>(1, std::min<std::int64_t>(num_chunks, std::int64_t(1) << 20)));
      p.league_size = (num_chunks + p.work_per_team - 1) / p.work_per_team;
    } else if (kind == KernelKind::column_major_rows) {
      // Strips per team, sized like SELL's chunks.
      p.rows_per_thread = column_major_host_rows_per_thread;
      const std::int64_t strips = (num_rows + p.rows_per_thread - 1) / p.rows_per_thread;
      const double nnz_per_strip = std::max(1.0, mean_row * p.rows_per_thread);
      p.work_per_team = std::clamp<std::int64_t>(
          static_cast<std::int64_t>(target_nnz / nnz_per_strip), 1, std::int64_t(1) << 20);
      p.league_size = (strips + p.work_per_team - 1) / p.work_per_team;
    } else {
      p.work_per_team =
          std::clamp<std::int64_t>(static_cast<std::int64_t>(target_nnz / std::max(1.0, mean_row)),
                                   1, std::max<std::int64_t>(1, num_rows));
      p.league_size = (num_rows + p.work_per_team - 1) / p.work_per_team;
    }
  } else {
    (void)exec;
    switch (kind) {
    case KernelKind::sell: {
      if (chunk_size > 1024) {
        throw std::invalid_argument(
            "spmvkit::spmv: SELL chunk size C = " + std::to_string(chunk_size) +
            " exceeds 1024 threads per team on this backend");
      }
      // Several chunks per team keep enough warps resident per multiprocessor
      // even when C = 32 (a 32-thread team caps occupancy at half); 128-thread
      // teams measured best on an H200 (within 1% of 64 and 256).
      const int chunks_per_team = std::max(1, 128 / chunk_size);
      p.team_size = chunk_size * chunks_per_team;
      p.work_per_team = chunks_per_team;
      p.league_size = (num_chunks + chunks_per_team - 1) / chunks_per_team;
      break;
    }
    case KernelKind::column_major_rows: // a row per thread: a warp reads one column coalesced
    case KernelKind::crs_row_per_thread:
      p.team_size = 128;
      p.work_per_team = p.team_size;
      p.league_size = (num_rows + p.work_per_team - 1) / p.work_per_team;
      break;
    case KernelKind::merge_path: break; // handled above
    case KernelKind::crs_vector:
      // About six entries per lane: fewer lanes mean a shorter reduction and
      // more rows in flight per warp, while each lane still streams several
      // entries (measured on an H200 for 27-entry rows: 4 lanes beat 8, 16
      // and 32 by 1.1-2x). Teams of 128 threads did best.
      p.vector_length = crs_vector_lanes(mean_row);
      p.team_size = 128 / p.vector_length;
      p.work_per_team = p.team_size;
      p.league_size = (num_rows + p.work_per_team - 1) / p.work_per_team;
      break;
    }
  }
  return p;
}

/// CrsKernel::automatic (detail::spmv_crs) from the matrix's row statistics:
/// balanced where a row-owned kernel would wait on long rows, else the kernel
/// chosen before (row per thread on the host; vector lanes sized by the mean
/// row, or a row per thread, on a GPU).
/// - Never where rows are alike: the longest row must be at least
///   crs_balanced_min_max_over_mean times the mean (FEM Poisson: 27 / 26.7;
///   cage10: 1.9; bcsstk08: 28; email-Enron: 138; R-MAT: ~1000).
/// - And the long rows must matter: hub rows (core/matrix_statistics.hpp)
///   hold at least crs_balanced_hub_mass of the nonzeros, or the longest row
///   is a large part of one thread's share of the nonzeros (host) or longer
///   than a few warp passes (GPU), or (GPU) rows are too short for vector
///   lanes, where the row-per-thread kernel reads uncoalesced.
///
/// Set from measurements (FP64; "16-core" is the Xeon of the H200 node with
/// OMP_PROC_BIND=spread, "2-core" the same node with 2 threads; 2026-11-23):
/// - H200: balanced against the kernel chosen before, 1M rows of 5-15
///   entries plus hubs: none 110 vs 154 us (row per thread), one row of 64
///   110 vs 154, one of 256 110 vs 181, 1000 rows of 200 114 vs 187, 10^4
///   rows of 100 117 vs 162, one of 10^5 119 vs 18476; bcsstk08 8.9 vs 34.9;
///   email-Enron 13.0 vs 175; R-MAT scale 22 595 vs 18106 (vector). Where
///   rows are alike and long enough for lanes the vector kernel wins: FEM
///   N = 161 497 vs 690, cage10 6.8 vs 9.9, bcsstk14 6.6 vs 8.9.
/// - Host: balanced is at least as fast as the row kernel on every irregular
///   matrix measured (16 threads: email-Enron 108 vs 115 us, R-MAT 18 535 vs
///   653, one row of 10^5 in 2M nonzeros 571 vs 675, of 10^6 622 vs 852;
///   2 threads: bcsstk08 9.1 vs 13.4, email-Enron 275 vs 293), so the
///   thresholds only keep it off matrices where rows are alike.
/// The hub-mass floor (5%) and the GPU row floor (256) are not sharp: no
/// measured irregular matrix fell between them and the alternatives.
inline constexpr double crs_balanced_min_max_over_mean = 8.0;
inline constexpr double crs_balanced_hub_mass = 0.05;
inline constexpr double crs_balanced_host_row_share = 0.25;
inline constexpr std::int64_t crs_balanced_gpu_min_max_row = 256;

template <class ExecutionSpace>
CrsKernel automatic_crs_kernel(ExecutionSpace const& exec, MatrixStatistics const& s) {
  const bool irregular = s.max_over_mean() >= crs_balanced_min_max_over_mean;
  const bool hubs_matter = s.hub_mass >= crs_balanced_hub_mass;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    // Rows are summed by one thread each on the host whatever the kernel;
    // vector lanes would only add a reduction.
    const double share =
        static_cast<double>(s.nnz) / static_cast<double>(std::max(1, exec.concurrency()));
    const bool dominant_row =
        static_cast<double>(s.max_row_length) >= crs_balanced_host_row_share * share;
    return irregular && (hubs_matter || dominant_row) ? CrsKernel::balanced
                                                      : CrsKernel::row_per_thread;
  } else {
    (void)exec;
    const bool no_lanes = crs_vector_lanes(s.mean_row_length) == 1;
    if (irregular &&
        (hubs_matter || no_lanes || s.max_row_length >= crs_balanced_gpu_min_max_row)) {
      return CrsKernel::balanced;
    }
    // Long rows serialize a single GPU thread; rows too short for two lanes
    // would make the vector kernel a row per thread plus a reduction.
    return no_lanes ? CrsKernel::row_per_thread : CrsKernel::vector;
  }
}

/// SELL's default chunk size: C = 32 (a warp per chunk) on GPUs, 4 (one SIMD
/// register of doubles) on host backends, as the founding Uppsala report
/// suggests.
template <class ExecutionSpace>
constexpr int default_sell_chunk_size() {
  return is_host_space_v<ExecutionSpace> ? 4 : 32;
}

/// Why the SELL kernel cannot run chunks of C rows on this backend ("" if it
/// can): a GPU team holds at most 1024 threads, one per row of a chunk.
template <class ExecutionSpace>
std::string sell_chunk_size_obstacle(int chunk_size) {
  if (chunk_size < 1) return "chunk size C = " + std::to_string(chunk_size) + " must be >= 1";
  if (!is_host_space_v<ExecutionSpace> && chunk_size > 1024) {
    return "chunk size C = " + std::to_string(chunk_size) +
           " exceeds 1024 threads per team on this backend";
  }
  return "";
}

/// Iterations between the host's reads of CG's scalars (CgOptions::
/// check_interval = 0). Host backends finish each reduction before the host
/// goes on, so a read costs nothing there and checking every iteration wastes
/// no SpMV. On a GPU each read stalls the device for a round trip while the
/// host queues the next kernels; every 8 iterations hides that and wastes at
/// most 7 SpMVs after convergence.
template <class ExecutionSpace>
constexpr int cg_check_interval() {
  return is_host_space_v<ExecutionSpace> ? 1 : 8;
}

/// The kernel shape of rows grouped in two levels (CSR-k's super-rows and
/// super-super-rows): a top-level group per team; on GPUs super_row_slots
/// groups of row_slots threads in a team, a super-row per group of threads,
/// and vector lanes across the super-row's rows (lanes_over_entries = false,
/// the paper's GPUSpMV-3) or across each row's entries (GPUSpMV-3.5). Kept
/// apart from KernelKind and launch_parameters() (one block, easy to merge);
/// the league size is left to the caller, which knows its groups.
struct RowGroupsShape {
  int lanes = 1;
  int row_slots = 1;
  int super_row_slots = 1;
  bool lanes_over_entries = false;
  int team_size() const { return row_slots * super_row_slots; }
};

/// The row-groups shape for rows of mean length nnz / num_rows. Host
/// backends: one thread, one lane, one slot: a team walks its group's rows
/// in order (CSR-k's CPU loop nest), the group sizes set the work per team.
/// GPUs: the block shapes of Lane and Booth's CSR-k paper (section 4.1,
/// x = lanes, y = row slots, z = super-row slots; found on V100 and A100, not
/// yet measured on our GPUs: formats/csrk/detail/csrk_tuning.hpp says how to
/// sweep them): lanes across a super-row's rows while rows average <= 8
/// entries (8 x 1 x 12), across a row's entries beyond (4 x 8 x 12 up to 16,
/// 8 x 8 x 8 up to 32, 16 x 8 x 4 beyond). Nonzero lanes, row_slots,
/// super_row_slots override the table (CsrkOptions); lanes_over_entries
/// follows the table unless forced (1: GPUSpMV-3.5, -1: GPUSpMV-3).
template <class ExecutionSpace>
RowGroupsShape row_groups_shape(std::int64_t num_rows, std::int64_t nnz, int lanes = 0,
                                int row_slots = 0, int super_row_slots = 0,
                                int lanes_over_entries = 0) {
  RowGroupsShape s;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    (void)num_rows, (void)nnz, (void)lanes, (void)row_slots, (void)super_row_slots;
    (void)lanes_over_entries;
    return s;
  } else {
    const double mean_row = num_rows > 0 ? static_cast<double>(nnz) / num_rows : 0.0;
    if (mean_row <= 8) {
      s = {8, 1, 12, false};
    } else if (mean_row <= 16) {
      s = {4, 8, 12, true};
    } else if (mean_row <= 32) {
      s = {8, 8, 8, true};
    } else {
      s = {16, 8, 4, true};
    }
    if (lanes > 0) s.lanes = lanes;
    if (row_slots > 0) s.row_slots = row_slots;
    if (super_row_slots > 0) s.super_row_slots = super_row_slots;
    if (lanes_over_entries != 0) s.lanes_over_entries = lanes_over_entries > 0;
    return s;
  }
}

/// The column-reach pass of select/matrix_features.hpp: teams of rows, a
/// group of vector lanes per row. GPUs: 32 lanes (a warp) per row, so a hub row
/// of 10^5 entries costs ~3K steps, not 10^5; 4 rows per team. Host: one
/// thread per team walking 4096 rows, lanes of 1.
template <class ExecutionSpace>
LaunchParameters features_launch_parameters(std::int64_t num_rows) {
  LaunchParameters p;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    p.team_size = 1;
    p.vector_length = 1;
    p.work_per_team = 4096;
  } else {
    p.team_size = 4;
    p.vector_length = 32;
    p.work_per_team = 4;
  }
  p.league_size = std::max<std::int64_t>(1, (num_rows + p.work_per_team - 1) / p.work_per_team);
  return p;
}

/// `policy` with its functor passed as a kernel argument on CUDA (Kokkos'
/// light-weight hint; functors up to 4 KiB) instead of through constant
/// memory, where every launch first waits on the host for the previous
/// constant-memory kernel to finish (Kokkos 4.6, the constant-memory
/// `CudaParallelLaunchKernelInvoker`: an event synchronisation and a copy): phases that
/// launch several team kernels back to back (SpGEMM) would otherwise expose
/// each launch's latency. Functors of more than 512 bytes take constant
/// memory by default. Host backends ignore the hint.
template <class Policy>
auto argument_launch(Policy const& policy) {
  return Kokkos::Experimental::require(policy,
                                       Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

/// SpGEMM (operations/spgemm.hpp): where a row of C is accumulated, chosen
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
/// The numeric phase's stored product places (SpgemmOptions::keep_positions)
/// may take at most this many times C's own bytes: 2 or 4 bytes per
/// multiply-add against 12 (double) or 8 (float, int columns) per nonzero of C,
/// so products of up to about 12 (resp. 8) multiply-adds per nonzero keep
/// them: every FEM product (27-point A·A: 5.8), every graph we measured.
/// Beyond, the places would dominate the handle's memory for a phase that
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
/// entries per thread (gathered columns, then each column's place in its
/// row). A product then costs a load, a compare and a store, without
/// branches, in each pass, against a hash probe sequence in scratch and a
/// heap sort per row (SpgemmWorkspaceRows says how rows are sorted). A row is
/// read off its marks in order where its column span is at most
/// spgemm_workspace_scan_ratio times its length (FEM rows: ~9), else sorted
/// by rank up to spgemm_workspace_rank_sort_max columns, by std::sort beyond.
/// Measured on the 2-core VM (FP64, one thread, 2026-11-23, shared with a
/// build, so only the ranking): the rank sort against std::sort took the
/// fill pass of ct2010 (rows of ~22 columns) from 44-47 to 28-30 ms; spans
/// of 4 and 16 times the length did alike on ct2010, 16 was better on FEM
/// and R-MAT, 256 was 1.5-2x slower on ct2010.
///
/// Chosen on host backends only (GPUs keep the binned accumulators: a
/// workspace per thread of a GPU is beyond any device's memory) when
/// `bytes` (all threads' workspaces) fit `budget`, the memory the global pool
/// may take, and the product is not so sparse that clearing the marks
/// (threads x num_cols stores) outweighs its multiply-adds: at most
/// spgemm_workspace_columns_per_product marks per multiply-add, so that a few
/// rows times a wide B keep the scratch hash tables. `forced` (a test hook)
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
/// for the product places) of rows that team scratch does not hold, split
/// into chunks of work_per_team consecutive products, one team each.
/// GPUs: 256 threads (8 x 32 lanes, which take consecutive products) and 16
/// products per thread, so that a chunk's one search for its first entry is
/// small against its work and a hub row of millions of products spreads over
/// hundreds of teams. Host backends keep such rows whole in teams of one
/// thread (no atomics, nothing to split); only the test hook that forces the
/// concurrent path there (`test_team_size`) gets chunks, short ones, so that
/// tests split rows, and single entries of A, across chunks.
template <class ExecutionSpace>
LaunchParameters spgemm_chunk_parameters(ExecutionSpace const& exec, int test_team_size) {
  (void)exec;
  LaunchParameters p;
  if (is_host_space_v<ExecutionSpace> || test_team_size > 0) {
    p.team_size = std::max(1, test_team_size);
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
LaunchParameters spgemm_fingerprint_parameters(ExecutionSpace const& exec, int test_team_size) {
  (void)exec;
  LaunchParameters p;
  if (is_host_space_v<ExecutionSpace> || test_team_size > 0) {
    p.team_size = std::max(1, test_team_size);
    p.work_per_team = 1024 * p.team_size;
    return p;
  }
  p.team_size = 8;
  p.vector_length = 32;
  p.work_per_team = 16 * p.team_size * p.vector_length;
  return p;
}

/// The GPUs' numeric phase from stored places by entry of A
/// (SpgemmPositionEntries): `starts` writes each entry's row start of C (a
/// row per thread), `values` takes work_per_team entries of A a team, a
/// thread's vector lanes (sized to the mean row of B) over each entry's row
/// of B, beside teams that hash `fingerprint_items` of the patterns' indices
/// (spgemm_fingerprint_parameters), and `check` is the one team that compares
/// the fingerprint afterwards. `use`: GPUs, where no row of B is longer than
/// `longest_row` entries (a thread's lanes walk a whole row of B, so a hub
/// row of a power-law graph would hold one thread for thousands of products;
/// those products keep the row and chunk kernels) and the product has at most
/// `most_multiply_adds`: every product is an atomic add in the L2 cache, about
/// 125-160 G a second on an H200, while the row kernels merge a FEM row's
/// products in scratch first (H200, FP64 and FP32, 2026-11-24, numeric phase:
/// FEM N = 64, 191M multiply-adds, 1.22 ms by entry against 0.99 by row;
/// email-Enron, 51M, 0.84 against 0.77; FEM N = 32, 24M, 0.151 against
/// 0.144; below 16M every product measured was faster by entry: delaunay_n16
/// 0.037 against 0.051 ms, FEM_3D_thermal1, 10.7M, 0.085 against 0.096,
/// bcsstk25 0.048 against 0.083). Host backends keep the scratch kernels
/// (one-thread teams, no atomics), but for the test hook.
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
                                        int test_team_size) {
  SpgemmEntryPlan l;
  l.fingerprint_items = spgemm_fingerprint_parameters(exec, test_team_size).work_per_team;
  if (is_host_space_v<ExecutionSpace> || test_team_size > 0) {
    const int t = std::max(1, test_team_size);
    l.use = test_team_size > 0 && longest_b_row() <= SpgemmEntryPlan::longest_row;
    l.starts.team_size = l.values.team_size = l.check.team_size = t;
    l.starts.work_per_team = 64 * t;
    l.values.work_per_team = 64 * t;
    return l;
  }
  l.use = multiply_adds <= SpgemmEntryPlan::most_multiply_adds &&
          longest_b_row() <= SpgemmEntryPlan::longest_row;
  l.starts.vector_length = 8;
  l.starts.team_size = 32;
  l.starts.work_per_team = l.starts.team_size;
  l.values.vector_length = spgemm_vector_lanes(mean_b_row);
  l.values.team_size = 256 / l.values.vector_length;
  // Four entries a thread, in turn. One a thread (H200, FP64, 2026-11-24,
  // eighth run against the seventh, ratios to cuSPARSE in each run) sped the
  // kernel up where rows of B are long (bcsstk08: 47 -> 20 us by ncu, 0.25x
  // -> 0.42x) and slowed FEM_3D_thermal1 (0.82x -> 0.69x) and bcsstk25 (0.77x
  // -> 0.62x); not settled, so the measured shape stays.
  l.values.work_per_team = 4 * l.values.team_size;
  l.check.team_size = 8;
  l.check.vector_length = 32;
  return l;
}

/// The numeric phase from lists of products (SpgemmListValues,
/// SpgemmOptions::product_lists): the symbolic phase lists, for every entry
/// of C, the products a_ik b_kj that land there (as the places of a_ik in A
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
/// through the test hook). `check` is the one team that compares the
/// fingerprint afterwards (SpgemmPatternCheck). The test hook `test_team_size`
/// gives host teams that many threads and lists longer than 4 the long path.
struct SpgemmListPlan {
  LaunchParameters build, scan, values, check;
  std::int64_t fingerprint_items = 0;
  std::int64_t long_list = 0;
};

template <class ExecutionSpace>
SpgemmListPlan spgemm_list_parameters(ExecutionSpace const& exec, double mean_b_row,
                                      int test_team_size) {
  (void)exec;
  SpgemmListPlan l;
  if (is_host_space_v<ExecutionSpace> || test_team_size > 0) {
    const int t = std::max(1, test_team_size);
    l.build.team_size = l.values.team_size = t;
    l.build.work_per_team = 64 * t;
    l.scan.team_size = t;
    l.scan.work_per_team = 64 * t;
    l.values.work_per_team = 256 * t;
    l.check.team_size = t;
    l.long_list = test_team_size > 0 ? 4 : std::numeric_limits<std::int64_t>::max();
    l.fingerprint_items = spgemm_fingerprint_parameters(exec, test_team_size).work_per_team;
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
  // Four entries a lane, in turn. One a lane (H200, FP64, 2026-11-24, eighth
  // run against the seventh) was faster on bcsstk08 (19 -> 14 us by ncu) and
  // slower on delaunay_n16 (25 -> 29 us), email-Enron (0.94x -> 0.84x
  // cuSPARSE's) and R-MAT (0.91x -> 0.80x).
  l.values.work_per_team = 4 * l.values.team_size * l.values.vector_length;
  l.check.team_size = 8;
  l.check.vector_length = 32;
  l.long_list = 32;
  l.fingerprint_items = spgemm_fingerprint_parameters(exec, test_team_size).work_per_team;
  return l;
}

/// The narrow bin (SpgemmNarrowRows, and the numeric phase from product
/// places): rows short enough that each thread's vector lanes take a whole
/// row in the thread's own share of team scratch, without team barriers,
/// instead of a 128-thread team per row that a row of a few dozen products
/// leaves mostly idle (planar meshes, road networks: 5-40 products a row).
/// GPUs only, where teams are wide: host teams are one thread already, and
/// take no narrow bin except through the test hook that forces the
/// concurrent path there (`test_team_size`: its threads, one lane each).
/// A row's share is about spgemm_narrow_row_bytes: a hash table of
/// `count_slots` columns while rows are counted (by their bound), of
/// `fill_slots` columns and places while they are filled (by their exact
/// length). A row's vector lanes take its products flattened (a power of two
/// of the mean products per row of A, 8 to 32: a warp holds one to four rows,
/// which diverge little), 128 threads a team. The size of a share is chosen for
/// occupancy, not measured against other sizes. Numeric phases from stored
/// places also take the short bin a row per thread (`short_limit`: FEM rows
/// of 125), in a share of the scratch-hash bin's scratch.
///
/// Only where the bin's rows fill the device (`min_rows`: as many as
/// spgemm_concurrent_teams() teams take): below, a team per row keeps more
/// lanes busy, and the rows stay in the scratch-hash bin (H200, FP64,
/// 2026-11-23, numeric phase from places, same kernels with and without a row
/// per thread for every scratch row: fidapm08, 3876 rows, 0.056 ms a row per
/// team against 0.124 a row per thread; 1138_bus 0.025 against 0.038).
inline constexpr std::size_t spgemm_narrow_row_bytes = 512;

struct SpgemmNarrowPlan {
  /// The symbolic passes (lanes over a row's products) and the numeric
  /// phase (lanes over each row of B, as the scratch-hash bin's teams).
  LaunchParameters p, values;
  /// Hash slots of a row's table: counting (0: no narrow bin), filling.
  std::int64_t count_slots = 0, fill_slots = 0;
  /// The longest row of the short bin: rows whose values a thread's share of
  /// the scratch-hash bin's scratch holds (its teams have as many threads as
  /// the narrow launch). The test hook takes fill_slots, so that tests keep
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
                                          std::int64_t hash_slots, int test_team_size) {
  SpgemmNarrowPlan n;
  if (is_host_space_v<ExecutionSpace> && test_team_size <= 0) return n;
  n.count_slots = largest_power_of_two_at_most(
      static_cast<double>(spgemm_narrow_row_bytes / std::max<std::size_t>(1, ordinal_bytes)));
  n.fill_slots = n.count_slots / 2;
  if (test_team_size > 0) {
    n.p.team_size = test_team_size;
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

} // namespace detail
} // namespace spmvkit

#endif
