// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Downstream use of SpMVKit::core alone (no zlib, no Kokkos Kernels): the install test builds it
// against an installed SpMVKit found with find_package(SpMVKit COMPONENTS core), and against the
// source tree pulled in with FetchContent or add_subdirectory. Builds a 1D Laplacian (2 on the
// diagonal, -1 beside it) as a CrsMatrix and checks y = A * x for x(i) = i + 1 against the exact
// result. Returns non-zero on any mismatch.
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/version.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace {

using exec_space = Kokkos::DefaultExecutionSpace;

int run() {
  constexpr int n = 1000;
  exec_space exec;
  spmvkit::CrsMatrix<double, exec_space> A("laplace1d", n, n, 3 * std::int64_t{n} - 2);
  auto row_starts = A.row_starts();
  auto cols = A.column_indices();
  auto vals = A.values();
  Kokkos::View<double*> x("x", n), y("y", n);
  Kokkos::parallel_for(
      "downstream_core::fill", Kokkos::RangePolicy<exec_space>(exec, 0, n), KOKKOS_LAMBDA(int i) {
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
        x(i) = i + 1.0;
      });
  // Most exact entries are 0: start from NaN so that a row left unwritten shows.
  Kokkos::deep_copy(exec, y, std::nan(""));
  spmvkit::spmv(exec, 1.0, A, x, 0.0, y);
  exec.fence();

  auto h_y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    // (A x)_i = 2 (i+1) - i - (i+2) = 0 inside and in row 0 (2 - 2); the last row has no right
    // neighbour: 2 n - (n - 1).
    double const expected = i == n - 1 ? 2.0 * n - (n - 1) : 0.0;
    if (!(std::abs(h_y(i) - expected) <= 1e-12)) { // NaN fails too
      if (bad < 5) std::printf("  y(%d) = %g, expected %g\n", i, h_y(i), expected);
      ++bad;
    }
  }
  std::printf("SpMVKit %s (%s) core only on %s: CRS SpMV %d mismatches\n", SPMVKIT_VERSION_STRING,
              SPMVKIT_GIT_HASH, exec_space::name(), bad);
  return bad == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  return run();
}
