// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_BSR_DETAIL_BSR_LAYOUT_HPP
#define SPMVKIT_FORMATS_BSR_DETAIL_BSR_LAYOUT_HPP

// BSR's storage rules and its conversion from CRS: the walk of a block row,
// the block-size detection, the counts, the fill and the row source that reads
// a BSR matrix back in CRS order. Templated on Views, so this header does not
// need bsr_matrix.hpp.
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace spmvkit {

/// How the b x b entries of one block are laid out in BSR's values array.
enum class BsrBlockLayout {
  row_major,   ///< entry (r, c) of a block at r * b + c (Kokkos Kernels' BsrMatrix, cuSPARSE's
               ///< default)
  column_major ///< entry (r, c) of a block at c * b + r (PETSc BAIJ)
};

/// GPU threads of a block row of chunked BSR (C > 1); hosts and plain BSR ignore it.
enum class BsrThreads {
  automatic, ///< for one vector and few block rows: a pair of lanes per block row for b = 3
             ///< (under a sixth of the device's threads, bsr_pair_threads), a thread per row
             ///< for other b (under a quarter, bsr_row_threads); else a thread per block row
  block_row, ///< a thread per block row: its b row sums in registers, x and the column read once
  row,       ///< a thread per row of a block row: b times the threads, for small block counts
  pair       ///< two lanes per block row, each walking every other block, their b sums added
             ///< at the end: twice the threads, for small block counts (one vector; several
             ///< take block_row)
};

namespace detail {

/// automatic takes a thread per row while the block rows number under
/// 1 / bsr_row_threads_fill_divisor of the device's threads, where the row
/// split measured faster (docs/notes/2026-11-30-bsr-row-threads.md).
inline constexpr std::int64_t bsr_row_threads_fill_divisor = 4;

/// Whether chunked BSR (chunk_size > 1) of b x b blocks on a GPU of
/// `concurrency` threads runs a thread per row of a block row
/// (BsrThreads::row) rather than one per block row. Hosts and plain BSR have
/// one kernel shape: false. b = 3 never splits rows: its kernel two blocks
/// ahead beat the split at every fill measured
/// (docs/notes/2026-12-06-bsr-b3-block-rows.md); bsr_pair_threads instead.
inline bool bsr_row_threads(bool host, BsrThreads threads, int block_size,
                            std::int64_t num_block_rows, std::int64_t chunk_size,
                            std::int64_t concurrency) {
  if (host || chunk_size <= 1) return false;
  if (threads != BsrThreads::automatic) return threads == BsrThreads::row;
  if (block_size == 3) return false;
  return num_block_rows * bsr_row_threads_fill_divisor < concurrency;
}
/// automatic pairs lanes (b = 3) while the block rows number under
/// 1 / bsr_pair_threads_fill_divisor of the device's threads, where pairs
/// measured faster than one lane (docs/notes/2026-12-07-bsr-pair-lanes.md).
inline constexpr std::int64_t bsr_pair_threads_fill_divisor = 6;

/// Whether chunked BSR on a GPU of `concurrency` threads runs a pair of lanes
/// per block row (BsrThreads::pair). automatic takes it for b = 3 only, which
/// never splits rows; several vectors keep a thread per block row.
inline bool bsr_pair_threads(bool host, BsrThreads threads, int block_size,
                             std::int64_t num_block_rows, std::int64_t chunk_size,
                             std::int64_t concurrency, bool several_columns) {
  if (host || chunk_size <= 1 || several_columns) return false;
  if (threads != BsrThreads::automatic) return threads == BsrThreads::pair;
  return block_size == 3 && num_block_rows * bsr_pair_threads_fill_divisor < concurrency;
}
/// The same for ExecutionSpace.
template <class ExecutionSpace>
bool bsr_pair_threads(BsrThreads threads, int block_size, std::int64_t num_block_rows,
                      std::int64_t chunk_size, std::int64_t concurrency, bool several_columns) {
  return bsr_pair_threads(is_host_space_v<ExecutionSpace>, threads, block_size, num_block_rows,
                          chunk_size, concurrency, several_columns);
}

/// The same for ExecutionSpace.
template <class ExecutionSpace>
bool bsr_row_threads(BsrThreads threads, int block_size, std::int64_t num_block_rows,
                     std::int64_t chunk_size, std::int64_t concurrency) {
  return bsr_row_threads(is_host_space_v<ExecutionSpace>, threads, block_size, num_block_rows,
                         chunk_size, concurrency);
}

/// Blocks BsrSpmvSliced loads ahead: 4 while B * B (twice that for blocks of
/// columns) is at most 16, else 2 while B * B is at most 36, else 1; b = 3
/// with one vector takes 2 (docs/notes/2026-12-06-bsr-sliced-row-bound.md).
constexpr int bsr_sliced_unroll(int b, bool several_columns) {
  if (b == 3 && !several_columns) return 2;
  return b * b * (several_columns ? 2 : 1) <= 16 ? 4 : b * b <= 36 ? 2 : 1;
}

/// The largest block size BSR stores: a block's pattern mask is one 64-bit word.
inline constexpr int bsr_max_block_size = 8;

/// Positions of (r, c) in a block: r * row_stride + c * col_stride.
struct BsrStrides {
  int row_stride = 1;
  int col_stride = 1;
};
inline BsrStrides bsr_strides(int b, BsrBlockLayout layout) {
  return layout == BsrBlockLayout::row_major ? BsrStrides{b, 1} : BsrStrides{1, b};
}

/// Where block j of block row I lives in a BSR matrix sliced in chunks of C
/// block rows (C = 1: plain BSR). Chunk s = I / C starts at slot
/// chunk_starts(s) and holds C * w slots, w its widest block row; block j of
/// the chunk's block row i = I % C is slot chunk_starts(s) + j C + i, and its
/// entry q (position q of the block's layout) is value
/// chunk_starts(s) b² + (j b² + q) C + i. So the C block rows of a chunk read
/// entry q of their j-th blocks from C consecutive values (a GPU warp's
/// coalesced load), and C = 1 is the familiar block after block.
struct BsrSlot {
  std::int64_t base;  ///< chunk_starts(I / C)
  std::int64_t lane;  ///< I % C
  std::int64_t chunk; ///< C
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t j) const { return base + j * chunk + lane; }
  KOKKOS_INLINE_FUNCTION std::int64_t value(std::int64_t j, std::int64_t q, std::int64_t bb) const {
    return base * bb + (j * bb + q) * chunk + lane;
  }
};

/// Walks the b rows of block row I of a CRS matrix together, block column by
/// block column in increasing order (a b-way merge; each row's columns must
/// increase strictly). For each block column J it calls begin(J), then
/// entry(r, c, k) for every entry k of row I * b + r in column J * b + c, then
/// end(J). Returns the first row whose columns do not increase strictly, or -1;
/// the walk stops there.
template <class RowStarts, class Columns>
struct BsrBlockRowWalk {
  using Ordinal = typename Columns::non_const_value_type;
  using Offset = typename RowStarts::non_const_value_type;
  RowStarts row_starts;
  Columns cols;
  int b;

  template <class Begin, class Entry, class End>
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t I, Begin&& begin, Entry&& entry,
                                                 End&& end) const {
    Offset pos[bsr_max_block_size], stop[bsr_max_block_size];
    Ordinal last[bsr_max_block_size];
    for (int r = 0; r < b; ++r) {
      pos[r] = row_starts(I * b + r);
      stop[r] = row_starts(I * b + r + 1);
      last[r] = -1;
    }
    while (true) {
      Ordinal J = -1;
      for (int r = 0; r < b; ++r) {
        if (pos[r] < stop[r]) {
          const Ordinal j = cols(pos[r]) / b;
          if (J < 0 || j < J) J = j;
        }
      }
      if (J < 0) return -1;
      begin(J);
      for (int r = 0; r < b; ++r) {
        while (pos[r] < stop[r]) {
          const Ordinal c = cols(pos[r]);
          if (c / b != J) break;
          if (c <= last[r]) return I * b + r;
          last[r] = c;
          entry(r, static_cast<int>(c - J * b), pos[r]);
          ++pos[r];
        }
      }
      end(J);
    }
  }
};

