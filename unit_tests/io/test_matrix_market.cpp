// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "test_utils.hpp"
#include <spmvkit/io/matrix_market.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Host = Kokkos::DefaultHostExecutionSpace;
using spmvkit::MatrixMarketError;
using spmvkit::MatrixMarketInfo;

/// A file the reader must reject, and the line and phrase of its error.
struct BadFile {
  std::string name;
  std::string content;
  std::int64_t line;
  std::string phrase;
};

/// Gives every test its own scratch directory so that parallel ctest runs and
/// reruns after a crash never see each other's files.
class MatrixMarket : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "spmvkit_mm_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path(std::string const& name) const { return (dir_ / name).string(); }

  std::string write_text(std::string const& name, std::string const& content) const {
    std::string const p = path(name);
    std::ofstream out(p, std::ios::binary);
    out << content;
    EXPECT_TRUE(out.good());
    return p;
  }

  std::string write_gz(std::string const& name, std::string const& content) const {
    std::string const p = path(name);
    gzFile f = gzopen(p.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())),
              static_cast<int>(content.size()));
    EXPECT_EQ(gzclose(f), Z_OK);
    return p;
  }

  /// Writes every file and expects its error; expect_error's trace names the
  /// file, hence the case, that failed.
  void expect_errors(std::vector<BadFile> const& files) const;

  fs::path dir_;
};

/// Reads path expecting a MatrixMarketError at `line` whose message names the
/// file and line and contains `phrase`.
void expect_error(std::string const& path, std::int64_t line, std::string const& phrase) {
  SCOPED_TRACE(path);
  try {
    spmvkit::detail::read_matrix_market_coo(path);
    ADD_FAILURE() << "no MatrixMarketError thrown, expected '" << phrase << "'";
  } catch (MatrixMarketError const& e) {
    std::string const what = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << what;
    std::string const prefix = line > 0 ? path + ":" + std::to_string(line) + ": " : path + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u)
        << "message '" << what << "' should start with '" << prefix << "'";
    EXPECT_NE(what.find(phrase), std::string::npos)
        << "message '" << what << "' lacks '" << phrase << "'";
  }
}

std::string const general_banner = "%%MatrixMarket matrix coordinate real general\n";

void MatrixMarket::expect_errors(std::vector<BadFile> const& files) const {
  for (BadFile const& f : files) expect_error(write_text(f.name, f.content), f.line, f.phrase);
}

/// Complete lines zlib delivers from a damaged gzip file before failing,
/// counted with small reads independently of the reader's buffering.
std::int64_t decodable_lines(std::string const& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr);
  std::int64_t newlines = 0;
  char buffer[1000];
  for (;;) {
    int const n = gzread(f, buffer, sizeof buffer);
    if (n <= 0) break;
    newlines += std::count(buffer, buffer + n, '\n');
    if (n < static_cast<int>(sizeof buffer)) break;
  }
  gzclose(f);
  return newlines;
}

template <class Matrix>
std::vector<double> to_dense(Matrix const& A) {
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  std::size_t const m = static_cast<std::size_t>(A.num_rows());
  std::size_t const n = static_cast<std::size_t>(A.num_cols());
  std::vector<double> dense(m * n, 0.0);
  EXPECT_EQ(rs.extent(0), m + 1);
  EXPECT_EQ(static_cast<std::int64_t>(rs(m)), static_cast<std::int64_t>(A.nnz()));
  for (std::size_t i = 0; i < m; ++i) {
    for (auto k = rs(i); k < rs(i + 1); ++k) {
      if (k > rs(i)) {
        EXPECT_LT(ci(k - 1), ci(k)) << "row " << i << " not strictly sorted";
      }
      EXPECT_GE(ci(k), 0);
      EXPECT_LT(static_cast<std::size_t>(ci(k)), n);
      dense[i * n + static_cast<std::size_t>(ci(k))] += static_cast<double>(v(k));
    }
  }
  return dense;
}

// --- malformed input -------------------------------------------------------

