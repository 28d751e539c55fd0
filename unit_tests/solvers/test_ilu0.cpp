// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ILU(0) and IC(0) (solvers/preconditioners/ilu0.hpp): the fixed-point factors
// against the exact ones computed here in long double, the Jacobi-iterated
// apply against exact triangular solves, GMRES and BiCGStab with them against
// point Jacobi (true residuals recomputed in long double), linearity, and the
// errors for every input they reject.
#include "test_utils.hpp"

#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/ilu0.hpp>

#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

bool contains(std::string const& s, std::string const& part) {
  return s.find(part) != std::string::npos;
}

/// A matrix from (row, col, value) triplets (any order, no duplicates).
HostCrs from_triplets(std::int64_t rows, std::int64_t cols,
                      std::vector<std::tuple<std::int64_t, std::int64_t, double>> e) {
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

/// Tridiagonal [sub, diag, super]: ILU(0) is its exact LU.
HostCrs tridiagonal(int n, double sub, double diag, double super) {
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
  for (int i = 0; i < n; ++i) {
    e.emplace_back(i, i, diag);
    if (i > 0) e.emplace_back(i, i - 1, sub);
    if (i + 1 < n) e.emplace_back(i, i + 1, super);
  }
  return from_triplets(n, n, e);
}

/// -Δu + w·∇u on an m x m grid, first-order upwind, scaled by h² (Pe = 0: the
/// 5-point Laplacian): a nonsymmetric M-matrix.
HostCrs convection_diffusion_2d(int m, double peclet) {
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
  const double c = 2 * peclet;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      const std::int64_t row = i + std::int64_t(m) * j;
      e.emplace_back(row, row, 4 + 2 * c);
      if (i > 0) e.emplace_back(row, row - 1, -1 - c);
      if (i + 1 < m) e.emplace_back(row, row + 1, -1);
      if (j > 0) e.emplace_back(row, row - m, -1 - c);
      if (j + 1 < m) e.emplace_back(row, row + m, -1);
    }
  return from_triplets(std::int64_t(m) * m, std::int64_t(m) * m, e);
}

/// ‖b − A x‖ / ‖b‖ in long double on the host.
template <class XView, class BView>
double true_relative_residual(HostCrs const& A, XView const& x, BView const& b) {
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  long double rr = 0, bb = 0;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    long double s = bh(i);
    for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k)
      s -= static_cast<long double>(A.val[k]) * static_cast<long double>(xh(A.col[k]));
    rr += s * s;
    bb += static_cast<long double>(bh(i)) * bh(i);
  }
  return static_cast<double>(std::sqrt(rr / bb));
}

/// The exact ILU(0) of A's values as stored in Scalar, in long double, in A's
/// pattern (L strictly below the diagonal, U on and above it): the IKJ variant
/// restricted to the pattern.
template <class Scalar>
std::vector<long double> exact_ilu0(HostCrs const& A) {
  std::vector<long double> f(A.val.size());
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = static_cast<Scalar>(A.val[k]);
  std::vector<std::map<std::int64_t, std::int64_t>> at(A.rows); // column -> position, per row
  std::vector<std::int64_t> diag(A.rows);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1]; ++p) {
      at[i][A.col[p]] = p;
      if (A.col[p] == i) diag[i] = p;
    }
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1] && A.col[p] < i; ++p) {
      const auto k = A.col[p];
      f[p] /= f[diag[k]];
      for (auto q = p + 1; q < A.row_starts[i + 1]; ++q) {
        auto it = at[k].find(A.col[q]);
        if (it != at[k].end()) f[q] -= f[p] * f[it->second];
      }
    }
  return f;
}

/// IC(0) of a symmetric A from its ILU(0) (U = diag(U) L̃ᵀ): L = L̃ diag(U)^{1/2}
/// below and on the diagonal, Lᵀ mirrored above it, as make_ic0 stores them.
std::vector<long double> ic0_from_ilu0(HostCrs const& A, std::vector<long double> const& lu) {
  std::vector<long double> f(lu.size()), pivot(A.rows);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1]; ++p)
      if (A.col[p] == i) pivot[i] = std::sqrt(lu[p]);
  std::map<std::pair<std::int64_t, std::int64_t>, long double> lower;
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1]; ++p) {
      const auto j = A.col[p];
      if (j < i) lower[{i, j}] = lu[p] * pivot[j];
      if (j == i) lower[{i, i}] = pivot[i];
    }
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1]; ++p) {
      const auto j = A.col[p];
      f[p] = j <= i ? lower[{i, j}] : lower[{j, i}];
    }
  return f;
}

