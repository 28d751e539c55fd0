// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CRS_DETAIL_MERGE_PATH_HPP
#define SPMVKIT_FORMATS_CRS_DETAIL_MERGE_PATH_HPP

// The load-balanced SpMV machinery shared by the balanced CRS kernel, COO and
// HYB's COO tail: merge-path tiles (Merrill & Garland, "Merge-based parallel
// sparse matrix-vector multiplication", SC 2016).
//
// The merge path interleaves the num_rows row ends with the nnz nonzeros in
// order (a row's end comes after its last nonzero). Cutting it into tiles of
// equal length gives every team the same work, rows and nonzeros together,
// whatever the row lengths: a row of 10^6 entries spans many tiles, a run of
// empty rows costs one path item each.
//
// - Plan (once per matrix, MergePathPlan): the (row, nonzero) coordinate where
//   each tile starts, found by a binary search on its diagonal. Products only
//   read it; they never search globally.
// - Product, GPU shape (staged): a team of T threads takes one tile. It loads
//   the tile's products vals(k) * x(cols(k)) and row ends into scratch
//   (coalesced loads; each thread's x gathers in flight together, from
//   registers), each thread finds its
//   items_per_thread-item stretch by a binary search in scratch and sums its
//   rows; rows that span threads are combined by a segmented scan over the
//   team in scratch.
// - Product, host shape (direct): one thread walks a tile in place (a
//   RangePolicy over tiles): rows in a plain loop, like the row-per-thread
//   kernel. A tile boundary never splits a row shorter than a quarter tile,
//   so such rows are summed exactly as the row kernel sums them.
// - A block of K columns of a multi-vector product (the block form of the
//   balanced CRS kernel, COO and HYB's tail; K <= the plan's carry lanes: 16
//   on the host, 8 on a GPU) reads
//   the matrix once: each thread sums K lanes and each tile keeps K carries.
//   The GPU shape stages values and columns instead of products (K products
//   per entry would not fit in scratch) and scans K lanes. The host shape also
//   walks several blocks of 16 columns of a wide LayoutRight product, row by
//   row (each row's entries read once per block, from cache where the row
//   fits), with a carry per column in a workspace of the product. A GPU block
//   whose columns of x lie apart and exceed a byte budget is halved, down to
//   the rank-1 kernel (merge_path_gpu_block_x_bytes).
// - Every row that ends in a tile is written by that tile, beta y folded in
//   (beta == 0 never reads y). A row still open at a tile's end leaves its
//   partial sum as the tile's carry, added later, in tile order, to the y
//   that the row's ending tile wrote: by the last tile to finish (an integer
//   counter tells it; host, and GPU plans of few tiles), else by a second,
//   tiny launch (one thread per tile). Neither runs when no row crosses a
//   tile.
// - No atomic accumulation: an integer counter bumped once per tile, and in
//   the in-kernel fix-up atomic reads and a single writer per row (for L2
//   coherence on GPUs), all in a fixed order, so products are bit-identical
//   from run to run. The tile shape depends on the matrix and the backend
//   only (never on the thread count), so host results do not change with
//   OMP_NUM_THREADS either. GPU and host results differ in the last bits.
//
// Kokkos Kernels' merge-path SpMV (KokkosSparse_spmv_impl_merge.hpp) is slow
// where this one is not: it scales y in a separate pass first, adds every
// row's sum to y with a global atomic, searches the team's bounds in global
// memory at every product, and gives each GPU thread 4 path items whose x
// gathers wait on one another (a rank-1 product stages values and columns,
// not products).
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit::detail {

/// The type of a plan's carries for a matrix of Scalar: the widest sum any
/// product with the matrix forms (a float matrix with double vectors sums in
/// double), so one plan serves every vector precision. A same-precision float
/// product stores its float carries in it exactly and reads them back exactly.
template <class Scalar>
using merge_carry_t = wider_t<Scalar, double>;

/// Where each tile of a matrix's merge path starts, and the carry workspace of
/// its products. Views are shared by copies of the plan.
///
/// The carries are a workspace written by every product: two products with
/// the same matrix must not run at the same time on two execution space
/// instances (the contract of a Kokkos Kernels SPMVHandle or a cuSPARSE
/// external buffer).
template <class Scalar, class Ordinal, class Offset, class Device>
struct MergePathPlan {
  /// num_tiles + 1 entries: rows ended before tile t (tile_rows(t)) and
  /// nonzeros consumed before it (tile_nnz(t)); the last entry is (num_rows,
  /// nnz).
  Kokkos::View<Ordinal*, Device> tile_rows;
  Kokkos::View<Offset*, Device> tile_nnz;
  /// num_tiles x carry_lanes entries: tile t's partial sum of row
  /// tile_rows(t + 1), the row it ends inside (0 when it ends on a row
  /// boundary); column c of a block of columns at t * K + c.
  Kokkos::View<merge_carry_t<Scalar>*, Device> carries;
  /// Tiles finished in the running product (carries fixed in the kernel);
  /// back to 0 when it ends.
  Kokkos::View<int*, Device> finished;
  std::int64_t num_tiles = 0;
  std::int64_t tile_length = 0; ///< path items per tile
  int carry_lanes = 1;          ///< columns a product may walk at once (host 16, GPU 8)
  /// Some tile ends inside a row's nonzeros: the carry pass is needed.
  bool has_crossings = false;
};

/// tile_rows(t), tile_nnz(t): the merge-path coordinate of diagonal
/// t * tile_length. A row end comes before nonzero k when the row ends at or
/// before k (CUB's convention), so a tile that starts right after a row's last
/// nonzero starts with that row's end. A coordinate inside a row of at most
/// whole_rows_up_to entries moves to the nearer end of that row (both are
/// coordinates of the path), so that the row stays whole.
template <class Ordinal, class Offset, class Device>
struct MergePathSearch {
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<Ordinal*, Device> tile_rows;
  Kokkos::View<Offset*, Device> tile_nnz;
  std::int64_t num_rows;
  std::int64_t nnz;
  std::int64_t tile_length;
  std::int64_t whole_rows_up_to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    const std::int64_t path = num_rows + nnz;
    const std::int64_t d = t * tile_length < path ? t * tile_length : path;
    std::int64_t lo = d > nnz ? d - nnz : 0;
    std::int64_t hi = d < num_rows ? d : num_rows;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(row_starts(mid + 1)) <= d - mid - 1) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    std::int64_t row = lo, consumed = d - lo;
    if (row < num_rows) {
      const std::int64_t start = row_starts(row), end = row_starts(row + 1);
      if (consumed > start && end - start <= whole_rows_up_to) {
        if (consumed - start <= end - consumed) {
          consumed = start; // the whole row goes to the next tile
        } else {
          consumed = end; // the whole row, its end included, stays in this one
          ++row;
        }
      }
    }
    tile_rows(t) = static_cast<Ordinal>(row);
    tile_nnz(t) = static_cast<Offset>(consumed);
  }
};

