// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_LAUNCH_PARAMETERS_HPP
#define SPMVKIT_CORE_DETAIL_LAUNCH_PARAMETERS_HPP

#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// CRS kernel variants of the founding study: one row per thread (the
/// report's "Thread" kernel) or one row per group of vector lanes ("warp").
enum class CrsKernel { automatic, row_per_thread, vector };

namespace detail {

/// Kernel shapes, not formats: a new format whose kernel has one of these
/// shapes (a row per thread, a row per group of vector lanes, chunks of C rows
/// column-major) reuses its heuristic; only a new shape adds a case here.
/// column_major_rows: rows of one n-row column-major block (entry j of row i
/// at j * n + i, ELL): a row per thread on GPUs, so that a warp reads one
/// column in one coalesced sweep; on host backends strips of rows_per_thread
/// consecutive rows per thread, walked column by column.
enum class KernelKind { crs_row_per_thread, crs_vector, sell, column_major_rows };

struct LaunchParameters {
  std::int64_t league_size = 0;
  int team_size = 1;
  int vector_length = 1;
  /// Rows (CRS) or chunks (SELL) handled by one team.
  std::int64_t work_per_team = 1;
  /// SELL: rows of a chunk handled by one thread; column_major_rows: rows of
  /// the strip one thread walks (both compile-time in the kernel).
  int rows_per_thread = 1;
};

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

} // namespace detail
} // namespace spmvkit

#endif
