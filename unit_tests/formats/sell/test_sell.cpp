// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The SELL formats (sell_matrix.hpp, sell_offset16_matrix.hpp): layout, conversions
// and the checks of the 16-bit encoding. Their SpMV is tested with every other
// format in test_spmv.cpp; blocks of columns with permuted rows are tested here too.
#include "test_utils.hpp"

#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/formats/sell_offset16/sell_offset16_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class SellTest : public ::testing::Test {};
TYPED_TEST_SUITE(SellTest, AllConfigs, ConfigNames);

/// Calls f(name, make) for each SELL format, make(A, C, sigma) converting a
/// CrsMatrix to it, so that one test body covers every column encoding.
template <class Scalar, class Exec, class F>
void for_each_sell_format(F&& f) {
  using Crs = CrsMatrix<Scalar, Exec>;
  f(std::string("sell"),
    [](Crs const& A, int C, std::int64_t sigma) { return make_sell(Exec(), A, C, sigma); });
  f(std::string("sell_offset16"), [](Crs const& A, int C, std::int64_t sigma) {
    return make_sell_offset16(Exec(), A, C, sigma);
  });
}

template <class View>
std::vector<double> host_values(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// Matrices every layout test runs over: random rows (empty rows, one long
/// row), chunk tails (n % C != 0, n < C), degenerate and rectangular shapes,
/// empty rows past the last column (padding must reach back to it) and
/// offsets at the int16 limits. All of them fit SellOffset16Matrix.
std::vector<std::pair<std::string, HostCrs>> layout_matrices() {
  return {
      {"random_with_long_row", random_crs(1000, 900, 30, 0.2, 700, 17)},
      {"random_33x5", random_crs(33, 5, 5, 0.5, 0, 18)},
      {"random_3x100", random_crs(3, 100, 20, 0.0, 0, 19)},
      {"banded_with_empty_rows", banded_crs(1000, 1000, 40, 30, 0.2, 32)},
      {"band_at_int16_limit", banded_crs(40000, 40000, 32767, 4, 0.1, 33)},
      {"n_below_chunk", banded_crs(5, 9, 3, 6, 0.0, 34)},
      {"empty_0x0", HostCrs{}},
      {"one_by_one", banded_crs(1, 1, 0, 1, 0.0, 36)},
      {"tall", banded_crs(523, 17, 8, 12, 0.25, 37)},
      {"all_rows_empty", banded_crs(70, 70, 5, 0, 1.0, 38)},
      {"no_columns", banded_crs(45, 0, 5, 3, 0.0, 39)},
  };
}

const int chunk_sizes[] = {1, 3, 4, 32};
const std::int64_t sigmas[] = {1, 2, 64};

// The SELL-2-1 example of the founding report, entry for entry, as columns
// and as offsets from the row.
TYPED_TEST(SellTest, MatchesReportExampleLayout) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h;
  h.rows = h.cols = 4;
  h.row_starts = {0, 2, 4, 5, 8};
  h.col = {1, 2, 0, 3, 2, 0, 2, 3};
  h.val = {3, 1, 4, 7, 6, 9, 5, 3};
  const auto A = make_device_crs<Scalar, Exec>(h);
  auto S = make_sell(Exec(), A, 2, 1);
  auto S16 = make_sell_offset16(Exec(), A, 2, 1);
  EXPECT_EQ(host_values(S.column_indices()), (std::vector<double>{1, 0, 2, 3, 2, 0, 2, 2, 2, 3}));
  EXPECT_EQ(host_values(S16.column_offsets()),
            (std::vector<double>{1, -1, 2, 2, 0, -3, 0, -1, 0, 0}));
  for (auto const& [name, values, starts, widths, stored, padding, permuted] :
       {std::make_tuple(std::string("sell"), host_values(S.values()), host_values(S.chunk_starts()),
                        host_values(S.chunk_widths()), std::int64_t(S.stored_entries()),
                        S.padding_ratio(), S.is_permuted()),
        std::make_tuple(std::string("sell_offset16"), host_values(S16.values()),
                        host_values(S16.chunk_starts()), host_values(S16.chunk_widths()),
                        std::int64_t(S16.stored_entries()), S16.padding_ratio(),
                        S16.is_permuted())}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(values, (std::vector<double>{3, 4, 1, 7, 6, 9, 0, 5, 0, 3}));
    EXPECT_EQ(starts, (std::vector<double>{0, 4, 10}));
    EXPECT_EQ(widths, (std::vector<double>{2, 3}));
    EXPECT_EQ(stored, 10);
    EXPECT_DOUBLE_EQ(padding, 10.0 / 8.0);
    EXPECT_FALSE(permuted);
  }
}

