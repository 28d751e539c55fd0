// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block-Jacobi and Chebyshev (solvers/preconditioners/): block inverses against
// a long-double Gauss-Jordan on the host, pivoting, singular blocks and bad
// block structures; the λmax estimate against the 1D Laplacian's closed form,
// linearity, bad options; and both inside BiCGStab and GMRES against point
// Jacobi, with the true residual recomputed in long double; Chebyshev over a
// float copy of the matrix inside double CG.
#include "solvers/solver_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>
#include <spmvkit/problems/elasticity.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>

#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

using Triplets = std::vector<std::tuple<std::int64_t, std::int64_t, double>>;

/// A matrix from (row, col, value) triplets (any order; duplicates are kept).
HostCrs from_triplets(std::int64_t rows, std::int64_t cols, Triplets e) {
  std::sort(e.begin(), e.end());
  HostCrs h;
  h.rows = rows;
  h.cols = cols;
  h.row_starts.assign(static_cast<std::size_t>(rows + 1), 0);
  for (auto const& [r, c, v] : e) {
    ++h.row_starts[r + 1];
    h.col.push_back(c);
    h.val.push_back(v);
  }
  for (std::int64_t i = 0; i < rows; ++i) h.row_starts[i + 1] += h.row_starts[i];
  return h;
}

/// z = D_B⁻¹ r_B for every block, in long double: each diagonal block
/// gathered from A (entries outside it ignored, duplicates summed) and
/// inverted by Gauss-Jordan with partial pivoting; with bound_i, what an
/// inverse computed in double and applied in Scalar may be off by:
/// Gauss-Jordan's m·eps·κ∞(D_B), rounding the inverse and the m-term mat-vec
/// to Scalar (m + 2)·eps, relative to (|D_B⁻¹| |r|)_i, with a factor 4 to spare.
template <class Scalar>
void block_reference(HostCrs const& A, std::vector<std::int64_t> const& starts,
                     std::vector<long double> const& r, std::vector<long double>& z,
                     std::vector<long double>& bound) {
  const long double eps = std::numeric_limits<Scalar>::epsilon();
  z.assign(r.size(), 0);
  bound.assign(r.size(), 0);
  for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
    const std::int64_t s = starts[b], m = starts[b + 1] - s;
    std::vector<long double> W(static_cast<std::size_t>(m * 2 * m), 0);
    auto at = [&](std::int64_t i, std::int64_t j) -> long double& { return W[i * 2 * m + j]; };
    long double norm = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      at(i, m + i) = 1;
      for (auto k = A.row_starts[s + i]; k < A.row_starts[s + i + 1]; ++k) {
        const std::int64_t c = A.col[k] - s;
        if (c >= 0 && c < m) at(i, c) += static_cast<Scalar>(A.val[k]); // as stored
      }
      long double sum = 0;
      for (std::int64_t j = 0; j < m; ++j) sum += std::fabs(at(i, j));
      norm = std::max(norm, sum);
    }
    for (std::int64_t k = 0; k < m; ++k) {
      std::int64_t p = k;
      for (std::int64_t i = k + 1; i < m; ++i)
        if (std::fabs(at(i, k)) > std::fabs(at(p, k))) p = i;
      ASSERT_NE(at(p, k), 0.0L) << "the reference block " << b << " is singular";
      for (std::int64_t j = 0; j < 2 * m; ++j) std::swap(at(k, j), at(p, j));
      const long double pivot = at(k, k);
      for (std::int64_t j = 0; j < 2 * m; ++j) at(k, j) /= pivot;
      for (std::int64_t i = 0; i < m; ++i) {
        if (i == k) continue;
        const long double f = at(i, k);
        for (std::int64_t j = 0; j < 2 * m; ++j) at(i, j) -= f * at(k, j);
      }
    }
    long double inverse_norm = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      long double sum = 0;
      for (std::int64_t j = 0; j < m; ++j) sum += std::fabs(at(i, m + j));
      inverse_norm = std::max(inverse_norm, sum);
    }
    const long double kappa = norm * inverse_norm;
    const long double dbl = std::numeric_limits<double>::epsilon();
    for (std::int64_t i = 0; i < m; ++i) {
      long double sum = 0, mag = 0;
      for (std::int64_t j = 0; j < m; ++j) {
        sum += at(i, m + j) * r[s + j];
        mag += std::fabs(at(i, m + j) * r[s + j]);
      }
      z[s + i] = sum;
      bound[s + i] =
          4 * (m * dbl * kappa + (m + 2) * eps) * mag + std::numeric_limits<Scalar>::min();
    }
  }
}

/// Applies M to a random r and compares with block_reference over `starts`.
template <class Scalar, class Exec, class Prec>
void expect_block_inverse(Prec const& M, HostCrs const& A, std::vector<std::int64_t> const& starts,
                          unsigned seed) {
  const auto rv = random_values(A.rows, seed);
  const auto r = device_vector<Scalar, Exec>(rv);
  DeviceVector<Scalar, Exec> z("z", A.rows);
  M.apply(Exec(), r, z);
  std::vector<long double> want, bound;
  block_reference<Scalar>(A, starts, host_values(r), want, bound);
  const auto got = host_values(z);
  int bad = 0;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    if (!(std::fabs(got[i] - want[i]) <= bound[i]) && ++bad <= 5) {
      ADD_FAILURE() << "row " << i << ": " << static_cast<double>(got[i]) << ", want "
                    << static_cast<double>(want[i]) << " ± " << static_cast<double>(bound[i]);
    }
  }
  EXPECT_EQ(bad, 0);
}

std::vector<std::int64_t> uniform_starts(std::int64_t n, std::int64_t size) {
  std::vector<std::int64_t> s;
  for (std::int64_t i = 0; i < n; i += size) s.push_back(i);
  s.push_back(n);
  return s;
}

