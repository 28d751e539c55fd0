#ifndef SPMVKIT_SELL_MATRIX_HPP
#define SPMVKIT_SELL_MATRIX_HPP

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

namespace detail {

/// How a SELL format stores the column of an entry. The chunk layout, the
/// conversions and the SpMV kernel are written once for every encoding; an
/// encoding only says what is stored per entry and how the kernel turns it
/// back into a column, given the entry's original row.
///
/// AbsoluteColumns stores the column itself (SellMatrix).
struct AbsoluteColumns {
  template <class Ordinal>
  using stored_type = Ordinal;
  /// Whether decode() needs the row (the kernel then loads rows up front).
  static constexpr bool relative = false;
  static constexpr char const* class_name = "spmvkit::SellMatrix";
  static constexpr char const* make_name = "spmvkit::make_sell";
  static constexpr char const* label = "SpMVKit::Sell::";
  template <class Ordinal>
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal encode(Ordinal col, Ordinal /*row*/) {
    return col;
  }
  template <class Ordinal, class Stored>
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal decode(Stored stored, Ordinal /*row*/) {
    return static_cast<Ordinal>(stored);
  }
};

} // namespace detail

/// SELL-C-σ matrix (Kreutzer et al. 2014): rows are grouped into chunks of C
/// consecutive rows, each chunk is padded to its longest row and stored
/// column-major, so that C threads reading one "column" of a chunk touch C
/// consecutive values. With σ > 1, rows are first sorted by decreasing length
/// inside windows of σ rows, which shrinks the padding; row_permutation()
/// maps a stored row to its original row so that SpMV still reads x and
/// writes y in the original numbering. σ = 1 is sliced ELLPACK.
///
/// `Columns` says how each entry's column is stored (detail::AbsoluteColumns
/// for SellMatrix, 16-bit offsets from the row for Sell16Matrix); use those
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
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
class BasicSellMatrix {
  static_assert(std::is_floating_point_v<Scalar>, "SellMatrix: Scalar must be floating-point");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "SellMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "SellMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using column_encoding = Columns;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using chunk_starts_type = Kokkos::View<Offset*, device_type>;
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;
  using stored_column_type = typename Columns::template stored_type<Ordinal>;
  using columns_type = Kokkos::View<stored_column_type*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;

  BasicSellMatrix() = default;

  /// Takes ownership of already-built arrays; use make_sell() (make_sell16())
  /// to convert a CrsMatrix. `columns` holds what Columns stores per entry.
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

  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Nonzeros of the original matrix, padding excluded.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return nnz_; }
  /// Entries actually stored (nonzeros plus padding).
  KOKKOS_INLINE_FUNCTION Offset stored_entries() const {
    return static_cast<Offset>(values_.extent(0));
  }
  KOKKOS_INLINE_FUNCTION int chunk_size() const { return chunk_size_; }
  KOKKOS_INLINE_FUNCTION Ordinal num_chunks() const {
    return static_cast<Ordinal>(chunk_widths_.extent(0));
  }
  std::int64_t sigma() const { return sigma_; }
  /// stored_entries / nnz: 1 means no padding. 1 for an empty matrix.
  double padding_ratio() const {
    return nnz_ == 0 ? 1.0 : static_cast<double>(stored_entries()) / static_cast<double>(nnz_);
  }
  bool is_permuted() const { return row_permutation_.extent(0) != 0; }

  chunk_starts_type const& chunk_starts() const { return chunk_starts_; }
  ordinals_type const& chunk_widths() const { return chunk_widths_; }
  /// What is stored per entry, in the layout of values(): the column
  /// (SellMatrix) or column - original row (Sell16Matrix).
  columns_type const& stored_columns() const { return columns_; }
  /// SellMatrix: the column of each stored entry.
  columns_type const& column_indices() const {
    static_assert(!Columns::relative,
                  "this SELL format stores column offsets: use column_offsets()");
    return columns_;
  }
  /// Sell16Matrix: column - original row of each stored entry.
  columns_type const& column_offsets() const {
    static_assert(Columns::relative, "this SELL format stores columns: use column_indices()");
    return columns_;
  }
  values_type const& values() const { return values_; }
  /// Stored row -> original row; empty when sigma == 1 (identity).
  ordinals_type const& row_permutation() const { return row_permutation_; }
  ordinals_type const& row_lengths() const { return row_lengths_; }

