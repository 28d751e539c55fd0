// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ELL formats (ell_matrix.hpp, and ELL-R in ellr_matrix.hpp): the
// column-major layout, the padding rule, exact round trips and the padding
// limit. Their SpMV, diagonal and byte model are tested with every other
// format (test_spmv.cpp, test_format_concept.cpp).
#include "test_utils.hpp"

#include <spmvkit/formats/ell/ell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <limits>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class EllTest : public ::testing::Test {};
TYPED_TEST_SUITE(EllTest, AllConfigs, ConfigNames);

template <class View>
std::vector<double> host_values(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

// The SELL-2-1 example of the founding report as ELL: one 4 x 3 block,
// column-major, padded with each row's first column.
TYPED_TEST(EllTest, LayoutIsColumnMajorWithTheSellPaddingRule) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h;
  h.rows = h.cols = 4;
  h.row_starts = {0, 2, 4, 5, 8};
  h.col = {1, 2, 0, 3, 2, 0, 2, 3};
  h.val = {3, 1, 4, 7, 6, 9, 5, 3};
  const auto E = make_ell(Exec(), make_device_crs<Scalar, Exec>(h));
  EXPECT_EQ(E.width(), 3);
  EXPECT_EQ(E.stored_entries(), 12);
  EXPECT_DOUBLE_EQ(E.padding_ratio(), 12.0 / 8.0);
  EXPECT_EQ(host_values(E.column_indices()),
            (std::vector<double>{1, 0, 2, 0, 2, 3, 2, 2, 1, 0, 2, 3}));
  EXPECT_EQ(host_values(E.values()), (std::vector<double>{3, 4, 6, 9, 1, 7, 0, 5, 0, 0, 0, 3}));
  EXPECT_EQ(host_values(E.row_lengths()), (std::vector<double>{2, 2, 1, 3}));
  // Empty rows pad with the valid column nearest to them.
  const auto T =
      make_ell(Exec(), make_device_crs<Scalar, Exec>(from_entries(5, 3, {{0, 0}, {0, 1}, {3, 2}})));
  EXPECT_EQ(host_values(T.column_indices()), (std::vector<double>{0, 1, 2, 2, 2, 1, 1, 2, 2, 2}));
  EXPECT_EQ(host_values(T.values()), (std::vector<double>{1.5, 0, 0, 2.5, 0, 2, 0, 0, 0, 0}));
}

TYPED_TEST(EllTest, RoundTripKeepsExplicitZeros) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (HostCrs h : {random_crs(1003, 977, 12, 0.1, 0, 3), banded_crs(523, 17, 8, 12, 0.25, 4),
                    random_crs(45, 0, 0, 0.0, 0, 5), HostCrs{}}) {
    // Zeros look like padding: the row lengths must keep them.
    for (std::int64_t k = 0; k < h.nnz(); k += 3) h.val[k] = 0.0;
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto back = to_host(to_crs(Exec(), make_ell(Exec(), A)));
    const auto expected = to_host(A);
    EXPECT_EQ(back.row_starts, expected.row_starts);
    EXPECT_EQ(back.col, expected.col);
    EXPECT_EQ(back.val, expected.val);
  }
}

// One dense row among 10^5 would make a 10^5 x 10^5 block (10^10 entries,
// beyond the int offsets): the refusal comes first, says how large the block
// would be, and names the alternatives.
TYPED_TEST(EllTest, RefusesExplodingPaddingBeforeAllocating) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 100000;
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i == 777) {
      for (std::int64_t j = 0; j < n; ++j) e.push_back({i, j});
    } else {
      e.push_back({i, i});
    }
  }
  const auto A = make_device_crs<Scalar, Exec>(from_entries(n, n, e));
  const std::string obstacle = EllFormat::obstacle(Exec(), A, {});
  EXPECT_NE(obstacle.find("row 777 has 100000 entries"), std::string::npos) << obstacle;
  EXPECT_NE(obstacle.find("100000 x 100000 = 10000000000 entries"), std::string::npos) << obstacle;
  EXPECT_NE(obstacle.find("padding ratio 50000.3"), std::string::npos) << obstacle;
  EXPECT_NE(obstacle.find(sizeof(Scalar) == 8 ? "(111.8 GiB)" : "(74.5 GiB)"), std::string::npos)
      << obstacle;
  EXPECT_NE(obstacle.find("SELL"), std::string::npos) << obstacle;
  EXPECT_NE(obstacle.find("HYB"), std::string::npos) << obstacle;
  try {
    make_ell(Exec(), A);
    FAIL() << "expected std::invalid_argument";
  } catch (std::invalid_argument const& ex) {
    EXPECT_EQ(std::string(ex.what()), "spmvkit::make_ell: " + obstacle);
  }
}

// The default limit, 4 nnz + 64 n, on both sides of its edge: ten rows, one
// of w entries, the others empty, fit while 10 w <= 4 w + 640 (w <= 106).
TYPED_TEST(EllTest, DefaultLimitAndItsOverride) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (std::int64_t w : {106, 107}) {
    std::vector<std::pair<std::int64_t, std::int64_t>> e;
    for (std::int64_t j = 0; j < w; ++j) e.push_back({3, j});
    const HostCrs h = from_entries(10, 200, e);
    const auto A = make_device_crs<Scalar, Exec>(h);
    EXPECT_EQ(EllFormat::obstacle(Exec(), A, {}).empty(), w == 106);
    EllOptions generous;
    generous.max_padded_entries = 10 * w;
    EXPECT_EQ(EllFormat::obstacle(Exec(), A, generous), "");
    EXPECT_EQ(EllFormat::name(generous), "ell_max" + std::to_string(10 * w));
    generous.max_padded_entries = 10 * w - 1;
    EXPECT_NE(
        EllFormat::obstacle(Exec(), A, generous).find("the limit is " + std::to_string(10 * w - 1)),
        std::string::npos);
    generous.max_padded_entries = 10 * w;
    const auto E = make_ell(Exec(), A, generous);
    EXPECT_EQ(E.stored_entries(), 10 * w);
    V x = random_vector<V>(200, 9, "x");
    V y("y", 10);
    Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
    spmv(Exec(), Scalar(1), E, x, Scalar(0), y);
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    EXPECT_TRUE(matches_reference<Scalar>(y, reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh)));
  }
}

TYPED_TEST(EllTest, ConstructorChecksExtents) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using E = EllMatrix<Scalar, Exec>;
  typename E::ordinals_type cols("c", 12), lengths("l", 4), short_lengths("l", 3);
  typename E::values_type vals("v", 12);
  EXPECT_NO_THROW(E(4, 5, 6, 3, cols, vals, lengths));
  EXPECT_THROW(E(4, 5, 6, 2, cols, vals, lengths), std::invalid_argument);
  EXPECT_THROW(E(4, 5, 6, 3, cols, vals, short_lengths), std::invalid_argument);
}

} // namespace
