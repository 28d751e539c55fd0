// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Mixed-precision CG (solvers/cg.hpp, solvers/operator.hpp): a float matrix
// with double vectors against double CG, with every format, on the FEM
// problem and the SPD matrices shipped with the repository.
//
// The float matrix is the double one rounded: a different matrix. The claim
// is that CG reaches 1e-8 on it (the true residual against the float
// operator, which CgResult reports); the residual against the double matrix
// is printed beside it, and bounded by what the rounding of the matrix allows.
#include "test_utils.hpp"

#include <spmvkit/interop/kokkos_blas.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using spmvkit::CgOptions;
using spmvkit::CgResult;
using spmvkit::CgVariant;

/// The other of float and double.
template <class Scalar>
using partner_t = std::conditional_t<std::is_same_v<Scalar, float>, double, float>;

/// ‖b − A x‖ / ‖b‖, the product in A's precision with x's vectors (spmv).
template <class Exec, class Matrix, class V>
double relative_residual(Matrix const& A, V const& b, V const& x) {
  V r("r", b.extent(0));
  spmvkit::spmv(Exec(), 1.0, A, x, 0.0, r);
  auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  long double d = 0, n = 0;
  for (std::size_t i = 0; i < bh.extent(0); ++i) {
    const long double e = static_cast<long double>(bh(i)) - rh(i);
    d += e * e;
    n += static_cast<long double>(bh(i)) * bh(i);
  }
  return static_cast<double>(std::sqrt(d / n));
}

/// ‖v‖ on the host.
template <class V>
double norm_host(V const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  long double s = 0;
  for (std::size_t i = 0; i < h.extent(0); ++i) s += static_cast<long double>(h(i)) * h(i);
  return static_cast<double>(std::sqrt(s));
}

template <class C>
class CgMixedEveryFormatTest : public ::testing::Test {};
TYPED_TEST_SUITE(CgMixedEveryFormatTest, spmvkit::test::FormatConfigs,
                 spmvkit::test::FormatConfigNames);

// Every format and its variants on FEM N = 12: the matrix in the
// configuration's precision, the vectors in the other. A float matrix with
// double vectors reaches 1e-8 (standard, KokkosBlas vectors and pipelined) in
// about the iterations of double CG; a double matrix with float vectors
// converges like float CG (1e-4).
TYPED_TEST(CgMixedEveryFormatTest, ReachesTheVectorPrecisionsTolerance) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using Vector = partner_t<Scalar>;
  using V = spmvkit::fem_vector_t<Vector, Exec>;
  const int N = 12;
  const double tol = sizeof(Vector) == 8 ? 1e-8 : 1e-4;
  const auto A = spmvkit::make_fem_poisson_crs<Scalar>(Exec(), N);
  const auto A_same = spmvkit::make_fem_poisson_crs<Vector>(Exec(), N);
  const V b = spmvkit::fem_poisson_rhs<Vector>(Exec(), N);
  const V x0 = spmvkit::fem_poisson_rough_guess<Vector>(Exec(), N);
  CgOptions opts;
  opts.relative_tolerance = tol;
  opts.use_initial_guess = true;
  V x_same("x_same", b.extent(0));
  Kokkos::deep_copy(x_same, x0);
  const CgResult same = spmvkit::cg(Exec(), A_same, b, x_same, opts);
  ASSERT_TRUE(same.converged()) << same.message;
  int solved = 0;
  for (auto const& o : spmvkit::test::test_options<Format, Exec>()) {
    if (!Format::obstacle(Exec(), A, o).empty()) continue;
    SCOPED_TRACE(Format::name(o));
    const auto M = Format::from_crs(Exec(), A, o);
    const auto op = spmvkit::make_mixed_operator<Vector>(M, o);
    auto run = [&](char const* way, CgOptions const& w, auto policy) {
      SCOPED_TRACE(way);
      V x("x", b.extent(0));
      Kokkos::deep_copy(x, x0);
      const CgResult r = spmvkit::cg(Exec(), op, b, x, w, policy);
      EXPECT_TRUE(r.converged()) << r.message;
      EXPECT_LE(r.true_relative_residual, tol);
      // The operator's own residual, recomputed here.
      EXPECT_LE(relative_residual<Exec>(M, b, x), 1.01 * tol);
      EXPECT_NEAR(r.iterations, same.iterations, 2 + same.iterations / 10);
    };
    run("fused", opts, spmvkit::FusedVectors());
    run("kokkos_blas", opts, spmvkit::KokkosBlasVectors());
    CgOptions pipelined = opts;
    pipelined.variant = CgVariant::pipelined;
    run("pipelined", pipelined, spmvkit::FusedVectors());
    ++solved;
  }
  // cg() on the matrix itself picks the mixed operator from b's type.
  V x("x", b.extent(0));
  Kokkos::deep_copy(x, x0);
  const CgResult direct = spmvkit::cg(Exec(), A, b, x, opts);
  EXPECT_TRUE(direct.converged()) << direct.message;
  EXPECT_LE(direct.true_relative_residual, tol);
  EXPECT_GT(solved, 0);
}