/// What the count pass learns about blocking a CRS matrix with block size b.
struct BsrCount {
  std::int64_t blocks = 0;        ///< blocks a conversion would store
  std::int64_t unsorted_row = -1; ///< first row whose columns do not increase strictly, or -1
  std::int64_t partial_row = -1;  ///< first block row with a block the pattern fills only partly
  std::int64_t partial_block_col = -1; ///< that block's block column
  std::int64_t partial_entries = 0;    ///< that block's entries (of b * b)
};

/// Per block row: the blocks it needs (written to counts(I + 1) when counts
/// is given) and the first unsorted row and partly filled block, reduced to
/// the smallest row.
template <class RowStarts, class Columns, class Counts>
struct BsrCountBlocks {
  struct value_type {
    std::int64_t blocks;
    std::int64_t unsorted;
    std::int64_t partial; // I * num_block_cols + J of the first partly filled block
    std::int64_t partial_entries;
  };
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  BsrBlockRowWalk<RowStarts, Columns> walk;
  Counts counts; // extent 0: not written
  std::int64_t num_block_cols;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    v.blocks = 0;
    v.unsorted = none;
    v.partial = none;
    v.partial_entries = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    a.blocks += b.blocks;
    if (b.unsorted < a.unsorted) a.unsorted = b.unsorted;
    if (b.partial < a.partial) {
      a.partial = b.partial;
      a.partial_entries = b.partial_entries;
    }
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    a.blocks = a.blocks + b.blocks;
    if (b.unsorted < a.unsorted) a.unsorted = b.unsorted;
    if (b.partial < a.partial) {
      a.partial = b.partial;
      a.partial_entries = b.partial_entries;
    }
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t I, value_type& v) const {
    const int bb = walk.b * walk.b;
    std::int64_t blocks = 0;
    int in_block = 0;
    std::int64_t first_partial = none;
    int first_partial_entries = 0;
    const std::int64_t bad = walk(
        I, [&](std::int64_t) { in_block = 0; },
        [&](int, int, typename BsrBlockRowWalk<RowStarts, Columns>::Offset) { ++in_block; },
        [&](std::int64_t J) {
          ++blocks;
          if (in_block != bb && first_partial == none) {
            first_partial = I * num_block_cols + J;
            first_partial_entries = in_block;
          }
        });
    if (bad >= 0) {
      if (bad < v.unsorted) v.unsorted = bad;
      return;
    }
    if (counts.extent(0) > 0) counts(I + 1) = static_cast<typename Counts::value_type>(blocks);
    v.blocks += blocks;
    if (first_partial < v.partial) {
      v.partial = first_partial;
      v.partial_entries = first_partial_entries;
    }
  }
};

