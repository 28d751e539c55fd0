// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_BSR_BSR_MATRIX_HPP
#define SPMVKIT_FORMATS_BSR_BSR_MATRIX_HPP

/// \file
/// The BSR format (block compressed rows): BsrMatrix, BsrOptions, make_bsr,
/// to_crs and the format tag BsrFormat. The conversion and the row source are
/// in detail/bsr_layout.hpp, the kernels in detail/bsr_kernels.hpp.
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/bsr/detail/bsr_kernels.hpp>
#include <spmvkit/formats/bsr/detail/bsr_layout.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

struct BsrFormat;

/// Block compressed rows: the matrix as a CRS matrix of dense b x b blocks
/// (b = 1..8, one b per matrix), for problems with several unknowns per node
/// numbered node by node (3 displacements in elasticity). One column index per
/// block instead of per entry, and the b entries of x a block needs read
/// together: for 3 x 3 blocks 76 bytes of matrix per 9 FP64 entries instead of
/// 108 in CRS.
///
/// Block row I holds rows I b .. I b + b - 1; block column J covers columns
/// J b .. J b + b - 1, increasing within a block row; b * b entries per block
/// in block_layout() order. The block rows are stored in chunks of C =
/// chunk_size() (detail::BsrSlot says where each block lives):
/// - C = 1 (hosts' default): plain BSR, block row I's blocks
///   [block_row_starts(I), block_row_starts(I + 1)) of block_columns and of
///   values, block after block (Kokkos Kernels' and cuSPARSE's layout);
/// - C > 1 (GPUs' default, 32): a chunk of C block rows padded to its widest
///   (zeros, a valid block column) with entry q of the C rows' j-th blocks
///   side by side, so that a warp reads them in one coalesced load (SELL-C
///   for blocks); block_row_lengths() keeps each block row's own blocks.
///
/// A pattern that is not made of full blocks is either refused (the default;
/// the reason names the first block row and block) or, with
/// BsrOptions::allow_padding, stored with explicit zeros in the blocks' empty
/// places; masks() then records each block's pattern (bit r * b + c), so that
/// to_crs() and nnz() are those of the matrix converted, never the padding.
/// SpMV does not read the masks.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class BsrMatrix {
  static_assert(std::is_floating_point_v<Scalar>, "BsrMatrix: Scalar must be floating-point");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "BsrMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "BsrMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  /// The format tag (core/format_concept.hpp).
  using format_type = BsrFormat;
  /// The CRS matrix type it converts from and to.
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// Scalar type of the entries.
  using value_type = Scalar;
  /// Row and column index type (also of block rows and block columns).
  using ordinal_type = Ordinal;
  /// Block offset type (chunk starts); entry offsets are computed in 64 bits.
  using offset_type = Offset;
  /// Where the arrays live and the kernels run.
  using execution_space = ExecutionSpace;
  /// Memory space of the arrays.
  using memory_space = typename ExecutionSpace::memory_space;
  /// Kokkos::Device of execution_space and memory_space.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// View of chunk (block row) starts.
  using offsets_type = Kokkos::View<Offset*, device_type>;
  /// View of block columns and block row lengths.
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;
  /// View of the values.
  using values_type = Kokkos::View<Scalar*, device_type>;
  /// View of the blocks' patterns (padded matrices only).
  using masks_type = Kokkos::View<std::uint64_t*, device_type>;
  /// The row source reading this matrix back in CRS order (to_crs).
  using row_source_type = detail::BsrRowSource<Scalar, Ordinal, Offset, device_type>;

  BsrMatrix() = default;

  /// Takes ownership of already-built arrays: chunk_starts (ceil(num_rows /
  /// b / C) + 1 entries, in block slots), block_row_lengths (num_rows / b
  /// entries; empty when C = 1), block_columns (one per slot), values (b * b
  /// per slot, in `layout` and the chunk order of detail::BsrSlot) and masks
  /// (one per slot, or empty when every block is full). Use make_bsr() or
  /// BsrFormat::from_crs() to convert a CrsMatrix. Throws
  /// std::invalid_argument naming the first array whose size is wrong.
  BsrMatrix(std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz, int block_size,
            BsrBlockLayout layout, int chunk_size, offsets_type chunk_starts,
            ordinals_type block_row_lengths, ordinals_type block_columns, values_type values,
            masks_type masks = {}, BsrThreads threads = BsrThreads::automatic)
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", "spmvkit::BsrMatrix")),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", "spmvkit::BsrMatrix")),
        nnz_(nnz), block_size_(block_size), chunk_size_(chunk_size), layout_(layout),
        chunk_starts_(chunk_starts), lengths_(block_row_lengths), block_columns_(block_columns),
        values_(values), masks_(masks), threads_(threads) {
    const std::string where = "spmvkit::BsrMatrix: ";
    if (block_size < 1 || block_size > detail::bsr_max_block_size) {
      throw std::invalid_argument(where + "block size " + std::to_string(block_size) +
                                  " is outside 1..8");
    }
    if (chunk_size < 1 || chunk_size > 1024) {
      throw std::invalid_argument(where + "chunk size " + std::to_string(chunk_size) +
                                  " is outside 1..1024");
    }
    if (num_rows % block_size != 0 || num_cols % block_size != 0) {
      throw std::invalid_argument(where + "block size " + std::to_string(block_size) +
                                  " does not divide the dimensions " + std::to_string(num_rows) +
                                  " x " + std::to_string(num_cols));
    }
    const std::int64_t slots = static_cast<std::int64_t>(block_columns_.extent(0));
    detail::checked_index<Offset>(slots, "blocks", "spmvkit::BsrMatrix");
    const std::int64_t nbr = num_rows / block_size;
    if (static_cast<std::int64_t>(chunk_starts_.extent(0)) !=
        (nbr + chunk_size - 1) / chunk_size + 1) {
      throw std::invalid_argument(where + "chunk_starts must have ceil(num_rows / b / C) + 1 = " +
                                  std::to_string((nbr + chunk_size - 1) / chunk_size + 1) +
                                  " entries");
    }
    if (static_cast<std::int64_t>(lengths_.extent(0)) != (chunk_size == 1 ? 0 : nbr)) {
      throw std::invalid_argument(where + "block_row_lengths must have " +
                                  (chunk_size == 1
                                       ? std::string("no entries when C = 1")
                                       : std::to_string(nbr) + " entries (num_rows / b)"));
    }
    if (static_cast<std::int64_t>(values_.extent(0)) != slots * block_size * block_size) {
      throw std::invalid_argument(
          where + "values must have b * b = " + std::to_string(block_size * block_size) +
          " entries per block (" + std::to_string(slots) + " blocks)");
    }
    if (masks_.extent(0) != 0 && static_cast<std::int64_t>(masks_.extent(0)) != slots) {
      throw std::invalid_argument(where + "masks must be empty or have one entry per block");
    }
    blocks_ = slots;
    if (chunk_size > 1 && nbr > 0) { // the blocks without the chunks' padding
      Kokkos::parallel_reduce(
          "SpMVKit::Bsr::blocks",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, nbr),
          detail::BsrSumLengths<ordinals_type>{lengths_}, blocks_);
    }
    if (masks_.extent(0) == 0 && nnz != blocks_ * block_size * block_size) {
      throw std::invalid_argument(where + "without masks nnz must be blocks * b * b");
    }
  }

  /// Number of rows.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  /// Number of columns.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Entries of the matrix converted (the padding of a padded matrix excluded).
  KOKKOS_INLINE_FUNCTION std::int64_t nnz() const { return nnz_; }
  /// b: rows and columns of each block.
  KOKKOS_INLINE_FUNCTION int block_size() const { return block_size_; }
  /// C: block rows per chunk (1: plain BSR).
  KOKKOS_INLINE_FUNCTION int chunk_size() const { return chunk_size_; }
  /// GPU threads per block row of the chunked kernel (BsrOptions::threads).
  BsrThreads gpu_threads() const { return threads_; }
  /// How entries are ordered within a block.
  BsrBlockLayout block_layout() const { return layout_; }
  /// num_rows / b.
  KOKKOS_INLINE_FUNCTION Ordinal num_block_rows() const { return num_rows_ / block_size_; }
  /// num_cols / b.
  KOKKOS_INLINE_FUNCTION Ordinal num_block_cols() const { return num_cols_ / block_size_; }
  /// Blocks of the matrix (partly filled ones included, the chunks' padding not).
  std::int64_t num_blocks() const { return blocks_; }
  /// Block slots stored: num_blocks() plus the chunks' padding.
  std::int64_t stored_blocks() const { return static_cast<std::int64_t>(block_columns_.extent(0)); }
  /// Entries stored: stored_blocks() * b * b, padding included.
  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values_.extent(0)); }
  /// stored_entries / nnz: 1 means no padding. 1 for an empty matrix.
  double padding_ratio() const {
    return nnz_ == 0 ? 1.0 : static_cast<double>(stored_entries()) / static_cast<double>(nnz_);
  }
  /// Start of each chunk in block slots (ceil(num_block_rows / C) + 1 entries).
  offsets_type const& chunk_starts() const { return chunk_starts_; }
  /// Plain BSR (C = 1): the start of each block row in block_columns, the
  /// CRS-of-blocks row map. Throws std::logic_error for C > 1.
  offsets_type const& block_row_starts() const {
    if (chunk_size_ != 1) {
      throw std::logic_error("spmvkit::BsrMatrix::block_row_starts: the matrix is sliced in "
                             "chunks of " +
                             std::to_string(chunk_size_) +
                             " block rows; use chunk_starts() and block_row_lengths()");
    }
    return chunk_starts_;
  }
  /// Blocks of each block row (C > 1; empty for C = 1).
  ordinals_type const& block_row_lengths() const { return lengths_; }
  /// Block column of each slot.
  ordinals_type const& block_columns() const { return block_columns_; }
  /// b * b values per slot.
  values_type const& values() const { return values_; }
  /// Each slot's pattern (bit r * b + c), or empty when every block is full.
  masks_type const& masks() const { return masks_; }
  /// The matrix as a row source (core/format_concept.hpp); the kernels read
  /// the matrix through it too.
  row_source_type row_source() const {
    return {chunk_starts_, lengths_,    block_columns_, values_,
            masks_,        block_size_, chunk_size_,    detail::bsr_strides(block_size_, layout_)};
  }

  /// Frees the transposed twin the first transposed product built and kept
  /// (see CrsMatrix::forget_transpose).
  void forget_transpose() const { kept_transpose_->clear(); }
  /// Internal: the kept transposed twin (operations/spmv.hpp).
  detail::KeptTranspose& kept_transpose() const { return *kept_transpose_; }

