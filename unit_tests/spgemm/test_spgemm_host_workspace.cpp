// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host symbolic phase's dense workspace per thread
// (spgemm/detail/spgemm_host_workspace.hpp, SpgemmSymbolic::workspace)
// against the binned accumulators, and its fallback under the memory limit.

#include "spgemm/spgemm_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpgemmHostWorkspaceTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmHostWorkspaceTest, AllConfigs, ConfigNames);

// The workspace (forced wherever it fits) and the binned accumulators give
// the same C on shapes with rows longer than any scratch table, empty rows
// and columns, rectangular factors and degenerate shapes, sorted with and
// without the positions, and unsorted. GPU backends never take the workspace.
TYPED_TEST(SpgemmHostWorkspaceTest, HostWorkspaceAndBinnedAccumulatorsAgree) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  constexpr bool host = detail::is_host_space_v<Exec>;
  std::vector<std::pair<std::string, std::pair<HostCrs, HostCrs>>> cases;
  for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), std::int64_t(9000)}) {
    cases.push_back({"long rows, n = " + std::to_string(n), long_row_product(n)});
  }
  cases.push_back({"random 300x200 * 200x250",
                   {random_crs(300, 200, 12, 0.1, 150, 1), random_crs(200, 250, 10, 0.1, 200, 2)}});
  cases.push_back({"empty rows and columns",
                   {from_entries(4, 3, {{0, 0}, {0, 2}, {2, 1}}),
                    from_entries(3, 5, {{0, 1}, {1, 0}, {2, 2}, {2, 1}})}});
  cases.push_back({"0x7 * 7x0", {from_entries(0, 7, {}), from_entries(7, 0, {})}});
  cases.push_back({"5x0 * 0x6", {from_entries(5, 0, {}), from_entries(0, 6, {})}});
  cases.push_back({"zero factors", {from_entries(5, 4, {}), from_entries(4, 6, {})}});
  std::vector<std::pair<std::int64_t, std::int64_t>> row, column;
  for (std::int64_t j = 0; j < 300; ++j) {
    row.push_back({0, j});
    column.push_back({j, 0});
  }
  cases.push_back({"dot product", {from_entries(1, 300, row), from_entries(300, 1, column)}});
  cases.push_back({"outer product", {from_entries(300, 1, column), from_entries(1, 300, row)}});
  const auto G = rmat_like(9, 8, 3);
  cases.push_back({"R-MAT-like scale 9, A*A^T", {G, host_transpose(G)}});
  for (auto const& [name, AB] : cases) {
    auto const& [A, B] = AB;
    for (int variant = 0; variant < 3; ++variant) {
      int kept = -1;
      for (auto symbolic : {SpgemmSymbolic::workspace, SpgemmSymbolic::accumulators}) {
        const auto o = spgemm_options(variant == 0 ? SpgemmNumeric::automatic : SpgemmNumeric::hash,
                                      symbolic, 0, variant < 2);
        const std::string what = name + ", " + strategy_name(o);
        auto h = check_spgemm<Scalar, Exec>(A, B, what, o);
        const bool used = h.memory().symbolic_workspace_bytes > 0;
        EXPECT_EQ(used, host && symbolic == SpgemmSymbolic::workspace && A.rows > 0 && B.cols > 0)
            << what;
        EXPECT_EQ(h.symbolic_algorithm(),
                  used ? SpgemmSymbolic::workspace : SpgemmSymbolic::accumulators)
            << what;
        if (used) {
          EXPECT_GE(h.memory().peak_bytes,
                    h.memory().output_bytes + h.memory().symbolic_workspace_bytes)
              << what;
        }
        // Both ways keep the positions under the same rule.
        if (kept >= 0) {
          EXPECT_EQ(h.keeps_positions(), kept == 1) << what;
        }
        kept = h.keeps_positions() ? 1 : 0;
      }
    }
  }
}

// The rule and the limit: FEM products take the workspace by default on host
// backends; a memory limit that leaves room for the binned accumulators but
// not for the workspace falls back to them, with the same C. A team size (the
// concurrent path) never takes it.
TYPED_TEST(SpgemmHostWorkspaceTest, HostWorkspaceFallsBackUnderTheMemoryLimit) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  constexpr bool host = detail::is_host_space_v<Exec>;
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 6));
  auto d = check_spgemm<Scalar, Exec>(F, F, "FEM N=6 A*A, default");
  EXPECT_EQ(d.memory().symbolic_workspace_bytes > 0, host);
  EXPECT_EQ(d.symbolic_algorithm(),
            host ? SpgemmSymbolic::workspace : SpgemmSymbolic::accumulators);
  auto team = check_spgemm<Scalar, Exec>(
      F, F, "FEM N=6 A*A, workspace and a team size",
      spgemm_options(SpgemmNumeric::automatic, SpgemmSymbolic::workspace, 1));
  EXPECT_EQ(team.memory().symbolic_workspace_bytes, 0u);
  // B with 300000 columns: 1.2 MB of marks per thread against a C of ~100 KB.
  auto const [A, B] = long_row_product(300000);
  auto off = check_spgemm<Scalar, Exec>(
      A, B, "wide B, bins", spgemm_options(SpgemmNumeric::automatic, SpgemmSymbolic::accumulators));
  EXPECT_EQ(off.memory().symbolic_workspace_bytes, 0u);
  auto on = check_spgemm<Scalar, Exec>(
      A, B, "wide B, workspace",
      spgemm_options(SpgemmNumeric::automatic, SpgemmSymbolic::workspace));
  if (!host) {
    EXPECT_EQ(on.memory().symbolic_workspace_bytes, 0u);
    return;
  }
  ASSERT_GT(on.memory().symbolic_workspace_bytes, 0u);
  ASSERT_LT(off.memory().peak_bytes, on.memory().peak_bytes);
  SpgemmOptions tight = spgemm_options(SpgemmNumeric::automatic, SpgemmSymbolic::workspace);
  tight.memory_limit = off.memory().peak_bytes;
  auto t = check_spgemm<Scalar, Exec>(A, B, "wide B, limit below the workspace", tight);
  EXPECT_EQ(t.memory().symbolic_workspace_bytes, 0u);
  EXPECT_EQ(t.symbolic_algorithm(), SpgemmSymbolic::accumulators);
  EXPECT_TRUE(t.keeps_positions());
  EXPECT_LE(t.memory().peak_bytes, tight.memory_limit);
}

} // namespace
