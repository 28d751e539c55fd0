// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// BiCGStab and GMRES (solvers/bicgstab.hpp, solvers/gmres.hpp) on the solver
// frame: nonsymmetric problems with and without Jacobi, every format, the true
// residual recomputed here in long double, and each failure mode's status or
// error.
#include "solver_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/pipelined_cg.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

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

/// -Δu + w·∇u on an m x m grid, first-order upwind, scaled by h²: nonsymmetric
/// M-matrix (peclet: the mesh Péclet number |w| h / 2).
HostCrs convection_diffusion_2d(int m, double peclet) {
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
  const double c = 2 * peclet; // w h with ε = 1 after scaling by h²
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      const std::int64_t row = i + std::int64_t(m) * j;
      e.emplace_back(row, row, 4 + 2 * c);
      if (i > 0) e.emplace_back(row, row - 1, -1 - c); // wind from the west
      if (i + 1 < m) e.emplace_back(row, row + 1, -1);
      if (j > 0) e.emplace_back(row, row - m, -1 - c); // and from the south
      if (j + 1 < m) e.emplace_back(row, row + m, -1);
    }
  return from_triplets(std::int64_t(m) * m, std::int64_t(m) * m, e);
}

template <class Scalar, class Exec>
Kokkos::View<Scalar*, typename Exec::memory_space> rhs_of(HostCrs const& A) {
  // b = A 1 + a ripple, so that the solution is not a constant vector.
  Kokkos::View<Scalar*, Kokkos::HostSpace> h("b", A.rows);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    double s = 0;
    for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k)
      s += A.val[k] * (1.0 + 0.5 * std::sin(0.1 * A.col[k]));
    h(i) = static_cast<Scalar>(s);
  }
  Kokkos::View<Scalar*, typename Exec::memory_space> b("b", A.rows);
  Kokkos::deep_copy(b, h);
  return b;
}

template <class Scalar>
double tolerance_for() {
  return sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
}

template <class C>
class KrylovTest : public ::testing::Test {};
TYPED_TEST_SUITE(KrylovTest, AllConfigs, ConfigNames);

TYPED_TEST(KrylovTest, SolveConvectionDiffusionWithAndWithoutJacobi) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (double peclet : {0.0, 0.5, 5.0}) {
    const HostCrs h = convection_diffusion_2d(24, peclet);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto b = rhs_of<Scalar, Exec>(h);
    const double tol = tolerance_for<Scalar>();
    const auto M = make_jacobi(Exec(), A);
    for (int way = 0; way < 4; ++way) {
      Kokkos::View<Scalar*, typename Exec::memory_space> x("x", h.rows);
      SolverResult r;
      std::string what;
      if (way < 2) {
        BicgstabOptions o;
        o.relative_tolerance = tol;
        r = way == 0 ? bicgstab(Exec(), A, b, x, o) : bicgstab(Exec(), A, M, b, x, o);
        what = way == 0 ? "bicgstab" : "bicgstab+jacobi";
      } else {
        GmresOptions o;
        o.relative_tolerance = tol;
        o.restart = 20;
        r = way == 2 ? gmres(Exec(), A, b, x, o) : gmres(Exec(), A, M, b, x, o);
        what = way == 2 ? "gmres(20)" : "gmres(20)+jacobi";
      }
      SCOPED_TRACE(what + " Pe=" + std::to_string(peclet));
      EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
      EXPECT_GT(r.iterations, 0);
      // The result's true residual is the one recomputed here (to rounding).
      const double check = true_relative_residual(h, x, b);
      EXPECT_LE(check, tol * 1.01 + 1e-14) << "reported " << r.true_relative_residual;
      EXPECT_NEAR(check, r.true_relative_residual, 0.01 * tol + 1e-6 * check);
    }
  }
}

