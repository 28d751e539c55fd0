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
    // team kernel walks many rows (on a GPU the full league gives each thread about four).
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
      // 0 and count as the solver passes them; and a part of the columns (the
      // general kernel, and 32 subtracted columns of a wider projection).
      std::vector<int> subs{0, count, count / 2};
      if (count > detail::gmres_dot_width) subs.push_back(detail::gmres_dot_width);
      std::sort(subs.begin(), subs.end());
      subs.erase(std::unique(subs.begin(), subs.end()), subs.end());
      for (int sub : subs) {
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
        // The subtraction kernel with ‖w‖², from the same start, both ways.
        for (const auto kernel :
             {detail::GmresDotsKernel::blocks, detail::GmresDotsKernel::teams}) {
          const std::string where = "gmres_subtract, n " + std::to_string(n) + ", count " +
                                    std::to_string(sub) + ", kernel " +
                                    (kernel == detail::GmresDotsKernel::blocks ? "blocks" : "rows");
          Kokkos::deep_copy(w, w0);
          const double ww = detail::gmres_subtract(exec, V, w, h, n, sub, kernel);
          // Rounding of w' and of a double sum of n terms in any order.
          const double ww_tol =
              ((sub + 2) * 4 * eps + (n + 2) * 1.2e-16) * static_cast<double>(ww_ref) + 1e-300;
          EXPECT_NEAR(ww, static_cast<double>(ww_ref), ww_tol) << where;
          auto w_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
          for (std::int64_t i = 0; i < n; ++i) {
            ASSERT_NEAR(w_out(i), w_ref[i], (sub + 1) * 2 * eps * (std::abs(w_ref[i]) + 1))
                << where << ", row " << i;
          }
        }
      }
    }
  }
}

