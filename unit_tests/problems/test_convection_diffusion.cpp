// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The convection-diffusion problem (problems/convection_diffusion.hpp) against
// a host assembly from the physical coefficients (ε, w, h): sizes, pattern,
// the Laplacian at Pe = 0, the M-matrix sign and dominance pattern at Pe > 0,
// b = A u* through spmv, parameter checks, and every format's direct assembly.
#include "test_utils.hpp"

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using spmvkit::ConvectionDiffusion;
using spmvkit::test::HostCrs;

constexpr double pi = 3.14159265358979323846;

using Entries = std::map<std::pair<std::int64_t, std::int64_t>, double>;

/// The unscaled finite-difference operator -ε Δ + w·∇ (upwind) with
/// ε = |w| h / (2 Pe), written from the textbook formulas grid point by grid
/// point, then multiplied by h²/ε; at Pe = 0 the 2d+1-point Laplacian.
Entries reference_entries(int dim, std::int64_t N, double peclet, std::array<double, 3> w) {
  const std::int64_t n = N - 1;
  const double h = 1.0 / static_cast<double>(N);
  const double speed = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const double eps = peclet > 0 ? speed * h / (2 * peclet) : 1.0;
  const double diffusion = peclet > 0 ? eps / (h * h) : 1.0;
  const double convection = peclet > 0 ? 1.0 / h : 0.0;
  const double scale = peclet > 0 ? h * h / eps : 1.0;
  Entries A;
  const std::int64_t nz = dim == 3 ? n : 1;
  std::int64_t stride[3] = {1, n, n * n};
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t c[3] = {i, j, k};
        const std::int64_t row = i + n * (j + n * k);
        auto add = [&](std::int64_t col, double v) { A[{row, col}] += scale * v; };
        for (int a = 0; a < dim; ++a) {
          // -ε (u_{-} - 2 u + u_{+}) / h²
          add(row, 2 * diffusion);
          if (c[a] > 0) add(row - stride[a], -diffusion);
          if (c[a] < n - 1) add(row + stride[a], -diffusion);
          // w_a du/dx_a, differenced on the side the wind comes from
          if (w[a] > 0) {
            add(row, w[a] * convection);
            if (c[a] > 0) add(row - stride[a], -w[a] * convection);
          } else if (w[a] < 0) {
            add(row, -w[a] * convection);
            if (c[a] < n - 1) add(row + stride[a], w[a] * convection);
          }
        }
      }
  return A;
}

HostCrs to_crs(std::int64_t rows, Entries const& entries) {
  HostCrs A;
  A.rows = A.cols = rows;
  A.row_starts.assign(rows + 1, 0);
  for (auto const& [rc, v] : entries) { // std::map: sorted by row, then column
    ++A.row_starts[rc.first + 1];
    A.col.push_back(rc.second);
    A.val.push_back(v);
  }
  for (std::int64_t i = 0; i < rows; ++i) A.row_starts[i + 1] += A.row_starts[i];
  return A;
}

Entries entries_of(HostCrs const& A) {
  Entries e;
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k)
      e[{i, A.col[k]}] = A.val[k];
  return e;
}

/// Interior neighbours of a node: 2d minus the faces of the box it touches.
std::int64_t expected_row_length(int dim, std::int64_t n, std::int64_t row) {
  std::int64_t length = 1;
  for (int a = 0; a < dim; ++a, row /= n) {
    const std::int64_t c = row % n;
    length += (c > 0) + (c < n - 1);
  }
  return length;
}

std::vector<std::array<double, 3>> winds(int dim) {
  if (dim == 2) return {{1, 1, 0}, {3, -4, 0}, {1, 0, 0}, {-0.25, -2, 0}};
  return {{1, 1, 1}, {3, -4, 12}, {0, 1, 0}, {-1, -0.5, -2}};
}