private:
  std::shared_ptr<detail::KeptTranspose> kept_transpose_ =
      std::make_shared<detail::KeptTranspose>();
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  std::int64_t nnz_ = 0;
  std::int64_t blocks_ = 0;
  int block_size_ = 1;
  int chunk_size_ = 1;
  BsrBlockLayout layout_ = BsrBlockLayout::row_major;
  offsets_type chunk_starts_ = offsets_type("SpMVKit::Bsr::chunk_starts", 1);
  ordinals_type lengths_;
  ordinals_type block_columns_;
  values_type values_;
  masks_type masks_;
  BsrThreads threads_ = BsrThreads::automatic;
};

/// BSR options: the block size (or its detection), the layout of a block and
/// whether partly filled blocks may be padded.
struct BsrOptions {
  /// b, 1..8; 0 (default): detected, the largest b of 8..2 that divides both
  /// dimensions and whose blocks the pattern fills exactly, else 1.
  int block_size = 0;
  /// Entry order within a block.
  BsrBlockLayout layout = BsrBlockLayout::row_major;
  /// C, block rows per chunk (1: plain BSR); 0 (default): the backend's
  /// (detail::default_bsr_chunk_size: 32 on GPUs, 1 on hosts).
  int chunk_size = 0;
  /// GPU threads per block row of chunked storage (no effect on hosts or for C = 1).
  BsrThreads threads = BsrThreads::automatic;
  /// Store blocks the pattern fills only partly, with explicit zeros (a given
  /// block_size only; detection looks for exact blocks). false: refused,
  /// naming the first such block.
  bool allow_padding = false;
  /// With allow_padding: the least fraction of the stored entries that must
  /// be the matrix's own; below it the blocks are mostly zeros and the
  /// conversion is refused (a scalar format moves fewer bytes).
  double min_fill = 0.5;
  /// from_crs checks the CRS structure first (check_structure); false skips
  /// that pass for data the caller knows to be well formed.
  bool check_structure = true;
};

