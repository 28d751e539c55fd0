// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <spmvkit/io/matrix_market.hpp>

#include <spmvkit/core/memory_limit.hpp>

#include <zlib.h>

#include <fcntl.h>
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
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit {
namespace detail {
namespace {

char const* const where = "spmvkit::read_matrix_market";

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

/// Bytes of an offending token that error messages quote.
constexpr std::size_t quote_limit = 40;

/// A token for an error message: in single quotes, at most quote_limit bytes
/// of it (then "..." and its length), bytes outside printable ASCII as \xNN,
/// so that a 10 MB bad number gives a one-line message.
std::string quote(char const* token, std::size_t length) {
  std::string out = "'";
  std::size_t const shown = std::min(length, quote_limit);
  for (std::size_t i = 0; i < shown; ++i) {
    auto const c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  if (length > shown) {
    out += "...' (" + std::to_string(length) + " bytes)";
  } else {
    out += "'";
  }
  return out;
}

/// "1.5 GiB" style rendering of a byte count for messages.
std::string human_bytes(byte_count bytes) {
  char const* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  std::ostringstream os;
  os.precision(unit == 0 ? 20 : 3);
  os << value << ' ' << units[unit];
  return os.str();
}

std::string number(double value) {
  std::ostringstream os;
  os.precision(9);
  os << value;
  return os.str();
}

// --- bytes in ------------------------------------------------------------------

/// A heap buffer that is not zero-filled, so that only the pages actually
/// written are ever touched (a 100-byte input costs one page, not the whole
/// buffer). grow() keeps the first `keep` bytes.
template <class T>
class RawBuffer {
public:
  explicit RawBuffer(std::size_t size) : data_(new T[size]), size_(size) {}
  T* data() { return data_.get(); }
  T const* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  void grow(std::size_t size, std::size_t keep) {
    std::unique_ptr<T[]> bigger(new T[size]);
    if (keep > 0) std::memcpy(bigger.get(), data_.get(), keep * sizeof(T));
    data_ = std::move(bigger);
    size_ = size;
  }

private:
  std::unique_ptr<T[]> data_;
  std::size_t size_;
};

/// The raw bytes of the input: a file read with read(2), or a caller's buffer.
class ByteSource {
public:
  explicit ByteSource(MatrixMarketInput const& input) : name_(input.name) {
    if (input.in_memory) {
      memory_ = true;
      data_ = static_cast<unsigned char const*>(input.data);
      size_ = data_ != nullptr ? input.size : 0;
      return;
    }
    struct stat st;
    if (::stat(name_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      throw MatrixMarketError(name_, 0, "cannot open: is a directory");
    }
    fd_ = ::open(name_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw MatrixMarketError(name_, 0, "cannot open: " + errno_message(errno, "open failed"));
    }
  }
  ~ByteSource() {
    if (fd_ >= 0) ::close(fd_);
  }
  ByteSource(ByteSource const&) = delete;
  ByteSource& operator=(ByteSource const&) = delete;

  /// The whole input when it is in memory (then read() is not needed).
  bool in_memory(unsigned char const*& data, std::size_t& size) const {
    data = data_;
    size = size_;
    return memory_;
  }

  /// Up to n bytes into dst; 0 at the end of the input. A read error returns
  /// 0 and sets error.
  std::size_t read(unsigned char* dst, std::size_t n, std::string& error) {
    if (memory_) {
      std::size_t const k = std::min(n, size_ - position_);
      if (k > 0) std::memcpy(dst, data_ + position_, k);
      position_ += k;
      return k;
    }
    for (;;) {
      ssize_t const got = ::read(fd_, dst, std::min<std::size_t>(n, INT_MAX / 2));
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno == EINTR) continue;
      error = "read error: " + errno_message(errno, "read failed");
      return 0;
    }
  }

private:
  std::string name_;
  int fd_ = -1;
  bool memory_ = false;
  unsigned char const* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t position_ = 0;
};

/// Decoded bytes of the input: passed through when the input does not start
/// with the gzip magic bytes 1f 8b, inflated otherwise. Concatenated gzip
/// members are read one after the other (RFC 1952, and what gzip -d does);
/// anything else after the end of a member is an error ("trailing garbage",
/// which zlib's gzread would silently ignore), as are truncated and corrupt
/// streams.
class Decoder {
public:
  explicit Decoder(MatrixMarketInput const& input) : source_(input) {
    // A caller's buffer is decoded where it is; a file goes through owned_.
    std::size_t size = 0;
    if (source_.in_memory(in_, size)) {
      in_end_ = size;
      source_eof_ = true;
      consumed_before_ = size;
    } else {
      owned_ = std::make_unique<RawBuffer<unsigned char>>(std::size_t(1) << 16);
      in_ = owned_->data();
    }
  }
  ~Decoder() {
    if (inflating_) inflateEnd(&zs_);
  }
  Decoder(Decoder const&) = delete;
  Decoder& operator=(Decoder const&) = delete;

  /// Up to n decoded bytes into dst; 0 at the end. On an error, error is set;
  /// the bytes decoded before it are still returned, later calls return 0.
  std::size_t read(char* dst, std::size_t n, std::string& error) {
    if (mode_ == Mode::done || n == 0) return 0;
    if (mode_ == Mode::unknown) {
      if (!fill(2, error)) return finish(0);
      if (available() >= 2 && is_gzip_magic()) {
        if (inflateInit2(&zs_, 15 + 16) != Z_OK) {
          error = "out of memory initialising zlib";
          return finish(0);
        }
        inflating_ = true;
        gzip_ = true;
        mode_ = Mode::gzip;
      } else {
        mode_ = Mode::plain;
      }
    }
    return mode_ == Mode::plain ? read_plain(dst, n, error) : read_gzip(dst, n, error);
  }

  /// Whether the input is gzip-compressed (known after the first read).
  bool gzip() const { return gzip_; }

private:
  enum class Mode { unknown, plain, gzip, done };

  std::size_t available() const { return in_end_ - in_begin_; }
  bool is_gzip_magic() const { return in_[in_begin_] == 0x1f && in_[in_begin_ + 1] == 0x8b; }
  std::size_t finish(std::size_t produced) {
    mode_ = Mode::done;
    return produced;
  }

  /// Makes at least `want` bytes available unless the input ends first.
  bool fill(std::size_t want, std::string& error) {
    if (available() >= want || source_eof_) return true;
    unsigned char* const buffer = owned_->data();
    if (in_begin_ > 0) {
      std::memmove(buffer, buffer + in_begin_, available());
      in_end_ -= in_begin_;
      in_begin_ = 0;
    }
    while (available() < want && !source_eof_) {
      std::size_t const got = source_.read(buffer + in_end_, owned_->size() - in_end_, error);
      if (!error.empty()) return false;
      if (got == 0) source_eof_ = true;
      in_end_ += got;
      consumed_before_ += got;
    }
    return true;
  }

  std::size_t read_plain(char* dst, std::size_t n, std::string& error) {
    if (available() > 0) {
      std::size_t const k = std::min(n, available());
      std::memcpy(dst, in_ + in_begin_, k);
      in_begin_ += k;
      return k;
    }
    if (source_eof_) return finish(0);
    std::size_t const got = source_.read(reinterpret_cast<unsigned char*>(dst), n, error);
    if (got == 0) return finish(0);
    return got;
  }

  std::size_t read_gzip(char* dst, std::size_t n, std::string& error) {
    for (;;) {
      if (available() == 0 && !source_eof_ && !fill(1, error)) return finish(0);
      zs_.next_in = const_cast<Bytef*>(in_ + in_begin_); // zlib does not write it
      zs_.avail_in = static_cast<uInt>(std::min<std::size_t>(available(), UINT_MAX));
      zs_.next_out = reinterpret_cast<Bytef*>(dst);
      zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX));
      uInt const out_before = zs_.avail_out;
      uInt const in_before = zs_.avail_in;
      int const status = inflate(&zs_, Z_NO_FLUSH);
      in_begin_ += in_before - zs_.avail_in;
      std::size_t const produced = out_before - zs_.avail_out;
      if (status == Z_STREAM_END) {
        // A member ended: the input ends here, or another member follows.
        if (!fill(2, error)) return finish(produced);
        if (available() == 0) return finish(produced);
        if (available() >= 2 && is_gzip_magic()) {
          inflateReset(&zs_);
          if (produced > 0) return produced;
          continue;
        }
        error = "data after the end of the gzip stream at compressed byte " +
                std::to_string(consumed_before_ - available()) +
                " is not another gzip member (trailing garbage; the file may be damaged)";
        return finish(produced);
      }
      if (status == Z_OK || status == Z_BUF_ERROR) {
        if (produced > 0) return produced;
        if (available() == 0 && source_eof_) {
          error = "gzip data truncated (unexpected end of compressed stream)";
          return finish(0);
        }
        if (in_before == zs_.avail_in && available() > 0) {
          error = "zlib made no progress (error " + std::to_string(status) + ")";
          return finish(0);
        }
        continue;
      }
      if (status == Z_MEM_ERROR) {
        error = "out of memory while decompressing";
      } else {
        error = std::string("corrupt gzip data: ") + (zs_.msg != nullptr ? zs_.msg : "zlib error");
      }
      return finish(produced);
    }
  }

  ByteSource source_;
  std::unique_ptr<RawBuffer<unsigned char>> owned_;
  unsigned char const* in_ = nullptr; // owned_'s data, or the caller's buffer
  std::size_t in_begin_ = 0;
  std::size_t in_end_ = 0;
  bool source_eof_ = false;
  /// Bytes read from the source so far (the compressed offset of in_end_).
  std::uint64_t consumed_before_ = 0;
  Mode mode_ = Mode::unknown;
  z_stream zs_{};
  bool inflating_ = false;
  bool gzip_ = false;
};

/// Hands out one line at a time. Lines are NUL-terminated in place with '\n'
/// and a trailing '\r' removed, so the tokenizer and strtod/strtoll can work on
/// the buffer directly without per-line allocations. Rejects lines longer than
/// matrix_market_max_line_length (without reading more than that much of
/// them), NUL bytes and CR-only line ends.
class LineReader {
public:
  explicit LineReader(MatrixMarketInput const& input)
      : name_(input.name), decoder_(input), buffer_(initial_size) {}

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
        if (!pending_error_.empty()) throw MatrixMarketError(name_, line_ + 1, pending_error_);
        if (begin_ < end_) return emit(text, length, end_, end_);
        return false;
      }
      refill();
    }
  }

  /// After a parse error in a gzip file: a bit flipped in the compressed
  /// data decodes to wrong text, and only the CRC at the member's end tells.
  /// Rethrows `parse_error` as the gzip error when decoding the rest of the
  /// input (discarded) fails; returns otherwise.
  void throw_if_stream_damaged(MatrixMarketError const& parse_error) {
    if (!decoder_.gzip()) return;
    std::string error = pending_error_;
    std::vector<char> scratch(std::size_t(1) << 16);
    while (error.empty() && decoder_.read(scratch.data(), scratch.size(), error) > 0) {
    }
    std::string const prefix = MatrixMarketError(name_, parse_error.line(), "").what();
    std::string const symptom = std::string(parse_error.what()).substr(prefix.size());
    if (error.empty() || symptom == error) return; // intact, or already the gzip error
    throw MatrixMarketError(
        name_, parse_error.line(),
        error + " (the decompressed text is damaged; its first symptom: " + symptom + ")");
  }

