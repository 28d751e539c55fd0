// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_IO_MATRIX_MARKET_HPP
#define SPMVKIT_IO_MATRIX_MARKET_HPP

/// \file
/// Matrix Market I/O: read_matrix_market (plain or gzipped coordinate files,
/// real/integer/pattern, general/symmetric, into a CrsMatrix on any execution
/// space) and write_matrix_market. Every limit is checked before the large
/// allocations: declared sizes against the index types and against a memory
/// estimate, line lengths against matrix_market_max_line_length, values
/// against the Scalar's range. The parser is compiled (SpMVKit::io, src/io/).

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit {

/// Any failure to read or write a Matrix Market file. The message is
/// "<file>:<line>: <what>", or "<file>: <what>" when the problem is not tied to
/// one line (line() == 0: file not found, out of memory, write errors), so that
/// editors and CI logs can jump straight to the offending line.
class MatrixMarketError : public std::runtime_error {
public:
  /// An error in `file` at `line` (0: not tied to a line), described by `what`.
  MatrixMarketError(std::string const& file, std::int64_t line, std::string const& what)
      : std::runtime_error(format(file, line, what)), file_(file), line_(line) {}

  /// The file the error is about.
  std::string const& file() const noexcept { return file_; }
  /// The 1-based line of the error; 0 when it is not tied to one line.
  std::int64_t line() const noexcept { return line_; }

private:
  // Built by appending: GCC 12 at -O2 in C++20 mode reports a bogus -Wrestrict
  // for "literal" + std::string temporaries.
  static std::string format(std::string const& file, std::int64_t line, std::string const& what) {
    std::string message = file;
    if (line > 0) {
      message += ':';
      message += std::to_string(line);
    }
    message += ": ";
    message += what;
    return message;
  }

  std::string file_;
  std::int64_t line_;
};

/// What the banner and size line of a coordinate Matrix Market file declare.
/// entries is the count in the file, i.e. before symmetric expansion and
/// before duplicates are summed.
struct MatrixMarketInfo {
  std::int64_t rows = 0;    ///< declared number of rows
  std::int64_t cols = 0;    ///< declared number of columns
  std::int64_t entries = 0; ///< declared entries (lines of data) in the file
  /// The value field of the banner (pattern: every entry is 1).
  enum class Field {
    real,    ///< floating-point values
    integer, ///< integer values, converted to Scalar
    pattern  ///< no values: every entry is 1
  };
  Field field = Field::real; ///< the banner's field
  /// The symmetry of the banner (symmetric: the lower triangle is stored).
  enum class Symmetry {
    general,  ///< every entry is stored
    symmetric ///< only the lower triangle; the reader mirrors it
  };
  Symmetry symmetry = Symmetry::general; ///< the banner's symmetry
};

/// The longest line the reader accepts, in bytes, not counting the line end.
/// Real Matrix Market lines are a few dozen bytes; the cap keeps a file
/// without line ends (binary data, /dev/zero) from growing the line buffer
/// without bound: such input fails after reading at most this many bytes.
inline constexpr std::size_t matrix_market_max_line_length = std::size_t(1) << 20;

/// What to do with a nonzero value that rounds to zero in the matrix's Scalar
/// (1e-50 read into float; 1e-400 read into double).
enum class MatrixMarketUnderflow {
  /// Throw MatrixMarketError naming the file, line and value (the default).
  error,
  /// Store a zero of the value's sign and count it in MatrixMarketReport.
  flush_to_zero,
};

/// Which values a read accepts. Values beyond the Scalar's finite range are
/// errors whatever this says; explicit inf and nan in the file are stored as
/// such by default.
enum class MatrixMarketValues {
  /// Every number, inf and nan included (the default).
  any,
  /// Finite values only: an inf or nan is an error naming its line.
  finite,
  /// Finite values >= 0 only (edge weights, probabilities): a negative value,
  /// inf or nan is an error naming its line.
  nonnegative,
};

/// What a read found that is not an error. Filled when
/// MatrixMarketReadOptions::report points at one.
struct MatrixMarketReport {
  /// Nonzero values stored as zero (MatrixMarketUnderflow::flush_to_zero).
  std::int64_t underflows = 0;
  /// Line of the first of them; 0 when there is none.
  std::int64_t first_underflow_line = 0;
  /// The estimate of the host bytes alive at the peak of the read, checked
  /// against memory_limit_bytes before anything was allocated.
  std::uint64_t estimated_peak_bytes = 0;
  /// The limit it was checked against (0: unknown, not checked) and where the
  /// limit came from ("MatrixMarketReadOptions::memory_limit",
  /// "SPMVKIT_MEMORY_LIMIT", "MemAvailable", "cgroup memory.max").
  std::uint64_t memory_limit_bytes = 0;
  /// Where memory_limit_bytes came from (see memory_limit_bytes).
  std::string memory_limit_source;
};

/// Options of read_matrix_market. The defaults are what the overloads without
/// options use.
struct MatrixMarketReadOptions {
  /// Host bytes that the read may have alive at its peak. 0: the environment
  /// variable SPMVKIT_MEMORY_LIMIT (a byte count) when it is set, otherwise
  /// the memory available now (MemAvailable in /proc/meminfo, lowered to the
  /// room left in the process's cgroup v2 memory.max when that is smaller).
  /// A nonzero value replaces that automatic limit (it may also raise it).
  std::uint64_t memory_limit = 0;
  /// What to do with nonzero values that round to zero in Scalar.
  MatrixMarketUnderflow underflow = MatrixMarketUnderflow::error;
  /// Which values to accept (MatrixMarketValues); pattern files hold only 1s.
  MatrixMarketValues values = MatrixMarketValues::any;
  /// Where to report underflows and the memory estimate; may be null.
  MatrixMarketReport* report = nullptr;
};

namespace detail {

/// Host coordinate form of a file, 0-based, symmetric entries already mirrored,
/// in file order (unsorted, duplicates not yet summed).
struct MatrixMarketCoo {
  std::vector<std::int64_t> rows;
  std::vector<std::int64_t> cols;
  std::vector<double> values;
  MatrixMarketInfo info;
};

/// Host CRS form with 64-bit indices: columns ascending within each row,
/// duplicates summed. Kept independent of Scalar/Ordinal/Offset so that all the
/// sorting is compiled once in the library rather than in every caller.
struct MatrixMarketCrs {
  std::vector<std::int64_t> row_starts; // rows + 1 entries
  std::vector<std::int64_t> cols;
  std::vector<double> values;
  MatrixMarketInfo info;
};

/// Where the bytes come from: a file (plain or gzip), or a caller's buffer
/// (plain or gzip) named `name` in error messages. The buffer must outlive
/// the read.
struct MatrixMarketInput {
  std::string name;
  void const* data = nullptr;
  std::size_t size = 0;
  bool in_memory = false;

  static MatrixMarketInput file(std::string path) {
    MatrixMarketInput input;
    input.name = std::move(path);
    return input;
  }
  static MatrixMarketInput memory(std::string name, void const* data, std::size_t size) {
    MatrixMarketInput input;
    input.name = std::move(name);
    input.data = data;
    input.size = size;
    input.in_memory = true;
    return input;
  }
};

/// What the caller will build from the file, known before the first byte is
/// read, so that index ranges, value ranges and the memory estimate are all
/// checked before anything large is allocated. The defaults describe
/// CrsMatrix<double, host, int64, int64>; matrix_market_target<...>() fills it
/// for any matrix type.
struct MatrixMarketTarget {
  std::int64_t max_ordinal = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_offset = std::numeric_limits<std::int64_t>::max();
  int ordinal_bits = 64;
  int offset_bits = 64;
  std::size_t ordinal_bytes = 8;
  std::size_t offset_bytes = 8;
  std::size_t scalar_bytes = 8;
  /// The matrix lives where the host cannot write it, so the read fills a
  /// host staging copy of the same size first.
  bool staging_copy = false;
  /// A finite value v with |v| >= overflow_at rounds to infinity in Scalar.
  double overflow_at = std::numeric_limits<double>::infinity();
  /// The largest finite Scalar (for messages).
  double scalar_max = std::numeric_limits<double>::max();
  /// A nonzero v with |v| <= underflow_at rounds to zero in Scalar (0: only
  /// what already underflows in double).
  double underflow_at = 0.0;
  char const* scalar_name = "double";
  MatrixMarketReadOptions options;
};

template <class T>
constexpr char const* matrix_market_scalar_name() {
  if constexpr (std::is_same_v<T, float>) {
    return "float";
  } else if constexpr (std::is_same_v<T, double>) {
    return "double";
  } else if constexpr (std::is_same_v<T, long double>) {
    return "long double";
  } else {
    return "Scalar";
  }
}

template <class Index>
constexpr std::int64_t matrix_market_index_max() {
  using Limits = std::numeric_limits<Index>;
  return static_cast<std::uint64_t>(Limits::max()) >
                 static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             ? std::numeric_limits<std::int64_t>::max()
             : static_cast<std::int64_t>(Limits::max());
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
MatrixMarketTarget matrix_market_target(MatrixMarketReadOptions const& options) {
  using Limits = std::numeric_limits<Scalar>;
  MatrixMarketTarget target;
  target.max_ordinal = matrix_market_index_max<Ordinal>();
  target.max_offset = matrix_market_index_max<Offset>();
  target.ordinal_bits = static_cast<int>(sizeof(Ordinal) * 8);
  target.offset_bits = static_cast<int>(sizeof(Offset) * 8);
  target.ordinal_bytes = sizeof(Ordinal);
  target.offset_bytes = sizeof(Offset);
  target.scalar_bytes = sizeof(Scalar);
  target.staging_copy =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                  typename ExecutionSpace::memory_space>::accessible;
  if constexpr (Limits::max_exponent < std::numeric_limits<double>::max_exponent) {
    // Round to nearest: values from max + ulp(max) / 2 up round to infinity,
    // i.e. from 2^e - 2^(e - p - 1) (exact in double for p < 53).
    target.overflow_at = std::ldexp(1.0, Limits::max_exponent) -
                         std::ldexp(1.0, Limits::max_exponent - Limits::digits - 1);
    target.scalar_max = static_cast<double>(Limits::max());
  }
  if constexpr (Limits::min_exponent > std::numeric_limits<double>::min_exponent) {
    // Values up to half the smallest positive Scalar round to zero (ties to even).
    target.underflow_at = static_cast<double>(Limits::denorm_min()) / 2.0;
  }
  target.scalar_name = matrix_market_scalar_name<Scalar>();
  target.options = options;
  return target;
}

/// Parses a coordinate Matrix Market file, plain or gzip-compressed (a gzip
/// file may hold several concatenated members, read one after the other;
/// bytes after the last member that are not a gzip member are an error).
///
/// Accepted: fields real, integer (stored exactly up to 2^53) and pattern
/// (value 1); symmetries general and symmetric. For symmetric files every
/// off-diagonal entry (i, j) also yields (j, i). The format asks for the lower
/// triangle only, but an entry above the diagonal is accepted and mirrored the
/// same way, so a symmetric file listing both triangles ends up with doubled
/// off-diagonal values once duplicates are summed.
/// Values are parsed with strtod in the C locale's number syntax, so "nan",
/// "inf", "infinity" (any case, signed) and hexadecimal floats are accepted as
/// the values they denote. A finite value beyond the finite range of the
/// target's Scalar (1e999 anywhere, 1e300 into float) is an error; a nonzero
/// value that rounds to zero in Scalar (1e-400, or 1e-50 into float) is an
/// error or a counted zero (MatrixMarketReadOptions::underflow). Values that
/// round to a subnormal are kept.
/// Comment lines ('%'), blank lines, CRLF line endings, a UTF-8 byte order
/// mark and banner keywords in any case are accepted; CR-only (classic Mac)
/// line endings, NUL bytes and lines longer than
/// matrix_market_max_line_length are errors. Explicit zeros are kept as
/// stored entries.
///
/// Before allocating, the declared sizes are checked against the target's
/// index types and the memory estimate of the whole read against the memory
/// limit (MatrixMarketReadOptions::memory_limit).
/// Throws MatrixMarketError naming the file (and line, where there is one) on
/// any error; messages quote at most 40 characters of an offending token.
MatrixMarketCoo read_matrix_market_coo(MatrixMarketInput const& input,
                                       MatrixMarketTarget const& target = MatrixMarketTarget());
MatrixMarketCoo read_matrix_market_coo(std::string const& path,
                                       MatrixMarketTarget const& target = MatrixMarketTarget());

/// Sorts a COO into CRS (counting sort by row, then by column within each row,
/// stable so duplicates are summed in file order). Consumes coo to release its
/// memory before the caller allocates the final matrix. Duplicates of finite
/// values that sum beyond the target Scalar's finite range are an error naming
/// the row, the column and the line whose entry takes the sum out of range
/// (found by reading the input again, on that error only).
MatrixMarketCrs matrix_market_coo_to_crs(MatrixMarketInput const& input, MatrixMarketCoo&& coo,
                                         MatrixMarketTarget const& target = MatrixMarketTarget());
MatrixMarketCrs matrix_market_coo_to_crs(std::string const& path, MatrixMarketCoo&& coo);

/// read_matrix_market_coo followed by matrix_market_coo_to_crs.
MatrixMarketCrs read_matrix_market_crs(MatrixMarketInput const& input,
                                       MatrixMarketTarget const& target = MatrixMarketTarget());
MatrixMarketCrs read_matrix_market_crs(std::string const& path);

/// Streams entries to a plain or (path ending in ".gz") gzip-compressed file,
/// so that write_matrix_market never needs a second full-size host copy.
/// The destructor closes without reporting errors; call finish() to learn
/// whether everything reached the file.
class MatrixMarketWriter {
public:
  /// digits: significant decimal digits per value (max_digits10 of the
  /// matrix's Scalar makes text round trips bit-exact).
  MatrixMarketWriter(std::string const& path, std::int64_t rows, std::int64_t cols,
                     std::int64_t nnz, int digits);
  ~MatrixMarketWriter();
  MatrixMarketWriter(MatrixMarketWriter const&) = delete;
  MatrixMarketWriter& operator=(MatrixMarketWriter const&) = delete;

  /// Appends n entries given 0-based indices.
  void write(std::int64_t const* rows, std::int64_t const* cols, double const* values,
             std::size_t n);
  /// Flushes and closes; throws if any write failed or fewer/more than nnz
  /// entries were written.
  void finish();

private:
  void flush_buffer();

  std::string path_;
  void* file_ = nullptr; // gzFile, kept opaque so this header does not need zlib.h
  std::int64_t expected_;
  std::int64_t written_ = 0;
  int digits_;
  std::string buffer_;
};

/// Narrows with checked_index but reports overflow as a MatrixMarketError so
/// that the caller learns which file was too large for the chosen index types.
template <class Index>
Index matrix_market_index(std::string const& path, std::int64_t value, char const* what) {
  try {
    return checked_index<Index>(value, what, "spmvkit::read_matrix_market");
  } catch (std::exception const& e) {
    throw MatrixMarketError(path, 0, e.what());
  }
}

/// A host-accessible View to fill before copying into view: the view itself
/// when its memory is host-accessible, otherwise a new uninitialised HostSpace
/// View (spelled out rather than via create_mirror_view because the
/// WithoutInitializing overloads differ between Kokkos 3 and 4).
template <class View>
auto matrix_market_host_staging(View const& view) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename View::memory_space>::accessible) {
    return view;
  } else {
    return allocate_view<Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace>>(
        Kokkos::DefaultHostExecutionSpace(), view.label(),
        static_cast<std::int64_t>(view.extent(0)));
  }
}

/// Builds the CrsMatrix from the host CRS of a file. The target the CRS was
/// read for guarantees that every value converts to a finite Scalar (or was
/// an explicit inf/nan) and that the declared sizes fit; the final nnz, known
/// only now, is checked here.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
matrix_market_to_crs_matrix(std::string const& name, MatrixMarketCrs&& crs,
                            ExecutionSpace const& exec) {
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  auto const nnz = static_cast<std::int64_t>(crs.values.size());
  matrix_market_index<Ordinal>(name, crs.info.rows, "num_rows");
  matrix_market_index<Ordinal>(name, crs.info.cols, "num_cols");
  matrix_market_index<Offset>(name, nnz, "nnz");
  matrix_market_index<Offset>(name, crs.info.rows, "num_rows");

  Matrix A(name, crs.info.rows, crs.info.cols, nnz, exec);
  auto row_starts = matrix_market_host_staging(A.row_starts());
  auto column_indices = matrix_market_host_staging(A.column_indices());
  auto values = matrix_market_host_staging(A.values());
  for (std::size_t i = 0; i < crs.row_starts.size(); ++i) {
    row_starts(i) = static_cast<Offset>(crs.row_starts[i]);
  }
  for (std::size_t k = 0; k < crs.cols.size(); ++k) {
    column_indices(k) = static_cast<Ordinal>(crs.cols[k]);
    values(k) = static_cast<Scalar>(crs.values[k]);
  }
  Kokkos::deep_copy(exec, A.row_starts(), row_starts);
  Kokkos::deep_copy(exec, A.column_indices(), column_indices);
  Kokkos::deep_copy(exec, A.values(), values);
  // The staging Views die on return; the copies must have read them by then.
  exec.fence();
  A.trust_structure(); // the reader range-checked every index and built the row starts
  return A;
}

} // namespace detail