template <class Config>
class ConvectionDiffusionTest : public ::testing::Test {};
TYPED_TEST_SUITE(ConvectionDiffusionTest, spmvkit::test::AllConfigs, spmvkit::test::ConfigNames);

// Sizes from the formula, the stencil cut at the boundary row by row, and the
// exact pattern of the textbook assembly.
TYPED_TEST(ConvectionDiffusionTest, SizesAndPatternFollowTheStencil) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (int dim : {2, 3}) {
    for (std::int64_t N : {2, 3, 4, 7}) {
      SCOPED_TRACE(std::to_string(dim) + "D, N = " + std::to_string(N));
      const ConvectionDiffusion p(dim, N, 1.0);
      const std::int64_t n = N - 1;
      ASSERT_EQ(p.n, n);
      ASSERT_EQ(p.num_rows, dim == 2 ? n * n : n * n * n);
      ASSERT_EQ(p.nnz, dim == 2 ? 5 * n * n - 4 * n : 7 * n * n * n - 6 * n * n);
      const auto A = spmvkit::make_convection_diffusion_crs<Scalar>(Exec(), p);
      ASSERT_EQ(A.num_rows(), p.num_rows);
      ASSERT_EQ(A.num_cols(), p.num_rows);
      ASSERT_EQ(A.nnz(), p.nnz);
      spmvkit::check_structure(Exec(), A);
      const HostCrs got = spmvkit::test::to_host(A);
      for (std::int64_t i = 0; i < got.rows; ++i) {
        EXPECT_EQ(got.row_starts[i + 1] - got.row_starts[i], expected_row_length(dim, n, i))
            << "row " << i;
      }
      const HostCrs ref = to_crs(p.num_rows, reference_entries(dim, N, 1.0, {1, 1, 1}));
      EXPECT_EQ(got.row_starts, ref.row_starts);
      EXPECT_EQ(got.col, ref.col);
    }
  }
}

// Pe = 0: the 5-point / 7-point Laplacian [2d, -1, ...] exactly, whatever the
// wind, hence symmetric.
TYPED_TEST(ConvectionDiffusionTest, PecletZeroIsTheLaplacian) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (int dim : {2, 3}) {
    for (auto const& w : winds(dim)) {
      for (std::int64_t N : {3, 6}) {
        SCOPED_TRACE(std::to_string(dim) + "D, N = " + std::to_string(N) + ", wind (" +
                     std::to_string(w[0]) + ", " + std::to_string(w[1]) + ", " +
                     std::to_string(w[2]) + ")");
        const ConvectionDiffusion p(dim, N, 0.0, w);
        const HostCrs got =
            spmvkit::test::to_host(spmvkit::make_convection_diffusion_crs<Scalar>(Exec(), p));
        const Entries e = entries_of(got);
        EXPECT_EQ(e, reference_entries(dim, N, 0.0, w));
        for (auto const& [rc, v] : e) {
          EXPECT_EQ(v, rc.first == rc.second ? 2.0 * dim : -1.0);
          auto t = e.find({rc.second, rc.first});
          ASSERT_TRUE(t != e.end());
          EXPECT_EQ(t->second, v);
        }
      }
    }
  }
}

