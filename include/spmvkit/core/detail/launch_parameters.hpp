// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_LAUNCH_PARAMETERS_HPP
#define SPMVKIT_CORE_DETAIL_LAUNCH_PARAMETERS_HPP

#include <spmvkit/core/host_cpu.hpp>
#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

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
  /// Rows (CRS) or chunks (SELL) handled by one team (host static CRS and SELL launches: a share
  /// of weighted rows or chunks plus entries instead, balanced_first_unit).
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
  /// Merge path, a block of K columns of an x whose columns lie apart (LayoutLeft): at most
  /// this many bytes of x's columns gathered at once (the block is halved while they do not
  /// fit, down to single columns).
  std::int64_t block_x_bytes = std::numeric_limits<std::int64_t>::max();
  /// Host: a static schedule rather than a dynamic one (host_static_max_entries, and for the CRS
  /// row kernels, SELL and ELL crs_rows_launch_parameters and padded_rows_launch_parameters): the
  /// row kernels, SELL and ELL then take one team per thread, the merge path its tiles (at most
  /// 32).
  bool static_schedule = false;
  /// Host: the kernel prefetches the entries it streams (host_prefetch_worthwhile).
  bool host_prefetch = false;
};

/// Rows of fewer than this many stored entries on average (ELL: its width) take no software
/// prefetch on hosts: their per-row work, not the entry stream, bounds them, and the prefetches
/// slowed road graphs (docs/notes/2026-12-07-host-software-prefetch.md).
inline constexpr std::int64_t host_prefetch_min_row_entries = 4;

/// Whether a host kernel over `entries` stored entries in `rows` rows prefetches them.
inline bool host_prefetch_worthwhile(std::int64_t entries, std::int64_t rows) {
  return host_prefetch_enabled() && entries >= host_prefetch_min_row_entries * rows;
}

/// How a host CRS row kernel prefetches its entries (host_row_prefetch).
enum class HostRowPrefetch {
  none,    ///< no software prefetch
  row_end, ///< one line past each row's end (host_prefetch_past)
  lines,   ///< every line once, through a HostPrefetchCursor per stream
};

/// Rows whose values (or column indices, if wider) average fewer bytes than this prefetch at each
/// row's end rather than through a cursor: on road and mesh graphs the cursor's test, taken every
/// few rows at no fixed rhythm, slowed the CRS row loop; one prefetch per row did not
/// (docs/notes/2026-12-07-host-crs-short-row-prefetch.md).
inline constexpr std::int64_t host_prefetch_short_row_bytes = 64;
/// ... unless hub rows (MatrixStatistics::hub_mass) hold at least this share of the entries: a
/// hub row spans many lines, and one prefetch at its end would leave them to the hardware.
inline constexpr double host_prefetch_row_end_max_hub_mass = 0.05;

/// The CRS row kernels' prefetch for `entries` stored entries in `rows` rows, `entry_bytes` being
/// the wider of a value and a column index, with `hub_mass` of them in hub rows, on a host of
/// `vendor`; `prefetch` is the launch's host_prefetch. On AMD hosts rows with hubs take none: there
/// the power-law graphs ran slower with the prefetches, where on Intel R-MAT gained
/// (docs/notes/2026-12-08-host-table-per-cpu-vendor.md).
inline HostRowPrefetch host_row_prefetch(bool prefetch, std::int64_t entries, std::int64_t rows,
                                         std::int64_t entry_bytes, double hub_mass,
                                         HostCpuVendor vendor = HostCpuVendor::any) {
  if (!prefetch) return HostRowPrefetch::none;
  const bool hubs = hub_mass >= host_prefetch_row_end_max_hub_mass;
  if (hubs && vendor == HostCpuVendor::amd) return HostRowPrefetch::none;
  const bool short_rows =
      static_cast<double>(entries) * static_cast<double>(entry_bytes) <
      static_cast<double>(host_prefetch_short_row_bytes) * static_cast<double>(rows);
  return short_rows && !hubs ? HostRowPrefetch::row_end : HostRowPrefetch::lines;
}