/// Solves with bicgstab (way 0) or gmres(20) (way 1) from x0 (zero when empty)
/// to tol, checks convergence on the long-double residual and returns the
/// iterations.
template <class Scalar, class Exec, class Matrix, class Prec, class BView, class X0>
int solve_iterations(int way, Matrix const& A, HostCrs const& h, Prec const& M, BView const& b,
                     X0 const& x0, double tol, std::string const& what) {
  SCOPED_TRACE(what);
  DeviceVector<Scalar, Exec> x("x", h.rows);
  if (x0.extent(0) > 0) Kokkos::deep_copy(x, x0);
  SolverResult r;
  if (way == 0) {
    BicgstabOptions o;
    o.relative_tolerance = tol;
    o.use_initial_guess = x0.extent(0) > 0;
    r = bicgstab(Exec(), A, M, b, x, o);
  } else {
    GmresOptions o;
    o.relative_tolerance = tol;
    o.restart = 20;
    o.use_initial_guess = x0.extent(0) > 0;
    r = gmres(Exec(), A, M, b, x, o);
  }
  EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
  const double check = true_relative_residual(h, x, b);
  EXPECT_LE(check, tol * 1.01 + 1e-14) << "reported " << r.true_relative_residual;
  return r.iterations;
}

template <class C>
class PreconditionerTest : public ::testing::Test {};
TYPED_TEST_SUITE(PreconditionerTest, AllConfigs, ConfigNames);

// ---------------------------------------------------------------- block-Jacobi

TYPED_TEST(PreconditionerTest, BlockJacobiInvertsEachBlock) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using M = BlockJacobiPreconditioner<Scalar, Exec>;
  static_assert(is_preconditioner_v<M>);
  static_assert(!is_elementwise_preconditioner_v<M>);
  static_assert(std::is_same_v<typename M::vector_type,
                               typename MatrixOperator<CrsMatrix<Scalar, Exec>>::vector_type>);
  // Block diagonal, dense random blocks (shifted to keep κ moderate; pivoting
  // still happens where an entry below the diagonal is larger), n = 70 with
  // blocks of 8, the last of 6; and every block size from 1 to 32.
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int size : {8, 1, 3, 32}) {
    SCOPED_TRACE("block size " + std::to_string(size));
    const std::int64_t n = 70;
    Triplets e;
    for (std::int64_t s = 0; s < n; s += size) {
      const std::int64_t m = std::min<std::int64_t>(size, n - s);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < m; ++j)
          e.emplace_back(s + i, s + j, u(gen) + (i == j ? 0.5 * m : 0.0));
    }
    const HostCrs h = from_triplets(n, n, e);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto P = make_block_jacobi(Exec(), A, size);
    EXPECT_EQ(P.num_rows(), n);
    EXPECT_EQ(P.num_blocks(), (n + size - 1) / size);
    EXPECT_EQ(P.largest_block(), size);
    const std::int64_t last = n - (P.num_blocks() - 1) * size;
    EXPECT_EQ(P.memory_bytes(),
              ((P.num_blocks() - 1) * size * size + last * last) * sizeof(Scalar) +
                  2 * (P.num_blocks() + 1) * sizeof(std::int64_t));
    expect_block_inverse<Scalar, Exec>(P, h, uniform_starts(n, size), 11);
  }
}

TYPED_TEST(PreconditionerTest, BlockJacobiPivotsWhereTheDiagonalIsZero) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Every diagonal entry zero (point Jacobi cannot start), every 4 x 4 block
  // nonsingular: the anti-diagonal 1..4 plus couplings, (s + 2, s + 1) stored
  // twice (3 and -2: duplicates add up, as in spmv), and entries between the
  // blocks that block-Jacobi must ignore.
  const std::int64_t n = 12;
  Triplets e;
  for (std::int64_t s = 0; s < n; s += 4) {
    for (std::int64_t i = 0; i < 4; ++i) e.emplace_back(s + i, s + 3 - i, 1.0 + i);
    e.emplace_back(s, s + 1, 0.5);
    e.emplace_back(s + 2, s + 1, -2.0);
    e.emplace_back(s + 3, s + 1, 1.5);
    if (s > 0) e.emplace_back(s, s - 1, 3.0);
  }
  const HostCrs h = from_triplets(n, n, e);
  const auto A = make_device_crs<Scalar, Exec>(h);
  EXPECT_TRUE(contains(invalid_argument_of([&] { make_jacobi(Exec(), A); }), "first: row 0"));
  const auto P = make_block_jacobi(Exec(), A, 4);
  expect_block_inverse<Scalar, Exec>(P, h, uniform_starts(n, 4), 3);
  // 2 x 2 swap blocks [[0, k + 1], [-(k + 2), 0]], coupled outside the blocks,
  // as a user block structure.
  Triplets swaps;
  for (std::int64_t k = 0; k < n / 2; ++k) {
    swaps.emplace_back(2 * k, 2 * k + 1, k + 1.0);
    swaps.emplace_back(2 * k + 1, 2 * k, -(k + 2.0));
    if (k > 0) swaps.emplace_back(2 * k, 2 * k - 2, 0.25);
  }
  const HostCrs h2 = from_triplets(n, n, swaps);
  const auto A2 = make_device_crs<Scalar, Exec>(h2);
  const auto P2 = make_block_jacobi(Exec(), A2, std::vector<std::int64_t>{0, 2, 4, 6, 8, 10, 12});
  expect_block_inverse<Scalar, Exec>(P2, h2, uniform_starts(n, 2), 4);
}

