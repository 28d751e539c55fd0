// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmv for every format of spmvkit::format_list (typed over FormatConfigs, so
// a format added to the list is tested here without being named), against a
// long-double reference and Kokkos Kernels.
#include "test_utils.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
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
TYPED_TEST_SUITE(SpmvTest, FormatConfigs, FormatConfigNames);

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

/// Runs y = beta y + alpha A x with every option set of the format on one CRS
/// matrix and checks each against the reference; returns how many option sets
/// could represent the matrix (the others report an obstacle and are skipped).
template <class Format, class Scalar, class Exec, class V>
int check_every_variant(CrsMatrix<Scalar, Exec> const& A, V const& x, V const& y0, double alpha,
                        double beta, Reference<Scalar> const& ref) {
  int checked = 0;
  for (auto const& o : test_options<Format, Exec>()) {
    if (!Format::obstacle(Exec(), A, o).empty()) {
      EXPECT_THROW(Format::from_crs(Exec(), A, o), std::invalid_argument) << Format::name(o);
      continue;
    }
    const auto M = Format::from_crs(Exec(), A, o);
    V y("y", y0.extent(0));
    // beta == 0 must overwrite whatever y holds, NaN included.
    if (beta == 0.0)
      Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
    else
      Kokkos::deep_copy(y, y0);
    spmv(Exec(), Scalar(alpha), M, x, Scalar(beta), y, o);
    Kokkos::fence();
    EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << Format::name(o) << " (options given)";
    // The same through the matrix's own options and the default instance.
    if (beta == 0.0)
      Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
    else
      Kokkos::deep_copy(y, y0);
    spmv(Scalar(alpha), M, x, Scalar(beta), y);
    Kokkos::fence();
    EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << Format::name(o) << " (default instance)";
    ++checked;
  }
  return checked;
}

TYPED_TEST(SpmvTest, EveryVariantMatchesReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 7;
  std::vector<std::pair<std::string, HostCrs>> matrices;
  for (auto const& shape : shapes) {
    matrices.push_back({shape.name, random_crs(shape.rows, shape.cols, shape.max_row,
                                               shape.empty_fraction, shape.long_row, ++seed)});
  }
  // Column offsets of exactly ±32767 (the SellOffset16 limit) and a band with empty rows.
  matrices.push_back({"band_at_int16_limit", banded_crs(40000, 40000, 32767, 4, 0.1, ++seed)});
  matrices.push_back({"banded_with_empty_rows", banded_crs(1000, 1000, 40, 30, 0.2, ++seed)});
  int checked = 0;
  for (auto const& [name, h] : matrices) {
    auto A = make_device_crs<Scalar, Exec>(h);
    V x = random_vector<V>(h.cols, ++seed, "x");
    V y0 = random_vector<V>(h.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    for (auto const& ab : coefficients) {
      SCOPED_TRACE(name + " alpha=" + std::to_string(ab.alpha) +
                   " beta=" + std::to_string(ab.beta));
      const auto ref = reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h);
      V y("y", static_cast<std::size_t>(h.rows));
      Kokkos::deep_copy(y, y0);
      KokkosSparse::spmv("N", Scalar(ab.alpha), to_kokkos_kernels(A), x, Scalar(ab.beta), y);
      Kokkos::fence();
      ASSERT_TRUE(matches_reference<Scalar>(y, ref)) << "Kokkos Kernels spmv";
      checked += check_every_variant<Format>(A, x, y0, ab.alpha, ab.beta, ref);
    }
  }
  // Every format must represent most of these matrices.
  EXPECT_GT(checked, 0);
}

