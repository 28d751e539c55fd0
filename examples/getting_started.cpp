// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The program of docs/getting_started.md: a matrix built on the device, the automatic format
// choice, y = A x, and two preconditioned solves (CG with Jacobi, GMRES with ILU(0)), each
// checked against the known solution. Exits 1 when a check fails.
#include <spmvkit/spmvkit.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

using Exec = Kokkos::DefaultExecutionSpace;
using Vector = Kokkos::View<double*, Exec::memory_space>;

/// Entries of x farther than tol from 1 (NaN counts): every solve below has the solution 1.
int entries_off_one(Exec const& exec, Vector const& x, double tol) {
  int off = 0;
  Kokkos::parallel_reduce(
      "getting_started::check", Kokkos::RangePolicy<Exec>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(int i, int& count) {
        const double d = x(i) - 1.0;
        if (!(d <= tol && -d <= tol)) ++count;
      },
      off);
  return off;
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  Exec exec;
  const int m = 100, n = m * m; // the 5-point Laplacian on an m x m grid

  // 1. A CRS matrix: count each row's entries, scan the counts into row starts, fill.
  const std::int64_t nnz = 5 * std::int64_t{n} - 4 * m;
  spmvkit::CrsMatrix<double, Exec> A("A", n, n, nnz);
  auto starts = A.row_starts();
  auto cols = A.column_indices();
  auto vals = A.values();
  Kokkos::parallel_scan(
      "getting_started::row_starts", Kokkos::RangePolicy<Exec>(exec, 0, n + 1),
      KOKKOS_LAMBDA(int row, int& offset, bool last) {
        if (last) starts(row) = offset;
        if (row < n) {
          const int i = row % m, j = row / m;
          offset += 1 + (i > 0) + (i < m - 1) + (j > 0) + (j < m - 1);
        }
      });
  Kokkos::parallel_for(
      "getting_started::fill", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int row) {
        const int i = row % m, j = row / m;
        int k = starts(row); // columns in increasing order
        auto put = [&](int col, double v) {
          cols(k) = col;
          vals(k) = v;
          ++k;
        };
        if (j > 0) put(row - m, -1.0);
        if (i > 0) put(row - 1, -1.0);
        put(row, 4.0);
        if (i < m - 1) put(row + 1, -1.0);
        if (j < m - 1) put(row + m, -1.0);
      });

  // 2. Let SpMVKit choose the storage format for this matrix and this backend.
  auto M = spmvkit::make_auto_matrix(exec, A);
  std::printf("%s\n", M.describe().c_str());

  // 3. y = A x (here b = A 1, so that the solves below have the solution 1).
  Vector x("x", n), b("b", n);
  Kokkos::deep_copy(exec, x, 1.0);
  spmvkit::spmv(exec, 1.0, M, x, 0.0, b);

  // 4. CG with a Jacobi preconditioner, on the chosen format.
  spmvkit::CgOptions cg_options;
  cg_options.relative_tolerance = 1e-10;
  auto cg = spmvkit::cg(exec, M, spmvkit::make_jacobi(exec, M), b, x, cg_options);
  // The error is at most about the condition number (about 0.4 m^2) times the tolerance.
  const int cg_off = entries_off_one(exec, x, 1e-5);
  std::printf("cg/jacobi:  %s in %d iterations, true residual %.1e, %d entries off 1\n",
              spmvkit::name(cg.status), cg.iterations, cg.true_relative_residual, cg_off);

  // 5. GMRES(30) with ILU(0), for matrices that are not symmetric positive definite.
  spmvkit::GmresOptions gmres_options;
  gmres_options.relative_tolerance = 1e-10;
  auto gmres = spmvkit::gmres(exec, A, spmvkit::make_ilu0(exec, A), b, x, gmres_options);
  const int gmres_off = entries_off_one(exec, x, 1e-5);
  std::printf("gmres/ilu0: %s in %d iterations, true residual %.1e, %d entries off 1\n",
              spmvkit::name(gmres.status), gmres.iterations, gmres.true_relative_residual,
              gmres_off);

  return cg.converged() && gmres.converged() && cg_off == 0 && gmres_off == 0 ? 0 : 1;
}