/// Host launches over at most this many entries (the merge path: path items) take a static
/// schedule: below it Kokkos' dynamic schedule costs more per launch than the product takes;
/// larger launches keep dynamic ones, which balance
/// (docs/notes/2026-11-30-host-static-schedule.md), except those of the CRS row kernels, SELL and
/// ELL where rows are alike (crs_rows_launch_parameters, padded_rows_launch_parameters).
inline constexpr std::int64_t host_static_max_entries = std::int64_t(1) << 19;

/// `units` of work (rows, chunks, strips, block rows) as one team per thread, in order.
inline void split_per_thread(LaunchParameters& p, std::int64_t units, std::int64_t threads) {
  p.static_schedule = true;
  p.work_per_team = std::max<std::int64_t>(1, (units + threads - 1) / threads);
  p.league_size = (units + p.work_per_team - 1) / p.work_per_team;
}

/// What a row costs on a host beside its entries, in entries (its offsets, its y store, and on
/// graph rows a cold line of x); measured in
/// docs/notes/2026-12-04-host-crs-entry-balanced-blocks.md.
inline constexpr std::int64_t host_row_weight = 8;

/// The first unit (CRS row, SELL chunk) of block `block` of `blocks` with units split into equal
/// shares of weighted units plus stored entries: the smallest u with unit_weight * u + starts(u) -
/// starts(0) >= block * (unit_weight * units + entries) / blocks, `starts` being the units' entry
/// offsets (units + 1 of them).
template <class Starts>
KOKKOS_INLINE_FUNCTION std::int64_t balanced_first_unit(Starts const& starts, std::int64_t units,
                                                        std::int64_t block, std::int64_t blocks,
                                                        std::int64_t unit_weight) {
  if (block <= 0 || units == 0) return 0;
  if (block >= blocks) return units;
  const std::int64_t base = static_cast<std::int64_t>(starts(0));
  const std::int64_t path = unit_weight * units + (static_cast<std::int64_t>(starts(units)) - base);
  // block * path / blocks without forming block * path (nothing above path or blocks^2).
  const std::int64_t target = path / blocks * block + path % blocks * block / blocks;
  std::int64_t lo = 0, hi = units;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (unit_weight * mid + (static_cast<std::int64_t>(starts(mid)) - base) < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Team `index` of a launch, for kernels with a host shape: on host backends such a kernel walks
/// a team's work as a plain loop under a RangePolicy, which ran faster than the same loop as the
/// body of a one-thread team (docs/notes/2026-12-01-host-row-loop.md).
struct HostBlock {
  std::int64_t index; ///< the team's league rank
};

/// Whether a functor opts into its host shape: a `static constexpr bool host_shape = true`
/// member and an operator() taking HostBlock. The explicit flag keeps a generic team functor
/// (an `operator()(auto const&)`) from being taken for one.
template <class Functor, class = void>
struct has_host_shape : std::false_type {};
template <class Functor>
struct has_host_shape<Functor, std::void_t<decltype(Functor::host_shape)>>
    : std::conjunction<std::bool_constant<Functor::host_shape>,
                       std::is_invocable<Functor const&, HostBlock>> {};

/// A functor with a host shape, called with HostBlock from a RangePolicy.
template <class Functor>
struct HostBlocks {
  Functor f;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t index) const { f(HostBlock{index}); }
};

/// parallel_for of f over p's teams. On host backends a functor with a host shape runs its
/// host shape over a RangePolicy of p.league_size blocks (static or dynamic as p says); other
/// functors get, on hosts with p.static_schedule, a static schedule of teams of one thread,
/// otherwise dynamic teams of p.team_size threads and p.vector_length lanes.
template <class ExecutionSpace, class Functor>
void parallel_for_teams(std::string const& label, ExecutionSpace const& exec,
                        LaunchParameters const& p, Functor const& f) {
  if constexpr (is_host_space_v<ExecutionSpace> && has_host_shape<Functor>::value) {
    using Index = Kokkos::IndexType<std::int64_t>;
    if (p.static_schedule) {
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Static>, Index>(
              exec, 0, p.league_size),
          HostBlocks<Functor>{f});
    } else {
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Index>(
              exec, 0, p.league_size),
          HostBlocks<Functor>{f});
    }
    return;
  } else if constexpr (is_host_space_v<ExecutionSpace>) {
    if (p.static_schedule) {
      Kokkos::parallel_for(label,
                           Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Static>>(
                               exec, p.league_size, 1, 1),
                           f);
      return;
    }
  }
  Kokkos::parallel_for(label,
                       Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
                           exec, p.league_size, p.team_size, p.vector_length),
                       f);
}

