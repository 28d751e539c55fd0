// The FEM Poisson assembly (fem_poisson.hpp) against a brute-force element loop,
// and CG (cg.hpp) on it with every matrix format, plus CG's failure modes.
#include "test_utils.hpp"

#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/formats/sell16/sell16_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using spmvkit::CgOptions;
using spmvkit::CgResult;
using spmvkit::CgStatus;
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
class FemCgTest : public ::testing::Test {};
TYPED_TEST_SUITE(FemCgTest, spmvkit::test::AllConfigs, spmvkit::test::ConfigNames);

// (a) Pattern exactly (zero face couplings included), values within a few ulps,
// nnz = (3n-2)^3, symmetric; and the right-hand side = brute-force M * f.
TYPED_TEST(FemCgTest, AssemblyMatchesBruteForceElementLoop) {
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

TYPED_TEST(FemCgTest, AssemblyRejectsBadSizes) {
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
TYPED_TEST(FemCgTest, SellAssemblyEqualsMakeSellOfCrs) {
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

struct Solve {
  CgResult result;
  double error = 0;
};

/// Solves the FEM problem from the rough start (from zero, CG would converge in
/// one iteration: b is an eigenvector of K) and returns the nodal L2 error.
template <class Scalar, class Exec, class Matrix>
Solve solve_fem(Matrix const& A, int N, CgOptions opts) {
  const Exec exec;
  const auto b = spmvkit::fem_poisson_rhs<Scalar>(exec, N);
  auto x = spmvkit::fem_poisson_rough_guess<Scalar>(exec, N);
  opts.use_initial_guess = true;
  Solve s;
  s.result = spmvkit::cg(exec, A, b, x, opts);
  s.error = spmvkit::fem_poisson_l2_error(exec, N, x);
  return s;
}

// (c) Second-order convergence with every format, in double, on the default
// execution space. The error is also compared with its closed form
// (FemPoisson::predicted_l2_error; 2.84e-4 at N = 32).
TEST(FemCgConvergence, SecondOrderWithEveryFormat) {
  using Exec = Kokkos::DefaultExecutionSpace;
  CgOptions opts;
  opts.relative_tolerance = 1e-10;
  opts.max_iterations = 2000;
  struct Format {
    std::string name;
    int C;
    std::int64_t sigma; // C == 0: CRS
  };
  const std::vector<Format> formats = {
      {"crs", 0, 1}, {"sell-32-1", 32, 1}, {"sell-4-1", 4, 1}, {"sell-8-64", 8, 64}};
  std::vector<int> sizes = {8, 16, 32, 64};
  std::vector<double> crs_error;
  for (int N : sizes) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const FemPoisson p(N);
    const auto A = spmvkit::make_fem_poisson_crs<double>(Exec(), N);
    const Solve ref = solve_fem<double, Exec>(A, N, opts);
    ASSERT_TRUE(ref.result.converged()) << ref.result.message;
    EXPECT_LT(ref.result.true_relative_residual, 1e-9);
    EXPECT_NEAR(ref.error, p.predicted_l2_error(), 1e-3 * p.predicted_l2_error());
    crs_error.push_back(ref.error);
    std::cout << "[ fem/cg   ] N = " << N << ": crs " << ref.result.iterations
              << " iterations, nodal L2 error " << ref.error << " (predicted "
              << p.predicted_l2_error() << ")";
    // N = 64 costs most of the test's time: CRS only there.
    if (N < 64) {
      // 16-bit column offsets, with and without Jacobi (its diagonal search
      // differs from SELL's: the diagonal is the entry with offset 0).
      const auto S16 = spmvkit::make_sell16(Exec(), A, 32, 1);
      const Solve s = solve_fem<double, Exec>(S16, N, opts);
      EXPECT_TRUE(s.result.converged()) << "sell16-32-1: " << s.result.message;
      EXPECT_NEAR(s.result.iterations, ref.result.iterations, 1) << "sell16-32-1";
      EXPECT_NEAR(s.error, ref.error, 1e-6 * ref.error) << "sell16-32-1";
      CgOptions jacobi = opts;
      jacobi.jacobi = true;
      const Solve rj = solve_fem<double, Exec>(A, N, jacobi);
      const Solve sj = solve_fem<double, Exec>(spmvkit::make_sell16(Exec(), A, 8, 64), N, jacobi);
      EXPECT_TRUE(sj.result.converged()) << "sell16-8-64 jacobi: " << sj.result.message;
      EXPECT_NEAR(sj.result.iterations, rj.result.iterations, 1) << "sell16-8-64 jacobi";
      EXPECT_NEAR(sj.error, rj.error, 1e-6 * rj.error) << "sell16-8-64 jacobi";
      std::cout << ", sell16-32-1 " << s.result.iterations;
    }
    for (std::size_t f = 1; N < 64 && f < formats.size(); ++f) {
      const auto S =
          spmvkit::make_fem_poisson_sell<double>(Exec(), N, formats[f].C, formats[f].sigma);
      const Solve s = solve_fem<double, Exec>(S, N, opts);
      EXPECT_TRUE(s.result.converged()) << formats[f].name << ": " << s.result.message;
      EXPECT_NEAR(s.result.iterations, ref.result.iterations, 1) << formats[f].name;
      EXPECT_NEAR(s.error, ref.error, 1e-6 * ref.error) << formats[f].name;
      std::cout << ", " << formats[f].name << " " << s.result.iterations;
    }
    std::cout << "\n";
  }
  EXPECT_NEAR(crs_error[2], 2.84e-4, 0.1 * 2.84e-4);
  for (std::size_t i = 0; i + 1 < crs_error.size(); ++i) {
    const double order = std::log2(crs_error[i] / crs_error[i + 1]);
    std::cout << "[ fem/cg   ] order N = " << sizes[i] << " -> " << sizes[i + 1] << ": " << order
              << "\n";
    EXPECT_GE(order, 1.9);
    EXPECT_LE(order, 2.1);
  }
}

TEST(FemCgConvergence, ZeroStartConvergesInOneIteration) {
  // b = M f is an eigenvector of K (see fem_poisson.hpp), so the first Krylov
  // space already holds the solution.
  using Exec = Kokkos::DefaultExecutionSpace;
  const int N = 16;
  const auto A = spmvkit::make_fem_poisson_crs<double>(Exec(), N);
  const auto b = spmvkit::fem_poisson_rhs<double>(Exec(), N);
  spmvkit::fem_vector_t<double, Exec> x("x", FemPoisson(N).num_rows);
  CgOptions opts;
  opts.relative_tolerance = 1e-10;
  const auto r = spmvkit::cg(Exec(), A, b, x, opts);
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(r.iterations, 1);
  EXPECT_NEAR(spmvkit::fem_poisson_l2_error(Exec(), N, x), FemPoisson(N).predicted_l2_error(),
              1e-6);
}

// (c, float) The error follows the double one down to where float rounding
// takes over; at these sizes it stays within 10% of the prediction.
TEST(FemCgConvergence, FloatErrorsDecrease) {
  using Exec = Kokkos::DefaultExecutionSpace;
  CgOptions opts;
  opts.relative_tolerance = 1e-5;
  opts.max_iterations = 2000;
  double previous = std::numeric_limits<double>::infinity();
  for (int N : {4, 8, 16, 32}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const auto A = spmvkit::make_fem_poisson_crs<float>(Exec(), N);
    const Solve crs = solve_fem<float, Exec>(A, N, opts);
    const auto S = spmvkit::make_fem_poisson_sell<float>(Exec(), N, 32, 1);
    const Solve sell = solve_fem<float, Exec>(S, N, opts);
    ASSERT_TRUE(crs.result.converged()) << crs.result.message;
    ASSERT_TRUE(sell.result.converged()) << sell.result.message;
    EXPECT_NEAR(sell.result.iterations, crs.result.iterations, 2);
    EXPECT_LT(crs.error, previous);
    EXPECT_NEAR(crs.error, FemPoisson(N).predicted_l2_error(),
                0.1 * FemPoisson(N).predicted_l2_error());
    EXPECT_NEAR(sell.error, crs.error, 0.02 * crs.error);
    std::cout << "[ fem/cg   ] float N = " << N << ": " << crs.result.iterations
              << " iterations, error " << crs.error << ", true residual "
              << crs.result.true_relative_residual << "\n";
    previous = crs.error;
  }
}

// (d) Through Kokkos Kernels' CrsMatrix (shared storage), native and default.
TYPED_TEST(FemCgTest, KokkosKernelsMatrixMatchesCrs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 10;
  CgOptions opts;
  opts.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
  const Solve ref = solve_fem<Scalar, Exec>(A, N, opts);
  ASSERT_TRUE(ref.result.converged()) << ref.result.message;
  const auto kk = spmvkit::to_kokkos_kernels(A);
  for (auto algorithm :
       {spmvkit::KokkosKernelsAlgorithm::native, spmvkit::KokkosKernelsAlgorithm::vendor_default}) {
    SCOPED_TRACE(spmvkit::name(algorithm));
    opts.kokkos_kernels_algorithm = algorithm;
    const Solve s = solve_fem<Scalar, Exec>(kk, N, opts);
    EXPECT_TRUE(s.result.converged()) << s.result.message;
    EXPECT_NEAR(s.result.iterations, ref.result.iterations, 1);
    EXPECT_NEAR(s.error, ref.error, (sizeof(Scalar) == 8 ? 1e-8 : 1e-2) * ref.error);
  }
  // Jacobi through the Kokkos Kernels matrix reads the same diagonal.
  opts.jacobi = true;
  const Solve sj = solve_fem<Scalar, Exec>(kk, N, opts);
  const Solve rj = solve_fem<Scalar, Exec>(A, N, opts);
  EXPECT_TRUE(sj.result.converged());
  EXPECT_NEAR(sj.result.iterations, rj.result.iterations, 1);
}

template <class Scalar, class Exec>
spmvkit::CrsMatrix<Scalar, Exec> diagonal_matrix(std::vector<double> const& d) {
  HostCrs h;
  h.rows = h.cols = static_cast<std::int64_t>(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    h.col.push_back(static_cast<std::int64_t>(i));
    h.val.push_back(d[i]);
    h.row_starts.push_back(static_cast<std::int64_t>(i + 1));
  }
  return spmvkit::test::make_device_crs<Scalar, Exec>(h);
}

template <class Scalar, class Exec>
spmvkit::fem_vector_t<Scalar, Exec> vector_of(std::vector<double> const& v) {
  spmvkit::fem_vector_t<Scalar, Exec> x("v", v.size());
  auto h = Kokkos::create_mirror_view(x);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = static_cast<Scalar>(v[i]);
  Kokkos::deep_copy(x, h);
  return x;
}

bool contains(std::string const& s, std::string const& part) {
  return s.find(part) != std::string::npos;
}

// (e) Failure modes are reported, not hidden.
TYPED_TEST(FemCgTest, IndefiniteMatrixBreaksDown) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = diagonal_matrix<Scalar, Exec>({1, -1, 2, 3, 4});
  const auto b = vector_of<Scalar, Exec>({1, 2, 0, 0, 0}); // bᵀAb = 1 - 4 < 0
  spmvkit::fem_vector_t<Scalar, Exec> x("x", 5);
  const auto r = spmvkit::cg(Exec(), A, b, x);
  EXPECT_EQ(r.status, CgStatus::breakdown);
  EXPECT_TRUE(contains(r.message, "not positive definite")) << r.message;
  EXPECT_TRUE(contains(r.message, "-3")) << r.message;
  EXPECT_TRUE(contains(r.message, "iteration 1")) << r.message;
}

// The device applies the stopping test itself, so how often the host reads
// the scalars back changes nothing: the same iterations, residuals and status,
// and bit-identical x, for convergence, the iteration limit and a breakdown.
TYPED_TEST(FemCgTest, ResultDoesNotDependOnCheckInterval) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 10;
  const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
  const auto S = spmvkit::make_sell(Exec(), A, 8, 1);
  const auto b = spmvkit::fem_poisson_rhs<Scalar>(Exec(), N);
  const auto guess = spmvkit::fem_poisson_rough_guess<Scalar>(Exec(), N);
  spmvkit::fem_vector_t<Scalar, Exec> x("x", FemPoisson(N).num_rows);
  auto run = [&](auto const& M, CgOptions opts) {
    Kokkos::deep_copy(x, guess);
    opts.use_initial_guess = true;
    const CgResult r = spmvkit::cg(Exec(), M, b, x, opts);
    return std::make_pair(r, Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x));
  };
  for (int max_iterations : {1000, 5}) {
    CgOptions opts;
    opts.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
    opts.max_iterations = max_iterations;
    opts.check_interval = 1;
    const auto [ref, ref_x] = run(A, opts);
    ASSERT_EQ(ref.status, max_iterations == 5 ? CgStatus::iteration_limit : CgStatus::converged);
    for (int interval : {1, 2, 3, 8, 1000}) {
      opts.check_interval = interval;
      for (auto const& [name, result] : {std::make_pair(std::string("crs"), run(A, opts)),
                                         std::make_pair(std::string("sell"), run(S, opts))}) {
        SCOPED_TRACE(name + " check_interval=" + std::to_string(interval) +
                     " max_iterations=" + std::to_string(max_iterations));
        auto const& [r, rx] = result;
        EXPECT_EQ(r.status, ref.status);
        EXPECT_EQ(r.iterations, ref.iterations);
        if (name == "crs") {
          EXPECT_EQ(r.relative_residual, ref.relative_residual);
          for (std::size_t i = 0; i < rx.extent(0); ++i)
            ASSERT_EQ(rx(i), ref_x(i)) << "x(" << i << ")";
        } else { // another format: the same iterates up to rounding
          EXPECT_NEAR(r.relative_residual, ref.relative_residual, 1e-3 * ref.relative_residual);
        }
      }
    }
  }
  // A breakdown in iteration 1 is reported as such, and x keeps the start.
  const auto D = diagonal_matrix<Scalar, Exec>({1, -1, 2, 3, 4});
  const auto bd = vector_of<Scalar, Exec>({1, 2, 0, 0, 0});
  for (int interval : {1, 4}) {
    spmvkit::fem_vector_t<Scalar, Exec> xd("x", 5);
    CgOptions opts;
    opts.check_interval = interval;
    const auto r = spmvkit::cg(Exec(), D, bd, xd, opts);
    EXPECT_EQ(r.status, CgStatus::breakdown);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_TRUE(contains(r.message, "iteration 1")) << r.message;
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xd);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(xh(i), Scalar(0)) << "x(" << i << ")";
  }
}