/// z = U⁻¹ L⁻¹ r exactly (forward and back substitution in long double) with
/// factors in the ILU(0) layout; `ic`: L has the stored diagonal.
template <class RH>
std::vector<long double> exact_solve(HostCrs const& A, std::vector<long double> const& f,
                                     RH const& r, bool ic) {
  const auto n = A.rows;
  std::vector<long double> y(n), z(n), d(n);
  for (std::int64_t i = 0; i < n; ++i)
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1]; ++p)
      if (A.col[p] == i) d[i] = f[p];
  for (std::int64_t i = 0; i < n; ++i) {
    long double s = r(i);
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1] && A.col[p] < i; ++p)
      s -= f[p] * y[A.col[p]];
    y[i] = ic ? s / d[i] : s;
  }
  for (std::int64_t i = n - 1; i >= 0; --i) {
    long double s = y[i];
    for (auto p = A.row_starts[i]; p < A.row_starts[i + 1]; ++p)
      if (A.col[p] > i) s -= f[p] * z[A.col[p]];
    z[i] = s / d[i];
  }
  return z;
}

/// max |a − b| / max |b|.
template <class V>
double relative_difference(V const& a, std::vector<long double> const& b) {
  long double diff = 0, mag = 0;
  for (std::size_t k = 0; k < b.size(); ++k) {
    diff = std::max(diff, std::fabs(static_cast<long double>(a(k)) - b[k]));
    mag = std::max(mag, std::fabs(b[k]));
  }
  return static_cast<double>(diff / mag);
}

template <class Scalar>
double solver_tolerance() {
  return sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
}

/// Test matrices with an exact ILU(0) to compare against: ILU(0) of a
/// tridiagonal matrix is its LU; the grids exercise fill that ILU(0) drops.
struct Case {
  char const* name;
  HostCrs A;
  bool symmetric;
};
std::vector<Case> small_cases() {
  return {{"tridiagonal_12_nonsymmetric", tridiagonal(12, -1.5, 3.0, -1.0), false},
          {"tridiagonal_12_laplacian", tridiagonal(12, -1.0, 2.0, -1.0), true},
          {"laplacian_4x4", convection_diffusion_2d(4, 0.0), true},
          {"convection_diffusion_4x4_pe2", convection_diffusion_2d(4, 2.0), false}};
}

/// The cases of the one-thread kinds (sequential factorisation, substitution):
/// the small ones and two 400-row grids with long dependency chains.
std::vector<Case> one_thread_cases() {
  std::vector<Case> cases = small_cases();
  cases.push_back({"convection_diffusion_20x20_pe1", convection_diffusion_2d(20, 1.0), false});
  cases.push_back({"laplacian_20x20", convection_diffusion_2d(20, 0.0), true});
  return cases;
}

/// Whether the automatic choices take their one-thread kinds on Exec.
template <class Exec>
bool one_thread_here() {
  return spmvkit::detail::is_host_space_v<Exec> &&
         Exec().concurrency() <= ilu0_substitution_max_threads;
}

/// make() of a one-thread kind on a device space must throw, naming the option and the space.
template <class Exec, class Make>
void expect_device_refusal(Make&& make, std::string const& option) {
  try {
    make();
    ADD_FAILURE() << option << " accepted on " << Exec::name();
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), option)) << e.what();
    EXPECT_TRUE(contains(e.what(), Exec::name())) << e.what();
  }
}

template <class C>
class Ilu0Test : public ::testing::Test {};
TYPED_TEST_SUITE(Ilu0Test, AllConfigs, ConfigNames);

