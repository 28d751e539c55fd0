// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_DETAIL_SELL_KERNELS_HPP
#define SPMVKIT_FORMATS_SELL_DETAIL_SELL_KERNELS_HPP

// Kernels of every SELL format: SpMV and diagonal. Templated on the matrix
// type, so this header does not need sell_matrix.hpp.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace spmvkit::detail {

/// SELL-C-σ SpMV for every column encoding. A team covers `chunks_per_team`
/// chunks (host static launches: a weighted share, block_chunks); each of its threads owns
/// RowsPerThread rows of one chunk, lanes lane, lane + T, lane + 2T, ... (T = C / RowsPerThread
/// threads per chunk). On a GPU RowsPerThread = 1 and T = C, so a warp reads one chunk column in
/// one coalesced sweep. On the host one thread owns the whole chunk
/// (RowsPerThread = C) and reads it contiguously, keeping C accumulators in
/// registers.
///
/// The width loop is unrolled Unroll times with all loads of a step issued
/// before the first multiply, so a GPU thread has that many independent
/// requests in flight. Matrix entries are read once, so they are loaded as
/// streaming data: x, which is re-read by neighbouring rows, keeps the cache.
/// Index arithmetic stays in 32 bits where the values allow: 64-bit division
/// per thread costs as much as several multiply-adds on a GPU.
///
/// No variant fuses CG's pᵀAp into the product: it made whole CG solves no
/// faster on an H200 (docs/notes/2026-11-21-sell-kernels.md).
template <int RowsPerThread, int Unroll, class Matrix, class X, class Y>
struct SellSpmv {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>; // sums, alpha and beta (kernel_common.hpp)
  using Sum = spmv_sum_t<Acc, Y>;       // Lanes<Acc, K> for a block of K columns
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using Columns = typename Matrix::column_encoding;
  using Stored = typename Matrix::stored_column_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> chunk_starts;
  ro_view<Ordinal> chunk_widths;
  ro_view<Stored> cols;
  ro_view<Scalar> vals;
  ro_view<Ordinal> perm; // empty when rows are not permuted
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_rows;
  Ordinal num_chunks;
  int chunk_size;
  int chunks_per_team;
  bool prefetch = false; ///< host: prefetch the chunks' slots ahead (LaunchParameters)
  /// Host static launches: this many blocks of equal weighted chunks plus entries
  /// (balanced_first_unit) rather than of chunks_per_team chunks.
  std::int64_t balanced_blocks = 0;

  /// The chunks [first, last) of team or host block `block`.
  KOKKOS_INLINE_FUNCTION Kokkos::pair<std::int64_t, std::int64_t>
  block_chunks(std::int64_t block) const {
    if constexpr (is_host_space_v<typename Matrix::execution_space>) {
      if (balanced_blocks > 0) {
        const std::int64_t weight = host_row_weight * chunk_size;
        return {balanced_first_unit(chunk_starts, num_chunks, block, balanced_blocks, weight),
                balanced_first_unit(chunk_starts, num_chunks, block + 1, balanced_blocks, weight)};
      }
    }
    const std::int64_t first = block * chunks_per_team;
    return {first, first + chunks_per_team < num_chunks ? first + chunks_per_team
                                                        : std::int64_t(num_chunks)};
  }

  // Rows past num_rows (the tail of the last chunk) count as row 0, as in FillSell.
  KOKKOS_FORCEINLINE_FUNCTION Ordinal original_row(Ordinal stored_row) const {
    return stored_row >= num_rows ? Ordinal(0)
           : perm.extent(0) != 0  ? perm(stored_row)
                                  : stored_row;
  }

  // The decode is a forced-inline function and the row loop sits directly in
  // the TeamThreadRange lambda: a decode lambda ran slower on host
  // (docs/notes/2026-11-21-sell-kernels.md).
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal column(Stored stored, Ordinal const* row, int r) {
    if constexpr (Columns::relative) {
      return Columns::decode(stored, row[r]);
    } else {
      (void)row;
      (void)r;
      return Columns::decode(stored, Ordinal(0));
    }
  }

  // On hosts one thread owns a whole chunk for one vector (RowsPerThread = C, spmv_sell): its
  // rows are then contiguous, and saying so at compile time lets the loads of a step be
  // contiguous too (docs/notes/2026-12-01-sell-host-store.md).
  static constexpr bool host_whole_chunk = RowsPerThread > 1 && !is_multi_vector_v<Y>;

