// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmv's modes (A x, Aᵀ x) and multi-vector products (rank-2 x and y, both
// layouts, k = 1, 2, 3, 8, 17 columns; LayoutRight 32-48 for every variant) for every format of the
// format list and the automatic choice, against a long-double host reference of each column: FEM,
// shipped real matrices and irregular ones (empty rows, one dense row, one dense column). Bad
// shapes, 0 columns and aliasing are rejected.
#include "test_utils.hpp"

#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class SpmvModesTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpmvModesTest, FormatConfigs, FormatConfigNames);

/// y = beta y0 + alpha op(M) x for every column, checked column by column
/// against the long-double reference of op(A).
template <class Scalar, class Exec, class Layout, class Matrix, class Options>
void check_columns(Matrix const& M, Options const& o, HostCrs const& op_host, SpmvMode mode, int k,
                   double alpha, double beta, unsigned seed, std::string const& what) {
  using V2 = Kokkos::View<Scalar**, Layout, Exec>;
  V2 x = random_columns<V2>(op_host.cols, k, seed);
  V2 y0 = random_columns<V2>(op_host.rows, k, seed + 1);
  V2 y("y", static_cast<std::size_t>(op_host.rows), static_cast<std::size_t>(k));
  if (beta == 0.0)
    Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  else
    Kokkos::deep_copy(y, y0);
  spmv(Exec(), mode, Scalar(alpha), M, x, Scalar(beta), y, o);
  Kokkos::fence();
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  // Whole Views to the host: a device column of a LayoutRight View is strided,
  // which deep_copy cannot move across memory spaces.
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (int c = 0; c < k; ++c) {
    const auto ref = reference_spmv<Scalar>(op_host, alpha, Kokkos::subview(xh, Kokkos::ALL, c),
                                            beta, Kokkos::subview(y0h, Kokkos::ALL, c));
    ASSERT_TRUE(matches_reference<Scalar>(Kokkos::subview(yh, Kokkos::ALL, c), ref))
        << what << " mode " << name(mode) << " k = " << k << " column " << c;
  }
}

std::vector<std::pair<std::string, HostCrs>> mode_matrices() {
  std::vector<std::pair<std::string, HostCrs>> m;
  m.emplace_back("random 600 x 450, empty rows, one dense row",
                 random_crs(600, 450, 14, 0.2, 450, 11));
  // One dense column: Aᵀ has a dense row, which ELL cannot pad (the twin goes to CRS).
  auto dense_column = host_transpose(random_crs(300, 500, 10, 0.1, 500, 12));
  m.emplace_back("random 500 x 300, one dense column", dense_column);
  m.emplace_back("random 40 x 700 (wide)", random_crs(40, 700, 50, 0.1, 0, 13));
  return m;
}

TYPED_TEST(SpmvModesTest, EveryModeLayoutAndColumnCountMatchesTheReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  if constexpr (!std::is_same_v<Scalar, double>) {
    // Single precision runs the same kernels (test_spmv_mixed.cpp covers the
    // widened sums); instantiating them again doubled this file's build.
    GTEST_SKIP() << "double only";
  } else {
    auto cases = mode_matrices();
    cases.emplace_back("FEM N = 4", to_host(make_fem_poisson_crs<double>(Exec(), 4)));
    unsigned seed = 100;
    int checked = 0;
    for (auto const& [what, h] : cases) {
      auto A = make_device_crs<Scalar, Exec>(h);
      const HostCrs ht = host_transpose(h);
      const auto o = typename Format::options_type{};
      if (!Format::obstacle(Exec(), A, o).empty()) continue;
      const auto M = Format::from_crs(Exec(), A, o);
      for (SpmvMode mode : {SpmvMode::none, SpmvMode::transpose, SpmvMode::conjugate_transpose}) {
        HostCrs const& op = mode == SpmvMode::none ? h : ht;
        for (int k : {1, 2, 3, 8, 17}) {
          if (mode == SpmvMode::conjugate_transpose && k != 3) continue;
          check_columns<Scalar, Exec, Kokkos::LayoutLeft>(M, Format::options(M), op, mode, k, 1.5,
                                                          -0.5, ++seed, what + " left");
          check_columns<Scalar, Exec, Kokkos::LayoutRight>(M, Format::options(M), op, mode, k, -2.0,
                                                           0.0, ++seed, what + " right");
          ++checked;
        }
      }
      // The twin follows the values: forget_transpose, then a product of new values.
    }
    EXPECT_GT(checked, 0);
  }
}

