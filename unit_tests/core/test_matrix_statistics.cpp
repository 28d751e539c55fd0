// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Row-length statistics (core/matrix_statistics.hpp): exact values on small
// matrices, the one computation kept by CrsMatrix, and the automatic CRS
// kernel they drive (core/detail/launch_parameters.hpp).
#include "formats/crs/irregular_shapes.hpp"
#include "test_utils.hpp"

#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class MatrixStatisticsTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatrixStatisticsTest, AllConfigs, ConfigNames);

TYPED_TEST(MatrixStatisticsTest, ExactOnASmallMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Lengths 0, 3, 1, 0, 16: nnz 20, mean 4, variance (16 + 1 + 9 + 16 + 144) / 5.
  const auto A = make_device_crs<Scalar, Exec>(from_row_lengths({0, 3, 1, 0, 16}, 30, 1));
  const MatrixStatistics s = A.statistics(Exec());
  EXPECT_EQ(s.num_rows, 5);
  EXPECT_EQ(s.num_cols, 30);
  EXPECT_EQ(s.nnz, 20);
  EXPECT_DOUBLE_EQ(s.mean_row_length, 4.0);
  EXPECT_EQ(s.max_row_length, 16);
  EXPECT_DOUBLE_EQ(s.row_length_variance, 186.0 / 5.0);
  EXPECT_EQ(s.empty_rows, 2);
  EXPECT_DOUBLE_EQ(s.max_over_mean(), 4.0);
  // 16 is not above 8 x 4: no hub at the default factor; above 2 x 4 it is.
  EXPECT_EQ(s.hub_rows, 0);
  EXPECT_DOUBLE_EQ(s.hub_mass, 0.0);
  const MatrixStatistics t = row_length_statistics(Exec(), A.row_starts(), A.num_cols(), 2.0);
  EXPECT_EQ(t.hub_rows, 1);
  EXPECT_DOUBLE_EQ(t.hub_mass, 16.0 / 20.0);
  EXPECT_DOUBLE_EQ(t.hub_factor, 2.0);
}

TYPED_TEST(MatrixStatisticsTest, EmptyShapes) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const MatrixStatistics none =
      make_device_crs<Scalar, Exec>(random_crs(0, 0, 0, 0, 0, 1)).statistics();
  EXPECT_EQ(none.num_rows, 0);
  EXPECT_EQ(none.nnz, 0);
  EXPECT_EQ(none.max_row_length, 0);
  EXPECT_DOUBLE_EQ(none.max_over_mean(), 0.0);
  const MatrixStatistics empty_rows =
      make_device_crs<Scalar, Exec>(random_crs(40, 7, 0, 1.0, 0, 2)).statistics();
  EXPECT_EQ(empty_rows.num_rows, 40);
  EXPECT_EQ(empty_rows.nnz, 0);
  EXPECT_EQ(empty_rows.empty_rows, 40);
  EXPECT_DOUBLE_EQ(empty_rows.mean_row_length, 0.0);
  EXPECT_DOUBLE_EQ(empty_rows.row_length_variance, 0.0);
  EXPECT_DOUBLE_EQ(empty_rows.hub_mass, 0.0);
  // One dense row of n: all the mass is in a hub.
  std::vector<std::int64_t> len(1000, 0);
  len[999] = 1000;
  const MatrixStatistics last =
      make_device_crs<Scalar, Exec>(from_row_lengths(len, 1000, 3)).statistics();
  EXPECT_EQ(last.max_row_length, 1000);
  EXPECT_EQ(last.empty_rows, 999);
  EXPECT_EQ(last.hub_rows, 1);
  EXPECT_DOUBLE_EQ(last.hub_mass, 1.0);
}

