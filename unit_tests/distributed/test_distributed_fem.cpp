// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The FEM problem assembled in parallel: its product against the single-rank
// assembly, CG (standard and pipelined, with and without Jacobi) against the
// single-rank CG, and the second-order convergence of the L2 error.
#include "mpi_test_utils.hpp"

#include <spmvkit/distributed/distributed_fem.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioner.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace spmvkit::test {
namespace {

template <class T>
class DistributedFemTest : public ::testing::Test {};
TYPED_TEST_SUITE(DistributedFemTest, AllConfigs, ConfigNames);

TYPED_TEST(DistributedFemTest, ProductMatchesSingleRankAssembly) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Exec exec;
  const std::int64_t N = 9;
  auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
  auto A = make_distributed_fem_poisson<SellFormat, Scalar, CooFormat>(part, exec, N);
  auto A1 = make_fem_poisson_crs<Scalar>(exec, N);
  auto x_global = fem_poisson_rough_guess<Scalar>(exec, N, 7);
  auto y_global = fem_poisson_rough_guess<Scalar>(exec, N, 8);
  spmv(exec, Scalar(1), A1, x_global, Scalar(0), y_global);
  auto x = distributed_fem_poisson_rough_guess<Scalar>(exec, part, N, 7);
  decltype(x) y("y", part.local_rows());
  A.apply(exec, x, y);
  exec.fence();
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto yg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_global);
  const double tol = sizeof(Scalar) == 8 ? 1e-13 : 1e-5;
  for (std::int64_t i = 0; i < part.local_rows(); ++i) {
    ASSERT_NEAR(yh(i), yg(part.first_row() + i), tol) << "global row " << part.first_row() + i;
  }
}

TYPED_TEST(DistributedFemTest, CgMatchesSingleRankCg) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Exec exec;
  const std::int64_t N = 12;
  auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
  auto A = make_distributed_fem_poisson<CrsFormat, Scalar>(part, exec, N);
  auto A1 = make_fem_poisson_crs<Scalar>(exec, N);
  auto b1 = fem_poisson_rhs<Scalar>(exec, N);
  auto b = distributed_fem_poisson_rhs<Scalar>(exec, part, N);
  const bool dbl = sizeof(Scalar) == 8;
  for (auto variant : {CgVariant::standard, CgVariant::pipelined}) {
    for (bool jacobi : {false, true}) {
      SCOPED_TRACE(std::string(name(variant)) + (jacobi ? " + Jacobi" : ""));
      CgOptions opts;
      opts.relative_tolerance = dbl ? 1e-10 : 1e-5;
      opts.use_initial_guess = true;
      opts.jacobi = jacobi;
      opts.variant = variant;
      // A replacement every 10 iterations runs that path with split reductions too.
      opts.replacement_interval = variant == CgVariant::pipelined ? 10 : 0;
      auto x1 = fem_poisson_rough_guess<Scalar>(exec, N);
      auto x = distributed_fem_poisson_rough_guess<Scalar>(exec, part, N);
      const CgResult r1 = cg(exec, A1, b1, x1, opts);
      const CgResult r = cg(exec, A, b, x, opts);
      EXPECT_TRUE(r1.converged()) << r1.message;
      EXPECT_TRUE(r.converged()) << r.message;
      EXPECT_LE(std::abs(r.iterations - r1.iterations), 1)
          << "distributed " << r.iterations << ", single rank " << r1.iterations;
      EXPECT_TRUE(same_on_all_ranks(r.iterations));
      auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      auto x1h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x1);
      double worst = 0, scale = 0;
      for (std::int64_t i = 0; i < part.local_rows(); ++i) {
        worst = std::max(worst, std::abs(double(xh(i)) - double(x1h(part.first_row() + i))));
        scale = std::max(scale, std::abs(double(x1h(part.first_row() + i))));
      }
      EXPECT_LE(worst, (dbl ? 1e-8 : 2e-3) * scale);
    }
  }
}

