// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SpGEMM's row kernels (spgemm/detail/spgemm_row_kernels.hpp): every
// accumulator (scratch hash tables, dense tiles, global pool), the concurrent
// code path that GPUs take, run on every backend through
// SpgemmOptions::team_size, and the symbolic passes' bitmap windows.

#include "spgemm/spgemm_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/spgemm/detail/spgemm_tuning.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpgemmRowKernelsTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmRowKernelsTest, AllConfigs, ConfigNames);

/// The three ways the row kernels write C: sorted with the places of the
/// products kept (`kept`: the numeric choice that keeps them), sorted and
/// hashing, and unsorted.
inline SpgemmOptions row_variant(int variant, SpgemmNumeric kept, int team_size = 0) {
  return spgemm_options(variant == 0 ? kept : SpgemmNumeric::hash, SpgemmSymbolic::automatic,
                        team_size, variant < 2);
}

inline char const* variant_name(int variant) {
  return variant == 0 ? ", positions" : variant == 1 ? ", hashing" : ", unsorted";
}

TYPED_TEST(SpgemmRowKernelsTest, EveryAccumulatorIsExercised) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  bool saw_dense = false, saw_global = false;
  // The dense tiles take rows of B at most this wide (FP64 on GPUs: 8192, below the 9000 that
  // host backends take; the long row's bound stays beyond the scratch hash table either way).
  const auto limits = detail::spgemm_scratch_limits<Exec>(sizeof(Scalar), sizeof(int));
  const std::int64_t dense_n =
      std::min<std::int64_t>(9000, limits.tile_columns * detail::spgemm_max_tile_passes);
  for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), dense_n}) {
    auto const [A, B] = long_row_product(n);
    // Sorted with and without the stored positions (both numeric paths), and unsorted.
    for (int variant = 0; variant < 3; ++variant) {
      const auto o = row_variant(variant, SpgemmNumeric::automatic);
      auto h = check_spgemm<Scalar, Exec>(
          A, B, "accumulators, n = " + std::to_string(n) + variant_name(variant), o);
      EXPECT_EQ(h.keeps_positions(), variant == 0);
      for (auto const& bins : {h.row_bins(), h.symbolic_row_bins()}) {
        EXPECT_GT(bins.hash, 0);
        EXPECT_EQ(bins.empty + bins.narrow + bins.hash + bins.dense + bins.global, A.rows);
        saw_dense = saw_dense || bins.dense > 0;
        saw_global = saw_global || bins.global > 0;
      }
    }
  }
  EXPECT_TRUE(saw_dense);
  EXPECT_TRUE(saw_global);
}

// The concurrent code path (atomic insertion, team bitonic sort, segmented
// ordered writes by several threads), which GPUs take, run here with teams of
// one thread and of as many as the backend allows (at most 4), through every
// accumulator, sorted (by entry of A, then by rows: check_spgemm) and not.
TYPED_TEST(SpgemmRowKernelsTest, ConcurrentPathOnEveryBackend) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int most = most_test_team<Exec>();
  std::vector<int> sizes{1};
  if (most > 1) sizes.push_back(most);
  for (int team : sizes) {
    for (int variant = 0; variant < 3; ++variant) {
      const auto o = row_variant(variant, SpgemmNumeric::entries, team);
      const std::string what = "team of " + std::to_string(team) + variant_name(variant);
      auto h =
          check_spgemm<Scalar, Exec>(random_crs(300, 200, 12, 0.1, 150, 1),
                                     random_crs(200, 250, 10, 0.1, 200, 2), "random, " + what, o);
      EXPECT_EQ(h.symbolic_algorithm(), SpgemmSymbolic::accumulators) << what;
      // Short rows a row per thread (the narrow bin) beside rows of a team.
      EXPECT_GT(h.symbolic_row_bins().narrow, 0) << what;
      EXPECT_GT(h.symbolic_row_bins().hash, 0) << what;
      EXPECT_GT(h.row_bins().narrow, 0) << what;
      EXPECT_GT(h.row_bins().hash, 0) << what;
      for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), std::int64_t(9000)}) {
        auto const [A, B] = long_row_product(n);
        check_spgemm<Scalar, Exec>(A, B, "long rows, n = " + std::to_string(n) + ", " + what, o);
      }
      check_spgemm<Scalar, Exec>(from_entries(4, 3, {{0, 0}, {0, 2}, {2, 1}}),
                                 from_entries(3, 5, {{0, 1}, {1, 0}, {2, 2}, {2, 1}}),
                                 "empty rows, " + what, o);
    }
  }
}

