// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmvkit_perf_mpi: the distributed module's benchmark (run under mpirun, one
// rank per GPU on GPU builds; docs/distributed.md has the commands).
//
//   --scaling strong   the FEM problem with --N intervals on every run
//   --scaling weak     --N intervals per rank's share: N_global - 1 = round((N - 1) p^(1/3)),
//                      so each rank holds about (N - 1)^3 rows
//
// For the problem it reports, with times the slowest rank's, medians of
// --repetitions batches of --batch calls (after one warm-up batch):
//   cg          time per CG iteration (standard and pipelined), iterations fixed
//   diag        the diagonal-block SpMV alone
//   exchange    the halo exchange alone (pack, messages, unpack): bytes, rate
//   diag+halo   halo begin, diagonal-block SpMV, halo end: what the overlap hides
//   sequential  exchange, then diagonal and off-process SpMVs, no overlap
//   apply       the operator's apply (overlapped exchange and both blocks)
//   *_collective exchange, diag+halo and apply with one MPI_Ineighbor_alltoallv
//               (HaloOptions::method) instead of point-to-point messages
//   *_shared    diag+halo, apply and CG with the exchange on the caller's execution
//               space instance (HaloOptions::own_instance = false), where the default
//               exchange has an instance of its own (device vectors, Kokkos 4)
// and per rank its rows, ghosts, neighbours and bytes sent. --csv FILE appends
// one line per measurement for scripts.
#include <spmvkit/distributed/distributed.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/solvers/cg.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;

struct Options {
  std::int64_t N = 64;
  std::string scaling = "strong";
  std::string format = "sell";
  int repetitions = 5;
  int batch = 20;
  int cg_iterations = 100;
  std::string csv;
};

[[noreturn]] void usage(std::string const& why) {
  throw std::invalid_argument(
      why + "\nusage: spmvkit_perf_mpi [--N INT] [--scaling strong|weak] [--format "
            "crs|sell|sell_offset16|ell|ellr|csrk|coo|hyb] [--repetitions INT] [--batch INT] "
            "[--cg-iterations INT] [--csv FILE]");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--kokkos", 0) == 0) continue;
    if (i + 1 >= argc) usage(a + " needs a value");
    const std::string v = argv[++i];
    auto integer = [&](long lo, long hi) {
      char* end = nullptr;
      const long x = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || x < lo || x > hi) {
        usage(a + ": '" + v + "' is not an integer in [" + std::to_string(lo) + ", " +
              std::to_string(hi) + "]");
      }
      return x;
    };
    if (a == "--N") {
      o.N = integer(3, 4000);
    } else if (a == "--scaling") {
      if (v != "strong" && v != "weak") usage("--scaling: strong or weak");
      o.scaling = v;
    } else if (a == "--format") {
      o.format = v;
    } else if (a == "--repetitions") {
      o.repetitions = static_cast<int>(integer(1, 1000));
    } else if (a == "--batch") {
      o.batch = static_cast<int>(integer(1, 100000));
    } else if (a == "--cg-iterations") {
      o.cg_iterations = static_cast<int>(integer(1, 100000));
    } else if (a == "--csv") {
      o.csv = v;
    } else {
      usage("unknown option " + a);
    }
  }
  return o;
}

template <class V>
struct CountDifferent {
  V a, b;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double& d) const {
    d += a(i) != b(i) ? 1.0 : 0.0;
  }
};

/// Throws unless A1 and A2 give the same product with x on every rank, bit for
/// bit (the same blocks and sums; only the exchange differs).
template <class Op, class Vec>
void require_same_product(MPI_Comm comm, Exec const& exec, Op const& A1, Op const& A2, Vec const& x,
                          std::string const& what) {
  Vec y1("y1", A1.num_rows()), y2("y2", A2.num_rows());
  A1.apply(exec, x, y1);
  A2.apply(exec, x, y2);
  double differ = 0;
  Kokkos::parallel_reduce("SpMVKit::bench::compare",
                          Kokkos::RangePolicy<Exec>(exec, 0, y1.extent(0)),
                          CountDifferent<Vec>{y1, y2}, differ);
  MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (differ != 0) {
    throw std::runtime_error(what + " give different products in " +
                             std::to_string(static_cast<long long>(differ)) + " rows");
  }
}

