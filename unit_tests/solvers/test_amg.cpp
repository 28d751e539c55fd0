// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Smoothed-aggregation AMG (solvers/preconditioners/amg.hpp): the hierarchy
// against host products in long double (R = Pᵀ, A_c = Pᵀ A P, orthonormal
// tentative columns that reproduce the near-nullspace), error reduction of the
// cycle, AMG inside CG, BiCGStab and GMRES with the true residual recomputed,
// refresh(), degenerate hierarchies and every rejected input.
#include "solvers/solver_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>

#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

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

using namespace spmvkit;
using namespace spmvkit::test;

using Rows = std::vector<std::map<std::int64_t, long double>>;

Rows rows_of(HostCrs const& A) {
  Rows r(static_cast<std::size_t>(A.rows));
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) r[i][A.col[k]] += A.val[k];
  return r;
}

Rows product(Rows const& A, Rows const& B) {
  Rows C(A.size());
  for (std::size_t i = 0; i < A.size(); ++i)
    for (auto const& [k, a] : A[i])
      for (auto const& [j, b] : B[static_cast<std::size_t>(k)]) C[i][j] += a * b;
  return C;
}

Rows transposed(Rows const& A, std::int64_t cols) {
  Rows T(static_cast<std::size_t>(cols));
  for (std::size_t i = 0; i < A.size(); ++i)
    for (auto const& [j, a] : A[i])
      T[static_cast<std::size_t>(j)][static_cast<std::int64_t>(i)] += a;
  return T;
}

/// The largest |X − Y| over all entries, relative to the largest |Y|.
double relative_difference(Rows const& X, Rows const& Y) {
  long double diff = 0, scale = 0;
  for (std::size_t i = 0; i < Y.size(); ++i) {
    for (auto const& [j, y] : Y[i]) {
      scale = std::max(scale, std::fabs(y));
      auto it = X[i].find(j);
      diff = std::max(diff, std::fabs(y - (it == X[i].end() ? 0 : it->second)));
    }
    for (auto const& [j, x] : X[i])
      if (!Y[i].count(j)) diff = std::max(diff, std::fabs(x));
  }
  return static_cast<double>(scale > 0 ? diff / scale : diff);
}

template <class Scalar>
double rounding() {
  return 200 * static_cast<double>(std::numeric_limits<Scalar>::epsilon());
}

template <class Scalar, class Exec>
Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::Device<Exec, typename Exec::memory_space>>
near_nullspace(std::int64_t n, std::vector<std::function<double(std::int64_t)>> const& columns) {
  using V =
      Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::Device<Exec, typename Exec::memory_space>>;
  V B("B", n, columns.size());
  auto h = Kokkos::create_mirror_view(B);
  for (std::size_t c = 0; c < columns.size(); ++c)
    for (std::int64_t i = 0; i < n; ++i) h(i, c) = static_cast<Scalar>(columns[c](i));
  Kokkos::deep_copy(B, h);
  return B;
}

/// x += z.
template <class V>
struct AddTo {
  V z, x;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { x(i) += z(i); }
};

template <class C>
class AmgTest : public ::testing::Test {};
/// n x n random rows (up to max_row entries) plus `diagonal` on the diagonal, small enough that
/// partial pivoting swaps rows; the row and column of `zero` (if in range) left empty.
HostCrs pivoting_matrix(std::int64_t n, int max_row, double diagonal, unsigned seed,
                        std::int64_t zero = -1) {
  HostCrs h;
  h.rows = h.cols = n;
  const HostCrs r = random_crs(n, n, max_row, 0.0, 0, seed);
  for (std::int64_t i = 0; i < n; ++i) {
    std::map<std::int64_t, double> row;
    if (i != zero) row[i] = diagonal;
    for (auto k = r.row_starts[i]; k < r.row_starts[i + 1]; ++k)
      if (i != zero && r.col[k] != zero) row[r.col[k]] += r.val[k];
    for (auto const& [c, v] : row) {
      h.col.push_back(c);
      h.val.push_back(v);
    }
    h.row_starts.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

/// The coarsest operator's inverse on the device against the host's loop (the same up to
/// rounding); returns the device's, copied to the host.
template <class Scalar, class Exec>
Kokkos::View<Scalar*, Kokkos::HostSpace>
expect_inverse_matches_host(HostCrs const& h,
                            detail::AmgJordanKind kind = detail::AmgJordanKind::memory) {
  const std::int64_t n = h.rows;
  SCOPED_TRACE(kind == detail::AmgJordanKind::memory      ? "panels in memory"
               : kind == detail::AmgJordanKind::registers ? "panels in registers"
                                                          : "panels chosen by rows");
  const auto A = make_device_crs<Scalar, Exec>(h);
  // The register panel falls back to the memory one where a team cannot hold the rows: not here.
  if (kind == detail::AmgJordanKind::registers) {
    EXPECT_GT(detail::amg_jordan_register_team<typename decltype(A)::device_type>(Exec(), n), 0)
        << "n = " << n;
  }
  std::vector<double> ref = detail::amg_dense_on_host(A);
  detail::amg_dense_inverse(ref, n, "the test matrix");
  auto inv = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      detail::amg_coarse_inverse_on_device(Exec(), A, "the test matrix", kind));
  EXPECT_EQ(static_cast<std::int64_t>(inv.extent(0)), n * n) << "n = " << n;
  if (static_cast<std::int64_t>(inv.extent(0)) != n * n) return inv;
  double largest = 0, diff = 0;
  for (std::int64_t e = 0; e < n * n; ++e) {
    largest = std::max(largest, std::abs(ref[e]));
    diff = std::max(diff, std::abs(static_cast<double>(inv(e)) - ref[e]));
  }
  EXPECT_GT(largest, 0.0) << "n = " << n;
  EXPECT_LE(diff, (sizeof(Scalar) == 8 ? 1e-9 : 1e-5) * largest) << "n = " << n;
  return inv;
}

TYPED_TEST_SUITE(AmgTest, AllConfigs, ConfigNames);

TYPED_TEST(AmgTest, HierarchyIsTheGalerkinProduct) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 11); // 1000 rows
  AmgOptions o;
  o.coarse_size = 10;
  const auto M = make_amg(Exec(), A, o);
  ASSERT_GE(M.num_levels(), 3) << M.describe();
  auto const& rep = M.report();
  ASSERT_EQ(static_cast<int>(rep.levels.size()), M.num_levels());
  EXPECT_TRUE(contains(rep.stop_reason, "coarse_size")) << rep.stop_reason;
  EXPECT_TRUE(contains(rep.coarse_solve, "dense inverse")) << rep.coarse_solve;
  EXPECT_GE(rep.operator_complexity, 1.0);
  EXPECT_GE(rep.grid_complexity, 1.0);
  EXPECT_TRUE(contains(M.describe(), "operator complexity"));
  for (int l = 0; l + 1 < M.num_levels(); ++l) {
    SCOPED_TRACE("level " + std::to_string(l));
    const HostCrs Al = to_host(M.matrix(l)), P = to_host(M.prolongator(l)),
                  R = to_host(M.restriction(l)), Ac = to_host(M.matrix(l + 1)),
                  T = to_host(M.tentative_prolongator(l));
    EXPECT_EQ(rep.levels[l].rows, Al.rows);
    EXPECT_EQ(rep.levels[l].nnz, Al.nnz());
    EXPECT_FALSE(rep.levels[l].format.empty());
    EXPECT_EQ(rep.levels[l].aggregates, Ac.rows);
    EXPECT_LT(Ac.rows, Al.rows);
    EXPECT_EQ(P.rows, Al.rows);
    EXPECT_EQ(P.cols, Ac.rows);
    // R is Pᵀ exactly (values copied, rows listed in increasing order).
    const HostCrs Pt = host_transpose(P);
    EXPECT_EQ(R.row_starts, Pt.row_starts);
    EXPECT_EQ(R.col, Pt.col);
    EXPECT_EQ(R.val, Pt.val);
    // A_c = Pᵀ A P.
    const Rows ref = product(product(rows_of(R), rows_of(Al)), rows_of(P));
    EXPECT_LE(relative_difference(rows_of(Ac), ref), rounding<Scalar>());
    // Tentative columns orthonormal: Tᵀ T = I (full column rank), one entry per aggregated row.
    const Rows TT = product(transposed(rows_of(T), T.cols), rows_of(T));
    Rows I(static_cast<std::size_t>(T.cols));
    for (std::int64_t j = 0; j < T.cols; ++j) I[j][j] = 1;
    EXPECT_LE(relative_difference(TT, I), rounding<Scalar>());
    for (std::int64_t i = 0; i < T.rows; ++i) EXPECT_LE(T.row_starts[i + 1] - T.row_starts[i], 1);
  }
}