private:
  static constexpr std::size_t initial_size = std::size_t(1) << 16;
  // The longest line, its CR and LF, and the spare byte of emit().
  static constexpr std::size_t max_size = matrix_market_max_line_length + 3;

  /// Throws "CR line endings" when a CR inside [text, text + length) is
  /// followed by more than whitespace, i.e. separates lines.
  void check_cr(char const* text, std::size_t length) const {
    auto const* cr = static_cast<char const*>(std::memchr(text, '\r', length));
    if (cr == nullptr) return;
    for (char const* p = cr; p < text + length; ++p) {
      if (!is_space(*p)) {
        throw MatrixMarketError(name_, line_ + 1,
                                "CR line endings (classic Mac OS) are not supported: a CR at "
                                "column " +
                                    std::to_string(cr - text + 1) +
                                    " is followed by more text; convert the file to LF or CRLF "
                                    "line endings");
      }
    }
  }

  [[noreturn]] void line_too_long(std::size_t seen) const {
    check_cr(buffer_.data() + begin_, std::min(seen, end_ - begin_));
    throw MatrixMarketError(
        name_, line_ + 1,
        "line longer than " + std::to_string(matrix_market_max_line_length) +
            " bytes (matrix_market_max_line_length); not a Matrix Market file?");
  }

  bool emit(char*& text, std::size_t& length, std::size_t stop, std::size_t next_begin) {
    text = buffer_.data() + begin_;
    length = stop - begin_;
    if (length > 0 && text[length - 1] == '\r') --length;
    if (length > matrix_market_max_line_length) line_too_long(length);
    if (void const* nul = std::memchr(text, '\0', length); nul != nullptr) {
      throw MatrixMarketError(name_, line_ + 1,
                              "NUL byte at column " +
                                  std::to_string(static_cast<char const*>(nul) - text + 1) +
                                  " (binary data, or a UTF-16 file?)");
    }
    check_cr(text, length);
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
    // The partial line in the buffer has no line end yet (its last byte may
    // be the CR of a CRLF).
    if (end_ > matrix_market_max_line_length + 1) line_too_long(end_);
    if (end_ + 1 >= buffer_.size()) {
      // Grow rather than split the line, up to the longest line allowed.
      try {
        buffer_.grow(std::min(buffer_.size() * 2, max_size), end_);
      } catch (std::bad_alloc const&) {
        throw MatrixMarketError(name_, line_ + 1, "out of memory: line too long");
      }
    }
    std::string error;
    std::size_t const got = decoder_.read(buffer_.data() + end_, buffer_.size() - 1 - end_, error);
    end_ += got;
    if (!error.empty()) {
      pending_error_ = error;
      eof_ = true;
    } else if (got == 0) {
      eof_ = true;
    }
  }

  std::string name_;
  Decoder decoder_;
  RawBuffer<char> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::string pending_error_;
  std::int64_t line_ = 0;
};