/// Reads a coordinate Matrix Market file (plain or gzip) into a CrsMatrix
/// allocated on exec's memory space, labelled with the file name.
///
/// The matrix is assembled on the host: columns come out in ascending order
/// within each row and duplicate (row, column) entries are SUMMED, which is how
/// finite-element style files with repeated entries are meant to be read.
/// Symmetric files are expanded to both triangles (see
/// detail::read_matrix_market_coo for exactly which inputs are accepted).
/// Values are converted from double to Scalar.
///
/// Memory: before anything is allocated, the host bytes alive at the peak of
/// the read are estimated from the declared sizes (the parsed triplets at
/// 24 bytes per stored entry, the 64-bit CRS built from them at 16 bytes per
/// entry and 8 per row, and the CrsMatrix itself, or its host staging copy
/// when exec's memory is not host-accessible; symmetric files count every
/// entry twice) and checked against options.memory_limit (see
/// MatrixMarketReadOptions). Peak host memory stays below that estimate.
///
/// Throws MatrixMarketError on malformed input, when the declared sizes do
/// not fit Ordinal/Offset, when the estimate exceeds the limit, or when a
/// value does not fit Scalar; AllocationError when the final Views cannot be
/// allocated.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
read_matrix_market(std::string const& path, MatrixMarketReadOptions const& options,
                   ExecutionSpace const& exec = ExecutionSpace()) {
  auto const target =
      detail::matrix_market_target<Scalar, ExecutionSpace, Ordinal, Offset>(options);
  return detail::matrix_market_to_crs_matrix<Scalar, ExecutionSpace, Ordinal, Offset>(
      path, detail::read_matrix_market_crs(detail::MatrixMarketInput::file(path), target), exec);
}

