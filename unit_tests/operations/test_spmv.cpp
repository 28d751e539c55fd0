#include "test_utils.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/formats/sell16/sell16_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class SpmvTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpmvTest, AllConfigs, ConfigNames);

struct Shape {
  char const* name;
  std::int64_t rows, cols;
  int max_row;
  double empty_fraction;
  std::int64_t long_row;
};

// Each shape targets one way a kernel can go wrong: chunk tails (n % C != 0,
// n < C), empty rows and chunks, one row far longer than the rest (CRS vector
// lanes, SELL chunk width), degenerate sizes and non-square shapes.
const Shape shapes[] = {
    {"random_with_empty_rows", 1000, 1000, 40, 0.2, 0},
    {"single_very_long_row", 777, 5000, 8, 0.1, 4000},
    {"n_below_chunk", 5, 9, 6, 0.0, 0},
    {"empty_0x0", 0, 0, 0, 0.0, 0},
    {"one_by_one", 1, 1, 1, 0.0, 0},
    {"wide", 37, 400, 60, 0.1, 0},
    {"tall", 523, 17, 12, 0.25, 0},
    {"all_rows_empty", 70, 70, 0, 1.0, 0},
    {"no_columns", 45, 0, 0, 0.0, 0},
};

struct Coefficients {
  double alpha, beta;
};
const Coefficients coefficients[] = {{1.0, 0.0}, {2.5, -1.5}, {-1.0, 1.0},
                                     {0.0, 2.0}, {0.0, 0.0},  {0.75, 0.0}};

/// Every SpMV variant the library ships, applied to one CRS matrix.
template <class Scalar, class Exec>
struct Variant {
  std::string name;
  std::function<void(Scalar, CrsMatrix<Scalar, Exec> const&, Kokkos::View<Scalar*, Exec>, Scalar,
                     Kokkos::View<Scalar*, Exec>)>
      run;
  bool needs_int16_offsets = false; ///< Sell16Matrix: only where can_use_sell16()
};

template <class Scalar, class Exec>
std::vector<Variant<Scalar, Exec>> variants() {
  using Crs = CrsMatrix<Scalar, Exec>;
  using V = Kokkos::View<Scalar*, Exec>;
  std::vector<Variant<Scalar, Exec>> out;
  out.push_back({"crs_row_per_thread", [](Scalar a, Crs const& A, V x, Scalar b, V y) {
                   spmv(Exec(), a, A, x, b, y, CrsKernel::row_per_thread);
                 }});
  out.push_back({"crs_vector", [](Scalar a, Crs const& A, V x, Scalar b, V y) {
                   spmv(Exec(), a, A, x, b, y, CrsKernel::vector);
                 }});
  out.push_back(
      {"crs_automatic", [](Scalar a, Crs const& A, V x, Scalar b, V y) { spmv(a, A, x, b, y); }});
  for (int C : {1, 4, 7, 32, 64}) {
    for (std::int64_t sigma : {std::int64_t(1), std::int64_t(4) * C, std::int64_t(1) << 20}) {
      const std::string suffix = "_C" + std::to_string(C) + "_sigma" + std::to_string(sigma);
      out.push_back({"sell" + suffix, [C, sigma](Scalar a, Crs const& A, V x, Scalar b, V y) {
                       spmv(Exec(), a, make_sell(Exec(), A, C, sigma), x, b, y);
                     }});
      out.push_back({"sell16" + suffix,
                     [C, sigma](Scalar a, Crs const& A, V x, Scalar b, V y) {
                       spmv(Exec(), a, make_sell16(Exec(), A, C, sigma), x, b, y);
                     },
                     true});
    }
  }
  out.push_back({"sell16_default_instance",
                 [](Scalar a, Crs const& A, V x, Scalar b, V y) {
                   spmv(a, make_sell16(Exec(), A, 32, 1), x, b, y);
                 },
                 true});
  return out;
}

