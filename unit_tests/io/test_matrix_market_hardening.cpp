// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Hostile and broken Matrix Market input (issue 10): every hand-made bad file
// in unit_tests/data/bad_mtx/ must give exactly a MatrixMarketError naming the
// file and line, huge declared sizes must fail before anything large is
// allocated, and value ranges follow the target Scalar.
#include "env_guard.hpp"

#include <spmvkit/io/matrix_market.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <zlib.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Host = Kokkos::DefaultHostExecutionSpace;
using spmvkit::MatrixMarketError;
using spmvkit::MatrixMarketReadOptions;
using spmvkit::MatrixMarketReport;
using spmvkit::MatrixMarketUnderflow;

fs::path bad_mtx_dir() {
  if (char const* env = std::getenv("SPMVKIT_BAD_MTX_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  // unit_tests/io/<this file> -> unit_tests/data/bad_mtx
  return fs::path(__FILE__).parent_path().parent_path() / "data" / "bad_mtx";
}

/// Peak resident set of this process so far, in KiB (Linux reports ru_maxrss in KiB).
long max_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

using spmvkit::test::EnvGuard;

/// The matrix type a bad file is read into.
enum class Target { double_int, float_int, double_int64 };

void read_as(Target target, std::string const& path, MatrixMarketReadOptions const& options) {
  switch (target) {
  case Target::double_int: spmvkit::read_matrix_market<double, Host>(path, options); break;
  case Target::float_int: spmvkit::read_matrix_market<float, Host>(path, options); break;
  case Target::double_int64:
    spmvkit::read_matrix_market<double, Host, std::int64_t, std::int64_t>(path, options);
    break;
  }
}

struct BadFileCase {
  char const* file;
  Target target;
  std::uint64_t memory_limit; // MatrixMarketReadOptions::memory_limit, 0: automatic
  std::int64_t line;
  char const* phrase;
};

// One row per file in unit_tests/data/bad_mtx/ (the test also checks that the
// table and the folder agree). Every error is exactly a MatrixMarketError whose
// message starts with "<file>:<line>: ".
std::vector<BadFileCase> const bad_files = {
    // Bytes that are no Matrix Market text.
    {"nul_byte.mtx", Target::double_int, 0, 4, "NUL byte at column 6"},
    {"nul_in_comment.mtx", Target::double_int, 0, 2, "NUL byte at column 20"},
    {"utf16le.mtx", Target::double_int, 0, 1, "NUL byte at column 4 (binary data, or a UTF-16"},
    {"cr_only.mtx", Target::double_int, 0, 1, "CR line endings (classic Mac OS) are not supported"},
    {"cr_in_line.mtx", Target::double_int, 0, 3, "CR line endings"},
    {"binary_token.mtx", Target::double_int, 0, 3,
     "value '\\x01\\x02\\xFF\\xFE' is not a valid number"},
    // Long tokens are quoted with at most 40 characters, long lines stop at the cap.
    {"long_token.mtx", Target::double_int, 0, 3,
     "value '9999999999999999999999999999999999999999...' (301 bytes) is not a valid number"},
    {"long_index.mtx", Target::double_int, 0, 3,
     "row index '1111111111111111111111111111111111111111...' (100 bytes) is not a valid"},
    {"long_line.mtx.gz", Target::double_int, 0, 3, "line longer than 1048576 bytes"},
    {"no_newline_banner.mtx.gz", Target::double_int, 0, 1, "line longer than 1048576 bytes"},
    // Values beyond the target Scalar.
    {"value_overflow_double.mtx", Target::double_int, 0, 4, "value '-1e999' overflows double"},
    {"value_overflow_float.mtx", Target::float_int, 0, 5,
     "value '1e300' is outside the finite range of float (max 3.40282347e+38)"},
    {"value_overflow_float_boundary.mtx", Target::float_int, 0, 4,
     "value '-3.40282357e38' is outside the finite range of float"},
    {"value_underflow_float.mtx", Target::float_int, 0, 4,
     "value '1e-50' is nonzero but rounds to 0 in float (underflow)"},
    {"value_underflow_double.mtx", Target::double_int, 0, 4,
     "value '-1e-400' is nonzero but rounds to 0 in double"},
    {"duplicate_sum_overflow.mtx", Target::double_int, 0, 5,
     "duplicate entries at row 2, column 1 sum to inf, beyond the finite range of double"},
    {"duplicate_sum_overflow_float.mtx", Target::float_int, 0, 5,
     "duplicate entries at row 1, column 2 sum to 4e+38, beyond the finite range of float"},
    {"duplicate_sum_overflow_symmetric.mtx", Target::double_int, 0, 5,
     "duplicate entries at row 1, column 2 sum to inf"},
    // Damaged gzip: what follows the last member must be another member.
    {"gzip_trailing_garbage.mtx.gz", Target::double_int, 0, 4,
     "data after the end of the gzip stream at compressed byte 75 is not another gzip member"},
    {"gzip_trailing_zeros.mtx.gz", Target::double_int, 0, 4, "is not another gzip member"},
    {"gzip_trailing_byte.mtx.gz", Target::double_int, 0, 4, "is not another gzip member"},
    {"gzip_second_member_corrupt.mtx.gz", Target::double_int, 0, 5, "gzip data truncated"},
    // Declared sizes beyond the index types, the memory limit or a 64-bit byte count.
    {"rows_beyond_int.mtx", Target::double_int, 0, 2,
     "num_rows = 3000000000 does not fit the 32-bit Ordinal index type (max 2147483647)"},
    {"cols_beyond_int.mtx", Target::double_int, 0, 2, "num_cols = 3000000000 does not fit"},
    {"entries_beyond_int.mtx", Target::double_int, 0, 2,
     "declared entries = 1099511627776 does not fit the 32-bit Offset index type"},
    {"entries_beyond_memory.mtx", Target::double_int64, 0, 2,
     "too large to read: 3 x 3 with 1099511627776 declared entries needs about"},
    {"rows_beyond_memory.mtx", Target::float_int, std::uint64_t(64) << 20, 2,
     "more than the limit of 67108864 bytes (64 MiB, MatrixMarketReadOptions::memory_limit)"},
    {"rows_byte_count_overflow.mtx", Target::double_int64, 0, 2,
     "declared sizes too large: spmvkit::read_matrix_market: num_rows = 9223372036854775807"},
    {"entries_byte_count_overflow.mtx", Target::double_int64, 0, 2,
     "stored entries: 4611686018427387904 x 2 bytes overflows"},
};

TEST(MatrixMarketBadFiles, EachFileGivesExactlyItsError) {
  fs::path const dir = bad_mtx_dir();
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " (set SPMVKIT_BAD_MTX_DIR)";
  std::set<std::string> listed;
  for (BadFileCase const& c : bad_files) {
    listed.insert(c.file);
    std::string const path = (dir / c.file).string();
    SCOPED_TRACE(path);
    ASSERT_TRUE(fs::exists(path));
    MatrixMarketReadOptions options;
    options.memory_limit = c.memory_limit;
    try {
      read_as(c.target, path, options);
      ADD_FAILURE() << "accepted; expected '" << c.phrase << "'";
    } catch (MatrixMarketError const& e) {
      std::string const what = e.what();
      EXPECT_EQ(typeid(e), typeid(MatrixMarketError)) << what;
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), c.line) << what;
      std::string const prefix = path + ":" + std::to_string(c.line) + ": ";
      EXPECT_EQ(what.rfind(prefix, 0), 0u) << "'" << what << "' should start with " << prefix;
      EXPECT_NE(what.find(c.phrase), std::string::npos)
          << "'" << what << "' lacks '" << c.phrase << "'";
      // A few hundred characters at most, whatever the input holds.
      EXPECT_LT(what.size(), path.size() + 600) << what;
    } catch (std::exception const& e) {
      ADD_FAILURE() << "wrong exception type " << typeid(e).name() << ": " << e.what();
    }
  }
  for (auto const& entry : fs::directory_iterator(dir)) {
    std::string const file = entry.path().filename().string();
    if (file == "README.md") continue;
    EXPECT_EQ(listed.count(file), 1u) << file << " is in " << dir << " but not in the table";
  }
}