  // Blocks of 8 or more columns take the host shape (launch_parameters.hpp's HostBlock), one row
  // at a time (host_rows_per_thread gives them one); narrower blocks keep the team body
  // (docs/notes/2026-12-01-multivector-host-sell.md).
  static constexpr bool host_shape = lanes_of<Y>::value >= host_block_sums;
  static_assert(!host_shape || RowsPerThread == 1,
                "SellSpmv: the host shape walks one row of a chunk at a time");

  KOKKOS_INLINE_FUNCTION void operator()(HostBlock block) const {
    with_beta_known(alpha, beta, [&](Acc a, Acc b, auto zero) {
      with_blocks_known(x, [&](auto blocked) { host_chunks(block.index, a, b, zero, blocked); });
    });
  }

  template <class BetaZero, class Blocked>
  KOKKOS_INLINE_FUNCTION void host_chunks(std::int64_t block, Acc a, Acc b, BetaZero zero,
                                          Blocked) const {
    const int c = chunk_size;
    const auto [first, last] = block_chunks(block);
    Stored const* const col_ptr = cols.data();
    Scalar const* const val_ptr = vals.data();
    const int blocks = Blocked::value ? column_blocks(x) : 1;
    if (first >= last) return;
    HostPrefetchCursor<Scalar> ahead_v(val_ptr + chunk_starts(first), prefetch);
    HostPrefetchCursor<Stored> ahead_c(col_ptr + chunk_starts(first), prefetch);
    for (Ordinal chunk = static_cast<Ordinal>(first); chunk < last; ++chunk) {
      const Offset base = chunk_starts(chunk);
      const Ordinal width = chunk_widths(chunk);
      const Offset end = base + static_cast<Offset>(width) * c;
      ahead_v.through(val_ptr + end);
      ahead_c.through(col_ptr + end);
      for (int r = 0; r < c; ++r) {
        const Ordinal stored_row = chunk * c + r;
        if (stored_row >= num_rows) break;
        const Ordinal row[1] = {original_row(stored_row)};
        // Several blocks of columns: the row's slots come from L1 for every block after the
        // first, and x's and y's rows are read whole.
        for (int cb = 0; cb < blocks; ++cb) {
          const auto xb = host_columns(column_block_at(x, cb));
          Sum sum = 0;
          Stored const* col = col_ptr + base + r;
          Scalar const* val = val_ptr + base + r;
          for (Ordinal j = 0; j < width; ++j, col += c, val += c)
            sum += widened_product<Sum>(*val, xb(column(*col, row, 0)));
          store_row(column_block_at(y, cb), row[0], a, b, sum, zero);
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const int threads_per_chunk = host_whole_chunk ? 1 : chunk_size / RowsPerThread;
    // GPUs: every team walks chunks_per_team chunks (the last may run past num_chunks).
    Ordinal first_chunk = static_cast<Ordinal>(team.league_rank()) * chunks_per_team;
    int team_chunks = chunks_per_team;
    if constexpr (is_host_space_v<typename Matrix::execution_space>) {
      const auto chunks = block_chunks(team.league_rank());
      first_chunk = static_cast<Ordinal>(chunks.first);
      team_chunks = static_cast<int>(chunks.second - chunks.first);
    }
    // Host whole chunks: the team's one thread walks its chunks' slots in order.
    const bool ahead = host_whole_chunk && is_host_space_v<typename Matrix::execution_space> &&
                       prefetch && first_chunk < num_chunks;
    HostPrefetchCursor<Scalar> ahead_v(vals.data() + (ahead ? chunk_starts(first_chunk) : 0),
                                       ahead);
    HostPrefetchCursor<Stored> ahead_c(cols.data() + (ahead ? chunk_starts(first_chunk) : 0),
                                       ahead);
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, team_chunks * threads_per_chunk), [&](int t) {
          const Ordinal chunk = first_chunk + t / threads_per_chunk;
          if (chunk >= num_chunks) return;
          const int lane = t % threads_per_chunk;
          const Offset base = chunk_starts(chunk) + lane;
          const Ordinal width = chunk_widths(chunk);
          const Ordinal first_stored_row = chunk * chunk_size + lane;
          // On hosts, rows that are neither permuted nor past the end are their stored rows, so
          // they skip original_row's and the store's per-row tests
          // (docs/notes/2026-12-01-sell-host-store.md).
          bool plain_rows = false;
          if constexpr (is_host_space_v<typename Matrix::execution_space>) {
            plain_rows = perm.extent(0) == 0 &&
                         first_stored_row + (RowsPerThread - 1) * threads_per_chunk < num_rows;
          }
          // Offset encodings decode against the row, so they load rows up front;
          // absolute columns need them only for the store.
          Ordinal row[Columns::relative ? RowsPerThread : 1];
          (void)row;
          if constexpr (Columns::relative) {
            for (int r = 0; r < RowsPerThread; ++r)
              row[r] = plain_rows ? first_stored_row + r * threads_per_chunk
                                  : original_row(first_stored_row + r * threads_per_chunk);
          }
          Stored const* const col_ptr = cols.data();
          Scalar const* const val_ptr = vals.data();
          if constexpr (host_whole_chunk && is_host_space_v<typename Matrix::execution_space>) {
            const Offset end = base + static_cast<Offset>(width) * chunk_size;
            ahead_v.through(val_ptr + end);
            ahead_c.through(col_ptr + end);
          }
          const auto xs = host_columns_on<typename Matrix::execution_space>(x);
          Sum sum[RowsPerThread];
          for (int r = 0; r < RowsPerThread; ++r) sum[r] = 0;
          Ordinal j = 0;
          if constexpr (Columns::relative && is_host_space_v<typename Matrix::execution_space> &&
                        !is_multi_vector_v<X>) {
            // Hosts: x + row indexed by the stored offset, no add per entry; the loops below
            // finish any steps left (docs/notes/2026-12-07-sell-offset16-host-row-pointers.md).
            if (x.stride(0) == 1 && width > 0) {
              decltype(x.data()) xr[RowsPerThread];
              for (int r = 0; r < RowsPerThread; ++r) xr[r] = x.data() + row[r];
              for (; j + Unroll <= width; j += Unroll) {
                Stored c[Unroll][RowsPerThread];
                Scalar v[Unroll][RowsPerThread];
                for (int u = 0; u < Unroll; ++u) {
                  const Offset slot = base + static_cast<Offset>(j + u) * chunk_size;
                  for (int r = 0; r < RowsPerThread; ++r) {
                    c[u][r] = load_streaming(col_ptr + slot + r * threads_per_chunk);
                    v[u][r] = load_streaming(val_ptr + slot + r * threads_per_chunk);
                  }
                }
                for (int u = 0; u < Unroll; ++u)
                  for (int r = 0; r < RowsPerThread; ++r)
                    sum[r] += widened_product<Sum>(v[u][r], xr[r][c[u][r]]);
              }
            }
          }
          for (; j + Unroll <= width; j += Unroll) {
            Ordinal c[Unroll][RowsPerThread];
            Scalar v[Unroll][RowsPerThread];
            for (int u = 0; u < Unroll; ++u) {
              const Offset slot = base + static_cast<Offset>(j + u) * chunk_size;
              for (int r = 0; r < RowsPerThread; ++r) {
                c[u][r] = column(load_streaming(col_ptr + slot + r * threads_per_chunk), row, r);
                v[u][r] = load_streaming(val_ptr + slot + r * threads_per_chunk);
              }
            }
            for (int u = 0; u < Unroll; ++u)
              for (int r = 0; r < RowsPerThread; ++r)
                sum[r] += widened_product<Sum>(v[u][r], xs(c[u][r]));
          }
          for (; j < width; ++j) {
            const Offset slot = base + static_cast<Offset>(j) * chunk_size;
            for (int r = 0; r < RowsPerThread; ++r) {
              sum[r] += widened_product<Sum>(
                  load_streaming(val_ptr + slot + r * threads_per_chunk),
                  xs(column(load_streaming(col_ptr + slot + r * threads_per_chunk), row, r)));
            }
          }
          if (plain_rows) {
            // beta's test once, not per row: tested per row, GCC 12 kept SellOffset16-4's float
            // sums on the stack through the loop above
            // (docs/notes/2026-12-07-host-crs-short-row-prefetch.md).
            const Acc a = alpha, b = beta; // locals: a store to y cannot change them
            if (b == Acc(0)) {
              for (int r = 0; r < RowsPerThread; ++r)
                store_row(y, first_stored_row + r * threads_per_chunk, a, b, sum[r],
                          std::true_type{});
            } else {
              for (int r = 0; r < RowsPerThread; ++r)
                store_row(y, first_stored_row + r * threads_per_chunk, a, b, sum[r],
                          std::false_type{});
            }
            return;
          }
          for (int r = 0; r < RowsPerThread; ++r) {
            const Ordinal stored_row = first_stored_row + r * threads_per_chunk;
            if (stored_row < num_rows) {
              Ordinal out_row;
              if constexpr (Columns::relative) {
                out_row = row[r];
              } else {
                out_row = original_row(stored_row);
              }
              store_row(y, out_row, alpha, beta, sum[r]);
            }
          }
        });
  }
};

template <int RowsPerThread, int Unroll, class ExecutionSpace, class Matrix, class X, class Y>
void launch_sell(ExecutionSpace const& exec, LaunchParameters const& p,
                 spmv_scalar_t<Matrix, Y> alpha, Matrix const& A, X const& x,
                 spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  using Columns = typename Matrix::column_encoding;
  parallel_for_teams(std::string(Columns::label) + "spmv", exec, p,
                     SellSpmv<RowsPerThread, Unroll, Matrix, X, Y>{
                         A.chunk_starts(), A.chunk_widths(), A.stored_columns(), A.values(),
                         A.row_permutation(), x, y, alpha, beta, A.num_rows(), A.num_chunks(),
                         A.chunk_size(), static_cast<int>(p.work_per_team), p.host_prefetch,
                         is_host_space_v<ExecutionSpace> && p.static_schedule ? p.league_size : 0});
}

template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_sell(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
               X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  // Only the host shape walks several blocks of columns (walks_column_blocks).
  if constexpr (!is_host_space_v<ExecutionSpace> || lanes_of<Y>::value < host_block_sums) {
    if (column_blocks(x) > 1) {
      for_each_block(
          x, y, [&](auto const& xb, auto const& yb) { spmv_sell(exec, alpha, A, xb, beta, yb); });
      return;
    }
  }
  const LaunchParameters p =
      padded_rows_launch_parameters(exec, KernelKind::sell, A.num_rows(), A.nnz(), A.nnz(),
                                    A.chunk_size(), [&] { return A.longest_row(exec); });
  // Only host backends walk whole chunks per thread; GPU builds instantiate
  // the one-row-per-thread kernel alone.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    // The C accumulators already give the host independent work: no unrolling.
    int rows_per_thread = p.rows_per_thread;
    if constexpr (is_multi_vector_v<Y>) {
      rows_per_thread = host_rows_per_thread(rows_per_thread, Y::lanes);
    }
    // A block of K columns never gets more than host_block_sums / K rows: only those are built.
    constexpr int max_rows =
        is_multi_vector_v<Y> ? host_rows_per_thread(64, lanes_of<Y>::value) : 64;
    auto launch_rows = [&](auto rows) {
      constexpr int R = decltype(rows)::value;
      if constexpr (R <= max_rows) {
        launch_sell<R, 1>(exec, p, alpha, A, x, beta, y);
      } else {
        launch_sell<1, 1>(exec, p, alpha, A, x, beta, y); // not reached
      }
    };
    switch (rows_per_thread) {
    case 2: launch_rows(std::integral_constant<int, 2>{}); return;
    case 4: launch_rows(std::integral_constant<int, 4>{}); return;
    case 8: launch_rows(std::integral_constant<int, 8>{}); return;
    case 16: launch_rows(std::integral_constant<int, 16>{}); return;
    case 32: launch_rows(std::integral_constant<int, 32>{}); return;
    case 64: launch_rows(std::integral_constant<int, 64>{}); return;
    default: launch_sell<1, 1>(exec, p, alpha, A, x, beta, y); return;
    }
  } else {
    launch_sell<1, sell_gpu_unroll>(exec, p, alpha, A, x, beta, y);
  }
}

/// The diagonal of any SELL format, one thread per stored row; padding holds
/// 0, so walking the full chunk width is harmless.
template <class Sell, class Diag>
struct SellDiagonal {
  using Ordinal = typename Sell::ordinal_type;
  using Columns = typename Sell::column_encoding;
  typename Sell::chunk_starts_type chunk_starts;
  typename Sell::ordinals_type widths;
  typename Sell::columns_type cols;
  typename Sell::ordinals_type perm;
  typename Sell::values_type values;
  Diag diag;
  std::int64_t num_rows;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    if (stored_row >= num_rows) return;
    const std::int64_t chunk = stored_row / chunk_size;
    const auto base = chunk_starts(chunk) + stored_row % chunk_size;
    const auto row =
        static_cast<Ordinal>(perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row));
    double d = 0;
    for (std::int64_t j = 0; j < widths(chunk); ++j)
      if (Columns::decode(cols(base + j * chunk_size), row) == row)
        d += static_cast<double>(values(base + j * chunk_size));
    diag(row) = static_cast<typename Diag::value_type>(d);
  }
};

} // namespace spmvkit::detail

#endif