// A SolverWorkspace keeps every solver's work vectors between solves: a second
// solve writes into the very allocations of the first, its result does not depend
// on what they held (NaN before it), and a system of another size replaces them.
TYPED_TEST(KrylovTest, WorkspaceKeepsTheVectorsBetweenSolves) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Mem = typename Exec::memory_space;
  using X = Kokkos::View<Scalar*, Mem>;
  const double tol = tolerance_for<Scalar>();
  const HostCrs h = convection_diffusion_2d(20, 0.0); // symmetric positive definite: CG too
  const HostCrs small = convection_diffusion_2d(13, 0.0);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto A2 = make_device_crs<Scalar, Exec>(small);
  using Vec = typename MatrixOperator<std::decay_t<decltype(A)>>::vector_type;
  const auto b = rhs_of<Scalar, Exec>(h);
  const auto b2 = rhs_of<Scalar, Exec>(small);
  const auto J = make_jacobi(Exec(), A);
  const auto J2 = make_jacobi(Exec(), A2);
  const auto B = make_block_jacobi(Exec(), A, 4);
  const auto B2 = make_block_jacobi(Exec(), A2, 4);
  const char* names[] = {"cg+jacobi", "pipelined cg+jacobi", "cg+block-jacobi", "bicgstab+jacobi",
                         "gmres(15)+jacobi"};
  // A vector each solver takes from the workspace, by its label.
  const char* kept_label[] = {"SpMVKit::cg::r", "SpMVKit::cg::pipelined_w", "SpMVKit::cg::z",
                              "SpMVKit::bicgstab::rhat", "SpMVKit::gmres::w"};
  // How many Views each takes: the fused CG r, p, q, D⁻¹ and its scalar ring; pipelined CG six
  // more; PCG r, z, p, q and the frame's x and A x; BiCGStab seven and those two; GMRES its basis,
  // w, z and those two.
  const std::size_t kept_count[] = {5, 11, 6, 9, 5};
  auto solve = [&](int way, bool big, SolverWorkspace* ws, X const& x) -> SolverResult {
    auto const& M = big ? A : A2;
    auto const& rhs = big ? b : b2;
    auto options = [&](auto o) {
      o.relative_tolerance = tol;
      o.workspace = ws;
      return o;
    };
    if (way <= 1) {
      CgOptions o = options(CgOptions());
      o.jacobi = true;
      if (way == 1) o.variant = CgVariant::pipelined;
      return cg(Exec(), M, rhs, x, o);
    }
    if (way == 2) return cg(Exec(), M, big ? B : B2, rhs, x, options(CgOptions()));
    if (way == 3) return bicgstab(Exec(), M, big ? J : J2, rhs, x, options(BicgstabOptions()));
    GmresOptions o = options(GmresOptions());
    o.restart = 15;
    return gmres(Exec(), M, big ? J : J2, rhs, x, o);
  };
  auto host = [](X const& x) {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  };
  for (int way = 0; way < 5; ++way) {
    SCOPED_TRACE(names[way]);
    X x_ref("x_ref", h.rows), x1("x1", h.rows), x2("x2", h.rows);
    const SolverResult ref = solve(way, true, nullptr, x_ref);
    ASSERT_TRUE(ref.converged()) << name(ref.status) << ": " << ref.message;

    SolverWorkspace ws;
    const SolverResult first = solve(way, true, &ws, x1);
    EXPECT_TRUE(first.converged()) << name(first.status) << ": " << first.message;
    ASSERT_TRUE(ws.holds(kept_label[way]));
    EXPECT_FALSE(ws.in_use());
    const std::size_t kept = ws.size(), bytes = ws.bytes();
    // Every work vector of the solver, none allocated past the workspace.
    EXPECT_EQ(kept, kept_count[way]);
    EXPECT_GE(bytes, kept * static_cast<std::size_t>(h.rows) * sizeof(Scalar) / 2);
    // The same type and size: the kept View itself, not a new one.
    const Vec held = ws.view<Vec>(Exec(), kept_label[way], h.rows);
    EXPECT_EQ(ws.size(), kept);
    EXPECT_EQ(ws.bytes(), bytes);

    ws.fill(std::numeric_limits<double>::quiet_NaN());
    const SolverResult second = solve(way, true, &ws, x2);
    EXPECT_TRUE(second.converged()) << name(second.status) << ": " << second.message;
    EXPECT_EQ(second.iterations, ref.iterations);
    EXPECT_EQ(ws.size(), kept);
    EXPECT_EQ(ws.bytes(), bytes);
    EXPECT_LE(true_relative_residual(h, x2, b), tol * 1.01 + 1e-14);
    const auto r = host(x_ref), s = host(x2);
    double diff = 0, largest = 0;
    for (std::int64_t i = 0; i < h.rows; ++i) {
      diff = std::max(diff, std::abs(static_cast<double>(s(i)) - static_cast<double>(r(i))));
      largest = std::max(largest, std::abs(static_cast<double>(r(i))));
    }
    // The same arithmetic as without a workspace: the same bits on host backends (a finite
    // stale value read anywhere would show); GPUs get a margin, though their reductions are
    // deterministic too.
    if constexpr (spmvkit::detail::is_host_space_v<Exec>) {
      EXPECT_EQ(diff, 0.0);
    } else {
      EXPECT_LE(diff, 1e3 * std::numeric_limits<Scalar>::epsilon() * largest);
    }
    // The second solve wrote the NaN-filled allocation the test still holds.
    const auto held_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), held);
    std::int64_t not_finite = 0;
    for (std::size_t i = 0; i < held_host.extent(0); ++i)
      not_finite += std::isfinite(static_cast<double>(held_host(i))) ? 0 : 1;
    EXPECT_EQ(not_finite, 0) << kept_label[way] << " was not the vector the solve used";

    // Another size: the vectors are replaced, under the same labels.
    X x3("x3", small.rows);
    const SolverResult other = solve(way, false, &ws, x3);
    EXPECT_TRUE(other.converged()) << name(other.status) << ": " << other.message;
    EXPECT_LE(true_relative_residual(small, x3, b2), tol * 1.01 + 1e-14);
    EXPECT_EQ(ws.size(), kept);
    EXPECT_LT(ws.bytes(), bytes);
  }
  // One workspace for every solver in turn (they share labels such as the frame's x), NaN
  // between the solves: each as without a workspace.
  {
    SolverWorkspace shared;
    for (int round = 0; round < 2; ++round) {
      for (int way = 0; way < 5; ++way) {
        SCOPED_TRACE(std::string("shared workspace, ") + names[way]);
        X x_ref("x_ref", h.rows), x("x", h.rows);
        const SolverResult ref = solve(way, true, nullptr, x_ref);
        shared.fill(std::numeric_limits<double>::quiet_NaN());
        const SolverResult r = solve(way, true, &shared, x);
        EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
        EXPECT_EQ(r.iterations, ref.iterations);
        EXPECT_LE(true_relative_residual(h, x, b), tol * 1.01 + 1e-14);
      }
    }
  }
  // A solve on a workspace another solve holds (here a lease taken by the test) is refused.
  {
    SolverWorkspace held;
    X x("x", h.rows);
    {
      spmvkit::detail::WorkspaceLease lease(&held, "the test");
      EXPECT_TRUE(held.in_use());
      BicgstabOptions o;
      o.workspace = &held;
      auto refused = [](auto&& f) {
        try {
          f();
        } catch (std::logic_error const& e) {
          return std::string(e.what()).find("in use by another solve") != std::string::npos;
        }
        return false;
      };
      EXPECT_TRUE(refused([&] { bicgstab(Exec(), A, J, b, x, o); }));
      CgOptions c;
      c.workspace = &held;
      EXPECT_TRUE(refused([&] { cg(Exec(), A, b, x, c); }));
    }
    EXPECT_FALSE(held.in_use());
    EXPECT_TRUE(solve(3, true, &held, x).converged());
    EXPECT_FALSE(held.in_use());
  }
  // A View of another type under a kept label replaces it.
  SolverWorkspace ws;
  const auto f = ws.view<Kokkos::View<float*, Mem>>(Exec(), "SpMVKit::test::v", 6);
  EXPECT_EQ(ws.bytes(), 6 * sizeof(float));
  const auto d = ws.view<Kokkos::View<double*, Mem>>(Exec(), "SpMVKit::test::v", 6);
  EXPECT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws.bytes(), 6 * sizeof(double));
  EXPECT_NE(static_cast<void const*>(f.data()), static_cast<void const*>(d.data()));
  ws.clear();
  EXPECT_EQ(ws.size(), 0u);
  EXPECT_EQ(ws.bytes(), 0u);
}