/// Counts the tile starts that lie inside a row's nonzeros.
template <class Ordinal, class Offset, class Device>
struct MergePathCrossings {
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> tile_rows;
  Kokkos::View<const Offset*, Device> tile_nnz;
  std::int64_t num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, std::int64_t& count) const {
    const std::int64_t row = tile_rows(t);
    if (row < num_rows && tile_nnz(t) > row_starts(row)) ++count;
  }
};

/// The merge-path plan of a matrix with the given row starts (num_rows + 1
/// entries) for tiles of p.work_per_team path items (rows of at most
/// p.whole_rows_up_to entries kept whole, which needs it below half a tile):
/// a search per tile, and a count read back (whether any row crosses a tile).
template <class Scalar, class Ordinal, class ExecutionSpace, class RowStarts>
MergePathPlan<Scalar, Ordinal, typename RowStarts::non_const_value_type,
              typename RowStarts::device_type>
merge_path_plan(ExecutionSpace const& exec, RowStarts const& row_starts, std::int64_t num_rows,
                std::int64_t nnz, LaunchParameters const& p, std::string const& label) {
  using Offset = typename RowStarts::non_const_value_type;
  using Device = typename RowStarts::device_type;
  using Plan = MergePathPlan<Scalar, Ordinal, Offset, Device>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  if (2 * p.whole_rows_up_to >= p.work_per_team && p.whole_rows_up_to > 0) {
    throw std::logic_error("spmvkit: merge-path rows kept whole must be shorter than half a tile");
  }
  Plan plan;
  plan.tile_length = p.work_per_team;
  plan.carry_lanes = p.staged ? merge_path_gpu_carry_lanes : merge_path_host_carry_lanes;
  plan.num_tiles = (num_rows + nnz + p.work_per_team - 1) / p.work_per_team;
  plan.tile_rows = allocate_view<decltype(plan.tile_rows)>(
      exec, "SpMVKit::MergePath::tile_rows(" + label + ")", plan.num_tiles + 1);
  plan.tile_nnz = allocate_view<decltype(plan.tile_nnz)>(
      exec, "SpMVKit::MergePath::tile_nnz(" + label + ")", plan.num_tiles + 1);
  plan.carries = allocate_view<decltype(plan.carries)>(
      exec, "SpMVKit::MergePath::carries(" + label + ")", plan.num_tiles * plan.carry_lanes);
  plan.finished = allocate_view<decltype(plan.finished)>(
      exec, "SpMVKit::MergePath::finished(" + label + ")", 1);
  Kokkos::deep_copy(exec, plan.finished, 0);
  Kokkos::parallel_for(
      "SpMVKit::MergePath::search", Range(exec, 0, plan.num_tiles + 1),
      MergePathSearch<Ordinal, Offset, Device>{row_starts, plan.tile_rows, plan.tile_nnz, num_rows,
                                               nnz, plan.tile_length, p.whole_rows_up_to});
  std::int64_t crossings = 0;
  if (plan.num_tiles > 1) {
    Kokkos::parallel_reduce("SpMVKit::MergePath::crossings", Range(exec, 1, plan.num_tiles),
                            MergePathCrossings<Ordinal, Offset, Device>{row_starts, plan.tile_rows,
                                                                        plan.tile_nnz, num_rows},
                            crossings);
  }
  plan.has_crossings = crossings > 0;
  return plan;
}

