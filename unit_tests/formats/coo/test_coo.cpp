// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What is particular to COO (formats/coo/): triplets from the user checked
// for order and range, the merge-path product on the pathological shapes, and
// the row map HYB's tail uses. The typed tests over the format list cover the
// rest (every shape of test_spmv, round trips, diagonal, byte model, CG).
#include "formats/crs/irregular_shapes.hpp"
#include "test_utils.hpp"

#include <spmvkit/formats/coo/coo_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class CooTest : public ::testing::Test {};
TYPED_TEST_SUITE(CooTest, AllConfigs, ConfigNames);

template <class Exec, class T>
Kokkos::View<T*, Exec> device_copy(std::vector<T> const& v, char const* label) {
  Kokkos::View<T*, Exec> d(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

TYPED_TEST(CooTest, MakeCooChecksTripletsAndMultipliesThem) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  // 6 x 5 with empty rows 0, 2 and 5; row 3 holds its columns out of order.
  const std::vector<int> rows = {1, 1, 3, 3, 3, 4};
  const std::vector<int> cols = {0, 4, 2, 0, 1, 3};
  const std::vector<Scalar> vals = {1, 2, 3, 4, 5, 6};
  const auto A = make_coo(Exec(), 6, 5, device_copy<Exec>(rows, "r"), device_copy<Exec>(cols, "c"),
                          device_copy<Exec>(vals, "v"));
  EXPECT_EQ(A.num_rows(), 6);
  EXPECT_EQ(A.nnz(), 6);
  const V x = device_copy<Exec>(std::vector<Scalar>{1, 10, 100, 1000, 10000}, "x");
  V y("y", 6);
  Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  spmv(Exec(), Scalar(2), A, x, Scalar(0), y);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const std::vector<Scalar> expected = {0, 2 * (1 + 20000), 0, 2 * (300 + 4 + 50), 2 * 6000, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(yh(i), expected[i]) << "row " << i;
  // Back to CRS: the within-row order is kept.
  const HostCrs back = to_host(CooFormat::to_crs(Exec(), A));
  EXPECT_EQ(back.row_starts, (std::vector<std::int64_t>{0, 0, 2, 2, 5, 6, 6}));
  EXPECT_EQ(back.col, (std::vector<std::int64_t>{0, 4, 2, 0, 1, 3}));

  // Rows out of order, and a column out of range, are named by nonzero.
  auto reject = [&](std::vector<int> r, std::vector<int> c, std::string const& what) {
    try {
      make_coo(Exec(), 6, 5, device_copy<Exec>(r, "r"), device_copy<Exec>(c, "c"),
               device_copy<Exec>(vals, "v"));
      ADD_FAILURE() << "expected std::invalid_argument for " << what;
    } catch (std::invalid_argument const& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  reject({1, 1, 3, 2, 3, 4}, cols, "nonzero 2");
  reject(rows, {0, 4, 2, 0, 5, 3}, "nonzero 4");
  reject({1, 1, 3, 3, 3, 6}, cols, "nonzero 5");
  EXPECT_THROW(make_coo(Exec(), 6, 5, device_copy<Exec>(rows, "r"),
                        device_copy<Exec>(std::vector<int>{0, 1}, "c"),
                        device_copy<Exec>(vals, "v")),
               std::invalid_argument);
}

TYPED_TEST(CooTest, PathologicalShapesMatchReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 60;
  for (auto const& [name, h] : irregular_shapes(true)) {
    const auto A = CooFormat::from_crs(Exec(), make_device_crs<Scalar, Exec>(h), {});
    EXPECT_EQ(A.nnz(), h.nnz());
    const V x = random_vector<V>(h.cols, ++seed, "x");
    const V y0 = random_vector<V>(h.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    for (auto const& ab : alpha_beta_cases()) {
      SCOPED_TRACE(name + " alpha=" + std::to_string(ab.alpha) +
                   " beta=" + std::to_string(ab.beta));
      const auto ref = reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h);
      EXPECT_TRUE(check_product<Scalar>(y0, ab.beta, ref, [&](V const& y) {
        spmv(Exec(), Scalar(ab.alpha), A, x, Scalar(ab.beta), y);
      }));
    }
  }
}

// HYB's tail: a COO over a compressed list of rows, adding alpha A x into
// y(row_map(r)) with beta = 1 and leaving every other entry of y alone.
TYPED_TEST(CooTest, RowMapAccumulatesIntoMappedRowsOnly) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = from_row_lengths({3, 5000, 1, 2}, 6000, 5);
  const auto A = CooFormat::from_crs(Exec(), make_device_crs<Scalar, Exec>(h), {});
  const auto map = device_copy<Exec>(std::vector<int>{7, 2, 9, 0}, "map");
  const V x = random_vector<V>(h.cols, 1, "x");
  V y = random_vector<V>(10, 2, "y");
  // create_mirror (not _view): on host backends a mirror view would be y itself.
  auto before = Kokkos::create_mirror(Kokkos::HostSpace(), y);
  Kokkos::deep_copy(before, y);
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  using Device = typename decltype(A)::device_type;
  const detail::kernel_x_type<Scalar, Device, Kokkos::LayoutRight> xk = x;
  const detail::kernel_y_type<Scalar, Device, Kokkos::LayoutRight> yk = y;
  detail::spmv_coo(Exec(), Scalar(-2), A, xk, Scalar(1), yk, Kokkos::View<const int*, Device>(map));
  auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const int target[] = {7, 2, 9, 0};
  for (int i = 0; i < 10; ++i) {
    long double expected = before(i), bound = 0;
    for (int r = 0; r < 4; ++r) {
      if (target[r] != i) continue;
      for (std::int64_t k = h.row_starts[r]; k < h.row_starts[r + 1]; ++k) {
        const long double term = -2.0L * static_cast<Scalar>(h.val[k]) * xh(h.col[k]);
        expected += term;
        bound += std::fabs(term);
      }
    }
    bound = 8 * std::numeric_limits<Scalar>::epsilon() * (bound + std::fabs(expected) + 1) *
            static_cast<long double>(h.row_starts[2] - h.row_starts[1] + 3);
    EXPECT_NEAR(static_cast<double>(after(i)), static_cast<double>(expected),
                static_cast<double>(bound))
        << "y(" << i << ")";
  }
}

} // namespace