/// A 2D five-point Laplacian on m x m points whose first row and column also
/// couple (weakly) to the next `wide` rows: a row longer than the gather
/// kernels' cap, SPD by diagonal dominance.
HostCrs laplacian_with_long_row(std::int64_t m, std::int64_t wide) {
  const std::int64_t n = m * m;
  std::vector<std::map<std::int64_t, double>> r(static_cast<std::size_t>(n));
  for (std::int64_t y = 0; y < m; ++y)
    for (std::int64_t x = 0; x < m; ++x) {
      const std::int64_t i = y * m + x;
      r[i][i] = 4;
      if (x > 0) r[i][i - 1] = -1;
      if (x + 1 < m) r[i][i + 1] = -1;
      if (y > 0) r[i][i - m] = -1;
      if (y + 1 < m) r[i][i + m] = -1;
    }
  for (std::int64_t j = 2; j <= wide; ++j) {
    r[0][j] = r[j][0] = -0.01;
    r[j][j] += 0.01;
  }
  r[0][0] += 0.01 * static_cast<double>(wide);
  HostCrs h;
  h.rows = h.cols = n;
  for (auto const& row : r) {
    for (auto const& [j, v] : row) {
      h.col.push_back(j);
      h.val.push_back(v);
    }
    h.row_starts.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

// AmgOptions::galerkin_numeric: automatic keeps the positions for a refresh on GPUs (the SpGEMM's
// own rule on host backends and without a refresh), an explicit strategy is used; every strategy
// gives the same hierarchy.
// coarse_size = 0 (the default): 300 rows on hosts, 1000 on GPUs while direct_limit allows, so
// FEM N = 11 (1000 rows) is one level there, inverted exactly on the device.
TYPED_TEST(AmgTest, CoarseSizeIsAutomatic) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const bool host = detail::is_host_space_v<Exec>;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 11);
  const auto M = make_amg(Exec(), A);
  EXPECT_EQ(M.options().coarse_size, host ? 300 : 1000);
  EXPECT_EQ(amg_coarse_size<Exec>(AmgOptions()), M.options().coarse_size);
  EXPECT_TRUE(contains(M.report().stop_reason, "coarse_size reached")) << M.report().stop_reason;
  if (host) {
    EXPECT_GE(M.num_levels(), 2) << M.describe();
  } else {
    EXPECT_EQ(M.num_levels(), 1) << M.describe();
  }
  EXPECT_LE(M.report().levels.back().rows, M.options().coarse_size);
  if (!host) {
    const HostCrs h = to_host(A);
    const auto r = device_vector<Scalar, Exec>(random_values(h.rows, 11));
    DeviceVector<Scalar, Exec> z("z", h.rows);
    M.apply(Exec(), r, z);
    EXPECT_LE(true_relative_residual(h, z, r), 100 * rounding<Scalar>());
  }
  AmgOptions o;
  o.direct_limit = 500;
  EXPECT_EQ(amg_coarse_size<Exec>(o), 300);
  EXPECT_EQ(make_amg(Exec(), A, o).options().coarse_size, 300);
  o = AmgOptions();
  o.coarse_size = 50;
  EXPECT_EQ(amg_coarse_size<Exec>(o), 50);
  const auto M50 = make_amg(Exec(), A, o);
  EXPECT_EQ(M50.options().coarse_size, 50);
  EXPECT_LE(M50.report().levels.back().rows, 50) << M50.describe();
}

TYPED_TEST(AmgTest, GalerkinNumericStrategy) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 11);
  AmgOptions o;
  o.coarse_size = 10;
  const auto M = make_amg(Exec(), A, o);
  ASSERT_GE(M.num_levels(), 3) << M.describe();
  for (int l = 0; l + 1 < M.num_levels(); ++l) {
    EXPECT_FALSE(M.report().levels[l].galerkin_numeric.empty()) << "level " << l;
    if (!detail::is_host_space_v<Exec>) {
      EXPECT_EQ(M.report().levels[l].galerkin_numeric, "positions") << "level " << l;
    }
  }
  EXPECT_TRUE(M.report().levels.back().galerkin_numeric.empty());
  EXPECT_TRUE(contains(M.describe(), "Galerkin " + M.report().levels[0].galerkin_numeric))
      << M.describe();
  for (SpgemmNumeric numeric :
       {SpgemmNumeric::hash, SpgemmNumeric::automatic, SpgemmNumeric::positions}) {
    AmgOptions h = o;
    h.galerkin_numeric = numeric;
    h.keep_for_refresh = numeric == SpgemmNumeric::hash;
    const auto H = make_amg(Exec(), A, h);
    ASSERT_EQ(H.num_levels(), M.num_levels());
    for (int l = 0; l + 1 < H.num_levels(); ++l) {
      SCOPED_TRACE("level " + std::to_string(l + 1) + ", " + to_string(numeric));
      if (numeric != SpgemmNumeric::automatic) {
        EXPECT_EQ(H.report().levels[l].galerkin_numeric, to_string(numeric));
      } else {
        EXPECT_FALSE(H.report().levels[l].galerkin_numeric.empty());
      }
      const HostCrs X = to_host(H.matrix(l + 1)), Y = to_host(M.matrix(l + 1));
      EXPECT_EQ(X.row_starts, Y.row_starts);
      EXPECT_EQ(X.col, Y.col);
      EXPECT_LE(relative_difference(rows_of(X), rows_of(Y)), rounding<Scalar>());
    }
  }
}

