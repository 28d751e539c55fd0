#include <spmvkit/io/matrix_market.hpp>

#include <zlib.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit {
namespace detail {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string errno_message(int err, char const* fallback) {
  return err != 0 ? std::string(std::strerror(err)) : std::string(fallback);
}

std::string gz_error_message(gzFile file, int& code) {
  char const* msg = gzerror(file, &code);
  std::string text = msg != nullptr ? msg : "";
  switch (code) {
  case Z_BUF_ERROR:
    // zlib's wording for a gzip stream cut short, e.g. an interrupted download.
    return "gzip data truncated (unexpected end of compressed stream): " + text;
  case Z_DATA_ERROR: return "corrupt gzip data: " + text;
  case Z_MEM_ERROR: return "out of memory while decompressing";
  case Z_ERRNO: return "read/write error: " + text;
  default: return "zlib error " + std::to_string(code) + ": " + text;
  }
}

std::string format_bytes(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return os.str();
}

/// Hands out one line at a time from a gzip or plain file (zlib reads plain
/// files transparently). Lines are NUL-terminated in place with '\n' and a
/// trailing '\r' removed, so the tokenizer and strtod/strtoll can work on the
/// buffer directly without per-line allocations.
class LineReader {
public:
  explicit LineReader(std::string const& path) : path_(path), buffer_(1 << 18) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      throw MatrixMarketError(path_, 0, "cannot open: is a directory");
    }
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      throw MatrixMarketError(path_, 0, "cannot open: " + errno_message(errno, "gzopen failed"));
    }
    gzbuffer(file_, 1 << 17);
  }
  ~LineReader() {
    if (file_ != nullptr) gzclose(file_);
  }
  LineReader(LineReader const&) = delete;
  LineReader& operator=(LineReader const&) = delete;

  /// Number of the line most recently returned (1-based), 0 before the first.
  std::int64_t line() const { return line_; }

  bool next(char*& text, std::size_t& length) {
    for (;;) {
      char* const base = buffer_.data();
      void* const newline = std::memchr(base + begin_, '\n', end_ - begin_);
      if (newline != nullptr) {
        std::size_t const stop = static_cast<std::size_t>(static_cast<char*>(newline) - base);
        return emit(text, length, stop, stop + 1);
      }
      if (eof_) {
        // Lines decoded before a gzip error are valid and come first, so the
        // error is reported at the line that the damaged stream cut short.
        if (!pending_error_.empty()) throw MatrixMarketError(path_, line_ + 1, pending_error_);
        if (begin_ < end_) return emit(text, length, end_, end_);
        return false;
      }
      refill();
    }
  }

private:
  bool emit(char*& text, std::size_t& length, std::size_t stop, std::size_t next_begin) {
    text = buffer_.data() + begin_;
    length = stop - begin_;
    if (length > 0 && text[length - 1] == '\r') --length;
    // refill() keeps one byte spare, so stop == end_ is still inside buffer_.
    text[length] = '\0';
    begin_ = next_begin;
    ++line_;
    return true;
  }

  void refill() {
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ + 1 >= buffer_.size()) {
      // A line longer than the buffer: grow rather than split it.
      try {
        buffer_.resize(buffer_.size() * 2);
      } catch (std::bad_alloc const&) {
        throw MatrixMarketError(path_, line_ + 1, "out of memory: line too long");
      }
    }
    std::size_t const room = std::min<std::size_t>(buffer_.size() - 1 - end_, INT_MAX / 2);
    int const got = gzread(file_, buffer_.data() + end_, static_cast<unsigned>(room));
    if (got < 0 || static_cast<std::size_t>(got) < room) {
      // A short read is either the end of the data or an error; only gzerror
      // can tell a truncated or corrupt gzip stream from a clean end.
      int code = Z_OK;
      std::string const message = gz_error_message(file_, code);
      if (code != Z_OK && code != Z_STREAM_END) pending_error_ = message;
      eof_ = true;
    }
    if (got > 0) end_ += static_cast<std::size_t>(got);
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::string pending_error_;
  std::int64_t line_ = 0;
};

/// Splits a NUL-terminated line at whitespace, terminating each token in place.
/// Returns the total number of tokens; only the first max_tokens are stored.
int tokenize(char* text, char** tokens, std::size_t* lengths, int max_tokens) {
  int count = 0;
  char* p = text;
  for (;;) {
    while (*p != '\0' && is_space(*p)) ++p;
    if (*p == '\0') return count;
    char* const start = p;
    while (*p != '\0' && !is_space(*p)) ++p;
    bool const at_end = *p == '\0';
    if (count < max_tokens) {
      tokens[count] = start;
      lengths[count] = static_cast<std::size_t>(p - start);
    }
    ++count;
    if (at_end) return count;
    *p++ = '\0';
  }
}

