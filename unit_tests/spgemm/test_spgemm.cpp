// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spgemm (spgemm/spgemm.hpp), the public API: C = A B against a long-double
// host reference (exact structure, values within a precision-scaled bound) and
// Kokkos Kernels' SpGEMM, on random, FEM, R-MAT-like and the shipped real
// matrices and the degenerate shapes, for every numeric strategy and symbolic
// accumulator choice; the errors (shapes, offset overflow, memory limit,
// options), repeated numeric phases and changed patterns.

#include "env_guard.hpp"
// This file compiles the phases that the others of the folder declare extern.
#define SPMVKIT_SPGEMM_TEST_INSTANTIATE
#include "spgemm/spgemm_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/spgemm/detail/spgemm_tuning.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpgemmTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmTest, AllConfigs, ConfigNames);

// The strategies every main check runs (the options' defaults besides): a
// loop rather than a type parameter, since the kernels of every strategy are
// compiled into each instantiation of the phases anyway.
constexpr SpgemmNumeric numeric_strategies[] = {SpgemmNumeric::hash, SpgemmNumeric::positions,
                                                SpgemmNumeric::entries,
                                                SpgemmNumeric::product_lists};
constexpr SpgemmSymbolic symbolic_strategies[] = {SpgemmSymbolic::accumulators,
                                                  SpgemmSymbolic::workspace};

/// The options of every strategy on `base`: the defaults (automatic), then
/// each numeric strategy after each symbolic choice (the workspace on host
/// backends only: GPUs take the accumulators for it).
template <class Exec>
std::vector<SpgemmOptions> every_strategy(SpgemmOptions const& base = {}) {
  std::vector<SpgemmOptions> out{base};
  for (auto symbolic : symbolic_strategies) {
    if (symbolic == SpgemmSymbolic::workspace && !detail::is_host_space_v<Exec>) continue;
    for (auto numeric : numeric_strategies) {
      SpgemmOptions o = base;
      o.symbolic = symbolic;
      o.numeric = numeric;
      out.push_back(o);
    }
  }
  return out;
}

/// ha hb through every strategy (check_product: each asserts the strategy it
/// asked for where it must apply) and, where both factors have entries,
/// Kokkos Kernels (same structure after sorting its rows, values within the
/// same bounds). Returns the handle of the default options.
template <class Scalar, class Exec, class Offset = int>
SpgemmHandle<Scalar, Exec, int, Offset> check_all(HostCrs const& ha, HostCrs const& hb,
                                                  std::string const& what,
                                                  SpgemmOptions const& base = {}) {
  const auto A = make_device_crs<Scalar, Exec, int, Offset>(ha);
  const auto B = make_device_crs<Scalar, Exec, int, Offset>(hb);
  const auto ref = host_product<Scalar>(ha, hb);
  const auto options = every_strategy<Exec>(base);
  auto handle = check_product<Scalar, Exec, Offset>(A, B, ha, hb, ref, what, options.front());
  for (std::size_t i = 1; i < options.size(); ++i) {
    // No second run by rows: `positions` is in the list.
    check_product<Scalar, Exec, Offset>(A, B, ha, hb, ref, what + ", " + strategy_name(options[i]),
                                        options[i], false);
  }
  if (ha.nnz() > 0 && hb.nnz() > 0 && ha.rows > 0 && hb.cols > 0) {
    using KK = kokkos_kernels_matrix_t<CrsMatrix<Scalar, Exec, int, Offset>>;
    KokkosKernelsSpgemm<KK> kk;
    kk.symbolic(to_kokkos_kernels(A), to_kokkos_kernels(B));
    kk.numeric(to_kokkos_kernels(A), to_kokkos_kernels(B));
    EXPECT_TRUE(matches_product<Scalar>(to_host(from_kokkos_kernels(kk.matrix())), ref, false,
                                        what + " (Kokkos Kernels)"));
  }
  return handle;
}

TYPED_TEST(SpgemmTest, RandomMatricesMatchReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Rectangular, with empty rows and one long row.
  check_all<Scalar, Exec>(random_crs(300, 200, 12, 0.1, 150, 1),
                          random_crs(200, 250, 10, 0.1, 200, 2), "random 300x200 * 200x250");
  // Unsorted: every numeric choice hashes.
  SpgemmOptions unsorted;
  unsorted.sort_columns = false;
  check_all<Scalar, Exec>(random_crs(300, 200, 12, 0.1, 150, 3),
                          random_crs(200, 250, 10, 0.1, 200, 4), "random, unsorted", unsorted);
}