// The first automatic product (or, on hosts, vector product in double) computes the statistics;
// they are kept, shared by copies, and computed again only after forget_analysis().
TYPED_TEST(MatrixStatisticsTest, ComputedOnceAndKeptWithTheMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  // Rows of under 4 entries on average: no host prefetch, whose choice between one prefetch per
  // row and a cursor reads the hub mass (host_row_prefetch).
  const auto A = make_device_crs<Scalar, Exec>(random_crs(300, 300, 5, 0.1, 0, 4));
  ASSERT_LT(A.nnz(), detail::host_prefetch_min_row_entries * A.num_rows());
  const auto copy = A;
  EXPECT_FALSE(A.analysis().has_statistics());
  const V x = random_vector<V>(300, 1, "x");
  V y("y", 300);
  spmv(Exec(), Scalar(1), A, x, Scalar(0), y, CrsKernel::row_per_thread);
  EXPECT_FALSE(A.analysis().has_statistics()) << "an explicit kernel needs no statistics";
  // Rows of 4 to 8 entries (under a line of values in FP32 and FP64): a host launch that prefetches
  // computes the statistics once, for the hub mass; GPU launches never prefetch.
  const auto B = make_device_crs<Scalar, Exec>(random_crs(300, 300, 11, 0.0, 0, 5));
  ASSERT_GE(B.nnz(), detail::host_prefetch_min_row_entries * B.num_rows());
  ASSERT_LT(B.nnz() * static_cast<std::int64_t>(sizeof(Scalar)),
            detail::host_prefetch_short_row_bytes * B.num_rows());
  spmv(Exec(), Scalar(1), B, x, Scalar(0), y, CrsKernel::row_per_thread);
  EXPECT_EQ(B.analysis().has_statistics(),
            detail::is_host_space_v<Exec> && detail::host_prefetch_enabled());
  spmv(Exec(), Scalar(1), A, x, Scalar(0), y);
  EXPECT_TRUE(copy.analysis().has_statistics());
  EXPECT_EQ(copy.statistics().nnz, A.nnz());
  A.forget_analysis();
  EXPECT_FALSE(copy.analysis().has_statistics());
}

// Rows alike keep the row-owned kernel: FEM Poisson and random rows of
// similar length. The longest row far above the mean and a large share of a
// thread's work (one dense row, all nonzeros in one row) picks balanced.
TYPED_TEST(MatrixStatisticsTest, AutomaticKernelFollowsTheRowDistribution) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (int N : {6, 20}) {
    const auto fem = make_fem_poisson_crs<Scalar>(Exec(), N);
    const MatrixStatistics s = fem.statistics();
    EXPECT_DOUBLE_EQ(s.hub_mass, 0.0);
    EXPECT_LT(s.max_over_mean(), detail::crs_balanced_min_max_over_mean);
    EXPECT_NE(detail::automatic_crs_kernel(Exec(), s), CrsKernel::balanced) << "FEM N = " << N;
    // Hosts sum rows alike in four partial sums (the vector kernel's host shape).
    if constexpr (detail::is_host_space_v<Exec>) {
      EXPECT_EQ(detail::automatic_crs_kernel(Exec(), s), CrsKernel::vector) << "FEM N = " << N;
    }
  }
  const auto alike = make_device_crs<Scalar, Exec>(random_crs(2000, 2000, 40, 0.0, 0, 8));
  EXPECT_NE(detail::automatic_crs_kernel(Exec(), alike.statistics()), CrsKernel::balanced);
  for (auto const& [name, h] : irregular_shapes(false)) {
    if (name != "one_dense_row" && name != "all_nonzeros_in_last_row" && name != "single_row")
      continue;
    SCOPED_TRACE(name);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const bool expect_balanced = name != "single_row"; // one row: max == mean
    EXPECT_EQ(detail::automatic_crs_kernel(Exec(), A.statistics()) == CrsKernel::balanced,
              expect_balanced);
    // What automatic chose is what runs: the same bits as that kernel.
    const V x = random_vector<V>(h.cols, 2, "x");
    V chosen("chosen", h.rows), automatic("automatic", h.rows);
    spmv(Exec(), Scalar(1), A, x, Scalar(0), chosen,
         detail::automatic_crs_kernel(Exec(), A.statistics()));
    spmv(Exec(), Scalar(1), A, x, Scalar(0), automatic);
    auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), chosen);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), automatic);
    for (std::int64_t i = 0; i < h.rows; ++i) ASSERT_EQ(c(i), a(i)) << "row " << i;
  }
}

