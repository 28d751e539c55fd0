// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GMRES's basis kernels (solvers/detail/gmres_kernels.hpp): both multi-dot
// kernels (host blocks and GPU teams) on every backend, against a long double
// reference, across the widths where the kernels change instantiation (8, 16,
// 32 columns and beyond) and sizes below, at and beyond a team and a block.
#include "test_utils.hpp"

#include <spmvkit/solvers/detail/gmres_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class GmresKernelsTest : public ::testing::Test {};
TYPED_TEST_SUITE(GmresKernelsTest, AllConfigs, ConfigNames);

/// A reproducible value in [-1, 1) that is not a simple function of the index.
double ripple(std::int64_t i) {
  return std::sin(0.37 * static_cast<double>(i) + 0.11 * static_cast<double>(i % 7)) -
         0.25 * std::cos(0.013 * static_cast<double>(i));
}

TYPED_TEST(GmresKernelsTest, MultiDotsAndSubtractionMatchLongDouble) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = Kokkos::View<Scalar*, typename Exec::memory_space>;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  constexpr int max_columns = 45;
  Exec exec;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(100), std::int64_t(5003),
                         std::int64_t(70001)}) {
    // The workspace as the solver makes it, and one of 3 teams: there every thread of the
    // team kernel walks several rows (on a GPU the full league gives each thread one row here).
    auto ws = detail::make_gmres_dots_workspace(exec, n);
    auto ws3 = ws;
    ws3.league = std::min(ws.league, 3);
    Vec V("V", n * max_columns), w("w", n), h("h", max_columns);
    auto Vh = Kokkos::create_mirror_view(V);
    auto w0 = Kokkos::create_mirror(w); // a copy on host spaces too: w is overwritten
    auto hh = Kokkos::create_mirror_view(h);
    for (std::int64_t k = 0; k < n * max_columns; ++k) Vh(k) = static_cast<Scalar>(ripple(k));
    for (std::int64_t i = 0; i < n; ++i) w0(i) = static_cast<Scalar>(2 + ripple(3 * i + 1));
    for (int c = 0; c < max_columns; ++c) hh(c) = static_cast<Scalar>(0.02 * ripple(c + 5));
    Kokkos::deep_copy(V, Vh);
    Kokkos::deep_copy(h, hh);
    for (int count : {1, 7, 8, 9, 16, 17, 31, 32, 33, max_columns}) {
      for (int sub : {0, count}) {
        // Reference: w' = w − V(:, 0:sub) h rounded as the kernels round it
        // (one Scalar subtraction per column, in column order), the sums of
        // its products in long double, and a bound on each sum's error.
        std::vector<long double> ref(count, 0.0L), bound(count, 0.0L);
        std::vector<Scalar> w_ref(n);
        long double ww_ref = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          Scalar wi = w0(i);
          long double magnitude = std::abs(static_cast<long double>(wi));
          for (int c = 0; c < sub; ++c) {
            wi -= hh(c) * Vh(c * n + i);
            magnitude += std::abs(static_cast<long double>(hh(c)) * Vh(c * n + i));
          }
          w_ref[i] = wi;
          for (int c = 0; c < count; ++c) {
            const long double v = Vh(c * n + i);
            ref[c] += v * static_cast<long double>(wi);
            // Rounding of w' (sub + 1 operations) and of the double sums.
            bound[c] += std::abs(v) * ((sub + 2) * eps * magnitude +
                                       (n + 2) * 1.2e-16L * std::abs(static_cast<long double>(wi)));
          }
          ww_ref += static_cast<long double>(wi) * wi;
        }
        for (int way = 0; way < 3; ++way) {
          const auto kernel =
              way == 0 ? detail::GmresDotsKernel::blocks : detail::GmresDotsKernel::teams;
          const std::string where = "n " + std::to_string(n) + ", count " + std::to_string(count) +
                                    ", sub " + std::to_string(sub) + ", kernel " +
                                    (way == 0   ? "blocks"
                                     : way == 1 ? "teams"
                                                : "teams, a league of 3");
          Kokkos::deep_copy(w, w0);
          std::vector<double> sums(count, -1.0);
          detail::gmres_dots(exec, V, w, h, n, sub, count, sums.data(), way == 2 ? ws3 : ws,
                             kernel);
          auto w_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
          for (std::int64_t i = 0; i < n; ++i) {
            // The same operations in the same order: within one rounding of
            // fused multiply-adds.
            ASSERT_NEAR(w_out(i), w_ref[i], (sub + 1) * 2 * eps * (std::abs(w_ref[i]) + 1))
                << where << ", row " << i;
          }
          for (int c = 0; c < count; ++c) {
            EXPECT_NEAR(sums[c], static_cast<double>(ref[c]), static_cast<double>(2 * bound[c]))
                << where << ", column " << c;
          }
        }
        // The subtraction kernel with ‖w‖², from the same start.
        Kokkos::deep_copy(w, w0);
        const double ww = detail::gmres_subtract(exec, V, w, h, n, sub);
        const double ww_tol = (sub + 2) * 4 * eps * static_cast<double>(ww_ref) + 1e-300;
        EXPECT_NEAR(ww, static_cast<double>(ww_ref), ww_tol)
            << "gmres_subtract, n " << n << ", count " << sub;
      }
    }
  }
}

TEST(GmresKernels, HostBlocksAreLongStreamsAndShareTheRowsOut) {
  // At least 1024 rows (8 KB a column), at most 16384, rounded to 256, and
  // about eight blocks per thread where the rows allow it.
  EXPECT_EQ(detail::gmres_host_block(100, 1), 1024);
  EXPECT_EQ(detail::gmres_host_block(103823, 1), 13056);
  EXPECT_EQ(detail::gmres_host_block(103823, 2), 6656);
  EXPECT_EQ(detail::gmres_host_block(103823, 64), 1024);
  EXPECT_EQ(detail::gmres_host_block(std::int64_t(1) << 30, 2), 16384);
  EXPECT_EQ(detail::gmres_host_block(5000, 0), 1024); // a zero thread count is read as one
}

} // namespace