bool is_skippable(char const* text) {
  while (*text != '\0' && is_space(*text)) ++text;
  return *text == '\0' || *text == '%';
}

bool parse_int(char const* token, std::size_t length, std::int64_t& out) {
  if (length == 0) return false;
  errno = 0;
  char* end = nullptr;
  long long const value = std::strtoll(token, &end, 10);
  if (end != token + length || errno == ERANGE) return false;
  out = static_cast<std::int64_t>(value);
  return true;
}

/// strtod over the whole token. Underflow to a subnormal or zero is a valid
/// reading of the text (and needed for exact round trips of subnormals);
/// overflow is not, since the file did not say "inf".
bool parse_real(char const* token, std::size_t length, double& out, bool& overflow) {
  overflow = false;
  if (length == 0) return false;
  errno = 0;
  char* end = nullptr;
  double const value = std::strtod(token, &end);
  if (end != token + length) return false;
  if (errno == ERANGE && std::isinf(value)) {
    overflow = true;
    return false;
  }
  out = value;
  return true;
}

constexpr char const* banner_hint =
    "expected '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'";

void parse_banner(std::string const& path, LineReader& reader, MatrixMarketInfo& info) {
  char* text = nullptr;
  std::size_t length = 0;
  if (!reader.next(text, length)) {
    throw MatrixMarketError(path, 1, std::string("empty file, ") + banner_hint);
  }
  if (length >= 3 && std::memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3; // UTF-8 BOM
  char* tokens[5];
  std::size_t lengths[5];
  int const count = tokenize(text, tokens, lengths, 5);
  if (count < 1 || lower(tokens[0]) != "%%matrixmarket") {
    throw MatrixMarketError(path, reader.line(),
                            std::string("missing Matrix Market banner, ") + banner_hint);
  }
  if (count != 5) {
    throw MatrixMarketError(path, reader.line(),
                            "bad banner: expected 5 fields, got " + std::to_string(count) + "; " +
                                banner_hint);
  }
  std::string const object = lower(tokens[1]);
  std::string const format = lower(tokens[2]);
  std::string const field = lower(tokens[3]);
  std::string const symmetry = lower(tokens[4]);
  if (object != "matrix") {
    throw MatrixMarketError(path, reader.line(),
                            "unsupported object '" + std::string(tokens[1]) +
                                "' in banner (only 'matrix' is supported)");
  }
  if (format == "array") {
    throw MatrixMarketError(path, reader.line(),
                            "array format not supported (only 'coordinate' is supported)");
  }
  if (format != "coordinate") {
    throw MatrixMarketError(path, reader.line(),
                            "unknown format '" + std::string(tokens[2]) +
                                "' in banner (expected 'coordinate')");
  }
  if (field == "real") {
    info.field = MatrixMarketInfo::Field::real;
  } else if (field == "integer") {
    info.field = MatrixMarketInfo::Field::integer;
  } else if (field == "pattern") {
    info.field = MatrixMarketInfo::Field::pattern;
  } else if (field == "complex") {
    throw MatrixMarketError(path, reader.line(),
                            "unsupported field 'complex' (supported: real, integer, pattern)");
  } else {
    throw MatrixMarketError(path, reader.line(),
                            "unknown field '" + std::string(tokens[3]) +
                                "' in banner (supported: real, integer, pattern)");
  }
  if (symmetry == "general") {
    info.symmetry = MatrixMarketInfo::Symmetry::general;
  } else if (symmetry == "symmetric") {
    info.symmetry = MatrixMarketInfo::Symmetry::symmetric;
  } else if (symmetry == "skew-symmetric" || symmetry == "hermitian") {
    throw MatrixMarketError(path, reader.line(),
                            "unsupported symmetry '" + symmetry +
                                "' (supported: general, symmetric)");
  } else {
    throw MatrixMarketError(path, reader.line(),
                            "unknown symmetry '" + std::string(tokens[4]) +
                                "' in banner (supported: general, symmetric)");
  }
}

void parse_size_line(std::string const& path, LineReader& reader, MatrixMarketInfo& info) {
  char* text = nullptr;
  std::size_t length = 0;
  do {
    if (!reader.next(text, length)) {
      throw MatrixMarketError(path, reader.line() + 1,
                              "file ends before the size line 'rows cols entries'");
    }
  } while (is_skippable(text));
  char* tokens[3];
  std::size_t lengths[3];
  int const count = tokenize(text, tokens, lengths, 3);
  if (count != 3) {
    throw MatrixMarketError(path, reader.line(),
                            "bad size line: expected 3 integers 'rows cols entries', got " +
                                std::to_string(count) + " tokens");
  }
  std::int64_t sizes[3];
  for (int t = 0; t < 3; ++t) {
    if (!parse_int(tokens[t], lengths[t], sizes[t])) {
      throw MatrixMarketError(path, reader.line(),
                              "bad size line: '" + std::string(tokens[t]) +
                                  "' is not a valid integer");
    }
    if (sizes[t] < 0) {
      throw MatrixMarketError(path, reader.line(),
                              "bad size line: negative size " + std::to_string(sizes[t]));
    }
  }
  info.rows = sizes[0];
  info.cols = sizes[1];
  info.entries = sizes[2];
  if (info.symmetry == MatrixMarketInfo::Symmetry::symmetric && info.rows != info.cols) {
    throw MatrixMarketError(path, reader.line(),
                            "bad size line: symmetric matrix must be square, got " +
                                std::to_string(info.rows) + " x " + std::to_string(info.cols));
  }
}

/// Refuses files whose declared size cannot fit in RAM before reserving, so a
/// corrupt or hostile size line gives a clear error instead of a swap storm or
/// the OOM killer. Counts the peak of read_matrix_market: the COO plus the
/// 64-bit CRS built from it.
void check_memory(std::string const& path, std::int64_t line, MatrixMarketInfo const& info) {
  double const expansion = info.symmetry == MatrixMarketInfo::Symmetry::symmetric ? 2.0 : 1.0;
  double const stored = static_cast<double>(info.entries) * expansion;
  double const coo_bytes = stored * (2.0 * sizeof(std::int64_t) + sizeof(double));
  double const crs_bytes = stored * (sizeof(std::int64_t) + sizeof(double)) +
                           (static_cast<double>(info.rows) + 1.0) * sizeof(std::int64_t);
  double const needed = coo_bytes + crs_bytes;
  long const pages = ::sysconf(_SC_PHYS_PAGES);
  long const page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return; // unknown: let the allocator decide
  double const available = static_cast<double>(pages) * static_cast<double>(page_size);
  if (needed > available) {
    std::ostringstream os;
    os.precision(15);
    os << "file declares " << info.entries << " entries (" << info.rows << " x " << info.cols
       << "); reading them needs about " << needed << " bytes (" << format_bytes(needed)
       << ") but only " << available << " bytes (" << format_bytes(available)
       << ") of physical memory exist";
    throw MatrixMarketError(path, line, os.str());
  }
}

} // namespace