TYPED_TEST(KrylovTest, ShippedNonsymmetricMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A =
      read_matrix_market<Scalar, Exec>(std::string(SPMVKIT_TEST_MATRIX_DIR) + "/cage10.mtx.gz");
  const HostCrs h = to_host(A);
  const auto b = rhs_of<Scalar, Exec>(h);
  const double tol = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  const auto M = make_jacobi(Exec(), A);
  Kokkos::View<Scalar*, typename Exec::memory_space> x("x", h.rows), y("y", h.rows);
  BicgstabOptions bo;
  bo.relative_tolerance = tol;
  const auto r = bicgstab(Exec(), A, M, b, x, bo);
  EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
  EXPECT_LE(true_relative_residual(h, x, b), 1.01 * tol);
  GmresOptions go;
  go.relative_tolerance = tol;
  const auto g = gmres(Exec(), A, M, b, y, go);
  EXPECT_TRUE(g.converged()) << name(g.status) << ": " << g.message;
  EXPECT_LE(true_relative_residual(h, y, b), 1.01 * tol);
  // cage10 is well conditioned: a few dozen iterations, not hundreds.
  EXPECT_LT(r.iterations, 100);
  EXPECT_LT(g.iterations, 200);
}

TYPED_TEST(KrylovTest, BreakdownsLimitsAndBadInput) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = Kokkos::View<Scalar*, typename Exec::memory_space>;
  auto vec = [](std::vector<double> const& v) {
    Kokkos::View<Scalar*, Kokkos::HostSpace> h("h", v.size());
    for (std::size_t i = 0; i < v.size(); ++i) h(i) = static_cast<Scalar>(v[i]);
    Vec d("v", v.size());
    Kokkos::deep_copy(d, h);
    return d;
  };
  // A swap: r̂ᵀ(A r̂) = 0 at once for b = e_0: BiCGStab's ρ-type breakdown.
  const auto swap = make_device_crs<Scalar, Exec>(from_triplets(2, 2, {{0, 1, 1.0}, {1, 0, 1.0}}));
  Vec x("x", 2);
  auto r = bicgstab(Exec(), swap, vec({1, 0}), x);
  EXPECT_EQ(r.status, SolverStatus::breakdown);
  EXPECT_TRUE(contains(r.message, "r̂ᵀv = 0 at iteration 1")) << r.message;
  EXPECT_FALSE(r.converged());
  // ρ = r̂ᵀr_1 = 0 exactly after one full iteration (b = e_0, a01 a10 = −a02 a20 makes
  // r_1's first entry 0): not a dead end but a restart from b − A x with a new r̂.
  {
    const auto A3 = make_device_crs<Scalar, Exec>(from_triplets(3, 3,
                                                                {{0, 0, 1.0},
                                                                 {0, 1, 1.0},
                                                                 {0, 2, 1.0},
                                                                 {1, 0, 1.0},
                                                                 {1, 1, 2.0},
                                                                 {2, 0, -1.0},
                                                                 {2, 2, 3.0}}));
    Vec x3("x3", 3);
    BicgstabOptions o3;
    o3.relative_tolerance = std::is_same_v<Scalar, float> ? 1e-5 : 1e-12;
    const auto r3 = bicgstab(Exec(), A3, vec({1, 0, 0}), x3, o3);
    EXPECT_TRUE(r3.converged()) << r3.message;
    EXPECT_GE(r3.residual_replacements, 1);
    EXPECT_TRUE(r3.message.empty()) << r3.message;
    // x = A⁻¹ e_0 = (6, −3, 2) / 5.
    auto h3 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x3);
    const double expect[3] = {1.2, -0.6, 0.4};
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(static_cast<double>(h3(i)), expect[i], 1e-4) << i;
  }
  // GMRES solves the same system (in two steps).
  auto g = gmres(Exec(), swap, vec({1, 0}), x);
  EXPECT_TRUE(g.converged()) << g.message;

  const HostCrs h = convection_diffusion_2d(10, 1.0);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto b = rhs_of<Scalar, Exec>(h);
  Vec y("y", h.rows);
  // Iteration limit: not converged, the true residual says how far.
  BicgstabOptions few;
  few.max_iterations = 2;
  r = bicgstab(Exec(), A, b, y, few);
  EXPECT_EQ(r.status, SolverStatus::iteration_limit);
  EXPECT_EQ(r.iterations, 2);
  EXPECT_NEAR(r.true_relative_residual, true_relative_residual(h, y, b),
              1e-3 * r.true_relative_residual);
  GmresOptions gfew;
  gfew.max_iterations = 3;
  gfew.restart = 2;
  g = gmres(Exec(), A, b, y, gfew);
  EXPECT_EQ(g.status, SolverStatus::iteration_limit);
  EXPECT_EQ(g.iterations, 3);
  // NaN in b: non_finite, never converged.
  auto bad_b = vec(std::vector<double>(h.rows, 1.0));
  Kokkos::deep_copy(Kokkos::subview(bad_b, 3), std::numeric_limits<Scalar>::quiet_NaN());
  EXPECT_EQ(bicgstab(Exec(), A, bad_b, y).status, SolverStatus::non_finite);
  EXPECT_EQ(gmres(Exec(), A, bad_b, y).status, SolverStatus::non_finite);
  // Zero right-hand side: x = 0, converged without iterating.
  const Vec zero("zero", h.rows);
  g = gmres(Exec(), A, zero, y);
  EXPECT_TRUE(g.converged());
  EXPECT_EQ(g.iterations, 0);

  // Errors: sizes, aliasing, restart, a preconditioner of another size, options.
  Vec short_x("short", h.rows - 1);
  EXPECT_THROW(bicgstab(Exec(), A, b, short_x), std::invalid_argument);
  EXPECT_THROW(gmres(Exec(), A, b, Vec(b)), std::invalid_argument);
  GmresOptions big;
  big.restart = static_cast<int>(h.rows) + 1;
  EXPECT_THROW(gmres(Exec(), A, b, y, big), std::invalid_argument);
  big.restart = -1;
  EXPECT_THROW(gmres(Exec(), A, b, y, big), std::invalid_argument);
  const auto small = make_device_crs<Scalar, Exec>(convection_diffusion_2d(3, 0.0));
  const auto M_small = make_jacobi(Exec(), small);
  try {
    bicgstab(Exec(), A, M_small, b, y);
    ADD_FAILURE() << "a preconditioner of another size was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "the preconditioner has 9 rows, the operator 100")) << e.what();
  }
  BicgstabOptions nan_tol;
  nan_tol.relative_tolerance = std::nan("");
  EXPECT_THROW(bicgstab(Exec(), A, b, y, nan_tol), std::invalid_argument);
}