TYPED_TEST(PreconditionerTest, BlockJacobiNamesTheFirstSingularBlock) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Scalar eps = std::numeric_limits<Scalar>::epsilon();
  // 16 rows, blocks of 4: identity blocks but for `block`'s.
  auto with = [](Triplets special, std::vector<std::int64_t> const& replaced) {
    Triplets e = std::move(special);
    for (std::int64_t i = 0; i < 16; ++i) {
      if (std::find(replaced.begin(), replaced.end(), i / 4) == replaced.end())
        e.emplace_back(i, i, 2.0);
      if (i + 4 < 16) e.emplace_back(i, i + 4, 1.0); // outside every block
    }
    return from_triplets(16, 16, e);
  };
  auto message = [](HostCrs const& h, int size) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    return invalid_argument_of([&] { make_block_jacobi(Exec(), A, size); });
  };
  // Two equal rows in block 2 (rows 8..11), and block 3 empty: block 2 is named.
  Triplets equal;
  for (std::int64_t i = 8; i < 12; ++i) equal.emplace_back(i, i, 3.0);
  equal.emplace_back(8, 9, 3.0);
  equal.emplace_back(9, 8, 3.0);
  std::string what = message(with(equal, {2, 3}), 4);
  EXPECT_TRUE(contains(what, "block 2 (rows 8..11) is singular")) << what;
  // A row with no entry inside its block: block 3 (rows 12..15).
  Triplets empty_row;
  for (std::int64_t i = 12; i < 15; ++i) empty_row.emplace_back(i, i, 1.0);
  what = message(with(empty_row, {3}), 4);
  EXPECT_TRUE(contains(what, "block 3 (rows 12..15) is singular")) << what;
  // Below the threshold: [[1, 1], [1, 1 + eps]] has the pivot eps < 2·eps·‖·‖∞
  // (singular to the precision); blocks of 2, so it is block 1 (rows 2..3).
  Triplets near{{2, 2, 1.0}, {2, 3, 1.0}, {3, 2, 1.0}, {3, 3, 1.0 + double(eps)}};
  for (std::int64_t i = 0; i < 16; ++i)
    if (i != 2 && i != 3) near.emplace_back(i, i, 1.0);
  what = message(from_triplets(16, 16, near), 2);
  EXPECT_TRUE(contains(what, "block 1 (rows 2..3) is singular")) << what;
  // 8·eps is well above it: no error.
  std::get<2>(near[3]) = 1.0 + 8.0 * double(eps);
  EXPECT_NO_THROW(
      make_block_jacobi(Exec(), make_device_crs<Scalar, Exec>(from_triplets(16, 16, near)), 2));
  // A NaN or an infinity inside a block.
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    Triplets nan{{5, 4, bad}};
    what = message(with(nan, {}), 4);
    EXPECT_TRUE(contains(what, "block 1 (rows 4..7) is singular")) << what;
  }
  // An entry that is NaN outside every block is not block-Jacobi's concern.
  Triplets outside{{0, 15, std::nan("")}};
  EXPECT_NO_THROW(make_block_jacobi(Exec(), make_device_crs<Scalar, Exec>(with(outside, {})), 4));
}

// From a BSR matrix: its own b x b diagonal blocks, the same preconditioner
// as block-Jacobi of the CRS matrix with blocks of b; a block row without its
// diagonal block is a singular block, named.
TYPED_TEST(PreconditionerTest, BlockJacobiTakesTheBlocksOfABsrMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const auto A = make_elasticity<CrsFormat, Scalar>(Exec(), 3);
  const auto B = make_bsr(Exec(), A);
  ASSERT_EQ(B.block_size(), 3);
  const auto from_bsr = make_block_jacobi(Exec(), B);
  const auto from_crs = make_block_jacobi(Exec(), A, 3);
  EXPECT_EQ(from_bsr.num_blocks(), A.num_rows() / 3);
  const V r = random_vector<V>(A.num_rows(), 8, "r");
  V z1("z1", A.num_rows()), z2("z2", A.num_rows());
  from_bsr.apply(Exec(), r, z1);
  from_crs.apply(Exec(), r, z2);
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z1);
  auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z2);
  for (std::size_t i = 0; i < h1.extent(0); ++i) ASSERT_EQ(h1(i), h2(i)) << "row " << i;
  // Block row 1 of a 2 x 2-blocked matrix has only an off-diagonal block.
  const HostCrs h = from_triplets(6, 6,
                                  {{0, 0, 2.0},
                                   {0, 1, 1.0},
                                   {1, 0, 1.0},
                                   {1, 1, 2.0},
                                   {2, 4, 1.0},
                                   {2, 5, 1.0},
                                   {3, 4, 1.0},
                                   {3, 5, 1.0},
                                   {4, 4, 1.0},
                                   {4, 5, 0.5},
                                   {5, 4, 0.5},
                                   {5, 5, 1.0}});
  const auto S = make_bsr(Exec(), make_device_crs<Scalar, Exec>(h));
  ASSERT_EQ(S.block_size(), 2);
  const std::string what = invalid_argument_of([&] { make_block_jacobi(Exec(), S); });
  EXPECT_TRUE(contains(what, "block 1 (rows 2..3) is singular")) << what;
}

TYPED_TEST(PreconditionerTest, BlockJacobiUserBlocksAndBadArguments) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Convection-diffusion (off-block entries everywhere), irregular blocks.
  const ConvectionDiffusion problem(2, 9, 1.5); // 64 rows
  const auto A = make_convection_diffusion_crs<Scalar>(Exec(), problem);
  const HostCrs h = to_host(A);
  const std::vector<std::int64_t> starts{0, 1, 6, 13, 32, 40, 41, 64};
  const auto P = make_block_jacobi(Exec(), A, starts);
  EXPECT_EQ(P.num_blocks(), 7);
  EXPECT_EQ(P.largest_block(), 23);
  expect_block_inverse<Scalar, Exec>(P, h, starts, 5);
  auto block_starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), P.block_starts());
  EXPECT_EQ(std::vector<std::int64_t>(block_starts.data(), block_starts.data() + 8), starts);

  auto error = [&](auto const& arg) {
    return invalid_argument_of([&] { make_block_jacobi(Exec(), A, arg); });
  };
  using Starts = std::vector<std::int64_t>;
  EXPECT_TRUE(contains(error(Starts{0}), "block_starts has 1 entries")) << error(Starts{0});
  EXPECT_TRUE(contains(error(Starts{2, 30, 64}), "block_starts[0] = 2, must be 0"));
  EXPECT_TRUE(contains(error(Starts{0, 30, 60}), "block_starts[2] = 60 (the last) must be the "
                                                 "number of rows n = 64"));
  EXPECT_TRUE(contains(error(Starts{0, 30, 30, 64}),
                       "block_starts[2] = 30 is not greater than block_starts[1] = 30"));
  EXPECT_TRUE(contains(error(Starts{0, 30, 20, 64}), "block_starts[2] = 20 is not greater"));
  EXPECT_TRUE(contains(error(Starts{0, 10, 43, 64}), "block 1 (rows 10..42) has 33 rows, more "
                                                     "than 32"));
  EXPECT_TRUE(contains(error(Starts{0, 10, 64, 80}), "block 1 (rows 10..63) has 54 rows"));
  EXPECT_TRUE(contains(error(0), "block_size = 0 must be in 1..32")) << error(0);
  EXPECT_TRUE(contains(error(-3), "block_size = -3 must be in 1..32"));
  EXPECT_TRUE(contains(error(33), "block_size = 33 must be in 1..32"));
  const auto small = make_device_crs<Scalar, Exec>(from_triplets(5, 5, {{0, 0, 1.0}}));
  const std::string big = invalid_argument_of([&] { make_block_jacobi(Exec(), small, 8); });
  EXPECT_TRUE(contains(big, "block_size = 8 must be in 1..5")) << big;
  const auto wide = make_device_crs<Scalar, Exec>(from_triplets(4, 6, {{0, 0, 1.0}}));
  const std::string square = invalid_argument_of([&] { make_block_jacobi(Exec(), wide, 2); });
  EXPECT_TRUE(contains(square, "the matrix is 4 x 6, not square")) << square;
}