// Pe > 0: the textbook upwind entries; nonsymmetric; positive diagonal,
// nonpositive off-diagonals, zero row sums inside and strict dominance (by at
// least one missing neighbour's |coupling| >= 1) in rows next to the boundary.
TYPED_TEST(ConvectionDiffusionTest, PositivePecletIsANonsymmetricMMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (int dim : {2, 3}) {
    const std::int64_t N = dim == 2 ? 8 : 5;
    for (auto const& w : winds(dim)) {
      for (double peclet : {0.01, 0.5, 1.0, 10.0, 1000.0}) {
        SCOPED_TRACE(std::to_string(dim) + "D, Pe = " + std::to_string(peclet) + ", wind (" +
                     std::to_string(w[0]) + ", " + std::to_string(w[1]) + ", " +
                     std::to_string(w[2]) + ")");
        const ConvectionDiffusion p(dim, N, peclet, w);
        const HostCrs got =
            spmvkit::test::to_host(spmvkit::make_convection_diffusion_crs<Scalar>(Exec(), p));
        const HostCrs ref = to_crs(p.num_rows, reference_entries(dim, N, peclet, w));
        ASSERT_EQ(got.row_starts, ref.row_starts);
        ASSERT_EQ(got.col, ref.col);
        for (std::int64_t k = 0; k < got.nnz(); ++k)
          EXPECT_NEAR(got.val[k], ref.val[k], 4 * eps * std::fabs(ref.val[k])) << "entry " << k;

        const Entries e = entries_of(got);
        bool symmetric = true;
        for (auto const& [rc, v] : e) {
          auto t = e.find({rc.second, rc.first});
          ASSERT_TRUE(t != e.end());
          symmetric = symmetric && t->second == v;
        }
        EXPECT_FALSE(symmetric);

        for (std::int64_t i = 0; i < got.rows; ++i) {
          double diagonal = 0, off = 0;
          for (std::int64_t k = got.row_starts[i]; k < got.row_starts[i + 1]; ++k) {
            if (got.col[k] == i) {
              diagonal = got.val[k];
              EXPECT_GT(got.val[k], 0.0) << "row " << i;
            } else {
              off += std::fabs(got.val[k]);
              EXPECT_LE(got.val[k], 0.0) << "row " << i << " col " << got.col[k];
            }
          }
          const double margin = diagonal - off;
          const double rounding = 8 * eps * diagonal; // entries rounded to Scalar
          EXPECT_GE(margin, -rounding) << "row " << i;
          if (got.row_starts[i + 1] - got.row_starts[i] == 2 * dim + 1) {
            EXPECT_LE(margin, rounding) << "interior row " << i;
          } else {
            EXPECT_GE(margin, 1.0 - rounding) << "boundary row " << i;
          }
        }
      }
    }
  }
}

// u* = prod sin(π x_a) at the nodes, b = A u* up to its final rounding, and
// spmv(A, u*) = b within the spmv's own rounding, in either precision.
TYPED_TEST(ConvectionDiffusionTest, SolutionSolvesTheSystemWithTheRhs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vector = spmvkit::convection_diffusion_vector_t<Scalar, Exec>;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const double eps_double = std::numeric_limits<double>::epsilon();
  for (int dim : {2, 3}) {
    for (std::int64_t N : {2, 5, 12}) {
      for (double peclet : {0.0, 1.0, 50.0}) {
        SCOPED_TRACE(std::to_string(dim) + "D, N = " + std::to_string(N) +
                     ", Pe = " + std::to_string(peclet));
        const ConvectionDiffusion p(dim, N, peclet,
                                    dim == 2 ? std::array<double, 3>{2, -1, 0}
                                             : std::array<double, 3>{2, -1, 0.5});
        const auto A = spmvkit::make_convection_diffusion_crs<Scalar>(Exec(), p);
        const Vector u = spmvkit::convection_diffusion_solution<Scalar>(Exec(), p);
        const Vector b = spmvkit::convection_diffusion_rhs<Scalar>(Exec(), p);
        ASSERT_EQ(static_cast<std::int64_t>(u.extent(0)), p.num_rows);
        ASSERT_EQ(static_cast<std::int64_t>(b.extent(0)), p.num_rows);
        Vector y("y", p.num_rows);
        spmvkit::spmv(Exec(), Scalar(1), A, u, Scalar(0), y);
        Exec().fence();
        const auto uh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u);
        const auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
        const auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
        const HostCrs Ah = spmvkit::test::to_host(A);
        const std::int64_t n = p.n;
        double residual2 = 0, rhs2 = 0;
        for (std::int64_t i = 0; i < p.num_rows; ++i) {
          double exact = 1;
          for (std::int64_t r = i, a = 0; a < dim; ++a, r /= n)
            exact *= std::sin(pi * static_cast<double>(r % n + 1) * p.h);
          EXPECT_NEAR(uh(i), exact, 2 * eps * std::fabs(exact) + 4 * eps_double)
              << "u(" << i << ")";
          long double product = 0, magnitude = 0;
          for (std::int64_t k = Ah.row_starts[i]; k < Ah.row_starts[i + 1]; ++k) {
            const long double term = static_cast<long double>(Ah.val[k]) * uh(Ah.col[k]);
            product += term;
            magnitude += std::fabs(term);
          }
          // b is the product rounded once to Scalar (plus its double sum's error).
          EXPECT_NEAR(bh(i), static_cast<double>(product),
                      eps * std::fabs(static_cast<double>(product)) +
                          16 * eps_double * static_cast<double>(magnitude))
              << "b(" << i << ")";
          const std::int64_t length = Ah.row_starts[i + 1] - Ah.row_starts[i];
          EXPECT_NEAR(yh(i), bh(i),
                      2 * eps * ((length + 2) * static_cast<double>(magnitude) + std::fabs(bh(i))))
              << "(A u*)(" << i << ") against b(" << i << ")";
          residual2 += (static_cast<double>(yh(i)) - bh(i)) * (static_cast<double>(yh(i)) - bh(i));
          rhs2 += static_cast<double>(bh(i)) * bh(i);
        }
        // Relative to b: the cancellation in A u* (|A||u*| / |b| ~ 1 + N² / Pe at
        // most here) costs a factor over eps, not more.
        EXPECT_LE(std::sqrt(residual2), 64 * eps * static_cast<double>(N * N) * std::sqrt(rhs2));
      }
    }
  }
}

