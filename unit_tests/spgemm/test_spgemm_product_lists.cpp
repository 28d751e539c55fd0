// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The numeric phase from lists of products by entry of C
// (spgemm/detail/spgemm_product_lists.hpp, SpgemmNumeric::product_lists).

#include "spgemm/spgemm_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpgemmProductListsTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmProductListsTest, AllConfigs, ConfigNames);

// The lists on every backend, with each backend's teams and with teams of
// one thread and of several (SpgemmOptions::team_size): every accumulator's
// rows, rows of B longer than a team, a row of A spread over many teams, and
// repeated numeric phases on new values.
TYPED_TEST(SpgemmProductListsTest, ProductListsMatchReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int most = most_test_team<Exec>();
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 6));
  const auto G = rmat_like(9, 8, 17);
  auto const [L, R] = long_row_product(20000);
  for (int team : {0, most}) {
    const std::string what = ", team size " + std::to_string(team);
    for (auto const& [a, b, name] :
         {std::make_tuple(F, F, "FEM N=6 A*A"),
          std::make_tuple(G, host_transpose(G), "R-MAT A*A^T"), std::make_tuple(L, R, "long rows"),
          std::make_tuple(random_crs(300, 200, 12, 0.1, 150, 1),
                          random_crs(200, 250, 10, 0.1, 200, 2), "random rectangular")}) {
      // 32-bit pairs, and 64-bit ones where they are asked for.
      for (bool wide : {false, true}) {
        SpgemmOptions o =
            spgemm_options(SpgemmNumeric::product_lists, SpgemmSymbolic::automatic, team);
        o.wide_product_lists = wide;
        auto h = check_spgemm<Scalar, Exec>(a, b, name + what + (wide ? ", wide" : ""), o);
        ASSERT_TRUE(h.keeps_product_lists()) << name << what;
        EXPECT_TRUE(h.keeps_positions()) << name << what;
        // A pair of indices per multiply-add, an end per entry of C (two more:
        // the launch's fingerprint sum and the count of long lists), and room
        // for every list longer than long_list: all the handle keeps besides C.
        auto const& st = detail::SpgemmHandleAccess::state(h);
        EXPECT_EQ(st.list_pairs64.extent(0) > 0, wide) << name << what;
        const std::int64_t long_list = st.list_plan.long_list;
        const std::int64_t long_max =
            long_list < h.multiply_adds() ? h.multiply_adds() / (long_list + 1) : 0;
        EXPECT_LE(st.list_long_count, long_max) << name << what;
        EXPECT_EQ(h.memory().positions_bytes,
                  static_cast<std::uint64_t>(h.multiply_adds()) * (wide ? 16 : 8) +
                      static_cast<std::uint64_t>(h.nnz() + 2) * 8 +
                      static_cast<std::uint64_t>(long_max + 1) * 8)
            << name << what;
        EXPECT_EQ(h.memory().workspace_bytes, h.memory().positions_bytes) << name << what;
        // A team size takes lists longer than 4 apart (a FEM product's
        // entries hold up to 27 products).
        if (team > 0) {
          EXPECT_GT(st.list_long_count, 0) << name << what;
        }
      }
    }
  }
  // New values on the same handle, three times (the launch's fingerprint sum
  // and count start from zero each time).
  const Exec exec;
  HostCrs ha = random_crs(400, 300, 15, 0.05, 250, 13);
  const HostCrs hb = random_crs(300, 350, 15, 0.05, 300, 14);
  auto A = make_device_crs<Scalar, Exec>(ha);
  auto B = make_device_crs<Scalar, Exec>(hb);
  const SpgemmOptions always = spgemm_options(SpgemmNumeric::product_lists);
  SpgemmHandle<Scalar, Exec> handle(always);
  spgemm_symbolic(exec, handle, A, B);
  ASSERT_TRUE(handle.keeps_product_lists());
  for (int round = 0; round < 3; ++round) {
    for (auto& v : ha.val) v = -0.5 * v + 0.25;
    Kokkos::deep_copy(A.values(), make_device_crs<Scalar, Exec>(ha).values());
    auto C = spgemm_numeric(exec, handle, A, B);
    exec.fence();
    EXPECT_TRUE(matches_product<Scalar>(to_host(C), host_product<Scalar>(ha, hb), true,
                                        "lists, new values, round " + std::to_string(round)));
  }
  // Where the lists would break the memory limit they are not kept (the positions are).
  SpgemmOptions tight = always;
  tight.memory_limit = handle.memory().peak_bytes - 1;
  auto t = check_spgemm<Scalar, Exec>(ha, hb, "lists over the limit", tight);
  EXPECT_FALSE(t.keeps_product_lists());
  EXPECT_EQ(t.numeric_algorithm(), SpgemmNumeric::positions);
  EXPECT_LE(t.memory().peak_bytes, tight.memory_limit);
}

} // namespace
