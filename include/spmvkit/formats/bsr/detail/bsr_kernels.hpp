// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_BSR_DETAIL_BSR_KERNELS_HPP
#define SPMVKIT_FORMATS_BSR_DETAIL_BSR_KERNELS_HPP

// SpMV of the BSR format: a host kernel (a thread per block row, the block's
// b sums in registers) and a GPU kernel (a group of vector lanes per block
// row). Templated on the matrix type, so this header does not need
// bsr_matrix.hpp.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/formats/bsr/detail/bsr_layout.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace spmvkit::detail {

/// BsrSpmvHost's paths: any chunk size and layout, or plain BSR (C = 1) in
/// either layout with constant offsets.
inline constexpr int bsr_host_generic = 0;
inline constexpr int bsr_host_plain_row_major = 1;
inline constexpr int bsr_host_plain_column_major = 2;

/// Host: a team is one thread and walks block_rows_per_team block rows; per
/// block it reads the B x entries of the block column once and adds the B x B
/// products into B sums (Lanes of K for a block of K columns). Any chunk size
/// (hosts default to C = 1, plain BSR: a block's entries are contiguous).
template <int B, int Mode, class Matrix, class X, class Y>
struct BsrSpmvHost {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>;
  using Sum = spmv_sum_t<Acc, Y>;
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  typename Matrix::row_source_type source;
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_block_rows;
  std::int64_t block_rows_per_team;
  bool prefetch = false; ///< prefetch the block rows' blocks ahead (LaunchParameters)

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t first = team.league_rank() * block_rows_per_team;
    const std::int64_t last =
        first + block_rows_per_team < num_block_rows ? first + block_rows_per_team : num_block_rows;
    const int rs = source.strides.row_stride, cs = source.strides.col_stride;
    const std::int64_t C = source.chunk_size;
    Scalar const* const vals = source.vals.data();
    Ordinal const* const cols = source.block_cols.data();
    for (std::int64_t I = first; I < last; ++I) {
      Sum sum[B];
      for (int r = 0; r < B; ++r) sum[r] = 0;
      const BsrSlot at = source.at(I);
      const std::int64_t n = source.blocks(I);
      if constexpr (Mode != bsr_host_generic) {
        // C = 1 (the host default): the blocks one after the other, every
        // offset a constant, the block read in storage order: row by row
        // (B dot products) or column by column (B sums updated together,
        // which vectorises). A block's B products per row are summed apart
        // and added once, so the row sums carry one add per block, not B
        // dependent ones (faster where the matrix is in cache:
        // docs/notes/2026-11-29-bsr-host-kk-bsrmatrix.md).
        Ordinal const* const bc = cols + at.slot(0);
        Scalar const* v = vals + at.value(0, 0, B * B);
        if (prefetch) {
          host_prefetch_ahead(v, v + n * B * B);
          host_prefetch_ahead(bc, bc + n);
        }
        for (std::int64_t j = 0; j < n; ++j, v += B * B) {
          const Ordinal col = bc[j] * B;
          Sum part[B];
          if constexpr (Mode == bsr_host_plain_row_major) {
            std::decay_t<decltype(x(col))> xs[B];
            for (int c = 0; c < B; ++c) xs[c] = x(col + c);
            for (int r = 0; r < B; ++r) {
              part[r] = widened_product<Sum>(v[r * B], xs[0]);
              for (int c = 1; c < B; ++c) part[r] += widened_product<Sum>(v[r * B + c], xs[c]);
            }
          } else {
            const auto x0 = x(col);
            for (int r = 0; r < B; ++r) part[r] = widened_product<Sum>(v[r], x0);
            for (int c = 1; c < B; ++c) {
              const auto xc = x(col + c);
              for (int r = 0; r < B; ++r) part[r] += widened_product<Sum>(v[c * B + r], xc);
            }
          }
          for (int r = 0; r < B; ++r) sum[r] += part[r];
        }
      } else {
        for (std::int64_t j = 0; j < n; ++j) {
          const Ordinal col = cols[at.slot(j)] * B;
          Scalar const* const v = vals + at.value(j, 0, B * B); // entry q at v[q * C]
          for (int c = 0; c < B; ++c) {
            const auto xc = x(col + c);
            for (int r = 0; r < B; ++r)
              sum[r] += widened_product<Sum>(v[(r * rs + c * cs) * C], xc);
          }
        }
      }
      for (int r = 0; r < B; ++r) store_row(y, I * B + r, alpha, beta, sum[r]);
    }
  }
};