TEST_F(MatrixMarket, MissingOrBadBanner) {
  expect_errors({
      {"nobanner.mtx", "3 3 1\n1 1 1.0\n", 1, "missing Matrix Market banner"},
      {"comment_first.mtx", "% hi\n" + general_banner + "1 1 0\n", 1,
       "missing Matrix Market banner"},
      {"typo.mtx", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1,
       "missing Matrix Market banner"},
      {"empty.mtx", "", 1, "empty file"},
      {"short_banner.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1,
       "bad banner: expected 5 fields, got 4"},
  });
}

TEST_F(MatrixMarket, BadHeaderKeywords) {
  expect_errors({
      {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
       "array format not supported"},
      {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
       "unsupported field 'complex'"},
      {"herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1,
       "unsupported symmetry 'hermitian'"},
      {"skew.mtx", "%%MatrixMarket matrix coordinate real Skew-Symmetric\n1 1 0\n", 1,
       "unsupported symmetry 'skew-symmetric'"},
      {"field.mtx", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1,
       "unknown field 'float'"},
      {"format.mtx", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1,
       "unknown format 'sparse'"},
      {"object.mtx", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1,
       "unsupported object 'vector'"},
      {"symm.mtx", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n", 1,
       "unknown symmetry 'lower'"},
  });
}

TEST_F(MatrixMarket, BadSizeLine) {
  expect_errors({
      {"two.mtx", general_banner + "% comment\n\n3 3\n1 1 1\n", 4,
       "bad size line: expected 3 integers"},
      {"alpha.mtx", general_banner + "3 x 3\n", 2, "bad size line: 'x' is not a valid integer"},
      {"float.mtx", general_banner + "3 3 1.5\n", 2, "bad size line: '1.5' is not a valid integer"},
      {"neg.mtx", general_banner + "-3 3 1\n1 1 1\n", 2, "negative size -3"},
      {"negnnz.mtx", general_banner + "3 3 -1\n", 2, "negative size -1"},
      {"nosize.mtx", general_banner + "% only a comment\n", 3, "file ends before the size line"},
      {"nonsquare.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2,
       "symmetric matrix must be square"},
  });
}

TEST_F(MatrixMarket, WrongTokenCount) {
  expect_errors({
      {"bad.mtx", general_banner + "3 3 3\n1 1 1.0\n2 2\n3 3 3.0\n", 4,
       "expected 3 entries per line, got 2"},
      {"four.mtx", general_banner + "3 3 1\n1 1 1.0 7\n", 3, "expected 3 entries per line, got 4"},
      {"pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.0\n", 3,
       "expected 2 entries per line, got 3"},
  });
}

TEST_F(MatrixMarket, NonNumericValue) {
  expect_errors({
      {"abc.mtx", general_banner + "2 2 2\n1 1 1.0\n2 2 abc\n", 4,
       "value 'abc' is not a valid number"},
      {"suffix.mtx", general_banner + "2 2 1\n1 1 1.5x\n", 3, "value '1.5x' is not a valid number"},
      {"comma.mtx", general_banner + "2 2 1\n1 1 1,5\n", 3, "value '1,5' is not a valid number"},
      {"huge.mtx", general_banner + "2 2 1\n1 1 1e999\n", 3, "value '1e999' overflows double"},
      {"int.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
       "value '1.5' is not a valid integer"},
  });
}

TEST_F(MatrixMarket, NonNumericIndex) {
  expect_errors({
      {"row.mtx", general_banner + "2 2 1\na 1 1.0\n", 3, "row index 'a' is not a valid integer"},
      {"col.mtx", general_banner + "2 2 1\n1 2.0 1.0\n", 3,
       "column index '2.0' is not a valid integer"},
      {"overflow.mtx", general_banner + "2 2 1\n99999999999999999999 1 1\n", 3,
       "row index '99999999999999999999' is not a valid integer"},
  });
}

