// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Downstream use of an installed SpMVKit: builds a 1D Laplacian (tridiagonal, 2 on the
// diagonal, -1 beside it) as a CrsMatrix, converts it to SELL-C-sigma and checks y = A * x for
// x(i) = i + 1 against the exact result. Returns non-zero on any mismatch.
#include <spmvkit/spmvkit.hpp>
#include <spmvkit/version.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace {

using exec_space = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, exec_space>;

// Number of entries of y that differ from the exact A * x.
int count_mismatches(Kokkos::View<const double*, Kokkos::HostSpace> y, int n) {
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    // (A x)_i = 2 (i+1) - i - (i+2) = 0 inside; the boundary rows keep one neighbour.
    double expected = 0.0;
    if (i == 0) expected = 2.0 * 1 - 2;
    if (i == n - 1) expected = 2.0 * n - (n - 1);
    if (!(std::abs(y(i) - expected) <= 1e-12)) { // NaN fails too
      if (bad < 5) std::printf("  y(%d) = %g, expected %g\n", i, y(i), expected);
      ++bad;
    }
  }
  return bad;
}

int run() {
  constexpr int n = 1000;
  exec_space exec;
  Crs A("laplace1d", n, n, 3 * std::int64_t{n} - 2);
  auto row_starts = A.row_starts();
  auto cols = A.column_indices();
  auto vals = A.values();
  Kokkos::parallel_for(
      "downstream::fill", Kokkos::RangePolicy<exec_space>(exec, 0, n), KOKKOS_LAMBDA(int i) {
        // Row i starts after row 0's two entries and (i - 1) full rows of three.
        int k = i == 0 ? 0 : 3 * i - 1;
        row_starts(i) = k;
        if (i > 0) {
          cols(k) = i - 1;
          vals(k++) = -1.0;
        }
        cols(k) = i;
        vals(k++) = 2.0;
        if (i < n - 1) {
          cols(k) = i + 1;
          vals(k++) = -1.0;
        }
        if (i == n - 1) row_starts(n) = k;
      });

  Kokkos::View<double*> x("x", n), y_crs("y_crs", n), y_sell("y_sell", n);
  Kokkos::parallel_for(
      "downstream::x", Kokkos::RangePolicy<exec_space>(exec, 0, n),
      KOKKOS_LAMBDA(int i) { x(i) = i + 1.0; });

  auto S = spmvkit::make_sell(exec, A, /*chunk_size=*/8, /*sigma=*/32);
  // Most exact entries are 0: start from NaN so that a row left unwritten shows.
  Kokkos::deep_copy(exec, y_crs, std::nan(""));
  Kokkos::deep_copy(exec, y_sell, std::nan(""));
  spmvkit::spmv(exec, 1.0, A, x, 0.0, y_crs);
  spmvkit::spmv(exec, 1.0, S, x, 0.0, y_sell);
  exec.fence();

  auto h_crs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_crs);
  auto h_sell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_sell);
  int const bad_crs = count_mismatches(h_crs, n);
  int const bad_sell = count_mismatches(h_sell, n);
  std::printf("SpMVKit %s (%s) on %s: CRS %d mismatches, SELL-8-32 %d mismatches\n",
              SPMVKIT_VERSION_STRING, SPMVKIT_GIT_HASH, exec_space::name(), bad_crs, bad_sell);
  return bad_crs == 0 && bad_sell == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  return run();
}