// --- memory ------------------------------------------------------------------------

TEST(MatrixMarketMemory, HugeDeclaredSizesFailBeforeAllocating) {
  // 3e8 rows need about 3.6 GB, which this machine may well have: the limit
  // comes from the environment here. 3e9 rows do not fit int, 2^40 entries
  // do not fit an int Offset; neither may allocate anything first.
  EnvGuard limit("SPMVKIT_MEMORY_LIMIT", "67108864");
  fs::path const dir = bad_mtx_dir();
  long const before = max_rss_kib();
  for (char const* file : {"rows_beyond_memory.mtx", "rows_beyond_int.mtx",
                           "entries_beyond_int.mtx", "entries_beyond_memory.mtx"}) {
    std::string const path = (dir / file).string();
    SCOPED_TRACE(path);
    auto const start = std::chrono::steady_clock::now();
    try {
      spmvkit::read_matrix_market<float, Host>(path);
      ADD_FAILURE() << "accepted";
    } catch (MatrixMarketError const& e) {
      EXPECT_EQ(e.line(), 2) << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  }
  long const after = max_rss_kib();
  EXPECT_LT(after - before, 64 * 1024) << "peak RSS grew by " << (after - before) << " KiB";

  std::string const path = (dir / "rows_beyond_memory.mtx").string();
  try {
    spmvkit::read_matrix_market<float, Host>(path);
  } catch (MatrixMarketError const& e) {
    std::string const what = e.what();
    EXPECT_NE(
        what.find("300000000 x 300000000 with 1 declared entries needs about 3602097188 bytes"),
        std::string::npos)
        << what;
    EXPECT_NE(what.find("(64 MiB, SPMVKIT_MEMORY_LIMIT)"), std::string::npos) << what;
  }
}

TEST(MatrixMarketMemory, DevZeroFailsFastWithoutGrowing) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  long const before = max_rss_kib();
  auto const start = std::chrono::steady_clock::now();
  try {
    spmvkit::read_matrix_market<double, Host>("/dev/zero");
    ADD_FAILURE() << "/dev/zero accepted";
  } catch (MatrixMarketError const& e) {
    EXPECT_EQ(std::string(e.what()),
              "/dev/zero:1: line longer than 1048576 bytes (matrix_market_max_line_length); not "
              "a Matrix Market file?");
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  EXPECT_LT(max_rss_kib() - before, 16 * 1024);
}

/// Writes n random entries of a rows x rows matrix (symmetric: lower triangle).
std::string random_mtx(int rows, int n, bool symmetric, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> index(1, rows);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::ostringstream text;
  text.precision(17);
  text << "%%MatrixMarket matrix coordinate real " << (symmetric ? "symmetric" : "general") << "\n"
       << rows << ' ' << rows << ' ' << n << '\n';
  for (int k = 0; k < n; ++k) {
    int r = index(rng);
    int c = index(rng);
    if (symmetric && c > r) std::swap(r, c);
    text << r << ' ' << c << ' ' << value(rng) << '\n';
  }
  return text.str();
}

class MatrixMarketFiles : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "spmvkit_mmh_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string write(std::string const& name, std::string const& bytes) const {
    std::string const path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    EXPECT_TRUE(out.good());
    return path;
  }
  fs::path dir_;
};