TYPED_TEST(SpgemmTest, FemSquareMatchesReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 8));
  auto h = check_all<Scalar, Exec>(A, A, "FEM N=8 A*A");
  // Q1 stencils: an interior row of A*A reaches the 5 x 5 x 5 neighbourhood
  // through 27 x 27 products.
  EXPECT_EQ(longest_row(to_host(h.matrix())), 125);
  EXPECT_GT(h.compression_ratio(), 1.0);
}

TYPED_TEST(SpgemmTest, ShippedRealMatricesSquareAndTimesTranspose) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto files = shipped_matrices();
  ASSERT_GE(files.size(), 3u) << "the shipped matrices are missing from "
                              << SPMVKIT_TEST_MATRIX_DIR;
  for (auto const& f : files) {
    const auto A = to_host(read_matrix_market<Scalar, Exec>(f));
    check_all<Scalar, Exec>(A, A, f + ": A*A");
    // A A^T differs from A A only for unsymmetric patterns or values.
    const auto T = host_transpose(A);
    if (T.col != A.col || T.val != A.val) check_all<Scalar, Exec>(A, T, f + ": A*A^T");
  }
}

TYPED_TEST(SpgemmTest, RmatLikeGraphs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto G = rmat_like(10, 8, 7);
  check_all<Scalar, Exec>(G, G, "R-MAT-like scale 10: A*A");
  check_all<Scalar, Exec>(G, host_transpose(G), "R-MAT-like scale 10: A*A^T");
}

// Rows of C beyond the scratch hash table (dense tiles, global pool;
// test_spgemm_row_kernels.cpp checks each accumulator) against Kokkos Kernels too.
TYPED_TEST(SpgemmTest, LongRowsMatchKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto limits = detail::spgemm_scratch_limits<Exec>(sizeof(Scalar), sizeof(int));
  const std::int64_t dense_n =
      std::min<std::int64_t>(9000, limits.tile_columns * detail::spgemm_max_tile_passes);
  for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), dense_n}) {
    auto const [A, B] = long_row_product(n);
    check_all<Scalar, Exec>(A, B, "long rows, n = " + std::to_string(n));
  }
}

TYPED_TEST(SpgemmTest, EmptyRowsColumnsAndDegenerateShapes) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Empty rows in A, empty columns in B (columns 3 and 4 never appear).
  const HostCrs A = from_entries(4, 3, {{0, 0}, {0, 2}, {2, 1}});
  const HostCrs B = from_entries(3, 5, {{0, 1}, {1, 0}, {2, 2}, {2, 1}});
  check_all<Scalar, Exec>(A, B, "empty rows and columns");
  // 0 x k times k x 0, m x 0 times 0 x n, 0 x 0 times 0 x 0, all-zero factors
  // (no multiply-add: every numeric choice hashes).
  check_all<Scalar, Exec>(from_entries(0, 7, {}), from_entries(7, 0, {}), "0x7 * 7x0");
  check_all<Scalar, Exec>(from_entries(5, 0, {}), from_entries(0, 6, {}), "5x0 * 0x6");
  check_all<Scalar, Exec>(from_entries(0, 0, {}), from_entries(0, 0, {}), "0x0 * 0x0");
  check_all<Scalar, Exec>(from_entries(5, 4, {}), from_entries(4, 6, {}), "zero factors");
  auto C = spgemm(Exec(), make_device_crs<Scalar, Exec>(from_entries(0, 7, {})),
                  make_device_crs<Scalar, Exec>(from_entries(7, 0, {})));
  EXPECT_EQ(C.num_rows(), 0);
  EXPECT_EQ(C.num_cols(), 0);
  EXPECT_EQ(C.nnz(), 0);
}

TYPED_TEST(SpgemmTest, DenseRowTimesDenseColumnAndOuterProduct) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t k = 5000;
  std::vector<std::pair<std::int64_t, std::int64_t>> row, column;
  for (std::int64_t j = 0; j < k; ++j) {
    row.push_back({0, j});
    column.push_back({j, 0});
  }
  // 1 x k times k x 1: all 5000 products land in one entry.
  check_all<Scalar, Exec>(from_entries(1, k, row), from_entries(k, 1, column), "dot product");
  // 300 x 1 times 1 x 300: a dense 300 x 300 C.
  std::vector<std::pair<std::int64_t, std::int64_t>> c300, r300;
  for (std::int64_t j = 0; j < 300; ++j) {
    c300.push_back({j, 0});
    r300.push_back({0, j});
  }
  auto h = check_all<Scalar, Exec>(from_entries(300, 1, c300), from_entries(1, 300, r300),
                                   "outer product");
  EXPECT_EQ(h.nnz(), 300 * 300);
  EXPECT_DOUBLE_EQ(h.compression_ratio(), 1.0);
}

