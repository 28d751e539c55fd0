// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The install test's consumer of SpMVKit::mpi: the distributed FEM problem
// solved by CG on the ranks it is run on; exits 0 when it converged to the
// closed-form discretisation error.
#include <spmvkit/distributed/distributed.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/solvers/cg.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cmath>
#include <iostream>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int status = 1;
  spmvkit::initialize_kokkos_for_rank(MPI_COMM_WORLD);
  {
    using Exec = Kokkos::DefaultExecutionSpace;
    Exec exec;
    const std::int64_t N = 12;
    auto part = spmvkit::fem_poisson_partition(MPI_COMM_WORLD, exec, N);
    auto A = spmvkit::make_distributed_fem_poisson<spmvkit::CrsFormat, double>(part, exec, N);
    auto b = spmvkit::distributed_fem_poisson_rhs<double>(exec, part, N);
    auto x = spmvkit::distributed_fem_poisson_rough_guess<double>(exec, part, N);
    spmvkit::CgOptions opts;
    opts.relative_tolerance = 1e-10;
    opts.use_initial_guess = true;
    const auto r = spmvkit::cg(exec, A, b, x, opts);
    const double error = spmvkit::distributed_fem_poisson_l2_error(exec, part, N, x);
    const double predicted = spmvkit::FemPoisson(N).predicted_l2_error();
    const bool ok = r.converged() && std::abs(error - predicted) <= 1e-3 * predicted;
    if (part.rank() == 0) {
      std::cout << "downstream (SpMVKit::mpi): " << r.iterations << " CG iterations on "
                << part.size() << " rank(s), L2 error " << error << " (expected " << predicted
                << "): " << (ok ? "ok" : "WRONG") << "\n";
    }
    status = ok ? 0 : 1;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
