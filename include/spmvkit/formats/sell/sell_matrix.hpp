// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_SELL_MATRIX_HPP
#define SPMVKIT_FORMATS_SELL_SELL_MATRIX_HPP

/// \file
/// The SELL-C-sigma format: BasicSellMatrix (one class for every column
/// encoding), SellMatrix, make_sell, to_crs and the format tags
/// BasicSellFormat<Columns> / SellFormat. SellOffset16 (formats/sell_offset16/) is the same
/// class with another column encoding. Longer than most public headers
/// (~370 lines) because the class, its conversions and its format tag are the
/// public face of SELL and of every SELL encoding; the kernels, the layout and
/// the conversion work are in detail/.
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/kept_value.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/detail/sell_columns.hpp>
#include <spmvkit/formats/sell/detail/sell_conversion.hpp>
#include <spmvkit/formats/sell/detail/sell_kernels.hpp>
#include <spmvkit/formats/sell/detail/sell_layout.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

template <class Columns>
struct BasicSellFormat;

/// SELL-C-σ sparse matrix in rank-1 Views of ExecutionSpace's memory, for any column encoding.
///
/// The layout is that of Kreutzer et al. (SIAM J. Sci. Comput. 36(5), 2014):
/// rows are grouped into chunks of C consecutive rows, each chunk is padded to
/// its longest row and stored column-major, so that C threads reading one
/// "column" of a chunk touch C consecutive values. With σ > 1, rows are first
/// sorted by decreasing length inside windows of σ rows, which shrinks the
/// padding; row_permutation() maps a stored row to its original row so that
/// SpMV still reads x and writes y in the original numbering. σ = 1 is sliced
/// ELLPACK.
///
/// `Columns` says how each entry's column is stored (detail::AbsoluteColumns
/// for SellMatrix, 16-bit offsets from the row for SellOffset16Matrix); use those
/// aliases rather than this template.
///
/// Padding entries hold the value 0 and must address a valid x entry, because
/// the kernel multiplies them like any other entry (an x read out of bounds is
/// a fault, or NaN * 0). A non-empty row pads with its first column, which it
/// reads anyway; an empty row pads with the valid column nearest to it,
/// min(row, num_cols - 1), and the stored rows past num_rows that complete the
/// last chunk count as empty rows numbered 0. As in any SpMV that multiplies
/// stored zeros, a NaN or Inf in a padded x entry makes that row NaN.
///
/// row_lengths() keeps the true length of each row (original numbering). The
/// SpMV kernel does not read it; it makes SELL -> CRS exact even when the
/// matrix stores explicit zeros.
///
/// Chunk c holds chunk_widths(c) * C entries from chunk_starts(c) on: entry j
/// (j in [0, chunk_widths(c))) of the chunk's stored row r (r in [0, C)) is at
/// chunk_starts(c) + j * C + r. Stored row s = c * C + r < num_rows is original
/// row row_permutation()(s) when permuted, s otherwise.
///
/// Like CrsMatrix, a SELL matrix is a handle: copies share the Views. Its
/// structure is fixed at conversion; values() may be changed in place, padding
/// entries excepted (they must stay 0).
///
/// \tparam Scalar         value type; a floating-point type
/// \tparam ExecutionSpace Kokkos execution space; the arrays live in its default memory space
/// \tparam Ordinal        row and column index type; signed integral
/// \tparam Offset         entry index type (chunk_starts); integral, at least as wide as Ordinal
/// \tparam Columns        column encoding (implementation type in namespace detail)
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
class BasicSellMatrix {
  static_assert(std::is_floating_point_v<Scalar>, "SellMatrix: Scalar must be floating-point");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "SellMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "SellMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  /// The format tag: SellFormat for SellMatrix, SellOffset16Format for SellOffset16Matrix.
  using format_type = BasicSellFormat<Columns>;
  /// The CrsMatrix with the same template arguments: what to_crs() returns.
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The type of the matrix entries, Scalar.
  using value_type = Scalar;
  /// The row and column index type, Ordinal.
  using ordinal_type = Ordinal;
  /// The entry index type of chunk_starts, Offset.
  using offset_type = Offset;
  /// The column encoding, Columns.
  using column_encoding = Columns;
  /// The execution space kernels on this matrix run on.
  using execution_space = ExecutionSpace;
  /// Where the arrays live: the execution space's default memory space.
  using memory_space = typename ExecutionSpace::memory_space;
  /// `Kokkos::Device<execution_space, memory_space>`, the device of every View here.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// View of num_chunks + 1 chunk starts (entry offsets).
  using chunk_starts_type = Kokkos::View<Offset*, device_type>;
  /// View of Ordinal: chunk widths, the row permutation and the row lengths.
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;
  /// What is stored per entry: Ordinal (SellMatrix) or `std::int16_t` (SellOffset16Matrix).
  using stored_column_type = typename Columns::template stored_type<Ordinal>;
  /// View of stored_entries() stored columns.
  using columns_type = Kokkos::View<stored_column_type*, device_type>;
  /// View of stored_entries() values, padding included.
  using values_type = Kokkos::View<Scalar*, device_type>;

