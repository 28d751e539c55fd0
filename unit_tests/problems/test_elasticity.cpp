// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The 3D linear elasticity problem (problems/elasticity.hpp): sizes, the
// 3 x 3 block pattern BSR detects, symmetry and definiteness, rigid-body
// modes in the kernel of the unconstrained rows, second-order convergence of
// the discretisation error, and the bad inputs.
#include "env_guard.hpp"
#include "test_utils.hpp"

#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/elasticity.hpp>
#include <spmvkit/solvers/cg.hpp>

#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class ElasticityTest : public ::testing::Test {};
TYPED_TEST_SUITE(ElasticityTest, AllConfigs, ConfigNames);

TYPED_TEST(ElasticityTest, SizesBlocksSymmetryAndDefiniteness) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (int N : {2, 3, 5}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const Elasticity p(N, ElasticityMaterial{});
    const auto A = make_elasticity<CrsFormat, Scalar>(Exec(), N);
    EXPECT_EQ(A.num_rows(), 3 * N * (N + 1) * (N + 1));
    EXPECT_EQ(static_cast<std::int64_t>(A.nnz()), p.nnz);
    const HostCrs h = to_host(A);
    std::map<std::pair<std::int64_t, std::int64_t>, double> entries;
    for (std::int64_t i = 0; i < h.rows; ++i) {
      for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k) {
        if (k > h.row_starts[i]) {
          ASSERT_LT(h.col[k - 1], h.col[k]) << "row " << i;
        }
        entries[{i, h.col[k]}] = h.val[k];
      }
    }
    for (auto const& [ij, v] : entries) {
      auto const t = entries.find({ij.second, ij.first});
      ASSERT_NE(t, entries.end()) << "(" << ij.first << ", " << ij.second << ") has no mirror";
      EXPECT_NEAR(t->second, v, 1e-6 * std::fabs(v) + 1e-7);
    }
    // Positive diagonal and x^T A x > 0 for a random x.
    using V = Kokkos::View<Scalar*, Exec>;
    const V x = random_vector<V>(h.rows, 3, "x");
    V y("y", h.rows);
    spmv(Exec(), Scalar(1), A, x, Scalar(0), y);
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    double xax = 0;
    for (std::int64_t i = 0; i < h.rows; ++i) xax += static_cast<double>(xh(i)) * yh(i);
    EXPECT_GT(xax, 0);
    // Interleaved numbering: full 3 x 3 blocks (at N = 2 the two nodes of
    // each x line share their pattern, so 6 x 6 blocks are exact too).
    const auto B = make_elasticity<BsrFormat, Scalar>(Exec(), N);
    EXPECT_EQ(B.block_size(), N == 2 ? 6 : 3);
    EXPECT_EQ(B.num_blocks() * B.block_size() * B.block_size(), p.nnz);
    EXPECT_EQ(B.masks().extent(0), 0u);
  }
}

// Rows of nodes with no clamped neighbour (i >= 2) are rows of the
// unconstrained stiffness matrix, whose kernel holds the rigid-body modes.
TYPED_TEST(ElasticityTest, RigidBodyModesAreInTheKernelOfTheFreeRows) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 4;
  const auto A = make_elasticity<BsrFormat, Scalar>(Exec(), N);
  const auto modes = elasticity_rigid_body_modes<Scalar>(Exec(), N);
  ASSERT_EQ(modes.extent(0), static_cast<std::size_t>(A.num_rows()));
  ASSERT_EQ(modes.extent(1), 6u);
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (int t = 0; t < 6; ++t) {
    Kokkos::View<Scalar*, Exec> r("r", A.num_rows()), y("y", A.num_rows());
    Kokkos::deep_copy(r, Kokkos::subview(modes, Kokkos::ALL, t));
    spmv(Exec(), Scalar(1), A, r, Scalar(0), y);
    auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
    double norm = 0, clamped_side = 0;
    for (std::size_t i = 0; i < yh.extent(0); ++i) norm = std::max(norm, std::fabs(1.0 * rh(i)));
    int checked = 0;
    for (std::int64_t row = 0; row < A.num_rows(); ++row) {
      const std::int64_t i = (row / 3) % N + 1;
      if (i >= 2) {
        // Entries are O(h E); 81 terms of at most |r| each.
        EXPECT_LE(std::fabs(1.0 * yh(row)), 81 * 10 * eps * norm) << "mode " << t << " row " << row;
        ++checked;
      } else {
        clamped_side = std::max(clamped_side, std::fabs(1.0 * yh(row)));
      }
    }
    EXPECT_GT(checked, 0);
    if (t < 3) {
      EXPECT_GT(clamped_side, 1e-3) << "the clamp holds translations back";
    }
  }
}

