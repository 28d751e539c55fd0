// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DistributedMatrix: the distributed product against the single-rank one, in
// every format of the format list (both blocks), over several partitions:
// balanced by nonzeros, uneven with one row on a rank, and one where a rank
// has no off-process columns.
#include "mpi_test_utils.hpp"

#include <spmvkit/distributed/distributed_matrix.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit::test {
namespace {

using DoubleConfigTuple = decltype(std::tuple_cat(
#ifdef KOKKOS_ENABLE_SERIAL
    std::tuple<Config<double, Kokkos::Serial>>{},
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    std::tuple<Config<double, Kokkos::OpenMP>>{},
#endif
#ifdef KOKKOS_ENABLE_CUDA
    std::tuple<Config<double, Kokkos::Cuda>>{},
#endif
    std::tuple<>{}));
using DistributedFormatConfigs =
    typename to_gtest_types<typename cross_formats<DoubleConfigTuple, format_list>::type>::type;

template <class Memory>
struct HostCrsRowLength {
  using memory_space = Memory;
  Kokkos::View<std::int64_t*, Memory> row_starts;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t row) const {
    return row_starts(row + 1) - row_starts(row);
  }
};

struct Case {
  std::string name;
  HostCrs matrix;
  std::vector<std::int64_t> offsets; // empty: balanced by nonzeros
  bool rank0_without_ghosts = false;
};

std::vector<Case> cases() {
  const int p = world_size();
  std::vector<Case> c;
  c.push_back({"irregular, balanced", irregular_matrix(97), {}, false});
  c.push_back(
      {"irregular, uneven, one row on rank 0", irregular_matrix(97), uneven_offsets(97, p), false});
  // Rank 0 owns exactly the first block of a matrix of two uncoupled blocks.
  std::vector<std::int64_t> split(static_cast<std::size_t>(p) + 1, 0);
  const std::int64_t n = 60, first_block = p == 1 ? n : 17;
  split[1] = first_block;
  for (int r = 2; r <= p; ++r) split[r] = first_block + (n - first_block) * (r - 1) / (p - 1);
  c.push_back(
      {"two blocks, rank 0 without ghosts", two_block_matrix(n, first_block), split, p > 1});
  return c;
}

template <class T>
class DistributedSpmvTest : public ::testing::Test {};
TYPED_TEST_SUITE(DistributedSpmvTest, DistributedFormatConfigs, FormatConfigNames);