TYPED_TEST(FemCgTest, NanInMatrixBreaksDown) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 5;
  auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
  // An off-diagonal entry of row 7: Jacobi still sees a fine diagonal.
  auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  values(starts(7)) = std::numeric_limits<Scalar>::quiet_NaN();
  Kokkos::deep_copy(A.values(), values);
  const auto b = spmvkit::fem_poisson_rhs<Scalar>(Exec(), N);
  spmvkit::fem_vector_t<Scalar, Exec> x("x", FemPoisson(N).num_rows);
  for (bool jacobi : {false, true}) {
    CgOptions opts;
    opts.jacobi = jacobi;
    const auto r = spmvkit::cg(Exec(), A, b, x, opts);
    EXPECT_EQ(r.status, CgStatus::breakdown);
    EXPECT_TRUE(contains(r.message, "non-finite value in pᵀAp at iteration 1")) << r.message;
  }
}

TYPED_TEST(FemCgTest, JacobiRejectsUnusableDiagonal) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto b = vector_of<Scalar, Exec>({1, 1, 1, 1, 1, 1});
  spmvkit::fem_vector_t<Scalar, Exec> x("x", 6);
  CgOptions opts;
  opts.jacobi = true;
  const auto r0 =
      spmvkit::cg(Exec(), diagonal_matrix<Scalar, Exec>({1, 2, 0, 4, nan, 6}), b, x, opts);
  EXPECT_EQ(r0.status, CgStatus::breakdown);
  EXPECT_TRUE(contains(r0.message, "2 of 6 rows")) << r0.message;
  EXPECT_TRUE(contains(r0.message, "first: row 2")) << r0.message;
  EXPECT_EQ(r0.iterations, 0);
  // Without Jacobi the same matrix is just indefinite-or-worse: still a breakdown.
  opts.jacobi = false;
  EXPECT_EQ(
      spmvkit::cg(Exec(), diagonal_matrix<Scalar, Exec>({1, 2, 0, 4, nan, 6}), b, x, opts).status,
      CgStatus::breakdown);
}

