// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The FEM Poisson assembly (problems/fem_poisson.hpp) against a brute-force
// element loop, and its direct SELL assembly against make_sell of the CRS.
#include "test_utils.hpp"

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

using spmvkit::FemPoisson;
using spmvkit::test::HostCrs;

constexpr double pi = 3.14159265358979323846;

struct BruteForce {
  HostCrs K, M;
};

/// Q1 stiffness and mass matrices assembled the textbook way: loop over the
/// N^3 elements, build each 8 x 8 element matrix from the 1D element matrices
/// on [0, h] (stiffness [1 -1; -1 1]/h, mass h[1/3 1/6; 1/6 1/3]), and add the
/// couplings between interior nodes, zeros included.
BruteForce brute_force_fem(int N) {
  const double h = 1.0 / N;
  const std::int64_t n = N - 1;
  const double S[2][2] = {{1, -1}, {-1, 1}};
  const double Mm[2][2] = {{1.0 / 3, 1.0 / 6}, {1.0 / 6, 1.0 / 3}};
  std::map<std::pair<std::int64_t, std::int64_t>, double> K, M;
  auto node = [&](int gx, int gy, int gz) -> std::int64_t {
    if (gx < 1 || gx > n || gy < 1 || gy > n || gz < 1 || gz > n) return -1;
    return (gx - 1) + n * ((gy - 1) + n * (gz - 1));
  };
  for (int ez = 0; ez < N; ++ez)
    for (int ey = 0; ey < N; ++ey)
      for (int ex = 0; ex < N; ++ex)
        for (int a = 0; a < 8; ++a) {
          const int ax = a & 1, ay = (a >> 1) & 1, az = a >> 2;
          const auto row = node(ex + ax, ey + ay, ez + az);
          if (row < 0) continue;
          for (int b = 0; b < 8; ++b) {
            const int bx = b & 1, by = (b >> 1) & 1, bz = b >> 2;
            const auto col = node(ex + bx, ey + by, ez + bz);
            if (col < 0) continue;
            // 1D stiffness scales as 1/h, mass as h: h^-1 * h * h = h.
            K[{row, col}] +=
                h * (S[ax][bx] * Mm[ay][by] * Mm[az][bz] + Mm[ax][bx] * S[ay][by] * Mm[az][bz] +
                     Mm[ax][bx] * Mm[ay][by] * S[az][bz]);
            M[{row, col}] += h * h * h * Mm[ax][bx] * Mm[ay][by] * Mm[az][bz];
          }
        }
  auto to_crs = [n](std::map<std::pair<std::int64_t, std::int64_t>, double> const& entries) {
    HostCrs A;
    A.rows = A.cols = n * n * n;
    A.row_starts.assign(A.rows + 1, 0);
    for (auto const& [rc, v] : entries) { // std::map: sorted by row, then column
      ++A.row_starts[rc.first + 1];
      A.col.push_back(rc.second);
      A.val.push_back(v);
    }
    for (std::int64_t i = 0; i < A.rows; ++i) A.row_starts[i + 1] += A.row_starts[i];
    return A;
  };
  return {to_crs(K), to_crs(M)};
}

double nodal_f(std::int64_t row, int N) {
  const std::int64_t n = N - 1;
  const double h = 1.0 / N;
  const std::int64_t i = row % n, j = (row / n) % n, k = row / (n * n);
  return 3 * pi * pi * std::sin(pi * (i + 1) * h) * std::sin(pi * (j + 1) * h) *
         std::sin(pi * (k + 1) * h);
}

template <class Config>
class FemPoissonTest : public ::testing::Test {};
TYPED_TEST_SUITE(FemPoissonTest, spmvkit::test::AllConfigs, spmvkit::test::ConfigNames);

// (a) Pattern exactly (zero face couplings included), values within a few ulps,
// nnz = (3n-2)^3, symmetric; and the right-hand side = brute-force M * f.
TYPED_TEST(FemPoissonTest, AssemblyMatchesBruteForceElementLoop) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (int N : {2, 3, 4, 5}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const FemPoisson p(N);
    const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
    ASSERT_EQ(A.num_rows(), p.num_rows);
    ASSERT_EQ(A.nnz(), (3 * p.n - 2) * (3 * p.n - 2) * (3 * p.n - 2));
    ASSERT_EQ(A.nnz(), p.nnz);
    spmvkit::check_structure(Exec(), A);
    const HostCrs got = spmvkit::test::to_host(A);
    const BruteForce ref = brute_force_fem(N);
    ASSERT_EQ(got.row_starts, ref.K.row_starts);
    ASSERT_EQ(got.col, ref.K.col);
    std::map<std::pair<std::int64_t, std::int64_t>, double> entries;
    for (std::int64_t i = 0; i < got.rows; ++i) {
      const std::int64_t len = got.row_starts[i + 1] - got.row_starts[i];
      EXPECT_TRUE(len == 8 || len == 12 || len == 18 || len == 27 || (N == 2 && len == 1));
      for (std::int64_t k = got.row_starts[i]; k < got.row_starts[i + 1]; ++k) {
        // Face couplings are exact zeros in the assembly and sums of +-h/9,
        // h/18 terms in the element loop: compare against an absolute floor.
        EXPECT_NEAR(got.val[k], ref.K.val[k], 4 * eps * (std::fabs(ref.K.val[k]) + p.h))
            << "row " << i << " col " << got.col[k];
        entries[{i, got.col[k]}] = got.val[k];
      }
    }
    for (auto const& [rc, v] : entries) {
      auto t = entries.find({rc.second, rc.first});
      ASSERT_TRUE(t != entries.end());
      EXPECT_EQ(t->second, v);
    }

    const auto b = spmvkit::fem_poisson_rhs<Scalar>(Exec(), N);
    auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
    double bmax = 0;
    std::vector<double> bref(p.num_rows, 0.0);
    for (std::int64_t i = 0; i < p.num_rows; ++i) {
      for (std::int64_t k = ref.M.row_starts[i]; k < ref.M.row_starts[i + 1]; ++k)
        bref[i] += ref.M.val[k] * nodal_f(ref.M.col[k], N);
      bmax = std::max(bmax, std::fabs(bref[i]));
    }
    for (std::int64_t i = 0; i < p.num_rows; ++i)
      EXPECT_NEAR(bh(i), bref[i], 64 * eps * bmax) << "b(" << i << ")";
  }
}