TYPED_TEST(KrylovTest, JacobiNamesTheFirstUnusableRow) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(
      from_triplets(4, 4, {{0, 0, 2.0}, {1, 2, 1.0}, {2, 2, 3.0}, {3, 3, -1.0}, {3, 1, 1.0}}));
  try {
    make_jacobi(Exec(), A);
    ADD_FAILURE() << "a zero diagonal entry was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "1 of 4 rows have a zero or non-finite diagonal entry (first: "
                                   "row 1)"))
        << e.what();
  }
}

/// A matrix-free operator: the 1D Laplacian tridiag(-1, 2 + shift, -1) with an
/// upwind term c (nonsymmetric for c != 0), for the "any operator" claim.
template <class Scalar, class Exec>
struct Stencil1d {
  using execution_space = Exec;
  using scalar_type = Scalar;
  using vector_type = Kokkos::View<Scalar*, typename Exec::memory_space>;
  std::int64_t n;
  double c;
  std::int64_t num_rows() const { return n; }
  std::int64_t num_cols() const { return n; }
  struct Kernel {
    vector_type x, y;
    std::int64_t m;
    Scalar west, diag;
    KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
      Scalar s = diag * x(i);
      if (i > 0) s += west * x(i - 1);
      if (i + 1 < m) s -= x(i + 1);
      y(i) = s;
    }
  };
  void apply(Exec const& exec, vector_type const& x, vector_type const& y) const {
    Kokkos::parallel_for("test::stencil", Kokkos::RangePolicy<Exec>(exec, 0, n),
                         Kernel{x, y, n, Scalar(-1 - c), Scalar(2 + c)});
  }
  void diagonal(Exec const& exec, vector_type const& d) const {
    Kokkos::deep_copy(exec, d, Scalar(2 + c));
  }
  LocalReduction reduction() const { return {}; }
};

