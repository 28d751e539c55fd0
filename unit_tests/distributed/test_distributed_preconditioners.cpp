// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Preconditioners over ranks (distributed/distributed_preconditioners.hpp, and
// Chebyshev on the distributed operator): CG, BiCGStab and GMRES with each of
// them against a single-process solve with the same preconditioner (the
// rank-local ones built from the block-diagonal part of the matrix), and a
// set-up that fails on a rank fails on every rank with the same error.
#include "mpi_test_utils.hpp"

#include <spmvkit/distributed/distributed_fem.hpp>
#include <spmvkit/distributed/distributed_preconditioners.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::test {
namespace {

template <class T>
class DistributedPreconditionerTest : public ::testing::Test {};
TYPED_TEST_SUITE(DistributedPreconditionerTest, AllConfigs, ConfigNames);

/// The first global row of every rank and the row count, on every rank.
std::vector<std::int64_t> rank_offsets(RowPartition const& part) {
  std::vector<std::int64_t> o(static_cast<std::size_t>(part.size()) + 1);
  for (int r = 0; r <= part.size(); ++r) {
    o[static_cast<std::size_t>(r)] = r < part.size() ? part.first_row(r) : part.global_rows();
  }
  return o;
}

/// Rows [lo, hi) of A1 with only the entries whose column the row's own rank
/// owns (offsets as rank_offsets), columns renumbered from lo.
template <class Crs>
Crs rank_block_rows(typename Crs::execution_space const& exec, Crs const& A1,
                    std::vector<std::int64_t> const& offsets, std::int64_t lo, std::int64_t hi) {
  using Scalar = typename Crs::value_type;
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A1.row_starts());
  auto cs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A1.column_indices());
  auto vs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A1.values());
  std::vector<std::int64_t> starts(1, 0), cols;
  std::vector<Scalar> vals;
  std::size_t owner = 0;
  for (std::int64_t i = lo; i < hi; ++i) {
    while (i >= offsets[owner + 1]) ++owner;
    for (auto k = rs(i); k < rs(i + 1); ++k) {
      if (cs(k) >= offsets[owner] && cs(k) < offsets[owner + 1]) {
        cols.push_back(cs(k) - lo);
        vals.push_back(vs(k));
      }
    }
    starts.push_back(static_cast<std::int64_t>(cols.size()));
  }
  Crs B("test::rank_blocks", hi - lo, hi - lo, static_cast<std::int64_t>(cols.size()));
  auto bs = Kokkos::create_mirror_view(B.row_starts());
  auto bc = Kokkos::create_mirror_view(B.column_indices());
  auto bv = Kokkos::create_mirror_view(B.values());
  for (std::size_t i = 0; i < starts.size(); ++i) bs(i) = starts[i];
  for (std::size_t k = 0; k < cols.size(); ++k) {
    bc(k) = cols[k];
    bv(k) = vals[k];
  }
  Kokkos::deep_copy(exec, B.row_starts(), bs);
  Kokkos::deep_copy(exec, B.column_indices(), bc);
  Kokkos::deep_copy(exec, B.values(), bv);
  exec.fence();
  return B;
}

/// A1 without the entries that couple two ranks' rows: the matrix whose
/// preconditioner equals the rank-local ones assembled side by side.
template <class Crs>
Crs block_diagonal_part(typename Crs::execution_space const& exec, Crs const& A1,
                        std::vector<std::int64_t> const& offsets) {
  return rank_block_rows(exec, A1, offsets, 0, A1.num_rows());
}

/// What rank q holds as its diagonal block: its rows and columns of A1, renumbered from 0.
template <class Crs>
Crs diagonal_block_of(typename Crs::execution_space const& exec, Crs const& A1,
                      std::vector<std::int64_t> const& offsets, std::size_t q) {
  return rank_block_rows(exec, A1, offsets, offsets[q], offsets[q + 1]);
}

/// One process applying one AMG hierarchy per rank's rows, each to its own
/// range of the vectors: the preconditioner make_amg of a DistributedMatrix
/// assembles side by side.
template <class Amg>
struct RankLocalAmgs {
  using execution_space = typename Amg::execution_space;
  using scalar_type = typename Amg::scalar_type;
  using vector_type = typename Amg::vector_type;
  std::vector<Amg> blocks;
  std::vector<std::int64_t> offsets;

