// Sell16Matrix (sell16_matrix.hpp): SELL-C-σ with 16-bit column offsets.
#include "test_utils.hpp"

#include <spmvkit/fem_poisson.hpp>
#include <spmvkit/kokkos_kernels.hpp>
#include <spmvkit/sell16_matrix.hpp>
#include <spmvkit/spmv.hpp>

#include <limits>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class Sell16Test : public ::testing::Test {};
TYPED_TEST_SUITE(Sell16Test, AllConfigs, ConfigNames);

/// Random matrix whose columns lie within [row - K, row + K] ∩ [0, cols):
/// lengths drawn from [0, max_row], some rows forced empty, and about a third
/// of the rows also get both ends of their band, so that offsets of exactly
/// ±K (the int16 limits when K = 32767) occur.
HostCrs banded_crs(std::int64_t rows, std::int64_t cols, std::int64_t K, int max_row,
                   double empty_fraction, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(0.05, 1.0), unit(0.0, 1.0);
  HostCrs A;
  A.rows = rows;
  A.cols = cols;
  std::vector<std::int64_t> pick;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t lo = std::max<std::int64_t>(0, i - K);
    const std::int64_t hi = std::min<std::int64_t>(cols - 1, i + K);
    pick.clear();
    if (lo <= hi && unit(gen) >= empty_fraction) {
      const std::int64_t len =
          std::min<std::int64_t>(hi - lo + 1, std::uniform_int_distribution<int>(0, max_row)(gen));
      std::uniform_int_distribution<std::int64_t> column(lo, hi);
      while (static_cast<std::int64_t>(pick.size()) < len) {
        const auto c = column(gen);
        if (std::find(pick.begin(), pick.end(), c) == pick.end()) pick.push_back(c);
      }
      if (len > 0 && unit(gen) < 0.3) {
        for (auto c : {lo, hi})
          if (std::find(pick.begin(), pick.end(), c) == pick.end()) pick.push_back(c);
      }
    }
    std::sort(pick.begin(), pick.end());
    for (auto c : pick) {
      A.col.push_back(c);
      A.val.push_back(unit(gen) < 0.5 ? value(gen) : -value(gen));
    }
    A.row_starts.push_back(static_cast<std::int64_t>(A.col.size()));
  }
  return A;
}

struct Shape {
  char const* name;
  std::int64_t rows, cols, K;
  int max_row;
  double empty_fraction;
};

// Chunk tails (n % C != 0, n < C), empty rows and chunks, degenerate sizes,
// rectangular shapes where row + offset must stay inside [0, cols), empty rows
// past the last column (padding reaches back to it), and the int16 limits.
const Shape shapes[] = {
    {"banded_with_empty_rows", 1000, 1000, 40, 30, 0.2},
    {"band_at_int16_limit", 40000, 40000, 32767, 4, 0.1},
    {"n_below_chunk", 5, 9, 3, 6, 0.0},
    {"empty_0x0", 0, 0, 0, 0, 0.0},
    {"one_by_one", 1, 1, 0, 1, 0.0},
    {"wide", 37, 400, 150, 60, 0.1},
    {"tall", 523, 17, 8, 12, 0.25},
    {"all_rows_empty", 70, 70, 5, 0, 1.0},
    {"no_columns", 45, 0, 5, 3, 0.0},
};

const int chunk_sizes[] = {1, 4, 7, 32};
const std::int64_t sigmas[] = {1, 64};

struct Coefficients {
  double alpha, beta;
};
const Coefficients coefficients[] = {{1.0, 0.0}, {2.5, -1.5}, {-1.0, 1.0},
                                     {0.0, 2.0}, {0.0, 0.0},  {0.75, 0.0}};