TYPED_TEST(FemCgTest, IterationLimitAndZeroRightHandSide) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 8;
  const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
  CgOptions opts;
  opts.max_iterations = 3;
  const Solve s = solve_fem<Scalar, Exec>(A, N, opts);
  EXPECT_EQ(s.result.status, CgStatus::iteration_limit);
  EXPECT_EQ(s.result.iterations, 3);
  EXPECT_TRUE(s.result.message.empty());
  EXPECT_GT(s.result.relative_residual, opts.relative_tolerance);

  const std::int64_t n = FemPoisson(N).num_rows;
  spmvkit::fem_vector_t<Scalar, Exec> zero("b", n);
  for (bool guess : {false, true}) {
    auto x = spmvkit::fem_poisson_rough_guess<Scalar>(Exec(), N);
    opts.use_initial_guess = guess;
    const auto r = spmvkit::cg(Exec(), A, zero, x, opts);
    EXPECT_EQ(r.status, CgStatus::converged);
    EXPECT_EQ(r.iterations, 0);
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(xh(i), Scalar(0)) << "x(" << i << ")";
  }
}

TYPED_TEST(FemCgTest, JacobiHelpsOnBadlyScaledMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 8;
  // D K D with D = diag(1 .. 30): the same problem, badly scaled.
  HostCrs h = spmvkit::test::to_host(spmvkit::make_fem_poisson_crs<double>(Exec(), N));
  std::vector<double> d(h.rows);
  for (std::int64_t i = 0; i < h.rows; ++i) d[i] = 1.0 + static_cast<double>((i * 7919) % 30);
  for (std::int64_t i = 0; i < h.rows; ++i)
    for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
      h.val[k] *= d[i] * d[h.col[k]];
  const auto A = spmvkit::test::make_device_crs<Scalar, Exec>(h);
  const auto b = spmvkit::test::random_vector<spmvkit::fem_vector_t<Scalar, Exec>>(h.rows, 7, "b");
  spmvkit::fem_vector_t<Scalar, Exec> x("x", h.rows);
  CgOptions opts;
  opts.relative_tolerance = sizeof(Scalar) == 8 ? 1e-8 : 1e-4;
  opts.max_iterations = 5000;
  const auto plain = spmvkit::cg(Exec(), A, b, x, opts);
  opts.jacobi = true;
  const auto jacobi = spmvkit::cg(Exec(), A, b, x, opts);
  EXPECT_TRUE(plain.converged()) << plain.message;
  EXPECT_TRUE(jacobi.converged()) << jacobi.message;
  EXPECT_LE(jacobi.iterations, plain.iterations);
  EXPECT_LT(jacobi.true_relative_residual, 10 * opts.relative_tolerance);
  // SELL with σ > 1 (permuted rows) extracts the same diagonal.
  const auto S = spmvkit::make_sell(Exec(), A, 4, 16);
  const auto sell = spmvkit::cg(Exec(), S, b, x, opts);
  EXPECT_TRUE(sell.converged()) << sell.message;
  EXPECT_NEAR(sell.iterations, jacobi.iterations, 1);
}

TYPED_TEST(FemCgTest, ProgressAndArgumentChecks) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int N = 6;
  const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
  std::ostringstream log;
  int calls = 0;
  CgOptions opts;
  opts.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  opts.progress_every = 2;
  opts.progress_stream = &log;
  opts.progress_callback = [&calls](spmvkit::CgProgress const& p) {
    ++calls;
    EXPECT_EQ(p.iteration % 2, 0);
  };
  opts.time_spmv = true;
  const Solve s = solve_fem<Scalar, Exec>(A, N, opts);
  ASSERT_TRUE(s.result.converged());
  EXPECT_EQ(calls, s.result.iterations / 2);
  EXPECT_TRUE(contains(log.str(), "cg: converged after")) << log.str();
  EXPECT_GE(s.result.spmv_seconds, 0.0);
  EXPECT_LE(s.result.spmv_seconds, s.result.iteration_seconds);
  EXPECT_GT(s.result.seconds_per_iteration, 0.0);

  spmvkit::fem_vector_t<Scalar, Exec> shorter("x", FemPoisson(N).num_rows - 1);
  EXPECT_THROW(spmvkit::cg(Exec(), A, shorter, shorter), std::invalid_argument);
}

} // namespace