/// Merge-path tiles (KernelKind::merge_path). A tile is a fixed number of
/// consecutive items of the merge path (num_rows row ends interleaved with nnz
/// nonzeros), so every tile has the same work however rows are distributed.
///
/// Host: one thread walks a tile (a RangePolicy over tiles, no teams). The
/// tile length depends on the matrix only, never on the thread count, so that
/// the tiles, and with them the order of every floating-point sum, are the
/// same for any OMP_NUM_THREADS: results are bit-identical across thread
/// counts. path / 256 tiles of at least 16K items: each tile costs a
/// scheduler step, a carry store and an atomic count, which under contention
/// outweigh what shorter tiles balance (docs/notes/2026-11-23-merge-path.md).
///
/// A host tile boundary never splits a row shorter than a quarter tile (it
/// moves to the nearer end of the row; tiles stay within +-25% of equal).
/// Such rows are then summed exactly as the row-per-thread kernel sums them,
/// so on matrices without rows that long the balanced kernel, COO and the
/// row-per-thread kernel give the same bits (the vector kernel too in float, for several columns
/// and where rows differ widely; elsewhere in double it sums a row in four partial sums), and a
/// float CG run does not change its course with the kernel.
/// Only the long rows it exists for are split.
inline constexpr std::int64_t merge_path_host_tiles = 256;
inline constexpr std::int64_t merge_path_host_min_tile = 16384;
inline constexpr std::int64_t merge_path_host_max_tile = 1 << 18;
inline constexpr std::int64_t merge_path_host_whole_row_divisor = 4;
/// The widest block of columns a multi-vector product walks in one read of
/// the matrix (spmv's blocks of 16, 8, 4, 2, 1): 16 for LayoutRight on host
/// backends, 8 for LayoutLeft and on GPUs
/// (docs/notes/2026-12-01-multivector-host-sell.md).
template <class ExecutionSpace, class Layout>
inline constexpr int column_block = (is_host_space_v<ExecutionSpace> &&
                                     std::is_same_v<Layout, Kokkos::LayoutRight>)
                                        ? 16
                                        : 8;

/// Host tiles of the balanced CRS kernel walk blocks of up to this many
/// columns of a multi-vector product at once (column_block),
/// so every host plan keeps this many carries per tile (COO's and HYB's too: a few KB).
inline constexpr int merge_path_host_carry_lanes = 16;
/// GPU plans keep column_block's 8 carries per tile (8 words per tile of 896
/// path items: under 1% of the matrix's bytes).
inline constexpr int merge_path_gpu_carry_lanes = 8;
/// GPU: a merge-path block of K columns of x stored apart (LayoutLeft) gathers from K separate
/// columns, so its working set in L2 is K times one column's. Blocks are halved while K columns
/// take more than this many bytes, down to single columns (the rank-1 kernel): a budget between
/// the block sizes measured to gain and to lose on an H200
/// (docs/notes/2026-12-01-multivector-gpu-merge-path.md). Interleaved columns (LayoutRight)
/// read a row of the block in one or two sectors, and hosts keep their blocks.
inline constexpr std::int64_t merge_path_gpu_block_x_bytes = std::int64_t(24) << 20;
/// Rows that cross tiles: the last tile to finish adds the carries (an
/// integer counter tells it), saving a second launch. On the host always: a
/// launch costs as much as a small product. On a GPU only in plans of at
/// most merge_path_gpu_in_kernel_tiles tiles: a second launch is slower on
/// plans of a few tiles and faster on hundreds, where one team would fix what
/// a second launch spreads over the GPU (docs/notes/2026-11-23-merge-path.md).
inline constexpr std::int64_t merge_path_gpu_in_kernel_tiles = 128;