TYPED_TEST(PreconditionerTest, BlockJacobiOnGridLinesBeatsPointJacobi) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Rows are numbered x fastest, so blocks of n = N - 1 rows are the grid
  // lines: each block holds the x-couplings exactly (line Jacobi).
  for (std::int64_t N : {13, 17}) {
    // Not Pe = 0: there b = A u* with u* an eigenvector of A, one step for any solver.
    for (double peclet : {0.5, 5.0}) {
      const ConvectionDiffusion problem(2, N, peclet);
      const auto A = make_convection_diffusion_crs<Scalar>(Exec(), problem);
      const auto b = convection_diffusion_rhs<Scalar>(Exec(), problem);
      const HostCrs h = to_host(A);
      const double tol =
          tolerance_for<Scalar>(h, convection_diffusion_solution<Scalar>(Exec(), problem), b);
      const auto J = make_jacobi(Exec(), A);
      const auto L = make_block_jacobi(Exec(), A, static_cast<int>(problem.n));
      const DeviceVector<Scalar, Exec> zero_start;
      for (int way = 0; way < 2; ++way) {
        const std::string what = std::string(way == 0 ? "bicgstab" : "gmres(20)") +
                                 " N=" + std::to_string(N) + " Pe=" + std::to_string(peclet);
        const int point =
            solve_iterations<Scalar, Exec>(way, A, h, J, b, zero_start, tol, what + " jacobi");
        const int line = solve_iterations<Scalar, Exec>(way, A, h, L, b, zero_start, tol,
                                                        what + " block-jacobi");
        EXPECT_LT(line, point) << what;
      }
    }
  }
}

// ------------------------------------------------------------------ Chebyshev

/// The 1D Laplacian tridiag(-1, 2, -1) of n rows.
HostCrs laplacian_1d(std::int64_t n) {
  Triplets e;
  for (std::int64_t i = 0; i < n; ++i) {
    e.emplace_back(i, i, 2.0);
    if (i > 0) e.emplace_back(i, i - 1, -1.0);
    if (i + 1 < n) e.emplace_back(i, i + 1, -1.0);
  }
  return from_triplets(n, n, e);
}

TYPED_TEST(PreconditionerTest, ChebyshevEstimatesLambdaMax) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Op = MatrixOperator<CrsMatrix<Scalar, Exec>>;
  static_assert(is_preconditioner_v<ChebyshevPreconditioner<Op>>);
  // D⁻¹A = I − T/2 with T = tridiag(1, 0, 1), whose eigenvalues are
  // 2 cos(kπ/(n+1)), k = 1..n: λ(D⁻¹A) = 1 − cos(kπ/(n+1)), the largest
  // 1 + cos(π/(n+1)). D = 2I, so D⁻¹A is symmetric and the Rayleigh
  // quotient lies below λmax (up to rounding).
  const double pi = std::acos(-1.0);
  for (std::int64_t n : {10, 100, 1000}) {
    const auto A = make_device_crs<Scalar, Exec>(laplacian_1d(n));
    const auto M = make_chebyshev(Exec(), A);
    const double exact = 1 + std::cos(pi / static_cast<double>(n + 1));
    SCOPED_TRACE("n = " + std::to_string(n));
    EXPECT_NEAR(M.lambda_max(), exact, 0.1 * exact);
    EXPECT_LE(M.lambda_max(), exact * (1 + 1e-5));
    EXPECT_DOUBLE_EQ(M.interval_upper(), 1.1 * M.lambda_max());
    EXPECT_DOUBLE_EQ(M.interval_lower(), M.lambda_max() / 30);
    EXPECT_EQ(M.num_rows(), n);
    EXPECT_EQ(M.memory_bytes(), 3 * n * sizeof(Scalar));
    // Deterministic: a second build gives the same estimate.
    EXPECT_EQ(make_chebyshev(Exec(), A).lambda_max(), M.lambda_max());
  }
  // The FEM stiffness matrix (27-point, diagonal 8h/3): K is the sum over the
  // axes of the 1D stiffness [-1 2 -1]/h along one and the 1D mass h[1 4 1]/6
  // along the others, whose eigenvalues on the mode θ = kπ/N are
  // s = (2 - 2 cos θ)/h and m = h (2 + cos θ)/3: λ(K) = Σ_a s(θ_a) Π_{b≠a} m(θ_b).
  const std::int64_t N = 10;
  const auto K = make_fem_poisson_crs<Scalar>(Exec(), N);
  const double h = 1.0 / N;
  double top = 0;
  for (std::int64_t i = 1; i < N; ++i)
    for (std::int64_t j = 1; j < N; ++j)
      for (std::int64_t k = 1; k < N; ++k) {
        double s[3], m[3];
        const std::int64_t mode[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          const double c = std::cos(pi * static_cast<double>(mode[a]) * h);
          s[a] = (2 - 2 * c) / h;
          m[a] = h * (2 + c) / 3;
        }
        top = std::max(top, s[0] * m[1] * m[2] + m[0] * s[1] * m[2] + m[0] * m[1] * s[2]);
      }
  const double fem_exact = top / (8 * h / 3);
  const auto F = make_chebyshev(Exec(), K);
  EXPECT_NEAR(F.lambda_max(), fem_exact, 0.1 * fem_exact);
  // Any format and an operator: the same estimate to rounding.
  const auto S = make_sell(Exec(), K, 8, 1);
  const double rel = sizeof(Scalar) == 8 ? 1e-12 : 1e-4;
  EXPECT_NEAR(make_chebyshev(Exec(), S).lambda_max(), F.lambda_max(), rel * F.lambda_max());
  const auto op = make_operator(K);
  EXPECT_NEAR(make_chebyshev(Exec(), op).lambda_max(), F.lambda_max(), rel * F.lambda_max());
  // A given λmax is taken as is.
  ChebyshevOptions given;
  given.lambda_max = 2.5;
  EXPECT_EQ(make_chebyshev(Exec(), K, given).lambda_max(), 2.5);
}