TYPED_TEST(DistributedSpmvTest, MatchesSingleRankProduct) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using F = typename TypeParam::format;
  using Vector = Kokkos::View<Scalar*, Kokkos::Device<Exec, typename Exec::memory_space>>;
  Exec exec;
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    RowPartition part;
    if (c.offsets.empty()) {
      Kokkos::View<std::int64_t*, typename Exec::memory_space> rs("test::row_starts",
                                                                  c.matrix.rows + 1);
      auto rh = Kokkos::create_mirror_view(rs);
      for (std::int64_t i = 0; i <= c.matrix.rows; ++i) rh(i) = c.matrix.row_starts[i];
      Kokkos::deep_copy(rs, rh);
      part = partition_by_nonzeros(MPI_COMM_WORLD, exec, c.matrix.rows,
                                   HostCrsRowLength<typename Exec::memory_space>{rs});
    } else {
      part = RowPartition::from_offsets(MPI_COMM_WORLD, c.offsets);
    }
    EXPECT_EQ(part.global_rows(), c.matrix.rows);
    auto A = make_distributed_matrix<F>(
        part, exec, slab_of<Scalar, Exec>(c.matrix, part.first_row(), part.local_rows()));
    EXPECT_EQ(A.num_rows(), part.local_rows());
    if (c.rank0_without_ghosts && part.rank() == 0) {
      EXPECT_EQ(A.num_ghosts(), 0);
      EXPECT_TRUE(A.halo().receives().empty());
      EXPECT_TRUE(A.halo().sends().empty());
    }
    // The off-process block keeps exactly the local rows with a column owned
    // elsewhere, in increasing order (contiguous or not: both ways of adding
    // its product are checked by the products below).
    {
      auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.off_process_rows());
      std::vector<std::int64_t> expected;
      for (std::int64_t i = 0; i < part.local_rows(); ++i) {
        const std::int64_t g = part.first_row() + i;
        for (auto k = c.matrix.row_starts[g]; k < c.matrix.row_starts[g + 1]; ++k) {
          if (part.owner(c.matrix.col[k]) != part.rank()) {
            expected.push_back(i);
            break;
          }
        }
      }
      ASSERT_EQ(static_cast<std::size_t>(rows.extent(0)), expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(rows(k), expected[k]);
      EXPECT_EQ(A.off_process_block().num_rows(), static_cast<std::int64_t>(expected.size()));
    }
    if (part.size() == 1) {
      EXPECT_EQ(A.num_ghosts(), 0);
    } else if (!c.rank0_without_ghosts) {
      // Columns all over: every rank needs entries of others, so the halo is exercised.
      EXPECT_GT(A.num_ghosts(), 0);
    }

    // Device vectors on Kokkos 4: the exchange packs and stages on an instance
    // of its own; the same matrix with the exchange on the caller's instance
    // must give the same product.
    constexpr bool device_memory =
        !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
    EXPECT_EQ(A.halo().own_instance(), device_memory && KOKKOS_VERSION >= 40000);
    HaloOptions shared_instance;
    shared_instance.own_instance = false;
    auto A_shared = make_distributed_matrix<F>(
        part, exec, slab_of<Scalar, Exec>(c.matrix, part.first_row(), part.local_rows()), {}, {},
        shared_instance);
    EXPECT_FALSE(A_shared.halo().own_instance());
    HaloOptions collective;
    collective.method = HaloMethod::neighbor_alltoallv;
    auto A_collective = make_distributed_matrix<F>(
        part, exec, slab_of<Scalar, Exec>(c.matrix, part.first_row(), part.local_rows()), {}, {},
        collective);
    EXPECT_EQ(A_collective.halo().method(), HaloMethod::neighbor_alltoallv);
    EXPECT_EQ(A.halo().method(), HaloMethod::point_to_point);

    auto A1 = make_device_crs<Scalar, Exec>(c.matrix);
    // Two products with different x (the second reuses the plan and buffers),
    // then one with the exchange on the caller's instance and two with the
    // neighbourhood collective (a rank without neighbours still takes part).
    for (int round = 0; round < 5; ++round) {
      auto f = [round](std::int64_t i) { return test_x(i + 31 * round); };
      Vector x_global("x_global", c.matrix.rows), y_global("y_global", c.matrix.rows);
      auto xh = Kokkos::create_mirror_view(x_global);
      for (std::int64_t i = 0; i < c.matrix.rows; ++i) xh(i) = static_cast<Scalar>(f(i));
      Kokkos::deep_copy(x_global, xh);
      spmv(exec, Scalar(1), A1, x_global, Scalar(0), y_global);
      auto x = local_vector<Vector>(part, f);
      Vector y("y", part.local_rows());
      Kokkos::deep_copy(y, Scalar(std::nan("")));
      (round < 2 ? A : round == 2 ? A_shared : A_collective).apply(exec, x, y);
      exec.fence();
      auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      auto yg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_global);
      int mismatches = 0;
      for (std::int64_t i = 0; i < part.local_rows(); ++i) {
        const double expected = yg(part.first_row() + i), got = yh(i);
        if (!(std::abs(got - expected) <= 1e-12 * (1 + std::abs(expected))) && ++mismatches < 5) {
          ADD_FAILURE() << "round " << round << ", global row " << part.first_row() + i
                        << ": distributed " << got << ", single rank " << expected;
        }
      }
      EXPECT_EQ(mismatches, 0);
    }
  }
}

/// Row i, column j of the blocks of vectors below.
double test_xj(std::int64_t i, std::int64_t j) { return test_x(i + 31 * j); }

