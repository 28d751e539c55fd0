// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kokkos::Serial where a parallel host backend is enabled too: the typed suites
// leave Serial out there (test_utils.hpp says why), so this keeps it compiled
// and run: every format's SpMV against the reference, and a CG solve.
#include "test_utils.hpp"

#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/cg.hpp>

#include <string>

#if defined(KOKKOS_ENABLE_SERIAL) &&                                                               \
    (defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS))

namespace {

using namespace spmvkit;
using namespace spmvkit::test;
using Exec = Kokkos::Serial;

TEST(SerialBackend, EveryFormatMatchesTheReference) {
  using V = Kokkos::View<double*, Exec>;
  const HostCrs h = random_crs(300, 280, 25, 0.1, 200, 77);
  const auto A = make_device_crs<double, Exec>(h);
  const V x = random_vector<V>(h.cols, 3, "x");
  const V y0 = random_vector<V>(h.rows, 4, "y0");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  const auto ref = reference_spmv<double>(h, 1.5, xh, -0.5, y0h);
  int checked = 0;
  for_each_type(all_formats{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    for (auto const& o : test_options<F, Exec>()) {
      if (!F::obstacle(Exec(), A, o).empty()) continue;
      const auto M = F::from_crs(Exec(), A, o);
      V y("y", h.rows);
      Kokkos::deep_copy(y, y0);
      spmv(Exec(), 1.5, M, x, -0.5, y, o);
      EXPECT_TRUE(matches_reference<double>(y, ref)) << F::name(o);
      ++checked;
    }
  });
  EXPECT_GT(checked, static_cast<int>(format_list::size));
}

TEST(SerialBackend, CgSolvesFemPoisson) {
  const int N = 10;
  const auto A = make_fem_poisson<SellFormat, double>(Exec(), N);
  const auto b = fem_poisson_rhs<double>(Exec(), N);
  auto x = fem_poisson_rough_guess<double>(Exec(), N);
  CgOptions o;
  o.relative_tolerance = 1e-10;
  o.use_initial_guess = true;
  const auto r = spmvkit::cg(Exec(), A, b, x, o);
  EXPECT_TRUE(r.converged()) << r.message;
  EXPECT_LT(r.true_relative_residual, 1e-9);
}

} // namespace

#endif