// Host backends take all whole blocks of 16 columns of a LayoutRight product in one launch when
// the format walks them in its row loop (CRS, SELL, auto); every variant, a remainder, both betas,
// and the automatic format holding each family.
TYPED_TEST(SpmvModesTest, WideLayoutRightProductsOfEveryVariantMatchTheReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  if constexpr (!std::is_same_v<Scalar, double>) {
    GTEST_SKIP() << "double only";
  } else {
    std::vector<std::pair<std::string, HostCrs>> cases;
    cases.emplace_back("random 600 x 450, empty rows, one dense row",
                       random_crs(600, 450, 14, 0.2, 450, 21));
    cases.emplace_back("FEM N = 5", to_host(make_fem_poisson_crs<double>(Exec(), 5)));
    unsigned seed = 500;
    int checked = 0;
    for (auto const& item : cases) {
      // Plain references: lambdas capture structured bindings only in C++20.
      std::string const& what = item.first;
      HostCrs const& h = item.second;
      auto A = make_device_crs<Scalar, Exec>(h);
      const HostCrs ht = host_transpose(h);
      for (auto const& o : test_options<Format, Exec>()) {
        if (!Format::obstacle(Exec(), A, o).empty()) continue;
        const auto M = Format::from_crs(Exec(), A, o);
        const std::string label = what + " " + Format::name(o);
        for (int k : {32, 35, 48}) {
          check_columns<Scalar, Exec, Kokkos::LayoutRight>(M, o, h, SpmvMode::none, k, 1.5, -0.5,
                                                           ++seed, label);
          check_columns<Scalar, Exec, Kokkos::LayoutRight>(M, o, h, SpmvMode::none, k, -2.0, 0.0,
                                                           ++seed, label);
          ++checked;
        }
        check_columns<Scalar, Exec, Kokkos::LayoutRight>(M, o, ht, SpmvMode::transpose, 33, 1.0,
                                                         1.0, ++seed, label);
      }
      // The automatic format holding each family: those that do not walk blocks get them one
      // at a time.
      if constexpr (std::is_same_v<Format, AutoFormat>) {
        for_each_type(format_list{}, [&](auto tag) {
          using F = typename decltype(tag)::type;
          if (!F::obstacle(Exec(), A, typename F::options_type{}).empty()) return;
          AutoOptions family;
          family.candidates = {F::family};
          const auto M = make_auto_matrix(Exec(), A, family);
          const std::string label = what + " auto holding " + M.selection().format;
          for (int k : {32, 35}) {
            check_columns<Scalar, Exec, Kokkos::LayoutRight>(M, family, h, SpmvMode::none, k, 1.5,
                                                             -0.5, ++seed, label);
            ++checked;
          }
        });
      }
    }
    EXPECT_GT(checked, 0);
  }
}

TYPED_TEST(SpmvModesTest, ShippedMatricesTransposedAndMultiVector) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  if constexpr (!std::is_same_v<Scalar, double>) {
    GTEST_SKIP() << "double only";
  } else {
    unsigned seed = 300;
    for (char const* file : {"1138_bus.mtx.gz", "cage10.mtx.gz", "email-Enron.mtx.gz"}) {
      auto A = read_matrix_market<Scalar, Exec>(std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" + file);
      const HostCrs h = to_host(A);
      const HostCrs ht = host_transpose(h);
      const auto o = typename Format::options_type{};
      if (!Format::obstacle(Exec(), A, o).empty()) continue;
      const auto M = Format::from_crs(Exec(), A, o);
      check_columns<Scalar, Exec, Kokkos::LayoutLeft>(
          M, Format::options(M), ht, SpmvMode::transpose, 8, 1.0, 0.0, ++seed, file);
      check_columns<Scalar, Exec, Kokkos::LayoutRight>(M, Format::options(M), h, SpmvMode::none, 3,
                                                       1.0, 1.0, ++seed, file);
    }
  }
}