private:
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
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using SellMatrix =
    BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, detail::AbsoluteColumns>;

/// Every SELL format, whatever its column encoding.
template <class T>
struct is_sell_matrix : std::false_type {};
template <class S, class E, class O, class F, class C>
struct is_sell_matrix<BasicSellMatrix<S, E, O, F, C>> : std::true_type {};
template <class T>
inline constexpr bool is_sell_matrix_v = is_sell_matrix<T>::value;

namespace detail {

template <class Ordinal, class Offset, class Device>
struct CrsRowLengths {
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<Ordinal*, Device> lengths;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const {
    lengths(i) = static_cast<Ordinal>(row_starts(i + 1) - row_starts(i));
  }
};

/// Sorts each window of sigma rows by decreasing length, ties by increasing
/// row index. The keys are unique, so the result is deterministic whatever the
/// backend. Heapsort: in place, O(sigma log sigma) per window, no scratch.
template <class Ordinal, class Device>
struct SortWindows {
  Kokkos::View<Ordinal*, Device> perm;
  Kokkos::View<const Ordinal*, Device> lengths;
  std::int64_t sigma;
  std::int64_t num_rows;

  // "a goes after b" in the sorted order.
  KOKKOS_INLINE_FUNCTION bool after(Ordinal a, Ordinal b) const {
    return lengths(a) < lengths(b) || (lengths(a) == lengths(b) && a > b);
  }
  KOKKOS_INLINE_FUNCTION void sift_down(std::int64_t first, std::int64_t root,
                                        std::int64_t count) const {
    while (true) {
      std::int64_t child = 2 * root + 1;
      if (child >= count) return;
      // max-heap w.r.t. "after", so the element that goes last bubbles up.
      if (child + 1 < count && after(perm(first + child + 1), perm(first + child))) ++child;
      if (!after(perm(first + child), perm(first + root))) return;
      const Ordinal t = perm(first + root);
      perm(first + root) = perm(first + child);
      perm(first + child) = t;
      root = child;
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t window) const {
    const std::int64_t first = window * sigma;
    const std::int64_t count = (first + sigma <= num_rows) ? sigma : num_rows - first;
    for (std::int64_t i = 0; i < count; ++i) perm(first + i) = static_cast<Ordinal>(first + i);
    for (std::int64_t root = count / 2 - 1; root >= 0; --root) sift_down(first, root, count);
    for (std::int64_t end = count - 1; end > 0; --end) {
      const Ordinal t = perm(first);
      perm(first) = perm(first + end);
      perm(first + end) = t;
      sift_down(first, 0, end);
    }
  }
};

template <class Ordinal, class Offset, class Device>
struct ChunkWidths {
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Ordinal*, Device> perm; // empty: identity
  Kokkos::View<Ordinal*, Device> widths;
  Ordinal num_rows;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal chunk, std::int64_t& total) const {
    const std::int64_t first = static_cast<std::int64_t>(chunk) * chunk_size;
    const std::int64_t last = first + chunk_size < num_rows ? first + chunk_size : num_rows;
    Ordinal w = 0;
    for (std::int64_t r = first; r < last; ++r) {
      const Ordinal row = perm.extent(0) ? perm(r) : static_cast<Ordinal>(r);
      w = lengths(row) > w ? lengths(row) : w;
    }
    widths(chunk) = w;
    total += static_cast<std::int64_t>(w) * chunk_size;
  }
};

template <class Ordinal, class Offset, class Device>
struct ChunkStartsScan {
  Kokkos::View<const Ordinal*, Device> widths;
  Kokkos::View<Offset*, Device> starts;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal chunk, Offset& partial, bool final) const {
    if (final) starts(chunk) = partial;
    partial += static_cast<Offset>(widths(chunk)) * chunk_size;
    if (final && chunk + 1 == static_cast<Ordinal>(widths.extent(0))) starts(chunk + 1) = partial;
  }
};