// The symbolic passes' bitmap windows (SpgemmRows::window_row) on the
// concurrent path: banded rows (windows of a few words) beside wide ones
// (hundreds of words), unsorted and repeated columns in rows of B, with the
// windows off, at their default width, and capped so that one launch windows
// some rows and hashes the others; C, the positions and the unsorted output must
// match the reference every way.
TYPED_TEST(SpgemmRowKernelsTest, WindowedRowsMatchHashedRows) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 3000;
  std::vector<std::pair<std::int64_t, std::int64_t>> entries;
  for (std::int64_t i = 0; i < n; ++i) {
    // Blocks of 64 rows alternate between a band of +-40 and one of +-1500.
    const std::int64_t reach = (i / 64) % 2 == 0 ? 40 : 1500;
    std::vector<std::int64_t> cols{i};
    for (std::int64_t j = 1; j < 16; ++j) {
      const std::int64_t c = i + ((j * 7919 + i * 31) % (2 * reach + 1)) - reach;
      if (c >= 0 && c < n) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (auto c : cols) entries.push_back({i, c});
  }
  const HostCrs A = from_entries(n, n, entries);
  // B: A's rows reversed, the first column of each repeated (lanes that or one bit).
  HostCrs B;
  B.rows = B.cols = n;
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<std::int64_t> cols(A.col.begin() + A.row_starts[r],
                                   A.col.begin() + A.row_starts[r + 1]);
    cols.push_back(cols.front());
    std::reverse(cols.begin(), cols.end());
    for (auto c : cols) {
      B.col.push_back(c);
      B.val.push_back(0.5 + 0.001 * static_cast<double>(B.col.size() % 89));
    }
    B.row_starts.push_back(static_cast<std::int64_t>(B.col.size()));
  }
  const int most = most_test_team<Exec>();
  const bool concurrent_by_default = !detail::is_host_space_v<Exec>;
  for (int team : {1, most}) {
    for (int cap : {-1, 0, 16}) {
      for (int variant = 0; variant < 3; ++variant) {
        SpgemmOptions o =
            row_variant(variant, SpgemmNumeric::entries, concurrent_by_default ? 0 : team);
        o.window_words = cap;
        const std::string what = "team " + std::to_string(team) + ", window cap " +
                                 std::to_string(cap) + variant_name(variant);
        auto h = check_spgemm<Scalar, Exec>(A, B, what, o);
        EXPECT_EQ(h.keeps_positions(), variant == 0) << what;
        auto const& st = detail::SpgemmHandleAccess::state(h);
        if (cap < 0) {
          EXPECT_EQ(st.window_words_count, 0) << what;
          EXPECT_EQ(st.window_words_fill, 0) << what;
        } else {
          // Band rows span about 3-6 words, wide rows up to about 94.
          EXPECT_GT(st.window_words_count, 0) << what;
          EXPECT_GT(st.window_words_fill, 0) << what;
          EXPECT_GT(st.window_rows_fill, 0) << what;
          EXPECT_LE(st.window_words_fill, cap > 0 ? cap : detail::spgemm_max_window_words) << what;
          if (cap == 0) {
            EXPECT_GT(st.window_words_fill, 50) << what;
          }
        }
        EXPECT_EQ(st.window.extent(0), 0u) << what;
      }
    }
    if (concurrent_by_default) break;
  }
}

} // namespace