// C = A B with A = 46341 x 1 and B = 1 x 46341, both all ones: C would be
// dense with 46341^2 > 2^31 - 1 entries. The lower bound on nnz(C) already
// overflows int offsets, so the error comes before C's counting or storage.
TYPED_TEST(SpgemmTest, OffsetOverflowIsRefusedBeforeAllocation) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 46341;
  std::vector<std::pair<std::int64_t, std::int64_t>> column, row;
  for (std::int64_t j = 0; j < n; ++j) {
    column.push_back({j, 0});
    row.push_back({0, j});
  }
  const auto A = make_device_crs<Scalar, Exec>(from_entries(n, 1, column));
  const auto B = make_device_crs<Scalar, Exec>(from_entries(1, n, row));
  SpgemmHandle<Scalar, Exec> handle;
  try {
    spgemm_symbolic(Exec(), handle, A, B);
    FAIL() << "no std::length_error";
  } catch (std::length_error const& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("2147488281"), std::string::npos) << what; // 46341^2
    EXPECT_NE(what.find("46341 x 1"), std::string::npos) << what;
    EXPECT_NE(what.find("Offset"), std::string::npos) << what;
  }
  EXPECT_FALSE(handle.has_structure());
}

TYPED_TEST(SpgemmTest, MemoryLimitAndDimensionMismatchAreClearErrors) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(200, 150, 10, 0.0, 0, 8));
  const auto B = make_device_crs<Scalar, Exec>(random_crs(150, 100, 10, 0.0, 0, 9));
  SpgemmOptions tight;
  tight.memory_limit = 4096;
  try {
    spgemm(Exec(), A, B, tight);
    FAIL() << "no AllocationError";
  } catch (AllocationError const& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs an estimated"), std::string::npos) << what;
    EXPECT_NE(what.find("SpgemmOptions::memory_limit"), std::string::npos) << what;
  }
  // SPMVKIT_MEMORY_LIMIT is read as the Matrix Market reader reads it
  // (core/memory_limit.hpp): garbage and negative values are errors, not "no limit".
  for (char const* bad : {"garbage", "-5"}) {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", bad);
    try {
      spgemm(Exec(), A, B);
      ADD_FAILURE() << "SPMVKIT_MEMORY_LIMIT=" << bad << " accepted";
    } catch (std::invalid_argument const& e) {
      EXPECT_EQ(std::string(e.what()), std::string("spmvkit::spgemm: SPMVKIT_MEMORY_LIMIT='") +
                                           bad + "' is not a positive number of bytes");
    }
  }
  {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", "4096");
    EXPECT_THROW(spgemm(Exec(), A, B), AllocationError);
  }
  SpgemmOptions roomy;
  roomy.memory_limit = std::uint64_t(1) << 30;
  SpgemmHandle<Scalar, Exec> handle(roomy);
  spgemm_symbolic(Exec(), handle, A, B);
  EXPECT_EQ(handle.memory().limit_bytes, roomy.memory_limit);
  EXPECT_LE(handle.memory().peak_bytes, roomy.memory_limit);
  EXPECT_GT(handle.memory().output_bytes, 0u);
  try {
    spgemm(Exec(), A, A);
    FAIL() << "no std::invalid_argument";
  } catch (std::invalid_argument const& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("A is 200 x 150"), std::string::npos) << what;
    EXPECT_NE(what.find("B is 200 x 150"), std::string::npos) << what;
  }
  SpgemmHandle<Scalar, Exec> fresh;
  EXPECT_THROW(spgemm_numeric(Exec(), fresh, A, B), std::invalid_argument);
  EXPECT_THROW(spgemm_numeric(Exec(), handle, B, B), std::invalid_argument);
}

