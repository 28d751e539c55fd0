// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELL-R (ellr_matrix.hpp): ELL's layout with a kernel that stops each row at
// its own length. What it shares with ELL (layout, padding rule and limit,
// round trips) is tested here against ELL itself; its SpMV, diagonal and
// byte model with every other format (test_spmv.cpp, test_format_concept.cpp).
#include "test_utils.hpp"

#include <spmvkit/formats/ell/ell_matrix.hpp>
#include <spmvkit/formats/ellr/ellr_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class EllrTest : public ::testing::Test {};
TYPED_TEST_SUITE(EllrTest, AllConfigs, ConfigNames);

template <class View>
std::vector<double> host_values(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

TYPED_TEST(EllrTest, SameLayoutAsEll) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (HostCrs const& h :
       {random_crs(1003, 977, 12, 0.1, 0, 3), banded_crs(523, 17, 8, 12, 0.25, 4),
        random_crs(45, 0, 0, 0.0, 0, 5), HostCrs{}}) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto E = make_ell(Exec(), A);
    const auto R = make_ellr(Exec(), A);
    EXPECT_EQ(R.width(), E.width());
    EXPECT_EQ(R.padding_ratio(), E.padding_ratio());
    EXPECT_EQ(host_values(R.column_indices()), host_values(E.column_indices()));
    EXPECT_EQ(host_values(R.values()), host_values(E.values()));
    EXPECT_EQ(host_values(R.row_lengths()), host_values(E.row_lengths()));
  }
}

// The point of ELL-R: padding never enters a sum (host strips compute its
// terms and drop them). NaN planted in every padding slot leaves ELL-R's
// product untouched and turns ELL's rows with padding NaN.
TYPED_TEST(EllrTest, StopsEachRowAtItsLength) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = random_crs(777, 500, 20, 0.1, 0, 8);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto clean = make_ell(Exec(), A);
  auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), clean.values());
  auto lengths = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), clean.row_lengths());
  const std::int64_t n = h.rows, w = clean.width();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = lengths(i); j < w; ++j)
      vals(j * n + i) = std::numeric_limits<Scalar>::quiet_NaN();
  typename EllMatrix<Scalar, Exec>::values_type poisoned("poisoned", vals.extent(0));
  Kokkos::deep_copy(poisoned, vals);
  const EllrMatrix<Scalar, Exec> R(n, h.cols, h.nnz(), w, clean.column_indices(), poisoned,
                                   clean.row_lengths());
  const EllMatrix<Scalar, Exec> E(n, h.cols, h.nnz(), w, clean.column_indices(), poisoned,
                                  clean.row_lengths());
  V x = random_vector<V>(h.cols, 9, "x");
  V y("y", n);
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  spmv(Exec(), Scalar(1), R, x, Scalar(0), y);
  EXPECT_TRUE(matches_reference<Scalar>(y, reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh)));
  spmv(Exec(), Scalar(1), E, x, Scalar(0), y);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(std::isnan(yh(i)), lengths(i) < w) << "row " << i;

  // Nor does a padding column: arrays built by hand may leave it far out of range.
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), clean.column_indices());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = lengths(i); j < w; ++j) cols(j * n + i) = 1 << 30;
  typename EllMatrix<Scalar, Exec>::ordinals_type wild("wild", cols.extent(0));
  Kokkos::deep_copy(wild, cols);
  const EllrMatrix<Scalar, Exec> W(n, h.cols, h.nnz(), w, wild, poisoned, clean.row_lengths());
  Kokkos::deep_copy(y, Scalar(0));
  spmv(Exec(), Scalar(1), W, x, Scalar(0), y);
  EXPECT_TRUE(matches_reference<Scalar>(y, reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh)));
}

TYPED_TEST(EllrTest, ByteModelCountsTheEntriesAndRowLengths) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const HostCrs h = random_crs(500, 400, 25, 0.1, 0, 51);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto R = make_ellr(Exec(), A);
  EXPECT_EQ(EllrFormat::bytes(R).matrix,
            double(h.nnz()) * (sizeof(Scalar) + sizeof(int)) + 500.0 * sizeof(int));
  EXPECT_EQ(EllFormat::bytes(make_ell(Exec(), A)).matrix,
            double(R.stored_entries()) * (sizeof(Scalar) + sizeof(int)));
}

TYPED_TEST(EllrTest, RefusesExplodingPaddingLikeEll) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t i = 0; i < 2000; ++i) e.push_back({i, i});
  for (std::int64_t j = 0; j < 2000; ++j)
    if (j != 5) e.push_back({5, j});
  std::sort(e.begin(), e.end());
  const auto A = make_device_crs<Scalar, Exec>(from_entries(2000, 2000, e));
  const std::string obstacle = EllrFormat::obstacle(Exec(), A, {});
  EXPECT_EQ(obstacle, EllFormat::obstacle(Exec(), A, {}));
  EXPECT_NE(obstacle.find("2000 x 2000 = 4000000 entries"), std::string::npos) << obstacle;
  try {
    make_ellr(Exec(), A);
    FAIL() << "expected std::invalid_argument";
  } catch (std::invalid_argument const& ex) {
    EXPECT_EQ(std::string(ex.what()), "spmvkit::make_ellr: " + obstacle);
  }
}

} // namespace