/// The sliced kernels' walk of one block row (chunks of C: entry q of its j-th
/// block at vals[(j * B * B + q) * C]): adds rows r0 .. r0 + NR - 1 of each
/// block times x into sum. Steps are unrolled by Unroll with their block
/// columns loaded first, so a thread has that many blocks' loads in flight.
/// With Step > 1 it visits every Step-th block: `width` counts the visited
/// blocks, cols and vals point at the first.
template <int B, int NR, int Unroll, int Step = 1, class Sum, class Scalar, class Ordinal, class X>
KOKKOS_FORCEINLINE_FUNCTION void bsr_sliced_row_sums(Ordinal const* cols, Scalar const* vals,
                                                     std::int64_t C, std::int64_t width, int r0,
                                                     BsrStrides st, X const& x, Sum (&sum)[NR]) {
  auto block = [&](Ordinal col, Scalar const* v) {
    for (int c = 0; c < B; ++c) {
      const auto xc = x(col + c);
      for (int q = 0; q < NR; ++q)
        sum[q] += widened_product<Sum>(
            load_streaming(v + ((r0 + q) * st.row_stride + c * st.col_stride) * C), xc);
    }
  };
  std::int64_t j = 0;
  for (; j + Unroll <= width; j += Unroll) {
    Ordinal col[Unroll];
    for (int u = 0; u < Unroll; ++u) col[u] = load_streaming(cols + (j + u) * Step * C) * B;
    for (int u = 0; u < Unroll; ++u) block(col[u], vals + (j + u) * Step * (B * B) * C);
  }
  for (; j < width; ++j)
    block(load_streaming(cols + j * Step * C) * B, vals + j * Step * (B * B) * C);
}

/// The chunked kernels' walk over a team's block rows (chunks_per_team chunks
/// of C, a team thread each): body(I, at, width) for each block row I below
/// num_block_rows, `at` its slots and `width` its chunk's blocks.
template <class Source, class Team, class Bound, class Body>
KOKKOS_FORCEINLINE_FUNCTION void bsr_chunk_block_rows(Team const& team, Source const& source,
                                                      int chunks_per_team, Bound num_block_rows,
                                                      Body const& body) {
  const std::int64_t C = source.chunk_size;
  const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * chunks_per_team * C;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, chunks_per_team * C), [&](std::int64_t t) {
    const std::int64_t I = first + t;
    if (I >= num_block_rows) return;
    const std::int64_t s = I / C;
    body(I, source.at(I), (source.chunk_starts(s + 1) - source.chunk_starts(s)) / C);
  });
}

/// GPU, chunks of C > 1 block rows (the default, C = 32): a thread per block
/// row walks its chunk's width, each step one block: its B x entries and the
/// B x B values, entry q of the C block rows' j-th blocks in C consecutive
/// values (one coalesced load per warp per q), B sums in registers, no
/// reduction across lanes (SELL-C's scheme with b x b entries). Steps are
/// unrolled by Unroll (loads first) so that a thread has that many blocks'
/// loads in flight. Padding slots hold zeros and a valid column.
template <int B, int Unroll, class Matrix, class X, class Y>
struct BsrSpmvSliced {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>;
  using Sum = spmv_sum_t<Acc, Y>;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;

  typename Matrix::row_source_type source;
  X x;
  Y y;
  Acc alpha, beta;
  // b = 3 with one vector bounds its block rows with a 64-bit integer, like the block row it
  // compares: nvcc then allocates the loop as the shape that was timed
  // (docs/notes/2026-12-06-bsr-sliced-row-bound.md); other shapes keep theirs.
  std::conditional_t<B == 3 && !is_multi_vector_v<Y>, std::int64_t, typename Matrix::ordinal_type>
      num_block_rows;
  int chunks_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t C = source.chunk_size;
    bsr_chunk_block_rows(team, source, chunks_per_team, num_block_rows,
                         [&](std::int64_t I, BsrSlot const& at, std::int64_t width) {
                           Sum sum[B];
                           for (int r = 0; r < B; ++r) sum[r] = 0;
                           bsr_sliced_row_sums<B, B, Unroll>(source.block_cols.data() + at.slot(0),
                                                             source.vals.data() +
                                                                 at.value(0, 0, B * B),
                                                             C, width, 0, source.strides, x, sum);
                           for (int r = 0; r < B; ++r) store_row(y, I * B + r, alpha, beta, sum[r]);
                         });
  }
};

