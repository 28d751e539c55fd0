// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The places in C of the products, kept by the symbolic phase
// (spgemm/detail/spgemm_product_places.hpp, SpgemmNumeric::positions): their
// width, the memory limit, long rows in chunks, rows of B with repeated or
// unsorted columns, and the numeric phase by entry of A
// (spgemm/detail/spgemm_product_entries.hpp, SpgemmNumeric::entries).

#include "spgemm/spgemm_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpgemmProductPlacesTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmProductPlacesTest, AllConfigs, ConfigNames);

// The stored positions: 16-bit where every row of C is at most 65536 long,
// 32-bit beyond; the same product as hashing; off for unsorted rows; dropped,
// not refused, when they would break the limit, whichever strategy asked.
TYPED_TEST(SpgemmProductPlacesTest, ProductPlacesAreKeptAtTheirWidth) {
  // Positions: 2 or 4 bytes a multiply-add; starts: nnz(A) + 1 entries and the fingerprint.
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 8));
  auto h = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, positions");
  ASSERT_TRUE(h.keeps_positions());
  EXPECT_FALSE(h.keeps_product_lists());
  EXPECT_EQ(h.memory().positions_bytes,
            static_cast<std::uint64_t>(h.multiply_adds()) * 2 + (F.nnz() + 2) * 8);
  EXPECT_LE(h.memory().positions_bytes, h.memory().workspace_bytes);
  auto g =
      check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, hashing", spgemm_options(SpgemmNumeric::hash));
  EXPECT_FALSE(g.keeps_positions());
  EXPECT_EQ(g.memory().positions_bytes, 0u);
  SpgemmOptions unsorted;
  unsorted.sort_columns = false;
  auto u = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, unsorted", unsorted);
  EXPECT_FALSE(u.keeps_positions());

  // Two rows of C of 70000 entries: positions need 32 bits.
  const std::int64_t n = 70000;
  std::vector<std::pair<std::int64_t, std::int64_t>> wide;
  for (std::int64_t j = 0; j < n; ++j) wide.push_back({j % 2, j});
  const HostCrs A = from_entries(3, 2, {{0, 0}, {1, 0}, {1, 1}, {2, 1}});
  for (auto numeric : {SpgemmNumeric::automatic, SpgemmNumeric::positions}) {
    auto w = check_spgemm<Scalar, Exec>(A, from_entries(2, n, wide),
                                        std::string("rows of 70000, ") + to_string(numeric),
                                        spgemm_options(numeric));
    ASSERT_TRUE(w.keeps_positions());
    EXPECT_EQ(w.memory().positions_bytes,
              static_cast<std::uint64_t>(w.multiply_adds()) * 4 + (A.nnz() + 2) * 8);
  }

  // A limit between the peak without positions and the peak with them (without
  // the row starts that the numeric phase by entry of A adds): every strategy
  // hashes instead.
  const Exec exec;
  const auto dF = make_device_crs<Scalar, Exec>(F);
  SpgemmHandle<Scalar, Exec> places_only(spgemm_options(SpgemmNumeric::positions));
  spgemm_symbolic(exec, places_only, dF, dF);
  ASSERT_EQ(places_only.numeric_algorithm(), SpgemmNumeric::positions);
  const std::uint64_t with = places_only.memory().peak_bytes;
  const std::uint64_t without = g.memory().peak_bytes;
  ASSERT_LT(without, with);
  for (auto numeric : {SpgemmNumeric::automatic, SpgemmNumeric::positions, SpgemmNumeric::entries,
                       SpgemmNumeric::product_lists}) {
    SpgemmOptions tight = spgemm_options(numeric);
    tight.memory_limit = with - 1;
    auto t = check_spgemm<Scalar, Exec>(
        F, F, std::string("FEM N=8 A*A, limit below the positions, ") + to_string(numeric), tight);
    EXPECT_FALSE(t.keeps_positions());
    EXPECT_EQ(t.numeric_algorithm(), SpgemmNumeric::hash);
    EXPECT_LE(t.memory().peak_bytes, tight.memory_limit);
  }
  // Where the numeric phase goes by entry of A (asked for; by default on GPUs),
  // a limit that holds the positions but not those row starts keeps the
  // positions and the row kernels.
  auto e = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, by entry",
                                      spgemm_options(SpgemmNumeric::entries));
  for (auto const* x : {&h, &e}) {
    if (x->numeric_algorithm() != SpgemmNumeric::entries) continue;
    ASSERT_LT(with, x->memory().peak_bytes);
    SpgemmOptions tight = x->options();
    tight.memory_limit = x->memory().peak_bytes - 1;
    auto r =
        check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, limit below the entries' row starts", tight);
    EXPECT_TRUE(r.keeps_positions());
    EXPECT_EQ(r.numeric_algorithm(), SpgemmNumeric::positions);
    EXPECT_EQ(detail::SpgemmHandleAccess::state(r).entry_c_start.extent(0), 0u);
    EXPECT_LE(r.memory().peak_bytes, tight.memory_limit);
  }
}

