// Explicit Euler for the 1D heat equation u_t = u_xx on (0, 1), u = 0 at both
// ends (the TUM CSR/ELLPACK tutorial's exercise):
//
//   y = A x,  x <- x + (Δt/Δx²) y,  until ‖y‖ < eps ‖A x0‖
//
// with A = tridiag(1, -2, 1) and Δt = Δx²/2, the stability limit. The SpMV runs
// in SELL-C and in ELLPACK (SELL with a single chunk of all rows); the vector
// work is KokkosBlas nrm2 and axpby.
//
//   heat_1d [--n 50] [--eps 1e-3] [--C auto]
//
// The start sin(πx) is an eigenvector of A, so the discrete solution is known
// exactly: x_k = cos(πΔx)^k sin(πx_i). The program checks both runs against it
// (to rounding) and against the PDE's exp(-π²t) sin(πx), whose relative
// distance is π⁴Δx²t/6 to leading order, and exits non-zero if either is off.
#include "example_main.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
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

/// tridiag(1, -2, 1), built on the device: row i starts at 3i - 1 (row 0 has
/// no left neighbour).
Crs second_difference(Exec const& exec, int n) {
  Crs A("heat_1d", n, n, 3 * static_cast<std::int64_t>(n) - 2, exec);
  const auto starts = A.row_starts();
  const auto cols = A.column_indices();
  const auto vals = A.values();
  Kokkos::parallel_for(
      "SpMVKit::heat_1d::assemble", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int i) {
        int k = i == 0 ? 0 : 3 * i - 1;
        starts(i) = k;
        if (i == n - 1) starts(n) = 3 * n - 2;
        for (int j = i - 1; j <= i + 1; ++j) {
          if (j < 0 || j >= n) continue;
          cols(k) = j;
          vals(k) = j == i ? -2.0 : 1.0;
          ++k;
        }
      });
  return A;
}

struct Run {
  std::int64_t steps = 0;
  Vec x;
};

template <class Matrix>
Run explicit_euler(Exec const& exec, Matrix const& A, double dx, double eps) {
  const int n = A.num_rows();
  Run run;
  run.x = Vec("SpMVKit::heat_1d::x", static_cast<std::size_t>(n));
  Vec y("SpMVKit::heat_1d::y", static_cast<std::size_t>(n));
  const auto x = run.x;
  Kokkos::parallel_for(
      "SpMVKit::heat_1d::initial", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(int i) { x(i) = ex::kmath::sin(pi * (i + 1) * dx); });
  const double r = 0.5; // c Δt / Δx²
  double first = -1;
  for (;; ++run.steps) {
    spmvkit::spmv(exec, 1.0, A, x, 0.0, y);
    const double norm = KokkosBlas::nrm2(y);
    if (first < 0) first = norm;
    if (norm < eps * first || run.steps > 100000000) break;
    KokkosBlas::axpby(r, y, 1.0, x);
  }
  return run;
}

int example(ex::Args const& args) {
  const Exec exec;
  const int n = static_cast<int>(args.integer("n"));
  if (n < 2) throw std::invalid_argument("--n must be >= 2");
  const double eps = args.real("eps");
  const double dx = 1.0 / (n + 1), dt = dx * dx / 2;
  const int C = ex::chunk_size_option<Exec>(args);
  // ELLPACK is SELL with one chunk; GPU teams stop at 1024 threads.
  const int C_ell = std::min(n, 1024);

  const auto A = second_difference(exec, n);
  const auto sell = spmvkit::make_sell(exec, A, C);
  const auto ell = spmvkit::make_sell(exec, A, C_ell);
  std::cout << "heat_1d: n = " << n << ", dx = " << dx << ", dt = " << dt << ", stop at ‖Ax‖ < "
            << eps << " ‖Ax0‖, " << Exec::name() << "\n";

  ex::Checks checks;
  Run reference;
  for (auto const& [name, matrix] : {std::pair{"sell-" + std::to_string(C), &sell},
                                     std::pair{"ell (C = " + std::to_string(C_ell) + ")", &ell}}) {
    Kokkos::Timer timer;
    const Run run = explicit_euler(exec, *matrix, dx, eps);
    const double seconds = timer.seconds();
    const double t = run.steps * dt;
    // Discrete and continuous amplitudes of the sine mode at time t.
    const double discrete = std::pow(std::cos(pi * dx), static_cast<double>(run.steps));
    const double continuous = std::exp(-pi * pi * t);
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), run.x);
    double to_discrete = 0, to_continuous = 0;
    for (int i = 0; i < n; ++i) {
      const double s = std::sin(pi * (i + 1) * dx);
      to_discrete = std::max(to_discrete, std::fabs(xh(i) - discrete * s) / discrete);
      to_continuous = std::max(to_continuous, std::fabs(xh(i) - continuous * s) / continuous);
    }
    const double predicted = std::expm1(pi * pi * pi * pi * dx * dx * t / 6);
    std::cout << name << ": " << run.steps << " steps (t = " << t << ") in "
              << ex::fixed(seconds, 3)
              << " s; max relative deviation from cos(πΔx)^k sin(πx): " << ex::sci(to_discrete, 2)
              << ", from exp(-π²t) sin(πx): " << ex::sci(to_continuous, 3) << " (predicted "
              << ex::sci(predicted, 3) << ")\n";
    checks.expect(to_discrete < 1e-9, name + " differs from the exact discrete solution");
    checks.expect(std::fabs(to_continuous - predicted) <= 0.05 * predicted + 1e-9,
                  name + " is not second-order close to the PDE solution");
    if (reference.steps == 0) {
      reference = run;
    } else {
      checks.expect(run.steps == reference.steps &&
                        ex::relative_difference(run.x, reference.x) < 1e-12,
                    name + " disagrees with the first format");
    }
  }
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  return ex::run_example(argc, argv, "heat_1d", "explicit Euler for u_t = u_xx with SELL and ELL",
                         {{"n", "50"}, {"eps", "1e-3"}, {"C", "auto"}}, {}, example);
}