TYPED_TEST(Sell16Test, MatchesReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 31;
  for (auto const& shape : shapes) {
    HostCrs h =
        banded_crs(shape.rows, shape.cols, shape.K, shape.max_row, shape.empty_fraction, ++seed);
    auto A = make_device_crs<Scalar, Exec>(h);
    ASSERT_TRUE(can_use_sell16(Exec(), A)) << shape.name;
    std::vector<Sell16Matrix<Scalar, Exec>> formats;
    std::vector<std::string> names;
    for (int C : chunk_sizes)
      for (auto sigma : sigmas) {
        formats.push_back(make_sell16(Exec(), A, C, sigma));
        names.push_back("sell16_C" + std::to_string(C) + "_sigma" + std::to_string(sigma));
      }
    auto kkA = to_kokkos_kernels(A);
    V x = random_vector<V>(shape.cols, ++seed, "x");
    V y0 = random_vector<V>(shape.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    for (auto const& ab : coefficients) {
      SCOPED_TRACE(std::string(shape.name) + " alpha=" + std::to_string(ab.alpha) +
                   " beta=" + std::to_string(ab.beta));
      const auto ref = reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h);
      // beta == 0 must overwrite whatever y holds, NaN included.
      const Scalar fill = ab.beta == 0.0 ? std::numeric_limits<Scalar>::quiet_NaN() : Scalar(0);
      V y("y", static_cast<std::size_t>(shape.rows));
      auto reset = [&] {
        if (ab.beta == 0.0)
          Kokkos::deep_copy(y, fill);
        else
          Kokkos::deep_copy(y, y0);
      };
      reset();
      KokkosSparse::spmv("N", Scalar(ab.alpha), kkA, x, Scalar(ab.beta), y);
      Kokkos::fence();
      ASSERT_TRUE(matches_reference<Scalar>(y, ref)) << "Kokkos Kernels spmv";
      for (std::size_t f = 0; f < formats.size(); ++f) {
        reset();
        spmv(Exec(), Scalar(ab.alpha), formats[f], x, Scalar(ab.beta), y);
        Kokkos::fence();
        EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << names[f];
      }
      reset();
      spmv(Scalar(ab.alpha), formats.back(), x, Scalar(ab.beta), y); // default instance
      Kokkos::fence();
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << "default execution space instance";
    }
  }
}

// Every stored slot, padding included, must address a valid x entry, and
// padding must hold zeros; the chunk layout is that of make_sell().
TYPED_TEST(Sell16Test, EverySlotAddressesValidColumnAndLayoutMatchesSell) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  unsigned seed = 71;
  for (auto const& shape : shapes) {
    HostCrs h =
        banded_crs(shape.rows, shape.cols, shape.K, shape.max_row, shape.empty_fraction, ++seed);
    auto A = make_device_crs<Scalar, Exec>(h);
    for (int C : chunk_sizes)
      for (auto sigma : sigmas) {
        SCOPED_TRACE(std::string(shape.name) + " C=" + std::to_string(C) +
                     " sigma=" + std::to_string(sigma));
        auto S = make_sell16(Exec(), A, C, sigma);
        auto R = make_sell(Exec(), A, C, sigma);
        EXPECT_EQ(S.stored_entries(), R.stored_entries());
        EXPECT_EQ(S.nnz(), h.nnz());
        EXPECT_EQ(S.is_permuted(), sigma > 1 && h.rows > 0);
        EXPECT_DOUBLE_EQ(S.padding_ratio(), R.padding_ratio());
        auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.chunk_starts());
        auto widths = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.chunk_widths());
        auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.column_offsets());
        auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.values());
        auto perm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.row_permutation());
        auto rcol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), R.column_indices());
        for (std::int64_t s = 0; s < std::int64_t(S.num_chunks()) * C; ++s) {
          const std::int64_t chunk = s / C;
          const std::int64_t row = s >= h.rows ? 0 : S.is_permuted() ? perm(s) : s;
          const std::int64_t len = s >= h.rows ? 0 : h.row_starts[row + 1] - h.row_starts[row];
          for (std::int64_t j = 0; j < widths(chunk); ++j) {
            const std::int64_t slot = starts(chunk) + s % C + j * C;
            const std::int64_t col = row + off(slot);
            ASSERT_GE(col, 0) << "stored row " << s << " slot " << j;
            ASSERT_LT(col, h.cols) << "stored row " << s << " slot " << j;
            if (j < len) {
              ASSERT_EQ(col, rcol(slot));
            } else {
              ASSERT_EQ(val(slot), Scalar(0));
            }
          }
        }
      }
  }
}