/// One thread per stored row: copies its CRS entries into the chunk's
/// column-major slots, encoded by Columns, and pads the rest of the chunk
/// width (the padding rule is on BasicSellMatrix).
template <class Columns, class Scalar, class Ordinal, class Offset, class Device>
struct FillSell {
  using Stored = typename Columns::template stored_type<Ordinal>;
  Kokkos::View<const Offset*, Device> crs_starts;
  Kokkos::View<const Ordinal*, Device> crs_cols;
  Kokkos::View<const Scalar*, Device> crs_vals;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Ordinal*, Device> widths;
  Kokkos::View<Stored*, Device> cols;
  Kokkos::View<Scalar*, Device> vals;
  Ordinal num_rows;
  Ordinal num_cols;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    const Ordinal chunk = static_cast<Ordinal>(stored_row / chunk_size);
    const Ordinal width = widths(chunk);
    // A chunk of width 0 stores nothing; otherwise num_cols > 0.
    if (width == 0) return;
    const Offset base = chunk_starts(chunk) + static_cast<Offset>(stored_row % chunk_size);
    // Must agree with the kernel (detail/spmv_sell.hpp): rows past num_rows count as row 0.
    Ordinal row = 0;
    Offset begin = 0, length = 0;
    if (stored_row < num_rows) {
      row = perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row);
      begin = crs_starts(row);
      length = crs_starts(row + 1) - begin;
    }
    const Ordinal pad_col = length > 0 ? crs_cols(begin) : (row < num_cols ? row : num_cols - 1);
    for (Ordinal j = 0; j < width; ++j) {
      const Offset slot = base + static_cast<Offset>(j) * chunk_size;
      const bool entry = j < length;
      cols(slot) = static_cast<Stored>(Columns::encode(entry ? crs_cols(begin + j) : pad_col, row));
      vals(slot) = entry ? crs_vals(begin + j) : Scalar(0);
    }
  }
};

template <class Columns, class Scalar, class Ordinal, class Offset, class Device>
struct SellToCrs {
  using Stored = typename Columns::template stored_type<Ordinal>;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Stored*, Device> sell_cols;
  Kokkos::View<const Scalar*, Device> sell_vals;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Offset*, Device> crs_starts;
  Kokkos::View<Ordinal*, Device> crs_cols;
  Kokkos::View<Scalar*, Device> crs_vals;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    const Ordinal chunk = static_cast<Ordinal>(stored_row / chunk_size);
    const Offset base = chunk_starts(chunk) + static_cast<Offset>(stored_row % chunk_size);
    const Ordinal row = perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row);
    const Offset out = crs_starts(row);
    const Ordinal length = lengths(row);
    for (Ordinal j = 0; j < length; ++j) {
      const Offset slot = base + static_cast<Offset>(j) * chunk_size;
      crs_cols(out + j) = Columns::decode(sell_cols(slot), row);
      crs_vals(out + j) = sell_vals(slot);
    }
  }
};

template <class Ordinal, class Offset, class Device>
struct LengthsToStarts {
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<Offset*, Device> starts;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Offset& partial, bool final) const {
    if (final) starts(i) = partial;
    partial += lengths(i);
    if (final && i + 1 == static_cast<Ordinal>(lengths.extent(0))) starts(i + 1) = partial;
  }
};

} // namespace detail

namespace detail {

/// The chunk layout of a SELL matrix from its row lengths: the σ-window
/// permutation (empty for σ = 1), the chunk widths and starts, and the stored
/// size, the one value that travels to the host (for the allocation that
/// follows). Shared by every route to a SELL matrix, so that they agree on
/// permutation and padding.
template <class Ordinal, class Offset, class ExecutionSpace>
struct SellLayout {
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  Kokkos::View<Ordinal*, Device> perm, widths;
  Kokkos::View<Offset*, Device> starts;
  std::int64_t num_chunks = 0;
  std::int64_t stored = 0;