TYPED_TEST(SellTest, SortingWithinWindowsReducesPaddingAndKeepsPermutation) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h = random_crs(1000, 800, 50, 0.1, 600, 5);
  auto A = make_device_crs<Scalar, Exec>(h);
  auto S1 = make_sell(Exec(), A, 8, 1);
  auto S = make_sell(Exec(), A, 8, 64);
  EXPECT_LT(S.padding_ratio(), S1.padding_ratio());
  EXPECT_GE(S.padding_ratio(), 1.0);
  auto perm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.row_permutation());
  ASSERT_EQ(perm.extent(0), 1000u);
  for (std::int64_t w = 0; w < 1000; w += 64) {
    std::vector<bool> seen(64, false);
    for (std::int64_t i = w; i < std::min<std::int64_t>(w + 64, 1000); ++i) {
      // The permutation stays inside its window ...
      ASSERT_GE(perm(i), w);
      ASSERT_LT(perm(i), w + 64);
      ASSERT_FALSE(seen[perm(i) - w]);
      seen[perm(i) - w] = true;
      // ... and orders rows by non-increasing length.
      if (i > w) {
        const auto len = [&](std::int64_t r) { return h.row_starts[r + 1] - h.row_starts[r]; };
        EXPECT_GE(len(perm(i - 1)), len(perm(i)));
      }
    }
  }
  // Padding counted exactly: sum over chunks of C * widest row.
  std::int64_t stored = 0;
  for (std::int64_t c = 0; c < S.num_chunks(); ++c) {
    std::int64_t width = 0;
    for (std::int64_t i = c * 8; i < std::min<std::int64_t>(c * 8 + 8, 1000); ++i)
      width = std::max(width, h.row_starts[perm(i) + 1] - h.row_starts[perm(i)]);
    stored += 8 * width;
  }
  EXPECT_EQ(S.stored_entries(), stored);
  EXPECT_DOUBLE_EQ(S.padding_ratio(), double(stored) / double(h.nnz()));
}

// Every stored slot, padding included, must decode to a valid x entry, padding
// must hold zeros, and the entries must be the row's CRS entries in order.
// Both encodings share the chunk layout (permutation, widths, starts).
TYPED_TEST(SellTest, EverySlotDecodesToValidColumnAndEntriesFollowCrs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (auto const& [name, h] : layout_matrices()) {
    auto A = make_device_crs<Scalar, Exec>(h);
    for (int C : chunk_sizes)
      for (auto sigma : sigmas) {
        const auto R = make_sell(Exec(), A, C, sigma);
        for_each_sell_format<Scalar, Exec>([&, &h = h, &name = name](std::string const& format,
                                                                     auto make) {
          SCOPED_TRACE(format + " " + name + " C=" + std::to_string(C) +
                       " sigma=" + std::to_string(sigma));
          auto S = make(A, C, sigma);
          using Columns = typename decltype(S)::column_encoding;
          EXPECT_EQ(S.nnz(), h.nnz());
          EXPECT_EQ(S.is_permuted(),
                    std::min<std::int64_t>(sigma, h.rows) > 1); // sigma is clamped to the rows
          if (format != "sell") { // the same σ sort as make_sell (tested on its own above)
            EXPECT_EQ(host_values(S.row_permutation()), host_values(R.row_permutation()));
          }
          auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.chunk_starts());
          auto widths = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.chunk_widths());
          auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.stored_columns());
          auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.values());
          auto perm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.row_permutation());
          // Widths and starts recomputed here from the CRS row lengths.
          std::vector<double> expected_widths, expected_starts{0};
          for (std::int64_t chunk = 0; chunk < std::int64_t(S.num_chunks()); ++chunk) {
            std::int64_t width = 0;
            for (std::int64_t s = chunk * C; s < std::min<std::int64_t>(chunk * C + C, h.rows);
                 ++s) {
              const std::int64_t row = S.is_permuted() ? perm(s) : s;
              width = std::max(width, h.row_starts[row + 1] - h.row_starts[row]);
            }
            expected_widths.push_back(double(width));
            expected_starts.push_back(expected_starts.back() + double(C * width));
          }
          EXPECT_EQ(host_values(S.chunk_widths()), expected_widths);
          EXPECT_EQ(host_values(S.chunk_starts()), expected_starts);
          EXPECT_DOUBLE_EQ(S.padding_ratio(),
                           h.nnz() > 0 ? expected_starts.back() / double(h.nnz()) : 1.0);
          for (std::int64_t s = 0; s < std::int64_t(S.num_chunks()) * C; ++s) {
            const std::int64_t chunk = s / C;
            const std::int64_t row = s >= h.rows ? 0 : S.is_permuted() ? perm(s) : s;
            const std::int64_t begin = s >= h.rows ? 0 : h.row_starts[row];
            const std::int64_t len = s >= h.rows ? 0 : h.row_starts[row + 1] - begin;
            for (std::int64_t j = 0; j < widths(chunk); ++j) {
              const std::int64_t slot = starts(chunk) + s % C + j * C;
              const std::int64_t col = Columns::decode(cols(slot), static_cast<int>(row));
              ASSERT_GE(col, 0) << "stored row " << s << " slot " << j;
              ASSERT_LT(col, h.cols) << "stored row " << s << " slot " << j;
              if (j < len) {
                ASSERT_EQ(col, h.col[begin + j]) << "stored row " << s << " slot " << j;
                ASSERT_EQ(val(slot), static_cast<Scalar>(h.val[begin + j]));
              } else {
                ASSERT_EQ(val(slot), Scalar(0)) << "stored row " << s << " slot " << j;
              }
            }
          }
        });
      }
  }
}