/// GPU, chunks of C > 1 block rows, BsrThreads::pair, one vector: two vector
/// lanes per block row, lane v walking blocks v, v + 2, ... of BsrSpmvSliced's
/// layout, so each load of entry q is two coalesced runs per warp; the lanes'
/// B sums are added in a fixed order at the end. Twice the threads of
/// BsrSpmvSliced, each with half the serial walk, for matrices whose block rows
/// leave the device's threads mostly idle.
template <int B, int Unroll, class Matrix, class X, class Y>
struct BsrSpmvSlicedPair {
  static constexpr int lanes = 2;
  // At least 4 teams of 128 threads a multiprocessor: unbounded, nvcc gave b = 3 more registers
  // and the pair ran slower than one lane (docs/notes/2026-12-07-bsr-pair-lanes.md).
  using launch_bounds = Kokkos::LaunchBounds<128, 4>;
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>;
  using Sum = spmv_sum_t<Acc, Y>;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  static_assert(!is_multi_vector_v<Y>, "BsrThreads::pair takes one vector");

  typename Matrix::row_source_type source;
  X x;
  Y y;
  Acc alpha, beta;
  std::int64_t num_block_rows;
  int chunks_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t C = source.chunk_size;
    bsr_chunk_block_rows(team, source, chunks_per_team, num_block_rows,
                         [&](std::int64_t I, BsrSlot const& at, std::int64_t width) {
                           Lanes<Sum, B> sums;
                           Kokkos::parallel_reduce(
                               Kokkos::ThreadVectorRange(team, lanes),
                               [&](int v, Lanes<Sum, B>& part) {
                                 Sum sum[B];
                                 for (int r = 0; r < B; ++r) sum[r] = 0;
                                 bsr_sliced_row_sums<B, B, Unroll, lanes>(
                                     source.block_cols.data() + at.slot(0) + v * C,
                                     source.vals.data() + at.value(0, 0, B * B) + v * (B * B) * C,
                                     C, (width - v + lanes - 1) / lanes, 0, source.strides, x, sum);
                                 for (int r = 0; r < B; ++r) part.v[r] += sum[r];
                               },
                               sums);
                           Kokkos::single(Kokkos::PerThread(team), [&]() {
                             for (int r = 0; r < B; ++r)
                               store_row(y, I * B + r, alpha, beta, sums.v[r]);
                           });
                         });
  }
};

/// GPU, chunks of C > 1 block rows, BsrThreads::row: a thread per row r of a
/// block row, b times the threads of BsrSpmvSliced for matrices with fewer
/// block rows than the device holds threads. The C threads of a warp take row
/// r of the chunk's C block rows, so each load of entry (r, c) of their j-th
/// blocks is still one coalesced load; the block column and x are read by
/// the b threads of a block row (from cache after the first).
template <int B, int Unroll, class Matrix, class X, class Y>
struct BsrSpmvSlicedRows {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>;
  using Sum = spmv_sum_t<Acc, Y>;
  using Ordinal = typename Matrix::ordinal_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;

  typename Matrix::row_source_type source;
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_block_rows;
  int chunks_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t C = source.chunk_size;
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * chunks_per_team * C;
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, chunks_per_team * C * B), [&](std::int64_t t) {
          const std::int64_t k = t / (C * B); // chunk of the team
          const std::int64_t u = t - k * C * B;
          const int r = static_cast<int>(u / C); // row of the block row
          const std::int64_t I = first + k * C + (u - r * C);
          if (I >= num_block_rows) return;
          const BsrSlot at = source.at(I);
          const std::int64_t s = I / C;
          const std::int64_t width = (source.chunk_starts(s + 1) - source.chunk_starts(s)) / C;
          Sum sum[1];
          sum[0] = 0;
          bsr_sliced_row_sums<B, 1, Unroll>(source.block_cols.data() + at.slot(0),
                                            source.vals.data() + at.value(0, 0, B * B), C, width, r,
                                            source.strides, x, sum);
          store_row(y, I * B + r, alpha, beta, sum[0]);
        });
  }
};