namespace detail {

/// What converting A to BSR with options o finds, on A's execution space:
/// the block size (detected when o.block_size == 0), the blocks, and the
/// reason it cannot ("" if it can). counts, when not empty (num_block_rows + 1
/// entries), receives each block row's block count at I + 1.
struct BsrPlan {
  int block_size = 1;
  std::int64_t blocks = 0;
  std::string obstacle;
};

template <class ExecutionSpace, class Crs>
BsrCount bsr_count(ExecutionSpace const& exec, Crs const& A, int b,
                   Kokkos::View<typename Crs::offset_type*, typename Crs::device_type> counts) {
  using RowStarts = typename Crs::row_starts_type::const_type;
  using Columns = typename Crs::column_indices_type::const_type;
  using Counts = Kokkos::View<typename Crs::offset_type*, typename Crs::device_type>;
  using F = BsrCountBlocks<RowStarts, Columns, Counts>;
  typename F::value_type v;
  const std::int64_t nbr = A.num_rows() / b;
  Kokkos::parallel_reduce(
      "SpMVKit::Bsr::count",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, nbr),
      F{{A.row_starts(), A.column_indices(), b}, counts, A.num_cols() / b}, v);
  BsrCount c;
  c.blocks = v.blocks;
  if (v.unsorted != F::none) c.unsorted_row = v.unsorted;
  if (v.partial != F::none) {
    c.partial_row = v.partial / (A.num_cols() / b);
    c.partial_block_col = v.partial % (A.num_cols() / b);
    c.partial_entries = v.partial_entries;
  }
  return c;
}