  std::int64_t num_rows() const { return offsets.back(); }
  void apply(execution_space const& exec, vector_type const& r, vector_type const& z) const {
    for (std::size_t q = 0; q < blocks.size(); ++q) {
      const auto range = Kokkos::make_pair(offsets[q], offsets[q + 1]);
      blocks[q].apply(exec, Kokkos::subview(r, range), Kokkos::subview(z, range));
    }
  }
};

/// max over this rank's rows of |x(i) − x1(first + i)|, over all ranks.
template <class X, class X1>
double max_difference(RowPartition const& part, X const& x, X1 const& x1) {
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto x1h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x1);
  double d = 0;
  for (std::int64_t i = 0; i < part.local_rows(); ++i) {
    d = std::max(
        d, std::abs(static_cast<double>(xh(i)) - static_cast<double>(x1h(part.first_row() + i))));
  }
  double all = 0;
  MPI_Allreduce(&d, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

// Each preconditioner over ranks gives the iterations (within 2) and the
// solution of one process running the same preconditioner: Chebyshev on the
// whole operator, the rank-local ones on the block-diagonal part.
TYPED_TEST(DistributedPreconditionerTest, EachMatchesOneProcessWithTheSamePreconditioner) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Exec exec;
  const std::int64_t N = 12;
  auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
  // SELL diagonal blocks: the rank-local factories convert them back to CRS.
  auto A = make_distributed_fem_poisson<SellFormat, Scalar, CrsFormat>(part, exec, N);
  auto A1 = make_fem_poisson_crs<Scalar>(exec, N);
  const auto offsets = rank_offsets(part);
  auto D1 = block_diagonal_part(exec, A1, offsets);
  auto b1 = fem_poisson_rhs<Scalar>(exec, N);
  auto b = distributed_fem_poisson_rhs<Scalar>(exec, part, N);
  const double tol = sizeof(Scalar) == 8 ? 1e-10 : 1e-5;
  const double x_tol = sizeof(Scalar) == 8 ? 1e-6 : 1e-2;
  // The one-process twin of make_amg (distributed): a hierarchy per rank's block.
  using Amg = AmgPreconditioner<Scalar, Exec>;
  RankLocalAmgs<Amg> amgs1;
  amgs1.offsets = offsets;
  for (int q = 0; q < part.size(); ++q) {
    amgs1.blocks.push_back(
        make_amg(exec, diagonal_block_of(exec, A1, offsets, static_cast<std::size_t>(q))));
  }
  static_assert(is_preconditioner_v<RankLocalAmgs<Amg>>);
  // The one-process twin and the distributed preconditioner of each name, handed to f(M1, M).
  auto with_pair = [&](std::string const& prec, auto&& f) {
    if (prec == "block-jacobi") {
      // One process with the ranks' blocks: block starts restart at every rank.
      std::vector<std::int64_t> starts;
      for (int q = 0; q < part.size(); ++q) {
        for (std::int64_t s = offsets[q]; s < offsets[q + 1]; s += 4) starts.push_back(s);
      }
      starts.push_back(offsets.back());
      return f(make_block_jacobi(exec, A1, starts), make_block_jacobi(exec, A, 4));
    }
    if (prec == "chebyshev") return f(make_chebyshev(exec, A1), make_chebyshev(exec, A));
    if (prec == "ic0") return f(make_ic0(exec, D1), make_ic0(exec, A));
    if (prec == "ilu0") return f(make_ilu0(exec, D1), make_ilu0(exec, A));
    if (prec != "amg") throw std::logic_error("test: no preconditioner named " + prec);
    auto M = make_amg(exec, A);
    EXPECT_EQ(M.num_rows(), part.local_rows());
    EXPECT_EQ(M.num_levels(), amgs1.blocks[static_cast<std::size_t>(part.rank())].num_levels());
    return f(amgs1, M);
  };
  // The twins are the same preconditioner: z = M⁻¹ b on this rank's rows equals the one-process
  // z1's rows to rounding (iterations within 2 alone cannot tell two good preconditioners apart).
  auto same_apply = [&](auto const& M1, auto const& M) {
    typename std::decay_t<decltype(M1)>::vector_type z1("test::z1", A1.num_rows());
    typename std::decay_t<decltype(M)>::vector_type z("test::z", part.local_rows());
    M1.apply(exec, b1, z1);
    M.apply(exec, b, z);
    exec.fence();
    auto z1h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z1);
    double scale = 0;
    for (std::int64_t i = 0; i < A1.num_rows(); ++i) {
      scale = std::max(scale, std::abs(static_cast<double>(z1h(i))));
    }
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(max_difference(part, z, z1), (sizeof(Scalar) == 8 ? 1e-10 : 1e-4) * scale);
  };
  auto solve = [&](std::string const& solver, auto& op, auto const& M, auto const& rhs,
                   auto const& x) -> SolverResult {
    if (solver == "cg") {
      CgOptions o;
      o.relative_tolerance = tol;
      o.use_initial_guess = true;
      return cg(exec, op, M, rhs, x, o);
    }
    if (solver == "bicgstab") {
      BicgstabOptions o;
      o.relative_tolerance = tol;
      o.use_initial_guess = true;
      return bicgstab(exec, op, M, rhs, x, o);
    }
    if (solver != "gmres") throw std::logic_error("test: no solver named " + solver);
    GmresOptions o;
    o.relative_tolerance = tol;
    o.use_initial_guess = true;
    return gmres(exec, op, M, rhs, x, o);
  };
  // Every solver that takes a general preconditioner with each preconditioner over ranks
  // (pipelined CG takes Jacobi only; it and Jacobi are in test_distributed_fem.cpp). ILU(0) of
  // this symmetric matrix is symmetric too, so CG takes it as well.
  for (std::string const prec : {"block-jacobi", "chebyshev", "ic0", "ilu0", "amg"}) {
    SCOPED_TRACE(prec);
    with_pair(prec, [&](auto const& M1, auto const& M) {
      same_apply(M1, M);
      return 0;
    });
  }
  int amg_cg_iterations = -1;
  for (std::string const way :
       {"cg/block-jacobi", "cg/chebyshev", "cg/ic0", "cg/ilu0", "cg/amg", "bicgstab/block-jacobi",
        "bicgstab/chebyshev", "bicgstab/ic0", "bicgstab/ilu0", "bicgstab/amg", "gmres/block-jacobi",
        "gmres/chebyshev", "gmres/ic0", "gmres/ilu0", "gmres/amg"}) {
    SCOPED_TRACE(way);
    const std::string solver = way.substr(0, way.find('/'));
    const std::string prec = way.substr(way.find('/') + 1);
    auto x1 = fem_poisson_rough_guess<Scalar>(exec, N);
    auto x = distributed_fem_poisson_rough_guess<Scalar>(exec, part, N);
    const auto [r1, r] = with_pair(prec, [&](auto const& M1, auto const& M) {
      return std::make_pair(solve(solver, A1, M1, b1, x1), solve(solver, A, M, b, x));
    });
    if (way == "cg/amg") amg_cg_iterations = r.iterations;
    EXPECT_TRUE(r1.converged()) << r1.message;
    EXPECT_TRUE(r.converged()) << r.message;
    EXPECT_LE(r.true_relative_residual, tol);
    EXPECT_LE(std::abs(r.iterations - r1.iterations), 2)
        << "distributed " << r.iterations << ", one process " << r1.iterations;
    EXPECT_TRUE(same_on_all_ranks(r.iterations));
    EXPECT_LE(max_difference(part, x, x1), x_tol);
  }
  // One hierarchy on one rank: few iterations. Additive over several ranks (no coupling between
  // their hierarchies) it loses much of that, but stays below Jacobi.
  CgOptions co;
  co.relative_tolerance = tol;
  co.use_initial_guess = true;
  auto xj = distributed_fem_poisson_rough_guess<Scalar>(exec, part, N);
  const auto rj = cg(exec, A, make_jacobi(exec, A), b, xj, co);
  EXPECT_LT(amg_cg_iterations, rj.iterations)
      << "AMG " << amg_cg_iterations << ", Jacobi " << rj.iterations;
  EXPECT_GT(amg_cg_iterations, 0);
  if (part.size() == 1) {
    EXPECT_LE(2 * amg_cg_iterations, rj.iterations)
        << "AMG " << amg_cg_iterations << ", Jacobi " << rj.iterations;
  }
}