/// Bit k of the result: every row's length is a multiple of k + 1 (k = 0..7);
/// the cheap test that rules block sizes out before the count pass.
template <class RowStarts>
struct BsrLengthDivisors {
  RowStarts row_starts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, unsigned& bits) const {
    const auto length = static_cast<std::int64_t>(row_starts(i + 1) - row_starts(i));
    unsigned mine = 0;
    for (int k = 0; k < bsr_max_block_size; ++k)
      if (length % (k + 1) == 0) mine |= 1u << k;
    bits &= mine;
  }
};

/// Fills block row I of a matrix sliced in chunks of C block rows: block
/// columns, values (zero where the pattern has no entry) and, when masks is
/// not empty, each block's pattern (bit r * b + c); then the slots from its
/// length to its chunk's width as padding (value 0, its last block column,
/// mask 0), which the kernels may multiply but the row source never reads.
/// Rows I >= num_block_rows of the last chunk are padding throughout.
template <class RowStarts, class Columns, class Values, class ChunkStarts, class BlockColumns,
          class BlockValues, class Masks>
struct BsrFill {
  BsrBlockRowWalk<RowStarts, Columns> walk;
  Values vals;
  ChunkStarts chunk_starts;
  BlockColumns block_cols;
  BlockValues block_vals;
  Masks masks;
  BsrStrides strides;
  std::int64_t chunk_size;
  std::int64_t num_block_rows;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t I) const {
    const int b = walk.b;
    const std::int64_t bb = static_cast<std::int64_t>(b) * b;
    const std::int64_t s = I / chunk_size;
    const BsrSlot at{static_cast<std::int64_t>(chunk_starts(s)), I - s * chunk_size, chunk_size};
    const std::int64_t width = (chunk_starts(s + 1) - chunk_starts(s)) / chunk_size;
    std::int64_t j = 0;
    std::int64_t last_col = 0;
    std::uint64_t mask = 0;
    if (I < num_block_rows) {
      walk(
          I,
          [&](std::int64_t J) {
            block_cols(at.slot(j)) = static_cast<typename BlockColumns::value_type>(J);
            for (std::int64_t q = 0; q < bb; ++q) block_vals(at.value(j, q, bb)) = 0;
            mask = 0;
            last_col = J;
          },
          [&](int r, int c, typename BsrBlockRowWalk<RowStarts, Columns>::Offset p) {
            block_vals(at.value(j, r * strides.row_stride + c * strides.col_stride, bb)) = vals(p);
            mask |= std::uint64_t(1) << (r * b + c);
          },
          [&](std::int64_t) {
            if (masks.extent(0) > 0) masks(at.slot(j)) = mask;
            ++j;
          });
    }
    for (; j < width; ++j) {
      block_cols(at.slot(j)) = static_cast<typename BlockColumns::value_type>(last_col);
      for (std::int64_t q = 0; q < bb; ++q) block_vals(at.value(j, q, bb)) = 0;
      if (masks.extent(0) > 0) masks(at.slot(j)) = 0;
    }
  }
};