inline std::string bsr_unsorted_reason(std::int64_t row) {
  return "row " + std::to_string(row) +
         " has columns that do not increase strictly (BSR stores each (row, column) once, in "
         "column order; sort the rows and sum duplicates first)";
}

/// With count_unit_blocks false, a detection that finds no b >= 2 stops
/// there (block_size 1, blocks 0) instead of walking the pattern once more
/// for b = 1: what the format model's features need (BSR with 1 x 1 blocks is
/// never its choice).
template <class ExecutionSpace, class Crs>
BsrPlan bsr_plan(ExecutionSpace const& exec, Crs const& A, BsrOptions const& o,
                 bool count_unit_blocks = true) {
  BsrPlan plan;
  if (o.block_size < 0 || o.block_size > bsr_max_block_size) {
    plan.obstacle = "block size " + std::to_string(o.block_size) + " is outside 1..8 (0: detect)";
    return plan;
  }
  if (o.allow_padding && !(o.min_fill > 0 && o.min_fill <= 1)) {
    plan.obstacle = "min_fill = " + std::to_string(o.min_fill) + " is outside (0, 1]";
    return plan;
  }
  const std::int64_t n = A.num_rows(), m = A.num_cols();
  using Counts = Kokkos::View<typename Crs::offset_type*, typename Crs::device_type>;
  if (o.block_size == 0) {
    // Row lengths rule most sizes out in one pass; each remaining one,
    // largest first, costs a count pass until one blocks exactly.
    unsigned bits = ~0u;
    if (n > 0) {
      Kokkos::parallel_reduce(
          "SpMVKit::Bsr::detect",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
          BsrLengthDivisors<typename Crs::row_starts_type::const_type>{A.row_starts()},
          Kokkos::BAnd<unsigned>(bits));
    }
    for (int b = bsr_max_block_size; b >= 2; --b) {
      if (n % b != 0 || m % b != 0 || ((bits >> (b - 1)) & 1u) == 0) continue;
      const BsrCount c = bsr_count(exec, A, b, Counts());
      if (c.unsorted_row >= 0) {
        plan.obstacle = bsr_unsorted_reason(c.unsorted_row);
        return plan;
      }
      if (c.partial_row < 0) {
        plan.block_size = b;
        plan.blocks = c.blocks;
        return plan;
      }
    }
    if (!count_unit_blocks) return plan;
    const BsrCount c = bsr_count(exec, A, 1, Counts());
    if (c.unsorted_row >= 0) plan.obstacle = bsr_unsorted_reason(c.unsorted_row);
    plan.blocks = c.blocks;
    return plan;
  }
  const int b = o.block_size;
  plan.block_size = b;
  if (n % b != 0 || m % b != 0) {
    plan.obstacle = "block size " + std::to_string(b) + " does not divide the dimensions " +
                    std::to_string(n) + " x " + std::to_string(m);
    return plan;
  }
  const BsrCount c = bsr_count(exec, A, b, Counts());
  plan.blocks = c.blocks;
  if (c.unsorted_row >= 0) {
    plan.obstacle = bsr_unsorted_reason(c.unsorted_row);
  } else if (c.partial_row >= 0 && !o.allow_padding) {
    plan.obstacle = "the pattern is not made of full " + std::to_string(b) + " x " +
                    std::to_string(b) + " blocks: block (" + std::to_string(c.partial_row) + ", " +
                    std::to_string(c.partial_block_col) + ") (rows " +
                    std::to_string(c.partial_row * b) + ".." +
                    std::to_string(c.partial_row * b + b - 1) + ") has " +
                    std::to_string(c.partial_entries) + " of " + std::to_string(b * b) +
                    " entries; BsrOptions::allow_padding stores such blocks with explicit zeros";
  } else if (c.partial_row >= 0) {
    const double stored = static_cast<double>(c.blocks) * b * b;
    const double fill = stored > 0 ? static_cast<double>(A.nnz()) / stored : 1.0;
    if (fill < o.min_fill) {
      char text[160];
      std::snprintf(text, sizeof(text),
                    "%d x %d blocks would be mostly zeros: %.3g of the %.0f stored entries would "
                    "be the matrix's (BsrOptions::min_fill = %.3g)",
                    b, b, fill, stored, o.min_fill);
      plan.obstacle = text;
    }
  }
  return plan;
}