TEST_F(MatrixMarket, IndexOutOfRange) {
  expect_errors({
      {"row0.mtx", general_banner + "3 4 2\n1 1 1\n0 1 1.0\n", 4, "row index 0 out of range 1..3"},
      {"rowbig.mtx", general_banner + "3 4 1\n4 1 1.0\n", 3, "row index 4 out of range 1..3"},
      {"rowneg.mtx", general_banner + "3 4 1\n-1 1 1.0\n", 3, "row index -1 out of range 1..3"},
      {"col0.mtx", general_banner + "3 4 1\n1 0 1.0\n", 3, "column index 0 out of range 1..4"},
      {"colbig.mtx", general_banner + "3 4 1\n1 5 1.0\n", 3, "column index 5 out of range 1..4"},
  });
}

TEST_F(MatrixMarket, FewerEntriesThanDeclared) {
  expect_errors({
      {"short.mtx", general_banner + "3 3 3\n1 1 1\n2 2 2\n", 5, "file ends after 2 of 3 entries"},
      // Without a final newline the missing entry would still be on line 5.
      {"short_nonl.mtx", general_banner + "3 3 3\n1 1 1\n2 2 2", 5,
       "file ends after 2 of 3 entries"},
      {"none.mtx", general_banner + "3 3 1\n", 3, "file ends after 0 of 1 entries"},
  });
}

TEST_F(MatrixMarket, MoreEntriesThanDeclared) {
  expect_error(write_text("long.mtx", general_banner + "3 3 2\n1 1 1\n2 2 2\n% c\n\n3 3 3\n"), 7,
               "more entries than declared");
}

TEST_F(MatrixMarket, TruncatedGzip) {
  std::ostringstream text;
  text << general_banner << "1000 1000 20000\n";
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> idx(1, 1000);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int k = 0; k < 20000; ++k) text << idx(rng) << ' ' << idx(rng) << ' ' << val(rng) << '\n';
  std::string const good = write_gz("good.mtx.gz", text.str());
  EXPECT_NO_THROW(spmvkit::detail::read_matrix_market_coo(good));

  std::ifstream in(good, std::ios::binary);
  std::string const bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  std::string const cut = write_text("cut.mtx.gz", bytes.substr(0, bytes.size() / 2));
  try {
    spmvkit::detail::read_matrix_market_coo(cut);
    ADD_FAILURE() << "truncated gzip was accepted";
  } catch (MatrixMarketError const& e) {
    std::string const what = e.what();
    // The error names the line that the stream cut short: one past the
    // complete lines that zlib can still decode from the damaged file.
    EXPECT_GT(e.line(), 2);
    EXPECT_LT(e.line(), 20003);
    EXPECT_EQ(e.line(), decodable_lines(cut) + 1);
    EXPECT_EQ(what.rfind(cut + ":" + std::to_string(e.line()) + ": ", 0), 0u) << what;
    EXPECT_NE(what.find("gzip data truncated"), std::string::npos) << what;
  }

  // Cutting only the 8-byte CRC/length trailer still has to be noticed.
  std::string const trailer = write_text("trailer.mtx.gz", bytes.substr(0, bytes.size() - 4));
  expect_error(trailer, 20003, "gzip data truncated");

  // Flipped bits: named as damaged gzip data (a deflate error or the CRC),
  // even where the damaged text first fails to parse.
  std::string corrupt_bytes = bytes;
  for (std::size_t i = corrupt_bytes.size() / 3; i < corrupt_bytes.size() / 3 + 64; ++i)
    corrupt_bytes[i] = static_cast<char>(corrupt_bytes[i] ^ 0x5a);
  std::string const corrupt = write_text("corrupt.mtx.gz", corrupt_bytes);
  try {
    spmvkit::detail::read_matrix_market_coo(corrupt);
    ADD_FAILURE() << "corrupt gzip was accepted";
  } catch (MatrixMarketError const& e) {
    EXPECT_EQ(std::string(e.what()).rfind(corrupt + ":", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("corrupt gzip data"), std::string::npos) << e.what();
  }
}

