// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Faults: a rank that fails (bad input, an allocation, an exception of its
// own) makes every rank throw the same DistributedError, and nobody hangs.
#include "mpi_test_utils.hpp"

#include <spmvkit/distributed/distributed_error.hpp>
#include <spmvkit/distributed/distributed_fem.hpp>
#include <spmvkit/distributed/distributed_matrix.hpp>
#include <spmvkit/solvers/cg.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit::test {
namespace {

/// The identity's rows [first, first + m): one entry per row, made on the fly.
struct IdentitySlab {
  using value_type = double;
  std::int64_t first;
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(std::int64_t row, F&& f) const {
    f(first + row, 1.0);
  }
};

std::string error_of(std::function<void()> const& f) {
  try {
    f();
  } catch (DistributedError const& e) {
    return e.what();
  }
  return "";
}

TEST(DistributedErrorTest, OneFailingRankStopsEveryRankWithItsMessage) {
  const int last = world_size() - 1;
  const std::string message = error_of([&] {
    detail::collective_step(MPI_COMM_WORLD, "test step", [&] {
      if (world_rank() == last) throw std::runtime_error("disk on fire");
    });
  });
  EXPECT_EQ(message, "test step failed on rank " + std::to_string(last) + " of " +
                         std::to_string(world_size()) + ": disk on fire");
}

TEST(DistributedErrorTest, ABadColumnOnOneRankStopsEveryRank) {
  Kokkos::DefaultExecutionSpace exec;
  const std::int64_t n = 40;
  HostCrs h = two_block_matrix(n, n);
  h.col.back() = n + 3; // the last row points past the matrix
  auto part = RowPartition::from_offsets(MPI_COMM_WORLD, uneven_offsets(n, world_size()));
  const std::string message = error_of([&] {
    make_distributed_matrix<CrsFormat>(
        part, exec,
        slab_of<double, Kokkos::DefaultExecutionSpace>(h, part.first_row(), part.local_rows()));
  });
  EXPECT_NE(message.find("failed on rank " + std::to_string(world_size() - 1)), std::string::npos)
      << message;
  EXPECT_NE(message.find("global row " + std::to_string(n - 1) + " has a column outside"),
            std::string::npos)
      << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
}

TEST(DistributedErrorTest, AFailedAllocationOnOneRankStopsEveryRank) {
  Kokkos::DefaultExecutionSpace exec;
  // The last rank is given 2^45 rows: its first work array (8 bytes a row) is
  // larger than the address space, so the allocation fails there and only there.
  const int p = world_size();
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(p) + 1);
  for (int r = 0; r < p; ++r) offsets[static_cast<std::size_t>(r)] = r;
  offsets[static_cast<std::size_t>(p)] = (p - 1) + (std::int64_t(1) << 45);
  auto part = RowPartition::from_offsets(MPI_COMM_WORLD, offsets);
  const std::string message = error_of([&] {
    make_distributed_matrix<CrsFormat, CrsFormat, std::int64_t, std::int64_t>(
        part, exec, IdentitySlab{part.first_row()});
  });
  EXPECT_NE(message.find("failed on rank " + std::to_string(p - 1)), std::string::npos) << message;
  EXPECT_NE(message.find("cannot allocate"), std::string::npos) << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
}

TEST(DistributedErrorTest, ABadArgumentOfCgOnOneRankStopsEveryRank) {
  Kokkos::DefaultExecutionSpace exec;
  const std::int64_t N = 6;
  auto part = fem_poisson_partition(MPI_COMM_WORLD, exec, N);
  auto A = make_distributed_fem_poisson<CrsFormat, double>(part, exec, N);
  auto b = distributed_fem_poisson_rhs<double>(exec, part, N);
  // The last rank's x is one entry short.
  const bool short_x = part.rank() == part.size() - 1;
  decltype(b) x("x", part.local_rows() - (short_x ? 1 : 0));
  const std::string message = error_of([&] { cg(exec, A, b, x); });
  EXPECT_NE(message.find("spmvkit::cg failed on rank " + std::to_string(part.size() - 1)),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("b and x of matching size"), std::string::npos) << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
}

} // namespace
} // namespace spmvkit::test