/// The chunk size options ask for on ExecutionSpace (0: the backend's).
template <class ExecutionSpace>
int bsr_chunk_size(BsrOptions const& o) {
  return o.chunk_size != 0 ? o.chunk_size : default_bsr_chunk_size<ExecutionSpace>();
}

template <class ExecutionSpace, class Crs>
BsrMatrix<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
          typename Crs::offset_type>
make_bsr_from_crs(ExecutionSpace const& exec, Crs const& A, BsrOptions const& o) {
  using Bsr = BsrMatrix<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                        typename Crs::offset_type>;
  using Offset = typename Crs::offset_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::make_bsr";
  if (o.check_structure) ensure_structure(exec, A);
  const BsrPlan plan = bsr_plan(exec, A, o);
  if (!plan.obstacle.empty())
    throw std::invalid_argument(std::string(where) + ": " + plan.obstacle);
  const int b = plan.block_size;
  const std::int64_t C = bsr_chunk_size<ExecutionSpace>(o);
  const std::int64_t nbr = A.num_rows() / b;
  const std::int64_t chunks = (nbr + C - 1) / C;
  checked_index<Offset>(plan.blocks, "blocks", where);
  // Block counts per block row at counts(I + 1); for C = 1 they become the
  // block row starts in place.
  auto counts =
      allocate_view<typename Bsr::offsets_type>(exec, "SpMVKit::Bsr::block_counts", nbr + 1);
  Kokkos::deep_copy(exec, Kokkos::subview(counts, 0), Offset(0));
  if (nbr > 0) bsr_count(exec, A, b, counts);
  typename Bsr::offsets_type starts;
  typename Bsr::ordinals_type lengths;
  if (C == 1) {
    starts = counts;
  } else {
    starts =
        allocate_view<typename Bsr::offsets_type>(exec, "SpMVKit::Bsr::chunk_starts", chunks + 1);
    lengths =
        allocate_view<typename Bsr::ordinals_type>(exec, "SpMVKit::Bsr::block_row_lengths", nbr);
    Kokkos::deep_copy(exec, Kokkos::subview(starts, 0), Offset(0));
    Kokkos::parallel_for(
        "SpMVKit::Bsr::chunk_widths", Range(exec, 0, chunks),
        BsrChunkWidths<typename Bsr::offsets_type, typename Bsr::offsets_type,
                       typename Bsr::ordinals_type>{counts, starts, lengths, C, nbr});
  }
  // Slots: the plan's blocks for C = 1, else the chunks' padded total (the
  // one value read back), checked against Offset before the arrays exist.
  std::int64_t slots = plan.blocks;
  if (chunks > 0) {
    Offset total = 0;
    Kokkos::parallel_scan("SpMVKit::Bsr::chunk_starts", Range(exec, 0, C == 1 ? nbr : chunks),
                          BsrScanCounts<typename Bsr::offsets_type>{starts});
    Kokkos::deep_copy(exec, total, Kokkos::subview(starts, C == 1 ? nbr : chunks));
    exec.fence();
    slots = static_cast<std::int64_t>(total);
  }
  checked_index<Offset>(slots, "block slots (chunks padded to their widest block row)", where);
  const std::int64_t stored = slots * b * b;
  auto cols =
      allocate_view<typename Bsr::ordinals_type>(exec, "SpMVKit::Bsr::block_columns", slots);
  auto vals = allocate_view<typename Bsr::values_type>(exec, "SpMVKit::Bsr::values", stored);
  const bool partial = plan.blocks * b * b != static_cast<std::int64_t>(A.nnz());
  auto masks = partial ? allocate_view<typename Bsr::masks_type>(exec, "SpMVKit::Bsr::masks", slots)
                       : typename Bsr::masks_type();
  using RowStarts = typename Crs::row_starts_type::const_type;
  using Columns = typename Crs::column_indices_type::const_type;
  Kokkos::parallel_for(
      "SpMVKit::Bsr::fill", Range(exec, 0, chunks * C),
      BsrFill<RowStarts, Columns, typename Crs::values_type::const_type, typename Bsr::offsets_type,
              typename Bsr::ordinals_type, typename Bsr::values_type, typename Bsr::masks_type>{
          {A.row_starts(), A.column_indices(), b},
          A.values(),
          starts,
          cols,
          vals,
          masks,
          bsr_strides(b, o.layout),
          C,
          nbr});
  return Bsr(A.num_rows(), A.num_cols(), A.nnz(), b, o.layout, static_cast<int>(C), starts, lengths,
             cols, vals, masks, o.threads);
}

} // namespace detail