/// GPU: teams of 128 threads, 7 path items each (896-item tiles, about 13 KB
/// of scratch in FP64), the shape of CUB's merge-based SpMV. The count is odd
/// so that the threads of a warp, each reading its own stretch of the staged
/// products, fall on different shared-memory banks. Boundaries are not moved
/// to row ends: a GPU tile is short, and its threads split rows anyway.
/// 128 threads x 7 items: chosen among the team shapes measured
/// (docs/notes/2026-11-23-merge-path.md).
inline constexpr int merge_path_gpu_team_size = 128;
inline constexpr int merge_path_gpu_items_per_thread = 7;
/// GPU: entries a merge-path thread loads per batch (a batch's columns, then its x gathers, all
/// in flight at once); at least the items per thread, so a tile loads in one batch
/// (docs/notes/2026-12-05-merge-path-gather-batches.md).
inline constexpr int merge_path_gpu_gather_batch = 8;
static_assert(merge_path_gpu_gather_batch >= merge_path_gpu_items_per_thread,
              "spmvkit: a GPU merge-path tile should load in one batch");

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
    // Paths of at most 2^19 items (32 tiles) take a static schedule, as the row kernels do
    // (host_static_max_entries); the tiles, and so the sums, stay as they are.
    p.static_schedule = path <= host_static_max_entries;
    p.host_prefetch = host_prefetch_worthwhile(nnz, num_rows);
  } else {
    p.team_size = merge_path_gpu_team_size;
    p.items_per_thread = merge_path_gpu_items_per_thread;
    p.staged = true;
    p.carries_in_kernel = true;
    p.carries_in_kernel_max_tiles = merge_path_gpu_in_kernel_tiles;
    p.block_x_bytes = merge_path_gpu_block_x_bytes;
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
/// per thread). Unroll factors 1, 4, 6, 8, 9 and 12 ran within 4% of each
/// other on FEM N = 161; 8 is a general-purpose middle that does not assume
/// the FEM matrix's 27-entry rows (docs/notes/2026-11-21-sell-kernels.md).
inline constexpr int sell_gpu_unroll = 8;

/// Rows per host thread of the column_major_rows shape: an n-row column-major
/// block puts consecutive entries of a row n entries apart, so a host thread
/// walks a strip of consecutive rows column by column and each step reads
/// this many contiguous values (8 doubles: one cache line) with as many
/// accumulators in registers. Strips of 4 to 16 rows ran alike, about 1.5x
/// faster than single rows or strips of 64 (ELL of FEM N = 40, one thread);
/// 8 is one cache line of doubles (two of floats) per step
/// (docs/notes/2026-11-23-host-strips.md).
inline constexpr int column_major_host_rows_per_thread = 8;

/// Sums a host thread keeps at once in the kernels that walk RowsPerThread
/// rows together (SELL chunks, ELL strips): with a block of K columns each row
/// keeps K, so the rows per thread drop to host_block_sums / K (one row for
/// K = 8, and for column_block's K = 16, which keeps 16): C rows x K sums per
/// thread spill (docs/notes/2026-11-27-multivector-host.md).
inline constexpr int host_block_sums = 8;

/// The rows per thread of such a kernel for blocks of `lanes` columns: at most
/// `rows_per_thread`, a power of two when it is one, at least 1.
constexpr int host_rows_per_thread(int rows_per_thread, int lanes) {
  int r = rows_per_thread;
  while (r > 1 && r * lanes > host_block_sums) r /= 2;
  return r;
}

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

/// Every SpMV kernel shape's launch heuristic lives here (other domains keep
/// theirs: spgemm/detail/spgemm_tuning.hpp, solvers/detail/cg_tuning.hpp,
/// select/detail/features_tuning.hpp), so that the kernels stay free of
/// backend conditionals: host backends get teams of one thread that
/// loop over a block of rows (or chunks), or, for kernels with a host shape
/// (HostBlock), the same blocks under a RangePolicy; GPU backends get C threads per SELL
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
    // SELL prefetches a chunk at a time, so short rows cost it no more than long ones.
    p.host_prefetch = kind == KernelKind::sell ? host_prefetch_enabled()
                                               : host_prefetch_worthwhile(nnz, num_rows);
    if (nnz <= host_static_max_entries) {
      const std::int64_t units = kind == KernelKind::sell ? num_chunks
                                 : kind == KernelKind::column_major_rows
                                     ? (num_rows + p.rows_per_thread - 1) / p.rows_per_thread
                                     : num_rows;
      if (units > 0) split_per_thread(p, units, threads);
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

/// The BSR kernels' launch (formats/bsr/detail/bsr_kernels.hpp) for a matrix
/// of num_block_rows block rows and num_blocks blocks of b x b, sliced in
/// chunks of chunk_size block rows.
/// - Host: teams of one thread over consecutive block rows, sized like the
///   CRS row kernel's (about 32 teams per thread, at least ~16K entries each).
/// - GPU, chunks (C > 1): `lanes` threads per block row (1; BsrThreads::pair:
///   2), 128 threads per team as SELL-C's teams: 128 / (lanes C) chunks, one
///   when C is larger.
/// - GPU, plain BSR (C = 1): a group of G vector lanes per block row, 128
///   threads per team. A lane keeps one piece of every block it visits
///   (pieces_per_block pieces of a block: entries for b <= 4, block rows
///   above), so G is a power of two of at least pieces_per_block; from there
///   it grows (to 32 at most) while the block row has pieces for about four
///   more steps and the lanes left idle by G % pieces_per_block shrink (b = 3:
///   16 lanes use 9, 32 use 27).
template <class ExecutionSpace>
LaunchParameters bsr_launch_parameters(ExecutionSpace const& exec, std::int64_t num_block_rows,
                                       std::int64_t num_blocks, int b, int pieces_per_block,
                                       std::int64_t chunk_size, int lanes = 1) {
  LaunchParameters p;
  const double entries = static_cast<double>(num_blocks) * b * b;
  if (num_block_rows == 0) return p;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    const std::int64_t threads = std::max<std::int64_t>(1, exec.concurrency());
    const double target = std::max(16384.0, entries / static_cast<double>(32 * threads));
    const double per_block_row = std::max(1.0, entries / static_cast<double>(num_block_rows));
    p.work_per_team = std::clamp<std::int64_t>(static_cast<std::int64_t>(target / per_block_row), 1,
                                               num_block_rows);
    p.league_size = (num_block_rows + p.work_per_team - 1) / p.work_per_team;
    p.host_prefetch = host_prefetch_enabled(); // a block row at a time, 1 x 1 blocks included
    if (entries <= static_cast<double>(host_static_max_entries)) {
      split_per_thread(p, num_block_rows, threads);
    }
  } else if (chunk_size > 1) {
    (void)exec;
    if (chunk_size > 1024) {
      throw std::invalid_argument(
          "spmvkit::spmv: BSR chunk size C = " + std::to_string(chunk_size) +
          " exceeds 1024 threads per team on this backend");
    }
    p.work_per_team = std::max<std::int64_t>(1, 128 / lanes / chunk_size); // chunks per team
    p.team_size = static_cast<int>(p.work_per_team * chunk_size);
    const std::int64_t chunks = (num_block_rows + chunk_size - 1) / chunk_size;
    p.league_size = (chunks + p.work_per_team - 1) / p.work_per_team;
  } else {
    const double pieces =
        static_cast<double>(num_blocks) * pieces_per_block / static_cast<double>(num_block_rows);
    int g = 1;
    while (g < pieces_per_block) g *= 2;
    auto used = [&](int lanes) {
      return static_cast<double>(lanes / pieces_per_block * pieces_per_block) / lanes;
    };
    while (g < 32 && (pieces >= 4.0 * g || used(2 * g) > used(g) + 0.1)) g *= 2;
    p.vector_length = g;
    p.team_size = 128 / g;
    p.work_per_team = p.team_size;
    p.league_size = (num_block_rows + p.work_per_team - 1) / p.work_per_team;
  }
  return p;
}

/// The BSR chunk size (block rows per chunk) when BsrOptions leaves it to the
/// backend: 32 on GPUs, so that a warp's threads take one chunk's block rows
/// and read each entry position of their blocks in one coalesced load; 1
/// (plain BSR) on hosts, where a thread walks a block row's contiguous blocks.
template <class ExecutionSpace>
constexpr int default_bsr_chunk_size() {
  return is_host_space_v<ExecutionSpace> ? 1 : 32;
}

/// CrsKernel::automatic (detail::spmv_crs) from the matrix's row statistics:
/// balanced where a row-owned kernel would wait on long rows, else a row-owned kernel (on the
/// host the vector kernel where rows are alike, else a row per thread; vector lanes sized by the
/// mean row, or a row per thread, on a GPU).
/// - Never where rows are alike: the longest row must be at least
///   crs_balanced_min_max_over_mean times the mean (FEM Poisson: 27 / 26.7;
///   cage10: 1.9; bcsstk08: 28; email-Enron: 138; R-MAT: ~1000).
/// - And the long rows must matter: hub rows (core/matrix_statistics.hpp)
///   hold at least crs_balanced_hub_mass of the nonzeros, or the longest row
///   is a large part of one thread's share of the nonzeros (host) or longer
///   than a few warp passes (GPU), or (GPU) rows are too short for vector
///   lanes, where the row-per-thread kernel reads uncoalesced.
///
/// Set from measurements (docs/notes/2026-11-23-crs-balanced.md):
/// - GPU: balanced beat the kernel chosen before on every matrix measured with
///   hub rows or rows too short for lanes (bcsstk08: 3.9x); where rows are
///   alike and long enough for lanes the vector kernel wins.
/// - Host: balanced is at least as fast as the row kernel on every irregular
///   matrix measured, so the thresholds only keep it off matrices where rows
///   are alike; below them the vector kernel (four partial sums in double) takes rows alike,
///   the plain row loop irregular ones.
/// The hub-mass floor (5%) and the GPU row floor (256) are not sharp: no
/// measured irregular matrix fell between them and the alternatives.
inline constexpr double crs_balanced_min_max_over_mean = 8.0;
inline constexpr double crs_balanced_hub_mass = 0.05;
inline constexpr double crs_balanced_host_row_share = 0.25;
inline constexpr std::int64_t crs_balanced_gpu_min_max_row = 256;

/// Whether a host sums rows of doubles in four partial sums (CrsKernel::vector's host shape):
/// where the longest row is below crs_balanced_min_max_over_mean times the mean. Where rows differ
/// more, the row loop was the faster of the two (docs/notes/2026-12-04-host-crs-four-lanes.md),
/// so the vector kernel runs it there (docs/notes/2026-12-05-host-crs-vector-irregular-rows.md).
inline bool host_rows_alike(MatrixStatistics const& s) {
  return s.max_over_mean() < crs_balanced_min_max_over_mean;
}

/// The CRS row kernels' launch. On hosts, where rows are alike (host_rows_alike), one static
/// weighted block per thread at any size: the dynamic launch was far slower on 16 cores where the
/// matrix fits the threads' L2 caches together, and balanced rows that differ widely better
/// (docs/notes/2026-12-05-host-crs-static-blocks.md). `statistics()` is called only for host
/// launches above host_static_max_entries.
template <class ExecutionSpace, class Statistics>
LaunchParameters crs_rows_launch_parameters(ExecutionSpace const& exec, KernelKind kind,
                                            std::int64_t num_rows, std::int64_t nnz,
                                            Statistics const& statistics) {
  LaunchParameters p = launch_parameters(exec, kind, num_rows, nnz);
  if constexpr (is_host_space_v<ExecutionSpace>) {
    if (!p.static_schedule && num_rows > 0 && host_rows_alike(statistics())) {
      split_per_thread(p, num_rows, std::max<std::int64_t>(1, exec.concurrency()));
    }
  } else {
    (void)statistics;
  }
  return p;
}

/// host_rows_alike from the longest row alone (SELL: its widest chunk; ELL: its width).
inline bool host_rows_alike(std::int64_t longest_row, std::int64_t nnz, std::int64_t num_rows) {
  return static_cast<double>(longest_row) * static_cast<double>(num_rows) <
         crs_balanced_min_max_over_mean * static_cast<double>(nnz);
}

/// SELL's (KernelKind::sell) and ELL's (KernelKind::column_major_rows) launch over `entries`
/// walked entries, `nnz` of them nonzeros. On hosts, where rows are alike (host_rows_alike), one
/// static block per thread at any size, as the CRS row kernels' launch: SELL's kernel weighs its
/// blocks by chunk entries (balanced_first_unit), ELL's blocks are equal shares of strips. The
/// dynamic launch lost most where the matrix fits the threads' L2 caches together
/// (docs/notes/2026-12-07-host-sell-ell-static-blocks.md).
/// `longest_row()` is called only for host launches above host_static_max_entries.
template <class ExecutionSpace, class LongestRow>
LaunchParameters padded_rows_launch_parameters(ExecutionSpace const& exec, KernelKind kind,
                                               std::int64_t num_rows, std::int64_t entries,
                                               std::int64_t nnz, int chunk_size,
                                               LongestRow const& longest_row) {
  LaunchParameters p = launch_parameters(exec, kind, num_rows, entries, chunk_size);
  if constexpr (is_host_space_v<ExecutionSpace>) {
    const std::int64_t threads = std::max<std::int64_t>(1, exec.concurrency());
    // The kernels count a team's rows in int (TeamThreadRange, ELL's strips per team), and a
    // weighted share may hold far more than rows / threads of them: all rows must fit, with a
    // chunk (C <= 1024) to spare.
    const bool fits_int = num_rows <= std::int64_t(std::numeric_limits<int>::max()) - 1024;
    if (!p.static_schedule && num_rows > 0 && fits_int &&
        host_rows_alike(longest_row(), nnz, num_rows)) {
      const std::int64_t rows_per_unit = kind == KernelKind::sell ? chunk_size : p.rows_per_thread;
      split_per_thread(p, (num_rows + rows_per_unit - 1) / rows_per_unit, threads);
    }
  } else {
    (void)nnz;
    (void)longest_row;
  }
  return p;
}

template <class ExecutionSpace>
CrsKernel automatic_crs_kernel(ExecutionSpace const& exec, MatrixStatistics const& s) {
  const bool irregular = s.max_over_mean() >= crs_balanced_min_max_over_mean;
  const bool hubs_matter = s.hub_mass >= crs_balanced_hub_mass;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    const double share =
        static_cast<double>(s.nnz) / static_cast<double>(std::max(1, exec.concurrency()));
    const bool dominant_row =
        static_cast<double>(s.max_row_length) >= crs_balanced_host_row_share * share;
    if (irregular && (hubs_matter || dominant_row)) return CrsKernel::balanced;
    // The vector kernel's host shape sums a row of doubles in four partial sums: faster where
    // rows are alike, slower on the power-law graphs measured (in float it is the plain loop;
    // docs/notes/2026-12-04-host-crs-four-lanes.md).
    return irregular ? CrsKernel::row_per_thread : CrsKernel::vector;
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

} // namespace detail
} // namespace spmvkit

#endif