/// One gzip member of data (what gzip(1) writes).
std::string gzip_member(std::string const& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

/// VmRSS or VmHWM of this process in KiB from /proc/self/status, -1 if unknown.
long status_kib(char const* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
  }
  return -1;
}

TEST_F(MatrixMarketFiles, PeakMemoryStaysWithinTheCheckedEstimate) {
  // AddressSanitizer pads every allocation with redzones and quarantines freed
  // memory instead of reusing it, so peak RSS there measures the sanitizer, not
  // the reader; the plain build (run_tests.sh) checks the bound.
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak RSS is not comparable under AddressSanitizer";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "peak RSS is not comparable under AddressSanitizer";
#endif
#endif
  std::string const path = write("big.mtx", random_mtx(20000, 400000, true, 11));
  // Writing "5" to clear_refs resets the peak (VmHWM) to the current RSS.
  {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    if (!clear.good()) GTEST_SKIP() << "cannot reset the peak RSS here";
  }
  long const rss_before = status_kib("VmRSS:");
  long const hwm_reset = status_kib("VmHWM:");
  if (rss_before < 0 || hwm_reset < 0 || hwm_reset > rss_before + 1024) {
    GTEST_SKIP() << "peak RSS reset not supported";
  }
  MatrixMarketReport report;
  MatrixMarketReadOptions options;
  options.report = &report;
  auto A = spmvkit::read_matrix_market<double, Host>(path, options);
  long const growth_kib = status_kib("VmHWM:") - rss_before;
  EXPECT_GT(A.nnz(), 400000);
  // Symmetric: 800000 stored entries at most; triplets 24 B + CRS 16 B each.
  EXPECT_GE(report.estimated_peak_bytes, 800000u * 40u);
  EXPECT_EQ(report.memory_limit_source.empty(), report.memory_limit_bytes == 0);
  RecordProperty("peak_rss_growth_bytes", std::to_string(growth_kib * 1024));
  RecordProperty("estimated_peak_bytes", std::to_string(report.estimated_peak_bytes));
  EXPECT_LE(static_cast<std::uint64_t>(growth_kib) * 1024, report.estimated_peak_bytes)
      << "peak RSS grew by " << growth_kib << " KiB, estimate " << report.estimated_peak_bytes;
}