/// The plan for ExecutionSpace's own tiles (merge_path_parameters).
template <class Scalar, class Ordinal, class ExecutionSpace, class RowStarts>
MergePathPlan<Scalar, Ordinal, typename RowStarts::non_const_value_type,
              typename RowStarts::device_type>
merge_path_plan(ExecutionSpace const& exec, RowStarts const& row_starts, std::int64_t num_rows,
                std::int64_t nnz, std::string const& label) {
  return merge_path_plan<Scalar, Ordinal>(
      exec, row_starts, num_rows, nnz, merge_path_parameters<ExecutionSpace>(num_rows, nnz), label);
}

/// Row structure of a CRS matrix for the merge-path kernel: where a row ends.
template <class Ordinal, class Offset, class Device>
struct CsrRowEnds {
  Kokkos::View<const Offset*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> row_starts;

  /// End of row r; k is the walk's position (unused: CRS stores the end).
  KOKKOS_FORCEINLINE_FUNCTION Offset row_end(Ordinal r, Offset, Offset) const {
    return row_starts(r + 1);
  }
  /// ends(r) = end of row i0 + r for the tile's rows [i0, i1), ends(i1 - i0) = j1.
  template <class Member, class Ends>
  KOKKOS_INLINE_FUNCTION void stage_ends(Member const& team, Ordinal i0, Ordinal i1, Offset,
                                         Offset j1, Ends const& ends) const {
    const int nr = static_cast<int>(i1 - i0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nr + 1),
                         [&](int r) { ends(r) = r < nr ? row_starts(i0 + r + 1) : j1; });
  }
};

/// Row structure of a COO matrix (row index of every nonzero, sorted): a row
/// ends at the first nonzero of a later row.
template <class Ordinal, class Offset, class Device>
struct CooRowKeys {
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> rows;

  /// End of row r, scanning the keys from the walk's position k; the merge
  /// path guarantees that row r ends at or before k_max.
  KOKKOS_FORCEINLINE_FUNCTION Offset row_end(Ordinal r, Offset k, Offset k_max) const {
    while (k < k_max && rows(k) <= r) ++k;
    return k;
  }
  template <class Member, class Ends>
  KOKKOS_INLINE_FUNCTION void stage_ends(Member const& team, Ordinal i0, Ordinal i1, Offset j0,
                                         Offset j1, Ends const& ends) const {
    const int nr = static_cast<int>(i1 - i0);
    const int nz = static_cast<int>(j1 - j0);
    // Rows before the tile's first nonzero end where the tile's nonzeros start.
    const int lead =
        nz > 0 && static_cast<int>(rows(j0) - i0) < nr ? static_cast<int>(rows(j0) - i0) : nr;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, lead), [&](int r) { ends(r) = j0; });
    // The last nonzero of a row ends it and the empty rows after it.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nz), [&](int k) {
      const int row = static_cast<int>(rows(j0 + k) - i0);
      const int next = k + 1 < nz ? static_cast<int>(rows(j0 + k + 1) - i0) : nr;
      for (int r = row; r < next && r < nr; ++r) ends(r) = j0 + k + 1;
    });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { ends(nr) = j1; });
  }
};

/// Adds the carries of the run of tiles that start at tile t and end inside
/// the same row to that row's y, in tile order, if t is the first of its run
/// (tile t - 1 ends in another row). The row's ending tile has written y.
/// Summed in Acc (alpha's type); with y narrower than Acc (a double matrix
/// with float vectors) such a row is rounded twice, at the ending tile's
/// store and here.
template <class TileRows, class Carries, class Map, class Y, class Acc>
KOKKOS_INLINE_FUNCTION void
add_carry_run(TileRows const& tile_rows, Carries const& carries, Map const& row_map, Y const& y,
              Acc alpha, std::int64_t num_rows, std::int64_t num_tiles, std::int64_t t) {
  const auto row = tile_rows(t + 1);
  if (row >= num_rows) return;
  if (t > 0 && tile_rows(t) == row) return; // tile t - 1 ends in this row too
  Acc sum = static_cast<Acc>(carries(t));
  for (std::int64_t u = t + 1; u < num_tiles && tile_rows(u + 1) == row; ++u)
    sum += static_cast<Acc>(carries(u));
  auto& out = y(row_map.extent(0) != 0 ? row_map(row) : row);
  out = static_cast<typename Y::value_type>(out + alpha * sum);
}

/// add_carry_run for y's blocks of K columns (L = K x y.blocks columns from
/// y.c0): column c of tile u's carry at u * L + c, added to column y.c0 + c.
template <class TileRows, class Carries, class Map, class View2, int K, class Acc>
KOKKOS_INLINE_FUNCTION void add_carry_run(TileRows const& tile_rows, Carries const& carries,
                                          Map const& row_map, MultiY<View2, K> const& y, Acc alpha,
                                          std::int64_t num_rows, std::int64_t num_tiles,
                                          std::int64_t t) {
  const auto row = tile_rows(t + 1);
  if (row >= num_rows) return;
  if (t > 0 && tile_rows(t) == row) return;
  const auto out = row_map.extent(0) != 0 ? row_map(row) : row;
  const int L = K * y.blocks;
  for (int c = 0; c < L; ++c) {
    Acc sum = static_cast<Acc>(carries(t * L + c));
    for (std::int64_t u = t + 1; u < num_tiles && tile_rows(u + 1) == row; ++u)
      sum += static_cast<Acc>(carries(u * L + c));
    auto& o = y.y(out, y.c0 + c);
    o = static_cast<typename View2::non_const_value_type>(o + alpha * sum);
  }
}