// The SELL-2-1 example of the founding report (test_sell.cpp), as offsets.
TYPED_TEST(Sell16Test, MatchesReportExampleLayout) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h;
  h.rows = h.cols = 4;
  h.row_starts = {0, 2, 4, 5, 8};
  h.col = {1, 2, 0, 3, 2, 0, 2, 3};
  h.val = {3, 1, 4, 7, 6, 9, 5, 3};
  auto S = make_sell16(Exec(), make_device_crs<Scalar, Exec>(h), 2, 1);
  auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.column_offsets());
  auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.values());
  EXPECT_EQ(std::vector<int>(off.data(), off.data() + off.extent(0)),
            (std::vector<int>{1, -1, 2, 2, 0, -3, 0, -1, 0, 0}));
  EXPECT_EQ(std::vector<double>(val.data(), val.data() + val.extent(0)),
            (std::vector<double>{3, 4, 1, 7, 6, 9, 0, 5, 0, 3}));
  EXPECT_EQ(S.stored_entries(), 10);
}

TYPED_TEST(Sell16Test, RoundTripIsExact) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  unsigned seed = 91;
  for (auto const& shape : shapes) {
    HostCrs h =
        banded_crs(shape.rows, shape.cols, shape.K, shape.max_row, shape.empty_fraction, ++seed);
    // Explicit zeros must survive: by value they look like padding.
    for (std::int64_t k = 0; k < h.nnz(); k += 5) h.val[k] = 0.0;
    auto A = make_device_crs<Scalar, Exec>(h);
    std::vector<double> expected(h.val.size());
    for (std::size_t k = 0; k < h.val.size(); ++k) expected[k] = static_cast<Scalar>(h.val[k]);
    for (int C : chunk_sizes)
      for (auto sigma : sigmas) {
        SCOPED_TRACE(std::string(shape.name) + " C=" + std::to_string(C) +
                     " sigma=" + std::to_string(sigma));
        auto back = to_host(to_crs(Exec(), make_sell16(Exec(), A, C, sigma)));
        EXPECT_EQ(back.rows, h.rows);
        EXPECT_EQ(back.cols, h.cols);
        EXPECT_EQ(back.row_starts, h.row_starts);
        EXPECT_EQ(back.col, h.col);
        EXPECT_EQ(back.val, expected);
      }
  }
}

HostCrs from_entries(std::int64_t rows, std::int64_t cols,
                     std::vector<std::pair<std::int64_t, std::int64_t>> const& entries) {
  HostCrs h;
  h.rows = rows;
  h.cols = cols;
  h.row_starts.assign(static_cast<std::size_t>(rows + 1), 0);
  for (auto const& e : entries) ++h.row_starts[e.first + 1];
  for (std::int64_t i = 0; i < rows; ++i) h.row_starts[i + 1] += h.row_starts[i];
  for (auto const& e : entries) { // entries come sorted by (row, col)
    h.col.push_back(e.second);
    h.val.push_back(1.0 + 0.5 * static_cast<double>(h.col.size()));
  }
  return h;
}

template <class Scalar, class Exec>
std::string rejection(HostCrs const& h) {
  auto A = make_device_crs<Scalar, Exec>(h);
  const bool usable = can_use_sell16(Exec(), A);
  try {
    make_sell16(Exec(), A, 4, 1);
  } catch (std::invalid_argument const& e) {
    EXPECT_FALSE(usable) << "can_use_sell16 disagrees with make_sell16";
    return e.what();
  }
  EXPECT_TRUE(usable) << "can_use_sell16 disagrees with make_sell16";
  return "";
}

TYPED_TEST(Sell16Test, RejectsOffsetsOutsideInt16NamingTheFirstRow) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h = banded_crs(50, 40001, 3, 4, 0.0, 5);
  // Row 17 reaches column 40000; row 30, also too far, must not be named.
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t i = 0; i < 50; ++i) {
    e.push_back({i, i});
    if (i == 17) e.push_back({i, 40000});
    if (i == 30) e.push_back({i, 39000});
  }
  EXPECT_EQ((rejection<Scalar, Exec>(from_entries(50, 40001, e))),
            "spmvkit::make_sell16: row 17 has column 40000, offset 39983 outside int16; use "
            "SellMatrix");
  EXPECT_NE((rejection<Scalar, Exec>(from_entries(40001, 40001, {{40000, 0}})))
                .find("row 40000 has column 0, offset -40000"),
            std::string::npos);
  // The int16 limits themselves are accepted, one past them is not.
  EXPECT_EQ((rejection<Scalar, Exec>(from_entries(40000, 40000, {{0, 32767}, {32768, 0}}))), "");
  EXPECT_NE((rejection<Scalar, Exec>(from_entries(40000, 40000, {{0, 32768}}))).find("row 0 "),
            std::string::npos);
  EXPECT_NE((rejection<Scalar, Exec>(from_entries(40000, 40000, {{32769, 0}}))).find("row 32769"),
            std::string::npos);
  auto A = make_device_crs<Scalar, Exec>(h);
  EXPECT_THROW(make_sell16(Exec(), A, 0, 1), std::invalid_argument);
  EXPECT_THROW(make_sell16(Exec(), A, 4, 0), std::invalid_argument);
}