TYPED_TEST(SellTest, RoundTripThroughSellIsExact) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (auto [name, h] : layout_matrices()) {
    // Explicit zeros must survive: they are indistinguishable from padding
    // by value, so this checks that the conversion tracks true row lengths.
    for (std::int64_t k = 0; k < h.nnz(); k += 5) h.val[k] = 0.0;
    auto A = make_device_crs<Scalar, Exec>(h);
    std::vector<double> expected(h.val.size());
    for (std::size_t k = 0; k < h.val.size(); ++k) expected[k] = static_cast<Scalar>(h.val[k]);
    for (int C : chunk_sizes)
      for (auto sigma : sigmas)
        for_each_sell_format<Scalar, Exec>(
            [&, &h = h, &name = name](std::string const& format, auto make) {
              SCOPED_TRACE(format + " " + name + " C=" + std::to_string(C) +
                           " sigma=" + std::to_string(sigma));
              auto back = to_host(to_crs(Exec(), make(A, C, sigma)));
              EXPECT_EQ(back.rows, h.rows);
              EXPECT_EQ(back.cols, h.cols);
              EXPECT_EQ(back.row_starts, h.row_starts);
              EXPECT_EQ(back.col, h.col);
              EXPECT_EQ(back.val, expected);
            });
  }
}

TYPED_TEST(SellTest, FemMatrixConvertsExactly) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_fem_poisson_crs<Scalar, Exec>(Exec(), 20);
  ASSERT_TRUE(can_use_sell_offset16(Exec(), A));
  const HostCrs h = to_host(A);
  for (int C : {8, 32})
    for (auto sigma : sigmas)
      for_each_sell_format<Scalar, Exec>([&](std::string const& format, auto make) {
        const auto back = to_host(to_crs(Exec(), make(A, C, sigma)));
        EXPECT_EQ(back.col, h.col) << format << " C=" << C << " sigma=" << sigma;
        EXPECT_EQ(back.val, h.val) << format << " C=" << C << " sigma=" << sigma;
      });
}

// The names before 0.3 (deprecated, removed in 0.4) are the same types and functions.
TYPED_TEST(SellTest, FormerSell16NamesAreAliases) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_fem_poisson_crs<Scalar, Exec>(Exec(), 6);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  static_assert(std::is_same_v<Sell16Matrix<Scalar, Exec>, SellOffset16Matrix<Scalar, Exec>>);
  static_assert(std::is_same_v<Sell16Format, SellOffset16Format>);
  static_assert(is_sell16_matrix<SellOffset16Matrix<Scalar, Exec>>::value);
  EXPECT_TRUE(can_use_sell16(Exec(), A));
  const auto old_name = make_sell16(Exec(), A, 8, 1);