TYPED_TEST(PreconditionerTest, ChebyshevRejectsBadOptionsAndMatrices) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(laplacian_1d(20));
  auto error = [&](ChebyshevOptions const& o) {
    return invalid_argument_of([&] { make_chebyshev(Exec(), A, o); });
  };
  ChebyshevOptions o;
  o.degree = 0;
  EXPECT_TRUE(contains(error(o), "degree = 0 must be at least 1")) << error(o);
  o = {};
  o.eigenvalue_ratio = 1;
  EXPECT_TRUE(contains(error(o), "eigenvalue_ratio = 1 must be finite and greater than 1"));
  o.eigenvalue_ratio = std::nan("");
  EXPECT_TRUE(contains(error(o), "eigenvalue_ratio = nan")) << error(o);
  o.eigenvalue_ratio = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(contains(error(o), "eigenvalue_ratio = inf")) << error(o);
  o = {};
  o.eigenvalue_boost = 0.9;
  EXPECT_TRUE(contains(error(o), "eigenvalue_boost = 0.9 must be finite and at least 1"));
  o = {};
  o.power_iterations = 0;
  EXPECT_TRUE(contains(error(o), "power_iterations = 0 must be at least 1"));
  o.lambda_max = 2; // then no power iteration is needed
  EXPECT_NO_THROW(make_chebyshev(Exec(), A, o));
  o.lambda_max = -1;
  EXPECT_TRUE(contains(error(o), "lambda_max = -1 must be finite and positive"));

  // An empty matrix: nothing to precondition, no spectrum to estimate.
  const CrsMatrix<Scalar, Exec> empty = make_device_crs<Scalar, Exec>(from_triplets(0, 0, {}));
  const auto E = make_chebyshev(Exec(), empty);
  EXPECT_EQ(E.num_rows(), 0);
  DeviceVector<Scalar, Exec> none("none", 0);
  E.apply(Exec(), none, DeviceVector<Scalar, Exec>("z", 0));
  if constexpr (std::is_same_v<Scalar, double>) {
    o = {};
    o.degree = 4;
    const auto Ef = make_float_chebyshev(Exec(), empty, o);
    Ef.apply(Exec(), none, DeviceVector<Scalar, Exec>("z", 0));
  }

  // A zero diagonal entry: Jacobi's check names the row.
  const auto zero = make_device_crs<Scalar, Exec>(
      from_triplets(3, 3, {{0, 0, 1.0}, {1, 0, 1.0}, {1, 2, 1.0}, {2, 2, 1.0}}));
  const std::string z = invalid_argument_of([&] { make_chebyshev(Exec(), zero); });
  EXPECT_TRUE(contains(z, "first: row 1")) << z;
  // A NaN off the diagonal: the estimate is not finite.
  const auto nan = make_device_crs<Scalar, Exec>(
      from_triplets(3, 3, {{0, 0, 1.0}, {0, 2, std::nan("")}, {1, 1, 1.0}, {2, 2, 1.0}}));
  const std::string n = invalid_argument_of([&] { make_chebyshev(Exec(), nan); });
  EXPECT_TRUE(contains(n, "estimate of λmax(D⁻¹A) is ") && contains(n, "nan")) << n;
  // D⁻¹A = 11 I − 10 J (J all ones): eigenvalues −19 (on (1, 1, 1)) and 11
  // twice, so the power iteration finds the negative one.
  Triplets neg;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) neg.emplace_back(i, j, i == j ? 1.0 : -10.0);
  const auto negative = make_device_crs<Scalar, Exec>(from_triplets(3, 3, neg));
  const std::string m = invalid_argument_of([&] { make_chebyshev(Exec(), negative); });
  EXPECT_TRUE(contains(m, "not finite or not positive")) << m;
}

/// Saad's Algorithm 12.1 as the file comment of chebyshev.hpp writes it (the d
/// form, not apply()'s three-term form), in long double on the host.
std::vector<long double> chebyshev_reference(HostCrs const& h, double lower, double upper,
                                             int degree, std::vector<long double> const& r) {
  const auto n = static_cast<std::size_t>(h.rows);
  std::vector<long double> dinv(n, 0), d(n), z(n), w(n);
  for (std::size_t i = 0; i < n; ++i)
    for (auto k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
      if (h.col[static_cast<std::size_t>(k)] == static_cast<std::int64_t>(i))
        dinv[i] += h.val[static_cast<std::size_t>(k)];
  for (auto& v : dinv) v = 1 / v;
  const long double theta = (static_cast<long double>(upper) + lower) / 2,
                    delta = (static_cast<long double>(upper) - lower) / 2, sigma = theta / delta;
  for (std::size_t i = 0; i < n; ++i) z[i] = d[i] = dinv[i] * r[i] / theta;
  long double rho = 1 / sigma;
  for (int k = 1; k < degree; ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      w[i] = 0;
      for (auto e = h.row_starts[i]; e < h.row_starts[i + 1]; ++e)
        w[i] += h.val[static_cast<std::size_t>(e)] *
                z[static_cast<std::size_t>(h.col[static_cast<std::size_t>(e)])];
    }
    const long double next = 1 / (2 * sigma - rho);
    for (std::size_t i = 0; i < n; ++i) {
      d[i] = next * rho * d[i] + 2 * next / delta * dinv[i] * (r[i] - w[i]);
      z[i] += d[i];
    }
    rho = next;
  }
  return z;
}