TYPED_TEST(SpmvTest, EveryFormatMatchesReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 7;
  std::vector<std::pair<std::string, HostCrs>> matrices;
  for (auto const& shape : shapes) {
    matrices.push_back({shape.name, random_crs(shape.rows, shape.cols, shape.max_row,
                                               shape.empty_fraction, shape.long_row, ++seed)});
  }
  // Column offsets of exactly ±32767 (the Sell16 limit) and a band with empty rows.
  matrices.push_back({"band_at_int16_limit", banded_crs(40000, 40000, 32767, 4, 0.1, ++seed)});
  matrices.push_back({"banded_with_empty_rows", banded_crs(1000, 1000, 40, 30, 0.2, ++seed)});
  for (auto const& [name, h] : matrices) {
    auto A = make_device_crs<Scalar, Exec>(h);
    auto kkA = to_kokkos_kernels(A);
    V x = random_vector<V>(h.cols, ++seed, "x");
    V y0 = random_vector<V>(h.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    for (auto const& ab : coefficients) {
      SCOPED_TRACE(name + " alpha=" + std::to_string(ab.alpha) +
                   " beta=" + std::to_string(ab.beta));
      const auto ref = reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h);
      // beta == 0 must overwrite whatever y holds, NaN included.
      const Scalar fill = ab.beta == 0.0 ? std::numeric_limits<Scalar>::quiet_NaN() : Scalar(0);
      V y("y", static_cast<std::size_t>(h.rows));

      if (ab.beta == 0.0)
        Kokkos::deep_copy(y, fill);
      else
        Kokkos::deep_copy(y, y0);
      KokkosSparse::spmv("N", Scalar(ab.alpha), kkA, x, Scalar(ab.beta), y);
      Kokkos::fence();
      ASSERT_TRUE(matches_reference<Scalar>(y, ref)) << "Kokkos Kernels spmv";

      for (auto const& v : variants<Scalar, Exec>()) {
        if (ab.beta == 0.0)
          Kokkos::deep_copy(y, fill);
        else
          Kokkos::deep_copy(y, y0);
        v.run(Scalar(ab.alpha), A, x, Scalar(ab.beta), y);
        Kokkos::fence();
        EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << v.name;
      }
    }
  }
}

std::filesystem::path matrix_dir() {
  if (char const* env = std::getenv("SPMVKIT_MATRIX_DIR")) return env;
  return SPMVKIT_MATRIX_DIR;
}

// The SuiteSparse matrices shipped with the project: real, integer and
// pattern fields, symmetric and general, 1K to 126K rows.
TYPED_TEST(SpmvTest, RealMatricesMatchReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const auto dir = matrix_dir();
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no matrix directory " << dir;
  std::vector<std::filesystem::path> files;
  for (auto const& e : std::filesystem::directory_iterator(dir))
    if (e.path().string().size() > 7 &&
        e.path().string().compare(e.path().string().size() - 7, 7, ".mtx.gz") == 0)
      files.push_back(e.path());
  ASSERT_FALSE(files.empty()) << "no .mtx.gz files in " << dir;
  unsigned seed = 99;
  int sell16_checked = 0;
  for (auto const& file : files) {
    SCOPED_TRACE(file.string());
    auto A = read_matrix_market<Scalar, Exec>(file.string());
    const HostCrs h = to_host(A);
    V x = random_vector<V>(A.num_cols(), ++seed, "x");
    V y0 = random_vector<V>(A.num_rows(), ++seed, "y0");
    V y("y", static_cast<std::size_t>(A.num_rows()));
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    const double alpha = 1.5, beta = -0.5;
    const auto ref = reference_spmv<Scalar>(h, alpha, xh, beta, y0h);
    Kokkos::deep_copy(y, y0);
    KokkosSparse::spmv("N", Scalar(alpha), to_kokkos_kernels(A), x, Scalar(beta), y);
    Kokkos::fence();
    ASSERT_TRUE(matches_reference<Scalar>(y, ref)) << "Kokkos Kernels spmv";
    const bool fits_int16 = can_use_sell16(Exec(), A);
    sell16_checked += fits_int16 ? 1 : 0;
    for (auto const& v : variants<Scalar, Exec>()) {
      if (v.needs_int16_offsets && !fits_int16) continue;
      Kokkos::deep_copy(y, y0);
      v.run(Scalar(alpha), A, x, Scalar(beta), y);
      Kokkos::fence();
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << v.name;
    }
  }
  // Most SuiteSparse matrices here are banded enough for 16-bit offsets.
  EXPECT_GT(sell16_checked, 0);
}