TEST_F(MatrixMarketFiles, MemoryLimitFromOptionsAndEnvironment) {
  std::string const path = write("small.mtx", random_mtx(100, 1000, false, 3));
  MatrixMarketReport report;
  MatrixMarketReadOptions options;
  options.report = &report;
  {
    EnvGuard unset("SPMVKIT_MEMORY_LIMIT", nullptr);
    auto A = spmvkit::read_matrix_market<double, Host>(path, options);
    EXPECT_GT(report.estimated_peak_bytes, 1000u * 40u);
    EXPECT_LT(report.estimated_peak_bytes, 1000u * 40u + (4u << 20));
  }
  {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", "123456789");
    spmvkit::read_matrix_market<double, Host>(path, options);
    EXPECT_EQ(report.memory_limit_bytes, 123456789u);
    EXPECT_EQ(report.memory_limit_source, "SPMVKIT_MEMORY_LIMIT");
    options.memory_limit = 1000; // the option wins over the environment
    try {
      spmvkit::read_matrix_market<double, Host>(path, options);
      ADD_FAILURE() << "1000-byte limit accepted";
    } catch (MatrixMarketError const& e) {
      EXPECT_EQ(e.line(), 2);
      EXPECT_NE(std::string(e.what()).find("more than the limit of 1000 bytes (1000 bytes, "
                                           "MatrixMarketReadOptions::memory_limit)"),
                std::string::npos)
          << e.what();
    }
  }
  for (char const* bad : {"abc", "-5", "0", "12x", "99999999999999999999999"}) {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", bad);
    try {
      spmvkit::read_matrix_market<double, Host>(path);
      ADD_FAILURE() << "SPMVKIT_MEMORY_LIMIT=" << bad << " accepted";
    } catch (MatrixMarketError const& e) {
      EXPECT_EQ(std::string(e.what()),
                path + ": SPMVKIT_MEMORY_LIMIT='" + bad + "' is not a positive number of bytes");
    }
  }
}