/// z = s r with a stored vector (not element-wise): exercises CG's general
/// preconditioner loop; s < 0 is not positive definite.
template <class Scalar, class Exec>
struct ScaledIdentity {
  using execution_space = Exec;
  using scalar_type = Scalar;
  using vector_type = Kokkos::View<Scalar*, typename Exec::memory_space>;
  std::int64_t n;
  Scalar s;
  std::int64_t num_rows() const { return n; }
  struct Kernel {
    vector_type r, z;
    Scalar f;
    KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { z(i) = f * r(i); }
  };
  void apply(Exec const& exec, vector_type const& r, vector_type const& z) const {
    Kokkos::parallel_for("test::scaled_identity", Kokkos::RangePolicy<Exec>(exec, 0, n),
                         Kernel{r, z, s});
  }
};

TYPED_TEST(KrylovTest, EverySolverOnAMatrixFreeOperator) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = Kokkos::View<Scalar*, typename Exec::memory_space>;
  // A mild upwind term: tridiag(-1 - c, 2 + c, -1) is similar to a symmetric
  // matrix only through scalings of (1 + c)^(n/2), so a strong one makes it so
  // non-normal that BiCGStab's residual passes through 1e10 before it
  // converges (n = 200, c = 0.5; textbook BiCGStab does the same).
  const std::int64_t n = 64;
  const Stencil1d<Scalar, Exec> A{n, 0.1};
  Vec b("b", n), x("x", n), y("y", n);
  Kokkos::deep_copy(b, Scalar(1));
  // What float attains here: eps ‖A‖ ‖x‖ / ‖b‖ ≈ 6e-8 * 4 * 500 ≈ 1e-4 (x grows as n²/8).
  const double tol = sizeof(Scalar) == 8 ? 1e-10 : 1e-3;
  BicgstabOptions bo;
  bo.relative_tolerance = tol;
  bo.max_iterations = 2000;
  const auto r = bicgstab(Exec(), A, make_jacobi(Exec(), A), b, x, bo);
  EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
  GmresOptions go;
  go.relative_tolerance = tol;
  go.max_iterations = 2000;
  go.restart = 50;
  const auto g = gmres(Exec(), A, b, y, go);
  EXPECT_TRUE(g.converged()) << name(g.status) << ": " << g.message;
  EXPECT_LE(g.true_relative_residual, tol);
  // CG on the symmetric stencil (c = 0), with the preconditioner objects.
  const Stencil1d<Scalar, Exec> S{n, 0.0};
  CgOptions co;
  co.relative_tolerance = tol;
  co.max_iterations = 2000;
  const auto plain = cg(Exec(), S, b, x, co);
  EXPECT_TRUE(plain.converged()) << plain.message;
  // A scaled identity changes neither the iterates nor their count.
  const auto scaled = cg(Exec(), S, ScaledIdentity<Scalar, Exec>{n, Scalar(2)}, b, y, co);
  EXPECT_TRUE(scaled.converged()) << scaled.message;
  EXPECT_NEAR(scaled.iterations, plain.iterations, 1 + plain.iterations / 20);
  // make_jacobi() runs the fused loop as CgOptions::jacobi does: the same solve.
  co.jacobi = true;
  const auto flag = cg(Exec(), S, b, x, co);
  co.jacobi = false;
  const auto object = cg(Exec(), S, make_jacobi(Exec(), S), b, y, co);
  EXPECT_EQ(object.status, flag.status);
  EXPECT_EQ(object.iterations, flag.iterations);
  EXPECT_EQ(pipelined_cg(Exec(), S, b, x, co).status, SolverStatus::converged);
  // A negative definite preconditioner is reported, not used.
  const auto neg = cg(Exec(), S, ScaledIdentity<Scalar, Exec>{n, Scalar(-1)}, b, y, co);
  EXPECT_EQ(neg.status, SolverStatus::indefinite);
  EXPECT_TRUE(contains(neg.message, "preconditioner is not positive definite")) << neg.message;
  // Both Jacobi switches at once, or a general M in the pipelined loop: errors.
  co.jacobi = true;
  EXPECT_THROW(cg(Exec(), S, make_jacobi(Exec(), S), b, y, co), std::invalid_argument);
  co.jacobi = false;
  EXPECT_THROW(pipelined_cg(Exec(), S, ScaledIdentity<Scalar, Exec>{n, Scalar(2)}, b, y, co),
               std::invalid_argument);
  // A nonsymmetric operator in CG: no false convergence (indefinite or not converged honestly).
  const auto ns = cg(Exec(), Stencil1d<Scalar, Exec>{n, 50.0}, b, x, co);
  if (ns.converged()) {
    EXPECT_LE(ns.true_relative_residual, tol);
  }
}