  /// An empty 0 x 0 matrix without storage; assign a converted matrix to it before use.
  BasicSellMatrix() = default;

  /// Takes ownership of already-built arrays; use make_sell() (make_sell_offset16())
  /// to convert a CrsMatrix. `columns` holds what Columns stores per entry.
  ///
  /// The extents are checked (std::invalid_argument when C < 1, sigma < 1,
  /// chunk_starts does not have num_chunks + 1 entries or chunk_widths
  /// num_chunks, columns and values differ in length, row_permutation is
  /// neither empty nor num_rows long, or row_lengths is not num_rows long;
  /// std::length_error when a size does not fit its index type). The contents
  /// (layout, padding rule) are the caller's promise. No kernel, no allocation.
  BasicSellMatrix(std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz, int chunk_size,
                  std::int64_t sigma, chunk_starts_type chunk_starts, ordinals_type chunk_widths,
                  columns_type columns, values_type values, ordinals_type row_permutation,
                  ordinals_type row_lengths)
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", Columns::class_name)),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", Columns::class_name)),
        nnz_(detail::checked_index<Offset>(nnz, "nnz", Columns::class_name)),
        chunk_size_(chunk_size), sigma_(sigma), chunk_starts_(chunk_starts),
        chunk_widths_(chunk_widths), columns_(columns), values_(values),
        row_permutation_(row_permutation), row_lengths_(row_lengths) {
    const std::string where = std::string(Columns::class_name) + ": ";
    if (chunk_size < 1 || sigma < 1) {
      throw std::invalid_argument(
          where + "chunk size C and sigma must be >= 1, got C = " + std::to_string(chunk_size) +
          ", sigma = " + std::to_string(sigma));
    }
    const std::int64_t chunks = (num_rows + chunk_size - 1) / chunk_size;
    if (static_cast<std::int64_t>(chunk_starts_.extent(0)) != chunks + 1 ||
        static_cast<std::int64_t>(chunk_widths_.extent(0)) != chunks) {
      throw std::invalid_argument(where + "chunk_starts/chunk_widths must have num_chunks + 1 = " +
                                  std::to_string(chunks + 1) + " / " + std::to_string(chunks) +
                                  " entries");
    }
    if (columns_.extent(0) != values_.extent(0)) {
      throw std::invalid_argument(where + "the column array and values differ in length");
    }
    // The kernel permutes whenever the permutation is non-empty, and to_crs()
    // reads a length per row.
    if ((sigma > 1 || row_permutation_.extent(0) != 0) &&
        static_cast<std::int64_t>(row_permutation_.extent(0)) != num_rows) {
      throw std::invalid_argument(where + "the row permutation must be empty (sigma = 1 only) or "
                                          "have num_rows entries");
    }
    if (static_cast<std::int64_t>(row_lengths_.extent(0)) != num_rows) {
      throw std::invalid_argument(where + "row_lengths must have num_rows entries");
    }
  }

  /// Number of rows; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  /// Number of columns; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Nonzeros of the original matrix, padding excluded.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return nnz_; }
  /// Entries actually stored (nonzeros plus padding).
  KOKKOS_INLINE_FUNCTION Offset stored_entries() const {
    return static_cast<Offset>(values_.extent(0));
  }
  /// The chunk size C: rows per chunk.
  KOKKOS_INLINE_FUNCTION int chunk_size() const { return chunk_size_; }
  /// Number of chunks, ceil(num_rows / C); the last chunk is completed with empty rows.
  KOKKOS_INLINE_FUNCTION Ordinal num_chunks() const {
    return static_cast<Ordinal>(chunk_widths_.extent(0));
  }
  /// The sorting window σ actually used: the requested σ clamped to [1, max(num_rows, 1)].
  std::int64_t sigma() const { return sigma_; }
  /// stored_entries / nnz: 1 means no padding. 1 for an empty matrix.
  double padding_ratio() const {
    return nnz_ == 0 ? 1.0 : static_cast<double>(stored_entries()) / static_cast<double>(nnz_);
  }
  /// Whether rows are stored in another order than the original (σ > 1).
  bool is_permuted() const { return row_permutation_.extent(0) != 0; }

  /// num_chunks + 1 offsets: chunk c holds entries [chunk_starts(c), chunk_starts(c + 1)).
  chunk_starts_type const& chunk_starts() const { return chunk_starts_; }
  /// num_chunks widths: the longest row of each chunk, the padded length of all its rows.
  ordinals_type const& chunk_widths() const { return chunk_widths_; }
  /// What is stored per entry, in the layout of values(): the column
  /// (SellMatrix) or column - original row (SellOffset16Matrix).
  columns_type const& stored_columns() const { return columns_; }
  /// SellMatrix: the column of each stored entry.
  columns_type const& column_indices() const {
    static_assert(!Columns::relative,
                  "this SELL format stores column offsets: use column_offsets()");
    return columns_;
  }
  /// SellOffset16Matrix: column - original row of each stored entry.
  columns_type const& column_offsets() const {
    static_assert(Columns::relative, "this SELL format stores columns: use column_indices()");
    return columns_;
  }
  /// The value of each stored entry in the chunk layout; padding entries hold 0.
  values_type const& values() const { return values_; }
  /// Stored row -> original row; empty when sigma == 1 (identity).
  ordinals_type const& row_permutation() const { return row_permutation_; }
  /// num_rows true row lengths, in the original row numbering (padding excluded).
  ordinals_type const& row_lengths() const { return row_lengths_; }

  /// Entries of the longest row (the widest chunk's width; 0 without rows), computed on exec by
  /// the first call (one reduction over the chunk widths, which fences exec) and kept, shared by
  /// copies. Host SpMV launches read it to tell alike rows
  /// (docs/notes/2026-12-07-host-sell-ell-static-blocks.md); it only steers how rows are shared
  /// among threads, never the result.
  std::int64_t longest_row(ExecutionSpace const& exec = ExecutionSpace()) const {
    return kept_longest_row_->get([&] {
      std::int64_t widest = 0;
      Kokkos::parallel_reduce("SpMVKit::SellMatrix::longest_row",
                              Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                                  exec, 0, static_cast<std::int64_t>(chunk_widths_.extent(0))),
                              detail::WidestChunk<ordinals_type>{chunk_widths_},
                              Kokkos::Max<std::int64_t>(widest));
      return std::max<std::int64_t>(widest, 0); // Max starts at the lowest value: no chunks
    });
  }

  /// Frees the transposed twin that the first transposed product
  /// (spmv with SpmvMode::transpose) built and kept; call it after changing
  /// the values or the structure in place, so that the next transposed
  /// product builds it anew. Copies of the matrix share the twin.
  void forget_transpose() const { kept_transpose_->clear(); }
  /// Internal: the kept transposed twin (operations/spmv.hpp).
  detail::KeptTranspose& kept_transpose() const { return *kept_transpose_; }