// apply() against the recurrence on the host, for the operator's precision and
// (double vectors) the float polynomial: each within a few roundings per step.
TYPED_TEST(PreconditionerTest, ChebyshevMatchesTheRecurrence) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto K = make_fem_poisson_crs<Scalar>(Exec(), 7);
  const HostCrs h = to_host(K);
  const auto v = random_values(h.rows, 5);
  const auto r = device_vector<Scalar, Exec>(v);
  const auto rh = host_values(r);
  auto check = [&](auto const& M, double eps, int degree) {
    DeviceVector<Scalar, Exec> z("z", h.rows);
    M.apply(Exec(), r, z);
    const auto zh = host_values(z);
    const auto ref = chebyshev_reference(h, M.interval_lower(), M.interval_upper(), degree, rh);
    long double scale = 0, diff = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      scale = std::max(scale, std::fabs(ref[i]));
      diff = std::max(diff, std::fabs(zh[i] - ref[i]));
    }
    EXPECT_GT(scale, 0);
    EXPECT_LE(diff, 20 * degree * eps * scale) << "degree " << degree;
  };
  for (int degree : {1, 2, 3, 6}) {
    ChebyshevOptions o;
    o.degree = degree;
    check(make_chebyshev(Exec(), K, o), std::numeric_limits<Scalar>::epsilon(), degree);
    if constexpr (std::is_same_v<Scalar, double>) {
      check(make_float_chebyshev(Exec(), K, o), std::numeric_limits<float>::epsilon(), degree);
    }
  }
}

TYPED_TEST(PreconditionerTest, ChebyshevIsLinear) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const ConvectionDiffusion problem(2, 17, 0.5);
  const auto A = make_convection_diffusion_crs<Scalar>(Exec(), problem);
  const std::int64_t n = problem.num_rows;
  const auto v1 = random_values(n, 1), v2 = random_values(n, 2);
  const double a = -1.75; // a power of two times an integer: a r1 is exact
  std::vector<double> v3(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v3[i] = static_cast<double>(a * static_cast<Scalar>(v1[i]) + static_cast<Scalar>(v2[i]));
  const auto r1 = device_vector<Scalar, Exec>(v1), r2 = device_vector<Scalar, Exec>(v2),
             r3 = device_vector<Scalar, Exec>(v3);
  for (int degree : {1, 3, 6}) {
    ChebyshevOptions o;
    o.degree = degree;
    const auto M = make_chebyshev(Exec(), A, o);
    DeviceVector<Scalar, Exec> z1("z1", n), z2("z2", n), z3("z3", n);
    M.apply(Exec(), r1, z1);
    M.apply(Exec(), r2, z2);
    M.apply(Exec(), r3, z3);
    const auto h1 = host_values(z1), h2 = host_values(z2), h3 = host_values(z3);
    long double scale = 0, diff = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      scale = std::max(scale, std::fabs(a * h1[i]) + std::fabs(h2[i]));
      diff = std::max(diff, std::fabs(h3[i] - (a * h1[i] + h2[i])));
    }
    // Rounding: the input a r1 + r2 in Scalar (eps), then a few roundings per
    // step, each relative to the vectors' size (measured: about 1.2 eps).
    const long double eps = std::numeric_limits<Scalar>::epsilon();
    EXPECT_LE(diff, 4 * (degree + 1) * eps * scale) << "degree " << degree;
    EXPECT_GT(scale, 0);
  }
}

TYPED_TEST(PreconditionerTest, ChebyshevBeatsJacobiInKrylovSolvers) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // FEM Poisson from a rough start: b is an eigenvector of K, so from zero
  // every solver would converge in one step.
  const std::int64_t N = 12;
  const auto K = make_fem_poisson_crs<Scalar>(Exec(), N);
  const auto b = fem_poisson_rhs<Scalar>(Exec(), N);
  const auto x0 = fem_poisson_rough_guess<Scalar>(Exec(), N);
  const HostCrs h = to_host(K);
  const double tol = tolerance_for<Scalar>(h, fem_poisson_exact<Scalar>(Exec(), N), b);
  const auto J = make_jacobi(Exec(), K);
  const auto C = make_chebyshev(Exec(), K); // degree 3
  for (int way = 0; way < 2; ++way) {
    const std::string what = way == 0 ? "bicgstab" : "gmres(20)";
    const int jacobi = solve_iterations<Scalar, Exec>(way, K, h, J, b, x0, tol, what + " jacobi");
    const int chebyshev =
        solve_iterations<Scalar, Exec>(way, K, h, C, b, x0, tol, what + " chebyshev(3)");
    EXPECT_LT(chebyshev, jacobi) << what;
  }
  // Nonsymmetric: convection-diffusion with GMRES and BiCGStab, converged.
  const ConvectionDiffusion problem(2, 17, 0.5);
  const auto A = make_convection_diffusion_crs<Scalar>(Exec(), problem);
  const auto bc = convection_diffusion_rhs<Scalar>(Exec(), problem);
  const auto M = make_chebyshev(Exec(), A);
  const HostCrs hc = to_host(A);
  const double tc =
      tolerance_for<Scalar>(hc, convection_diffusion_solution<Scalar>(Exec(), problem), bc);
  const DeviceVector<Scalar, Exec> zero_start;
  for (int way = 0; way < 2; ++way)
    solve_iterations<Scalar, Exec>(way, A, hc, M, bc, zero_start, tc, "convection-diffusion");
}