TYPED_TEST(Ilu0Test, ManySweepsReachTheExactFactorsAndSolves) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = typename Ilu0Preconditioner<Scalar, Exec>::vector_type;
  // 30 sweeps exceed the unknowns' dependency depth on the 12-row matrices (2n − 1
  // = 23 levels) and nearly reach it on the 16-row grids (31), where the
  // contraction does the rest; 50 triangular sweeps exceed n. What is left is
  // rounding, measured at 4 ulps or less (float and double).
  const double tol = 50 * std::numeric_limits<Scalar>::epsilon();
  Ilu0Options many;
  many.factorization_sweeps = 30;
  many.triangular_sweeps = 50;
  many.triangular_solve = Ilu0TriangularSolve::sweeps;
  many.factorization = Ilu0Factorization::sweeps;
  for (auto const& c : small_cases()) {
    const auto A = make_device_crs<Scalar, Exec>(c.A);
    const auto r = random_vector<Vec>(c.A.rows, 7, "r");
    const auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
    const auto lu = exact_ilu0<Scalar>(c.A);
    for (int ic = 0; ic < (c.symmetric ? 2 : 1); ++ic) {
      SCOPED_TRACE(std::string(c.name) + (ic ? " IC(0)" : " ILU(0)"));
      const auto M = ic ? make_ic0(Exec(), A, many) : make_ilu0(Exec(), A, many);
      EXPECT_EQ(M.kind(), ic ? Ilu0Kind::ic0 : Ilu0Kind::ilu0);
      EXPECT_EQ(M.num_rows(), c.A.rows);
      const auto exact = ic ? ic0_from_ilu0(c.A, lu) : lu;
      const auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), M.factors());
      EXPECT_LE(relative_difference(f, exact), tol);
      Vec z("z", c.A.rows);
      M.apply(Exec(), r, z);
      const auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
      EXPECT_LE(relative_difference(zh, exact_solve(c.A, exact, rh, ic)), tol);
    }
  }
}

TYPED_TEST(Ilu0Test, DefaultSweepsApproximateTheExactSolve) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = typename Ilu0Preconditioner<Scalar, Exec>::vector_type;
  for (auto const& c : small_cases()) {
    const auto A = make_device_crs<Scalar, Exec>(c.A);
    const auto r = random_vector<Vec>(c.A.rows, 11, "r");
    const auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
    const auto lu = exact_ilu0<Scalar>(c.A);
    for (int ic = 0; ic < (c.symmetric ? 2 : 1); ++ic) {
      SCOPED_TRACE(std::string(c.name) + (ic ? " IC(0)" : " ILU(0)"));
      Ilu0Options sweeps;
      sweeps.triangular_solve = Ilu0TriangularSolve::sweeps;
      sweeps.factorization = Ilu0Factorization::sweeps;
      const auto M = ic ? make_ic0(Exec(), A, sweeps) : make_ilu0(Exec(), A, sweeps);
      EXPECT_EQ(M.options().factorization_sweeps, 3);
      EXPECT_EQ(M.options().triangular_sweeps, 3);
      EXPECT_EQ(M.triangular_solve(), Ilu0TriangularSolve::sweeps);
      Vec z("z", c.A.rows);
      M.apply(Exec(), r, z);
      const auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
      const auto exact = exact_solve(c.A, ic ? ic0_from_ilu0(c.A, lu) : lu, rh, ic);
      // Three sweeps of each kind: a truncated fixed point, not rounding. Measured
      // 0.05 (the 4x4 grid) to 0.39 (the tridiagonal Laplacian, whose long
      // dependency chains the sweeps cut shortest), the same in float and double.
      EXPECT_LE(relative_difference(zh, exact), 0.5);
    }
  }
}