// Y = A X for blocks of k vectors: the product of the single-rank matrix, in
// both layouts, over growing and shrinking k (the exchange buffers reused),
// with point-to-point messages and the neighbourhood collective.
TYPED_TEST(DistributedSpmvTest, MultiVectorMatchesSingleRankProduct) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using F = typename TypeParam::format;
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  Exec exec;
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    auto part = c.offsets.empty() ? RowPartition::from_offsets(
                                        MPI_COMM_WORLD, uneven_offsets(c.matrix.rows, world_size()))
                                  : RowPartition::from_offsets(MPI_COMM_WORLD, c.offsets);
    auto A = make_distributed_matrix<F>(
        part, exec, slab_of<Scalar, Exec>(c.matrix, part.first_row(), part.local_rows()));
    HaloOptions collective;
    collective.method = HaloMethod::neighbor_alltoallv;
    auto A_collective = make_distributed_matrix<F>(
        part, exec, slab_of<Scalar, Exec>(c.matrix, part.first_row(), part.local_rows()), {}, {},
        collective);
    static_assert(std::is_same_v<typename decltype(A)::multi_vector_type,
                                 Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>>);
    auto A1 = make_device_crs<Scalar, Exec>(c.matrix);
    auto check = [&](auto layout, std::int64_t k, auto const& M, std::string const& how) {
      SCOPED_TRACE(how + ", k = " + std::to_string(k));
      using Multi = Kokkos::View<Scalar**, decltype(layout), Device>;
      Multi X_global("X_global", c.matrix.rows, k), Y_global("Y_global", c.matrix.rows, k);
      auto xh = Kokkos::create_mirror_view(X_global);
      for (std::int64_t i = 0; i < c.matrix.rows; ++i) {
        for (std::int64_t j = 0; j < k; ++j) xh(i, j) = static_cast<Scalar>(test_xj(i, j));
      }
      Kokkos::deep_copy(X_global, xh);
      spmv(exec, Scalar(1), A1, X_global, Scalar(0), Y_global);
      Multi X("X", part.local_rows(), k), Y("Y", part.local_rows(), k);
      auto xl = Kokkos::create_mirror_view(X);
      for (std::int64_t i = 0; i < part.local_rows(); ++i) {
        for (std::int64_t j = 0; j < k; ++j) xl(i, j) = xh(part.first_row() + i, j);
      }
      Kokkos::deep_copy(X, xl);
      Kokkos::deep_copy(Y, Scalar(std::nan("")));
      M.apply(exec, X, Y);
      exec.fence();
      auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
      auto yg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y_global);
      int mismatches = 0;
      for (std::int64_t i = 0; i < part.local_rows(); ++i) {
        for (std::int64_t j = 0; j < k; ++j) {
          const double expected = yg(part.first_row() + i, j), got = yh(i, j);
          if (!(std::abs(got - expected) <= 1e-12 * (1 + std::abs(expected))) && ++mismatches < 5) {
            ADD_FAILURE() << "global row " << part.first_row() + i << ", column " << j
                          << ": distributed " << got << ", single rank " << expected;
          }
        }
      }
      EXPECT_EQ(mismatches, 0);
    };
    for (std::int64_t k : {3, 9, 1}) {
      check(Kokkos::LayoutLeft(), k, A, "LayoutLeft");
      check(Kokkos::LayoutRight(), k, A, "LayoutRight");
    }
    check(Kokkos::LayoutLeft(), 5, A_collective, "LayoutLeft, collective");
    check(Kokkos::LayoutRight(), 2, A_collective, "LayoutRight, collective");
  }
}