MatrixMarketCoo read_matrix_market_coo(std::string const& path) {
  LineReader reader(path);
  MatrixMarketCoo coo;
  MatrixMarketInfo& info = coo.info;
  parse_banner(path, reader, info);
  parse_size_line(path, reader, info);
  check_memory(path, reader.line(), info);

  bool const symmetric = info.symmetry == MatrixMarketInfo::Symmetry::symmetric;
  try {
    auto const capacity = static_cast<std::size_t>(info.entries) * (symmetric ? 2 : 1);
    coo.rows.reserve(capacity);
    coo.cols.reserve(capacity);
    coo.values.reserve(capacity);
  } catch (std::exception const&) { // bad_alloc, or length_error beyond max_size()
    throw MatrixMarketError(path, reader.line(),
                            "out of memory reserving storage for " + std::to_string(info.entries) +
                                " declared entries");
  }

  bool const pattern = info.field == MatrixMarketInfo::Field::pattern;
  bool const integer = info.field == MatrixMarketInfo::Field::integer;
  int const expected_tokens = pattern ? 2 : 3;
  std::int64_t read = 0;
  char* text = nullptr;
  std::size_t length = 0;
  char* tokens[3];
  std::size_t lengths[3];
  while (reader.next(text, length)) {
    if (is_skippable(text)) continue;
    std::int64_t const line = reader.line();
    if (read == info.entries) {
      throw MatrixMarketError(path, line,
                              "more entries than declared: the size line declares " +
                                  std::to_string(info.entries));
    }
    int const count = tokenize(text, tokens, lengths, 3);
    if (count != expected_tokens) {
      throw MatrixMarketError(path, line,
                              "expected " + std::to_string(expected_tokens) +
                                  " entries per line, got " + std::to_string(count));
    }
    std::int64_t row = 0;
    std::int64_t col = 0;
    if (!parse_int(tokens[0], lengths[0], row)) {
      throw MatrixMarketError(path, line,
                              "row index '" + std::string(tokens[0]) + "' is not a valid integer");
    }
    if (!parse_int(tokens[1], lengths[1], col)) {
      throw MatrixMarketError(
          path, line, "column index '" + std::string(tokens[1]) + "' is not a valid integer");
    }
    if (row < 1 || row > info.rows) {
      throw MatrixMarketError(path, line,
                              "row index " + std::to_string(row) + " out of range 1.." +
                                  std::to_string(info.rows));
    }
    if (col < 1 || col > info.cols) {
      throw MatrixMarketError(path, line,
                              "column index " + std::to_string(col) + " out of range 1.." +
                                  std::to_string(info.cols));
    }
    double value = 1.0;
    if (integer) {
      std::int64_t integer_value = 0;
      if (!parse_int(tokens[2], lengths[2], integer_value)) {
        throw MatrixMarketError(path, line,
                                "value '" + std::string(tokens[2]) +
                                    "' is not a valid integer (field is 'integer')");
      }
      value = static_cast<double>(integer_value);
    } else if (!pattern) {
      bool overflow = false;
      if (!parse_real(tokens[2], lengths[2], value, overflow)) {
        throw MatrixMarketError(path, line,
                                "value '" + std::string(tokens[2]) +
                                    (overflow ? "' overflows double" : "' is not a valid number"));
      }
    }
    // Capacity was reserved for the declared count (twice for symmetric), and
    // the check above stops at that count, so these never reallocate.
    coo.rows.push_back(row - 1);
    coo.cols.push_back(col - 1);
    coo.values.push_back(value);
    if (symmetric && row != col) {
      coo.rows.push_back(col - 1);
      coo.cols.push_back(row - 1);
      coo.values.push_back(value);
    }
    ++read;
  }
  if (read < info.entries) {
    throw MatrixMarketError(path, reader.line() + 1,
                            "file ends after " + std::to_string(read) + " of " +
                                std::to_string(info.entries) + " entries");
  }
  return coo;
}