// The coarsest operator's dense inverse on the device (GPUs from amg_device_inverse_min_rows
// rows) against the host's loop: the same inverse up to rounding with pivoting needed, the rows
// and columns of a zero unknown left zero, a singular matrix refused naming the pivot.
TYPED_TEST(AmgTest, CoarseInverseOnTheDeviceMatchesTheHost) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 70, zero_unknown = 7;
  // Random rows plus a small diagonal: partial pivoting has to swap rows.
  const HostCrs h = pivoting_matrix(n, 25, 1e-3, 77, zero_unknown);
  const detail::AmgJordanKind kinds[] = {detail::AmgJordanKind::memory,
                                         detail::AmgJordanKind::registers,
                                         detail::AmgJordanKind::automatic};
  for (const auto kind : kinds) {
    const auto inv = expect_inverse_matches_host<Scalar, Exec>(h, kind);
    ASSERT_EQ(static_cast<std::int64_t>(inv.extent(0)), n * n);
    for (std::int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(inv(zero_unknown * n + j), Scalar(0)) << "column " << j;
      EXPECT_EQ(inv(j * n + zero_unknown), Scalar(0)) << "row " << j;
    }
  }
  // Rows 3 and 4 the same: singular.
  HostCrs s = h;
  std::vector<std::pair<std::int64_t, double>> row3;
  for (auto k = h.row_starts[3]; k < h.row_starts[4]; ++k) row3.push_back({h.col[k], h.val[k]});
  HostCrs t;
  t.rows = t.cols = n;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i == 4) {
      for (auto const& [c, v] : row3) {
        t.col.push_back(c);
        t.val.push_back(v);
      }
    } else {
      for (auto k = s.row_starts[i]; k < s.row_starts[i + 1]; ++k) {
        t.col.push_back(s.col[k]);
        t.val.push_back(s.val[k]);
      }
    }
    t.row_starts.push_back(static_cast<std::int64_t>(t.col.size()));
  }
  for (const auto kind : kinds) {
    try {
      detail::amg_coarse_inverse_on_device(Exec(), make_device_crs<Scalar, Exec>(t),
                                           "the twin rows", kind);
      ADD_FAILURE() << "a singular matrix was inverted";
    } catch (std::invalid_argument const& e) {
      EXPECT_TRUE(contains(e.what(), "the twin rows is singular")) << e.what();
      EXPECT_TRUE(contains(e.what(), "pivot")) << e.what();
    }
  }
}

// The device inverse works in panels of detail::amg_jordan_panel columns (in memory) or
// detail::amg_jordan_register_width (in registers): sizes below, at and across a panel's edge,
// with row swaps that cross panels, all match the host's loop.
TYPED_TEST(AmgTest, CoarseInverseOnTheDeviceAcrossPanels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t w = detail::amg_jordan_panel, v = detail::amg_jordan_register_width;
  for (const std::int64_t n : {std::int64_t(1), v - 1, v, v + 1, w - 1, w, w + 1, 3 * w + 5}) {
    for (const auto kind : {detail::AmgJordanKind::memory, detail::AmgJordanKind::registers}) {
      // Random rows plus a small diagonal, so that most pivots come from other rows.
      expect_inverse_matches_host<Scalar, Exec>(
          pivoting_matrix(n, 9, 1e-2, 1000 + static_cast<unsigned>(n)), kind);
    }
  }
}

// P = P_tent − (ω / λmax) D⁻¹ A P_tent with the plain diagonal D, whichever way
// A P_tent is formed (the gather kernels, k = 1 and 2, or spgemm; automatic
// takes spgemm for a row beyond the gather kernels' cap) and with either
// smoother (l1 keeps a second diagonal).
TYPED_TEST(AmgTest, ProlongatorIsTheSmoothedTentative) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto fem = make_fem_poisson_crs<Scalar>(Exec(), 11);
  const auto wide = make_device_crs<Scalar, Exec>(laplacian_with_long_row(20, 200));
  const std::int64_t n = fem.num_rows();
  const auto linear = near_nullspace<Scalar, Exec>(
      n, {[](std::int64_t) { return 1.0; },
          [](std::int64_t i) { return 1.0 + static_cast<double>(i % 11) / 10; }});
  struct Case {
    char const* name;
    decltype(fem) A;
    bool two_columns;
    AmgSmoother smoother;
    AmgProduct product;
    char const* level0; // the product level 0 takes
  };
  constexpr auto gather = AmgProduct::gather, spgemm = AmgProduct::spgemm;
  for (Case const& c :
       {Case{"fem, gather", fem, false, AmgSmoother::automatic, gather, "gather"},
        Case{"fem, spgemm", fem, false, AmgSmoother::automatic, spgemm, "spgemm"},
        Case{"fem l1, gather", fem, false, AmgSmoother::l1_jacobi, gather, "gather"},
        Case{"fem l1, spgemm", fem, false, AmgSmoother::l1_jacobi, spgemm, "spgemm"},
        Case{"fem k = 2, gather", fem, true, AmgSmoother::automatic, gather, "gather"},
        Case{"fem k = 2, spgemm", fem, true, AmgSmoother::automatic, spgemm, "spgemm"},
        Case{"long row, automatic", wide, false, AmgSmoother::automatic, AmgProduct::automatic,
             "spgemm"}}) {
    SCOPED_TRACE(c.name);
    AmgOptions o;
    o.coarse_size = 10;
    o.smoother = c.smoother;
    o.prolongator_product = c.product;
    auto M = c.two_columns ? make_amg(Exec(), c.A, linear, o) : make_amg(Exec(), c.A, o);
    ASSERT_GE(M.num_levels(), 2) << M.describe();
    // Then after a refresh with S A S (S diagonal): D⁻¹A, λmax and P change.
    HostCrs scaled = to_host(c.A);
    for (std::int64_t i = 0; i < scaled.rows; ++i)
      for (auto e = scaled.row_starts[i]; e < scaled.row_starts[i + 1]; ++e)
        scaled.val[e] *= static_cast<double>((1 << (i % 3)) * (1 << (scaled.col[e] % 3)));
    const auto A2 = make_device_crs<Scalar, Exec>(scaled);
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) M.refresh(Exec(), A2);
      for (int l = 0; l + 1 < M.num_levels(); ++l) {
        SCOPED_TRACE((pass == 0 ? "set-up, level " : "refresh, level ") + std::to_string(l));
        std::string const& used = M.report().levels[l].prolongator_product;
        if (c.product != AmgProduct::automatic || l == 0) {
          EXPECT_EQ(used, l == 0 ? c.level0 : name(c.product));
        }
        EXPECT_TRUE(contains(M.describe(), used));
        // Lanczos needs a symmetric A: the l1 smoother (chosen for nonsymmetric ones) takes power.
        EXPECT_EQ(M.report().levels[l].eigen_estimate,
                  c.smoother == AmgSmoother::l1_jacobi ? "power" : "lanczos");
        const HostCrs Al = to_host(M.matrix(l));
        const Rows A = rows_of(Al), T = rows_of(to_host(M.tentative_prolongator(l)));
        const long double scale =
            static_cast<long double>(o.prolongator_damping / M.report().levels[l].lambda_max);
        Rows ref = T;
        const Rows AT = product(A, T);
        for (std::size_t i = 0; i < A.size(); ++i) {
          auto d = A[i].find(static_cast<std::int64_t>(i));
          ASSERT_TRUE(d != A[i].end() && d->second != 0) << "row " << i;
          for (auto const& [j, v] : AT[i]) ref[i][j] -= scale * v / d->second;
        }
        EXPECT_LE(relative_difference(rows_of(to_host(M.prolongator(l))), ref), rounding<Scalar>());
      }
    }
  }
  // Forced onto a row longer than its kernels take, gather is refused, naming the row's length.
  AmgOptions o;
  o.coarse_size = 300;
  o.prolongator_product = gather;
  try {
    make_amg(Exec(), wide, o);
    ADD_FAILURE() << "gather took a row of 201 entries";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "prolongator_product = gather")) << e.what();
    EXPECT_TRUE(contains(e.what(), "level 0 has a row of 201 entries")) << e.what();
  }
}