// The sequential factorisation is the exact ILU(0)/IC(0): compared with a long double one.
TYPED_TEST(Ilu0Test, SequentialFactorizationIsTheExactOne) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Ilu0Options sequential;
  sequential.factorization = Ilu0Factorization::sequential;
  for (auto const& c : one_thread_cases()) {
    const auto A = make_device_crs<Scalar, Exec>(c.A);
    const auto lu = exact_ilu0<Scalar>(c.A);
    for (int ic = 0; ic < (c.symmetric ? 2 : 1); ++ic) {
      SCOPED_TRACE(std::string(c.name) + (ic ? " IC(0)" : " ILU(0)"));
      const auto automatic = ic ? make_ic0(Exec(), A) : make_ilu0(Exec(), A);
      EXPECT_EQ(automatic.factorization(), one_thread_here<Exec>() ? Ilu0Factorization::sequential
                                                                   : Ilu0Factorization::sweeps);
      if constexpr (!spmvkit::detail::is_host_space_v<Exec>) {
        expect_device_refusal<Exec>(
            [&] { ic ? make_ic0(Exec(), A, sequential) : make_ilu0(Exec(), A, sequential); },
            "Ilu0Options::factorization = sequential");
      } else {
        const auto M = ic ? make_ic0(Exec(), A, sequential) : make_ilu0(Exec(), A, sequential);
        EXPECT_EQ(M.factorization(), Ilu0Factorization::sequential);
        const auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), M.factors());
        EXPECT_LE(relative_difference(f, ic ? ic0_from_ilu0(c.A, lu) : lu),
                  200 * std::numeric_limits<Scalar>::epsilon());
      }
    }
  }
}

// Substitution solves with the factors as computed (3 factorisation sweeps, not the exact ILU(0)):
// compared with a long double substitution on those same factors, so only rounding is left.
TYPED_TEST(Ilu0Test, SubstitutionSolvesWithItsFactorsExactly) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = typename Ilu0Preconditioner<Scalar, Exec>::vector_type;
  Ilu0Options substitution;
  substitution.triangular_solve = Ilu0TriangularSolve::substitution;
  for (auto const& c : one_thread_cases()) {
    const auto A = make_device_crs<Scalar, Exec>(c.A);
    for (int ic = 0; ic < (c.symmetric ? 2 : 1); ++ic) {
      SCOPED_TRACE(std::string(c.name) + (ic ? " IC(0)" : " ILU(0)"));
      // automatic substitutes exactly where ilu0_substitution_max_threads says.
      const auto automatic = ic ? make_ic0(Exec(), A) : make_ilu0(Exec(), A);
      EXPECT_EQ(automatic.triangular_solve(), one_thread_here<Exec>()
                                                  ? Ilu0TriangularSolve::substitution
                                                  : Ilu0TriangularSolve::sweeps);
      if constexpr (!spmvkit::detail::is_host_space_v<Exec>) {
        expect_device_refusal<Exec>(
            [&] { ic ? make_ic0(Exec(), A, substitution) : make_ilu0(Exec(), A, substitution); },
            "Ilu0Options::triangular_solve = substitution");
      } else {
        const auto M = ic ? make_ic0(Exec(), A, substitution) : make_ilu0(Exec(), A, substitution);
        EXPECT_EQ(M.triangular_solve(), Ilu0TriangularSolve::substitution);
        const auto fh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), M.factors());
        const std::vector<long double> f(fh.data(), fh.data() + fh.extent(0));
        const auto r = random_vector<Vec>(c.A.rows, 5, "r");
        const auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
        Vec z("z", c.A.rows);
        M.apply(Exec(), r, z);
        const auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
        // Only rounding is left; DefaultSweepsApproximateTheExactSolve allows 3 + 3 sweeps 0.5.
        EXPECT_LE(relative_difference(zh, exact_solve(c.A, f, rh, ic)),
                  200 * std::numeric_limits<Scalar>::epsilon());
        // An unsigned Offset (row 0 has no L entries: its end − 1 must not wrap) gives the
        // same bits.
        const auto U = make_device_crs<Scalar, Exec, int, unsigned>(c.A);
        const auto MU = ic ? make_ic0(Exec(), U, substitution) : make_ilu0(Exec(), U, substitution);
        Vec zu("zu", c.A.rows);
        MU.apply(Exec(), r, zu);
        const auto zuh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), zu);
        std::int64_t differ = 0;
        for (std::int64_t i = 0; i < c.A.rows; ++i) differ += zuh(i) == zh(i) ? 0 : 1;
        EXPECT_EQ(differ, 0) << "unsigned offsets";
      }
    }
  }
}