// Options out of range are refused at the symbolic phase, naming the option,
// before anything is allocated.
TYPED_TEST(SpgemmTest, InvalidOptionsAreClearErrors) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(50, 40, 5, 0.0, 0, 8));
  const auto B = make_device_crs<Scalar, Exec>(random_crs(40, 30, 5, 0.0, 0, 9));
  for (int team : {-1, 1025}) {
    SpgemmOptions o;
    o.team_size = team;
    SpgemmHandle<Scalar, Exec> handle(o);
    try {
      spgemm_symbolic(Exec(), handle, A, B);
      ADD_FAILURE() << "team_size " << team << " accepted";
    } catch (std::invalid_argument const& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("SpgemmOptions::team_size"), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(team)), std::string::npos) << what;
    }
    EXPECT_FALSE(handle.has_structure());
    EXPECT_THROW(spgemm(Exec(), A, B, o), std::invalid_argument);
  }
  SpgemmOptions bad_symbolic;
  bad_symbolic.symbolic = static_cast<SpgemmSymbolic>(7);
  SpgemmOptions bad_numeric;
  bad_numeric.numeric = static_cast<SpgemmNumeric>(-1);
  for (auto const& [o, name] : {std::make_pair(bad_symbolic, "SpgemmOptions::symbolic"),
                                std::make_pair(bad_numeric, "numeric")}) {
    SpgemmHandle<Scalar, Exec> handle(o);
    try {
      spgemm_symbolic(Exec(), handle, A, B);
      ADD_FAILURE() << name << " out of range accepted";
    } catch (std::invalid_argument const& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
    }
    EXPECT_FALSE(handle.has_structure());
  }
  // The bounds themselves are valid.
  SpgemmOptions one;
  one.team_size = 1;
  EXPECT_NO_THROW(spgemm(Exec(), A, B, one));
}

// The numeric phase again with new values of A and B (same patterns): new
// products in the same arrays, nothing reallocated, for every strategy.
TYPED_TEST(SpgemmTest, NumericPhaseRepeatsWithNewValues) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const HostCrs ha0 = random_crs(400, 300, 15, 0.05, 250, 13);
  const HostCrs hb0 = random_crs(300, 350, 15, 0.05, 300, 14);
  for (auto const& o : every_strategy<Exec>()) {
    const std::string what = strategy_name(o);
    HostCrs ha = ha0, hb = hb0;
    auto A = make_device_crs<Scalar, Exec>(ha);
    auto B = make_device_crs<Scalar, Exec>(hb);
    SpgemmHandle<Scalar, Exec> handle(o);
    spgemm_symbolic(exec, handle, A, B);
    if (o.numeric != SpgemmNumeric::automatic) {
      EXPECT_EQ(handle.numeric_algorithm(), o.numeric) << what;
    }
    auto C1 = spgemm_numeric(exec, handle, A, B);
    exec.fence();
    ASSERT_TRUE(
        matches_product<Scalar>(to_host(C1), host_product<Scalar>(ha, hb), true, "first, " + what));
    auto const* cols = C1.column_indices().data();
    auto const* vals = C1.values().data();
    std::mt19937_64 gen(99);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (auto& v : ha.val) v = u(gen);
    for (auto& v : hb.val) v = u(gen);
    auto A2 = make_device_crs<Scalar, Exec>(ha);
    auto B2 = make_device_crs<Scalar, Exec>(hb);
    Kokkos::deep_copy(A.values(), A2.values());
    Kokkos::deep_copy(B.values(), B2.values());
    for (int round = 0; round < 2; ++round) {
      auto C2 = spgemm_numeric(exec, handle, A, B);
      exec.fence();
      EXPECT_EQ(C2.column_indices().data(), cols) << what;
      EXPECT_EQ(C2.values().data(), vals) << what;
      EXPECT_TRUE(
          matches_product<Scalar>(to_host(C2), host_product<Scalar>(ha, hb), true,
                                  "new values, round " + std::to_string(round) + ", " + what));
    }
  }
}