// λmax(D⁻¹A) of the finest level: Lanczos (10 steps) within 2% of a converged
// host estimate, from below, and closer than 30 power iterations. A matrix
// with negative diagonal entries (−A) falls back to power iterations under
// automatic and is refused when Lanczos is forced.
TYPED_TEST(AmgTest, EstimatesLambdaMax) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 10);
  const HostCrs h = to_host(A);
  // The reference: 4000 power iterations on D^{-1/2} A D^{-1/2} in long double.
  std::vector<long double> dis(static_cast<std::size_t>(h.rows)), x(dis.size(), 1), y(dis.size());
  for (std::int64_t i = 0; i < h.rows; ++i)
    for (auto e = h.row_starts[i]; e < h.row_starts[i + 1]; ++e)
      if (h.col[e] == i) dis[i] = 1 / std::sqrt(static_cast<long double>(h.val[e]));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1 + static_cast<long double>(i % 7) / 10;
  long double reference = 0;
  for (int it = 0; it < 4000; ++it) {
    long double norm = 0, dot = 0;
    for (std::int64_t i = 0; i < h.rows; ++i) {
      long double s = 0;
      for (auto e = h.row_starts[i]; e < h.row_starts[i + 1]; ++e)
        s += dis[i] * h.val[e] * dis[h.col[e]] * x[h.col[e]];
      y[i] = s;
      dot += s * x[i];
      norm += x[i] * x[i];
    }
    reference = dot / norm;
    long double ny = 0;
    for (auto v : y) ny += v * v;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = y[i] / std::sqrt(ny);
  }
  const double ref = static_cast<double>(reference);
  const double slack = sizeof(Scalar) == 8 ? 1e-8 : 1e-4;
  for (AmgEigenEstimate e : {AmgEigenEstimate::automatic, AmgEigenEstimate::lanczos}) {
    AmgOptions o;
    o.eigen_estimate = e;
    const auto M = make_amg(Exec(), A, o);
    auto const& v = M.report().levels[0];
    EXPECT_EQ(v.eigen_estimate, "lanczos");
    EXPECT_EQ(v.eigen_steps, 10);
    EXPECT_LE(v.lambda_max, ref * (1 + slack));
    EXPECT_GE(v.lambda_max, 0.98 * ref) << "reference " << ref;
    EXPECT_TRUE(contains(M.describe(), "level 0 lanczos 10")) << M.describe();
  }
  AmgOptions o;
  o.eigen_estimate = AmgEigenEstimate::power;
  const auto P = make_amg(Exec(), A, o);
  EXPECT_EQ(P.report().levels[0].eigen_estimate, "power");
  EXPECT_EQ(P.report().levels[0].eigen_steps, 30);
  EXPECT_LE(P.report().levels[0].lambda_max, ref * (1 + slack));
  EXPECT_GE(P.report().levels[0].lambda_max, 0.9 * ref);
  EXPECT_LT(P.report().levels[0].lambda_max, make_amg(Exec(), A).report().levels[0].lambda_max);
  // −A: D⁻¹(−A) = D⁻¹A with D = diag(−A) < 0.
  HostCrs negated = h;
  for (auto& v : negated.val) v = -v;
  const auto N = make_device_crs<Scalar, Exec>(negated);
  const auto F = make_amg(Exec(), N);
  EXPECT_EQ(F.report().levels[0].eigen_estimate, "power");
  EXPECT_NEAR(F.report().levels[0].lambda_max, ref, 0.1 * ref);
  // A chosen Chebyshev smoother: Lanczos where the probe finds the matrix symmetric only.
  AmgOptions cheb;
  cheb.smoother = AmgSmoother::chebyshev;
  const auto C = make_amg(Exec(), A, cheb);
  EXPECT_EQ(C.report().levels[0].eigen_estimate, "lanczos");
  EXPECT_TRUE(contains(C.report().smoother, "chosen: symmetry probe")) << C.report().smoother;
  const auto nonsymmetric =
      make_convection_diffusion_crs<Scalar>(Exec(), ConvectionDiffusion(3, 10, 1.0));
  const auto D = make_amg(Exec(), nonsymmetric, cheb);
  EXPECT_EQ(D.report().levels[0].eigen_estimate, "power");
  EXPECT_TRUE(contains(D.report().smoother, "nonsymmetric")) << D.report().smoother;
  AmgOptions forced;
  forced.eigen_estimate = AmgEigenEstimate::lanczos;
  const std::string m = invalid_argument_of([&] { make_amg(Exec(), N, forced); });
  EXPECT_TRUE(contains(m, "eigen_estimate = lanczos")) << m;
  EXPECT_TRUE(contains(m, "negative diagonal")) << m;
}