#pragma GCC diagnostic pop
  const auto new_name = make_sell_offset16(Exec(), A, 8, 1);
  EXPECT_EQ(to_host(to_crs(Exec(), old_name)).col, to_host(to_crs(Exec(), new_name)).col);
  EXPECT_EQ(SellOffset16Format::family, std::string("sell_offset16"));
}

TYPED_TEST(SellTest, RejectsBadParameters) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_device_crs<Scalar, Exec>(random_crs(10, 10, 3, 0.0, 0, 1));
  for_each_sell_format<Scalar, Exec>([&](std::string const& format, auto make) {
    EXPECT_THROW(make(A, 0, 1), std::invalid_argument) << format;
    EXPECT_THROW(make(A, 4, 0), std::invalid_argument) << format;
  });
}

// Chunk sizes and windows the format's variants do not sweep: C = 1 (ELLPACK
// by rows), C = 7 (odd, not a divisor of anything), windows of 4C, of more
// rows than the matrix has, and the largest int64 (clamped to the row count:
// no overflow in the window arithmetic, examples pass --sigma through).
TYPED_TEST(SellTest, UnusualChunkSizesAndWindowsMatchReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = random_crs(777, 800, 30, 0.15, 500, 61);
  auto A = make_device_crs<Scalar, Exec>(h);
  V x = random_vector<V>(h.cols, 62, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh);
  for (int C : {1, 7, 64}) {
    for (std::int64_t sigma : {std::int64_t(1), std::int64_t(4) * C, std::int64_t(1) << 20,
                               std::numeric_limits<std::int64_t>::max()}) {
      for_each_sell_format<Scalar, Exec>([&](std::string const& format, auto make) {
        SCOPED_TRACE(format + " C=" + std::to_string(C) + " sigma=" + std::to_string(sigma));
        const auto S = make(A, C, sigma);
        EXPECT_LE(S.sigma(), std::max<std::int64_t>(h.rows, 1));
        V y("y", static_cast<std::size_t>(h.rows));
        Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
        spmv(Exec(), Scalar(1), S, x, Scalar(0), y);
        Kokkos::fence();
        EXPECT_TRUE(matches_reference<Scalar>(y, ref));
      });
    }
  }
}

/// Y = beta Y0 + alpha S X for blocks of k columns of one layout, column by column against the
/// reference: on hosts blocks of 8 or more columns walk whole chunks in the host shape, where
/// rows permuted by sigma and the rows past the end of the last chunk must still land right
/// (LayoutRight k = 32, 35: two blocks of 16 in one row loop).
template <class Scalar, class Exec, class Layout>
void check_sell_blocks(HostCrs const& h, CrsMatrix<Scalar, Exec> const& A) {
  using M = Kokkos::View<Scalar**, Layout, Exec>;
  for (int k : {8, 16, 17, 32, 35}) {
    const M X = random_columns<M>(h.cols, k, 71 + static_cast<unsigned>(k));
    const M Y0 = random_columns<M>(h.rows, k, 91 + static_cast<unsigned>(k));
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y0);
    for (int C : {4, 7, 8}) {
      for (std::int64_t sigma : {std::int64_t(1), std::int64_t(4) * C}) {
        for_each_sell_format<Scalar, Exec>([&](std::string const& format, auto make) {
          SCOPED_TRACE(format + " C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) +
                       " k=" + std::to_string(k));
          const auto S = make(A, C, sigma);
          M Y("Y", static_cast<std::size_t>(h.rows), static_cast<std::size_t>(k));
          Kokkos::deep_copy(Y, Y0);
          spmv(Exec(), Scalar(-2), S, X, Scalar(0.5), Y);
          Kokkos::fence();
          auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
          for (int c = 0; c < k; ++c) {
            const auto ref = reference_spmv<Scalar>(h, -2.0, Kokkos::subview(xh, Kokkos::ALL, c),
                                                    0.5, Kokkos::subview(y0h, Kokkos::ALL, c));
            EXPECT_TRUE(matches_reference<Scalar>(Kokkos::subview(yh, Kokkos::ALL, c), ref))
                << "column " << c;
          }
        });
      }
    }
  }
}