/// The banner and size line of a coordinate Matrix Market file (plain or
/// gzip), without reading its entries: what a program checks before it
/// commits memory to the file (square, non-empty, sizes that fit).
///
/// Reads a few lines; allocates nothing that grows with the matrix. Throws
/// MatrixMarketError naming the file and line when the file cannot be opened
/// or its banner or size line is malformed (as read_matrix_market does).
MatrixMarketInfo read_matrix_market_info(std::string const& path);

/// read_matrix_market with default options.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
read_matrix_market(std::string const& path, ExecutionSpace const& exec = ExecutionSpace()) {
  return read_matrix_market<Scalar, ExecutionSpace, Ordinal, Offset>(
      path, MatrixMarketReadOptions(), exec);
}

/// read_matrix_market from `size` bytes at `data` (plain text or gzip), e.g. a
/// file already in memory or received over a network; `name` stands for the
/// file name in error messages and the matrix label.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
read_matrix_market_from_memory(std::string const& name, void const* data, std::size_t size,
                               MatrixMarketReadOptions const& options = MatrixMarketReadOptions(),
                               ExecutionSpace const& exec = ExecutionSpace()) {
  auto const target =
      detail::matrix_market_target<Scalar, ExecutionSpace, Ordinal, Offset>(options);
  return detail::matrix_market_to_crs_matrix<Scalar, ExecutionSpace, Ordinal, Offset>(
      name,
      detail::read_matrix_market_crs(detail::MatrixMarketInput::memory(name, data, size), target),
      exec);
}