private:
  std::shared_ptr<detail::KeptTranspose> kept_transpose_ =
      std::make_shared<detail::KeptTranspose>();
  std::shared_ptr<detail::KeptValue<std::int64_t>> kept_longest_row_ =
      std::make_shared<detail::KeptValue<std::int64_t>>();
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  Offset nnz_ = 0;
  int chunk_size_ = 1;
  std::int64_t sigma_ = 1;
  chunk_starts_type chunk_starts_;
  ordinals_type chunk_widths_;
  columns_type columns_;
  values_type values_;
  ordinals_type row_permutation_;
  ordinals_type row_lengths_;
};

/// SELL-C-σ storing each entry's column (see BasicSellMatrix).
///
/// Made from a CrsMatrix by make_sell(); converted back by to_crs(). Each
/// stored entry costs sizeof(Scalar) + sizeof(Ordinal) bytes (12 in double with
/// int indices), padding included.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using SellMatrix =
    BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, detail::AbsoluteColumns>;

/// Trait: whether T is a SELL matrix of any column encoding (SellMatrix or SellOffset16Matrix).
template <class T>
struct is_sell_matrix : std::false_type {};
/// Trait specialisation: every BasicSellMatrix is a SELL matrix.
template <class S, class E, class O, class F, class C>
struct is_sell_matrix<BasicSellMatrix<S, E, O, F, C>> : std::true_type {};
/// Whether T is a SELL matrix of any column encoding: `is_sell_matrix<T>::value`.
template <class T>
inline constexpr bool is_sell_matrix_v = is_sell_matrix<T>::value;