MatrixMarketCrs matrix_market_coo_to_crs(std::string const& path, MatrixMarketCoo&& coo_in) {
  MatrixMarketCoo coo = std::move(coo_in);
  MatrixMarketCrs crs;
  crs.info = coo.info;
  std::size_t const n = coo.rows.size();
  auto const num_rows = static_cast<std::size_t>(coo.info.rows);
  try {
    // Counting sort by row; it is stable, so each row keeps file order.
    crs.row_starts.assign(num_rows + 1, 0);
    for (std::int64_t r : coo.rows) ++crs.row_starts[static_cast<std::size_t>(r) + 1];
    for (std::size_t i = 0; i < num_rows; ++i) crs.row_starts[i + 1] += crs.row_starts[i];
    crs.cols.resize(n);
    crs.values.resize(n);
    // row_starts[r] doubles as the insertion cursor of row r and is shifted
    // back afterwards, saving a second rows-sized array.
    for (std::size_t k = 0; k < n; ++k) {
      auto const pos =
          static_cast<std::size_t>(crs.row_starts[static_cast<std::size_t>(coo.rows[k])]++);
      crs.cols[pos] = coo.cols[k];
      crs.values[pos] = coo.values[k];
    }
    for (std::size_t i = num_rows; i > 0; --i) crs.row_starts[i] = crs.row_starts[i - 1];
    crs.row_starts[0] = 0;
    coo = MatrixMarketCoo(); // free the COO before more work

    // Sort each row by column (stable: duplicates are summed in file order) and
    // sum duplicates, compacting in place.
    std::vector<std::pair<std::int64_t, double>> scratch;
    std::size_t out = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < num_rows; ++i) {
      auto const end = static_cast<std::size_t>(crs.row_starts[i + 1]);
      if (!std::is_sorted(crs.cols.begin() + static_cast<std::ptrdiff_t>(start),
                          crs.cols.begin() + static_cast<std::ptrdiff_t>(end))) {
        scratch.clear();
        for (std::size_t k = start; k < end; ++k) scratch.emplace_back(crs.cols[k], crs.values[k]);
        std::stable_sort(scratch.begin(), scratch.end(),
                         [](auto const& a, auto const& b) { return a.first < b.first; });
        for (std::size_t k = start; k < end; ++k) {
          crs.cols[k] = scratch[k - start].first;
          crs.values[k] = scratch[k - start].second;
        }
      }
      std::size_t const row_begin = out;
      for (std::size_t k = start; k < end; ++k) {
        if (out > row_begin && crs.cols[out - 1] == crs.cols[k]) {
          crs.values[out - 1] += crs.values[k];
        } else {
          crs.cols[out] = crs.cols[k];
          crs.values[out] = crs.values[k];
          ++out;
        }
      }
      crs.row_starts[i + 1] = static_cast<std::int64_t>(out);
      start = end;
    }
    if (out < n) {
      crs.cols.resize(out);
      crs.values.resize(out);
      crs.cols.shrink_to_fit();
      crs.values.shrink_to_fit();
    }
  } catch (std::bad_alloc const&) {
    throw MatrixMarketError(path, 0,
                            "out of memory converting " + std::to_string(n) + " entries to CRS");
  }
  return crs;
}

