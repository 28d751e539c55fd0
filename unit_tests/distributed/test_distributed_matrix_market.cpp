// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A Matrix Market file read on one rank and scattered: the distributed product
// against the single-rank one (balanced and given partitions, another root),
// and the faults: a missing or damaged file, more ranks than rows.
#include "mpi_test_utils.hpp"

#include <spmvkit/distributed/distributed_matrix_market.hpp>
#include <spmvkit/io/matrix_market.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

namespace spmvkit::test {
namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Vector = Kokkos::View<double*, Kokkos::Device<Exec, Exec::memory_space>>;

std::string shipped(char const* name) { return std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" + name; }

std::string error_of(std::function<void()> const& f) {
  try {
    f();
  } catch (DistributedError const& e) {
    return e.what();
  }
  return "";
}

/// A file path that rank 0 chose (from its process id), the same on every rank.
std::string shared_temp_path(char const* stem) {
  long id = static_cast<long>(getpid());
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return testing::TempDir() + stem + std::to_string(id) + ".mtx";
}

void expect_product_matches(std::string const& path, DistributedReadOptions const& options) {
  Exec exec;
  auto A = read_distributed_matrix_market<SellFormat, double, CrsFormat>(MPI_COMM_WORLD, exec, path,
                                                                         options);
  auto A1 = read_matrix_market<double, Exec>(path);
  const auto& part = A.partition();
  ASSERT_EQ(part.global_rows(), A1.num_rows());
  if (!options.offsets.empty()) {
    EXPECT_EQ(part.offsets(), options.offsets);
  }
  Vector xg("x", A1.num_rows()), yg("y", A1.num_rows());
  auto xh = Kokkos::create_mirror_view(xg);
  for (std::int64_t i = 0; i < A1.num_rows(); ++i) xh(i) = test_x(i);
  Kokkos::deep_copy(xg, xh);
  spmv(exec, 1.0, A1, xg, 0.0, yg);
  auto x = local_vector<Vector>(part, test_x);
  Vector y("y_local", part.local_rows());
  A.apply(exec, x, y);
  exec.fence();
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto ygh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yg);
  for (std::int64_t i = 0; i < part.local_rows(); ++i) {
    const double expected = ygh(part.first_row() + i);
    ASSERT_NEAR(yh(i), expected, 1e-12 * (1 + std::abs(expected)))
        << "global row " << part.first_row() + i;
  }
}

TEST(DistributedMatrixMarketTest, ScatteredProductMatchesSingleRank) {
  expect_product_matches(shipped("bcsstk08.mtx.gz"), {});
  DistributedReadOptions options;
  options.root = world_size() - 1;
  options.offsets = uneven_offsets(1138, world_size());
  expect_product_matches(shipped("1138_bus.mtx.gz"), options);
}

TEST(DistributedMatrixMarketTest, AMissingFileStopsEveryRankWithTheReadersMessage) {
  Exec exec;
  const std::string path = shipped("no_such_matrix.mtx");
  const std::string message = error_of(
      [&] { read_distributed_matrix_market<CrsFormat, double>(MPI_COMM_WORLD, exec, path); });
  EXPECT_NE(message.find("failed on rank 0"), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
}

TEST(DistributedMatrixMarketTest, ADamagedFileStopsEveryRankNamingTheLine) {
  Exec exec;
  const std::string path = shared_temp_path("spmvkit_damaged_");
  if (world_rank() == 0) {
    std::ofstream out(path);
    out << "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 1.0\n2 2 oops\n3 3 1.0\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string message = error_of(
      [&] { read_distributed_matrix_market<CrsFormat, double>(MPI_COMM_WORLD, exec, path); });
  EXPECT_NE(message.find(path + ":4:"), std::string::npos) << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

TEST(DistributedMatrixMarketTest, MoreRanksThanRowsIsAClearError) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks or more (a matrix of ranks - 1 rows)";
  Exec exec;
  const std::string path = shared_temp_path("spmvkit_small_");
  const int rows = world_size() - 1;
  if (world_rank() == 0) {
    std::ofstream out(path);
    out << "%%MatrixMarket matrix coordinate real general\n"
        << rows << " " << rows << " " << rows << "\n";
    for (int i = 1; i <= rows; ++i) out << i << " " << i << " 2.0\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string message = error_of(
      [&] { read_distributed_matrix_market<CrsFormat, double>(MPI_COMM_WORLD, exec, path); });
  EXPECT_NE(message.find("cannot partition " + std::to_string(rows) + " rows over " +
                         std::to_string(world_size()) + " ranks"),
            std::string::npos)
      << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

} // namespace
} // namespace spmvkit::test