// A stored (uncompressed) gzip member whose text was damaged: zlib hands out
// the wrong text, and only the CRC at the end tells. The error names the CRC
// failure, not only the line where the damaged text stopped parsing.
TEST_F(MatrixMarket, GzipCrcErrorIsNamedAsSuch) {
  std::string const text = general_banner + "3 3 3\n1 1 1.5\n2 2 2.5\n3 3 3.5\n";
  std::string const p = path("stored.mtx.gz");
  gzFile f = gzopen(p.c_str(), "wb0"); // level 0: the text lies in the file as it is
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto const at = bytes.find("2 2 2.5");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = '\n'; // line 4 now reads "2 2" and line 5 "2.5"
  std::string const damaged = write_text("crc.mtx.gz", bytes);
  try {
    spmvkit::detail::read_matrix_market_coo(damaged);
    ADD_FAILURE() << "a gzip member with a wrong CRC was accepted";
  } catch (MatrixMarketError const& e) {
    std::string const what = e.what();
    EXPECT_EQ(e.line(), 4) << what;
    EXPECT_NE(what.find("corrupt gzip data: incorrect data check"), std::string::npos) << what;
    EXPECT_NE(what.find("expected 3 entries per line, got 2"), std::string::npos) << what;
  }
}

TEST_F(MatrixMarket, MissingFileOrDirectory) {
  expect_error(path("does_not_exist.mtx"), 0, "No such file or directory");
  expect_error(dir_.string(), 0, "is a directory");
  EXPECT_THROW((spmvkit::read_matrix_market<double, Host>(path("nope.mtx.gz"))), MatrixMarketError);
}

TEST_F(MatrixMarket, DeclaredSizeBeyondAvailableMemory) {
  expect_errors({
      {"huge.mtx", general_banner + "% c\n10 10 1000000000000000\n1 1 1\n", 3,
       "too large to read: 10 x 10 with 1000000000000000 declared entries needs about"},
      {"huge2.mtx", general_banner + "1000000000000000 10 0\n", 2, "more than the limit of"},
  });
}