// Without a configured limit (GPUs query none), an optional structure (positions, lists, entry
// starts) is kept only where its bytes fit the memory the space has free; with a limit, the
// handle's peak decides.
TYPED_TEST(SpgemmProductPlacesTest, OptionalStructuresFitTheFreeMemoryOrTheLimit) {
  using Memory = typename TypeParam::execution_space::memory_space;
  const detail::SpgemmLimit none;
  EXPECT_TRUE(detail::spgemm_optional_fits<Memory>(none, 1u << 20, 1));
  const MemoryLimit room = detail::memory_space_available<Memory>();
  if (room.known()) {
    EXPECT_FALSE(detail::spgemm_optional_fits<Memory>(none, 0, 2 * room.bytes));
    EXPECT_TRUE(detail::spgemm_optional_fits<Memory>(none, 0, room.bytes / 8));
  }
  const detail::SpgemmLimit limit{1000, "test"};
  EXPECT_TRUE(detail::spgemm_optional_fits<Memory>(limit, 1000, std::uint64_t(1) << 40));
  EXPECT_FALSE(detail::spgemm_optional_fits<Memory>(limit, 1001, 0));
}

// Long rows on the concurrent path go to SpgemmPositionChunks, which splits a
// row's products into chunks (64 products each with a team size): chunks
// that start inside an entry's row of B, rows of B longer than several chunks,
// and empty rows of B (no products) at the start, the middle and the end of a
// row of A, where the search for a product's entry must skip them. A row of B
// of 9000 entries also keeps `entries` on the row kernels.
TYPED_TEST(SpgemmProductPlacesTest, ChunkedLongRowsWithEmptyAndLongRowsOfB) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 300000;
  std::mt19937_64 gen(21);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::vector<std::pair<std::int64_t, std::int64_t>> b, a;
  for (std::int64_t i = 0; i < 200; ++i) {
    const std::size_t len = (i >= 10 && i < 20) || i == 0 || i == 199 ? 0 : i == 149 ? 9000 : 100;
    std::set<std::int64_t> cs;
    while (cs.size() < len) cs.insert(col(gen));
    for (auto c : cs) b.push_back({i, c});
  }
  // Row 1 reads rows 0-149 and 199 of B (22900 products: beyond the scratch
  // hash table on every backend); row 2 reads row 149 alone (one entry of A,
  // 9000 products, also beyond it); row 0 reads short rows only.
  for (std::int64_t k = 0; k < 150; ++k) a.push_back({1, k});
  a.push_back({1, 199});
  a.push_back({2, 149});
  for (std::int64_t k : {3, 4, 5}) a.push_back({0, k});
  const HostCrs A = from_entries(3, 200, a), B = from_entries(200, n, b);
  const int most = most_test_team<Exec>();
  for (int team : {1, most}) {
    for (auto numeric : {SpgemmNumeric::positions, SpgemmNumeric::entries}) {
      const std::string what =
          "chunked rows, team of " + std::to_string(team) + ", " + to_string(numeric);
      auto h = check_spgemm<Scalar, Exec>(A, B, what,
                                          spgemm_options(numeric, SpgemmSymbolic::automatic, team));
      EXPECT_TRUE(h.keeps_positions()) << what;
      EXPECT_EQ(h.numeric_algorithm(), SpgemmNumeric::positions) << what;
      EXPECT_GT(h.row_bins().dense + h.row_bins().global, 0) << what;
    }
  }
}

