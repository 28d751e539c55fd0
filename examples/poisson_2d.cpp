// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The 5-point finite-difference Poisson problem on an N x N grid of interior
// points (the Numba ELLPACK-R notebook's test matrix), solved by spmvkit::cg:
//
//   -Δu = f on (0, 1)², u = 0 on the boundary, h = 1/(N + 1),
//   (4 u_ij - u_i±1,j - u_i,j±1) / h² = f_ij.
//
// The manufactured solution u = e^(x+y) sin(πx) sin(πy) is not an eigenvector
// of the matrix, so CG does real work. The program solves on N and on 2N + 1
// (h halves), in every selected format of spmvkit::all_formats (the automatic
// choice, explained, unless --formats names others), and exits 1 unless the max-norm error drops
// by a factor close to 4 (second order) and all formats agree.
// `poisson_2d --help` lists the options.
#include "example_cli.hpp"
#include "example_formats.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;
using Vec = Kokkos::View<double*, Crs::device_type>;
constexpr double pi = 3.14159265358979323846;

struct Config {
  int N = 64;
  double tol = 1e-12;
  int max_iters = 100000;
  std::string formats = "auto"; // the automatic choice unless told (select/)
};

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
  std::string format;
  int iterations = 0;
  double error = 0;
  bool converged = false;
  std::string status;
};

template <class Operator>
Result solve(Exec const& exec, Operator const& A, int N, Config const& cfg) {
  const int n = N * N;
  const double h = 1.0 / (N + 1);
  Vec b("SpMVKit::poisson_2d::b", n), x("SpMVKit::poisson_2d::x", n);
  Kokkos::parallel_for(
      "SpMVKit::poisson_2d::rhs", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int row) {
        const double px = (row % N + 1) * h, py = (row / N + 1) * h;
        b(row) = -(g2(px) * g(py) + g(px) * g2(py));
      });
  spmvkit::CgOptions opts;
  opts.relative_tolerance = cfg.tol;
  opts.max_iterations = cfg.max_iters;
  const auto r = spmvkit::cg(exec, A, b, x, opts);
  Result res;
  res.iterations = r.iterations;
  res.converged = r.converged();
  res.status = spmvkit::name(r.status) + (r.message.empty() ? "" : " (" + r.message + ")");
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

int example(Config const& cfg) {
  const Exec exec;
  const auto selected = ex::select_formats<Exec>(cfg.formats, false);
  ex::Checks checks;
  std::vector<Result> levels[2];
  for (int level = 0; level < 2; ++level) {
    const int n = level == 0 ? cfg.N : 2 * cfg.N + 1;
    const auto A = five_point(exec, n);
    ex::for_each_selected_format<Exec>(
        selected, [&](auto tag, auto const& o, std::string const& name) {
          using F = typename decltype(tag)::type;
          if (!ex::can_hold<F>(exec, A, o, name)) return;
          const auto M = F::from_crs(exec, A, o);
          Result r = solve(exec, spmvkit::make_operator(M, o), n, cfg);
          r.format = ex::shown_name<F>(name, M);
          ex::explain_choice<F>(name, M);
          std::cout << r.format << "  N = " << n << ": " << r.iterations
                    << " CG iterations, max error " << ex::sci(r.error) << "\n";
          checks.expect(r.converged, r.format + " at N = " + std::to_string(n) +
                                         ": CG did not converge: " + r.status);
          levels[level].push_back(r);
        });
    if (levels[level].empty()) {
      throw std::runtime_error("none of the selected formats (--formats " + cfg.formats +
                               ") can hold the matrix of N = " + std::to_string(n));
    }
    for (auto const& r : levels[level]) {
      auto const& first = levels[level].front();
      checks.expect(std::fabs(r.error - first.error) <= 1e-6 * first.error,
                    r.format + " and " + first.format +
                        " errors differ at N = " + std::to_string(n));
    }
  }
  const double order = std::log2(levels[0].front().error / levels[1].front().error);
  std::cout << "observed order " << ex::fixed(order, 3) << " (expected 2)\n";
  checks.expect(order > 1.9 && order < 2.1, "not second order");
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::integer_option("N",
                         "interior grid points per direction of the coarse grid (the fine "
                         "one has 2N + 1)",
                         cfg.N, 4, 10000),
      ex::real_option("tol", "CG relative tolerance on the true residual", cfg.tol,
                      {0, false, 1, false}),
      ex::integer_option("max-iters", "CG iteration limit per solve", cfg.max_iters, 1,
                         std::numeric_limits<int>::max()),
      ex::formats_option<Exec>(cfg.formats, false),
  };
  return ex::run_example(
      argc, argv,
      {"poisson_2d",
       "The 5-point finite-difference Poisson problem -Δu = f on (0, 1)², u = 0 on the boundary, "
       "with the manufactured solution u = e^(x+y) sin(πx) sin(πy), solved by CG on an N x N and "
       "a (2N+1) x (2N+1) grid in every selected format. Exit status 1 unless the max-norm error "
       "drops by a factor close to 4 (second order) and all formats agree."},
      options, [&] { return example(cfg); });
}