// A multi-vector apply whose arguments are wrong on one rank, or whose k
// differs between ranks, throws the same DistributedError on every rank.
TEST(DistributedMultiVectorTest, BadArgumentsOnOneRankFailEveryRank) {
  using Exec = Kokkos::DefaultExecutionSpace;
  using Multi = Kokkos::View<double**, Kokkos::LayoutLeft, Exec::memory_space>;
  Exec exec;
  const HostCrs h = irregular_matrix(97);
  auto part = RowPartition::from_offsets(MPI_COMM_WORLD, uneven_offsets(97, world_size()));
  auto A = make_distributed_matrix<CrsFormat>(
      part, exec, slab_of<double, Exec>(h, part.first_row(), part.local_rows()));
  const int last = part.size() - 1;
  const std::int64_t n = part.local_rows();
  auto expect = [&](auto&& call, std::string const& cause) {
    std::string message;
    try {
      call();
    } catch (DistributedError const& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("spmvkit::DistributedMatrix::apply (multi-vector)"), std::string::npos)
        << message;
    EXPECT_NE(message.find(cause), std::string::npos) << message;
    EXPECT_TRUE(same_text_on_all_ranks(message)) << message;
  };
  // Y one row short on the last rank only.
  {
    Multi X("X", n, 2), Y("Y", part.rank() == last ? n - 1 : n, 2);
    expect([&] { A.apply(exec, X, Y); },
           "failed on rank " + std::to_string(last) + " of " + std::to_string(part.size()));
  }
  // X and Y the same View on rank 0.
  {
    Multi X("X", n, 2), Y("Y", n, 2);
    expect([&] { A.apply(exec, X, part.rank() == 0 ? X : Y); },
           "failed on rank 0 of " + std::to_string(part.size()) +
               ": X and Y must not share storage");
  }
  // No columns.
  {
    Multi X("X", n, 0), Y("Y", n, 0);
    expect([&] { A.apply(exec, X, Y); }, "the same columns, at least 1");
  }
  if (part.size() > 1) {
    // Rank 0 passes 3 columns, the others 2.
    const std::int64_t k = part.rank() == 0 ? 3 : 2;
    Multi X("X", n, k), Y("Y", n, k);
    expect([&] { A.apply(exec, X, Y); },
           "the ranks pass 2 to 3 columns; every rank must pass the same number");
  }
  // After the errors, a correct product still works (nothing left in flight).
  Multi X("X", n, 2), Y("Y", n, 2);
  Kokkos::deep_copy(X, 1.0);
  A.apply(exec, X, Y);
  exec.fence();
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t g = part.first_row() + i;
    double row_sum = 0;
    for (auto e = h.row_starts[g]; e < h.row_starts[g + 1]; ++e) row_sum += h.val[e];
    EXPECT_NEAR(yh(i, 0), row_sum, 1e-12 * (1 + std::abs(row_sum)));
    EXPECT_NEAR(yh(i, 1), row_sum, 1e-12 * (1 + std::abs(row_sum)));
  }
}

// Row r has r % 10 + 1 entries: a balance by rows would be off by far more.
struct VaryingLength {
  using memory_space = Kokkos::HostSpace;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t r) const { return r % 10 + 1; }
};

struct UnitLength {
  using memory_space = Kokkos::HostSpace;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t) const { return 1; }
};

TEST(RowPartitionTest, BalancedByNonzerosIsContiguousAndBalanced) {
  Kokkos::DefaultHostExecutionSpace exec;
  const std::int64_t n = 1000;
  auto part = partition_by_nonzeros(MPI_COMM_WORLD, exec, n, VaryingLength{});
  ASSERT_EQ(part.size(), world_size());
  std::int64_t total = 0;
  for (std::int64_t r = 0; r < n; ++r) total += r % 10 + 1;
  for (int r = 0; r < part.size(); ++r) {
    EXPECT_LT(part.first_row(r), part.end_row(r));
    std::int64_t entries = 0;
    for (std::int64_t i = part.first_row(r); i < part.end_row(r); ++i) entries += i % 10 + 1;
    EXPECT_LE(std::abs(static_cast<double>(entries) - static_cast<double>(total) / part.size()),
              10.0)
        << "rank " << r;
  }
  EXPECT_EQ(part.owner(0), 0);
  EXPECT_EQ(part.owner(n - 1), part.size() - 1);
}

TEST(RowPartitionTest, MoreRanksThanRowsIsAClearErrorOnEveryRank) {
  Kokkos::DefaultHostExecutionSpace exec;
  const std::int64_t rows = world_size() - 1;
  std::string message;
  try {
    partition_by_nonzeros(MPI_COMM_WORLD, exec, rows, UnitLength{});
  } catch (DistributedError const& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("cannot partition " + std::to_string(rows) + " rows over " +
                         std::to_string(world_size()) + " ranks"),
            std::string::npos)
      << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
}

TEST(RowPartitionTest, BadOffsetsAreRejectedOnEveryRank) {
  const int p = world_size();
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(p) + 1, 0);
  for (int r = 1; r <= p; ++r) offsets[static_cast<std::size_t>(r)] = 10 * r;
  offsets[static_cast<std::size_t>(p)] = offsets[static_cast<std::size_t>(p) - 1]; // empty rank
  std::string message;
  try {
    RowPartition::from_offsets(MPI_COMM_WORLD, offsets);
  } catch (DistributedError const& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("rank " + std::to_string(p - 1) + " would own rows"), std::string::npos)
      << message;
  EXPECT_TRUE(same_text_on_all_ranks(message));
}

} // namespace
} // namespace spmvkit::test