/// CG on the FEM matrix K (grid N) to 1e-10 with the double polynomial C and
/// one in float, Cf: both converge, Cf within 10% (+2) of C's iterations and
/// on its true residual.
template <class Matrix, class Double, class Float>
void expect_cg_as_with_the_double_polynomial(Matrix const& K, std::int64_t N, Double const& C,
                                             Float const& Cf) {
  using Exec = typename Matrix::execution_space;
  using V = DeviceVector<double, Exec>;
  const HostCrs h = to_host(K);
  const auto b = fem_poisson_rhs<double>(Exec(), N);
  const auto x0 = fem_poisson_rough_guess<double>(Exec(), N);
  CgOptions o;
  o.relative_tolerance = 1e-10;
  o.use_initial_guess = true;
  o.max_iterations = 1000;
  V x("x", h.rows), xf("xf", h.rows);
  Kokkos::deep_copy(x, x0);
  Kokkos::deep_copy(xf, x0);
  const auto rd = cg(Exec(), K, C, b, x, o);
  const auto rf = cg(Exec(), K, Cf, b, xf, o);
  ASSERT_TRUE(rd.converged()) << name(rd.status) << ": " << rd.message;
  ASSERT_TRUE(rf.converged()) << name(rf.status) << ": " << rf.message;
  EXPECT_LE(rf.iterations, rd.iterations + 2 + rd.iterations / 10);
  EXPECT_LE(true_relative_residual(h, xf, b), 1.01e-10);
}

// A float copy of the matrix under the polynomial (make_mixed_operator): its
// products read float values, the recurrence runs on the double vectors. One
// apply agrees with the double polynomial's to float precision (and differs:
// the float values are read), and CG preconditioned with it reaches a double
// tolerance in about the double polynomial's iterations.
TYPED_TEST(PreconditionerTest, ChebyshevOnAFloatCopyPreconditionsDoubleCg) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  if constexpr (!std::is_same_v<Scalar, double>) {
    GTEST_SKIP() << "double vectors over a float matrix";
  } else {
    using V = DeviceVector<double, Exec>;
    const std::int64_t N = 12;
    const auto K = make_fem_poisson_crs<double>(Exec(), N);
    const auto Kf = make_fem_poisson_crs<float>(Exec(), N);
    const HostCrs h = to_host(K);
    const auto C = make_chebyshev(Exec(), K);
    const auto Cf = make_chebyshev(Exec(), make_mixed_operator<double>(Kf));
    EXPECT_NEAR(Cf.lambda_max(), C.lambda_max(), 1e-4 * C.lambda_max());

    const V r = random_vector<V>(h.rows, 17, "r");
    V z("z", h.rows), zf("zf", h.rows);
    C.apply(Exec(), r, z);
    Cf.apply(Exec(), r, zf);
    auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
    auto zfh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), zf);
    double largest = 0, diff = 0;
    for (std::int64_t i = 0; i < h.rows; ++i) {
      largest = std::max(largest, std::abs(zh(i)));
      diff = std::max(diff, std::abs(zh(i) - zfh(i)));
    }
    EXPECT_LE(diff, 1e-5 * largest);
    EXPECT_GT(diff, 0.0) << "the float products were not used";

    expect_cg_as_with_the_double_polynomial(K, N, C, Cf);
  }
}

// make_float_chebyshev: the polynomial in float (a float copy of A in its own
// format, float vectors) for double vectors. One apply agrees with the double
// polynomial to float precision, for every degree; CG with it reaches a double
// tolerance in about the double polynomial's iterations; a value that float
// cannot hold is an error naming the entry and its row.
TYPED_TEST(PreconditionerTest, ChebyshevInFloatPreconditionsDoubleCg) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  if constexpr (!std::is_same_v<Scalar, double>) {
    GTEST_SKIP() << "a float polynomial for double vectors";
  } else {
    using V = DeviceVector<double, Exec>;
    const std::int64_t N = 12;
    const auto K = make_fem_poisson_crs<double>(Exec(), N);
    const HostCrs h = to_host(K);
    const V r = random_vector<V>(h.rows, 17, "r");
    for (int degree : {1, 2, 3, 6}) {
      ChebyshevOptions co;
      co.degree = degree;
      const auto C = make_chebyshev(Exec(), K, co);
      const auto Cf = make_float_chebyshev(Exec(), K, co);
      static_assert(std::is_same_v<typename decltype(Cf)::vector_type, V>);
      static_assert(
          std::is_same_v<typename decltype(Cf)::polynomial_vector_type::value_type, float>);
      EXPECT_NEAR(Cf.lambda_max(), C.lambda_max(), 1e-4 * C.lambda_max());
      EXPECT_EQ(Cf.memory_bytes(), (degree > 1 ? 5u : 3u) * h.rows * sizeof(float));
      V z("z", h.rows), zf("zf", h.rows);
      Kokkos::deep_copy(zf, 7.0); // overwritten, never read
      C.apply(Exec(), r, z);
      Cf.apply(Exec(), r, zf);
      auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
      auto zfh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), zf);
      double largest = 0, diff = 0;
      for (std::int64_t i = 0; i < h.rows; ++i) {
        largest = std::max(largest, std::abs(zh(i)));
        diff = std::max(diff, std::abs(zh(i) - zfh(i)));
      }
      EXPECT_GT(largest, 0.0);
      EXPECT_LE(diff, 1e-5 * largest) << "degree " << degree;
      EXPECT_GT(diff, 0.0) << "degree " << degree << ": the float polynomial was not used";
    }

    // The format options reach the float copy's automatic choice.
    AutoOptions crs_only;
    crs_only.candidates = {"crs"};
    const auto Cc = make_float_chebyshev(Exec(), K, ChebyshevOptions(), crs_only);
    EXPECT_EQ(Cc.polynomial_operator().matrix().selection().family, "crs");

    const auto C = make_chebyshev(Exec(), K);
    const auto Cf = make_float_chebyshev(Exec(), K);
    expect_cg_as_with_the_double_polynomial(K, N, C, Cf);

    // Beyond float's range, and NaN: the entry and its row.
    // Two bad values: the first one is named.
    const auto big = make_device_crs<double, Exec>(from_triplets(
        3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {1, 2, 1e300}, {2, 0, -1e300}, {2, 2, 1.0}}));
    const std::string e = invalid_argument_of([&] { make_float_chebyshev(Exec(), big); });
    EXPECT_TRUE(contains(e, "entry 2 (row 1) of A is not finite in float")) << e;
    const auto nan = make_device_crs<double, Exec>(
        from_triplets(3, 3, {{0, 0, 1.0}, {0, 2, std::nan("")}, {1, 1, 1.0}, {2, 2, 1.0}}));
    const std::string n = invalid_argument_of([&] { make_float_chebyshev(Exec(), nan); });
    EXPECT_TRUE(contains(n, "entry 1 (row 0)")) << n;
    // A broken structure is check_structure's error, before the copy walks the rows.
    HostCrs broken = from_triplets(3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {2, 2, 1.0}});
    broken.row_starts[2] = 7;
    const auto bad = make_device_crs<double, Exec>(broken);
    const std::string s = invalid_argument_of([&] { make_float_chebyshev(Exec(), bad); });
    EXPECT_TRUE(contains(s, "check_structure: row 1 has row_starts that decrease")) << s;
  }
}