TYPED_TEST(Ilu0Test, ApplyIsLinear) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = typename Ilu0Preconditioner<Scalar, Exec>::vector_type;
  const auto A = make_convection_diffusion_crs<Scalar>(Exec(), ConvectionDiffusion(2, 20, 1.0));
  const std::int64_t n = A.num_rows();
  const auto r1 = random_vector<Vec>(n, 1, "r1");
  const auto r2 = random_vector<Vec>(n, 2, "r2");
  const Scalar a = Scalar(-2.5);
  Vec r3("r3", n), z1("z1", n), z2("z2", n), z3("z3", n);
  {
    const auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r1);
    const auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r2);
    auto h3 = Kokkos::create_mirror_view(r3);
    for (std::int64_t i = 0; i < n; ++i) h3(i) = a * h1(i) + h2(i);
    Kokkos::deep_copy(r3, h3);
  }
  for (int ic = 0; ic < 2; ++ic) {
    SCOPED_TRACE(ic ? "IC(0) of the Laplacian" : "ILU(0)");
    const auto B =
        ic ? make_convection_diffusion_crs<Scalar>(Exec(), ConvectionDiffusion(2, 20, 0)) : A;
    const auto M = ic ? make_ic0(Exec(), B) : make_ilu0(Exec(), B);
    M.apply(Exec(), r1, z1);
    M.apply(Exec(), r2, z2);
    M.apply(Exec(), r3, z3);
    const auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z1);
    const auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z2);
    const auto h3 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z3);
    std::vector<long double> expected(n);
    for (std::int64_t i = 0; i < n; ++i)
      expected[i] = static_cast<long double>(a) * h1(i) + static_cast<long double>(h2(i));
    // Rounding of 2 T sweeps over rows of 5 entries, on a preconditioner of norm O(1).
    EXPECT_LE(relative_difference(h3, expected), 100 * std::numeric_limits<Scalar>::epsilon());
  }
}

TYPED_TEST(Ilu0Test, GmresAndBicgstabOnConvectionDiffusionBeatJacobi) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const double tol = solver_tolerance<Scalar>();
  for (double peclet : {0.5, 5.0}) {
    const ConvectionDiffusion problem(2, 32, peclet);
    const auto A = make_convection_diffusion_crs<Scalar>(Exec(), problem);
    const auto b = convection_diffusion_rhs<Scalar>(Exec(), problem);
    const HostCrs h = to_host(A);
    const auto J = make_jacobi(Exec(), A);
    const auto M = make_ilu0(Exec(), A);
    for (int solver = 0; solver < 2; ++solver) {
      int iterations[2] = {0, 0};
      for (int with_ilu = 0; with_ilu < 2; ++with_ilu) {
        Kokkos::View<Scalar*, typename Exec::memory_space> x("x", problem.num_rows);
        SolverResult r;
        if (solver == 0) {
          GmresOptions o;
          o.relative_tolerance = tol;
          o.max_iterations = 3000;
          r = with_ilu ? gmres(Exec(), A, M, b, x, o) : gmres(Exec(), A, J, b, x, o);
        } else {
          BicgstabOptions o;
          o.relative_tolerance = tol;
          o.max_iterations = 3000;
          r = with_ilu ? bicgstab(Exec(), A, M, b, x, o) : bicgstab(Exec(), A, J, b, x, o);
        }
        const std::string what = std::string(solver == 0 ? "gmres(30)" : "bicgstab") +
                                 (with_ilu ? "+ilu0" : "+jacobi") + " Pe=" + std::to_string(peclet);
        SCOPED_TRACE(what);
        EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
        const double check = true_relative_residual(h, x, b);
        EXPECT_LE(check, tol * 1.01) << "reported " << r.true_relative_residual;
        iterations[with_ilu] = r.iterations;
      }
      // Measured (double, Serial and OpenMP alike): GMRES 316 -> 31 and 340 -> 21,
      // BiCGStab 58 -> 19 and 61 -> 15 (Pe = 0.5 and 5); float at 1e-5: 178 -> 22,
      // 149 -> 17, 46 -> 15, 62 -> 15.
      EXPECT_LT(iterations[1], iterations[0])
          << (solver == 0 ? "GMRES" : "BiCGStab") << " Pe=" << peclet
          << ": ILU(0) took as many iterations as Jacobi";
    }
  }
}