// The rule's parts, on made-up statistics: nothing balanced below the
// max/mean threshold, whatever the hub mass (there, on hosts, the four partial sums of the vector
// kernel); above it, a hub that holds most of the nonzeros or a row that is a large part of one
// thread's share, else the plain row loop.
TYPED_TEST(MatrixStatisticsTest, AutomaticRuleOnSyntheticStatistics) {
  using Exec = typename TypeParam::execution_space;
  if constexpr (detail::is_host_space_v<Exec>) {
    MatrixStatistics s;
    s.num_rows = 1000000;
    s.nnz = 10000000;
    s.mean_row_length = 10;
    s.max_row_length = 70; // 7x the mean
    s.hub_mass = 0.9;
    EXPECT_EQ(detail::automatic_crs_kernel(Exec(), s), CrsKernel::vector);
    s.max_row_length = 100; // 10x, but a tiny part of any thread's share
    s.hub_mass = 0.01;
    EXPECT_EQ(detail::automatic_crs_kernel(Exec(), s), CrsKernel::row_per_thread);
    s.hub_mass = 0.9; // most nonzeros in hub rows
    EXPECT_EQ(detail::automatic_crs_kernel(Exec(), s), CrsKernel::balanced);
    s.hub_mass = 0.01;
    s.max_row_length = s.nnz / 2; // one row is half the matrix
    EXPECT_EQ(detail::automatic_crs_kernel(Exec(), s), CrsKernel::balanced);
  }
}

// A launch against the plain launch_parameters of the same work: on hosts where rows are alike,
// one block per thread over `units` units; otherwise the plain launch's shape. `reads` counts the
// calls of the statistics (CRS) or of the longest row (SELL, ELL): once on hosts, never on GPUs.
template <class Exec>
void expect_launch(detail::LaunchParameters const& p, detail::LaunchParameters const& plain,
                   bool alike, std::int64_t units, int reads) {
  const std::int64_t threads = std::max<std::int64_t>(1, Exec().concurrency());
  if constexpr (detail::is_host_space_v<Exec>) {
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(p.static_schedule, alike);
    EXPECT_FALSE(plain.static_schedule);
    if (alike) {
      const std::int64_t share = (units + threads - 1) / threads;
      EXPECT_EQ(p.work_per_team, share);
      EXPECT_EQ(p.league_size, (units + share - 1) / share);
      return;
    }
  } else {
    EXPECT_EQ(reads, 0);
  }
  EXPECT_EQ(p.league_size, plain.league_size);
  EXPECT_EQ(p.work_per_team, plain.work_per_team);
  EXPECT_EQ(p.team_size, plain.team_size);
  EXPECT_EQ(p.vector_length, plain.vector_length);
  EXPECT_EQ(p.rows_per_thread, plain.rows_per_thread);
}