/// chunk_starts(s + 1) = C * (the most blocks of a block row of chunk s),
/// from the block counts at counts(I + 1); lengths(I) = the count.
template <class Counts, class ChunkStarts, class Lengths>
struct BsrChunkWidths {
  Counts counts;
  ChunkStarts chunk_starts;
  Lengths lengths;
  std::int64_t chunk_size, num_block_rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t s) const {
    typename Counts::value_type widest = 0;
    for (std::int64_t I = s * chunk_size; I < (s + 1) * chunk_size && I < num_block_rows; ++I) {
      const auto n = counts(I + 1);
      widest = n > widest ? n : widest;
      lengths(I) = static_cast<typename Lengths::value_type>(n);
    }
    chunk_starts(s + 1) = static_cast<typename ChunkStarts::value_type>(widest * chunk_size);
  }
};

/// The sum of the block row lengths: a chunked matrix's blocks.
template <class Lengths>
struct BsrSumLengths {
  Lengths lengths;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t I, std::int64_t& sum) const {
    sum += lengths(I);
  }
};

/// Block starts from counts(I + 1) (counts(0) = 0), in place.
template <class Counts>
struct BsrScanCounts {
  Counts counts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t I, typename Counts::value_type& sum,
                                         bool final) const {
    sum += counts(I + 1);
    if (final) counts(I + 1) = sum;
  }
};

/// The row source (core/format_concept.hpp) of a BSR matrix: row i walks the
/// blocks of block row i / b, entry c of each block's row i % b, and skips
/// the padding (mask bits clear) when the matrix has masks.
template <class Scalar, class Ordinal, class Offset, class Device>
struct BsrRowSource {
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Ordinal*, Device> lengths; // empty when C = 1
  Kokkos::View<const Ordinal*, Device> block_cols;
  Kokkos::View<const Scalar*, Device> vals;
  Kokkos::View<const std::uint64_t*, Device> masks; // empty: every block full
  int b = 1;
  std::int64_t chunk_size = 1;
  BsrStrides strides;

  KOKKOS_INLINE_FUNCTION BsrSlot at(std::int64_t I) const {
    const std::int64_t s = I / chunk_size;
    return {static_cast<std::int64_t>(chunk_starts(s)), I - s * chunk_size, chunk_size};
  }
  /// Blocks of block row I (chunk padding excluded).
  KOKKOS_INLINE_FUNCTION std::int64_t blocks(std::int64_t I) const {
    return chunk_size == 1 ? static_cast<std::int64_t>(chunk_starts(I + 1) - chunk_starts(I))
                           : static_cast<std::int64_t>(lengths(I));
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t row_bits(std::int64_t slot, int r) const {
    const std::uint64_t row = (std::uint64_t(1) << b) - 1;
    return masks.extent(0) == 0 ? row : (masks(slot) >> (r * b)) & row;
  }
  /// Entry (r, c) of block j of block row I.
  KOKKOS_INLINE_FUNCTION Scalar entry(std::int64_t I, std::int64_t j, int r, int c) const {
    return vals(at(I).value(j, r * strides.row_stride + c * strides.col_stride,
                            static_cast<std::int64_t>(b) * b));
  }
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    const Ordinal I = row / b;
    const int r = static_cast<int>(row - I * b);
    const std::int64_t n = blocks(I);
    if (masks.extent(0) == 0) return static_cast<Ordinal>(n * b);
    const BsrSlot a = at(I);
    Ordinal count = 0;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::uint64_t bits = row_bits(a.slot(j), r); bits != 0; bits &= bits - 1) ++count;
    return count;
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    const Ordinal I = row / b;
    const int r = static_cast<int>(row - I * b);
    const std::int64_t n = blocks(I);
    const BsrSlot a = at(I);
    for (std::int64_t j = 0; j < n; ++j) {
      const std::uint64_t bits = row_bits(a.slot(j), r);
      const Ordinal first = block_cols(a.slot(j)) * b;
      for (int c = 0; c < b; ++c)
        if ((bits >> c) & 1u) f(static_cast<Ordinal>(first + c), entry(I, j, r, c));
    }
  }
};

/// d(i) = entry (i % b, i % b) of block (i / b, i / b), 0 without that
/// block: a BSR matrix stores each (row, column) once, and the diagonal of a
/// square blocked matrix lies in its diagonal blocks.
template <class Source, class Diag>
struct BsrDiagonal {
  Source source;
  Diag diag;
  KOKKOS_INLINE_FUNCTION void operator()(typename Source::ordinal_type row) const {
    const int b = source.b;
    const auto I = row / b;
    const int r = static_cast<int>(row - I * b);
    const BsrSlot a = source.at(I);
    typename Source::value_type d = 0;
    for (std::int64_t j = 0; j < source.blocks(I); ++j) {
      if (source.block_cols(a.slot(j)) == I) {
        d = source.entry(I, j, r, r);
        break;
      }
    }
    diag(row) = static_cast<typename Diag::value_type>(d);
  }
};

} // namespace detail
} // namespace spmvkit

#endif