/// Converts a CRS matrix to SELL-C-σ on A's execution space (no host round
/// trip): the only values that travel to the host are the structure check's
/// verdict and the stored size, needed for the allocation. A CRS with
/// decreasing row starts or columns out of range is rejected
/// (std::invalid_argument naming the first bad row; SellOptions::
/// check_structure = false through SellFormat::from_crs skips the check). sigma = 1 keeps the row
/// order; a sigma beyond the row count sorts the whole matrix (the stored sigma() is then
/// num_rows).
///
/// \param exec       execution space instance the conversion runs on
/// \param A          the CRS matrix; it is not modified and may be dropped afterwards
/// \param chunk_size C, rows per chunk, >= 1; on GPU backends at most 1024 (threads
///                   per team). Typical: 32 on GPUs (a warp), 4 or 8 on CPUs (SIMD width)
/// \param sigma      σ, the sorting window in rows, >= 1; 1 keeps the row order, larger
///                   windows (C to a few thousand) reduce the padding of irregular matrices
/// \return a new SellMatrix with its own arrays
///
/// Throws std::invalid_argument for C < 1, σ < 1, C beyond the backend's team
/// limit or a broken CRS structure; std::length_error when the padded size
/// (stored entries) does not fit Offset or the rows padded to a multiple of C
/// do not fit Ordinal; AllocationError when an allocation fails.
///
/// Cost: one structure check (about one SpMV), a sort of each σ window by row
/// length (O(num_rows log σ) on the device), a scan over the chunks and one
/// fill pass over the stored entries. Memory: stored_entries() values and
/// columns plus per-chunk and per-row arrays. Synchronous with respect to the
/// host only as far as the stored size is read back; the fill itself is
/// queued on exec.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
SellMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
          int chunk_size, std::int64_t sigma = 1) {
  return detail::make_basic_sell<detail::AbsoluteColumns>(exec, A, chunk_size, sigma);
}

/// make_sell() on a default-constructed instance of A's execution space.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
SellMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell(CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
          std::int64_t sigma = 1) {
  return make_sell(ExecutionSpace(), A, chunk_size, sigma);
}

/// Converts any SELL format back to CRS (original row order, padding
/// dropped), on the device.
///
/// Exact: the result has the rows, columns, values, explicit zeros and
/// duplicates of the CRS matrix the SELL matrix was made from, and the same
/// order of entries within a row. Allocates a new CrsMatrix (AllocationError on
/// failure); one scan over the rows and one pass over the stored entries,
/// asynchronous on exec.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(ExecutionSpace const& exec,
       BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns> const& S) {
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Crs::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::string label = Columns::label;
  const Ordinal n = S.num_rows();
  Crs A("to_crs", n, S.num_cols(), S.nnz(), exec);
  if (n == 0) {
    Kokkos::deep_copy(exec, A.row_starts(), Offset(0));
    return A;
  }
  Kokkos::parallel_scan(
      label + "to_crs_row_starts", Range(exec, 0, n),
      detail::LengthsToStarts<Ordinal, Offset, Device>{S.row_lengths(), A.row_starts()});
  Kokkos::parallel_for(label + "to_crs_entries", Range64(exec, 0, n),
                       detail::SellToCrs<Columns, Scalar, Ordinal, Offset, Device>{
                           S.chunk_starts(), S.stored_columns(), S.values(), S.row_permutation(),
                           S.row_lengths(), A.row_starts(), A.column_indices(), A.values(),
                           S.chunk_size()});
  return A;
}

