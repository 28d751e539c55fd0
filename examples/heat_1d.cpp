// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Explicit Euler for the 1D heat equation u_t = u_xx on (0, 1), u = 0 at both
// ends (the TUM CSR/ELLPACK tutorial's exercise):
//
//   y = A x,  x <- x + (Δt/Δx²) y,  until ‖y‖ < eps ‖A x0‖
//
// with A = tridiag(1, -2, 1) and Δt = Δx²/2, the stability limit. The SpMV runs
// in every selected format of spmvkit::all_formats (the automatic choice,
// explained, unless --formats names others);
// the vector work is KokkosBlas nrm2 and axpby.
//
// The start sin(πx) is an eigenvector of A, so the discrete solution is known
// exactly: x_k = cos(πΔx)^k sin(πx_i). The program checks every run against it
// (to rounding) and against the PDE's exp(-π²t) sin(πx), whose relative
// distance is π⁴Δx²t/6 to leading order (up to a relative O((πΔx)²)), and
// exits 1 if either is off. The
// number of steps is about ln(1/eps) / (π²Δx²/2); --max-steps bounds it.
#include "example_cli.hpp"
#include "example_formats.hpp"
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/format_list.hpp>
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

struct Config {
  int n = 50;
  double eps = 1e-3;
  std::int64_t max_steps = 10000000;
  std::string formats = "auto"; // the automatic choice unless told (select/)
};

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
  bool reached = false; ///< ‖A x‖ < eps ‖A x0‖ within max_steps
  Vec x;
};

template <class Matrix, class Options>
Run explicit_euler(Exec const& exec, Matrix const& A, Options const& options, double dx, double eps,
                   std::int64_t max_steps) {
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
    spmvkit::spmv(exec, 1.0, A, x, 0.0, y, options);
    const double norm = KokkosBlas::nrm2(y);
    if (first < 0) first = norm;
    run.reached = norm < eps * first;
    if (run.reached || run.steps >= max_steps) break;
    KokkosBlas::axpby(r, y, 1.0, x);
  }
  return run;
}

int example(Config const& cfg) {
  const Exec exec;
  const int n = cfg.n;
  const double dx = 1.0 / (n + 1), dt = dx * dx / 2;
  const auto A = second_difference(exec, n);
  std::cout << "heat_1d: n = " << n << ", dx = " << dx << ", dt = " << dt << ", stop at ‖Ax‖ < "
            << cfg.eps << " ‖Ax0‖, " << Exec::name() << " (" << exec.concurrency() << " threads)\n";

  ex::Checks checks;
  Run reference;
  std::string reference_name;
  ex::for_each_selected_format<Exec>(
      ex::select_formats<Exec>(cfg.formats, false),
      [&](auto tag, auto const& o, std::string const& format) {
        using F = typename decltype(tag)::type;
        if (!ex::can_hold<F>(exec, A, o, format)) return;
        const auto M = F::from_crs(exec, A, o);
        const std::string name = ex::shown_name<F>(format, M);
        ex::explain_choice<F>(format, M);
        Kokkos::Timer timer;
        const Run run = explicit_euler(exec, M, o, dx, cfg.eps, cfg.max_steps);
        const double seconds = timer.seconds();
        if (!run.reached) {
          checks.expect(false, name + ": ‖Ax‖ did not fall below " + ex::sci(cfg.eps, 2) +
                                   " ‖Ax0‖ in --max-steps " + std::to_string(cfg.max_steps) +
                                   " steps");
          return;
        }
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
                  << ex::fixed(seconds, 3) << " s; max relative deviation from cos(πΔx)^k sin(πx): "
                  << ex::sci(to_discrete, 2)
                  << ", from exp(-π²t) sin(πx): " << ex::sci(to_continuous, 3) << " (predicted "
                  << ex::sci(predicted, 3) << ")\n";
        checks.expect(to_discrete < 1e-9, name + " differs from the exact discrete solution");
        // predicted is the leading term; the next one is smaller by O((πΔx)²).
        const double allowed = (0.02 + 2 * (pi * dx) * (pi * dx)) * predicted + 1e-9;
        checks.expect(std::fabs(to_continuous - predicted) <= allowed,
                      name + " is not second-order close to the PDE solution");
        if (reference_name.empty()) {
          reference = run;
          reference_name = name;
        } else {
          checks.expect(run.steps == reference.steps &&
                            ex::relative_difference(run.x, reference.x) < 1e-12,
                        name + " disagrees with " + reference_name);
        }
      });
  if (reference_name.empty() && checks.failures() == 0) {
    throw std::runtime_error("none of the selected formats (--formats " + cfg.formats +
                             ") can hold the matrix");
  }
  return checks.exit_code();
}

} // namespace

int main(int argc, char* argv[]) {
  Config cfg;
  const std::vector<ex::Option> options{
      ex::integer_option("n", "interior grid points", cfg.n, 2, 100000000),
      ex::real_option("eps", "stop once ‖A x‖ < eps ‖A x0‖", cfg.eps, {0, false, 1, false}),
      ex::integer_option("max-steps", "give up (exit 1) after this many time steps", cfg.max_steps,
                         1, 1000000000000),
      ex::formats_option<Exec>(cfg.formats, false),
  };
  return ex::run_example(
      argc, argv,
      {"heat_1d", "Explicit Euler for the 1D heat equation u_t = u_xx on (0, 1), u = 0 at both "
                  "ends, from u = sin(πx), with the SpMV in every selected format. Each run is "
                  "checked against the exact discrete solution cos(πΔx)^k sin(πx) and against "
                  "the PDE's exp(-π²t) sin(πx), second order in Δx; exit status 1 if either is "
                  "off."},
      options, [&] { return example(cfg); });
}
