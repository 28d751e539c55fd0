// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What is particular to HYB (formats/hyb/): the ELL width of each rule on a
// known row-length distribution, the split into ELL and COO parts, the
// pathological shapes with every rule and with the extreme widths (all COO,
// all ELL), and the rejected options. The typed tests over the format list
// cover the rest.
#include "formats/crs/irregular_shapes.hpp"
#include "test_utils.hpp"

#include <spmvkit/formats/hyb/hyb_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class HybTest : public ::testing::Test {};
TYPED_TEST_SUITE(HybTest, AllConfigs, ConfigNames);

HybOptions rule(HybWidthRule r, double fraction = 0, std::int64_t width = 0) {
  HybOptions o;
  o.rule = r;
  o.fraction = fraction;
  o.width = width;
  return o;
}

// 90 rows of 1 entry and 10 rows of 100 (nnz 1090).
// - storage: an ELL column costs 100 (S + 4) bytes, a COO entry S + 8, so
//   the width grows while more than 100 (S + 4) / (S + 8) rows (75 in
//   double, 66.7 in float) are longer: w = 1 (10 rows are longer than 1).
// - rows 80%: at most 20 rows longer than w: w = 1.
// - nnz 90%: 90 + 10 w >= 981: w = 90 (50%: 90 + 10 w >= 545, w = 46).
// - fixed: as given, at most the longest row.
TYPED_TEST(HybTest, WidthRulesOnAKnownDistribution) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  std::vector<std::int64_t> len(100, 1);
  for (int i = 0; i < 100; i += 10) len[i] = 100;
  const auto A = make_device_crs<Scalar, Exec>(from_row_lengths(len, 200, 3));
  struct Case {
    HybOptions o;
    std::int64_t width, tail_rows;
  };
  const Case cases[] = {{rule(HybWidthRule::storage), 1, 10},
                        {rule(HybWidthRule::row_quantile), 1, 10},
                        {rule(HybWidthRule::row_quantile, 0.95), 100, 0},
                        {rule(HybWidthRule::nnz_fraction), 90, 10},
                        {rule(HybWidthRule::nnz_fraction, 0.5), 46, 10},
                        {rule(HybWidthRule::fixed, 0, 5), 5, 10},
                        {rule(HybWidthRule::fixed, 0, 0), 0, 100},
                        {rule(HybWidthRule::fixed, 0, 1000), 100, 0}};
  for (auto const& c : cases) {
    SCOPED_TRACE(HybFormat::name(c.o));
    const auto H = HybFormat::from_crs(Exec(), A, c.o);
    EXPECT_EQ(H.width(), c.width);
    EXPECT_EQ(H.tail().num_rows(), c.tail_rows);
    EXPECT_EQ(H.nnz(), 1090);
    const std::int64_t in_ell =
        90 * std::min<std::int64_t>(1, c.width) + 10 * std::min<std::int64_t>(100, c.width);
    EXPECT_EQ(H.ell().nnz(), in_ell);
    EXPECT_EQ(H.tail().nnz(), 1090 - in_ell);
    EXPECT_DOUBLE_EQ(H.ell_fraction(), static_cast<double>(in_ell) / 1090.0);
    const HostCrs back = to_host(HybFormat::to_crs(Exec(), H));
    const HostCrs expected = to_host(A);
    EXPECT_EQ(back.row_starts, expected.row_starts);
    EXPECT_EQ(back.col, expected.col);
    EXPECT_EQ(back.val, expected.val);
  }
}

// Rows alike: the storage rule keeps every row in ELL (no tail, no second
// kernel). FEM Poisson rows hold 27 entries inside and 8-18 next to the
// boundary; from N = 23 on, more than 75% of the rows are full, so an ELL
// column of width 27 is cheaper than their last 9 entries in COO. (Below,
// the rule rightly puts those entries in COO: w = 18 at N = 8.)
TYPED_TEST(HybTest, FemRowsStayInEll) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  EXPECT_EQ(HybFormat::from_crs(Exec(), make_fem_poisson_crs<Scalar>(Exec(), 8), {}).width(), 18);
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 30);
  const auto H = HybFormat::from_crs(Exec(), A, {});
  EXPECT_EQ(H.width(), A.statistics().max_row_length);
  EXPECT_EQ(H.tail().nnz(), 0);
  EXPECT_DOUBLE_EQ(H.ell_fraction(), 1.0);
  EXPECT_EQ(HybFormat::name({}), "hyb");
}

TYPED_TEST(HybTest, PathologicalShapesEveryRuleMatchReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  auto options = HybFormat::variants<Exec>();
  options.push_back(rule(HybWidthRule::fixed, 0, 0));       // all COO
  options.push_back(rule(HybWidthRule::fixed, 0, 1 << 30)); // all ELL (SELL)
  HybOptions sorted;
  sorted.sigma = 64;
  options.push_back(sorted);
  unsigned seed = 70;
  for (auto const& [name, h] : irregular_shapes(true)) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const V x = random_vector<V>(h.cols, ++seed, "x");
    const V y0 = random_vector<V>(h.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    // The all-ELL split of 10^6-entry rows would pad every chunk to 10^6.
    const bool huge = h.nnz() > 1000000;
    // The references once per shape, not once per rule: in long double they
    // cost more than the products.
    const AlphaBeta cases[] = {{1.0, 0.0}, {-2.0, 0.5}};
    std::vector<Reference<Scalar>> refs;
    for (auto const& ab : cases)
      refs.push_back(reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h));
    for (auto const& o : options) {
      if (huge && o.rule == HybWidthRule::fixed && o.width > 0) continue;
      const auto H = HybFormat::from_crs(Exec(), A, o);
      for (std::size_t c = 0; c < 2; ++c) {
        auto const& ab = cases[c];
        auto const& ref = refs[c];
        SCOPED_TRACE(name + " " + HybFormat::name(o) + " beta=" + std::to_string(ab.beta));
        EXPECT_TRUE(check_product<Scalar>(y0, ab.beta, ref, [&](V const& y) {
          spmv(Exec(), Scalar(ab.alpha), H, x, Scalar(ab.beta), y);
        }));
      }
    }
  }
}

TYPED_TEST(HybTest, RejectsBadOptions) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(20, 20, 5, 0.0, 0, 9));
  for (auto const& o : {rule(HybWidthRule::row_quantile, 1.5), rule(HybWidthRule::fixed, 0, -1),
                        rule(HybWidthRule::nnz_fraction, -0.1)}) {
    EXPECT_FALSE(HybFormat::obstacle(Exec(), A, o).empty());
    EXPECT_THROW(HybFormat::from_crs(Exec(), A, o), std::invalid_argument);
  }
  HybOptions sigma;
  sigma.sigma = 0;
  EXPECT_THROW(HybFormat::from_crs(Exec(), A, sigma), std::invalid_argument);
}

} // namespace