// --- lines and tokens --------------------------------------------------------------

TEST_F(MatrixMarketFiles, LineLengthCapIsExact) {
  std::string const banner = "%%MatrixMarket matrix coordinate real general\n2 2 1\n";
  // A comment line of exactly the cap is fine (CRLF's CR is not counted)...
  std::string const at_cap = "%" + std::string(spmvkit::matrix_market_max_line_length - 1, 'c');
  auto A = spmvkit::read_matrix_market<double, Host>(
      write("at_cap.mtx", banner + at_cap + "\r\n1 1 1\n"));
  EXPECT_EQ(A.nnz(), 1);
  // ...one more byte is not, with or without a line end after it.
  for (std::string const& end : {std::string("\n1 1 1\n"), std::string()}) {
    std::string const path = write("over_cap.mtx", banner + at_cap + "c" + end);
    try {
      spmvkit::read_matrix_market<double, Host>(path);
      ADD_FAILURE() << "line over the cap accepted";
    } catch (MatrixMarketError const& e) {
      EXPECT_EQ(e.line(), 3);
      EXPECT_NE(std::string(e.what()).find("line longer than 1048576 bytes"), std::string::npos);
    }
  }
}

TEST_F(MatrixMarketFiles, HugeBadTokenIsQuotedShort) {
  std::string const token(500000, '7');
  std::string const path = write("bad_number.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                   "2 2 1\n1 1 " +
                                                       token + "e\n");
  try {
    spmvkit::read_matrix_market<double, Host>(path);
    ADD_FAILURE() << "bad number accepted";
  } catch (MatrixMarketError const& e) {
    EXPECT_EQ(std::string(e.what()), path + ":3: value '" + std::string(40, '7') +
                                         "...' (500001 bytes) is not a valid number");
  }
}

TEST_F(MatrixMarketFiles, CrlfAndDoubledCrAreLineEnds) {
  auto A = spmvkit::read_matrix_market<double, Host>(
      write("crcrlf.mtx", "%%MatrixMarket matrix coordinate real general\r\r\n2 2 2\r\r\n"
                          "1 1 1.5\r\n2 2 2.5\r\r\n"));
  EXPECT_EQ(A.nnz(), 2);
  EXPECT_EQ(A.values()(1), 2.5);
}

// --- values ------------------------------------------------------------------------

TEST_F(MatrixMarketFiles, UnderflowFlushedToZeroIsCounted) {
  std::string const path = write("tiny.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "2 2 4\n1 1 1e-50\n% comment\n2 2 -1e-60\n"
                                             "1 2 1e-40\n2 1 0.0\n");
  MatrixMarketReport report;
  MatrixMarketReadOptions options;
  options.underflow = MatrixMarketUnderflow::flush_to_zero;
  options.report = &report;
  auto A = spmvkit::read_matrix_market<float, Host>(path, options);
  ASSERT_EQ(A.nnz(), 4); // underflowed entries stay as stored zeros
  EXPECT_EQ(report.underflows, 2);
  EXPECT_EQ(report.first_underflow_line, 3);
  EXPECT_EQ(A.values()(0), 0.0f);            // (1,1)
  EXPECT_FALSE(std::signbit(A.values()(0))); // +0
  EXPECT_GT(A.values()(1), 0.0f);            // (1,2): 1e-40 is a float subnormal, kept
  EXPECT_LT(A.values()(1), std::numeric_limits<float>::min());
  EXPECT_EQ(A.values()(2), 0.0f); // (2,1): an explicit zero is no underflow
  EXPECT_TRUE(std::signbit(A.values()(3)));

  // The same file in double has no underflow at all.
  auto D = spmvkit::read_matrix_market<double, Host>(path, options);
  EXPECT_EQ(report.underflows, 0);
  EXPECT_EQ(D.values()(0), 1e-50);
  // And the default is an error.
  EXPECT_THROW((spmvkit::read_matrix_market<float, Host>(path)), MatrixMarketError);
}