TYPED_TEST(SellTest, BlocksOfColumnsWithPermutedRowsMatchReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Row lengths 0 to 30 plus one long row, so that sorting by sigma moves rows; 779 rows leave a
  // partial last chunk for every C.
  const HostCrs h = random_crs(779, 800, 30, 0.15, 500, 63);
  auto A = make_device_crs<Scalar, Exec>(h);
  check_sell_blocks<Scalar, Exec, Kokkos::LayoutLeft>(h, A);
  check_sell_blocks<Scalar, Exec, Kokkos::LayoutRight>(h, A);
}

/// make_sell_offset16's error message for h, or "" if it accepts h; checks that
/// can_use_sell_offset16 agrees.
template <class Scalar, class Exec>
std::string sell_offset16_rejection(HostCrs const& h) {
  auto A = make_device_crs<Scalar, Exec>(h);
  const bool usable = can_use_sell_offset16(Exec(), A);
  try {
    make_sell_offset16(Exec(), A, 4, 1);
  } catch (std::invalid_argument const& e) {
    EXPECT_FALSE(usable) << "can_use_sell_offset16 disagrees with make_sell_offset16";
    return e.what();
  }
  EXPECT_TRUE(usable) << "can_use_sell_offset16 disagrees with make_sell_offset16";
  return "";
}

TYPED_TEST(SellTest, SellOffset16RejectsOffsetsOutsideInt16NamingTheFirstRow) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Row 17 reaches column 40000; row 30, also too far, must not be named.
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t i = 0; i < 50; ++i) {
    e.push_back({i, i});
    if (i == 17) e.push_back({i, 40000});
    if (i == 30) e.push_back({i, 39000});
  }
  EXPECT_EQ((sell_offset16_rejection<Scalar, Exec>(from_entries(50, 40001, e))),
            "spmvkit::make_sell_offset16: row 17 has column 40000, offset 39983 outside int16; use "
            "SellMatrix");
  EXPECT_NE((sell_offset16_rejection<Scalar, Exec>(from_entries(40001, 40001, {{40000, 0}})))
                .find("row 40000 has column 0, offset -40000"),
            std::string::npos);
  // The int16 limits themselves are accepted, one past them is not.
  EXPECT_EQ(
      (sell_offset16_rejection<Scalar, Exec>(from_entries(40000, 40000, {{0, 32767}, {32768, 0}}))),
      "");
  EXPECT_NE((sell_offset16_rejection<Scalar, Exec>(from_entries(40000, 40000, {{0, 32768}})))
                .find("row 0 "),
            std::string::npos);
  EXPECT_NE((sell_offset16_rejection<Scalar, Exec>(from_entries(40000, 40000, {{32769, 0}})))
                .find("row 32769"),
            std::string::npos);
}

// An empty row pads with the nearest valid column; one more than 32768 rows
// past the last column cannot, so a matrix with such a row is rejected,
// unless it has no entries at all (nothing is padded then).
TYPED_TEST(SellTest, SellOffset16PaddingOfEmptyRowsPastTheLastColumn) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  // Row 32768 is empty and pads with offset -32767, row 32769 holds offset
  // -32768, and with C = 4 the last chunk also holds two rows past the end.
  HostCrs edge = from_entries(32770, 2, {{0, 0}, {0, 1}, {32769, 1}});
  EXPECT_EQ((sell_offset16_rejection<Scalar, Exec>(edge)), "");
  auto A = make_device_crs<Scalar, Exec>(edge);
  V x = random_vector<V>(2, 1, "x");
  V y("y", 32770);
  Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(edge, 1.0, xh, 0.0, xh);
  for (int C : chunk_sizes)
    for (auto sigma : sigmas) {
      spmv(Exec(), Scalar(1), make_sell_offset16(Exec(), A, C, sigma), x, Scalar(0), y);
      Kokkos::fence();
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << "C=" << C << " sigma=" << sigma;
    }
  EXPECT_EQ(
      (sell_offset16_rejection<Scalar, Exec>(from_entries(32771, 2, {{0, 0}, {32769, 1}}))),
      "spmvkit::make_sell_offset16: row 32770 has no entries and lies more than 32768 rows past "
      "the last column, so its padding could not address x; use SellMatrix");
  EXPECT_EQ((sell_offset16_rejection<Scalar, Exec>(from_entries(40000, 1, {}))), "");
}

} // namespace