// The automatic format and mixed precision (float matrix, double vectors) are
// operators like any other.
TYPED_TEST(KrylovTest, AutomaticFormatAndMixedPrecision) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  if constexpr (std::is_same_v<Scalar, float>) {
    const HostCrs h = convection_diffusion_2d(20, 1.0);
    const auto A = make_device_crs<float, Exec>(h); // the matrix in float
    const auto b = rhs_of<double, Exec>(h);
    Kokkos::View<double*, typename Exec::memory_space> x("x", h.rows), y("y", h.rows);
    BicgstabOptions bo;
    bo.relative_tolerance = 1e-10; // double vectors reach double tolerances on the float matrix
    const auto op = make_mixed_operator<double>(A);
    const auto r = bicgstab(Exec(), op, make_jacobi(Exec(), op), b, x, bo);
    EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
    GmresOptions go;
    go.relative_tolerance = 1e-10;
    const auto g = gmres(Exec(), A, b, y, go); // mixed through the vectors' type
    EXPECT_TRUE(g.converged()) << name(g.status) << ": " << g.message;
    // Against the float matrix as stored (in double): the residual the solver reports.
    EXPECT_LE(true_relative_residual(to_host(A), x, b), 1.01e-10);
    EXPECT_LE(true_relative_residual(to_host(A), y, b), 1.01e-10);
  } else {
    const HostCrs h = convection_diffusion_2d(20, 1.0);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto M = make_auto_matrix(Exec(), A);
    const auto b = rhs_of<Scalar, Exec>(h);
    Kokkos::View<Scalar*, typename Exec::memory_space> x("x", h.rows);
    BicgstabOptions bo;
    bo.relative_tolerance = tolerance_for<Scalar>();
    const auto r = bicgstab(Exec(), M, make_jacobi(Exec(), M), b, x, bo);
    EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message << " (" << M.describe()
                               << ")";
    EXPECT_LE(true_relative_residual(h, x, b), 1.01 * tolerance_for<Scalar>());
  }
}