TYPED_TEST(AmgTest, TentativeProlongatorReproducesTheNearNullspace) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t N = 9, m = N - 1;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), N);
  const std::int64_t n = A.num_rows();
  ASSERT_EQ(n, m * m * m);
  // The constant and a coordinate: k = 2 unknowns per aggregate.
  const auto B = near_nullspace<Scalar, Exec>(
      n, {[](std::int64_t) { return 1.0; }, [m](std::int64_t i) { return double(i % m) / m; }});
  AmgOptions o;
  o.coarse_size = 20;
  const auto M = make_amg(Exec(), A, B, o);
  ASSERT_GE(M.num_levels(), 2);
  const HostCrs T = to_host(M.tentative_prolongator(0));
  EXPECT_EQ(T.cols % 2, 0);
  EXPECT_EQ(T.cols, 2 * M.report().levels[0].aggregates);
  const Rows Tr = rows_of(T), Tt = transposed(Tr, T.cols);
  Rows I(static_cast<std::size_t>(T.cols));
  for (std::int64_t j = 0; j < T.cols; ++j) I[j][j] = 1;
  // Columns dropped as dependent (aggregates within one coordinate line) are zero.
  const std::int64_t dropped = M.report().levels[0].dependent_columns;
  Rows TT = product(Tt, Tr);
  std::int64_t zero_columns = 0;
  for (std::int64_t j = 0; j < T.cols; ++j) {
    if (TT[j].empty() || std::fabs(TT[j][j]) == 0) {
      ++zero_columns;
      I[j].clear();
      TT[j].clear();
    }
  }
  EXPECT_EQ(zero_columns, dropped);
  EXPECT_LE(relative_difference(TT, I), rounding<Scalar>());
  // T (Tᵀ B) = B: B lies in the range of the tentative prolongator.
  auto Bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
  for (int c = 0; c < 2; ++c) {
    std::vector<long double> coef(static_cast<std::size_t>(T.cols), 0);
    for (std::int64_t i = 0; i < n; ++i)
      for (auto const& [j, t] : Tr[i]) coef[j] += t * Bh(i, c);
    long double err = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      long double s = 0;
      for (auto const& [j, t] : Tr[i]) s += t * coef[j];
      err = std::max(err, std::fabs(s - Bh(i, c)));
    }
    EXPECT_LE(static_cast<double>(err), rounding<Scalar>()) << "column " << c;
  }
  // Two equal columns: the second is dependent on every aggregate, and the hierarchy still works.
  const auto same = near_nullspace<Scalar, Exec>(
      n, {[](std::int64_t) { return 1.0; }, [](std::int64_t) { return 2.0; }});
  const auto D = make_amg(Exec(), A, same, o);
  EXPECT_EQ(D.report().levels[0].dependent_columns, D.report().levels[0].aggregates);
  const auto b = fem_poisson_rhs<Scalar>(Exec(), N);
  DeviceVector<Scalar, Exec> x("x", n);
  CgOptions co;
  co.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  const auto r = cg(Exec(), A, D, b, x, co);
  EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
  EXPECT_LE(true_relative_residual(to_host(A), x, b), co.relative_tolerance * 1.01);
}

TYPED_TEST(AmgTest, CycleReducesTheResidual) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 13);
  const std::int64_t n = A.num_rows();
  const HostCrs h = to_host(A);
  for (auto smoother : {AmgSmoother::chebyshev, AmgSmoother::l1_jacobi}) {
    for (auto cyc : {AmgCycle::v, AmgCycle::w}) {
      SCOPED_TRACE(std::string(name(smoother)) + " " + name(cyc));
      AmgOptions o;
      o.smoother = smoother;
      o.cycle = cyc;
      o.coarse_size = 10;
      const auto M = make_amg(Exec(), A, o);
      // x += M (b − A x) from 0, x* random.
      const auto xs = device_vector<Scalar, Exec>(random_values(n, 7));
      DeviceVector<Scalar, Exec> b("b", n), x("x", n), r("r", n), z("z", n);
      spmv(Exec(), Scalar(1), A, xs, Scalar(0), b);
      std::vector<double> history;
      for (int it = 0; it < 4; ++it) {
        Kokkos::deep_copy(r, b);
        spmv(Exec(), Scalar(-1), A, x, Scalar(1), r);
        M.apply(Exec(), r, z);
        Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, n),
                             AddTo<DeviceVector<Scalar, Exec>>{z, x});
        history.push_back(true_relative_residual(h, x, b));
      }
      // Each cycle at least halves the residual (measured: 0.28 then about
      // 0.35 per cycle with Chebyshev, 0.4 with l1-Jacobi; Jacobi sweeps alone
      // remove a few percent per sweep of the smooth error on this grid).
      for (std::size_t it = 1; it < history.size(); ++it) {
        if (history[it - 1] < 1e3 * std::numeric_limits<Scalar>::epsilon()) break;
        EXPECT_LT(history[it], 0.5 * history[it - 1]) << "cycle " << it;
      }
      EXPECT_LT(history[0], 0.5);
    }
  }
}

TYPED_TEST(AmgTest, PreconditionsCgWithFewIterationsIndependentOfTheGrid) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  std::vector<int> iterations;
  for (std::int64_t N : {10, 20}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const auto A = make_fem_poisson_crs<Scalar>(Exec(), N);
    const auto b = fem_poisson_rhs<Scalar>(Exec(), N);
    const auto x0 = fem_poisson_rough_guess<Scalar>(Exec(), N);
    const HostCrs h = to_host(A);
    const double tol = tolerance_for<Scalar>(h, fem_poisson_exact<Scalar>(Exec(), N), b);
    // 300 rows on every backend: the automatic 1000 on GPUs would make N = 10 one level.
    AmgOptions ao;
    ao.coarse_size = 300;
    const auto M = make_amg(Exec(), A, ao);
    EXPECT_TRUE(contains(M.report().smoother, "chebyshev (automatic")) << M.report().smoother;
    DeviceVector<Scalar, Exec> x("x", A.num_rows());
    Kokkos::deep_copy(x, x0);
    CgOptions o;
    o.relative_tolerance = tol;
    o.use_initial_guess = true;
    const auto r = cg(Exec(), A, M, b, x, o);
    EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message << "\n" << M.describe();
    EXPECT_LE(true_relative_residual(h, x, b), tol * 1.01);
    iterations.push_back(r.iterations);
    // Jacobi-PCG from the same start needs many more.
    const auto J = make_jacobi(Exec(), A);
    Kokkos::deep_copy(x, x0);
    const auto rj = cg(Exec(), A, J, b, x, o);
    EXPECT_GT(rj.iterations, (N == 10 ? 1 : 2) * r.iterations);
  }
  EXPECT_LE(iterations.back(), 15);
  EXPECT_LE(iterations.back(), iterations.front() + 4);
}