// --- tokens ----------------------------------------------------------------------

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

enum class RealStatus { ok, invalid, overflow, underflow };

/// strtod over the whole token. Overflow is an error (the file did not say
/// "inf"); underflow to a subnormal is a valid reading of the text (and needed
/// for exact round trips of subnormals), underflow of nonzero text to zero is
/// reported as such.
RealStatus parse_real(char const* token, std::size_t length, double& out) {
  if (length == 0) return RealStatus::invalid;
  errno = 0;
  char* end = nullptr;
  double const value = std::strtod(token, &end);
  if (end != token + length) return RealStatus::invalid;
  out = value;
  if (errno == ERANGE && std::isinf(value)) return RealStatus::overflow;
  if (errno == ERANGE && value == 0.0) return RealStatus::underflow;
  return RealStatus::ok;
}

// --- header ----------------------------------------------------------------------

constexpr char const* banner_hint =
    "expected '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'";

void parse_banner(std::string const& name, LineReader& reader, MatrixMarketInfo& info) {
  char* text = nullptr;
  std::size_t length = 0;
  if (!reader.next(text, length)) {
    throw MatrixMarketError(name, 1, std::string("empty file, ") + banner_hint);
  }
  if (length >= 3 && std::memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3; // UTF-8 BOM
  char* tokens[5];
  std::size_t lengths[5];
  int const count = tokenize(text, tokens, lengths, 5);
  if (count < 1 || lengths[0] > 64 || lower(tokens[0]) != "%%matrixmarket") {
    throw MatrixMarketError(name, reader.line(),
                            std::string("missing Matrix Market banner, ") + banner_hint);
  }
  if (count != 5) {
    throw MatrixMarketError(name, reader.line(),
                            "bad banner: expected 5 fields, got " + std::to_string(count) + "; " +
                                banner_hint);
  }
  // Keywords longer than any valid one are unknown whatever their case.
  auto keyword = [&](int t) {
    return lengths[t] > 32 ? std::string() : lower(std::string(tokens[t], lengths[t]));
  };
  std::string const object = keyword(1);
  std::string const format = keyword(2);
  std::string const field = keyword(3);
  std::string const symmetry = keyword(4);
  if (object != "matrix") {
    throw MatrixMarketError(name, reader.line(),
                            "unsupported object " + quote(tokens[1], lengths[1]) +
                                " in banner (only 'matrix' is supported)");
  }
  if (format == "array") {
    throw MatrixMarketError(name, reader.line(),
                            "array format not supported (only 'coordinate' is supported)");
  }
  if (format != "coordinate") {
    throw MatrixMarketError(name, reader.line(),
                            "unknown format " + quote(tokens[2], lengths[2]) +
                                " in banner (expected 'coordinate')");
  }
  if (field == "real") {
    info.field = MatrixMarketInfo::Field::real;
  } else if (field == "integer") {
    info.field = MatrixMarketInfo::Field::integer;
  } else if (field == "pattern") {
    info.field = MatrixMarketInfo::Field::pattern;
  } else if (field == "complex") {
    throw MatrixMarketError(name, reader.line(),
                            "unsupported field 'complex' (supported: real, integer, pattern)");
  } else {
    throw MatrixMarketError(name, reader.line(),
                            "unknown field " + quote(tokens[3], lengths[3]) +
                                " in banner (supported: real, integer, pattern)");
  }
  if (symmetry == "general") {
    info.symmetry = MatrixMarketInfo::Symmetry::general;
  } else if (symmetry == "symmetric") {
    info.symmetry = MatrixMarketInfo::Symmetry::symmetric;
  } else if (symmetry == "skew-symmetric" || symmetry == "hermitian") {
    throw MatrixMarketError(name, reader.line(),
                            "unsupported symmetry '" + symmetry +
                                "' (supported: general, symmetric)");
  } else {
    throw MatrixMarketError(name, reader.line(),
                            "unknown symmetry " + quote(tokens[4], lengths[4]) +
                                " in banner (supported: general, symmetric)");
  }
}

void parse_size_line(std::string const& name, LineReader& reader, MatrixMarketInfo& info) {
  char* text = nullptr;
  std::size_t length = 0;
  do {
    if (!reader.next(text, length)) {
      throw MatrixMarketError(name, reader.line() + 1,
                              "file ends before the size line 'rows cols entries'");
    }
  } while (is_skippable(text));
  char* tokens[3];
  std::size_t lengths[3];
  int const count = tokenize(text, tokens, lengths, 3);
  if (count != 3) {
    throw MatrixMarketError(name, reader.line(),
                            "bad size line: expected 3 integers 'rows cols entries', got " +
                                std::to_string(count) + " tokens");
  }
  std::int64_t sizes[3];
  for (int t = 0; t < 3; ++t) {
    if (!parse_int(tokens[t], lengths[t], sizes[t])) {
      throw MatrixMarketError(name, reader.line(),
                              "bad size line: " + quote(tokens[t], lengths[t]) +
                                  " is not a valid integer");
    }
    if (sizes[t] < 0) {
      throw MatrixMarketError(name, reader.line(),
                              "bad size line: negative size " + std::to_string(sizes[t]));
    }
  }
  info.rows = sizes[0];
  info.cols = sizes[1];
  info.entries = sizes[2];
  if (info.symmetry == MatrixMarketInfo::Symmetry::symmetric && info.rows != info.cols) {
    throw MatrixMarketError(name, reader.line(),
                            "bad size line: symmetric matrix must be square, got " +
                                std::to_string(info.rows) + " x " + std::to_string(info.cols));
  }
}

// --- limits before allocating ------------------------------------------------------

/// The declared sizes against the target's index types, before anything is
/// allocated (a row count beyond Ordinal must not first zero a huge array).
/// The nnz after expansion and summing, known only at the end, is checked
/// again when the matrix is built.
void check_declared_sizes(std::string const& name, std::int64_t line, MatrixMarketInfo const& info,
                          MatrixMarketTarget const& target) {
  auto too_big = [&](char const* what, std::int64_t value, int bits, std::int64_t max,
                     char const* type) {
    throw MatrixMarketError(name, line,
                            std::string(what) + " = " + std::to_string(value) +
                                " does not fit the " + std::to_string(bits) + "-bit " + type +
                                " index type (max " + std::to_string(max) +
                                "); read with a wider " + type + " template argument");
  };
  if (info.rows > target.max_ordinal) {
    too_big("num_rows", info.rows, target.ordinal_bits, target.max_ordinal, "Ordinal");
  }
  if (info.cols > target.max_ordinal) {
    too_big("num_cols", info.cols, target.ordinal_bits, target.max_ordinal, "Ordinal");
  }
  if (info.rows > target.max_offset) { // row_starts(num_rows) must be representable
    too_big("num_rows", info.rows, target.offset_bits, target.max_offset, "Offset");
  }
  if (info.entries > target.max_offset) {
    too_big("declared entries", info.entries, target.offset_bits, target.max_offset, "Offset");
  }
}

/// Host bytes alive at the peak of a read, from the declared sizes.
struct MemoryEstimate {
  byte_count stored = 0;   // entries after symmetric expansion (upper bound)
  byte_count triplets = 0; // the COO: 64-bit row, 64-bit column, double value
  byte_count crs64 = 0;    // the 64-bit CRS built from it
  byte_count matrix = 0;   // the CrsMatrix, or its host staging copy
  byte_count buffers = 0;  // line buffer, compressed input, zlib state
  byte_count peak = 0;
};

/// Buffers of LineReader and Decoder and zlib's inflate state, rounded up.
constexpr byte_count io_buffer_bytes = byte_count(2) << 20;

MemoryEstimate estimate_memory(MatrixMarketInfo const& info, MatrixMarketTarget const& target) {
  MemoryEstimate e;
  bool const symmetric = info.symmetry == MatrixMarketInfo::Symmetry::symmetric;
  e.stored = checked_bytes(info.entries, symmetric ? 2 : 1, "stored entries", where);
  auto const stored = static_cast<std::int64_t>(e.stored); // <= max_byte_count <= INT64_MAX
  std::int64_t const row_starts = checked_extent_plus_one(info.rows, "num_rows", where);
  e.triplets = checked_bytes(stored, 2 * sizeof(std::int64_t) + sizeof(double), "triplets", where);
  e.crs64 = checked_add(
      checked_bytes(stored, sizeof(std::int64_t) + sizeof(double), "CRS entries", where),
      checked_bytes(row_starts, sizeof(std::int64_t), "CRS row_starts", where), "CRS", where);
  e.matrix = checked_add(
      checked_bytes(stored, target.ordinal_bytes + target.scalar_bytes, "CrsMatrix entries", where),
      checked_bytes(row_starts, target.offset_bytes, "CrsMatrix row_starts", where), "CrsMatrix",
      where);
  e.buffers = io_buffer_bytes;
  // Reading holds the triplets; sorting holds triplets and CRS (then the CRS
  // and at most one row's scratch); building the matrix holds CRS and matrix.
  byte_count const sorting = checked_add(e.triplets, e.crs64, "sorting peak", where);
  byte_count const building = checked_add(e.crs64, e.matrix, "building peak", where);
  e.peak = checked_add(std::max(sorting, building), e.buffers, "peak", where);
  return e;
}

/// The memory limit of a read (core/memory_limit.hpp: the one reader of
/// SPMVKIT_MEMORY_LIMIT), with a bad variable named as an error of this file.
MemoryLimit read_memory_limit(std::string const& name, MatrixMarketReadOptions const& options) {
  try {
    return spmvkit::memory_limit<Kokkos::HostSpace>(options.memory_limit,
                                                    "MatrixMarketReadOptions::memory_limit");
  } catch (std::invalid_argument const& e) {
    throw MatrixMarketError(name, 0, e.what());
  }
}

void check_memory(std::string const& name, std::int64_t line, MatrixMarketInfo const& info,
                  MatrixMarketTarget const& target) {
  MemoryEstimate estimate;
  try {
    estimate = estimate_memory(info, target);
  } catch (std::length_error const& e) {
    throw MatrixMarketError(name, line, std::string("declared sizes too large: ") + e.what());
  }
  MemoryLimit const limit = read_memory_limit(name, target.options);
  if (MatrixMarketReport* report = target.options.report; report != nullptr) {
    report->estimated_peak_bytes = estimate.peak;
    report->memory_limit_bytes = limit.bytes;
    report->memory_limit_source = limit.known() ? limit.source : "";
  }
  if (limit.admits(estimate.peak)) return; // unknown limit: allocator decides
  bool const symmetric = info.symmetry == MatrixMarketInfo::Symmetry::symmetric;
  std::ostringstream os;
  os << "too large to read: " << info.rows << " x " << info.cols << " with " << info.entries
     << " declared entries";
  if (symmetric) os << " (symmetric: up to " << estimate.stored << " stored)";
  os << " needs about " << estimate.peak << " bytes (" << human_bytes(estimate.peak)
     << ") at the peak of reading (triplets " << human_bytes(estimate.triplets) << ", 64-bit CRS "
     << human_bytes(estimate.crs64) << ", "
     << (target.staging_copy ? "host staging copy " : "matrix ") << human_bytes(estimate.matrix)
     << "), more than the limit of " << limit.bytes << " bytes (" << human_bytes(limit.bytes)
     << ", " << limit.source
     << "); set MatrixMarketReadOptions::memory_limit or SPMVKIT_MEMORY_LIMIT (bytes) to change "
        "the limit";
  throw MatrixMarketError(name, line, os.str());
}

// --- entries ---------------------------------------------------------------------

/// Checks a parsed value against the target Scalar's range: returns the value
/// to store, or throws.
double checked_value(std::string const& name, std::int64_t line, char const* token,
                     std::size_t length, double value, bool underflowed,
                     MatrixMarketTarget const& target, MatrixMarketReport* report) {
  MatrixMarketValues const accept = target.options.values;
  if (accept != MatrixMarketValues::any && !std::isfinite(value)) {
    throw MatrixMarketError(
        name, line,
        "value " + quote(token, length) +
            " is not finite (MatrixMarketReadOptions::values accepts " +
            (accept == MatrixMarketValues::finite ? "finite values" : "finite values >= 0") +
            " only)");
  }
  if (accept == MatrixMarketValues::nonnegative && value < 0) {
    throw MatrixMarketError(name, line,
                            "value " + quote(token, length) +
                                " is negative (MatrixMarketReadOptions::values accepts finite "
                                "values >= 0 only)");
  }
  if (std::isfinite(value) && std::fabs(value) >= target.overflow_at) {
    throw MatrixMarketError(name, line,
                            "value " + quote(token, length) + " is outside the finite range of " +
                                target.scalar_name + " (max " + number(target.scalar_max) + ")");
  }
  if (!underflowed && value != 0.0 && std::fabs(value) <= target.underflow_at) {
    underflowed = true;
  }
  if (!underflowed) return value;
  if (target.options.underflow == MatrixMarketUnderflow::error) {
    throw MatrixMarketError(name, line,
                            "value " + quote(token, length) + " is nonzero but rounds to 0 in " +
                                target.scalar_name +
                                " (underflow); set MatrixMarketReadOptions::underflow = "
                                "MatrixMarketUnderflow::flush_to_zero to store it as 0");
  }
  if (report != nullptr) {
    if (report->underflows == 0) report->first_underflow_line = line;
    ++report->underflows;
  }
  return std::signbit(value) ? -0.0 : 0.0;
}

} // namespace