// A set-up that fails on any rank fails on every rank with the same
// DistributedError, which names the first failing rank and places its rows.
TYPED_TEST(DistributedPreconditionerTest, AFailedSetUpIsTheSameErrorOnEveryRank) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Exec exec;
  const std::int64_t N = 8;
  auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
  auto A = make_distributed_fem_poisson<CrsFormat, Scalar>(part, exec, N);
  auto expect_collective_error = [&](auto&& build, std::string const& step,
                                     std::string const& cause) {
    std::string message;
    try {
      build();
    } catch (DistributedError const& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(step + " failed on rank 0 of " + std::to_string(part.size())),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(cause), std::string::npos) << message;
    EXPECT_NE(message.find("local rows of rank 0, whose first global row is 0"), std::string::npos)
        << message;
    EXPECT_TRUE(same_text_on_all_ranks(message));
  };
  expect_collective_error([&] { make_block_jacobi(exec, A, 33); },
                          "spmvkit::make_block_jacobi (distributed)", "block_size = 33");
  AmgOptions bad;
  bad.strength_threshold = -1;
  expect_collective_error([&] { make_amg(exec, A, bad); }, "spmvkit::make_amg (distributed)",
                          "strength_threshold = -1");

  // Only the last rank's rows lose their diagonal: its ILU(0) fails, every
  // rank reports that rank.
  const HostCrs h = [&] {
    HostCrs m = two_block_matrix(40 * part.size(), 20);
    const std::int64_t victim = m.rows - 3;
    for (auto k = m.row_starts[victim]; k < m.row_starts[victim + 1]; ++k) {
      if (m.col[k] == victim) m.val[k] = 0.0;
    }
    return m;
  }();
  std::vector<std::int64_t> even(static_cast<std::size_t>(part.size()) + 1);
  for (int q = 0; q <= part.size(); ++q) even[q] = 40 * q;
  auto part2 = RowPartition::from_offsets(MPI_COMM_WORLD, even);
  auto B = make_distributed_matrix<CrsFormat>(
      part2, exec, slab_of<Scalar, Exec>(h, part2.first_row(), part2.local_rows()));
  const int last = part.size() - 1;
  std::string message;
  try {
    make_ilu0(exec, B);
  } catch (DistributedError const& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("spmvkit::make_ilu0 (distributed) failed on rank " + std::to_string(last) +
                         " of " + std::to_string(part.size())),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("whose first global row is " + std::to_string(40 * last)),
            std::string::npos)
      << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));

  // A near-nullspace one row short on the last rank only: every rank reports that rank.
  using Amg = AmgPreconditioner<Scalar, Exec>;
  const std::int64_t short_rows = part.end_row(last) - part.first_row(last) - 1;
  const std::int64_t rows = part.rank() == last ? short_rows : part.local_rows();
  typename Amg::multi_vector_type modes("test::near_nullspace", static_cast<std::size_t>(rows), 1);
  Kokkos::deep_copy(exec, modes, Scalar(1));
  std::string nns_message;
  try {
    make_amg(exec, A, modes);
  } catch (DistributedError const& e) {
    nns_message = e.what();
  }
  EXPECT_NE(nns_message.find("spmvkit::make_amg (distributed) failed on rank " +
                             std::to_string(last) + " of " + std::to_string(part.size())),
            std::string::npos)
      << nns_message;
  EXPECT_NE(nns_message.find("the near-nullspace is " + std::to_string(short_rows) + " x 1"),
            std::string::npos)
      << nns_message;
  EXPECT_TRUE(same_text_on_all_ranks(nns_message));
}

} // namespace
} // namespace spmvkit::test