TYPED_TEST(AmgTest, PreconditionsBicgstabAndGmresOnConvectionDiffusion) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const ConvectionDiffusion problem(3, 14, 1.0);
  const auto A = make_convection_diffusion_crs<Scalar>(Exec(), problem);
  const auto b = convection_diffusion_rhs<Scalar>(Exec(), problem);
  const HostCrs h = to_host(A);
  const double tol =
      tolerance_for<Scalar>(h, convection_diffusion_solution<Scalar>(Exec(), problem), b);
  const auto M = make_amg(Exec(), A);
  // The probe finds A nonsymmetric: l1-Jacobi (Chebyshev with the smoothed
  // prolongator took 570 GMRES iterations here at N = 24, Jacobi alone 198).
  EXPECT_TRUE(contains(M.report().smoother, "l1_jacobi (automatic")) << M.report().smoother;
  const auto J = make_jacobi(Exec(), A);
  for (int way = 0; way < 2; ++way) {
    SCOPED_TRACE(way == 0 ? "bicgstab" : "gmres");
    int its[2] = {0, 0};
    for (int pc = 0; pc < 2; ++pc) {
      DeviceVector<Scalar, Exec> x("x", A.num_rows());
      SolverResult r;
      if (way == 0) {
        BicgstabOptions o;
        o.relative_tolerance = tol;
        r = pc == 0 ? bicgstab(Exec(), A, M, b, x, o) : bicgstab(Exec(), A, J, b, x, o);
      } else {
        GmresOptions o;
        o.relative_tolerance = tol;
        r = pc == 0 ? gmres(Exec(), A, M, b, x, o) : gmres(Exec(), A, J, b, x, o);
      }
      EXPECT_TRUE(r.converged()) << name(r.status) << ": " << r.message;
      EXPECT_LE(true_relative_residual(h, x, b), tol * 1.01);
      its[pc] = r.iterations;
    }
    EXPECT_LT(its[0], its[1]) << "AMG against Jacobi";
  }
}

TYPED_TEST(AmgTest, SolvesShippedSpdMatrices) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (std::string name_ : {"1138_bus", "bcsstk08"}) {
    SCOPED_TRACE(name_);
    const auto A = read_matrix_market<Scalar, Exec>(std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" +
                                                    name_ + ".mtx.gz");
    const HostCrs h = to_host(A);
    // b = A 1: a solution to recover.
    const auto ones = device_vector<Scalar, Exec>(std::vector<double>(h.rows, 1.0));
    DeviceVector<Scalar, Exec> b("b", h.rows), x("x", h.rows);
    spmv(Exec(), Scalar(1), A, ones, Scalar(0), b);
    const double tol = tolerance_for<Scalar>(h, ones, b);
    AmgOptions ao;
    ao.coarse_size = 50;
    const auto M = make_amg(Exec(), A, ao);
    CgOptions o;
    o.relative_tolerance = tol;
    o.max_iterations = 2000;
    const auto r = cg(Exec(), A, M, b, x, o);
    const double check = true_relative_residual(h, x, b);
    // Float on bcsstk08 (κ ~ 1e7) may stagnate near the tolerance: never report it converged.
    if (r.converged()) {
      EXPECT_LE(check, tol * 1.01) << M.describe();
    } else {
      EXPECT_EQ(sizeof(Scalar), 4u) << name(r.status) << ": " << r.message << "\n" << M.describe();
      EXPECT_LE(check, attainable_factor * tol);
    }
  }
}

TYPED_TEST(AmgTest, RefreshRecomputesEveryLevel) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 11);
  // S A S with S diagonal: new values, the same pattern (new arrays: a copy)
  // and the same strength measures |a_ij| / sqrt(a_ii a_jj), so the same aggregates.
  HostCrs shifted = to_host(A);
  auto s = [](std::int64_t i) { return static_cast<double>(1 << (i % 3)); }; // exact in float
  for (std::int64_t i = 0; i < shifted.rows; ++i)
    for (auto k = shifted.row_starts[i]; k < shifted.row_starts[i + 1]; ++k)
      shifted.val[k] *= s(i) * s(shifted.col[k]);
  const auto A2 = make_device_crs<Scalar, Exec>(shifted);
  AmgOptions o;
  o.coarse_size = 10;
  // Unsmoothed aggregation: the coarse operators do not depend on the λmax estimates (which a
  // refresh starts from the last vector, a fresh set-up from a pseudo-random one), so a fresh
  // set-up of A2 is exactly what the refresh must give. Smoothed: the same up to the estimates.
  // Every level ELL-R in the second pass, so that the refresh refills the levels' arrays
  // (AutoMatrix::refill) whatever the model would pick.
  for (double damping : {0.0, 4.0 / 3.0, -1.0}) {
    SCOPED_TRACE("prolongator_damping " + std::to_string(damping));
    if (damping < 0) o.format.candidates = {"ellr"};
    o.prolongator_damping = damping < 0 ? 4.0 / 3.0 : damping;
    auto M = make_amg(Exec(), A, o);
    const int levels = M.num_levels();
    std::vector<HostCrs> before;
    for (int l = 0; l < levels; ++l) before.push_back(to_host(M.matrix(l)));
    M.refresh(Exec(), A2);
    EXPECT_TRUE(M.report().refreshed);
    EXPECT_EQ(M.num_levels(), levels);
    // Each level's format holds the refreshed values (refilled or converted again).
    for (int l = 0; l < levels; ++l) {
      SCOPED_TRACE("format of level " + std::to_string(l) + ": " +
                   M.level_matrix(l).selection().format);
      const HostCrs held = to_host(AutoFormat::to_crs(Exec(), M.level_matrix(l)));
      const HostCrs want = to_host(M.matrix(l));
      EXPECT_EQ(held.col, want.col);
      EXPECT_EQ(held.val, want.val);
    }
    // Every level is the Galerkin product of the refreshed transfers, and changed.
    for (int l = 0; l + 1 < levels; ++l) {
      SCOPED_TRACE("level " + std::to_string(l + 1));
      const Rows ref =
          product(product(rows_of(to_host(M.restriction(l))), rows_of(to_host(M.matrix(l)))),
                  rows_of(to_host(M.prolongator(l))));
      EXPECT_LE(relative_difference(rows_of(to_host(M.matrix(l + 1))), ref), rounding<Scalar>());
      EXPECT_GT(relative_difference(rows_of(to_host(M.matrix(l + 1))), rows_of(before[l + 1])),
                1e-2);
    }
    // Level 1 of a fresh set-up of A2 (same aggregates on level 0; deeper levels may aggregate
    // otherwise, the refresh keeps the first set-up's).
    const auto F = make_amg(Exec(), A2, o);
    ASSERT_GE(F.num_levels(), 2);
    EXPECT_LE(relative_difference(rows_of(to_host(M.matrix(1))), rows_of(to_host(F.matrix(1)))),
              damping == 0 ? rounding<Scalar>() : 0.05);
    if (damping < 0) {
      for (int l = 0; l < levels; ++l) EXPECT_EQ(M.report().levels[l].format, "ellr");
    }
  }
  o.format = AutoOptions();
  o.prolongator_damping = AmgOptions().prolongator_damping;
  auto M = make_amg(Exec(), A, o);
  M.refresh(Exec(), A2);
  // The refreshed hierarchy solves the new system.
  const auto b = fem_poisson_rhs<Scalar>(Exec(), 11);
  DeviceVector<Scalar, Exec> x("x", A.num_rows());
  CgOptions co;
  co.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  const auto r = cg(Exec(), A2, M, b, x, co);
  EXPECT_TRUE(r.converged()) << r.message;
  EXPECT_LE(r.iterations, 15);
  // Another pattern, and no plans kept: refused.
  const auto other = make_fem_poisson_crs<Scalar>(Exec(), 10);
  EXPECT_THROW(M.refresh(Exec(), other), std::invalid_argument);
  HostCrs moved = to_host(A);
  std::swap(moved.col[1], moved.col[2]);
  try {
    M.refresh(Exec(), make_device_crs<Scalar, Exec>(moved));
    ADD_FAILURE() << "a changed pattern was refreshed";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "pattern")) << e.what();
  }
  o.keep_for_refresh = false;
  auto K = make_amg(Exec(), A, o);
  EXPECT_THROW(K.refresh(Exec(), A), std::logic_error);
}