MatrixMarketCrs read_matrix_market_crs(std::string const& path) {
  return matrix_market_coo_to_crs(path, read_matrix_market_coo(path));
}

// ---------------------------------------------------------------------------

MatrixMarketWriter::MatrixMarketWriter(std::string const& path, std::int64_t rows,
                                       std::int64_t cols, std::int64_t nnz, int digits)
    : path_(path), expected_(nnz), digits_(std::max(1, std::min(digits, 40))) {
  if (rows < 0 || cols < 0 || nnz < 0) {
    throw MatrixMarketError(path_, 0, "cannot write a matrix with negative dimensions");
  }
  bool const compress = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  errno = 0;
  // "T" writes plain text through the same gz* calls, so error handling is shared.
  gzFile file = gzopen(path.c_str(), compress ? "wb6" : "wbT");
  if (file == nullptr) {
    throw MatrixMarketError(path_, 0,
                            "cannot open for writing: " + errno_message(errno, "gzopen failed"));
  }
  file_ = file;
  gzbuffer(file, 1 << 17);
  buffer_.reserve(1 << 20);
  buffer_ = "%%MatrixMarket matrix coordinate real general\n% written by SpMVKit\n" +
            std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(nnz) + "\n";
}

MatrixMarketWriter::~MatrixMarketWriter() {
  if (file_ != nullptr) gzclose(static_cast<gzFile>(file_));
}

void MatrixMarketWriter::write(std::int64_t const* rows, std::int64_t const* cols,
                               double const* values, std::size_t n) {
  if (file_ == nullptr) throw MatrixMarketError(path_, 0, "write after finish()");
  char line[128];
  for (std::size_t k = 0; k < n; ++k) {
    int const length =
        std::snprintf(line, sizeof line, "%lld %lld %.*g\n", static_cast<long long>(rows[k] + 1),
                      static_cast<long long>(cols[k] + 1), digits_, values[k]);
    buffer_.append(line, static_cast<std::size_t>(length));
    if (buffer_.size() >= (1 << 20)) flush_buffer();
  }
  written_ += static_cast<std::int64_t>(n);
}

void MatrixMarketWriter::flush_buffer() {
  if (buffer_.empty()) return;
  auto* const file = static_cast<gzFile>(file_);
  int const written = gzwrite(file, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (written <= 0 || static_cast<std::size_t>(written) != buffer_.size()) {
    int code = Z_OK;
    std::string const message = gz_error_message(file, code);
    gzclose(file);
    file_ = nullptr;
    throw MatrixMarketError(path_, 0, "write failed: " + message);
  }
  buffer_.clear();
}

void MatrixMarketWriter::finish() {
  if (file_ == nullptr) throw MatrixMarketError(path_, 0, "finish() called twice");
  flush_buffer();
  auto* const file = static_cast<gzFile>(file_);
  file_ = nullptr;
  if (written_ != expected_) {
    gzclose(file);
    throw MatrixMarketError(path_, 0,
                            "wrote " + std::to_string(written_) +
                                " entries but the size line declares " + std::to_string(expected_) +
                                " (row_starts inconsistent with the values View?)");
  }
  errno = 0;
  int const status = gzclose(file);
  if (status != Z_OK) {
    // Buffered data is flushed here, so a full disk often shows up only now.
    throw MatrixMarketError(path_, 0,
                            "write failed while closing: " +
                                (status == Z_ERRNO ? errno_message(errno, "I/O error")
                                                   : "zlib error " + std::to_string(status)));
  }
}

} // namespace detail
} // namespace spmvkit