/// Converts a BSR matrix back to CRS on the device: the matrix's own entries
/// (a padded matrix's padding dropped), columns increasing in each row.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(ExecutionSpace const& exec, BsrMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return CrsFormat::from_rows(exec, A.num_rows(), A.num_cols(), A.row_source(), CrsOptions());
}

/// The BSR format tag (core/format_concept.hpp).
struct BsrFormat {
  /// Short name of the format (benchmark names, reports).
  static constexpr char const* family = "bsr";
  /// Conversion choices.
  using options_type = BsrOptions;
  /// The matrix class of this format.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = BsrMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// "bsr", plus "_b<b>" for a given block size, "_c<C>" for a given chunk
  /// size, "_cm" for column-major blocks, "_brows", "_rows" or "_pair" for
  /// given GPU threads and "_pad<min_fill>" when padding is allowed.
  static std::string name(options_type const& o) {
    std::string s = family;
    if (o.block_size != 0) s += "_b" + std::to_string(o.block_size);
    if (o.chunk_size != 0) s += "_c" + std::to_string(o.chunk_size);
    if (o.layout == BsrBlockLayout::column_major) s += "_cm";
    if (o.threads == BsrThreads::block_row) s += "_brows";
    if (o.threads == BsrThreads::row) s += "_rows";
    if (o.threads == BsrThreads::pair) s += "_pair";
    if (o.allow_padding) {
      char fill[32];
      std::snprintf(fill, sizeof(fill), "_pad%g", o.min_fill);
      s += fill;
    }
    return s;
  }
  /// The detected block size in either block layout with the backend's chunk
  /// size, and the other storage: plain BSR (C = 1) on GPUs, chunks of 8
  /// block rows on hosts; on GPUs also a thread per row of a block row.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    options_type cm, other, rows;
    cm.layout = BsrBlockLayout::column_major;
    const bool chunked = detail::default_bsr_chunk_size<ExecutionSpace>() > 1;
    other.chunk_size = chunked ? 1 : 8;
    rows.threads = BsrThreads::row;
    if (chunked) return {options_type{}, cm, other, rows};
    return {options_type{}, cm, other};
  }
  /// Why A cannot be stored as BSR with options o ("" if it can): a block
  /// size outside 1..8 or not dividing the dimensions, a row whose columns do
  /// not increase strictly, partly filled blocks without allow_padding, or a
  /// padded fill below min_fill. One pass over the pattern per block size tried.
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    return detail::bsr_plan(exec, A, o).obstacle;
  }
  /// Built from a row source: through CRS (from_rows, then from_crs), since
  /// a block row gathers b rows that a row source gives one at a time.
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const& o) {
    const auto crs = CrsFormat::from_rows(exec, num_rows, num_cols, source, CrsOptions());
    return detail::make_bsr_from_crs(exec, crs, o);
  }
  /// Converts CRS on the device (std::invalid_argument with obstacle()'s reason
  /// when it cannot, before the blocks are allocated).
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    return detail::make_bsr_from_crs(exec, A, o);
  }
  /// Back to CRS, exact (a padded matrix's padding dropped).
  template <class ExecutionSpace, class Bsr>
  static typename Bsr::crs_type to_crs(ExecutionSpace const& exec, Bsr const& A) {
    return spmvkit::to_crs(exec, A);
  }
  /// The options that build A again: its block size and layout, padding
  /// allowed when A has padding.
  template <class Bsr>
  static options_type options(Bsr const& A) {
    options_type o;
    o.block_size = A.block_size();
    o.layout = A.block_layout();
    o.chunk_size = A.chunk_size();
    o.threads = A.gpu_threads();
    o.allow_padding = A.masks().extent(0) != 0;
    // Its own fill, less a rounding margin, passes the min_fill test again.
    if (o.allow_padding) o.min_fill = (1.0 - 1e-12) / A.padding_ratio();
    return o;
  }
  /// y = beta y + alpha A x on validated input (spmv() validates).
  template <class ExecutionSpace, class Bsr, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<Bsr, Y> alpha, Bsr const& A,
                    X const& x, detail::spmv_scalar_t<Bsr, Y> beta, Y const& y,
                    options_type const&) {
    detail::spmv_bsr(exec, alpha, A, x, beta, y);
  }
  /// d(i) = entry (i, i), 0 where the pattern has none.
  template <class ExecutionSpace, class Bsr, class D>
  static void diagonal(ExecutionSpace const& exec, Bsr const& A, D const& d) {
    Kokkos::parallel_for(
        "SpMVKit::Bsr::diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<typename Bsr::ordinal_type>>(
            exec, 0, A.num_rows()),
        detail::BsrDiagonal<typename Bsr::row_source_type, D>{A.row_source(), d});
  }
  /// Stored slots x (b * b values + one block column) + chunk starts (+ block
  /// row lengths for C > 1) + x + y.
  template <class Bsr>
  static SpmvBytes bytes(Bsr const& A) {
    using S = typename Bsr::value_type;
    SpmvBytes b;
    b.matrix =
        static_cast<double>(A.stored_entries()) * sizeof(S) +
        static_cast<double>(A.stored_blocks()) * sizeof(typename Bsr::ordinal_type) +
        static_cast<double>(A.chunk_starts().extent(0)) * sizeof(typename Bsr::offset_type) +
        static_cast<double>(A.block_row_lengths().extent(0)) * sizeof(typename Bsr::ordinal_type);
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }
};

/// Converts CRS to BSR on A's execution space. The block size is detected
/// unless options.block_size gives it; a broken CRS, an unsorted row, a
/// pattern not made of full blocks (unless padding is allowed) and mostly
/// empty padded blocks are refused with std::invalid_argument naming the row
/// or block, before the blocks are allocated.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
BsrMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_bsr(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
         BsrOptions const& options = {}) {
  return BsrFormat::from_crs(exec, A, options);
}

} // namespace spmvkit

#endif
