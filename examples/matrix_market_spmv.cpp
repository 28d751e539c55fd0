// SpMV of one matrix in every format, checked against Kokkos Kernels:
//
//   matrix_market_spmv [matrix.mtx[.gz]] [--sell 4:1,8:1,32:1,32:256] [--repetitions 21]
//
// Without a file it uses the FEM Poisson matrix (N = 24). Prints per format the
// padding ratio (stored / nonzero entries), the median time of one SpMV, the
// bandwidth under the byte model of example_utils.hpp and GFlop/s (2 flops per
// nonzero). Every result must match Kokkos Kernels' native SpMV row by row
// within rounding; the program exits non-zero otherwise.
#include "example_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>

namespace {

namespace ex = spmvkit::examples;
using Exec = Kokkos::DefaultExecutionSpace;
using Crs = spmvkit::CrsMatrix<double, Exec>;
using Vec = Kokkos::View<double*, Crs::device_type>;

} // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    const ex::Args args(argc, argv, {{"sell", "4:1,8:1,32:1,32:256"}, {"repetitions", "21"}});
    if (args.help() || args.positional().size() > 1) {
      std::cout << "matrix_market_spmv [matrix.mtx[.gz]]: SpMV in every format" << args.usage()
                << "\n";
      return args.help() ? 0 : 2;
    }
    const Exec exec;
    const std::string path = args.positional().empty() ? "" : args.positional()[0];
    const Crs A = path.empty() ? spmvkit::make_fem_poisson_crs<double>(exec, 24)
                               : spmvkit::read_matrix_market<double, Exec>(path, exec);
    const int reps = static_cast<int>(args.integer("repetitions"));
    std::cout << (path.empty() ? "FEM Poisson N = 24" : path) << ": " << A.num_rows() << " x "
              << A.num_cols() << ", " << A.nnz() << " nonzeros, " << Exec::name() << " ("
              << exec.concurrency() << " threads)\n";

    Vec x("SpMVKit::matrix_market_spmv::x", static_cast<std::size_t>(A.num_cols()));
    Vec y("SpMVKit::matrix_market_spmv::y", static_cast<std::size_t>(A.num_rows()));
    Vec y_ref("SpMVKit::matrix_market_spmv::y_ref", static_cast<std::size_t>(A.num_rows()));
    Vec y_abs("SpMVKit::matrix_market_spmv::y_abs", static_cast<std::size_t>(A.num_rows()));
    {
      auto h = Kokkos::create_mirror_view(x);
      std::mt19937_64 gen(42);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = u(gen);
      Kokkos::deep_copy(x, h);
    }

    // Reference: Kokkos Kernels native. Tolerance per row: |A||x| scales the
    // rounding error of the row's sum, whatever the summation order.
    const auto K = spmvkit::to_kokkos_kernels(A);
    using KSpmv = spmvkit::KokkosKernelsSpmv<std::decay_t<decltype(K)>, Vec, Vec>;
    KSpmv(spmvkit::KokkosKernelsAlgorithm::native).apply(exec, 1.0, K, x, 0.0, y_ref);
    {
      Crs absA("abs", A.num_rows(), A.num_cols(), A.nnz(), exec);
      Kokkos::deep_copy(exec, absA.row_starts(), A.row_starts());
      Kokkos::deep_copy(exec, absA.column_indices(), A.column_indices());
      Vec absx("SpMVKit::matrix_market_spmv::abs_x", x.extent(0));
      const auto av = absA.values(), v = A.values();
      Kokkos::parallel_for(
          "SpMVKit::matrix_market_spmv::abs", Kokkos::RangePolicy<Exec>(exec, 0, A.nnz()),
          KOKKOS_LAMBDA(int k) { av(k) = ex::kmath::fabs(v(k)); });
      Kokkos::parallel_for(
          "SpMVKit::matrix_market_spmv::abs_x", Kokkos::RangePolicy<Exec>(exec, 0, A.num_cols()),
          KOKKOS_LAMBDA(int i) { absx(i) = ex::kmath::fabs(x(i)); });
      spmvkit::spmv(exec, 1.0, absA, absx, 0.0, y_abs);
    }
    auto check = [&](Vec const& result) {
      auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result);
      auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_ref);
      auto mag = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_abs);
      std::int64_t bad = 0;
      for (std::size_t i = 0; i < r.extent(0); ++i)
        if (!(std::fabs(r(i) - ref(i)) <= 1e-12 * mag(i) + 1e-300)) ++bad;
      return bad;
    };

    ex::Table table({"format", "padding", "time [us]", "GB/s", "GFlop/s", "check"});
    int failures = 0;
    // is_reference: the kernel that computed y_ref, so checking it proves nothing.
    auto measure = [&](std::string const& name, double padding, double bytes, auto&& op,
                       bool is_reference = false) {
      Kokkos::deep_copy(y, -1.0);
      const double t = ex::median_seconds(exec, op, reps);
      const auto bad = is_reference ? 0 : check(y);
      failures += bad > 0;
      table.add({name, ex::fixed(padding, 3), ex::fixed(1e6 * t, 1), ex::fixed(bytes / t / 1e9, 2),
                 ex::fixed(2.0 * A.nnz() / t / 1e9, 2),
                 is_reference ? "reference"
                 : bad == 0   ? "ok"
                              : std::to_string(bad) + " rows wrong"});
    };

    measure("crs-thread", 1.0, ex::spmv_bytes(A),
            [&] { spmvkit::spmv(exec, 1.0, A, x, 0.0, y, spmvkit::CrsKernel::row_per_thread); });
    measure("crs-vector", 1.0, ex::spmv_bytes(A),
            [&] { spmvkit::spmv(exec, 1.0, A, x, 0.0, y, spmvkit::CrsKernel::vector); });
    for (auto const& spec : args.list("sell")) {
      const auto colon = spec.find(':');
      const int C = std::stoi(spec.substr(0, colon));
      const std::int64_t sigma =
          colon == std::string::npos ? 1 : std::stoll(spec.substr(colon + 1));
      const auto S = spmvkit::make_sell(exec, A, C, sigma);
      measure("sell-" + std::to_string(C) + "-" + std::to_string(sigma), S.padding_ratio(),
              ex::spmv_bytes(S), [&] { spmvkit::spmv(exec, 1.0, S, x, 0.0, y); });
    }
    for (auto algorithm : {spmvkit::KokkosKernelsAlgorithm::native,
                           spmvkit::KokkosKernelsAlgorithm::vendor_default}) {
      KSpmv kk(algorithm);
      measure(
          spmvkit::name(algorithm), 1.0, ex::spmv_bytes(A),
          [&] { kk.apply(exec, 1.0, K, x, 0.0, y); },
          algorithm == spmvkit::KokkosKernelsAlgorithm::native);
    }
    table.print(std::cout);
    if (failures > 0)
      std::cerr << "FAILED: " << failures << " formats disagree with Kokkos Kernels\n";
    return failures == 0 ? 0 : 1;
  } catch (std::exception const& e) {
    std::cerr << "matrix_market_spmv: " << e.what() << "\n";
    return 2;
  }
}