struct Problem {
  std::string name;
  spmvkit::CrsMatrix<double, Kokkos::DefaultExecutionSpace> A;
  spmvkit::CrsMatrix<float, Kokkos::DefaultExecutionSpace> A_float;
  bool jacobi;
};

// The claim of the issue: a float matrix with double vectors reaches 1e-8 on
// FEM N = 64 and on the shipped SPD matrices wherever double CG does, with
// the iteration counts side by side. CRS on the default execution space (the
// formats are covered above). 1.9 s in Release on the 2-core CI machine
// (OpenMP, 2026-11-23), most of it FEM N = 64: the same size FemCgConvergence
// solves in double, so it stays in the suite (sanitizer runs included).
TEST(CgMixed, FemN64AndShippedSpdMatricesReachDoubleTolerance) {
  using Exec = Kokkos::DefaultExecutionSpace;
  using V = spmvkit::fem_vector_t<double, Exec>;
  const double tol = 1e-8;
  std::vector<Problem> problems;
  problems.push_back({"fem_N64", spmvkit::make_fem_poisson_crs<double>(Exec(), 64),
                      spmvkit::make_fem_poisson_crs<float>(Exec(), 64), false});
  // The bcsstk matrices are badly scaled: Jacobi, as in test_cg_variants.
  for (char const* name : {"bcsstk08", "bcsstk14", "1138_bus"}) {
    const std::string path = std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" + name + ".mtx.gz";
    problems.push_back({name, spmvkit::read_matrix_market<double, Exec>(path),
                        spmvkit::read_matrix_market<float, Exec>(path), true});
  }
  std::cout << "[ cg/mixed ] problem      rows  double CG  float matrix + double vectors  "
               "(true residual: float operator / double matrix)\n";
  for (auto const& p : problems) {
    SCOPED_TRACE(p.name);
    const std::int64_t n = p.A.num_rows();
    V b, x0;
    if (p.name == "fem_N64") {
      b = spmvkit::fem_poisson_rhs<double>(Exec(), 64);
      x0 = spmvkit::fem_poisson_rough_guess<double>(Exec(), 64);
    } else {
      b = spmvkit::test::random_vector<V>(n, 17, "b");
      x0 = V("x0", n);
    }
    CgOptions opts;
    opts.relative_tolerance = tol;
    opts.max_iterations = 20000;
    opts.jacobi = p.jacobi;
    opts.use_initial_guess = true;
    V x_double("x_double", n), x_mixed("x_mixed", n);
    Kokkos::deep_copy(x_double, x0);
    Kokkos::deep_copy(x_mixed, x0);
    const CgResult d = spmvkit::cg(Exec(), p.A, b, x_double, opts);
    ASSERT_TRUE(d.converged()) << "double CG: " << d.message;
    const CgResult m = spmvkit::cg(Exec(), p.A_float, b, x_mixed, opts);
    const double against_double = relative_residual<Exec>(p.A, b, x_mixed);
    std::cout << "[ cg/mixed ] " << p.name << std::string(12 - p.name.size(), ' ') << n << "  "
              << d.iterations << " its  " << m.iterations << " its (" << m.residual_replacements
              << " replacements), " << m.true_relative_residual << " / " << against_double
              << (m.converged() ? "" : "  NOT CONVERGED: ") << m.message << "\n";
    EXPECT_TRUE(m.converged()) << m.message;
    EXPECT_LE(m.true_relative_residual, tol);
    EXPECT_LE(relative_residual<Exec>(p.A_float, b, x_mixed), 1.01 * tol);
    // What rounding the matrix to float can change: ‖(A − fl(A)) x‖ ≤
    // u ‖|A| |x|‖ with u = 2^-24, against ‖b‖; a residual against the double
    // matrix above that would mean the solve itself lost accuracy.
    V ax("abs_ax", n), xa("abs_x", n);
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_mixed);
    for (std::int64_t i = 0; i < n; ++i) xh(i) = std::fabs(xh(i));
    Kokkos::deep_copy(xa, xh);
    auto abs_A = spmvkit::CrsMatrix<double, Exec>("abs_A", n, n, p.A.nnz());
    Kokkos::deep_copy(abs_A.row_starts(), p.A.row_starts());
    Kokkos::deep_copy(abs_A.column_indices(), p.A.column_indices());
    auto vh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.A.values());
    for (std::size_t k = 0; k < vh.extent(0); ++k) vh(k) = std::fabs(vh(k));
    Kokkos::deep_copy(abs_A.values(), vh);
    spmvkit::spmv(Exec(), 1.0, abs_A, xa, 0.0, ax);
    const double rounding = std::ldexp(1.0, -24) * norm_host(ax) / norm_host(b);
    EXPECT_LE(against_double, tol + rounding);
  }
}

} // namespace