TYPED_TEST(AmgTest, SharesTheSolversFineOperator) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 12);
  AmgOptions o;
  o.coarse_size = 10;
  const auto op = make_auto_matrix(Exec(), A);
  auto M = make_amg(Exec(), A, op, o);
  const auto own = make_amg(Exec(), A, o);
  // The same hierarchy as a set-up that converts A itself, with level 0 the handle given.
  ASSERT_EQ(M.num_levels(), own.num_levels());
  for (int l = 1; l < M.num_levels(); ++l) {
    EXPECT_LE(relative_difference(rows_of(to_host(M.matrix(l))), rows_of(to_host(own.matrix(l)))),
              rounding<Scalar>())
        << "level " << l;
  }
  EXPECT_EQ(M.level_matrix(0).selection().format, op.selection().format);
  // With a near-nullspace too (the constructor): the hierarchy of that near-nullspace.
  {
    const auto B = near_nullspace<Scalar, Exec>(
        A.num_rows(), {[](std::int64_t) { return 1.0; },
                       [](std::int64_t i) { return static_cast<double>(i % 5) - 2.0; }});
    using Amg = decltype(M);
    const Amg NB(Exec(), A, op, B, o);
    const auto ownB = make_amg(Exec(), A, B, o);
    ASSERT_EQ(NB.num_levels(), ownB.num_levels());
    for (int l = 1; l < NB.num_levels(); ++l) {
      EXPECT_LE(
          relative_difference(rows_of(to_host(NB.matrix(l))), rows_of(to_host(ownB.matrix(l)))),
          rounding<Scalar>())
          << "near-nullspace, level " << l;
    }
  }
  const auto b = fem_poisson_rhs<Scalar>(Exec(), 12);
  CgOptions co;
  co.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  DeviceVector<Scalar, Exec> x("x", A.num_rows()), y("y", A.num_rows());
  const auto r = cg(Exec(), make_operator(op), M, b, x, co);
  const auto r_own = cg(Exec(), A, own, b, y, co);
  EXPECT_TRUE(r.converged()) << r.message;
  EXPECT_NEAR(r.iterations, r_own.iterations, 1);
  // A refresh refills the handle the solver holds: it applies the new values afterwards.
  HostCrs scaled = to_host(A);
  for (auto& v : scaled.val) v *= 2;
  const auto A2 = make_device_crs<Scalar, Exec>(scaled);
  M.refresh(Exec(), A2);
  const HostCrs held = to_host(AutoFormat::to_crs(Exec(), op));
  EXPECT_EQ(held.val, scaled.val);
  // A handle of other values, or of another shape, is refused before anything is built.
  HostCrs changed = to_host(A);
  const std::int64_t row = changed.rows / 2;
  changed.val[changed.row_starts[row]] *= 1.5;
  const auto other = make_auto_matrix(Exec(), make_device_crs<Scalar, Exec>(changed));
  try {
    make_amg(Exec(), A, other, o);
    ADD_FAILURE() << "an operator of other values was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "row " + std::to_string(row) + ")")) << e.what();
    EXPECT_TRUE(contains(e.what(), "in 1 of ")) << e.what();
  }
  // A diagonal entry off by 1e5 eps: far above rounding, so refused as well (the check is
  // tight). The row is one where the probe vector (seed 1) is not small.
  std::int64_t near = changed.rows / 3;
  while (std::abs(detail::amg_probe_value(near, 1)) < 0.5) ++near;
  HostCrs nudged = to_host(A);
  for (auto k = nudged.row_starts[near]; k < nudged.row_starts[near + 1]; ++k)
    if (nudged.col[k] == near)
      nudged.val[k] *= 1 + 1e5 * static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  const auto slightly = make_auto_matrix(Exec(), make_device_crs<Scalar, Exec>(nudged));
  try {
    make_amg(Exec(), A, slightly, o);
    ADD_FAILURE() << "an operator 1e5 eps off in one diagonal entry was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "(first: row " + std::to_string(near) + ")")) << e.what();
  }
  const auto smaller = make_auto_matrix(Exec(), make_fem_poisson_crs<Scalar>(Exec(), 11));
  try {
    make_amg(Exec(), A, smaller, o);
    ADD_FAILURE() << "an operator of another shape was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_TRUE(contains(e.what(), "fine operator")) << e.what();
  }
}