// Patterns that changed after the symbolic phase (same shapes and nnz): a
// moved column, and rows of B whose lengths changed. Every entry of C becomes
// NaN on every numeric path (the fingerprint); nothing is read out of bounds.
TYPED_TEST(SpgemmTest, ChangedPatternGivesNaNNotGarbage) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  // Row i of A reads rows i % 40 and (i + 3) % 40 of B; row i of B has
  // columns i, i + 10 and i + 20, so column 0 of C comes from row 0 of B only
  // and column 1 from row 1 only.
  std::vector<std::pair<std::int64_t, std::int64_t>> a, b;
  for (std::int64_t i = 0; i < 50; ++i) {
    a.push_back({i, i % 40});
    a.push_back({i, (i + 3) % 40});
  }
  for (std::int64_t i = 0; i < 40; ++i) {
    for (std::int64_t c : {i, i + 10, i + 20}) b.push_back({i, c});
  }
  // Column 0 of row 0 moved to column 5; entry (1, 1) moved to (0, 5), so
  // that rows 0 and 1 change lengths.
  auto moved = b, shifted = b;
  moved[0] = {0, 5};
  shifted[3] = {0, 5};
  std::sort(shifted.begin(), shifted.end());
  const HostCrs ha = from_entries(50, 40, a);
  const int most = most_test_team<Exec>();
  // By entry of A with a team of several threads (the GPUs' shape) and with
  // each backend's own.
  const std::vector<SpgemmOptions> paths{
      spgemm_options(SpgemmNumeric::positions), spgemm_options(SpgemmNumeric::product_lists),
      spgemm_options(SpgemmNumeric::hash),
      // Hashing with rows a thread each (SpgemmSearchRows), the GPUs' shape for short rows.
      spgemm_options(SpgemmNumeric::hash, SpgemmSymbolic::automatic, most),
      spgemm_options(SpgemmNumeric::entries, SpgemmSymbolic::automatic, most),
      spgemm_options(SpgemmNumeric::entries)};
  for (auto const& o : paths) {
    const std::string what = strategy_name(o);
    auto A = make_device_crs<Scalar, Exec>(ha);
    for (auto const& changed : {moved, shifted}) {
      SpgemmHandle<Scalar, Exec> handle(o);
      spgemm_symbolic(exec, handle, A, make_device_crs<Scalar, Exec>(from_entries(40, 60, b)));
      EXPECT_EQ(handle.numeric_algorithm(), o.numeric) << what;
      EXPECT_EQ(handle.keeps_positions(), o.numeric != SpgemmNumeric::hash) << what;
      EXPECT_EQ(handle.keeps_product_lists(), o.numeric == SpgemmNumeric::product_lists) << what;
      if (o.numeric == SpgemmNumeric::hash) {
        EXPECT_EQ(detail::SpgemmHandleAccess::state(handle).search_rows, o.team_size > 0) << what;
      }
      if (o.numeric == SpgemmNumeric::entries) {
        EXPECT_EQ(detail::SpgemmHandleAccess::state(handle).entry_c_start.extent(0),
                  static_cast<std::size_t>(ha.nnz()))
            << what;
      }
      auto C = to_host(spgemm_numeric(
          exec, handle, A, make_device_crs<Scalar, Exec>(from_entries(40, 60, changed))));
      const auto nans =
          std::count_if(C.val.begin(), C.val.end(), [](double v) { return std::isnan(v); });
      EXPECT_EQ(nans, static_cast<std::ptrdiff_t>(C.val.size())) << what;
      // The same handle, the pattern it was made for: no NaN left over.
      auto D = to_host(
          spgemm_numeric(exec, handle, A, make_device_crs<Scalar, Exec>(from_entries(40, 60, b))));
      EXPECT_EQ(std::count_if(D.val.begin(), D.val.end(), [](double v) { return std::isnan(v); }),
                0)
          << what;
    }
  }
}