// Rows of B that repeat a column or are not sorted: the row-per-thread
// numeric kernel (many short rows, so that it runs on GPUs too) must add with
// atomics there; rows of strictly increasing columns let it add plainly. The
// same by entry of A (atomics always) and from lists of products.
TYPED_TEST(SpgemmProductPlacesTest, RowsOfBWithRepeatedOrUnsortedColumns) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t m = 40000, k = 500, n = 700;
  std::vector<std::pair<std::int64_t, std::int64_t>> a, b;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < 3; ++j) a.push_back({i, (i * 7 + j * 131) % k});
  }
  for (std::int64_t r = 0; r < k; ++r) {
    for (std::int64_t j = 0; j < 6; ++j) b.push_back({r, (r * 3 + j * 17) % n});
  }
  std::sort(b.begin(), b.end());
  const HostCrs ha = from_entries(m, k, a);
  const HostCrs sorted = from_entries(k, n, b);
  // Each row of B repeats its first column twice more (three lanes add to
  // one place of C), and every other row is reversed.
  HostCrs repeated;
  repeated.rows = k;
  repeated.cols = n;
  for (std::int64_t r = 0; r < k; ++r) {
    std::vector<std::int64_t> cols(sorted.col.begin() + sorted.row_starts[r],
                                   sorted.col.begin() + sorted.row_starts[r + 1]);
    cols.push_back(cols.front());
    cols.insert(cols.begin() + 2, cols.front());
    if (r % 2 == 1) std::reverse(cols.begin(), cols.end());
    for (auto c : cols) {
      repeated.col.push_back(c);
      repeated.val.push_back(0.25 + 0.001 * static_cast<double>(repeated.col.size() % 97));
    }
    repeated.row_starts.push_back(static_cast<std::int64_t>(repeated.col.size()));
  }
  const int most = most_test_team<Exec>();
  for (int team : {0, most}) {
    for (auto numeric : {SpgemmNumeric::positions, SpgemmNumeric::entries}) {
      const auto o = spgemm_options(numeric, SpgemmSymbolic::automatic, team);
      const std::string what = strategy_name(o);
      auto h = check_spgemm<Scalar, Exec>(ha, sorted, "strict rows of B, " + what, o);
      EXPECT_TRUE(h.keeps_positions()) << what;
      EXPECT_TRUE(detail::SpgemmHandleAccess::state(h).b_rows_strict) << what;
      auto r = check_spgemm<Scalar, Exec>(ha, repeated, "repeated columns, " + what, o);
      EXPECT_TRUE(r.keeps_positions()) << what;
      EXPECT_FALSE(detail::SpgemmHandleAccess::state(r).b_rows_strict) << what;
      if (team > 1 || !detail::is_host_space_v<Exec>) {
        EXPECT_GT(r.row_bins().narrow, 0) << what;
      }
    }
    const auto o = spgemm_options(SpgemmNumeric::product_lists, SpgemmSymbolic::automatic, team);
    auto l = check_spgemm<Scalar, Exec>(ha, repeated, "repeated columns, " + strategy_name(o), o);
    EXPECT_TRUE(l.keeps_product_lists()) << strategy_name(o);
    // Hashing, whose short rows a thread sums (SpgemmSearchRows) with a team size and, where
    // they fill the device, on GPUs: plain adds for strict rows of B, atomics for the others.
    const auto hashing = spgemm_options(SpgemmNumeric::hash, SpgemmSymbolic::automatic, team);
    const std::string how = strategy_name(hashing);
    auto hs = check_spgemm<Scalar, Exec>(ha, sorted, "strict rows of B, " + how, hashing);
    auto hr = check_spgemm<Scalar, Exec>(ha, repeated, "repeated columns, " + how, hashing);
    for (auto const* h : {&hs, &hr}) {
      auto const& st = detail::SpgemmHandleAccess::state(*h);
      if (team > 0) {
        EXPECT_TRUE(st.search_rows) << how;
      }
      EXPECT_EQ(st.b_rows_strict, h == &hs) << how;
    }
  }
}

// The numeric phase by entry of A: taken where asked for on every backend
// (host ones too, with and without a team size) wherever no row of B exceeds
// 2048 entries, the row kernels beyond; never by default on host backends.
TYPED_TEST(SpgemmProductPlacesTest, ByEntryOfAWhereRowsOfBAreShort) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  constexpr bool host = detail::is_host_space_v<Exec>;
  const int most = most_test_team<Exec>();
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 6));
  const auto G = rmat_like(9, 8, 17);
  for (int team : {0, most}) {
    for (auto const& [a, b, name] :
         {std::make_tuple(F, F, "FEM N=6 A*A"),
          std::make_tuple(G, host_transpose(G), "R-MAT A*A^T"),
          std::make_tuple(random_crs(300, 200, 12, 0.1, 150, 1),
                          random_crs(200, 250, 10, 0.1, 200, 2), "random rectangular")}) {
      const auto o = spgemm_options(SpgemmNumeric::entries, SpgemmSymbolic::automatic, team);
      const std::string what = std::string(name) + ", " + strategy_name(o);
      auto h = check_spgemm<Scalar, Exec>(a, b, what, o);
      ASSERT_EQ(h.numeric_algorithm(), SpgemmNumeric::entries) << what;
      EXPECT_EQ(detail::SpgemmHandleAccess::state(h).entry_c_start.extent(0),
                static_cast<std::size_t>(a.nnz()))
          << what;
      auto d = check_spgemm<Scalar, Exec>(
          a, b, std::string(name) + ", default",
          spgemm_options(SpgemmNumeric::automatic, SpgemmSymbolic::automatic, team));
      if (host || team > 0) {
        EXPECT_NE(d.numeric_algorithm(), SpgemmNumeric::entries) << name;
      }
    }
  }
  // A row of B of 2048 entries still goes by entry, one of 2049 does not.
  for (std::int64_t len : {std::int64_t(2048), std::int64_t(2049)}) {
    std::vector<std::pair<std::int64_t, std::int64_t>> b{{0, 0}, {2, 3}};
    for (std::int64_t j = 0; j < len; ++j) b.push_back({1, 2 * j});
    std::sort(b.begin(), b.end());
    const HostCrs A = from_entries(4, 3, {{0, 0}, {0, 1}, {1, 1}, {2, 2}, {3, 1}, {3, 2}});
    const std::string what = "a row of B of " + std::to_string(len);
    auto h = check_spgemm<Scalar, Exec>(A, from_entries(3, 2 * len, b), what,
                                        spgemm_options(SpgemmNumeric::entries));
    EXPECT_EQ(h.numeric_algorithm(),
              len <= 2048 ? SpgemmNumeric::entries : SpgemmNumeric::positions)
        << what;
  }
}

} // namespace