// The discrete solution converges to the manufactured one with second order:
// halving h divides the nodal error by about 4.
TEST(ElasticityConvergence, SecondOrderNodalError) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const ElasticityMaterial steel_like{200.0, 0.3};
  double previous = 0;
  for (int N : {4, 8, 16}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const auto A = make_elasticity<BsrFormat, double>(Exec(), N, steel_like);
    const auto b = elasticity_rhs<double>(Exec(), N, steel_like);
    Kokkos::View<double*, Exec> x("x", A.num_rows());
    CgOptions opts;
    opts.relative_tolerance = 1e-11;
    opts.max_iterations = 20000;
    const auto r = spmvkit::cg(Exec(), A, b, x, opts);
    ASSERT_TRUE(r.converged()) << r.message;
    const double error = elasticity_relative_error(Exec(), N, x);
    EXPECT_LT(error, 0.05);
    if (previous > 0) {
      EXPECT_GT(previous / error, 3.2) << previous << " -> " << error;
      EXPECT_LT(previous / error, 5.0) << previous << " -> " << error;
    }
    previous = error;
  }
}

TEST(ElasticityBadInput, NamesTheValue) {
  using Exec = Kokkos::DefaultExecutionSpace;
  auto message = [](auto&& f) {
    try {
      f();
    } catch (std::exception const& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message([] { make_elasticity<CrsFormat, double>(Exec(), 1); }).find("N"),
            std::string::npos);
  EXPECT_NE(message([] {
              make_elasticity<CrsFormat, double>(Exec(), 4, ElasticityMaterial{1.0, 0.5});
            }).find("Poisson's ratio"),
            std::string::npos);
  EXPECT_NE(message([] {
              make_elasticity<CrsFormat, double>(Exec(), 4, ElasticityMaterial{1.0, -1.0});
            }).find("Poisson's ratio"),
            std::string::npos);
  EXPECT_NE(message([] {
              make_elasticity<CrsFormat, double>(Exec(), 4, ElasticityMaterial{0.0, 0.3});
            }).find("Young's modulus"),
            std::string::npos);
  EXPECT_NE(message([] {
              make_elasticity<CrsFormat, double>(Exec(), 4, ElasticityMaterial{std::nan(""), 0.3});
            }).find("Young's modulus"),
            std::string::npos);
  // 3 N (N+1)^2 rows beyond int, before anything is allocated.
  EXPECT_THROW((make_elasticity<CrsFormat, double>(Exec(), 1000)), std::length_error);
  EXPECT_THROW((make_elasticity<CrsFormat, double>(Exec(), 30000)), std::length_error);
}

// A problem whose values alone exceed the memory limit is refused by size, before the
// format allocates anything (a host allocation past memory fails only at first touch).
TEST(ElasticityBadInput, BeyondTheMemoryLimitBeforeAllocating) {
  using Exec = Kokkos::DefaultExecutionSpace;
  // N = 8: 9 * 22 * 25^2 = 123,750 values, 990,000 bytes in double.
  EnvGuard env("SPMVKIT_MEMORY_LIMIT", "989999");
  try {
    make_elasticity<BsrFormat, double>(Exec(), 8);
    ADD_FAILURE() << "N = 8 built under a 989,999-byte limit";
  } catch (std::length_error const& e) {
    EXPECT_EQ(std::string(e.what()),
              "spmvkit::make_elasticity: N = 8 needs 990000 bytes for its 123750 values alone, "
              "more than the limit of 989999 bytes (SPMVKIT_MEMORY_LIMIT)");
  }
  EnvGuard fits("SPMVKIT_MEMORY_LIMIT", "990000");
  EXPECT_EQ((make_elasticity<BsrFormat, double>(Exec(), 8).nnz()), 123750);
  // N = 250: 3.8e9 values (30 GB) with 64-bit offsets, refused by size under a 1 GB limit, not
  // by a failed (or, on Linux hosts, overcommitted) allocation.
  EnvGuard small("SPMVKIT_MEMORY_LIMIT", "1000000000");
  EXPECT_THROW((make_elasticity<CrsFormat, double, Exec, int, std::int64_t>(Exec(), 250)),
               std::length_error);
}

} // namespace