// A changed pattern that gives a row of C far more columns than the symbolic
// phase sized its hash table for: the hashing numeric phase must stop probing
// a full table and give NaN, not hang. Row 0 of A reads every row of B; at the
// symbolic phase every row of B holds columns 0 .. width - 1 (C's row 0: width
// columns), after the change row k holds k width .. (k + 1) width - 1. Width 1
// puts row 0 among the short rows (a thread each where a team size is given),
// width 300 in the hash bin's teams (their concurrent insert with a team size).
TYPED_TEST(SpgemmTest, ChangedPatternOverfillingTheHashTableGivesNaN) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  for (auto [k_rows, width] : {std::pair<std::int64_t, std::int64_t>{200, 1}, {12, 300}}) {
    std::vector<std::pair<std::int64_t, std::int64_t>> a, b, spread;
    for (std::int64_t k = 0; k < k_rows; ++k) {
      a.push_back({0, k});
      for (std::int64_t c = 0; c < width; ++c) {
        b.push_back({k, c});
        spread.push_back({k, k * width + c});
      }
    }
    for (std::int64_t i = 1; i < 8; ++i) a.push_back({i, i});
    const std::int64_t n = k_rows * width;
    const HostCrs ha = from_entries(8, k_rows, a);
    const HostCrs hb = from_entries(k_rows, n, b);
    for (auto const& o :
         {spgemm_options(SpgemmNumeric::hash),
          spgemm_options(SpgemmNumeric::hash, SpgemmSymbolic::automatic, most_test_team<Exec>())}) {
      const std::string what = strategy_name(o) + ", width " + std::to_string(width);
      auto A = make_device_crs<Scalar, Exec>(ha);
      SpgemmHandle<Scalar, Exec> handle(o);
      spgemm_symbolic(exec, handle, A, make_device_crs<Scalar, Exec>(hb));
      ASSERT_EQ(handle.numeric_algorithm(), SpgemmNumeric::hash) << what;
      if (width > 1) {
        EXPECT_GE(handle.row_bins().hash, 1) << what;
      }
      auto C = to_host(spgemm_numeric(
          exec, handle, A, make_device_crs<Scalar, Exec>(from_entries(k_rows, n, spread))));
      ASSERT_EQ(C.row_starts[1], width) << what;
      EXPECT_EQ(std::count_if(C.val.begin(), C.val.end(), [](double v) { return std::isnan(v); }),
                static_cast<std::ptrdiff_t>(C.val.size()))
          << what;
      auto D = to_host(spgemm_numeric(exec, handle, A, make_device_crs<Scalar, Exec>(hb)));
      EXPECT_TRUE(matches_product<Scalar>(D, host_product<Scalar>(ha, hb), true, what));
    }
  }
}

// The fingerprint is the same whether B shares A's arrays (A A: hashed once)
// or is a copy of them, and still catches a changed pattern when they are
// shared, for every strategy (hashing included: it keeps no positions).
TYPED_TEST(SpgemmTest, FingerprintOfSharedAndCopiedFactors) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const HostCrs ha = random_crs(300, 300, 9, 0.05, 120, 21);
  const auto ref = host_product<Scalar>(ha, ha);
  auto A = make_device_crs<Scalar, Exec>(ha);
  auto copy = make_device_crs<Scalar, Exec>(ha);
  // One column of a row moved (same nnz): A' A' after a symbolic A A.
  HostCrs moved = ha;
  std::int64_t row = 0;
  while (moved.row_starts[row + 1] - moved.row_starts[row] < 2) ++row;
  const auto last = moved.row_starts[row + 1] - 1;
  std::int64_t c = 0;
  while (std::find(moved.col.begin() + moved.row_starts[row], moved.col.begin() + last + 1, c) !=
         moved.col.begin() + last + 1) {
    ++c;
  }
  moved.col[last] = c;
  auto M = make_device_crs<Scalar, Exec>(moved);
  for (auto numeric : {SpgemmNumeric::automatic, SpgemmNumeric::positions, SpgemmNumeric::entries,
                       SpgemmNumeric::product_lists, SpgemmNumeric::hash}) {
    const std::string what = to_string(numeric);
    for (bool shared_first : {true, false}) {
      SpgemmHandle<Scalar, Exec> handle(spgemm_options(numeric));
      spgemm_symbolic(exec, handle, A, shared_first ? A : copy);
      ASSERT_EQ(handle.keeps_positions(), numeric != SpgemmNumeric::hash) << what;
      auto C = to_host(spgemm_numeric(exec, handle, A, shared_first ? copy : A));
      EXPECT_TRUE(matches_product<Scalar>(
          C, ref, true, (shared_first ? "A A, then A copy, " : "A copy, then A A, ") + what));
    }
    SpgemmHandle<Scalar, Exec> handle(spgemm_options(numeric));
    spgemm_symbolic(exec, handle, A, A);
    const auto C = to_host(spgemm_numeric(exec, handle, M, M));
    EXPECT_EQ(std::count_if(C.val.begin(), C.val.end(), [](double v) { return std::isnan(v); }),
              static_cast<std::ptrdiff_t>(C.val.size()))
        << what;
  }
}

TYPED_TEST(SpgemmTest, WideOffsets) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  check_all<Scalar, Exec, std::int64_t>(random_crs(120, 90, 9, 0.1, 80, 15),
                                        random_crs(90, 130, 9, 0.1, 60, 16), "int64 offsets");
}

} // namespace