/// GPU, plain BSR (C = 1: Kokkos Kernels' and cuSPARSE's layout): a group of
/// G vector lanes per block row (G = the launch's
/// vector_length). The block row's values are one contiguous stretch, and the
/// lanes read it in steps of m whole blocks, so each lane keeps one fixed
/// piece of every block it visits: one entry (W = 1, B <= 4: B * B pieces per
/// block) or one row of B entries (W = B, B >= 5: B pieces). A lane's piece
/// belongs to one row of the block, so it carries a single sum; the B row sums
/// are reduced over the lanes at the end. Values and block columns are read
/// once, as streaming loads, so that x keeps the cache.
template <int B, class Matrix, class X, class Y>
struct BsrSpmvLanes {
  static constexpr int W = B <= 4 ? 1 : B;           // entries per piece
  static constexpr int pieces_per_block = B * B / W; // B * B or B
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>;
  using Sum = spmv_sum_t<Acc, Y>;
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> block_starts; // C = 1: the block row starts
  ro_view<Ordinal> block_cols;
  ro_view<Scalar> vals;
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_block_rows;
  std::int64_t block_rows_per_team;
  int lanes;           // G
  int blocks_per_step; // m = G / pieces_per_block
  BsrStrides strides;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t first = team.league_rank() * block_rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, block_rows_per_team), [&](std::int64_t t) {
      const std::int64_t I = first + t;
      if (I >= num_block_rows) return;
      const Offset begin = block_starts(I);
      const Offset end = block_starts(I + 1);
      // Each lane's piece lies in one row r of the block: it adds its sum to
      // lane r of the B row sums (a select chain keeps them in registers).
      Lanes<Sum, B> sums;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int l, Lanes<Sum, B>& part) {
            const int step_block = l / pieces_per_block;
            if (step_block >= blocks_per_step) return;
            const int piece = l - step_block * pieces_per_block;
            int r = piece, c = 0;   // W = B: the piece is row r
            if constexpr (W == 1) { // the piece is the entry at this position of the block
              r = strides.row_stride == 1 ? piece % B : piece / B;
              c = strides.row_stride == 1 ? piece / B : piece % B;
            }
            Sum s = 0;
            for (Offset k = begin + step_block; k < end; k += blocks_per_step) {
              const Ordinal col = load_streaming(block_cols.data() + k) * B;
              Scalar const* const v = vals.data() + k * (B * B);
              if constexpr (W == 1) {
                s += widened_product<Sum>(load_streaming(v + piece), x(col + c));
              } else {
                for (int cc = 0; cc < B; ++cc)
                  s += widened_product<Sum>(
                      load_streaming(v + r * strides.row_stride + cc * strides.col_stride),
                      x(col + cc));
              }
            }
            for (int q = 0; q < B; ++q)
              if (q == r) part.v[q] += s;
          },
          sums);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        for (int r = 0; r < B; ++r) store_row(y, I * B + r, alpha, beta, sums.v[r]);
      });
    });
  }
};