// Every format of the list: the same nonsymmetric system reaches the same
// outcome as with CRS, judged on the true residual.
template <class C>
class KrylovEveryFormatTest : public ::testing::Test {};
TYPED_TEST_SUITE(KrylovEveryFormatTest, FormatConfigs, FormatConfigNames);

TYPED_TEST(KrylovEveryFormatTest, BicgstabAndGmresWithJacobi) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  const HostCrs h = convection_diffusion_2d(16, 2.0);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto b = rhs_of<Scalar, Exec>(h);
  const double tol = tolerance_for<Scalar>();
  for (auto const& o : test_options<Format, Exec>()) {
    if (!Format::obstacle(Exec(), A, o).empty()) continue;
    const auto F = Format::from_crs(Exec(), A, o);
    const auto op = make_operator(F, o);
    const auto M = make_jacobi(Exec(), op);
    Kokkos::View<Scalar*, typename Exec::memory_space> x("x", h.rows), y("y", h.rows);
    BicgstabOptions bo;
    bo.relative_tolerance = tol;
    const auto r = bicgstab(Exec(), op, M, b, x, bo);
    GmresOptions go;
    go.relative_tolerance = tol;
    const auto g = gmres(Exec(), op, M, b, y, go);
    SCOPED_TRACE(Format::name(o));
    EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
    EXPECT_TRUE(g.converged()) << name(g.status) << ": " << g.message;
    EXPECT_LE(true_relative_residual(h, x, b), 1.01 * tol);
    EXPECT_LE(true_relative_residual(h, y, b), 1.01 * tol);
  }
}

} // namespace
