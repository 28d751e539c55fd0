// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// detail::reduce_rows (core/detail/row_blocks.hpp): every row visited once,
// its stores made and its contributions summed, for lengths around the host
// block (a partial last block, exactly one block, none), with one sum and with
// several and in 1, 2, 3 and 8 lanes, against the same loop on the host.
#include "test_utils.hpp"

#include <spmvkit/core/detail/row_blocks.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class T>
class RowBlocksTest : public ::testing::Test {};
TYPED_TEST_SUITE(RowBlocksTest, AllConfigs, ConfigNames);

/// y(i) = 2 x(i) + 1, sum += i y(i) (a weight per row, so that a row counted
/// twice or skipped changes the sum).
template <class V>
struct StoreAndSum {
  V x, y;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    const double v = 2 * static_cast<double>(x(i)) + 1;
    y(i) = static_cast<typename V::value_type>(v);
    sum += static_cast<double>(i + 1) * v;
  }
};

/// y(i) = x(i) − 1; sums = {Σ y, Σ y², number of rows}.
template <class V>
struct StoreAndThreeSums {
  using value_type = double[];
  V x, y;
  unsigned value_count = 3;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const double v = static_cast<double>(x(i)) - 1;
    y(i) = static_cast<typename V::value_type>(v);
    sums[0] += v;
    sums[1] += v * v;
    sums[2] += 1;
  }
};

/// One length: the stores and the sums of reduce_rows<Lanes> with one sum and
/// with three, and the plain dot product, against the host loop.
template <int Lanes, class Exec, class V, class Scalar>
void check_rows(std::int64_t n, std::vector<Scalar> const& xh, V const& x, V const& y) {
  SCOPED_TRACE("lanes = " + std::to_string(Lanes));
  double sum = -1;
  detail::reduce_rows<Lanes>("SpMVKit::test::row_blocks_sum", Exec(), n, StoreAndSum<V>{x, y}, sum);
  double want = 0;
  for (std::int64_t i = 0; i < n; ++i)
    want += static_cast<double>(i + 1) * (2 * double(xh[static_cast<std::size_t>(i)]) + 1);
  EXPECT_EQ(sum, want);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(double(yh(i)), 2 * double(xh[static_cast<std::size_t>(i)]) + 1) << "row " << i;

  double sums[3] = {-1, -1, -1};
  detail::reduce_rows<Lanes>("SpMVKit::test::row_blocks_sums", Exec(), n,
                             StoreAndThreeSums<V>{x, y}, sums);
  double s0 = 0, s1 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = double(xh[static_cast<std::size_t>(i)]) - 1;
    s0 += v;
    s1 += v * v;
  }
  EXPECT_EQ(sums[0], s0);
  EXPECT_EQ(sums[1], s1);
  EXPECT_EQ(sums[2], static_cast<double>(n));
  Kokkos::deep_copy(yh, y);
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(double(yh(i)), double(xh[static_cast<std::size_t>(i)]) - 1) << "row " << i;
  double dot = -1, dot_want = 0;
  detail::reduce_rows<Lanes>("SpMVKit::test::row_blocks_dot", Exec(), n, detail::RowDot<V, V>{x, x},
                             dot);
  for (std::int64_t i = 0; i < n; ++i)
    dot_want += double(xh[static_cast<std::size_t>(i)]) * double(xh[static_cast<std::size_t>(i)]);
  EXPECT_EQ(dot, dot_want);
}

TEST(RowBlocks, HostBlockKeepsThreadsBusyWithin256To2048Rows) {
  EXPECT_EQ(detail::reduce_rows_host_block(0, 2), 256);
  EXPECT_EQ(detail::reduce_rows_host_block(5000, 2), 313);      // 16 items
  EXPECT_EQ(detail::reduce_rows_host_block(32768, 2), 2048);    // what the VM measured
  EXPECT_EQ(detail::reduce_rows_host_block(32768, 64), 256);    // 128 items for 64 threads
  EXPECT_EQ(detail::reduce_rows_host_block(1000000, 64), 1954); // ceil(10^6 / 512)
  EXPECT_EQ(detail::reduce_rows_host_block(100000000, 1), 2048);
  EXPECT_EQ(detail::reduce_rows_host_block(1000, 0), 256); // no thread count: one
}

TYPED_TEST(RowBlocksTest, EveryRowOnceAroundTheBlockSize) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  // Around the smallest and the largest host block, a partial last block, and none.
  for (const std::int64_t n :
       {std::int64_t(0), std::int64_t(1), std::int64_t(255), std::int64_t(256), std::int64_t(257),
        std::int64_t(5000), std::int64_t(3 * 2048 * 16 + 5)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Small integers in x: every sum below is exact in double, whatever the order.
    std::vector<Scalar> xh(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) xh[static_cast<std::size_t>(i)] = Scalar(i % 7);
    V x("x", n), y("y", n);
    Kokkos::deep_copy(
        x, Kokkos::View<Scalar const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
               xh.data(), n));

    // Lane counts that divide the blocks and one (3) that leaves a tail in most.
    check_rows<1, Exec>(n, xh, x, y);
    check_rows<2, Exec>(n, xh, x, y);
    check_rows<3, Exec>(n, xh, x, y);
    check_rows<8, Exec>(n, xh, x, y);
  }
  // A functor whose sum count is not the result array's: an error, not a write past it.
  V x("x", 4), y("y", 4);
  double two[2] = {0, 0};
  EXPECT_THROW(detail::reduce_rows("SpMVKit::test::row_blocks_count", Exec(), 4,
                                   StoreAndThreeSums<V>{x, y}, two),
               std::logic_error);
}

} // namespace