/// to_crs() on a default-constructed instance of S's execution space.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns> const& S) {
  return to_crs(ExecutionSpace(), S);
}

/// SELL options: chunk size C (0: the backend's default, see
/// detail::default_sell_chunk_size) and sorting window sigma (1: no sorting).
///
/// The options_type of SellFormat and SellOffset16Format, read by their from_crs()
/// and from_rows() (make_fem_poisson() among others). Aggregate:
/// `SellOptions{32, 256}` is C = 32, σ = 256, structure check on.
struct SellOptions {
  /// C, rows per chunk: 0 picks the backend's default (4 on host backends, 32
  /// on GPUs); otherwise >= 1, and at most 1024 on GPU backends.
  int chunk_size = 0;
  /// σ, the sorting window in rows, >= 1 (1: rows keep their order).
  std::int64_t sigma = 1;
  /// from_crs checks the CRS structure first (check_structure); false skips
  /// that pass for data the caller knows to be well formed.
  bool check_structure = true;
};

/// The format tag of every SELL column encoding (core/format_concept.hpp).
///
/// Users rarely call its members directly: spmv(), cg() and the conversions
/// call them. They are documented for code that walks format_list.
template <class Columns>
struct BasicSellFormat {
  /// The family name: "sell" (SellFormat) or "sell_offset16" (SellOffset16Format).
  static constexpr char const* family = Columns::family;
  /// The options of SELL: SellOptions.
  using options_type = SellOptions;
  /// apply takes several blocks of columns at once (detail::walks_column_blocks).
  static constexpr bool walks_column_blocks = true;
  /// The matrix class of the format: SellMatrix or SellOffset16Matrix.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns>;