TYPED_TEST(Ilu0Test, GmresWithIc0OnFemPoissonBeatsJacobi) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const double tol = solver_tolerance<Scalar>();
  const std::int64_t N = 16;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), N);
  const auto b = fem_poisson_rhs<Scalar>(Exec(), N);
  const HostCrs h = to_host(A);
  const auto J = make_jacobi(Exec(), A);
  const auto M = make_ic0(Exec(), A);
  int iterations[2] = {0, 0};
  for (int with_ic = 0; with_ic < 2; ++with_ic) {
    // b is an eigenvector of A (fem_poisson.hpp): from zero, Jacobi (a constant
    // diagonal) would converge in one step. The rough start excites every mode.
    auto x = fem_poisson_rough_guess<Scalar>(Exec(), N);
    GmresOptions o;
    o.relative_tolerance = tol;
    o.use_initial_guess = true;
    o.max_iterations = 3000;
    const auto r = with_ic ? gmres(Exec(), A, M, b, x, o) : gmres(Exec(), A, J, b, x, o);
    const std::string what = std::string("fem gmres(30)") + (with_ic ? "+ic0" : "+jacobi");
    SCOPED_TRACE(what);
    EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
    EXPECT_LE(true_relative_residual(h, x, b), tol * 1.01);
    iterations[with_ic] = r.iterations;
  }
  // Measured: 48 -> 18 iterations in double, 28 -> 11 in float.
  EXPECT_LT(iterations[1], iterations[0]);
}

// Kershaw's matrix is SPD, but its IC(0) does not exist: L(3, 3)² = 3 − 4/3 − 4/0.6 < 0.
// Ten sweeps reach the exact factors of a 4 x 4 matrix.
TYPED_TEST(Ilu0Test, Ic0ShiftsTheDiagonalWhereItBreaksDown) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(from_triplets(4, 4,
                                                             {{0, 0, 3.0},
                                                              {0, 1, -2.0},
                                                              {0, 3, 2.0},
                                                              {1, 0, -2.0},
                                                              {1, 1, 3.0},
                                                              {1, 2, -2.0},
                                                              {2, 1, -2.0},
                                                              {2, 2, 3.0},
                                                              {2, 3, -2.0},
                                                              {3, 0, 2.0},
                                                              {3, 2, -2.0},
                                                              {3, 3, 3.0}}));
  Ilu0Options o;
  o.factorization_sweeps = 10;
  o.shift_on_breakdown = false;
  try {
    make_ic0(Exec(), A, o);
    ADD_FAILURE() << "IC(0) of Kershaw's matrix built without a shift";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "pivot L(3, 3)")) << e.what();
  }
  o.shift_on_breakdown = true;
  const auto M = make_ic0(Exec(), A, o);
  // The smallest shift of the schedule 1e-3 · 2^k that gives L(3, 3)² > 0.
  EXPECT_GT(M.diagonal_shift(), 0.0);
  EXPECT_LE(M.diagonal_shift(), 1.0);
  using V = Kokkos::View<Scalar*, typename Exec::memory_space>;
  const V b = random_vector<V>(4, 5, "b");
  V x("x", 4);
  CgOptions c;
  c.relative_tolerance = solver_tolerance<Scalar>();
  const CgResult r = cg(Exec(), A, M, b, x, c);
  EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
  EXPECT_LE(true_relative_residual(to_host(A), x, b), c.relative_tolerance * 1.01);
}

// The shipped bcsstk08 and bcsstk14 have no IC(0) reachable by 3 sweeps (a
// zero pivot in row 642, 53); shifted, CG with it converges. (bcsstk08's exact
// IC(0), the sequential factorisation's, needs no shift.)
TYPED_TEST(Ilu0Test, Ic0OfBcsstkMatricesConvergesWithTheShift) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  if constexpr (sizeof(Scalar) != 8) {
    // if constexpr: the float instantiation has no unreachable loop (nvcc warns of one).
    GTEST_SKIP() << "double only: the bcsstk matrices' conditioning";
  } else {
    using V = Kokkos::View<Scalar*, typename Exec::memory_space>;
    for (char const* file : {"bcsstk08", "bcsstk14"}) {
      SCOPED_TRACE(file);
      const auto A = read_matrix_market<Scalar, Exec>(std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" +
                                                      file + ".mtx.gz");
      Ilu0Options sweeps;
      sweeps.factorization = Ilu0Factorization::sweeps;
      const auto M = make_ic0(Exec(), A, sweeps);
      EXPECT_GT(M.diagonal_shift(), 0.0);
      const auto J = make_jacobi(Exec(), A);
      const V b = random_vector<V>(A.num_rows(), 17, "b");
      int iterations[2] = {0, 0};
      for (int with_ic = 0; with_ic < 2; ++with_ic) {
        V x("x", A.num_rows());
        CgOptions c;
        c.relative_tolerance = 1e-8;
        c.max_iterations = 20000;
        const CgResult r = with_ic ? cg(Exec(), A, M, b, x, c) : cg(Exec(), A, J, b, x, c);
        EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
        EXPECT_LE(true_relative_residual(to_host(A), x, b), 1e-8 * 1.01);
        iterations[with_ic] = r.iterations;
      }
      EXPECT_LT(iterations[1], iterations[0]) << "IC(0) took as many CG iterations as Jacobi";
    }
  }
}