/// Median over repetitions of the slowest rank's time per call of f.
double time_per_call(MPI_Comm comm, Exec const& exec, Options const& o,
                     std::function<void()> const& f) {
  std::vector<double> t;
  for (int rep = -1; rep < o.repetitions; ++rep) { // rep -1: warm-up
    exec.fence();
    MPI_Barrier(comm);
    Kokkos::Timer timer;
    for (int k = 0; k < o.batch; ++k) f();
    exec.fence();
    double s = timer.seconds() / o.batch;
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (rep >= 0) t.push_back(s);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
void run(Options const& o) {
  MPI_Comm comm = MPI_COMM_WORLD;
  Exec exec;
  const int rank = spmvkit::detail::mpi_rank(comm), p = spmvkit::detail::mpi_size(comm);
  const std::int64_t N =
      o.scaling == "strong"
          ? o.N
          : 1 + static_cast<std::int64_t>(
                    std::llround(static_cast<double>(o.N - 1) * std::cbrt(static_cast<double>(p))));
  auto part = spmvkit::fem_poisson_partition(comm, exec, N);
  auto A = spmvkit::make_distributed_fem_poisson<F, double, spmvkit::CrsFormat>(part, exec, N);
  using Vec = typename decltype(A)::vector_type;
  auto x = spmvkit::distributed_fem_poisson_rough_guess<double>(exec, part, N);
  Vec y("y", part.local_rows());
  auto const& halo = A.halo();

  std::vector<std::pair<std::string, double>> results;
  auto measure = [&](std::string const& what, std::function<void()> const& f) {
    results.emplace_back(what, time_per_call(comm, exec, o, f));
  };
  measure("diag", [&] { A.apply_diagonal_block(exec, x, y); });
  measure("exchange", [&] {
    halo.begin(exec, x);
    halo.end(exec);
  });
  measure("diag+halo", [&] {
    halo.begin(exec, x);
    A.apply_diagonal_block(exec, x, y);
    halo.end(exec);
  });
  measure("sequential", [&] {
    halo.begin(exec, x);
    halo.end(exec);
    A.apply_diagonal_block(exec, x, y);
    A.apply_off_process_block(exec, y);
  });
  measure("apply", [&] { A.apply(exec, x, y); });
  // One all-reduce of two sums in device memory, as standard CG does twice an
  // iteration (sums 1 on every rank grow by p a call: no overflow in a run).
  {
    Kokkos::View<double*, typename Exec::memory_space> sums("SpMVKit::bench::sums", 2);
    Kokkos::deep_copy(sums, 1.0);
    auto reduction = A.reduction();
    measure("all_reduce", [&] { reduction.all_reduce(exec, sums.data(), 2); });
  }
  // The same exchange on the caller's instance (HaloOptions::own_instance =
  // false): what the separate instance gains, side by side in this run.
  spmvkit::HaloOptions shared_instance;
  shared_instance.own_instance = false;
  auto A_shared = spmvkit::make_distributed_fem_poisson<F, double, spmvkit::CrsFormat>(
      part, exec, N, {}, {}, shared_instance);
  if (halo.own_instance()) {
    auto const& halo_shared = A_shared.halo();
    measure("diag+halo_shared", [&] {
      halo_shared.begin(exec, x);
      A_shared.apply_diagonal_block(exec, x, y);
      halo_shared.end(exec);
    });
    measure("apply_shared", [&] { A_shared.apply(exec, x, y); });
    // Before trusting the times: both exchanges give the same product (the
    // same blocks and sums, so bit for bit).
    require_same_product(comm, exec, A, A_shared, x,
                         "the exchange on its own instance and on the caller's");
  }

  // The neighbourhood collective (one MPI_Ineighbor_alltoallv) instead of
  // point-to-point messages, side by side; checked against the default first.
  spmvkit::HaloOptions collective;
  collective.method = spmvkit::HaloMethod::neighbor_alltoallv;
  auto A_collective = spmvkit::make_distributed_fem_poisson<F, double, spmvkit::CrsFormat>(
      part, exec, N, {}, {}, collective);
  {
    require_same_product(comm, exec, A, A_collective, x,
                         "point-to-point and neighbourhood-collective exchanges");
    auto const& halo_collective = A_collective.halo();
    measure("exchange_collective", [&] {
      halo_collective.begin(exec, x);
      halo_collective.end(exec);
    });
    measure("diag+halo_collective", [&] {
      halo_collective.begin(exec, x);
      A_collective.apply_diagonal_block(exec, x, y);
      halo_collective.end(exec);
    });
    measure("apply_collective", [&] { A_collective.apply(exec, x, y); });
  }

  // CG: a fixed number of iterations (tolerance 0), rough start as fem_cg.
  auto b = spmvkit::distributed_fem_poisson_rhs<double>(exec, part, N);
  auto run_cg = [&](auto const& op, spmvkit::CgVariant variant, std::string const& label) {
    std::vector<double> t;
    for (int rep = 0; rep < std::max(1, o.repetitions / 2); ++rep) {
      auto x0 = spmvkit::distributed_fem_poisson_rough_guess<double>(exec, part, N);
      spmvkit::CgOptions opts;
      opts.relative_tolerance = 0;
      opts.max_iterations = o.cg_iterations;
      opts.use_initial_guess = true;
      opts.variant = variant;
      MPI_Barrier(comm);
      const auto r = spmvkit::cg(exec, op, b, x0, opts);
      double s = r.seconds_per_iteration;
      MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, comm);
      t.push_back(s);
    }
    std::sort(t.begin(), t.end());
    results.emplace_back(label + spmvkit::name(variant), t[t.size() / 2]);
  };
  for (auto variant : {spmvkit::CgVariant::standard, spmvkit::CgVariant::pipelined}) {
    run_cg(A, variant, "cg_");
    if (halo.own_instance()) run_cg(A_shared, variant, "cg_shared_");
  }

  // Per-rank sizes and bytes, gathered for rank 0.
  double mine[5] = {static_cast<double>(part.local_rows()), static_cast<double>(A.num_ghosts()),
                    static_cast<double>(halo.receives().size()),
                    static_cast<double>(halo.sent_entries()) * sizeof(double), halo.bytes()};
  std::vector<double> all(5 * static_cast<std::size_t>(p));
  MPI_Gather(mine, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, comm);
  double max_bytes = halo.bytes();
  MPI_Allreduce(MPI_IN_PLACE, &max_bytes, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (rank != 0) return;
  const spmvkit::FemPoisson problem(N);
  std::printf("# spmvkit_perf_mpi: FEM N = %lld (%lld rows, %s scaling), %d rank(s), %s, "
              "diagonal block %s, halo %s%s\n",
              static_cast<long long>(N), static_cast<long long>(problem.num_rows),
              o.scaling.c_str(), p, Exec::name(), F::family,
              halo.staged()      ? "staged (host buffers)"
              : halo.gpu_aware() ? "GPU-aware"
                                 : "host",
              halo.own_instance() ? " on its own instance (*_shared: on the caller's)" : "");
  std::printf("%5s %12s %10s %6s %14s %14s\n", "rank", "rows", "ghosts", "from", "bytes sent",
              "bytes sent+recv");
  for (int r = 0; r < p; ++r) {
    double const* v = all.data() + 5 * r;
    std::printf("%5d %12.0f %10.0f %6.0f %14.0f %14.0f\n", r, v[0], v[1], v[2], v[3], v[4]);
  }
  double diag = 0, exchange = 0;
  for (auto const& [what, t] : results) {
    if (what == "diag") diag = t;
    if (what == "exchange") exchange = t;
  }
  for (auto const& [what, t] : results) {
    std::printf("%-22s %12.3f us", what.c_str(), 1e6 * t);
    if (what.rfind("diag+halo", 0) == 0 && diag > 0) std::printf("   %.3f x diag alone", t / diag);
    if (what.rfind("exchange", 0) == 0 && t > 0) {
      std::printf("   %.3f GB/s (largest rank's %.0f bytes sent+received)", max_bytes / t * 1e-9,
                  max_bytes);
    }
    std::printf("\n");
  }
  (void)exchange;
  if (!o.csv.empty()) {
    std::ofstream csv(o.csv, std::ios::app);
    for (auto const& [what, t] : results) {
      csv << Exec::name() << "," << p << "," << o.scaling << "," << N << "," << problem.num_rows
          << "," << F::family << "," << what << "," << t << "," << max_bytes << "\n";
    }
  }
}

} // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int status = 0;
  Options o;
  try {
    o = parse(argc, argv);
  } catch (std::exception const& e) {
    std::cerr << "spmvkit_perf_mpi: " << e.what() << "\n";
    MPI_Finalize();
    return 2;
  }
  spmvkit::initialize_kokkos_for_rank(MPI_COMM_WORLD);
  try {
    bool ran = false;
    spmvkit::for_each_type(spmvkit::format_list{}, [&](auto tag) {
      using F = typename decltype(tag)::type;
      if (!ran && o.format == F::family) {
        ran = true;
        run<F>(o);
      }
    });
    if (!ran) throw std::invalid_argument("--format " + o.format + ": no such format");
  } catch (std::exception const& e) {
    std::cerr << "spmvkit_perf_mpi: " << e.what() << "\n";
    status = 2;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
