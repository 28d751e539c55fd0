// The 5-point finite-difference Poisson problem on an N x N grid of interior
// points (the Numba ELLPACK-R notebook's test matrix), solved by spmvkit::cg:
//
//   -Δu = f on (0, 1)², u = 0 on the boundary, h = 1/(N + 1),
//   (4 u_ij - u_i±1,j - u_i,j±1) / h² = f_ij.
//
// The manufactured solution u = e^(x+y) sin(πx) sin(πy) is not an eigenvector
// of the matrix, so CG does real work. The program solves on N and on 2N + 1
// (h halves), in CRS and in SELL, and exits non-zero unless the max-norm error
// drops by a factor close to 4 (second order) and both formats agree.
//
//   poisson_2d [--N 64] [--C auto] [--sigma 1] [--tol 1e-12]
#include "example_main.hpp"
#include "example_utils.hpp"

#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;
using Vec = Kokkos::View<double*, Crs::device_type>;
constexpr double pi = 3.14159265358979323846;

/// u = g(x) g(y) with g(t) = e^t sin(πt); -Δu = -(g''(x) g(y) + g(x) g''(y)).
KOKKOS_INLINE_FUNCTION double g(double t) { return ex::kmath::exp(t) * ex::kmath::sin(pi * t); }
KOKKOS_INLINE_FUNCTION double g2(double t) {
  return ex::kmath::exp(t) *
         ((1 - pi * pi) * ex::kmath::sin(pi * t) + 2 * pi * ex::kmath::cos(pi * t));
}

/// The 5-point matrix, on the device: row lengths by a scan, then the entries in
/// column order (south, west, centre, east, north).
Crs five_point(Exec const& exec, int N) {
  const std::int64_t rows = static_cast<std::int64_t>(N) * N;
  Crs A("poisson_2d", rows, rows, 5 * rows - 4 * static_cast<std::int64_t>(N), exec);
  const auto starts = A.row_starts();
  const auto cols = A.column_indices();
  const auto vals = A.values();
  const int n = static_cast<int>(rows);
  Kokkos::parallel_scan(
      "SpMVKit::poisson_2d::row_starts", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int row, int& partial, bool final) {
        const int i = row % N, j = row / N;
        if (final) starts(row) = partial;
        partial += 1 + (i > 0) + (i < N - 1) + (j > 0) + (j < N - 1);
        if (final && row == n - 1) starts(n) = partial;
      });
  const double inv_h2 = (N + 1.0) * (N + 1.0);
  Kokkos::parallel_for(
      "SpMVKit::poisson_2d::fill", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int row) {
        const int i = row % N, j = row / N;
        int k = starts(row);
        auto put = [&](int col, double v) {
          cols(k) = col;
          vals(k) = v;
          ++k;
        };
        if (j > 0) put(row - N, -inv_h2);
        if (i > 0) put(row - 1, -inv_h2);
        put(row, 4 * inv_h2);
        if (i < N - 1) put(row + 1, -inv_h2);
        if (j < N - 1) put(row + N, -inv_h2);
      });
  return A;
}

struct Result {
  int iterations = 0;
  double error = 0;
  bool converged = false;
};

template <class Matrix>
Result solve(Exec const& exec, Matrix const& A, int N, double tol) {
  const int n = N * N;
  const double h = 1.0 / (N + 1);
  Vec b("SpMVKit::poisson_2d::b", n), x("SpMVKit::poisson_2d::x", n);
  Kokkos::parallel_for(
      "SpMVKit::poisson_2d::rhs", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int row) {
        const double px = (row % N + 1) * h, py = (row / N + 1) * h;
        b(row) = -(g2(px) * g(py) + g(px) * g2(py));
      });
  spmvkit::CgOptions opts;
  opts.relative_tolerance = tol;
  opts.max_iterations = 100000;
  const auto r = spmvkit::cg(exec, A, b, x, opts);
  Result res;
  res.iterations = r.iterations;
  res.converged = r.converged();
  Kokkos::parallel_reduce(
      "SpMVKit::poisson_2d::max_error", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int row, double& m) {
        const double px = (row % N + 1) * h, py = (row / N + 1) * h;
        const double e = ex::kmath::fabs(x(row) - g(px) * g(py));
        m = e > m ? e : m;
      },
      Kokkos::Max<double>(res.error));
  return res;
}

int example(ex::Args const& args) {
  const Exec exec;
  const int N = static_cast<int>(args.integer("N"));
  if (N < 4) throw std::invalid_argument("--N must be >= 4");
  const int C = ex::chunk_size_option<Exec>(args);
  const std::int64_t sigma = args.integer("sigma");
  const double tol = args.real("tol");

  ex::Checks checks;
  Result coarse[2], fine[2];
  for (int level = 0; level < 2; ++level) {
    const int n = level == 0 ? N : 2 * N + 1;
    const auto A = five_point(exec, n);
    const auto S = spmvkit::make_sell(exec, A, C, sigma);
    Result* out = level == 0 ? coarse : fine;
    out[0] = solve(exec, A, n, tol);
    out[1] = solve(exec, S, n, tol);
    for (int f = 0; f < 2; ++f) {
      std::cout << (f == 0 ? "crs " : "sell-" + std::to_string(C) + "-" + std::to_string(sigma))
                << "  N = " << n << ": " << out[f].iterations << " CG iterations, max error "
                << ex::sci(out[f].error) << "\n";
      checks.expect(out[f].converged, "CG did not converge");
    }
    checks.expect(std::fabs(out[0].error - out[1].error) <= 1e-6 * out[0].error,
                  "CRS and SELL errors differ");
  }
  const double order = std::log2(coarse[0].error / fine[0].error);
  std::cout << "observed order " << ex::fixed(order, 3) << " (expected 2)\n";
  checks.expect(order > 1.9 && order < 2.1, "not second order");
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  return ex::run_example(
      argc, argv, "poisson_2d", "5-point Poisson solved by CG, second-order check",
      {{"N", "64"}, {"C", "auto"}, {"sigma", "1"}, {"tol", "1e-12"}}, {}, example);
}