template <class Exception, class F>
void expect_throw_naming(F const& f, std::vector<std::string> const& words) {
  try {
    f();
    ADD_FAILURE() << "expected an exception naming " << words.front();
  } catch (Exception const& e) {
    for (auto const& w : words)
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

TEST(ConvectionDiffusion, BadParametersThrowNamingThem) {
  using A3 = std::array<double, 3>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  using E = std::invalid_argument;
  expect_throw_naming<E>([] { ConvectionDiffusion(1, 8, 1.0); }, {"dimension", "1"});
  expect_throw_naming<E>([] { ConvectionDiffusion(4, 8, 1.0); }, {"dimension", "4"});
  expect_throw_naming<E>([] { ConvectionDiffusion(2, 1, 1.0); }, {"N ", "got 1"});
  expect_throw_naming<E>([] { ConvectionDiffusion(3, 0, 1.0); }, {"N ", "got 0"});
  expect_throw_naming<E>([] { ConvectionDiffusion(3, -7, 1.0); }, {"N ", "-7"});
  expect_throw_naming<E>([] { ConvectionDiffusion(2, 8, -0.5); }, {"peclet", "-0.5"});
  expect_throw_naming<E>([&] { ConvectionDiffusion(2, 8, nan); }, {"peclet", "nan"});
  expect_throw_naming<E>([&] { ConvectionDiffusion(3, 8, inf); }, {"peclet", "inf"});
  expect_throw_naming<E>(
      [] {
        ConvectionDiffusion(2, 8, 1.0, A3{0, 0, 0});
      },
      {"wind", "(0, 0, 0)"});
  expect_throw_naming<E>([] { ConvectionDiffusion(3, 8, 1.0, A3{0, 0, 0}); }, {"wind", "zero"});
  expect_throw_naming<E>([&] { ConvectionDiffusion(3, 8, 1.0, A3{1, nan, 0}); }, {"wind", "nan"});
  expect_throw_naming<E>([&] { ConvectionDiffusion(2, 8, 1.0, A3{-inf, 1, 0}); }, {"wind", "inf"});
  expect_throw_naming<E>([] { ConvectionDiffusion(2, 8, 1.0, A3{1, 1, 1}); }, {"wind[2]", "2D"});
  // Pe = 0 and a wind along one axis are fine; the wind is stored normalised.
  const ConvectionDiffusion p(2, 8, 0.0, A3{3, -4, 0});
  EXPECT_DOUBLE_EQ(p.wind[0], 0.6);
  EXPECT_DOUBLE_EQ(p.wind[1], -0.8);
  EXPECT_EQ(p.wind[2], 0.0);
  const ConvectionDiffusion huge(3, 8, 1.0, A3{1e300, 0, -1e300});
  EXPECT_DOUBLE_EQ(huge.wind[0], std::sqrt(0.5));
  EXPECT_DOUBLE_EQ(huge.wind[2], -std::sqrt(0.5));
  const ConvectionDiffusion standard(3, 8, 2.0);
  for (double c : standard.wind) EXPECT_DOUBLE_EQ(c, 1 / std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(standard.diagonal_weight(), 6 + 4 * std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(standard.minus_weight(1), -1 - 4 / std::sqrt(3.0));
  EXPECT_EQ(standard.plus_weight(1), -1.0);
}

// Sizes beyond the index types are rejected before anything is allocated:
// 99999^3 ~ 1e15 unknowns cannot be int rows, 5 * 30000^2 nonzeros cannot be
// int offsets (the rows can), and (3e9)^3 does not even fit 64 bits.
TYPED_TEST(ConvectionDiffusionTest, SizesBeyondTheIndexTypesThrowLengthError) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const ConvectionDiffusion big3(3, 100000, 1.0);
  EXPECT_EQ(big3.num_rows, 99999LL * 99999 * 99999);
  expect_throw_naming<std::length_error>(
      [&] { spmvkit::make_convection_diffusion_crs<Scalar, Exec, int, int>(Exec(), big3); },
      {"unknowns"});
  const ConvectionDiffusion big2(2, 30001, 1.0);
  expect_throw_naming<std::length_error>(
      [&] { spmvkit::make_convection_diffusion_crs<Scalar, Exec, int, int>(Exec(), big2); },
      {"nonzeros"});
  expect_throw_naming<std::length_error>([] { ConvectionDiffusion(3, 3000000000LL, 1.0); },
                                         {"N = 3000000000", "64-bit"});
  expect_throw_naming<std::length_error>([] { ConvectionDiffusion(2, 4000000000LL, 1.0); },
                                         {"64-bit"});
}

// Every format of the format list assembles the matrix straight from its row
// source exactly as it converts the CRS assembly.
template <class C>
class ConvectionDiffusionEveryFormatTest : public ::testing::Test {};
TYPED_TEST_SUITE(ConvectionDiffusionEveryFormatTest, spmvkit::test::FormatConfigs,
                 spmvkit::test::FormatConfigNames);

TYPED_TEST(ConvectionDiffusionEveryFormatTest, DirectAssemblyEqualsConversionOfCrs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  for (auto const& p :
       {ConvectionDiffusion(2, 9, 10.0, {3, -4, 0}), ConvectionDiffusion(3, 6, 1.0)}) {
    const auto A = spmvkit::make_convection_diffusion_crs<Scalar>(Exec(), p);
    const HostCrs expected = spmvkit::test::to_host(A);
    for (auto const& o : spmvkit::test::test_options<Format, Exec>()) {
      SCOPED_TRACE(std::to_string(p.dimension) + "D " + Format::name(o));
      if (!Format::obstacle(Exec(), A, o).empty()) {
        EXPECT_THROW((spmvkit::make_convection_diffusion<Format, Scalar>(Exec(), p, o)),
                     std::invalid_argument);
        continue;
      }
      const auto direct = spmvkit::make_convection_diffusion<Format, Scalar>(Exec(), p, o);
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
