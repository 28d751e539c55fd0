#ifndef SPMVKIT_MATRIX_MARKET_HPP
#define SPMVKIT_MATRIX_MARKET_HPP

#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <Kokkos_Core.hpp>

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
  MatrixMarketError(std::string const& file, std::int64_t line, std::string const& what)
      : std::runtime_error(format(file, line, what)), file_(file), line_(line) {}

  std::string const& file() const noexcept { return file_; }
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
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;
  enum class Field { real, integer, pattern } field = Field::real;
  enum class Symmetry { general, symmetric } symmetry = Symmetry::general;
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

/// Parses a coordinate Matrix Market file, plain or gzip-compressed.
///
/// Accepted: fields real, integer (stored exactly up to 2^53) and pattern
/// (value 1); symmetries general and symmetric. For symmetric files every
/// off-diagonal entry (i, j) also yields (j, i). The format asks for the lower
/// triangle only, but an entry above the diagonal is accepted and mirrored the
/// same way, so a symmetric file listing both triangles ends up with doubled
/// off-diagonal values once duplicates are summed.
/// Values are parsed with strtod in the C locale's number syntax, so "nan",
/// "inf", "infinity" (any case, signed) and hexadecimal floats are accepted as
/// the doubles they denote; finite values beyond the double range are
/// rejected rather than silently turned into infinities.
/// Comment lines ('%'), blank lines, CRLF line endings and banner keywords in
/// any case are accepted. Explicit zeros are kept as stored entries.
/// Throws MatrixMarketError naming the file and line on any error.
MatrixMarketCoo read_matrix_market_coo(std::string const& path);

/// Sorts a COO into CRS (counting sort by row, then by column within each row,
/// stable so duplicates are summed in file order). Consumes coo to release its
/// memory before the caller allocates the final matrix.
MatrixMarketCrs matrix_market_coo_to_crs(std::string const& path, MatrixMarketCoo&& coo);

/// read_matrix_market_coo followed by matrix_market_coo_to_crs.
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
    return Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label()), view.extent(0));
  }
}

} // namespace detail

/// Reads a coordinate Matrix Market file (plain or gzip) into a CrsMatrix
/// allocated on exec's memory space, labelled with the file name.
///
/// The matrix is assembled on the host: columns come out in ascending order
/// within each row and duplicate (row, column) entries are SUMMED, which is how
/// finite-element style files with repeated entries are meant to be read.
/// Symmetric files are expanded to both triangles (see read_matrix_market_coo
/// for exactly which inputs are accepted). Values are converted from double to
/// Scalar. Throws MatrixMarketError on malformed input or when the matrix does
/// not fit Ordinal/Offset, AllocationError when the final Views cannot be
/// allocated.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
read_matrix_market(std::string const& path, ExecutionSpace const& exec = ExecutionSpace()) {
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  detail::MatrixMarketCrs crs = detail::read_matrix_market_crs(path);
  auto const nnz = static_cast<std::int64_t>(crs.values.size());
  detail::matrix_market_index<Ordinal>(path, crs.info.rows, "num_rows");
  detail::matrix_market_index<Ordinal>(path, crs.info.cols, "num_cols");
  detail::matrix_market_index<Offset>(path, nnz, "nnz");
  detail::matrix_market_index<Offset>(path, crs.info.rows, "num_rows");

  Matrix A(path, crs.info.rows, crs.info.cols, nnz, exec);
  auto row_starts = detail::matrix_market_host_staging(A.row_starts());
  auto column_indices = detail::matrix_market_host_staging(A.column_indices());
  auto values = detail::matrix_market_host_staging(A.values());
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
  return A;
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