// longest_row() is the longest row of the source (the widest chunk), kept after the first call;
// a static host launch of 16 blocks walks chunk shares of equal weighted rows plus slots
// (balanced_first_unit over the chunk starts: contiguous, covering every chunk once), GPU teams
// chunks_per_team chunks; and a product past host_static_max_entries over alike rows, the static
// launch on hosts, matches the CRS product.
TYPED_TEST(SellTest, LongestRowAndWeightedHostBlocks) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (auto const& matrix : layout_matrices()) {
    // Not a structured binding: C++17 lambdas cannot capture those.
    std::string const& name = matrix.first;
    HostCrs const& h = matrix.second;
    std::int64_t longest = 0;
    for (std::int64_t r = 0; r < h.rows; ++r) {
      longest = std::max<std::int64_t>(longest, h.row_starts[static_cast<std::size_t>(r) + 1] -
                                                    h.row_starts[static_cast<std::size_t>(r)]);
    }
    const auto A = make_device_crs<Scalar, Exec>(h);
    for (int C : {1, 4, 32}) {
      for (std::int64_t sigma : {std::int64_t(1), std::int64_t(64)}) {
        for_each_sell_format<Scalar, Exec>([&](std::string const& format, auto make) {
          SCOPED_TRACE(name + " " + format + " C=" + std::to_string(C) +
                       " sigma=" + std::to_string(sigma));
          const auto S = make(A, C, sigma);
          EXPECT_EQ(S.longest_row(), longest);
          EXPECT_EQ(S.longest_row(), longest); // the kept value, on a second call
          using Kernel = detail::SellSpmv<1, 1, std::decay_t<decltype(S)>, V, V>;
          detail::LaunchParameters p;
          detail::split_per_thread(p, S.num_chunks(), 16);
          const V x("x", h.cols), y("y", h.rows);
          const Kernel k{S.chunk_starts(),
                         S.chunk_widths(),
                         S.stored_columns(),
                         S.values(),
                         S.row_permutation(),
                         x,
                         y,
                         Scalar(1),
                         Scalar(0),
                         S.num_rows(),
                         S.num_chunks(),
                         S.chunk_size(),
                         static_cast<int>(p.work_per_team),
                         false,
                         detail::is_host_space_v<Exec> ? p.league_size : 0};
          auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.chunk_starts());
          std::int64_t next = 0;
          for (std::int64_t b = 0; b < p.league_size; ++b) {
            const auto chunks = k.block_chunks(b);
            if constexpr (detail::is_host_space_v<Exec>) {
              ASSERT_EQ(chunks.first, next) << "block " << b;
              ASSERT_EQ(chunks.second,
                        detail::balanced_first_unit(starts, S.num_chunks(), b + 1, p.league_size,
                                                    detail::host_row_weight * C))
                  << "block " << b;
              next = chunks.second;
            } else {
              ASSERT_EQ(chunks.first, b * p.work_per_team) << "block " << b;
            }
          }
          if (detail::is_host_space_v<Exec>) {
            EXPECT_EQ(next, S.num_chunks());
          }
        });
      }
    }
  }
  // FEM N = 32: 753,571 entries, rows of 8 to 27 entries.
  const auto F = make_fem_poisson_crs<Scalar, Exec>(Exec(), 32);
  ASSERT_GT(static_cast<std::int64_t>(F.nnz()), detail::host_static_max_entries);
  const V x = random_vector<V>(F.num_cols(), 5, "x");
  V by_crs("by_crs", F.num_rows());
  spmv(Exec(), Scalar(1), F, x, Scalar(0), by_crs, CrsKernel::row_per_thread);
  auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_crs);
  const double tol = std::is_same_v<Scalar, float> ? 1e-4 : 1e-12;
  for (int C : {8, 32}) {
    for_each_sell_format<Scalar, Exec>([&](std::string const& format, auto make) {
      SCOPED_TRACE(format + " C=" + std::to_string(C));
      const auto S = make(F, C, 1);
      const auto p = detail::padded_rows_launch_parameters(Exec(), detail::KernelKind::sell,
                                                           S.num_rows(), S.nnz(), S.nnz(), C,
                                                           [&] { return S.longest_row(); });
      EXPECT_EQ(p.static_schedule, detail::is_host_space_v<Exec>);
      V y("y", F.num_rows());
      Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
      spmv(Exec(), Scalar(1), S, x, Scalar(0), y);
      auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (std::int64_t i = 0; i < F.num_rows(); ++i) {
        ASSERT_NEAR(s(i), r(i), tol * (1 + std::abs(r(i)))) << "row " << i;
      }
    });
  }
}
