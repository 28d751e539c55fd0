// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A Matrix Market file read on one rank and scattered: the distributed product
// against the single-rank one (balanced and given partitions, another root),
// and the faults: a missing or damaged file, more ranks than rows.
#include "mpi_test_utils.hpp"

#include <spmvkit/distributed/distributed_matrix_market.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioner.hpp>

#include <gtest/gtest.h>

#include <algorithm>
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

// The shipped systems (b = A 1), each solver with Jacobi, on the ranks as on one
// process: the same status, about the same iterations, the same solution.
TEST(DistributedMatrixMarketTest, ShippedSystemsSolveAsOnOneProcess) {
  Exec exec;
  struct Case {
    char const* file;
    char const* solver;
  };
  for (Case c : {Case{"bcsstk08.mtx.gz", "cg"}, Case{"bcsstk08.mtx.gz", "pipelined_cg"},
                 Case{"cage10.mtx.gz", "bicgstab"}, Case{"cage10.mtx.gz", "gmres"}}) {
    SCOPED_TRACE(std::string(c.file) + " " + c.solver);
    const std::string path = shipped(c.file);
    auto A = read_distributed_matrix_market<CrsFormat, double>(MPI_COMM_WORLD, exec, path);
    auto A1 = read_matrix_market<double, Exec>(path);
    const auto& part = A.partition();
    Vector ones1("ones", A1.num_rows()), b1("b1", A1.num_rows()), x1("x1", A1.num_rows());
    Kokkos::deep_copy(ones1, 1.0);
    spmv(exec, 1.0, A1, ones1, 0.0, b1);
    auto ones = local_vector<Vector>(part, [](std::int64_t) { return 1.0; });
    Vector b("b", part.local_rows()), x("x", part.local_rows());
    A.apply(exec, ones, b);
    SolverResult r1, r;
    const std::string solver = c.solver;
    if (solver == "cg" || solver == "pipelined_cg") {
      CgOptions o;
      o.relative_tolerance = 1e-8;
      o.max_iterations = 5000;
      if (solver == "pipelined_cg") o.variant = CgVariant::pipelined;
      r1 = cg(exec, A1, make_jacobi(exec, A1), b1, x1, o);
      r = cg(exec, A, make_jacobi(exec, A), b, x, o);
    } else if (solver == "bicgstab") {
      BicgstabOptions o;
      o.relative_tolerance = 1e-10;
      r1 = bicgstab(exec, A1, make_jacobi(exec, A1), b1, x1, o);
      r = bicgstab(exec, A, make_jacobi(exec, A), b, x, o);
    } else {
      GmresOptions o;
      o.relative_tolerance = 1e-10;
      r1 = gmres(exec, A1, make_jacobi(exec, A1), b1, x1, o);
      r = gmres(exec, A, make_jacobi(exec, A), b, x, o);
    }
    EXPECT_TRUE(r1.converged()) << r1.message;
    EXPECT_TRUE(r.converged()) << r.message;
    // Within 2, or 5% on bcsstk08 (condition number about 5e7), where finite-precision CG's
    // count follows the summation order of its dot products: 130-134 on 1-4 ranks.
    const int slack = std::max(2, static_cast<int>(0.05 * r1.iterations));
    EXPECT_LE(std::abs(r.iterations - r1.iterations), slack)
        << "distributed " << r.iterations << ", one process " << r1.iterations;
    EXPECT_TRUE(same_on_all_ranks(r.iterations));
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto x1h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x1);
    double d = 0;
    for (std::int64_t i = 0; i < part.local_rows(); ++i) {
      d = std::max(d, std::abs(xh(i) - x1h(part.first_row() + i)));
    }
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    // The same method to the same tolerance from the same start: the solutions differ by the
    // rounding carried through the iterations (1e-3 held on 1-4 ranks), far inside the a-priori
    // bound of condition number times tolerance (0.5 for bcsstk08).
    EXPECT_LE(d, 1e-3);
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