MatrixMarketCoo read_matrix_market_coo(MatrixMarketInput const& input,
                                       MatrixMarketTarget const& target) {
  std::string const& name = input.name;
  LineReader reader(input);
  MatrixMarketCoo coo;
  MatrixMarketInfo& info = coo.info;
  MatrixMarketReport* const report = target.options.report;
  if (report != nullptr) *report = MatrixMarketReport();
  parse_banner(name, reader, info);
  parse_size_line(name, reader, info);
  check_declared_sizes(name, reader.line(), info, target);
  check_memory(name, reader.line(), info, target);

  bool const symmetric = info.symmetry == MatrixMarketInfo::Symmetry::symmetric;
  try {
    auto const capacity = static_cast<std::size_t>(info.entries) * (symmetric ? 2 : 1);
    coo.rows.reserve(capacity);
    coo.cols.reserve(capacity);
    coo.values.reserve(capacity);
  } catch (std::exception const&) { // bad_alloc, or length_error beyond max_size()
    throw MatrixMarketError(name, reader.line(),
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
  try {
    while (reader.next(text, length)) {
      if (is_skippable(text)) continue;
      std::int64_t const line = reader.line();
      if (read == info.entries) {
        throw MatrixMarketError(name, line,
                                "more entries than declared: the size line declares " +
                                    std::to_string(info.entries));
      }
      int const count = tokenize(text, tokens, lengths, 3);
      if (count != expected_tokens) {
        throw MatrixMarketError(name, line,
                                "expected " + std::to_string(expected_tokens) +
                                    " entries per line, got " + std::to_string(count));
      }
      std::int64_t row = 0;
      std::int64_t col = 0;
      if (!parse_int(tokens[0], lengths[0], row)) {
        throw MatrixMarketError(
            name, line, "row index " + quote(tokens[0], lengths[0]) + " is not a valid integer");
      }
      if (!parse_int(tokens[1], lengths[1], col)) {
        throw MatrixMarketError(
            name, line, "column index " + quote(tokens[1], lengths[1]) + " is not a valid integer");
      }
      if (row < 1 || row > info.rows) {
        throw MatrixMarketError(name, line,
                                "row index " + std::to_string(row) + " out of range 1.." +
                                    std::to_string(info.rows));
      }
      if (col < 1 || col > info.cols) {
        throw MatrixMarketError(name, line,
                                "column index " + std::to_string(col) + " out of range 1.." +
                                    std::to_string(info.cols));
      }
      double value = 1.0;
      if (integer) {
        std::int64_t integer_value = 0;
        if (!parse_int(tokens[2], lengths[2], integer_value)) {
          throw MatrixMarketError(name, line,
                                  "value " + quote(tokens[2], lengths[2]) +
                                      " is not a valid integer (field is 'integer')");
        }
        value = checked_value(name, line, tokens[2], lengths[2], static_cast<double>(integer_value),
                              false, target, report);
      } else if (!pattern) {
        RealStatus const status = parse_real(tokens[2], lengths[2], value);
        if (status == RealStatus::invalid) {
          throw MatrixMarketError(
              name, line, "value " + quote(tokens[2], lengths[2]) + " is not a valid number");
        }
        if (status == RealStatus::overflow) {
          throw MatrixMarketError(name, line,
                                  "value " + quote(tokens[2], lengths[2]) + " overflows double");
        }
        value = checked_value(name, line, tokens[2], lengths[2], value,
                              status == RealStatus::underflow, target, report);
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
      throw MatrixMarketError(name, reader.line() + 1,
                              "file ends after " + std::to_string(read) + " of " +
                                  std::to_string(info.entries) + " entries");
    }
  } catch (MatrixMarketError const& e) {
    reader.throw_if_stream_damaged(e);
    throw;
  }
  return coo;
}

MatrixMarketCoo read_matrix_market_coo(std::string const& path, MatrixMarketTarget const& target) {
  return read_matrix_market_coo(MatrixMarketInput::file(path), target);
}

namespace {

bool in_range(double sum, MatrixMarketTarget const& target) {
  return std::isfinite(sum) && std::fabs(sum) < target.overflow_at;
}

/// The entries at (row, col) (0-based) summed beyond the target's range:
/// reads the input again, sums them in the same order as the conversion did
/// (file order, mirrored entries included), and throws naming the line whose
/// entry took the sum out of range for good.
[[noreturn]] void throw_sum_overflow(MatrixMarketInput const& input, MatrixMarketInfo const& info,
                                     std::int64_t row, std::int64_t col, double total,
                                     MatrixMarketTarget const& target) {
  std::int64_t line = 0;
  std::int64_t count = 0;
  try {
    LineReader reader(input);
    char* text = nullptr;
    std::size_t length = 0;
    bool banner = true;
    bool size_line = true;
    double sum = 0.0;
    bool const symmetric = info.symmetry == MatrixMarketInfo::Symmetry::symmetric;
    bool const pattern = info.field == MatrixMarketInfo::Field::pattern;
    char* tokens[3];
    std::size_t lengths[3];
    while (reader.next(text, length)) {
      if (banner) {
        banner = false;
        continue;
      }
      if (is_skippable(text)) continue;
      if (size_line) {
        size_line = false;
        continue;
      }
      // The file parsed before; lines that do not now (it changed since) are skipped.
      if (tokenize(text, tokens, lengths, 3) != (pattern ? 2 : 3)) continue;
      std::int64_t r = 0;
      std::int64_t c = 0;
      if (!parse_int(tokens[0], lengths[0], r) || !parse_int(tokens[1], lengths[1], c)) continue;
      bool const hit =
          (r - 1 == row && c - 1 == col) || (symmetric && r != c && c - 1 == row && r - 1 == col);
      if (!hit) continue;
      double value = 1.0;
      if (!pattern) value = std::strtod(tokens[2], nullptr);
      bool const was_in = count == 0 || in_range(sum, target);
      sum = count == 0 ? value : sum + value;
      ++count;
      if (was_in && !in_range(sum, target)) line = reader.line();
      if (in_range(sum, target)) line = 0;
    }
  } catch (MatrixMarketError const&) { // the input changed since: report without a line
    line = 0;
  }
  std::ostringstream os;
  os.precision(9);
  os << "duplicate entries at row " << row + 1 << ", column " << col + 1 << " sum to " << total
     << ", beyond the finite range of " << target.scalar_name << " (max " << target.scalar_max
     << ")" << (line > 0 ? ": this entry takes the sum out of range" : "");
  throw MatrixMarketError(input.name, line, os.str());
}

} // namespace

MatrixMarketCrs matrix_market_coo_to_crs(MatrixMarketInput const& input, MatrixMarketCoo&& coo_in,
                                         MatrixMarketTarget const& target) {
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
      // Whether every entry summed into crs.values[out - 1] is finite: a sum
      // of finite values must stay within Scalar's range (an explicit inf or
      // nan in the file is the file's own choice).
      bool finite_sum = true;
      bool summed = false;
      auto check_sum = [&]() {
        if (summed && finite_sum && !in_range(crs.values[out - 1], target)) {
          throw_sum_overflow(input, crs.info, static_cast<std::int64_t>(i), crs.cols[out - 1],
                             crs.values[out - 1], target);
        }
      };
      for (std::size_t k = start; k < end; ++k) {
        if (out > row_begin && crs.cols[out - 1] == crs.cols[k]) {
          finite_sum = finite_sum && std::isfinite(crs.values[k]);
          crs.values[out - 1] += crs.values[k];
          summed = true;
        } else {
          check_sum();
          crs.cols[out] = crs.cols[k];
          crs.values[out] = crs.values[k];
          finite_sum = std::isfinite(crs.values[k]);
          summed = false;
          ++out;
        }
      }
      check_sum();
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
    throw MatrixMarketError(input.name, 0,
                            "out of memory converting " + std::to_string(n) + " entries to CRS");
  }
  return crs;
}

MatrixMarketCrs matrix_market_coo_to_crs(std::string const& path, MatrixMarketCoo&& coo) {
  return matrix_market_coo_to_crs(MatrixMarketInput::file(path), std::move(coo));
}

MatrixMarketCrs read_matrix_market_crs(MatrixMarketInput const& input,
                                       MatrixMarketTarget const& target) {
  return matrix_market_coo_to_crs(input, read_matrix_market_coo(input, target), target);
}

MatrixMarketCrs read_matrix_market_crs(std::string const& path) {
  return read_matrix_market_crs(MatrixMarketInput::file(path));
}

MatrixMarketInfo read_matrix_market_info_of(MatrixMarketInput const& input) {
  LineReader reader(input);
  MatrixMarketInfo info;
  parse_banner(input.name, reader, info);
  parse_size_line(input.name, reader, info);
  return info;
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

MatrixMarketInfo read_matrix_market_info(std::string const& path) {
  return detail::read_matrix_market_info_of(detail::MatrixMarketInput::file(path));
}

} // namespace spmvkit