/// add_carry_run inside the product kernel, after every other tile is done:
/// the carries and y are read with atomic operations, which GPUs serve from
/// the coherent L2 (a plain load could hit a stale L1 line). One thread per
/// run and a fixed order: the result is the same as add_carry_run's.
template <class TileRows, class Carries, class Map, class Y, class Acc>
KOKKOS_INLINE_FUNCTION void add_carry_run_coherent(TileRows const& tile_rows,
                                                   Carries const& carries, Map const& row_map,
                                                   Y const& y, Acc alpha, std::int64_t num_rows,
                                                   std::int64_t num_tiles, std::int64_t t) {
  using Carry = typename Carries::non_const_value_type;
  const auto row = tile_rows(t + 1);
  if (row >= num_rows) return;
  if (t > 0 && tile_rows(t) == row) return;
  Acc sum = static_cast<Acc>(Kokkos::atomic_fetch_add(&carries(t), Carry(0)));
  for (std::int64_t u = t + 1; u < num_tiles && tile_rows(u + 1) == row; ++u)
    sum += static_cast<Acc>(Kokkos::atomic_fetch_add(&carries(u), Carry(0)));
  Kokkos::atomic_add(&y(row_map.extent(0) != 0 ? row_map(row) : row),
                     static_cast<typename Y::value_type>(alpha * sum));
}

/// add_carry_run_coherent for y's blocks of K columns (L = K x y.blocks
/// columns): column c of tile u's carry at u * L + c, added to column y.c0 + c.
template <class TileRows, class Carries, class Map, class View2, int K, class Acc>
KOKKOS_INLINE_FUNCTION void
add_carry_run_coherent(TileRows const& tile_rows, Carries const& carries, Map const& row_map,
                       MultiY<View2, K> const& y, Acc alpha, std::int64_t num_rows,
                       std::int64_t num_tiles, std::int64_t t) {
  using Carry = typename Carries::non_const_value_type;
  const auto row = tile_rows(t + 1);
  if (row >= num_rows) return;
  if (t > 0 && tile_rows(t) == row) return;
  const auto out = row_map.extent(0) != 0 ? row_map(row) : row;
  const int L = K * y.blocks;
  for (int c = 0; c < L; ++c) {
    Acc sum = static_cast<Acc>(Kokkos::atomic_fetch_add(&carries(t * L + c), Carry(0)));
    for (std::int64_t u = t + 1; u < num_tiles && tile_rows(u + 1) == row; ++u)
      sum += static_cast<Acc>(Kokkos::atomic_fetch_add(&carries(u * L + c), Carry(0)));
    Kokkos::atomic_add(&y.y(out, y.c0 + c),
                       static_cast<typename View2::non_const_value_type>(alpha * sum));
  }
}

/// Selects the host shape's RangePolicy entry of MergePathSpmv.
struct MergePathDirect {};

/// One tile per team (see the top of this file). Staged: the GPU shape, a
/// TeamPolicy of any team size; otherwise the host shape, a RangePolicy over
/// tiles (MergePathDirect): host TeamPolicy launches cost far more than the
/// product of a small matrix with many threads (16-core Xeon, Kokkos 3.4:
/// ~200 us per launch).
template <class ExecutionSpace, class Rows, class Scalar, class Ordinal, class Offset, class Device,
          class X, class Y>
struct MergePathSpmv {
  // Scalar is the matrix's; sums, products and alpha, beta are in Acc.
  using Acc = wider_t<Scalar, typename Y::non_const_value_type>;
  using Sum = spmv_sum_t<Acc, Y>; // Lanes<Acc, K> for a block of K columns
  static constexpr int lanes = lanes_of<Y>::value;
  using Carry = merge_carry_t<Scalar>;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  template <class T>
  using scratch_view = Kokkos::View<T*, typename ExecutionSpace::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Rows rows;
  ro_view<Ordinal> cols;
  ro_view<Scalar> vals;
  ro_view<Ordinal> tile_rows;
  ro_view<Offset> tile_nnz;
  Kokkos::View<Carry*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> carries;
  ro_view<Ordinal> row_map; // empty: row r is y(r); HYB's tail maps its rows
  Kokkos::View<int*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> finished;
  X x;
  Y y;
  Acc alpha, beta;
  int items_per_thread;
  int tile_length;
  std::int64_t num_tiles;
  std::int64_t num_rows;
  /// The last tile to finish adds the carries, instead of a second launch.
  bool carries_in_kernel;
  /// Host shape: prefetch the tile's entries ahead (LaunchParameters::host_prefetch).
  bool prefetch = false;