/// Writes a CrsMatrix as "%%MatrixMarket matrix coordinate real general",
/// entries in CRS order, 1-based, with max_digits10 significant digits of the
/// matrix's Scalar so that write -> read round trips are bit-exact (NaN
/// payloads excepted). Compressed with gzip when path ends in ".gz".
/// Throws MatrixMarketError when the file cannot be created or written.
template <class Matrix>
void write_matrix_market(std::string const& path, Matrix const& A) {
  static_assert(is_crs_matrix_v<Matrix>, "write_matrix_market: Matrix must be a CrsMatrix");
  using Scalar = typename Matrix::value_type;
  // Values travel through double; wider types would be silently rounded.
  static_assert(std::numeric_limits<Scalar>::digits <= std::numeric_limits<double>::digits &&
                    std::numeric_limits<Scalar>::max_exponent <=
                        std::numeric_limits<double>::max_exponent,
                "write_matrix_market: Scalar must be exactly representable as double");

  auto row_starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto column_indices =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());

  std::int64_t const num_rows = A.num_rows();
  std::int64_t const nnz = static_cast<std::int64_t>(values.extent(0));
  detail::MatrixMarketWriter writer(path, num_rows, A.num_cols(), nnz,
                                    std::numeric_limits<Scalar>::max_digits10);

  // Convert in bounded chunks so the host never holds a 64-bit copy of A.
  constexpr std::size_t chunk = 1 << 16;
  std::vector<std::int64_t> chunk_rows, chunk_cols;
  std::vector<double> chunk_values;
  chunk_rows.reserve(chunk);
  chunk_cols.reserve(chunk);
  chunk_values.reserve(chunk);
  auto flush = [&]() {
    writer.write(chunk_rows.data(), chunk_cols.data(), chunk_values.data(), chunk_rows.size());
    chunk_rows.clear();
    chunk_cols.clear();
    chunk_values.clear();
  };
  for (std::int64_t i = 0; i < num_rows; ++i) {
    for (std::int64_t k = static_cast<std::int64_t>(row_starts(i));
         k < static_cast<std::int64_t>(row_starts(i + 1)); ++k) {
      chunk_rows.push_back(i);
      chunk_cols.push_back(static_cast<std::int64_t>(column_indices(k)));
      chunk_values.push_back(static_cast<double>(values(k)));
      if (chunk_rows.size() == chunk) flush();
    }
  }
  flush();
  writer.finish();
}

} // namespace spmvkit

#endif