template <int B, class ExecutionSpace, class Matrix, class X, class Y>
void launch_bsr(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
                X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Lanes = BsrSpmvLanes<B, Matrix, X, Y>;
  const auto nbr = A.num_block_rows();
  const LaunchParameters p =
      bsr_launch_parameters(exec, nbr, A.num_blocks(), B, Lanes::pieces_per_block, A.chunk_size());
  if (p.league_size == 0) return;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    auto host = [&](auto mode) {
      parallel_for_teams(
          "SpMVKit::spmv::bsr", exec, p,
          BsrSpmvHost<B, decltype(mode)::value, Matrix, X, Y>{
              A.row_source(), x, y, alpha, beta, nbr, p.work_per_team, p.host_prefetch});
    };
    if (A.chunk_size() != 1) {
      host(std::integral_constant<int, bsr_host_generic>{});
    } else if (A.block_layout() == BsrBlockLayout::row_major) {
      host(std::integral_constant<int, bsr_host_plain_row_major>{});
    } else {
      host(std::integral_constant<int, bsr_host_plain_column_major>{});
    }
  } else if (A.chunk_size() > 1) {
    constexpr int unroll = bsr_sliced_unroll(B, is_multi_vector_v<Y>);
    if constexpr (!is_multi_vector_v<Y>) {
      if (bsr_pair_threads<ExecutionSpace>(A.gpu_threads(), B, nbr, A.chunk_size(),
                                           exec.concurrency(), false)) {
        using Pair = BsrSpmvSlicedPair<B, unroll, Matrix, X, Y>;
        const LaunchParameters q =
            bsr_launch_parameters(exec, nbr, A.num_blocks(), B, 1, A.chunk_size(), Pair::lanes);
        const Pair pair{A.row_source(),
                        x,
                        y,
                        alpha,
                        beta,
                        static_cast<std::int64_t>(nbr),
                        static_cast<int>(q.work_per_team)};
        using PairPolicy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                                              typename Pair::launch_bounds>;
        // Chunks of over 64 block rows exceed the bound's 128 threads: a thread per block row.
        const int cap =
            PairPolicy(exec, 1, 1, Pair::lanes).team_size_max(pair, Kokkos::ParallelForTag());
        if (q.team_size <= cap) {
          Kokkos::parallel_for("SpMVKit::spmv::bsr_sliced_pair",
                               PairPolicy(exec, q.league_size, q.team_size, Pair::lanes), pair);
          return;
        }
      }
    }
    // automatic splits rows for one vector only: several columns were not measured so.
    const BsrThreads threads = is_multi_vector_v<Y> && A.gpu_threads() == BsrThreads::automatic
                                   ? BsrThreads::block_row
                                   : A.gpu_threads();
    if (bsr_row_threads<ExecutionSpace>(threads, B, nbr, A.chunk_size(), exec.concurrency())) {
      // A thread keeps one row sum: unrolled by 4 blocks (B values each) at any B.
      const BsrSpmvSlicedRows<B, 4, Matrix, X, Y> rows{
          A.row_source(), x, y, alpha, beta, nbr, static_cast<int>(p.work_per_team)};
      // b x 128 threads can exceed what the functor's registers allow (several columns, a
      // wider sum type): fewer threads per team, whole chunks' rows, loop over the rest.
      const int C = A.chunk_size();
      const int cap = Policy(exec, 1, 1).team_size_max(rows, Kokkos::ParallelForTag()) / C * C;
      const int team = std::min<int>(p.team_size * B, cap);
      if (team > 0) {
        Kokkos::parallel_for("SpMVKit::spmv::bsr_sliced_rows", Policy(exec, p.league_size, team, 1),
                             rows);
        return;
      }
    }
    Kokkos::parallel_for("SpMVKit::spmv::bsr_sliced", Policy(exec, p.league_size, p.team_size, 1),
                         BsrSpmvSliced<B, unroll, Matrix, X, Y>{A.row_source(), x, y, alpha, beta,
                                                                nbr,
                                                                static_cast<int>(p.work_per_team)});
  } else {
    Kokkos::parallel_for(
        "SpMVKit::spmv::bsr", Policy(exec, p.league_size, p.team_size, p.vector_length),
        Lanes{A.chunk_starts(), A.block_columns(), A.values(), x, y, alpha, beta, nbr,
              p.work_per_team, p.vector_length, p.vector_length / Lanes::pieces_per_block,
              bsr_strides(B, A.block_layout())});
  }
}

/// y = beta y + alpha A x for a BSR matrix, the kernel instantiated for its
/// block size.
template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_bsr(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
              X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  switch (A.block_size()) {
  case 1: launch_bsr<1>(exec, alpha, A, x, beta, y); break;
  case 2: launch_bsr<2>(exec, alpha, A, x, beta, y); break;
  case 3: launch_bsr<3>(exec, alpha, A, x, beta, y); break;
  case 4: launch_bsr<4>(exec, alpha, A, x, beta, y); break;
  case 5: launch_bsr<5>(exec, alpha, A, x, beta, y); break;
  case 6: launch_bsr<6>(exec, alpha, A, x, beta, y); break;
  case 7: launch_bsr<7>(exec, alpha, A, x, beta, y); break;
  case 8: launch_bsr<8>(exec, alpha, A, x, beta, y); break;
  default: break; // the class refuses other sizes at construction
  }
}

} // namespace spmvkit::detail

#endif
