#include "test_utils.hpp"

#include <spmvkit/sell_matrix.hpp>

#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class SellTest : public ::testing::Test {};
TYPED_TEST_SUITE(SellTest, AllConfigs, ConfigNames);

template <class View>
std::vector<double> host_values(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

// The SELL-2-1 example of the founding report, entry for entry.
TYPED_TEST(SellTest, MatchesReportExampleLayout) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h;
  h.rows = h.cols = 4;
  h.row_starts = {0, 2, 4, 5, 8};
  h.col = {1, 2, 0, 3, 2, 0, 2, 3};
  h.val = {3, 1, 4, 7, 6, 9, 5, 3};
  auto S = make_sell(Exec(), make_device_crs<Scalar, Exec>(h), 2, 1);
  EXPECT_EQ(S.num_chunks(), 2);
  EXPECT_EQ(host_values(S.values()), (std::vector<double>{3, 4, 1, 7, 6, 9, 0, 5, 0, 3}));
  EXPECT_EQ(host_values(S.column_indices()), (std::vector<double>{1, 0, 2, 3, 2, 0, 2, 2, 2, 3}));
  EXPECT_EQ(host_values(S.chunk_starts()), (std::vector<double>{0, 4, 10}));
  EXPECT_EQ(host_values(S.chunk_widths()), (std::vector<double>{2, 3}));
  EXPECT_EQ(S.stored_entries(), 10);
  EXPECT_DOUBLE_EQ(S.padding_ratio(), 10.0 / 8.0);
  EXPECT_FALSE(S.is_permuted());
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

TYPED_TEST(SellTest, RoundTripThroughSellIsExact) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  struct Case {
    std::int64_t rows, cols;
    int max_row;
    double empty;
    std::int64_t long_row;
  };
  for (auto c : {Case{1000, 900, 30, 0.2, 700}, Case{0, 0, 0, 0.0, 0}, Case{1, 1, 1, 0.0, 0},
                 Case{33, 5, 5, 0.5, 0}, Case{3, 100, 20, 0.0, 0}}) {
    HostCrs h = random_crs(c.rows, c.cols, c.max_row, c.empty, c.long_row, 17);
    // Explicit zeros must survive: they are indistinguishable from padding
    // by value, so this checks that the conversion tracks true row lengths.
    if (h.nnz() > 0) h.val[h.nnz() - 1] = 0.0;
    auto A = make_device_crs<Scalar, Exec>(h);
    for (int C : {1, 3, 32}) {
      for (std::int64_t sigma : {1, 2, 100}) {
        auto back = to_host(to_crs(Exec(), make_sell(Exec(), A, C, sigma)));
        EXPECT_EQ(back.rows, h.rows);
        EXPECT_EQ(back.cols, h.cols);
        EXPECT_EQ(back.row_starts, h.row_starts) << "C=" << C << " sigma=" << sigma;
        EXPECT_EQ(back.col, h.col) << "C=" << C << " sigma=" << sigma;
        std::vector<double> expected(h.val.size());
        for (std::size_t k = 0; k < h.val.size(); ++k) expected[k] = static_cast<Scalar>(h.val[k]);
        EXPECT_EQ(back.val, expected) << "C=" << C << " sigma=" << sigma;
      }
    }
  }
}

TYPED_TEST(SellTest, RejectsBadParameters) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_device_crs<Scalar, Exec>(random_crs(10, 10, 3, 0.0, 0, 1));
  EXPECT_THROW(make_sell(Exec(), A, 0, 1), std::invalid_argument);
  EXPECT_THROW(make_sell(Exec(), A, 4, 0), std::invalid_argument);
}

} // namespace