// BiCGStab and GMRES run on the distributed operator unchanged: its reduction
// policy makes every dot product global, so iterations match a single rank's.
TYPED_TEST(DistributedFemTest, BicgstabAndGmresMatchSingleRank) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Exec exec;
  const std::int64_t N = 12;
  auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
  auto A = make_distributed_fem_poisson<CrsFormat, Scalar>(part, exec, N);
  auto A1 = make_fem_poisson_crs<Scalar>(exec, N);
  auto b1 = fem_poisson_rhs<Scalar>(exec, N);
  auto b = distributed_fem_poisson_rhs<Scalar>(exec, part, N);
  const double tol = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  for (int way = 0; way < 2; ++way) {
    SCOPED_TRACE(way == 0 ? "bicgstab + Jacobi" : "gmres(10) + Jacobi");
    auto x1 = fem_poisson_rough_guess<Scalar>(exec, N);
    auto x = distributed_fem_poisson_rough_guess<Scalar>(exec, part, N);
    SolverResult r1, r;
    if (way == 0) {
      BicgstabOptions o;
      o.relative_tolerance = tol;
      o.use_initial_guess = true;
      r1 = bicgstab(exec, A1, make_jacobi(exec, A1), b1, x1, o);
      r = bicgstab(exec, A, make_jacobi(exec, A), b, x, o);
    } else {
      GmresOptions o;
      o.relative_tolerance = tol;
      o.use_initial_guess = true;
      o.restart = 10;
      r1 = gmres(exec, A1, make_jacobi(exec, A1), b1, x1, o);
      r = gmres(exec, A, make_jacobi(exec, A), b, x, o);
    }
    EXPECT_TRUE(r1.converged()) << r1.message;
    EXPECT_TRUE(r.converged()) << r.message;
    EXPECT_LE(std::abs(r.iterations - r1.iterations), 2)
        << "distributed " << r.iterations << ", single rank " << r1.iterations;
    EXPECT_TRUE(same_on_all_ranks(r.iterations));
  }
  // A bad restart on every rank is the same error everywhere, not a hang (on several
  // ranks a DistributedError naming the ranks and the message).
  GmresOptions bad;
  bad.restart = -1;
  auto x = distributed_fem_poisson_rough_guess<Scalar>(exec, part, N);
  try {
    gmres(exec, A, b, x, bad);
    ADD_FAILURE() << "restart -1 was accepted";
  } catch (std::exception const& e) {
    EXPECT_NE(std::string(e.what()).find("restart must be 0 (automatic) or in [1, n]"),
              std::string::npos)
        << e.what();
  }
}

// Second order: halving h divides the nodal L2 error by about 4, and every
// error is the closed-form error of the exact discrete solution.
TEST(DistributedFemConvergence, SecondOrderOnAnyNumberOfRanks) {
  Kokkos::DefaultExecutionSpace exec;
  double errors[2] = {0, 0};
  const std::int64_t sizes[2] = {8, 16};
  for (int k = 0; k < 2; ++k) {
    const std::int64_t N = sizes[k];
    auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
    auto A = make_distributed_fem_poisson<SellFormat, double>(part, exec, N);
    auto b = distributed_fem_poisson_rhs<double>(exec, part, N);
    auto x = distributed_fem_poisson_rough_guess<double>(exec, part, N);
    CgOptions opts;
    opts.relative_tolerance = 1e-12;
    opts.use_initial_guess = true;
    const CgResult r = cg(exec, A, b, x, opts);
    EXPECT_TRUE(r.converged()) << r.message;
    errors[k] = distributed_fem_poisson_l2_error(exec, part, N, x);
    const double predicted = FemPoisson(N).predicted_l2_error();
    EXPECT_NEAR(errors[k], predicted, 1e-3 * predicted) << "N = " << N;
  }
  const double order = std::log2(errors[0] / errors[1]);
  EXPECT_NEAR(order, 2.0, 0.1);
}

} // namespace
} // namespace spmvkit::test