// The CRS row kernels' launch: on hosts, static at any size where rows are alike (one weighted
// block per thread), dynamic above host_static_max_entries where they are not, and static below
// it without reading the statistics; GPUs never read them.
TYPED_TEST(MatrixStatisticsTest, CrsRowLaunchesStaticWhereRowsAreAlike) {
  using Exec = typename TypeParam::execution_space;
  MatrixStatistics s;
  s.num_rows = 1000000;
  s.nnz = 10000000; // above host_static_max_entries
  s.mean_row_length = 10;
  int reads = 0;
  auto statistics = [&] {
    ++reads;
    return s;
  };
  for (auto kind : {detail::KernelKind::crs_row_per_thread, detail::KernelKind::crs_vector}) {
    for (std::int64_t max_row : {70, 80, 5000}) { // 7x, 8x and 500x the mean
      s.max_row_length = max_row;
      reads = 0;
      const auto p =
          detail::crs_rows_launch_parameters(Exec(), kind, s.num_rows, s.nnz, statistics);
      const auto plain = detail::launch_parameters(Exec(), kind, s.num_rows, s.nnz);
      SCOPED_TRACE("longest row " + std::to_string(max_row));
      expect_launch<Exec>(p, plain, max_row < 8 * 10, s.num_rows, reads);
    }
    // At most host_static_max_entries: static anyway, and the statistics are not read.
    s.max_row_length = 5000;
    reads = 0;
    const auto small = detail::crs_rows_launch_parameters(
        Exec(), kind, 1000, detail::host_static_max_entries, statistics);
    EXPECT_EQ(reads, 0);
    EXPECT_EQ(small.static_schedule, detail::is_host_space_v<Exec>);
  }
  // spmv takes that launch: an explicit row kernel on a host reads the statistics above
  // host_static_max_entries (FEM N = 32: 753,571 entries, rows alike) and sums as before.
  using Scalar = typename TypeParam::value_type;
  using V = Kokkos::View<Scalar*, Exec>;
  const auto A = make_fem_poisson_crs<Scalar, Exec>(Exec(), 32);
  ASSERT_GT(static_cast<std::int64_t>(A.nnz()), detail::host_static_max_entries);
  ASSERT_FALSE(A.analysis().has_statistics());
  const V x = random_vector<V>(A.num_cols(), 7, "x");
  V by_rows("by_rows", A.num_rows()), balanced("balanced", A.num_rows());
  spmv(Exec(), Scalar(1), A, x, Scalar(0), by_rows, CrsKernel::row_per_thread);
  EXPECT_EQ(A.analysis().has_statistics(), detail::is_host_space_v<Exec>);
  spmv(Exec(), Scalar(1), A, x, Scalar(0), balanced, CrsKernel::balanced);
  auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_rows);
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), balanced);
  const double tol = std::is_same_v<Scalar, float> ? 1e-4 : 1e-12;
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    ASSERT_NEAR(r(i), b(i), tol * (1 + std::abs(b(i)))) << "row " << i;
  }
}

// SELL's and ELL's launches: as the CRS row kernels', static at any size on hosts where the
// longest row is below 8 times the mean (one block per thread: SELL's weighted by its kernel,
// ELL's equal shares of strips), dynamic above host_static_max_entries where it is not; the
// longest row is read only there, never on GPUs.
TYPED_TEST(MatrixStatisticsTest, SellAndEllLaunchesStaticWhereRowsAreAlike) {
  using Exec = typename TypeParam::execution_space;
  const std::int64_t rows = 1000000, nnz = 10000000; // mean 10, above host_static_max_entries
  for (auto kind : {detail::KernelKind::sell, detail::KernelKind::column_major_rows}) {
    // C = 3: SELL's units (chunks of C rows) differ from ELL's strips of 8 rows.
    const int C = kind == detail::KernelKind::sell ? 3 : 1;
    for (std::int64_t longest : {79, 80, 5000}) { // 7.9x, 8x and 500x the mean
      int reads = 0;
      auto longest_row = [&] {
        ++reads;
        return longest;
      };
      const auto p = detail::padded_rows_launch_parameters(Exec(), kind, rows, nnz + rows, nnz, C,
                                                           longest_row);
      const auto plain = detail::launch_parameters(Exec(), kind, rows, nnz + rows, C);
      SCOPED_TRACE("C = " + std::to_string(C) + ", longest row " + std::to_string(longest));
      const std::int64_t units = kind == detail::KernelKind::sell
                                     ? (rows + C - 1) / C
                                     : (rows + plain.rows_per_thread - 1) / plain.rows_per_thread;
      expect_launch<Exec>(p, plain, longest < 80, units, reads);
    }
    // At most host_static_max_entries: static anyway, without reading the longest row.
    int reads = 0;
    const auto small =
        detail::padded_rows_launch_parameters(Exec(), kind, 1000, detail::host_static_max_entries,
                                              detail::host_static_max_entries, C, [&] {
                                                ++reads;
                                                return std::int64_t(5000);
                                              });
    EXPECT_EQ(reads, 0);
    EXPECT_EQ(small.static_schedule, detail::is_host_space_v<Exec>);
  }
}