  /// Scratch of the staged shape: products (a block of columns: values and
  /// columns) and row ends of a tile, two buffers of partial sums per lane
  /// and the row keys of the scan.
  static std::size_t scratch_bytes(int team_size, int tile_length) {
    const std::size_t entries = is_multi_vector_v<Y>
                                    ? scratch_view<Scalar>::shmem_size(tile_length) +
                                          scratch_view<Ordinal>::shmem_size(tile_length)
                                    : scratch_view<Acc>::shmem_size(tile_length);
    return entries + scratch_view<Offset>::shmem_size(tile_length + 1) +
           scratch_view<Acc>::shmem_size(2 * lanes * team_size) +
           scratch_view<int>::shmem_size(team_size);
  }

  template <class S>
  KOKKOS_FORCEINLINE_FUNCTION void emit(Ordinal row, S const& sum) const {
    store_row(y, row_map.extent(0) != 0 ? row_map(row) : row, alpha, beta, sum);
  }

  /// Rows of the tile ended before local diagonal d (nz nonzeros, nr rows).
  KOKKOS_INLINE_FUNCTION static int local_search(scratch_view<Offset> const& ends, Offset j0,
                                                 int nr, int nz, int d) {
    int lo = d > nz ? d - nz : 0;
    int hi = d < nr ? d : nr;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (static_cast<int>(ends(mid) - j0) <= d - mid - 1) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /// GPU shape: one tile per team.
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t t = team.league_rank();
    if constexpr (is_multi_vector_v<Y>) {
      staged_block(team, t, tile_rows(t), tile_rows(t + 1), tile_nnz(t), tile_nnz(t + 1));
    } else {
      staged(team, t, tile_rows(t), tile_rows(t + 1), tile_nnz(t), tile_nnz(t + 1));
    }
    if (carries_in_kernel) {
      Kokkos::memory_fence(); // this thread's y and carry before the count
      team.team_barrier();
      int last = 0;
      Kokkos::single(
          Kokkos::PerTeam(team), [&](int& is_last) { is_last = count_finished(); }, last);
      if (!last) return;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, num_tiles), [&](std::int64_t u) {
        add_carry_run_coherent(tile_rows, carries, row_map, y, alpha, num_rows, num_tiles, u);
      });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { finished(0) = 0; });
    }
  }

  /// Host shape: the row loop of the row-per-thread kernel over the tile's
  /// rows. The first row may have begun in an earlier tile, the last may go
  /// on in later ones (this tile's carry).
  KOKKOS_INLINE_FUNCTION void operator()(MergePathDirect, std::int64_t t) const {
    with_blocks_known(x, [&](auto blocked) {
      if constexpr (is_host_space_v<ExecutionSpace>) {
        if (prefetch) {
          direct(t, blocked, std::true_type());
          return;
        }
      }
      direct(t, blocked, std::false_type());
    });
  }

  /// The host shape's tile; with several blocks of columns (Blocked), each row's entries are
  /// walked once per block (from cache after the first where the row fits) and the tile keeps a
  /// carry per column (y.blocks == x.blocks: the fix-ups read K x y.blocks carries per tile).
  template <class Blocked, class Prefetch>
  KOKKOS_INLINE_FUNCTION void direct(std::int64_t t, Blocked, Prefetch) const {
    const Ordinal i0 = tile_rows(t), i1 = tile_rows(t + 1);
    const Offset j0 = tile_nnz(t), j1 = tile_nnz(t + 1);
    Scalar const* const v = vals.data();
    Ordinal const* const c = cols.data();
    Offset k = j0;
    if constexpr (Blocked::value) {
      const int blocks = column_blocks(x);
      for (Ordinal r = i0; r < i1; ++r) {
        const Offset end = rows.row_end(r, k, j1);
        for (int cb = 0; cb < blocks; ++cb) {
          const auto xb = host_columns(column_block_at(x, cb));
          Sum sum = 0;
          for (Offset e = k; e < end; ++e) sum += widened_product<Sum>(v[e], xb(c[e]));
          store_row(column_block_at(y, cb), row_map.extent(0) != 0 ? row_map(r) : r, alpha, beta,
                    sum);
        }
        k = end;
      }
      for (int cb = 0; cb < blocks; ++cb) {
        const auto xb = host_columns(column_block_at(x, cb));
        Sum sum = 0;
        for (Offset e = k; e < j1; ++e) sum += widened_product<Sum>(v[e], xb(c[e]));
        for (int l = 0; l < lanes; ++l)
          carries((t * blocks + cb) * lanes + l) = static_cast<Carry>(sum.v[l]);
      }
    } else {
      const auto xs = host_columns(x);
      Sum sum = 0;
      HostPrefetchCursor<Scalar> ahead_v(v + j0, Prefetch::value);
      HostPrefetchCursor<Ordinal> ahead_c(c + j0, Prefetch::value);
      for (Ordinal r = i0; r < i1; ++r) {
        const Offset end = rows.row_end(r, k, j1);
        if constexpr (Prefetch::value) {
          ahead_v.through(v + end);
          ahead_c.through(c + end);
        }
        for (; k < end; ++k) sum += widened_product<Sum>(v[k], xs(c[k]));
        emit(r, sum);
        sum = 0;
      }
      if constexpr (Prefetch::value) {
        ahead_v.through(v + j1);
        ahead_c.through(c + j1);
      }
      for (; k < j1; ++k) sum += widened_product<Sum>(v[k], xs(c[k]));
      if constexpr (is_multi_vector_v<Y>) {
        for (int l = 0; l < lanes; ++l) carries(t * lanes + l) = static_cast<Carry>(sum.v[l]);
      } else {
        carries(t) = static_cast<Carry>(sum);
      }
    }
    if (carries_in_kernel) {
      Kokkos::memory_fence();
      if (!count_finished()) return;
      for (std::int64_t u = 0; u < num_tiles; ++u)
        add_carry_run_coherent(tile_rows, carries, row_map, y, alpha, num_rows, num_tiles, u);
      finished(0) = 0;
    }
  }

  /// Counts this tile as finished; true for the last one, which then adds
  /// every carry: one launch instead of two (a second launch costs as much
  /// as a small product). Only this integer counter and the fix-up's reads
  /// are atomic; the carries are added in tile order, as in the carry pass.
  KOKKOS_INLINE_FUNCTION bool count_finished() const {
    const bool last = Kokkos::atomic_fetch_add(&finished(0), 1) == static_cast<int>(num_tiles - 1);
    Kokkos::memory_fence(); // every tile's y and carry before the fix-up reads them
    return last;
  }

  KOKKOS_INLINE_FUNCTION void staged(member_type const& team, std::int64_t t, Ordinal i0,
                                     Ordinal i1, Offset j0, Offset j1) const {
    const int ts = team.team_size();
    const int tr = team.team_rank();
    const int nr = static_cast<int>(i1 - i0);
    const int nz = static_cast<int>(j1 - j0);
    const int len = nr + nz;
    scratch_view<Acc> prods(team.team_scratch(0), tile_length);
    scratch_view<Offset> ends(team.team_scratch(0), tile_length + 1);
    scratch_view<Acc> partial(team.team_scratch(0), 2 * ts);
    scratch_view<int> keys(team.team_scratch(0), ts);
    // Coalesced loads of the tile's entries, in batches of G per thread held
    // in registers: all G columns in flight, then all G gathers of x (a loop
    // that stores each product before the next load waits out two latencies
    // per entry). The row ends load while the columns are on their way.
    constexpr int G = merge_path_gpu_gather_batch;
    for (int base = 0; base < nz; base += G * ts) {
      Ordinal c[G];
      Scalar v[G];
      Acc prod[G];
      for (int g = 0; g < G; ++g) {
        const int k = base + tr + g * ts;
        c[g] = k < nz ? load_streaming(cols.data() + j0 + k) : Ordinal(0);
        v[g] = k < nz ? load_streaming(vals.data() + j0 + k) : Scalar(0);
      }
      if (base == 0) rows.stage_ends(team, i0, i1, j0, j1, ends);
      for (int g = 0; g < G; ++g)
        prod[g] = base + tr + g * ts < nz ? widened_product<Acc>(v[g], x(c[g])) : Acc(0);
      for (int g = 0; g < G; ++g) {
        const int k = base + tr + g * ts;
        if (k < nz) prods(k) = prod[g];
      }
    }
    if (nz == 0) rows.stage_ends(team, i0, i1, j0, j1, ends);
    team.team_barrier();

    // This thread's stretch of the tile: local diagonals [d0, d1).
    const int d0 = tr * items_per_thread < len ? tr * items_per_thread : len;
    const int d1 = d0 + items_per_thread < len ? d0 + items_per_thread : len;
    const int a0 = local_search(ends, j0, nr, nz, d0);
    const int a1 = local_search(ends, j0, nr, nz, d1);
    int k = d0 - a0;
    const int k_end = d1 - a1;
    Acc sum = 0, first = 0;
    for (int r = a0; r < a1; ++r) {
      const int end = static_cast<int>(ends(r) - j0);
      for (; k < end; ++k) sum += prods(k);
      // The first row may have begun in earlier threads: it waits for the scan.
      if (r == a0) {
        first = sum;
      } else {
        emit(i0 + r, sum);
      }
      sum = 0;
    }
    for (; k < k_end; ++k) sum += prods(k);

    // Segmented inclusive scan of the threads' open-row sums, keyed by the
    // row they are open in (keys ascend with the thread rank, so a thread
    // adds its neighbour's value only when both are open in the same row).
    // Hillis-Steele with two buffers: one barrier per step, a fixed order of
    // additions.
    keys(tr) = a1;
    partial(tr) = sum;
    team.team_barrier();
    int src = 0;
    for (int off = 1; off < ts; off *= 2) {
      Acc v = partial(src * ts + tr);
      if (tr >= off && keys(tr - off) == keys(tr)) v = partial(src * ts + tr - off) + v;
      partial((1 - src) * ts + tr) = v;
      src = 1 - src;
      team.team_barrier();
    }
    // Thread tr - 1 ends open in the row this thread starts in, so its
    // inclusive value is exactly that row's sum over earlier threads.
    if (a0 < a1) emit(i0 + a0, (tr > 0 ? partial(src * ts + tr - 1) : Acc(0)) + first);
    if (tr == ts - 1) carries(t) = static_cast<Carry>(partial(src * ts + tr));
  }

  /// staged() for a block of K columns: the tile's values and columns are
  /// staged, each thread gathers K entries of x per nonzero (independent
  /// loads, so many are still in flight) and sums K lanes; the scan runs on
  /// K lanes kept lane-major (partial(lane * ts + thread): a warp reads
  /// consecutive words).
  KOKKOS_INLINE_FUNCTION void staged_block(member_type const& team, std::int64_t t, Ordinal i0,
                                           Ordinal i1, Offset j0, Offset j1) const {
    constexpr int K = lanes;
    const int ts = team.team_size();
    const int tr = team.team_rank();
    const int nr = static_cast<int>(i1 - i0);
    const int nz = static_cast<int>(j1 - j0);
    const int len = nr + nz;
    scratch_view<Scalar> sv(team.team_scratch(0), tile_length);
    scratch_view<Ordinal> sc(team.team_scratch(0), tile_length);
    scratch_view<Offset> ends(team.team_scratch(0), tile_length + 1);
    scratch_view<Acc> partial(team.team_scratch(0), 2 * K * ts);
    scratch_view<int> keys(team.team_scratch(0), ts);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nz), [&](int k) {
      sv(k) = load_streaming(vals.data() + j0 + k);
      sc(k) = load_streaming(cols.data() + j0 + k);
    });
    rows.stage_ends(team, i0, i1, j0, j1, ends);
    team.team_barrier();

    const int d0 = tr * items_per_thread < len ? tr * items_per_thread : len;
    const int d1 = d0 + items_per_thread < len ? d0 + items_per_thread : len;
    const int a0 = local_search(ends, j0, nr, nz, d0);
    const int a1 = local_search(ends, j0, nr, nz, d1);
    int k = d0 - a0;
    const int k_end = d1 - a1;
    Sum sum = 0, first = 0;
    for (int r = a0; r < a1; ++r) {
      const int end = static_cast<int>(ends(r) - j0);
      for (; k < end; ++k) sum += widened_product<Sum>(sv(k), x(sc(k)));
      if (r == a0) {
        first = sum;
      } else {
        emit(i0 + r, sum);
      }
      sum = 0;
    }
    for (; k < k_end; ++k) sum += widened_product<Sum>(sv(k), x(sc(k)));

    keys(tr) = a1;
    for (int l = 0; l < K; ++l) partial(l * ts + tr) = sum.v[l];
    team.team_barrier();
    int src = 0;
    for (int off = 1; off < ts; off *= 2) {
      const bool joined = tr >= off && keys(tr - off) == keys(tr);
      for (int l = 0; l < K; ++l) {
        Acc v = partial((src * K + l) * ts + tr);
        if (joined) v = partial((src * K + l) * ts + tr - off) + v;
        partial(((1 - src) * K + l) * ts + tr) = v;
      }
      src = 1 - src;
      team.team_barrier();
    }
    if (a0 < a1) {
      Sum before = 0;
      if (tr > 0)
        for (int l = 0; l < K; ++l) before.v[l] = partial((src * K + l) * ts + tr - 1);
      emit(i0 + a0, before + first);
    }
    if (tr == ts - 1)
      for (int l = 0; l < K; ++l)
        carries(t * K + l) = static_cast<Carry>(partial((src * K + l) * ts + tr));
  }
};