/// Every *.mtx.gz of a directory.
std::vector<std::filesystem::path> mtx_files(std::filesystem::path const& dir) {
  std::vector<std::filesystem::path> files;
  for (auto const& e : std::filesystem::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (p.size() > 7 && p.compare(p.size() - 7, 7, ".mtx.gz") == 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

template <class Format, class Scalar, class Exec>
void check_real_matrices(std::vector<std::filesystem::path> const& files) {
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 99;
  int checked = 0;
  for (auto const& file : files) {
    SCOPED_TRACE(file.string());
    auto A = read_matrix_market<Scalar, Exec>(file.string());
    const HostCrs h = to_host(A);
    V x = random_vector<V>(A.num_cols(), ++seed, "x");
    V y0 = random_vector<V>(A.num_rows(), ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    const double alpha = 1.5, beta = -0.5;
    const auto ref = reference_spmv<Scalar>(h, alpha, xh, beta, y0h);
    V y("y", static_cast<std::size_t>(A.num_rows()));
    Kokkos::deep_copy(y, y0);
    KokkosSparse::spmv("N", Scalar(alpha), to_kokkos_kernels(A), x, Scalar(beta), y);
    Kokkos::fence();
    ASSERT_TRUE(matches_reference<Scalar>(y, ref)) << "Kokkos Kernels spmv";
    checked += check_every_variant<Format>(A, x, y0, alpha, beta, ref);
  }
  EXPECT_GT(checked, 0);
}

// The real matrices shipped in the repository (unit_tests/data/matrices):
// real and pattern fields, symmetric and general, SPD and power-law rows.
TYPED_TEST(SpmvTest, ShippedRealMatricesMatchReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto files = mtx_files(SPMVKIT_TEST_MATRIX_DIR);
  ASSERT_GE(files.size(), 4u) << "the shipped matrices are missing from "
                              << SPMVKIT_TEST_MATRIX_DIR;
  check_real_matrices<typename TypeParam::format, Scalar, Exec>(files);
}

// The optional, larger collection (SPMVKIT_MATRIX_DIR): skipped only when none
// was configured; configured but missing or empty is a failure.
TYPED_TEST(SpmvTest, OptionalRealMatricesMatchReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::string dir = optional_matrix_dir();
  if (dir.empty()) GTEST_SKIP() << "no optional matrix directory configured (SPMVKIT_MATRIX_DIR)";
  ASSERT_TRUE(std::filesystem::is_directory(dir))
      << "SPMVKIT_MATRIX_DIR " << dir << " is not a directory";
  const auto files = mtx_files(dir);
  ASSERT_FALSE(files.empty()) << "no .mtx.gz files in SPMVKIT_MATRIX_DIR " << dir;
  check_real_matrices<typename TypeParam::format, Scalar, Exec>(files);
}

// Products are deterministic: repeating one gives bit-identical results, so
// CG runs are reproducible whatever the thread count or schedule.
TYPED_TEST(SpmvTest, RepeatedProductsAreBitIdentical) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using V = Kokkos::View<Scalar*, Exec>;
  HostCrs h = random_crs(3000, 2500, 30, 0.1, 900, 21);
  auto A = make_device_crs<Scalar, Exec>(h);
  V x = random_vector<V>(h.cols, 5, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh);
  for (auto const& o : test_options<Format, Exec>()) {
    if (!Format::obstacle(Exec(), A, o).empty()) continue;
    SCOPED_TRACE(Format::name(o));
    const auto M = Format::from_crs(Exec(), A, o);
    V first("first", static_cast<std::size_t>(h.rows));
    spmv(Exec(), Scalar(1), M, x, Scalar(0), first, o);
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first);
    ASSERT_TRUE(matches_reference<Scalar>(first, ref));
    for (int repeat = 0; repeat < 3; ++repeat) {
      V again("again", static_cast<std::size_t>(h.rows));
      spmv(Exec(), Scalar(1), M, x, Scalar(0), again, o);
      auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
      for (std::int64_t i = 0; i < h.rows; ++i) ASSERT_EQ(f(i), g(i)) << "row " << i;
    }
  }
}

TYPED_TEST(SpmvTest, RejectsMismatchedExtentsAndAliasing) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using V = Kokkos::View<Scalar*, Exec>;
  auto A = make_device_crs<Scalar, Exec>(random_crs(10, 12, 4, 0.0, 0, 3));
  const auto M = Format::from_crs(Exec(), A, {});
  V x("x", 12), y("y", 10), short_x("x", 11), long_y("y", 11), square("v", 12);
  EXPECT_THROW(spmv(Exec(), Scalar(1), M, short_x, Scalar(0), y), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), Scalar(1), M, x, Scalar(0), long_y), std::invalid_argument);
  try {
    spmv(Exec(), Scalar(1), M, x, Scalar(0), long_y);
    FAIL() << "expected std::invalid_argument";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("spmvkit::spmv"), std::string::npos) << e.what();
  }
  auto Asq = make_device_crs<Scalar, Exec>(random_crs(12, 12, 4, 0.0, 0, 4));
  const auto Msq = Format::from_crs(Exec(), Asq, {});
  EXPECT_THROW(spmv(Exec(), Scalar(1), Msq, square, Scalar(0), square), std::invalid_argument);
  // Overlapping halves of one allocation alias too.
  V both("both", 24);
  auto lo = Kokkos::subview(both, std::make_pair(0, 12));
  auto mid = Kokkos::subview(both, std::make_pair(6, 18));
  EXPECT_THROW(spmv(Exec(), Scalar(1), Msq, lo, Scalar(0), mid), std::invalid_argument);
}

} // namespace