TEST_F(MatrixMarketFiles, FloatRangeBoundaries) {
  // 3.4028235e38 rounds to FLT_MAX; from 2^128 - 2^103 on, values round to inf.
  auto A = spmvkit::read_matrix_market<float, Host>(
      write("max.mtx", "%%MatrixMarket matrix coordinate real general\n1 3 3\n"
                       "1 1 3.4028235e38\n1 2 -3.40282347e+38\n1 3 0x1.fffffefffffffp+127\n"));
  EXPECT_EQ(A.values()(0), std::numeric_limits<float>::max());
  EXPECT_EQ(A.values()(1), -std::numeric_limits<float>::max());
  EXPECT_EQ(A.values()(2), std::numeric_limits<float>::max());
  EXPECT_THROW((spmvkit::read_matrix_market<float, Host>(
                   write("tie.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n"
                                    "1 1 0x1.ffffffp+127\n"))),
               MatrixMarketError);
  // Explicit infinities and NaN remain accepted, also when summed with finite values.
  auto B = spmvkit::read_matrix_market<float, Host>(
      write("inf.mtx", "%%MatrixMarket matrix coordinate real general\n1 2 4\n"
                       "1 1 inf\n1 1 3e38\n1 2 nan\n1 2 1\n"));
  EXPECT_EQ(B.values()(0), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(B.values()(1)));
  // Duplicates may leave float's range on the way as long as the sum returns.
  auto C = spmvkit::read_matrix_market<float, Host>(
      write("back.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 3\n"
                        "1 1 3e38\n1 1 3e38\n1 1 -3e38\n"));
  EXPECT_EQ(C.values()(0), 3e38f);
}

// --- gzip and in-memory input ------------------------------------------------------------

TEST_F(MatrixMarketFiles, ConcatenatedGzipMembersAreReadInOrder) {
  std::string const text = random_mtx(50, 2000, false, 5);
  std::string const plain = write("plain.mtx", text);
  // Split in the middle of a line: members are one byte stream.
  std::size_t const cut = text.size() / 2 + 3;
  std::string const gz =
      gzip_member(text.substr(0, cut)) + gzip_member("") + gzip_member(text.substr(cut));
  std::string const multi = write("multi.mtx.gz", gz);
  auto const a = spmvkit::detail::read_matrix_market_crs(plain);
  auto const b = spmvkit::detail::read_matrix_market_crs(multi);
  EXPECT_EQ(a.row_starts, b.row_starts);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.values, b.values);

  // The same bytes from memory, plain and compressed.
  auto const m =
      spmvkit::read_matrix_market_from_memory<double, Host>("buffer.mtx.gz", gz.data(), gz.size());
  auto const p = spmvkit::read_matrix_market<double, Host>(plain);
  ASSERT_EQ(m.nnz(), p.nnz());
  for (int k = 0; k < p.nnz(); ++k) EXPECT_EQ(m.values()(k), p.values()(k));
  auto const t =
      spmvkit::read_matrix_market_from_memory<double, Host>("text.mtx", text.data(), text.size());
  EXPECT_EQ(t.nnz(), p.nnz());
}

TEST(MatrixMarketMemoryInput, ErrorsNameTheBuffer) {
  std::string const text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n";
  try {
    spmvkit::read_matrix_market_from_memory<double, Host>("<request 7>", text.data(), text.size());
    ADD_FAILURE() << "accepted";
  } catch (MatrixMarketError const& e) {
    EXPECT_EQ(std::string(e.what()), "<request 7>:3: column index 3 out of range 1..2");
  }
  try {
    spmvkit::read_matrix_market_from_memory<double, Host>("empty", nullptr, 0);
    ADD_FAILURE() << "accepted";
  } catch (MatrixMarketError const& e) {
    EXPECT_EQ(e.line(), 1);
  }
}

} // namespace