TEST_F(MatrixMarket, IndexTypeTooNarrow) {
  std::string const p = write_text("wide.mtx", general_banner + "40000 3 1\n40000 1 1\n");
  try {
    spmvkit::read_matrix_market<double, Host, std::int16_t, std::int16_t>(p);
    ADD_FAILURE() << "40000 rows accepted into int16";
  } catch (MatrixMarketError const& e) {
    // Checked at the size line, before anything is allocated.
    EXPECT_EQ(std::string(e.what()).rfind(p + ":2: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
  auto A = spmvkit::read_matrix_market<double, Host, int, std::int64_t>(p);
  EXPECT_EQ(A.num_rows(), 40000);
  EXPECT_EQ(A.nnz(), 1);
}

// --- accepted input ----------------------------------------------------------

TEST_F(MatrixMarket, SymmetricExpansion) {
  // The (1,3) entry is above the diagonal; it is accepted and mirrored too.
  std::string const p = write_text("sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                              "% lower triangle plus one upper entry\n"
                                              "3 3 5\n"
                                              "1 1 2.0\n"
                                              "2 1 -1.0\n"
                                              "3 2 -1.5\n"
                                              "1 3 4.0\n"
                                              "3 3 5.0\n");
  auto coo = spmvkit::detail::read_matrix_market_coo(p);
  EXPECT_EQ(coo.info.rows, 3);
  EXPECT_EQ(coo.info.cols, 3);
  EXPECT_EQ(coo.info.entries, 5);
  EXPECT_EQ(coo.info.symmetry, MatrixMarketInfo::Symmetry::symmetric);
  EXPECT_EQ(coo.info.field, MatrixMarketInfo::Field::real);
  EXPECT_EQ(coo.values.size(), 8u);

  auto A = spmvkit::read_matrix_market<double, Host>(p);
  EXPECT_EQ(A.num_rows(), 3);
  EXPECT_EQ(A.num_cols(), 3);
  EXPECT_EQ(A.nnz(), 8);
  std::vector<double> const expected = {2.0,  -1.0, 4.0,  //
                                        -1.0, 0.0,  -1.5, //
                                        4.0,  -1.5, 5.0};
  EXPECT_EQ(to_dense(A), expected);
}

TEST_F(MatrixMarket, DuplicatesAreSummedAndColumnsSorted) {
  std::string const p = write_text("dup.mtx", general_banner + "3 4 7\n"
                                                               "1 4 1.0\n"
                                                               "1 2 2.0\n"
                                                               "1 4 0.5\n"
                                                               "3 1 -2.0\n"
                                                               "1 1 3.0\n"
                                                               "3 1 -0.25\n"
                                                               "1 4 0.25\n");
  auto A = spmvkit::read_matrix_market<double, Host>(p);
  EXPECT_EQ(A.nnz(), 4); // (1,1) (1,2) (1,4) (3,1); row 2 empty
  std::vector<double> const expected = {3.0,   2.0, 0.0, 1.75, //
                                        0.0,   0.0, 0.0, 0.0,  //
                                        -2.25, 0.0, 0.0, 0.0};
  EXPECT_EQ(to_dense(A), expected);
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  EXPECT_EQ((std::vector<int>{rs(0), rs(1), rs(2), rs(3)}), (std::vector<int>{0, 3, 3, 4}));
  EXPECT_EQ((std::vector<int>{ci(0), ci(1), ci(2), ci(3)}), (std::vector<int>{0, 1, 3, 0}));

  // Symmetric file listing both triangles: each off-diagonal doubles.
  std::string const both =
      write_text("both.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                             "2 2 3\n1 1 1\n2 1 5\n1 2 5\n");
  auto B = spmvkit::read_matrix_market<double, Host>(both);
  EXPECT_EQ(to_dense(B), (std::vector<double>{1.0, 10.0, 10.0, 0.0}));
}

TEST_F(MatrixMarket, PatternAndIntegerFields) {
  std::string const pattern =
      write_text("pat.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                            "3 3 3\n2 1\n3 3\n3 1\n");
  auto coo = spmvkit::detail::read_matrix_market_coo(pattern);
  EXPECT_EQ(coo.info.field, MatrixMarketInfo::Field::pattern);
  auto P = spmvkit::read_matrix_market<float, Host>(pattern);
  EXPECT_EQ(P.nnz(), 5);
  EXPECT_EQ(to_dense(P), (std::vector<double>{0, 1, 1, 1, 0, 0, 1, 0, 1}));

  std::string const integer =
      write_text("int.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                            "2 3 3\n1 3 -7\n2 2 +12\n2 1 9007199254740992\n");
  auto coo_int = spmvkit::detail::read_matrix_market_coo(integer);
  EXPECT_EQ(coo_int.info.field, MatrixMarketInfo::Field::integer);
  auto I = spmvkit::read_matrix_market<double, Host>(integer);
  EXPECT_EQ(to_dense(I), (std::vector<double>{0, 0, -7, 9007199254740992.0, 12, 0}));
}

TEST_F(MatrixMarket, CrlfCaseCommentsAndBlankLines) {
  std::string const p = write_text("crlf.mtx", "%%matrixmarket MATRIX Coordinate REAL General\r\n"
                                               "% comment\r\n"
                                               "\r\n"
                                               "   % indented comment\r\n"
                                               "2 2 3\r\n"
                                               "1 1 1.5\r\n"
                                               "\r\n"
                                               "  2\t1   -2.5e0  \r\n"
                                               "% trailing comment\r\n"
                                               "2 2 .5\r\n"
                                               "\r\n");
  auto A = spmvkit::read_matrix_market<double, Host>(p);
  EXPECT_EQ(to_dense(A), (std::vector<double>{1.5, 0.0, -2.5, 0.5}));
  // Line numbers count physical lines, CRLF included.
  expect_error(write_text("crlf_bad.mtx", general_banner + "% c\r\n2 2 1\r\n1 1 x\r\n"), 4,
               "value 'x' is not a valid number");
}

TEST_F(MatrixMarket, NanAndInfValuesAreAccepted) {
  std::string const p =
      write_text("naninf.mtx", general_banner + "2 2 4\n1 1 nan\n1 2 -Inf\n2 1 infinity\n"
                                                "2 2 4.9e-324\n");
  auto coo = spmvkit::detail::read_matrix_market_coo(p);
  ASSERT_EQ(coo.values.size(), 4u);
  EXPECT_TRUE(std::isnan(coo.values[0]));
  EXPECT_EQ(coo.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(coo.values[2], std::numeric_limits<double>::infinity());
  EXPECT_EQ(coo.values[3], std::numeric_limits<double>::denorm_min());
}

TEST_F(MatrixMarket, EmptyMatrices) {
  auto A =
      spmvkit::read_matrix_market<double, Host>(write_text("zero.mtx", general_banner + "0 0 0\n"));
  EXPECT_EQ(A.num_rows(), 0);
  EXPECT_EQ(A.nnz(), 0);
  EXPECT_EQ(A.row_starts().extent(0), 1u);
  auto B =
      spmvkit::read_matrix_market<double, Host>(write_text("nonz.mtx", general_banner + "5 7 0\n"));
  EXPECT_EQ(B.num_rows(), 5);
  EXPECT_EQ(B.num_cols(), 7);
  EXPECT_EQ(B.nnz(), 0);
  EXPECT_EQ(to_dense(B), std::vector<double>(35, 0.0));

  std::string const out = path("empty_out.mtx.gz");
  spmvkit::write_matrix_market(out, B);
  auto C = spmvkit::read_matrix_market<double, Host>(out);
  EXPECT_EQ(C.num_rows(), 5);
  EXPECT_EQ(C.num_cols(), 7);
  EXPECT_EQ(C.nnz(), 0);
  spmvkit::write_matrix_market(path("default.mtx"), spmvkit::CrsMatrix<double, Host>());
  auto D = spmvkit::read_matrix_market<double, Host>(path("default.mtx"));
  EXPECT_EQ(D.num_rows(), 0);
}

// --- round trips ---------------------------------------------------------------

template <class Scalar, class Ordinal, class Offset>
spmvkit::CrsMatrix<Scalar, Host, Ordinal, Offset>
random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> per_row(0, 12);
  std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
  std::vector<Offset> starts(1, 0);
  std::vector<Ordinal> indices;
  for (std::int64_t i = 0; i < rows; ++i) {
    int const count = per_row(rng);
    std::vector<Ordinal> row;
    for (int k = 0; k < count; ++k) row.push_back(static_cast<Ordinal>(col(rng)));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    indices.insert(indices.end(), row.begin(), row.end());
    starts.push_back(static_cast<Offset>(indices.size()));
  }
  spmvkit::CrsMatrix<Scalar, Host, Ordinal, Offset> A("random", rows, cols,
                                                      static_cast<std::int64_t>(indices.size()));
  // Random bit patterns cover every exponent and long mantissas; a few fixed
  // specials cover the edge cases of decimal conversion.
  using Bits = std::conditional_t<sizeof(Scalar) == 8, std::uint64_t, std::uint32_t>;
  std::vector<Scalar> const specials = {Scalar(0),
                                        -Scalar(0),
                                        std::numeric_limits<Scalar>::denorm_min(),
                                        -std::numeric_limits<Scalar>::denorm_min(),
                                        std::numeric_limits<Scalar>::min(),
                                        std::numeric_limits<Scalar>::max(),
                                        -std::numeric_limits<Scalar>::max(),
                                        std::numeric_limits<Scalar>::epsilon(),
                                        std::numeric_limits<Scalar>::infinity(),
                                        -std::numeric_limits<Scalar>::infinity(),
                                        Scalar(0.1),
                                        Scalar(1) / Scalar(3)};
  for (std::size_t i = 0; i < starts.size(); ++i) A.row_starts()(i) = starts[i];
  for (std::size_t k = 0; k < indices.size(); ++k) {
    A.column_indices()(k) = indices[k];
    Scalar value;
    if (k < specials.size()) {
      value = specials[k];
    } else {
      do {
        Bits bits = static_cast<Bits>(rng());
        std::memcpy(&value, &bits, sizeof value);
      } while (!std::isfinite(value));
    }
    A.values()(k) = value;
  }
  return A;
}

template <class Scalar, class Ordinal = int, class Offset = int>
void check_round_trip(std::string const& file) {
  SCOPED_TRACE(file);
  auto A = random_matrix<Scalar, Ordinal, Offset>(300, 211, sizeof(Scalar) * 1000 + file.size());
  spmvkit::write_matrix_market(file, A);
  auto B = spmvkit::read_matrix_market<Scalar, Host, Ordinal, Offset>(file);
  ASSERT_EQ(B.num_rows(), A.num_rows());
  ASSERT_EQ(B.num_cols(), A.num_cols());
  ASSERT_EQ(B.nnz(), A.nnz());
  for (std::size_t i = 0; i < A.row_starts().extent(0); ++i)
    ASSERT_EQ(B.row_starts()(i), A.row_starts()(i)) << "row_starts(" << i << ")";
  for (std::size_t k = 0; k < A.values().extent(0); ++k) {
    ASSERT_EQ(B.column_indices()(k), A.column_indices()(k)) << "column_indices(" << k << ")";
    Scalar const a = A.values()(k);
    Scalar const b = B.values()(k);
    ASSERT_EQ(std::memcmp(&a, &b, sizeof(Scalar)), 0)
        << "values(" << k << "): wrote " << a << ", read back " << b;
  }
}

TEST_F(MatrixMarket, RoundTripIsBitExact) {
  check_round_trip<double>(path("d.mtx"));
  check_round_trip<double>(path("d.mtx.gz"));
  check_round_trip<float>(path("f.mtx"));
  check_round_trip<float>(path("f.mtx.gz"));
  check_round_trip<double, std::int64_t, std::int64_t>(path("d64.mtx.gz"));

  // The writer's format is as documented, and .gz really is compressed.
  auto A = random_matrix<double, int, int>(5, 5, 1);
  spmvkit::write_matrix_market(path("plain.mtx"), A);
  spmvkit::write_matrix_market(path("zipped.mtx.gz"), A);
  std::ifstream in(path("plain.mtx"));
  std::string banner, comment, size;
  std::getline(in, banner);
  std::getline(in, comment);
  std::getline(in, size);
  EXPECT_EQ(banner, "%%MatrixMarket matrix coordinate real general");
  EXPECT_EQ(comment, "% written by SpMVKit");
  EXPECT_EQ(size, "5 5 " + std::to_string(A.nnz()));
  std::ifstream zipped(path("zipped.mtx.gz"), std::ios::binary);
  unsigned char magic[2] = {0, 0};
  zipped.read(reinterpret_cast<char*>(magic), 2);
  EXPECT_EQ(magic[0], 0x1f);
  EXPECT_EQ(magic[1], 0x8b);
}

TEST_F(MatrixMarket, WriteErrors) {
  auto A = random_matrix<double, int, int>(50, 50, 2);
  try {
    spmvkit::write_matrix_market(path("no_such_dir/out.mtx"), A);
    ADD_FAILURE() << "writing into a missing directory succeeded";
  } catch (MatrixMarketError const& e) {
    EXPECT_EQ(e.file(), path("no_such_dir/out.mtx"));
    EXPECT_NE(std::string(e.what()).find("cannot open for writing"), std::string::npos) << e.what();
  }
  if (fs::exists("/dev/full")) {
    // /dev/full fails every write with ENOSPC, i.e. a full disk.
    try {
      spmvkit::write_matrix_market("/dev/full", A);
      ADD_FAILURE() << "writing to /dev/full succeeded";
    } catch (MatrixMarketError const& e) {
      EXPECT_EQ(std::string(e.what()).rfind("/dev/full: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(MatrixMarket, ReadIntoDefaultExecutionSpace) {
  std::string const p = write_text("dev.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                              "3 3 4\n1 1 4\n2 1 -1\n3 3 4\n3 2 -1\n");
  auto A = spmvkit::read_matrix_market<double, Kokkos::DefaultExecutionSpace>(p);
  EXPECT_EQ(A.nnz(), 6);
  EXPECT_EQ(to_dense(A), (std::vector<double>{4, -1, 0, -1, 0, -1, 0, -1, 4}));
  auto F = spmvkit::read_matrix_market<float, Kokkos::DefaultExecutionSpace, int, std::int64_t>(p);
  EXPECT_EQ(to_dense(F), to_dense(A));

  std::string const out = path("dev_out.mtx.gz");
  spmvkit::write_matrix_market(out, A);
  EXPECT_EQ(to_dense(spmvkit::read_matrix_market<double, Host>(out)), to_dense(A));
}

// --- the shared SuiteSparse collection ---------------------------------------

/// name -> (rows, cols, nonzeros after symmetric expansion), from the table in
/// the directory's README.md, so the test follows the data set it describes.
std::map<std::string, std::tuple<std::int64_t, std::int64_t, std::int64_t>>
readme_table(fs::path const& readme) {
  std::map<std::string, std::tuple<std::int64_t, std::int64_t, std::int64_t>> table;
  std::ifstream in(readme);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 2 || line[0] != '|') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      auto const b = cell.find_first_not_of(' ');
      auto const e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
    }
    if (cells.size() < 4) continue;
    try {
      std::size_t used = 0;
      std::int64_t const rows = std::stoll(cells[1], &used);
      if (used != cells[1].size()) continue;
      table[cells[0]] = {rows, std::stoll(cells[2]), std::stoll(cells[3])};
    } catch (std::exception const&) { // header or separator row
    }
  }
  return table;
}

TEST(MatrixMarketCollection, ReadsEveryMatrixWithReadmeSizes) {
  // Skipped only when no collection was configured; a configured one that is
  // missing or broken fails.
  std::string const dir = spmvkit::test::optional_matrix_dir();
  if (dir.empty()) GTEST_SKIP() << "no optional matrix directory configured (SPMVKIT_MATRIX_DIR)";
  ASSERT_TRUE(fs::is_directory(dir)) << "SPMVKIT_MATRIX_DIR '" << dir << "' is not a directory";
  ASSERT_TRUE(fs::is_regular_file(fs::path(dir) / "README.md"))
      << "SPMVKIT_MATRIX_DIR '" << dir << "' has no README.md with the size table";
  auto const table = readme_table(fs::path(dir) / "README.md");
  int checked = 0;
  for (auto const& entry : fs::directory_iterator(dir)) {
    std::string const file = entry.path().filename().string();
    std::string const suffix = ".mtx.gz";
    if (file.size() <= suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string const name = file.substr(0, file.size() - suffix.size());
    SCOPED_TRACE(file);
    auto A = spmvkit::read_matrix_market<double, Host>(entry.path().string());
    // Structural sanity: sorted, in range, row_starts consistent.
    auto rs = A.row_starts();
    auto ci = A.column_indices();
    ASSERT_EQ(rs(0), 0);
    ASSERT_EQ(rs(A.num_rows()), A.nnz());
    for (int i = 0; i < A.num_rows(); ++i) {
      ASSERT_LE(rs(i), rs(i + 1));
      for (int k = rs(i); k < rs(i + 1); ++k) {
        ASSERT_GE(ci(k), 0);
        ASSERT_LT(ci(k), A.num_cols());
        if (k > rs(i)) {
          ASSERT_LT(ci(k - 1), ci(k));
        }
      }
    }
    auto const it = table.find(name);
    if (it == table.end()) {
      ADD_FAILURE() << name << " is not in " << dir << "/README.md";
      continue;
    }
    auto const [rows, cols, nnz] = it->second;
    EXPECT_EQ(A.num_rows(), rows);
    EXPECT_EQ(A.num_cols(), cols);
    EXPECT_EQ(A.nnz(), nnz);
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no *.mtx.gz with a README entry in " << dir;
  EXPECT_EQ(checked, static_cast<int>(table.size())) << "README lists matrices that are missing";
}

} // namespace