TYPED_TEST(SpmvModesTest, RankOneTransposeFollowsForgetTranspose) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = random_crs(200, 150, 9, 0.1, 0, 21);
  auto A = make_device_crs<Scalar, Exec>(h);
  const auto o = typename Format::options_type{};
  if (!Format::obstacle(Exec(), A, o).empty()) GTEST_SKIP() << Format::name(o);
  auto M = Format::from_crs(Exec(), A, o);
  V x = random_vector<V>(h.rows, 5, "x");
  V y("y", static_cast<std::size_t>(h.cols));
  spmv(Exec(), SpmvMode::transpose, Scalar(1), M, x, Scalar(0), y);
  Kokkos::fence();
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(host_transpose(h), 1.0, xh, 0.0, xh);
  EXPECT_TRUE(matches_reference<Scalar>(y, ref));
  // Bit-identical on repetition (no atomics).
  V y2("y2", static_cast<std::size_t>(h.cols));
  spmv(Exec(), SpmvMode::transpose, Scalar(1), M, x, Scalar(0), y2);
  Kokkos::fence();
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
  for (std::size_t i = 0; i < a.extent(0); ++i) ASSERT_EQ(a(i), b(i)) << i;
  // The solvers' operator: apply_transpose and the multi-vector apply.
  MatrixOperator<std::decay_t<decltype(M)>> op(M);
  Kokkos::deep_copy(y2, Scalar(0));
  op.apply_transpose(Exec(), x, y2);
  Kokkos::fence();
  EXPECT_TRUE(matches_reference<Scalar>(y2, ref)) << "MatrixOperator::apply_transpose";
  using MV = typename decltype(op)::multi_vector_type;
  MV X("X", static_cast<std::size_t>(h.cols), 2), Y("Y", static_cast<std::size_t>(h.rows), 2);
  auto Xh = Kokkos::create_mirror_view(X);
  for (std::int64_t i = 0; i < h.cols; ++i) Xh(i, 0) = Xh(i, 1) = Scalar(0.5) + Scalar(i % 7);
  Kokkos::deep_copy(X, Xh);
  op.apply(Exec(), X, Y);
  Kokkos::fence();
  const auto ref2 = reference_spmv<Scalar>(h, 1.0, Kokkos::subview(Xh, Kokkos::ALL, 1), 0.0,
                                           Kokkos::subview(Xh, Kokkos::ALL, 1));
  auto Yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  EXPECT_TRUE(matches_reference<Scalar>(Kokkos::subview(Yh, Kokkos::ALL, 1), ref2))
      << "MatrixOperator::apply (multi-vector)";
  // A new matrix of other values: its twin is its own, not the old one's.
  HostCrs h2 = h;
  for (auto& v : h2.val) v = 2 * v + 1;
  auto M2 = Format::from_crs(Exec(), make_device_crs<Scalar, Exec>(h2), o);
  spmv(Exec(), SpmvMode::transpose, Scalar(1), M2, x, Scalar(0), y);
  Kokkos::fence();
  EXPECT_TRUE(
      matches_reference<Scalar>(y, reference_spmv<Scalar>(host_transpose(h2), 1.0, xh, 0.0, xh)));
  M2.forget_transpose();
  spmv(Exec(), SpmvMode::transpose, Scalar(1), M2, x, Scalar(0), y);
  Kokkos::fence();
  EXPECT_TRUE(
      matches_reference<Scalar>(y, reference_spmv<Scalar>(host_transpose(h2), 1.0, xh, 0.0, xh)));
}

TYPED_TEST(SpmvModesTest, RejectsBadShapesZeroColumnsAndAliasing) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using V = Kokkos::View<Scalar*, Exec>;
  using V2 = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Exec>;
  const HostCrs h = random_crs(30, 20, 5, 0.0, 0, 31);
  auto A = make_device_crs<Scalar, Exec>(h);
  const auto M = Format::from_crs(Exec(), A, typename Format::options_type{});
  auto message = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (std::invalid_argument const& e) {
      return e.what();
    }
    return "no exception";
  };
  // A x needs 20-entry x; Aᵀ x needs 30-entry x and gives 20 entries.
  V x20("x", 20), x30("x", 30), y20("y", 20), y30("y", 30);
  EXPECT_NE(message([&] {
              spmv(Exec(), SpmvMode::transpose, Scalar(1), M, x20, Scalar(0), y30);
            }).find("A^T is 20 x 30"),
            std::string::npos);
  EXPECT_NO_THROW(spmv(Exec(), SpmvMode::transpose, Scalar(1), M, x30, Scalar(0), y20));
  EXPECT_NE(message([&] {
              spmv(Exec(), SpmvMode::none, Scalar(1), M, x30, Scalar(0), y20);
            }).find("x has 30 rows (needs 20)"),
            std::string::npos);
  V2 a("a", 20, 3), b("b", 30, 2), zero_x("z", 20, 0), zero_y("z", 30, 0);
  EXPECT_NE(message([&] {
              spmv(Exec(), SpmvMode::none, Scalar(1), M, a, Scalar(0), b);
            }).find("x has 3 columns and y 2"),
            std::string::npos);
  EXPECT_NE(message([&] {
              spmv(Exec(), SpmvMode::none, Scalar(1), M, zero_x, Scalar(0), zero_y);
            }).find("0 columns"),
            std::string::npos);
  // x and y of one allocation (a square operator: rows 0..19 of one 40-row View).
  V2 both("both", 40, 2);
  auto top = Kokkos::subview(both, std::make_pair(0, 20), Kokkos::ALL);
  auto bottom = Kokkos::subview(both, std::make_pair(20, 40), Kokkos::ALL);
  auto Sq = Format::from_crs(Exec(), make_device_crs<Scalar, Exec>(random_crs(20, 20, 4, 0, 0, 3)),
                             typename Format::options_type{});
  // LayoutLeft rows 0..19 and 20..39 interleave in memory column by column.
  EXPECT_NE(message([&] {
              spmv(Exec(), SpmvMode::none, Scalar(1), Sq, top, Scalar(0), bottom);
            }).find("share storage"),
            std::string::npos);
  EXPECT_NE(message([&] {
              spmv(Exec(), SpmvMode::transpose, Scalar(1), Sq, top, Scalar(0), top);
            }).find("share storage"),
            std::string::npos);
}

} // namespace