  SellLayout(ExecutionSpace const& exec, Kokkos::View<const Ordinal*, Device> lengths,
             int chunk_size, std::int64_t sigma, std::string const& label, char const* where) {
    using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
    using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    if (chunk_size < 1 || sigma < 1) {
      throw std::invalid_argument(
          std::string(where) + ": chunk size C and sigma must be >= 1, got C = " +
          std::to_string(chunk_size) + ", sigma = " + std::to_string(sigma));
    }
    const auto n = static_cast<Ordinal>(lengths.extent(0));
    num_chunks = (static_cast<std::int64_t>(n) + chunk_size - 1) / chunk_size;
    checked_index<Ordinal>(num_chunks * chunk_size, "rows padded to a multiple of C", where);
    if (sigma > 1) {
      perm = allocate_view<Kokkos::View<Ordinal*, Device>>(exec, label + "row_permutation", n);
      const std::int64_t windows = (static_cast<std::int64_t>(n) + sigma - 1) / sigma;
      Kokkos::parallel_for(label + "sort_windows", Range64(exec, 0, windows),
                           SortWindows<Ordinal, Device>{perm, lengths, sigma, n});
    }
    widths =
        allocate_view<Kokkos::View<Ordinal*, Device>>(exec, label + "chunk_widths", num_chunks);
    Kokkos::parallel_reduce(
        label + "chunk_widths", Range(exec, 0, static_cast<Ordinal>(num_chunks)),
        ChunkWidths<Ordinal, Offset, Device>{lengths, perm, widths, n, chunk_size}, stored);
    checked_index<Offset>(stored, "stored entries (nonzeros + padding)", where);
    starts =
        allocate_view<Kokkos::View<Offset*, Device>>(exec, label + "chunk_starts", num_chunks + 1);
    if (num_chunks == 0) {
      Kokkos::deep_copy(exec, starts, Offset(0));
    } else {
      Kokkos::parallel_scan(label + "chunk_starts",
                            Range(exec, 0, static_cast<Ordinal>(num_chunks)),
                            ChunkStartsScan<Ordinal, Offset, Device>{widths, starts, chunk_size});
    }
  }
};

/// CRS -> SELL with any column encoding, on A's execution space. The caller
/// has checked that A can be encoded.
template <class Columns, class Scalar, class ExecutionSpace, class Ordinal, class Offset>
BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns>
make_basic_sell(ExecutionSpace const& exec,
                CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
                std::int64_t sigma) {
  using Sell = BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns>;
  using Device = typename Sell::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::string label = Columns::label;
  const Ordinal n = A.num_rows();
  auto lengths = allocate_view<typename Sell::ordinals_type>(exec, label + "row_lengths", n);
  Kokkos::parallel_for(label + "row_lengths", Range(exec, 0, n),
                       CrsRowLengths<Ordinal, Offset, Device>{A.row_starts(), lengths});
  const SellLayout<Ordinal, Offset, ExecutionSpace> layout(exec, lengths, chunk_size, sigma, label,
                                                           Columns::make_name);
  auto cols = allocate_view<typename Sell::columns_type>(exec, label + "columns", layout.stored);
  auto vals = allocate_view<typename Sell::values_type>(exec, label + "values", layout.stored);
  Kokkos::parallel_for(label + "fill", Range64(exec, 0, layout.num_chunks * chunk_size),
                       FillSell<Columns, Scalar, Ordinal, Offset, Device>{
                           A.row_starts(), A.column_indices(), A.values(), layout.perm,
                           layout.starts, layout.widths, cols, vals, n, A.num_cols(), chunk_size});
  return Sell(n, A.num_cols(), A.nnz(), chunk_size, sigma, layout.starts, layout.widths, cols, vals,
              layout.perm, lengths);
}

} // namespace detail

/// Converts a CRS matrix to SELL-C-σ on A's execution space (no host round
/// trip): the only value that travels to the host is the stored size, needed
/// for the allocation. sigma = 1 keeps the row order.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
SellMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
          int chunk_size, std::int64_t sigma = 1) {
  return detail::make_basic_sell<detail::AbsoluteColumns>(exec, A, chunk_size, sigma);
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
SellMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell(CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
          std::int64_t sigma = 1) {
  return make_sell(ExecutionSpace(), A, chunk_size, sigma);
}

/// Converts any SELL format back to CRS (original row order, padding
/// dropped), on the device.
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

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns> const& S) {
  return to_crs(ExecutionSpace(), S);
}

} // namespace spmvkit

#endif