TYPED_TEST(Ilu0Test, RejectsWhatItCannotFactorise) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Expects std::invalid_argument from f whose message holds every part.
  auto expect_error = [](auto&& f, std::vector<std::string> const& parts) {
    try {
      f();
      ADD_FAILURE() << "accepted; expected an error with '" << parts.front() << "'";
    } catch (std::invalid_argument const& e) {
      for (auto const& part : parts) EXPECT_TRUE(contains(e.what(), part)) << e.what();
    }
  };
  const auto good = make_device_crs<Scalar, Exec>(tridiagonal(5, -1, 2, -1));

  // Sweep counts: below 1 and absurd, naming the option.
  for (int bad : {0, -3, 1001}) {
    Ilu0Options o;
    o.factorization_sweeps = bad;
    expect_error([&] { make_ilu0(Exec(), good, o); },
                 {"spmvkit::make_ilu0", "Ilu0Options::factorization_sweeps must be in [1, 1000]",
                  "got " + std::to_string(bad)});
    o = Ilu0Options();
    o.triangular_sweeps = bad;
    expect_error([&] { make_ic0(Exec(), good, o); },
                 {"spmvkit::make_ic0", "Ilu0Options::triangular_sweeps", std::to_string(bad)});
  }
  // A value outside the enums (a cast): named, with the values there are.
  {
    Ilu0Options o;
    o.triangular_solve = static_cast<Ilu0TriangularSolve>(7);
    expect_error([&] { make_ilu0(Exec(), good, o); },
                 {"Ilu0Options::triangular_solve is not one of automatic, sweeps, substitution"});
    o = Ilu0Options();
    o.factorization = static_cast<Ilu0Factorization>(-1);
    expect_error([&] { make_ic0(Exec(), good, o); },
                 {"Ilu0Options::factorization is not one of automatic, sweeps, sequential"});
  }
  // Not square.
  const auto wide = make_device_crs<Scalar, Exec>(from_triplets(2, 3, {{0, 0, 1.0}, {1, 1, 1.0}}));
  expect_error([&] { make_ilu0(Exec(), wide); }, {"the matrix is 2 x 3, not square"});
  // A missing diagonal entry, named.
  const auto holed = make_device_crs<Scalar, Exec>(
      from_triplets(3, 3, {{0, 0, 2.0}, {1, 0, 1.0}, {1, 2, 1.0}, {2, 2, 2.0}}));
  expect_error([&] { make_ilu0(Exec(), holed); }, {"row 1 has no stored diagonal entry"});
  // Unsorted columns (and a duplicate) in row 2.
  HostCrs unsorted = tridiagonal(4, -1, 2, -1);
  std::swap(unsorted.col[5], unsorted.col[6]); // row 2 holds columns 1, 2, 3
  std::swap(unsorted.val[5], unsorted.val[6]);
  expect_error([&] { make_ilu0(Exec(), make_device_crs<Scalar, Exec>(unsorted)); },
               {"row 2 has column indices that are not strictly increasing"});
  HostCrs duplicate = tridiagonal(4, -1, 2, -1);
  duplicate.col[6] = 1; // row 2: columns 1, 1, 3
  expect_error([&] { make_ic0(Exec(), make_device_crs<Scalar, Exec>(duplicate)); },
               {"row 2 has column indices that are not strictly increasing"});
  // A zero diagonal entry of A (the scaling divides by it); IC(0): a negative one.
  const auto zero_diag = make_device_crs<Scalar, Exec>(
      from_triplets(3, 3, {{0, 0, 1.0}, {1, 1, 0.0}, {1, 2, 1.0}, {2, 1, 1.0}, {2, 2, 1.0}}));
  expect_error([&] { make_ilu0(Exec(), zero_diag); }, {"row 1 has the diagonal entry 0"});
  const auto negative = make_device_crs<Scalar, Exec>(tridiagonal(3, 0.5, -1.0, 0.5));
  expect_error([&] { make_ic0(Exec(), negative); },
               {"row 0 has the diagonal entry -1, not positive"});
  // A zero pivot: [[1, 1], [1, 1]] has U(1, 1) = 1 − 1·1 = 0 (exactly, after two sweeps).
  const auto singular = make_device_crs<Scalar, Exec>(
      from_triplets(3, 3, {{0, 0, 4.0}, {1, 1, 1.0}, {1, 2, 1.0}, {2, 1, 1.0}, {2, 2, 1.0}}));
  Ilu0Options no_shift;
  no_shift.shift_on_breakdown = false;
  expect_error([&] { make_ilu0(Exec(), singular, no_shift); },
               {"spmvkit::make_ilu0", "a zero pivot U(2, 2) = 0 in row 2",
                one_thread_here<Exec>() ? "in the sequential factorization" : "3 factorization"});
  expect_error([&] { make_ic0(Exec(), singular, no_shift); },
               {"a zero pivot L(2, 2) = 0 in row 2"});
  Ilu0Options fixed_shift = no_shift;
  fixed_shift.diagonal_shift = 1e-9; // too small a shift to remove the zero pivot in float
  if (sizeof(Scalar) == 4) {
    expect_error([&] { make_ic0(Exec(), singular, fixed_shift); },
                 {"a zero pivot L(2, 2)", "with the diagonal shift 1e-09"});
  }
  // By default the breakdown leads to the first shift, which removes it.
  EXPECT_DOUBLE_EQ(make_ilu0(Exec(), singular).diagonal_shift(), 1e-3);
  EXPECT_DOUBLE_EQ(make_ic0(Exec(), singular).diagonal_shift(), 1e-3);
  // A shift outside [0, 1e6], or NaN.
  for (double bad : {-1.0, 2e6, std::numeric_limits<double>::quiet_NaN()}) {
    Ilu0Options o;
    o.diagonal_shift = bad;
    expect_error([&] { make_ic0(Exec(), good, o); },
                 {"spmvkit::make_ic0", "Ilu0Options::diagonal_shift must be in [0, 1e6]"});
  }
  // IC(0): a pattern that is not symmetric.
  const auto lopsided = make_device_crs<Scalar, Exec>(
      from_triplets(3, 3, {{0, 0, 2.0}, {0, 2, 1.0}, {1, 1, 2.0}, {2, 2, 2.0}}));
  expect_error([&] { make_ic0(Exec(), lopsided); },
               {"row 0 has an entry above the diagonal whose mirror"});
  // ILU(0) of the same lopsided matrix is fine (its pattern may be anything).
  EXPECT_NO_THROW(make_ilu0(Exec(), lopsided));
}

TYPED_TEST(Ilu0Test, ModelsThePreconditionerConcept) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Crs = CrsMatrix<Scalar, Exec>;
  using P = Ilu0Preconditioner<Scalar, Exec>;
  static_assert(is_preconditioner_v<P>);
  static_assert(std::is_same_v<typename P::vector_type, typename MatrixOperator<Crs>::vector_type>);
  static_assert(!is_elementwise_preconditioner_v<P> && !is_identity_preconditioner_v<P>);
  // An empty matrix: nothing to factorise, apply does nothing.
  const Crs empty("empty", 0, 0, 0);
  Kokkos::deep_copy(empty.row_starts(), 0); // the constructor leaves it uninitialised
  const auto M = make_ilu0(Exec(), empty);
  typename P::vector_type r("r", 0), z("z", 0);
  M.apply(Exec(), r, z);
  EXPECT_EQ(M.num_rows(), 0);
}

} // namespace