// make_float_chebyshev of an AutoMatrix, for every format: the float copy keeps the
// matrix's variant (CRS and the SELL kinds on its very structure arrays) and applies the
// same polynomial as the CRS overload's copy in that variant; bad values are named alike.
TYPED_TEST(PreconditionerTest, ChebyshevInFloatFromTheSolversFormat) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  if constexpr (!std::is_same_v<Scalar, double>) {
    GTEST_SKIP() << "a float polynomial for double vectors";
  } else {
    using V = DeviceVector<double, Exec>;
    const auto K = make_fem_poisson_crs<double>(Exec(), 10);
    const V r = random_vector<V>(K.num_rows(), 23, "r");
    ChebyshevOptions co;
    co.degree = 4;
    int shared = 0, converted = 0;
    for_each_type(format_list{}, [&](auto tag) {
      using F = typename decltype(tag)::type;
      AutoOptions family;
      family.candidates = {F::family};
      const auto A = make_auto_matrix(Exec(), K, family);
      SCOPED_TRACE(A.selection().format);
      const auto Cf = make_float_chebyshev(Exec(), A, co);
      auto const& Fm = Cf.polynomial_operator().matrix();
      // A's variant, not a new choice.
      EXPECT_EQ(Fm.selection().format, A.selection().format);
      EXPECT_EQ(Fm.nnz(), A.nnz());
      // The CRS overload with its copy in the same variant: the same float values and
      // layout, so the same polynomial up to the order of the power iteration's sums.
      AutoOptions same;
      same.candidates = {A.selection().format};
      const auto Cr = make_float_chebyshev(Exec(), K, co, same);
      ASSERT_EQ(Cr.polynomial_operator().matrix().selection().format, A.selection().format);
      EXPECT_NEAR(Cf.lambda_max(), Cr.lambda_max(), 1e-5 * Cr.lambda_max());
      V z("z", K.num_rows()), zr("zr", K.num_rows());
      Cf.apply(Exec(), r, z);
      Cr.apply(Exec(), r, zr);
      auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
      auto zrh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), zr);
      double largest = 0, diff = 0;
      for (std::int64_t i = 0; i < K.num_rows(); ++i) {
        largest = std::max(largest, std::abs(zrh(i)));
        diff = std::max(diff, std::abs(zh(i) - zrh(i)));
      }
      EXPECT_GT(largest, 0.0);
      EXPECT_LE(diff, 1e-5 * largest);
      // CRS and the SELL kinds share A's structure arrays; the others hold their own.
      A.visit([&](auto const& B, auto const&) {
        Fm.visit([&](auto const& G, auto const&) {
          using M = std::decay_t<decltype(B)>;
          using G_t = std::decay_t<decltype(G)>;
          if constexpr (std::is_same_v<format_of_t<M>, format_of_t<G_t>>) {
            if constexpr (is_crs_matrix<M>::value) {
              EXPECT_EQ(G.column_indices().data(), B.column_indices().data());
              EXPECT_EQ(G.row_starts().data(), B.row_starts().data());
              ++shared;
            } else if constexpr (detail::shares_structure_across_scalars<M>::value) {
              EXPECT_EQ(G.stored_columns().data(), B.stored_columns().data());
              EXPECT_EQ(G.chunk_starts().data(), B.chunk_starts().data());
              EXPECT_EQ(G.values().extent(0), B.values().extent(0));
              ++shared;
            } else {
              ++converted;
            }
          } else {
            ADD_FAILURE() << "the float copy's format differs from A's";
          }
        });
      });
    });
    EXPECT_EQ(shared, 3);
    EXPECT_EQ(shared + converted, static_cast<int>(format_list::size));

    // A value float cannot hold: the entry of A's CRS form and its row, whichever the format.
    const auto big = make_device_crs<double, Exec>(from_triplets(
        3, 3, {{0, 0, 1.0}, {1, 1, 1.0}, {1, 2, 1e300}, {2, 0, -1e300}, {2, 2, 1.0}}));
    for (std::string family : {"crs", "sell", "coo"}) {
      AutoOptions one;
      one.candidates = {family};
      const auto A = make_auto_matrix(Exec(), big, one);
      const std::string e = invalid_argument_of([&] { make_float_chebyshev(Exec(), A); });
      EXPECT_TRUE(contains(e, "entry 2 (row 1) of A is not finite in float"))
          << family << ": " << e;
    }
    EXPECT_THROW(make_float_chebyshev(Exec(), AutoMatrix<double, Exec>()), std::logic_error);
  }
}

} // namespace