// An empty row pads with the nearest valid column; one more than 32768 rows
// past the last column cannot, so a matrix with such a row is rejected,
// unless it has no entries at all (nothing is padded then).
TYPED_TEST(Sell16Test, PaddingOfEmptyRowsPastTheLastColumn) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  // Row 32768 is empty and pads with offset -32767, row 32769 holds offset
  // -32768, and with C = 4 the last chunk also holds two rows past the end.
  HostCrs edge = from_entries(32770, 2, {{0, 0}, {0, 1}, {32769, 1}});
  EXPECT_EQ((rejection<Scalar, Exec>(edge)), "");
  auto A = make_device_crs<Scalar, Exec>(edge);
  V x = random_vector<V>(2, 1, "x");
  V y("y", 32770);
  Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(edge, 1.0, xh, 0.0, xh);
  for (int C : chunk_sizes)
    for (auto sigma : sigmas) {
      spmv(Exec(), Scalar(1), make_sell16(Exec(), A, C, sigma), x, Scalar(0), y);
      Kokkos::fence();
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << "C=" << C << " sigma=" << sigma;
    }
  EXPECT_EQ((rejection<Scalar, Exec>(from_entries(32771, 2, {{0, 0}, {32769, 1}}))),
            "spmvkit::make_sell16: row 32770 has no entries and lies more than 32768 rows past "
            "the last column, so its padding could not address x; use SellMatrix");
  EXPECT_EQ((rejection<Scalar, Exec>(from_entries(40000, 1, {}))), "");
}

TYPED_TEST(Sell16Test, FemMatrixConvertsAndMatchesCrs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  auto A = make_fem_poisson_crs<Scalar, Exec>(Exec(), 20);
  ASSERT_TRUE(can_use_sell16(Exec(), A));
  const HostCrs h = to_host(A);
  V x = random_vector<V>(h.cols, 3, "x");
  V y0 = random_vector<V>(h.rows, 4, "y0");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  const auto ref = reference_spmv<Scalar>(h, 1.5, xh, -0.5, y0h);
  V y_crs("y_crs", static_cast<std::size_t>(h.rows)), y("y", static_cast<std::size_t>(h.rows));
  Kokkos::deep_copy(y_crs, y0);
  spmv(Exec(), Scalar(1.5), A, x, Scalar(-0.5), y_crs);
  Kokkos::fence();
  ASSERT_TRUE(matches_reference<Scalar>(y_crs, ref)) << "CRS";
  for (int C : {8, 32})
    for (auto sigma : sigmas) {
      auto S = make_sell16(Exec(), A, C, sigma);
      EXPECT_EQ(to_host(to_crs(Exec(), S)).col, h.col);
      Kokkos::deep_copy(y, y0);
      spmv(Exec(), Scalar(1.5), S, x, Scalar(-0.5), y);
      Kokkos::fence();
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << "C=" << C << " sigma=" << sigma;
    }
}

TYPED_TEST(Sell16Test, RejectsMismatchedExtentsAndAliasing) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  auto S = make_sell16(Exec(), make_device_crs<Scalar, Exec>(banded_crs(12, 12, 2, 4, 0.0, 3)), 4);
  V x("x", 12), short_x("x", 11), long_y("y", 13);
  EXPECT_THROW(spmv(Exec(), Scalar(1), S, short_x, Scalar(0), x), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), Scalar(1), S, x, Scalar(0), long_y), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), Scalar(1), S, x, Scalar(0), x), std::invalid_argument);
}

} // namespace