TYPED_TEST(GmresKernelsTest, DeviceStepMatchesLongDoubleCgs2) {
  // gmres_cgs2_step_on_device (the GPUs' Arnoldi step, every sum left on the
  // device) on every backend: h1, h2, ‖w‖², the new w and the stored column
  // against CGS2 in long double, with error bounds carried through each step
  // (Scalar roundings of w, double sums, the coefficients' own errors).
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Vec = Kokkos::View<Scalar*, typename Exec::memory_space>;
  using Step = Kokkos::View<double*, typename Exec::memory_space>;
  using LD = long double;
  const LD eps = std::numeric_limits<Scalar>::epsilon();
  const LD sum_eps = 2.3e-16L; // double sums, any order
  constexpr int max_columns = 46;
  constexpr int stride = max_columns;
  Exec exec;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(100), std::int64_t(5003),
                         std::int64_t(70001)}) {
    auto ws = detail::make_gmres_dots_workspace(exec, n);
    Vec V("V", n * max_columns), w("w", n);
    Step step("step", 2 * stride + 1);
    auto V0 = Kokkos::create_mirror(V);
    auto w0 = Kokkos::create_mirror(w);
    // Columns of norm about one, as in a Krylov basis, so that the step is well conditioned.
    const double scale = 1.0 / std::sqrt(0.5 * static_cast<double>(std::max<std::int64_t>(n, 1)));
    for (std::int64_t k = 0; k < n * max_columns; ++k) {
      V0(k) = static_cast<Scalar>(scale * ripple(k));
    }
    for (std::int64_t i = 0; i < n; ++i) w0(i) = static_cast<Scalar>(2 + ripple(3 * i + 1));
    auto v = [&](int c, std::int64_t i) { return static_cast<LD>(V0(c * n + i)); };
    for (int count : {1, 8, 9, 17, 32, 33, max_columns - 1}) {
      const std::string where = "n " + std::to_string(n) + ", count " + std::to_string(count);
      std::vector<LD> h1(count, 0), t1(count, 0), h2(count, 0), t2(count, 0);
      std::vector<LD> w1(n), e1(n), w2(n), e2(n);
      for (std::int64_t i = 0; i < n; ++i) {
        for (int c = 0; c < count; ++c) {
          h1[c] += v(c, i) * w0(i);
          t1[c] += std::abs(v(c, i) * w0(i));
        }
      }
      for (int c = 0; c < count; ++c) t1[c] *= (n + 2) * sum_eps;
      // w1 = w0 − V h1: count Scalar roundings of terms up to m, and h1's errors.
      for (std::int64_t i = 0; i < n; ++i) {
        w1[i] = w0(i);
        LD m = std::abs(static_cast<LD>(w0(i))), from_h = 0;
        for (int c = 0; c < count; ++c) {
          w1[i] -= h1[c] * v(c, i);
          m += std::abs(h1[c] * v(c, i));
          from_h += t1[c] * std::abs(v(c, i));
        }
        e1[i] = (count + 2) * eps * m + from_h;
      }
      for (std::int64_t i = 0; i < n; ++i) {
        for (int c = 0; c < count; ++c) {
          h2[c] += v(c, i) * w1[i];
          t2[c] += std::abs(v(c, i)) * (e1[i] + (n + 2) * sum_eps * (std::abs(w1[i]) + e1[i]));
        }
      }
      LD ww = 0, tww = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        w2[i] = w1[i];
        LD m = std::abs(w1[i]) + e1[i], from_h = 0;
        for (int c = 0; c < count; ++c) {
          w2[i] -= h2[c] * v(c, i);
          m += std::abs(h2[c] * v(c, i));
          from_h += t2[c] * std::abs(v(c, i));
        }
        e2[i] = e1[i] + (count + 2) * eps * m + from_h;
        ww += w2[i] * w2[i];
        tww += 2 * std::abs(w2[i]) * e2[i] + e2[i] * e2[i];
      }
      tww += (n + 2) * sum_eps * ww;
      // The last subtraction both ways: the GPUs' rows kernel also on host backends.
      for (const auto kernel : {detail::GmresDotsKernel::blocks, detail::GmresDotsKernel::teams}) {
        const std::string at =
            where + (kernel == detail::GmresDotsKernel::blocks ? ", blocks" : ", rows");
        Kokkos::deep_copy(V, V0);
        Kokkos::deep_copy(w, w0);
        Kokkos::deep_copy(step, -1.0);
        detail::gmres_cgs2_step_on_device(exec, V, w, n, count, step, stride, ws, kernel);
        auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), step);
        auto w_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
        auto V_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), V);
        for (int c = 0; c < count; ++c) {
          EXPECT_NEAR(s(c), static_cast<double>(h1[c]), static_cast<double>(2 * t1[c]) + 1e-300)
              << at << ", h1 column " << c;
          EXPECT_NEAR(s(stride + c), static_cast<double>(h2[c]),
                      static_cast<double>(2 * t2[c]) + 1e-300)
              << at << ", h2 column " << c;
        }
        for (int c = count; c < stride; ++c) {
          ASSERT_EQ(s(c), -1.0) << at << ": h1 entry " << c << " beyond count was written";
          ASSERT_EQ(s(stride + c), -1.0) << at << ": h2 entry " << c << " beyond count";
        }
        EXPECT_NEAR(s(2 * stride), static_cast<double>(ww), static_cast<double>(2 * tww) + 1e-300)
            << at << ", ‖w‖²";
        const double norm = std::sqrt(s(2 * stride));
        for (std::int64_t i = 0; i < n; ++i) {
          ASSERT_NEAR(w_out(i), static_cast<double>(w2[i]), static_cast<double>(2 * e2[i]))
              << at << ", w row " << i;
          // The stored column is the kernel's own w over its own norm.
          ASSERT_NEAR(V_out(count * n + i), w_out(i) / norm,
                      4 * static_cast<double>(eps) * std::abs(w_out(i) / norm) + 1e-300)
              << at << ", stored column row " << i;
        }
        // The first `count` columns are read, never written.
        for (std::int64_t k = 0; k < count * n; ++k) ASSERT_EQ(V_out(k), V0(k)) << at;
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