  /// Name of the variant for reports and benchmarks: the family for the
  /// defaults (C = 0, σ = 1), else `<family>_c<C>_s<sigma>`, such as "sell_c32_s256".
  static std::string name(options_type const& o) {
    if (o.chunk_size == 0 && o.sigma == 1) return family;
    return std::string(family) + "_c" + std::to_string(o.chunk_size) + "_s" +
           std::to_string(o.sigma);
  }
  /// What the benchmarks sweep: C = 4, 8 (host SIMD widths), 32 (a warp), 64;
  /// sigma = 1, 32, 1024 where the encoding gains from sorting (absolute
  /// columns); offsets relative to the row gain nothing on the banded matrices
  /// they are for, so those sweep sigma = 1 only.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    std::vector<options_type> v;
    for (int c : {4, 8, 32, 64}) {
      if (Columns::relative) {
        v.push_back({c, 1, true});
      } else {
        for (std::int64_t s : {1, 32, 1024}) v.push_back({c, s, true});
      }
    }
    return v;
  }
  /// Why A cannot be stored in this format with options o, or "" if it can:
  /// invalid C or σ, C beyond the backend's team limit, or (SellOffset16 only) a
  /// column out of int16 reach or an empty row whose padding could not reach
  /// x. The SellOffset16 test costs one pass over A's entries and is synchronous; the
  /// others cost nothing.
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    if (o.chunk_size < 0 || o.sigma < 1) {
      return "chunk size C must be >= 0 (0: default) and sigma >= 1, got C = " +
             std::to_string(o.chunk_size) + ", sigma = " + std::to_string(o.sigma);
    }
    const std::string limit =
        detail::sell_chunk_size_obstacle<ExecutionSpace>(chunk_size<ExecutionSpace>(o));
    return limit.empty() ? Columns::obstacle(exec, A.num_rows(), A.num_cols(), A.nnz(),
                                             detail::crs_row_source(A))
                         : limit;
  }
  /// SELL straight from a row source (core/format_concept.hpp): the same
  /// layout and padding as from_crs, without a CRS copy in between.
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const& o) {
    std::int64_t nnz = 0;
    Kokkos::parallel_reduce(
        std::string(Columns::label) + "from_rows_count",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<typename Source::ordinal_type>>(
            exec, 0,
            detail::checked_index<typename Source::ordinal_type>(num_rows, "num_rows",
                                                                 Columns::make_name)),
        detail::SourceNnz<Source>{source}, nnz);
    detail::checked_index<typename Source::offset_type>(nnz, "nnz", Columns::make_name);
    return detail::make_basic_sell_from_rows<Columns>(exec, num_rows, num_cols, nnz, source,
                                                      chunk_size<ExecutionSpace>(o), o.sigma);
  }
  /// make_sell() (make_sell_offset16()) with the options' C (0: the backend's
  /// default), σ and structure check; same throws and cost.
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    return detail::make_basic_sell<Columns>(exec, A, chunk_size<ExecutionSpace>(o), o.sigma,
                                            o.check_structure);
  }
  /// B's values into A's arrays, B a CRS matrix with the pattern A was made from (shape, row
  /// lengths, columns in order): no allocation and no layout pass, the values alone. Every copy
  /// of A sees them; A's kept transpose is dropped. B's structure and pattern are checked first:
  /// std::invalid_argument names the first row that differs, and A is left as it was.
  /// Synchronous; a pass over B's columns, then one over its values.
  template <class ExecutionSpace, class Sell, class Crs>
  static void refill(ExecutionSpace const& exec, Sell const& A, Crs const& B) {
    detail::refill_sell(exec, A, B);
  }
  /// spmvkit::to_crs(exec, A): exact, into a new CrsMatrix.
  template <class ExecutionSpace, class Sell>
  static typename Sell::crs_type to_crs(ExecutionSpace const& exec, Sell const& A) {
    return spmvkit::to_crs(exec, A);
  }
  /// The options A was built with: its C and σ (as used, see
  /// BasicSellMatrix::sigma()), structure check on.
  template <class Sell>
  static options_type options(Sell const& A) {
    return {A.chunk_size(), A.sigma(), true};
  }
  /// y = beta y + alpha A x, asynchronous on exec; the options are not used
  /// (the layout is fixed at conversion).
  ///
  /// The arguments are not checked here, and alpha == 0 is not special-cased:
  /// call spmv(), which validates them and applies the BLAS alpha/beta rules
  /// before it calls this. One pass over the stored entries, padding included.
  template <class ExecutionSpace, class Sell, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<Sell, Y> alpha, Sell const& A,
                    X const& x, detail::spmv_scalar_t<Sell, Y> beta, Y const& y,
                    options_type const&) {
    detail::spmv_sell(exec, alpha, A, x, beta, y);
  }
  /// d(i) = the sum of A's stored entries (i, i), 0 for a row without one,
  /// in the original row numbering; d has num_rows entries. Asynchronous on
  /// exec; one pass over the stored entries.
  template <class ExecutionSpace, class Sell, class D>
  static void diagonal(ExecutionSpace const& exec, Sell const& A, D const& d) {
    const std::int64_t stored_rows = static_cast<std::int64_t>(A.num_chunks()) * A.chunk_size();
    Kokkos::parallel_for(
        std::string(Columns::label) + "diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, stored_rows),
        detail::SellDiagonal<Sell, D>{A.chunk_starts(), A.chunk_widths(), A.stored_columns(),
                                      A.row_permutation(), A.values(), d, A.num_rows(),
                                      A.chunk_size()});
  }
  /// Stored entries (padding included) x (value + stored column) + chunk
  /// starts + chunk widths + the permutation when sorted + x + y.
  template <class Sell>
  static SpmvBytes bytes(Sell const& A) {
    using S = typename Sell::value_type;
    using O = typename Sell::ordinal_type;
    SpmvBytes b;
    b.matrix = static_cast<double>(A.stored_entries()) *
                   (sizeof(S) + sizeof(typename Sell::stored_column_type)) +
               (static_cast<double>(A.num_chunks()) + 1) * sizeof(typename Sell::offset_type) +
               static_cast<double>(A.num_chunks()) * sizeof(O) +
               (A.is_permuted() ? static_cast<double>(A.num_rows()) * sizeof(O) : 0.0);
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }

private:
  template <class ExecutionSpace>
  static int chunk_size(options_type const& o) {
    return o.chunk_size != 0 ? o.chunk_size : detail::default_sell_chunk_size<ExecutionSpace>();
  }
};

/// The format tag of SellMatrix: SELL-C-sigma with absolute column indices.
using SellFormat = BasicSellFormat<detail::AbsoluteColumns>;

} // namespace spmvkit

#endif