// Host kernels prefetch where rows average at least host_prefetch_min_row_entries entries (the
// row kernels, ELL strips, the merge path), SELL and BSR at any length, unless
// SPMVKIT_HOST_PREFETCH=0; GPU launches never do.
TYPED_TEST(MatrixStatisticsTest, HostPrefetchWhereRowsAreLongEnough) {
  using Exec = typename TypeParam::execution_space;
  constexpr bool host = detail::is_host_space_v<Exec>;
  const bool on = host && detail::host_prefetch_enabled();
  const std::int64_t rows = 100000, short_nnz = detail::host_prefetch_min_row_entries * rows - 1,
                     long_nnz = detail::host_prefetch_min_row_entries * rows;
  for (auto kind : {detail::KernelKind::crs_row_per_thread, detail::KernelKind::crs_vector,
                    detail::KernelKind::column_major_rows}) {
    EXPECT_FALSE(detail::launch_parameters(Exec(), kind, rows, short_nnz).host_prefetch);
    EXPECT_EQ(detail::launch_parameters(Exec(), kind, rows, long_nnz).host_prefetch, on);
  }
  EXPECT_EQ(
      detail::launch_parameters(Exec(), detail::KernelKind::sell, rows, rows, 8).host_prefetch, on);
  EXPECT_FALSE(detail::merge_path_parameters<Exec>(rows, short_nnz).host_prefetch);
  EXPECT_EQ(detail::merge_path_parameters<Exec>(rows, long_nnz).host_prefetch, on);
  EXPECT_EQ(detail::bsr_launch_parameters(Exec(), rows, rows, 3, 9, 1).host_prefetch, on);
  // The CRS row kernels prefetch at each row's end where a row's values fill less than a line on
  // average (in FP64 under 8 entries, in FP32 under 16) and hub rows hold under 5% of the
  // entries; through a cursor otherwise.
  using detail::HostRowPrefetch;
  constexpr std::int64_t line = detail::host_prefetch_short_row_bytes;
  constexpr double hubs = detail::host_prefetch_row_end_max_hub_mass;
  EXPECT_EQ(detail::host_row_prefetch(false, 5 * rows, rows, 8, 0.0), HostRowPrefetch::none);
  for (std::int64_t bytes : {4, 8, 16}) {
    EXPECT_EQ(detail::host_row_prefetch(true, line / bytes * rows - 1, rows, bytes, 0.0),
              HostRowPrefetch::row_end);
    EXPECT_EQ(detail::host_row_prefetch(true, line / bytes * rows, rows, bytes, 0.0),
              HostRowPrefetch::lines);
    EXPECT_EQ(detail::host_row_prefetch(true, line / bytes * rows - 1, rows, bytes, hubs),
              HostRowPrefetch::lines);
    // On AMD hosts rows with hubs take none, long or short; rows without hubs as elsewhere.
    for (std::int64_t entries : {line / bytes * rows - 1, 4 * line / bytes * rows}) {
      EXPECT_EQ(detail::host_row_prefetch(true, entries, rows, bytes, hubs, HostCpuVendor::amd),
                HostRowPrefetch::none);
      EXPECT_EQ(detail::host_row_prefetch(true, entries, rows, bytes, hubs, HostCpuVendor::intel),
                HostRowPrefetch::lines);
    }
    EXPECT_EQ(detail::host_row_prefetch(true, line / bytes * rows - 1, rows, bytes, hubs / 2,
                                        HostCpuVendor::amd),
              HostRowPrefetch::row_end);
    EXPECT_EQ(
        detail::host_row_prefetch(true, line / bytes * rows, rows, bytes, 0.0, HostCpuVendor::amd),
        HostRowPrefetch::lines);
    EXPECT_EQ(detail::host_row_prefetch(false, line / bytes * rows, rows, bytes, hubs,
                                        HostCpuVendor::intel),
              HostRowPrefetch::none);
  }
  // A cursor made off never prefetches: its next line lies past every address.
  const double data[4] = {1, 2, 3, 4};
  EXPECT_EQ(detail::HostPrefetchCursor<double>(data, false).next, ~std::uintptr_t(0));
  const auto c = detail::HostPrefetchCursor<double>(data + 1, true);
  EXPECT_EQ(c.next % 64, 0u);
  EXPECT_EQ(c.next, (reinterpret_cast<std::uintptr_t>(data + 1) & ~std::uintptr_t(63)) +
                        detail::host_prefetch_distance);
}

} // namespace