/// The carry pass (a second launch, for plans of many tiles): add_carry_run
/// per tile.
template <class Carry, class Acc, class Ordinal, class Device, class Y>
struct MergePathCarries {
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> tile_rows;
  Kokkos::View<const Carry*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> carries;
  Kokkos::View<const Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> row_map;
  Y y;
  Acc alpha;
  std::int64_t num_rows;
  std::int64_t num_tiles;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    add_carry_run(tile_rows, carries, row_map, y, alpha, num_rows, num_tiles, t);
  }
};

/// y = beta y + alpha A x over a merge-path plan, with the launch shape p
/// (merge_path_parameters, or a test's own: p.work_per_team must be the
/// plan's tile length, p.team_size 1 unless p.staged). rows: CsrRowEnds or
/// CooRowKeys; row_map: empty, or the output row of each row of the plan.
/// x and y may be a block of K <= plan.carry_lanes columns (MultiX, MultiY), several blocks
/// in the host shape (MultiX::blocks > 1), halved while K columns of an x whose columns lie
/// apart take more than p.block_x_bytes (single columns and blocks of 1 in the staged shape go
/// to the rank-1 kernel).
template <class ExecutionSpace, class Rows, class Plan, class Cols, class Vals, class Map, class X,
          class Y>
void spmv_merge_path(
    ExecutionSpace const& exec, LaunchParameters const& p, Plan const& plan, Rows const& rows,
    Cols const& cols, Vals const& vals, Map const& row_map, std::int64_t num_rows, X const& x,
    Y const& y,
    wider_t<typename Vals::non_const_value_type, typename Y::non_const_value_type> alpha,
    wider_t<typename Vals::non_const_value_type, typename Y::non_const_value_type> beta,
    std::string const& label) {
  using Scalar = typename Vals::non_const_value_type;
  using Acc = wider_t<Scalar, typename Y::non_const_value_type>;
  static_assert(sizeof(Acc) <= sizeof(merge_carry_t<Scalar>),
                "spmvkit: the merge-path carries cannot hold this product's sums");
  using Ordinal = typename Cols::non_const_value_type;
  using Offset = typename decltype(plan.tile_nnz)::non_const_value_type;
  using Device = typename Vals::device_type;
  if (plan.num_tiles == 0) return; // no rows: nothing to write
  // Only the host shape walks several blocks of columns (walks_column_blocks).
  if (column_blocks(x) > 1 && p.staged) {
    for_each_block(x, y, [&](auto const& xb, auto const& yb) {
      spmv_merge_path(exec, p, plan, rows, cols, vals, row_map, num_rows, xb, yb, alpha, beta,
                      label);
    });
    return;
  }
  if constexpr (is_multi_vector_v<Y>) {
    using XView = std::decay_t<decltype(x.x)>;
    using YView = std::decay_t<decltype(y.y)>;
    constexpr int K = Y::lanes;
    // One column in the staged shape: the rank-1 kernel, which stages products.
    auto by_column = [&] {
      for (int c = 0; c < K * column_blocks(x); ++c) {
        spmv_merge_path(exec, p, plan, rows, cols, vals, row_map, num_rows,
                        Kokkos::subview(x.x, Kokkos::ALL, x.c0 + c),
                        Kokkos::subview(y.y, Kokkos::ALL, y.c0 + c), alpha, beta, label);
      }
    };
    if constexpr (K == 1) {
      if (p.staged) {
        by_column();
        return;
      }
    } else {
      const double block_bytes = static_cast<double>(K) * static_cast<double>(x.x.extent(0)) *
                                 sizeof(typename X::non_const_value_type);
      if (x.x.stride(1) != 1 && block_bytes > static_cast<double>(p.block_x_bytes)) {
        constexpr int H = K / 2;
        if (H == 1 && p.staged) {
          by_column();
          return;
        }
        for (int c0 = 0; c0 < K * column_blocks(x); c0 += H) {
          spmv_merge_path(exec, p, plan, rows, cols, vals, row_map, num_rows,
                          MultiX<XView, H>{x.x, x.c0 + c0}, MultiY<YView, H>{y.y, y.c0 + c0}, alpha,
                          beta, label);
        }
        return;
      }
    }
  }
  if (p.work_per_team != plan.tile_length || p.items_per_thread * p.team_size != p.work_per_team ||
      (!p.staged && p.team_size != 1)) {
    throw std::logic_error("spmvkit: merge-path launch does not match the tile plan of " + label);
  }
  const bool in_kernel =
      plan.has_crossings && p.carries_in_kernel && plan.num_tiles <= p.carries_in_kernel_max_tiles;
  // Several blocks (host shape): a carry per column of every block, beyond the plan's lanes.
  using CarryView = Kokkos::View<merge_carry_t<Scalar>*, Device>;
  CarryView carries = plan.carries;
  if (column_blocks(x) > 1) {
    carries = allocate_view<CarryView>(exec, "SpMVKit::MergePath::block_carries(" + label + ")",
                                       plan.num_tiles * lanes_of<Y>::value * column_blocks(x));
  }
  if constexpr (is_multi_vector_v<Y>) {
    if (Y::lanes > plan.carry_lanes) {
      throw std::logic_error("spmvkit: a block of " + std::to_string(Y::lanes) +
                             " columns exceeds the " + std::to_string(plan.carry_lanes) +
                             " carry lanes of the merge-path plan of " + label);
    }
  }
  using Functor = MergePathSpmv<ExecutionSpace, Rows, Scalar, Ordinal, Offset, Device, X, Y>;
  const Functor f{rows,
                  cols,
                  vals,
                  plan.tile_rows,
                  plan.tile_nnz,
                  carries,
                  row_map,
                  plan.finished,
                  x,
                  y,
                  alpha,
                  beta,
                  static_cast<int>(p.items_per_thread),
                  static_cast<int>(p.work_per_team),
                  plan.num_tiles,
                  num_rows,
                  in_kernel,
                  p.host_prefetch};
  if (p.staged) {
    Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(
        exec, plan.num_tiles, p.team_size, 1);
    policy.set_scratch_size(
        0, Kokkos::PerTeam(Functor::scratch_bytes(p.team_size, static_cast<int>(p.work_per_team))));
    Kokkos::parallel_for(label, policy, f);
  }
  if (!p.staged) {
    auto direct = [&](auto schedule) {
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecutionSpace, MergePathDirect, decltype(schedule),
                              Kokkos::IndexType<std::int64_t>>(exec, 0, plan.num_tiles),
          f);
    };
    // Only host plans ask for the static schedule (merge_path_parameters); GPUs compile one launch.
    bool launched = false;
    if constexpr (is_host_space_v<ExecutionSpace>) {
      if (p.static_schedule) {
        direct(Kokkos::Schedule<Kokkos::Static>());
        launched = true;
      }
    }
    if (!launched) direct(Kokkos::Schedule<Kokkos::Dynamic>());
  }
  if (plan.has_crossings && !in_kernel) {
    Kokkos::parallel_for(label + "_carries",
                         Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                             exec, 0, plan.num_tiles),
                         MergePathCarries<merge_carry_t<Scalar>, Acc, Ordinal, Device, Y>{
                             plan.tile_rows, carries, row_map, y, alpha, num_rows, plan.num_tiles});
  }
}

} // namespace spmvkit::detail

#endif