TYPED_TEST(AmgTest, DegenerateHierarchies) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // A diagonal matrix: no strong connections, no aggregates; the dense inverse is exact.
  {
    std::vector<std::pair<std::int64_t, std::int64_t>> e;
    for (std::int64_t i = 0; i < 400; ++i) e.emplace_back(i, i);
    const HostCrs h = from_entries(400, 400, e);
    const auto A = make_device_crs<Scalar, Exec>(h);
    AmgOptions o;
    o.coarse_size = 300;
    const auto M = make_amg(Exec(), A, o);
    EXPECT_EQ(M.num_levels(), 1);
    EXPECT_TRUE(contains(M.report().stop_reason, "no aggregates")) << M.report().stop_reason;
    EXPECT_EQ(M.report().levels[0].isolated_rows, 400);
    const auto r = device_vector<Scalar, Exec>(random_values(400, 3));
    DeviceVector<Scalar, Exec> z("z", 400);
    M.apply(Exec(), r, z);
    EXPECT_LE(true_relative_residual(h, z, r), rounding<Scalar>());
  }
  // Two disconnected grids, a Dirichlet-like identity row in between.
  {
    const HostCrs g = to_host(make_fem_poisson_crs<double>(Kokkos::DefaultHostExecutionSpace(), 8));
    HostCrs h;
    h.rows = h.cols = 2 * g.rows + 1;
    h.row_starts = {0};
    for (int copy = 0; copy < 2; ++copy) {
      const std::int64_t shift = copy * (g.rows + 1);
      for (std::int64_t i = 0; i < g.rows; ++i) {
        for (auto k = g.row_starts[i]; k < g.row_starts[i + 1]; ++k) {
          h.col.push_back(g.col[k] + shift);
          h.val.push_back(g.val[k]);
        }
        h.row_starts.push_back(h.nnz());
      }
      if (copy == 0) {
        h.col.push_back(g.rows);
        h.val.push_back(1.0);
        h.row_starts.push_back(h.nnz());
      }
    }
    const auto A = make_device_crs<Scalar, Exec>(h);
    AmgOptions o;
    o.coarse_size = 5;
    const auto M = make_amg(Exec(), A, o);
    EXPECT_EQ(M.report().levels[0].isolated_rows, 1);
    const auto b = device_vector<Scalar, Exec>(random_values(h.rows, 5));
    DeviceVector<Scalar, Exec> x("x", h.rows);
    CgOptions co;
    co.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
    const auto r = cg(Exec(), A, M, b, x, co);
    EXPECT_TRUE(r.converged()) << r.message << "\n" << M.describe();
    EXPECT_LE(true_relative_residual(h, x, b), co.relative_tolerance * 1.01);
  }
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 12);
  const auto b = fem_poisson_rhs<Scalar>(Exec(), 12);
  CgOptions co;
  co.relative_tolerance = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  // Coarsening that stagnates stops, with the reason.
  {
    AmgOptions o;
    o.coarse_size = 300;
    o.min_coarsening_ratio = 1e4;
    const auto M = make_amg(Exec(), A, o);
    EXPECT_EQ(M.num_levels(), 1);
    EXPECT_TRUE(contains(M.report().stop_reason, "stagnated")) << M.report().stop_reason;
    EXPECT_TRUE(contains(M.report().coarse_solve, "sweeps")) << M.report().coarse_solve;
  }
  // One level above direct_limit: smoother sweeps, still a preconditioner CG converges with.
  {
    AmgOptions o;
    o.max_levels = 1;
    o.direct_limit = 0;
    const auto M = make_amg(Exec(), A, o);
    EXPECT_TRUE(contains(M.report().stop_reason, "max_levels")) << M.report().stop_reason;
    DeviceVector<Scalar, Exec> x("x", A.num_rows());
    const auto r = cg(Exec(), A, M, b, x, co);
    EXPECT_TRUE(r.converged()) << r.message;
  }
  // Every level CRS when asked.
  {
    AmgOptions o;
    o.coarse_size = 10;
    o.format.candidates = {"crs"};
    const auto M = make_amg(Exec(), A, o);
    for (auto const& level : M.report().levels)
      EXPECT_TRUE(contains(level.format, "crs")) << level.format;
  }
  // An empty matrix.
  {
    const CrsMatrix<Scalar, Exec> E = make_device_crs<Scalar, Exec>(HostCrs());
    const auto M = make_amg(Exec(), E);
    EXPECT_EQ(M.num_rows(), 0);
    DeviceVector<Scalar, Exec> r("r", 0), z("z", 0);
    M.apply(Exec(), r, z);
  }
}

TYPED_TEST(AmgTest, RejectsBadInput) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 8);
  const std::int64_t n = A.num_rows();
  auto message = [](auto&& f) { return invalid_argument_of(f); };
  // Options out of range, each named.
  const std::vector<std::pair<std::string, std::function<void(AmgOptions&)>>> bad{
      {"strength_threshold", [](AmgOptions& o) { o.strength_threshold = -1; }},
      {"prolongator_damping", [](AmgOptions& o) { o.prolongator_damping = 2; }},
      {"max_levels", [](AmgOptions& o) { o.max_levels = 0; }},
      {"coarse_size", [](AmgOptions& o) { o.coarse_size = -1; }},
      {"direct_limit", [](AmgOptions& o) { o.direct_limit = -1; }},
      {"coarse_sweeps", [](AmgOptions& o) { o.coarse_sweeps = 0; }},
      {"min_coarsening_ratio", [](AmgOptions& o) { o.min_coarsening_ratio = 1; }},
      {"pre_sweeps", [](AmgOptions& o) { o.pre_sweeps = o.post_sweeps = 0; }},
      {"chebyshev_degree", [](AmgOptions& o) { o.chebyshev_degree = 0; }},
      {"chebyshev_ratio", [](AmgOptions& o) { o.chebyshev_ratio = std::nan(""); }},
      {"power_iterations", [](AmgOptions& o) { o.power_iterations = 0; }},
      {"lanczos_steps", [](AmgOptions& o) { o.lanczos_steps = 0; }},
      {"jacobi_weight", [](AmgOptions& o) { o.jacobi_weight = 2; }}};
  for (auto const& [option, set] : bad) {
    AmgOptions o;
    set(o);
    EXPECT_TRUE(contains(message([&] { make_amg(Exec(), A, o); }), option)) << option;
  }
  // Not square.
  const auto rect = make_device_crs<Scalar, Exec>(from_entries(3, 4, {{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_TRUE(contains(message([&] { make_amg(Exec(), rect); }), "not square"));
  // A zero diagonal entry, named.
  HostCrs z = to_host(A);
  for (auto k = z.row_starts[5]; k < z.row_starts[6]; ++k)
    if (z.col[k] == 5) z.val[k] = 0;
  EXPECT_TRUE(
      contains(message([&] { make_amg(Exec(), make_device_crs<Scalar, Exec>(z)); }), "row 5"));
  // Near-nullspaces of the wrong size or not finite.
  EXPECT_TRUE(contains(message([&] {
                         make_amg(Exec(), A, near_nullspace<Scalar, Exec>(n - 1, {[](std::int64_t) {
                                                                            return 1.0;
                                                                          }}));
                       }),
                       "near-nullspace"));
  EXPECT_TRUE(contains(message([&] {
                         make_amg(Exec(), A,
                                  near_nullspace<Scalar, Exec>(n, {[](std::int64_t i) {
                                                                 return i == 3 ? std::nan("") : 1.0;
                                                               }}));
                       }),
                       "not finite"));
  // A singular coarsest operator (Neumann: rows summing to zero), named.
  {
    HostCrs h;
    const std::int64_t m = 50;
    h.rows = h.cols = m;
    h.row_starts = {0};
    for (std::int64_t i = 0; i < m; ++i) {
      const double d = (i == 0 || i == m - 1) ? 1 : 2;
      if (i > 0) {
        h.col.push_back(i - 1);
        h.val.push_back(-1);
      }
      h.col.push_back(i);
      h.val.push_back(d);
      if (i + 1 < m) {
        h.col.push_back(i + 1);
        h.val.push_back(-1);
      }
      h.row_starts.push_back(h.nnz());
    }
    EXPECT_TRUE(
        contains(message([&] { make_amg(Exec(), make_device_crs<Scalar, Exec>(h)); }), "singular"));
  }
  // A memory limit too small for the first level's set-up, naming the level.
  {
    AmgOptions o;
    o.memory_limit = 1000;
    o.coarse_size = 10;
    try {
      make_amg(Exec(), A, o);
      ADD_FAILURE() << "no AllocationError";
    } catch (AllocationError const& e) {
      EXPECT_TRUE(contains(e.what(), "level 0")) << e.what();
    }
  }
  // apply() with vectors of another size.
  const auto M = make_amg(Exec(), A);
  DeviceVector<Scalar, Exec> r("r", n + 1), zz("z", n);
  EXPECT_THROW(M.apply(Exec(), r, zz), std::invalid_argument);
}

} // namespace