TYPED_TEST(FemPoissonTest, AssemblyRejectsBadSizes) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  EXPECT_THROW(spmvkit::make_fem_poisson_crs<Scalar>(Exec(), 1), std::invalid_argument);
  EXPECT_THROW(spmvkit::make_fem_poisson_sell<Scalar>(Exec(), 0, 4), std::invalid_argument);
  EXPECT_THROW(spmvkit::make_fem_poisson_sell<Scalar>(Exec(), 4, 0), std::invalid_argument);
  EXPECT_THROW(spmvkit::make_fem_poisson_sell<Scalar>(Exec(), 4, 4, 0), std::invalid_argument);
  // 499^3 rows fit int, (3*499-2)^3 = 3.3e9 nonzeros do not: rejected before allocating.
  try {
    spmvkit::make_fem_poisson_crs<Scalar, Exec, int, int>(Exec(), 500);
    ADD_FAILURE() << "expected std::length_error";
  } catch (std::length_error const& e) {
    EXPECT_NE(std::string(e.what()).find("nonzeros"), std::string::npos) << e.what();
  }
}

// (b) Direct SELL assembly equals CRS -> make_sell, array by array.
TYPED_TEST(FemPoissonTest, SellAssemblyEqualsMakeSellOfCrs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto host = [](auto const& v) {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  };
  auto same = [&](auto const& a, auto const& b) {
    auto ha = host(a);
    auto hb = host(b);
    if (ha.extent(0) != hb.extent(0)) return false;
    for (std::size_t i = 0; i < ha.extent(0); ++i)
      if (!(ha(i) == hb(i))) return false;
    return true;
  };
  for (int N : {3, 5, 7}) {
    const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
    for (auto [C, sigma] : std::vector<std::pair<int, std::int64_t>>{
             {1, 1}, {4, 1}, {32, 1}, {3, 5}, {4, 8}, {8, 64}, {32, 1000}}) {
      SCOPED_TRACE("N = " + std::to_string(N) + ", C = " + std::to_string(C) +
                   ", sigma = " + std::to_string(sigma));
      const auto S = spmvkit::make_fem_poisson_sell<Scalar>(Exec(), N, C, sigma);
      const auto R = spmvkit::make_sell(Exec(), A, C, sigma);
      EXPECT_EQ(S.num_rows(), R.num_rows());
      EXPECT_EQ(S.nnz(), R.nnz());
      EXPECT_EQ(S.stored_entries(), R.stored_entries());
      EXPECT_EQ(S.chunk_size(), R.chunk_size());
      EXPECT_EQ(S.sigma(), R.sigma());
      EXPECT_TRUE(same(S.chunk_starts(), R.chunk_starts()));
      EXPECT_TRUE(same(S.chunk_widths(), R.chunk_widths()));
      EXPECT_TRUE(same(S.column_indices(), R.column_indices()));
      EXPECT_TRUE(same(S.values(), R.values()));
      EXPECT_TRUE(same(S.row_permutation(), R.row_permutation()));
      EXPECT_TRUE(same(S.row_lengths(), R.row_lengths()));
    }
  }
}

// Every format of the format list assembles the FEM matrix straight from its
// row source (make_fem_poisson<Format>), exactly as it converts the CRS
// assembly: the same matrix back through CRS and the same stored size.
template <class C>
class FemEveryFormatTest : public ::testing::Test {};
TYPED_TEST_SUITE(FemEveryFormatTest, spmvkit::test::FormatConfigs,
                 spmvkit::test::FormatConfigNames);

TYPED_TEST(FemEveryFormatTest, DirectAssemblyEqualsConversionOfCrs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  for (int N : {2, 5, 9}) {
    const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
    const HostCrs expected = spmvkit::test::to_host(A);
    for (auto const& o : spmvkit::test::test_options<Format, Exec>()) {
      SCOPED_TRACE("N = " + std::to_string(N) + " " + Format::name(o));
      if (!Format::obstacle(Exec(), A, o).empty()) {
        EXPECT_THROW((spmvkit::make_fem_poisson<Format, Scalar>(Exec(), N, o)),
                     std::invalid_argument);
        continue;
      }
      const auto direct = spmvkit::make_fem_poisson<Format, Scalar>(Exec(), N, o);
      const auto converted =
          Format::from_crs(Exec(), A, spmvkit::test::same_choice_options<Format>(direct, o));
      const HostCrs back = spmvkit::test::to_host(Format::to_crs(Exec(), direct));
      EXPECT_EQ(back.row_starts, expected.row_starts);
      EXPECT_EQ(back.col, expected.col);
      EXPECT_EQ(back.val, expected.val);
      EXPECT_EQ(Format::bytes(direct).total(), Format::bytes(converted).total());
    }
  }
}

} // namespace