// Products are deterministic: repeating one gives bit-identical results, so
// CG runs are reproducible whatever the thread count or schedule.
TYPED_TEST(SpmvTest, RepeatedProductsAreBitIdentical) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  HostCrs h = random_crs(3000, 2500, 30, 0.1, 900, 21);
  auto A = make_device_crs<Scalar, Exec>(h);
  auto S = make_sell(Exec(), A, 8, 32);
  auto S16 = make_sell16(Exec(), A, 8, 32);
  V x = random_vector<V>(h.cols, 5, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh);
  std::vector<std::function<void(V)>> products = {
      [&](V y) { spmv(Exec(), Scalar(1), A, x, Scalar(0), y, CrsKernel::row_per_thread); },
      [&](V y) { spmv(Exec(), Scalar(1), A, x, Scalar(0), y, CrsKernel::vector); },
      [&](V y) { spmv(Exec(), Scalar(1), S, x, Scalar(0), y); },
      [&](V y) { spmv(Exec(), Scalar(1), S16, x, Scalar(0), y); }};
  for (auto const& product : products) {
    V first("first", static_cast<std::size_t>(h.rows));
    product(first);
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first);
    ASSERT_TRUE(matches_reference<Scalar>(first, ref));
    for (int repeat = 0; repeat < 3; ++repeat) {
      V again("again", static_cast<std::size_t>(h.rows));
      product(again);
      auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
      for (std::int64_t i = 0; i < h.rows; ++i) ASSERT_EQ(f(i), g(i)) << "row " << i;
    }
  }
}

TYPED_TEST(SpmvTest, RejectsMismatchedExtentsAndAliasing) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  auto A = make_device_crs<Scalar, Exec>(random_crs(10, 12, 4, 0.0, 0, 3));
  auto S = make_sell(Exec(), A, 4, 1);
  V x("x", 12), y("y", 10), short_x("x", 11), long_y("y", 11), square("v", 12);
  EXPECT_THROW(spmv(Exec(), Scalar(1), A, short_x, Scalar(0), y), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), Scalar(1), A, x, Scalar(0), long_y), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), Scalar(1), S, short_x, Scalar(0), y), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), Scalar(1), make_sell16(Exec(), A, 4, 1), x, Scalar(0), long_y),
               std::invalid_argument);
  try {
    spmv(Exec(), Scalar(1), S, x, Scalar(0), long_y);
    FAIL() << "expected std::invalid_argument";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("spmvkit::spmv"), std::string::npos) << e.what();
  }
  auto Asq = make_device_crs<Scalar, Exec>(random_crs(12, 12, 4, 0.0, 0, 4));
  EXPECT_THROW(spmv(Exec(), Scalar(1), Asq, square, Scalar(0), square), std::invalid_argument);
}

TYPED_TEST(SpmvTest, RejectsIndexOverflowAtConstruction) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t too_many = std::int64_t(std::numeric_limits<int>::max()) + 1;
  try {
    CrsMatrix<Scalar, Exec> A("huge", 10, 10, too_many);
    FAIL() << "expected std::length_error";
  } catch (std::length_error const& e) {
    EXPECT_NE(std::string(e.what()).find("nnz"), std::string::npos) << e.what();
  }
  EXPECT_THROW((CrsMatrix<Scalar, Exec>("huge", too_many, 10, 0)), std::length_error);
  EXPECT_THROW((CrsMatrix<Scalar, Exec>("neg", -1, 10, 0)), std::invalid_argument);
}

TYPED_TEST(SpmvTest, CheckStructureFindsBadRows) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h = random_crs(50, 30, 6, 0.0, 0, 11);
  auto good = make_device_crs<Scalar, Exec>(h);
  EXPECT_NO_THROW(check_structure(Exec(), good));
  HostCrs bad = h;
  std::int64_t row = 20;
  while (bad.row_starts[row] == bad.row_starts[row + 1]) ++row; // first non-empty row >= 20
  bad.col[bad.row_starts[row]] = 30;                            // out of range
  auto A = make_device_crs<Scalar, Exec>(bad);
  try {
    check_structure(Exec(), A);
    FAIL() << "expected std::invalid_argument";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("row " + std::to_string(row)), std::string::npos)
        << e.what();
  }
}

} // namespace
