// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// reorder/: permutations, RCM against Kokkos Kernels' graph_rcm, Band-k's
// groups, the degree ordering, the symmetric permutation and its inverse, and solving with a
// reordered matrix in the user's numbering (ReorderedOperator, or permute /
// unpermute around the solve).
#include "test_utils.hpp"

#include <spmvkit/formats/sell_offset16/sell_offset16_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/reorder/band_k.hpp>
#include <spmvkit/reorder/degree.hpp>
#include <spmvkit/reorder/rcm.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/reordered_operator.hpp>

#include <KokkosGraph_RCM.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class ReorderTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReorderTest, AllConfigs, ConfigNames);

template <class View>
std::vector<std::int64_t> host_indices(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<std::int64_t>(h.data(), h.data() + h.extent(0));
}

/// P A P^T on the host, rows sorted by column (stable), for checking.
HostCrs permuted_on_host(HostCrs const& a, std::vector<std::int64_t> const& new_to_old) {
  std::vector<std::int64_t> old_to_new(new_to_old.size());
  for (std::size_t i = 0; i < new_to_old.size(); ++i) old_to_new[new_to_old[i]] = i;
  HostCrs b;
  b.rows = b.cols = a.rows;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t r = new_to_old[i];
    std::vector<std::pair<std::int64_t, double>> row;
    for (std::int64_t k = a.row_starts[r]; k < a.row_starts[r + 1]; ++k)
      row.push_back({old_to_new[a.col[k]], a.val[k]});
    std::stable_sort(row.begin(), row.end(),
                     [](auto const& p, auto const& q) { return p.first < q.first; });
    for (auto const& [c, v] : row) {
      b.col.push_back(c);
      b.val.push_back(v);
    }
    b.row_starts.push_back(static_cast<std::int64_t>(b.col.size()));
  }
  return b;
}

/// A symmetric random permutation of a matrix (what a bad numbering looks like).
HostCrs shuffled(HostCrs const& a, unsigned seed) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(a.rows));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), std::mt19937_64(seed));
  return permuted_on_host(a, p);
}

std::int64_t host_bandwidth(HostCrs const& a) {
  std::int64_t band = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_starts[i]; k < a.row_starts[i + 1]; ++k)
      band = std::max(band, std::abs(a.col[k] - i));
  return band;
}

TYPED_TEST(ReorderTest, MakePermutationChecksAndInverts) {
  using Exec = typename TypeParam::execution_space;
  const auto P = make_permutation<int>(Exec(), std::vector<std::int64_t>{2, 0, 3, 1});
  EXPECT_EQ(host_indices(P.new_to_old()), (std::vector<std::int64_t>{2, 0, 3, 1}));
  EXPECT_EQ(host_indices(P.old_to_new()), (std::vector<std::int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(host_indices(P.inverse().new_to_old()), (std::vector<std::int64_t>{1, 3, 0, 2}));
  EXPECT_THROW(make_permutation<int>(Exec(), std::vector<std::int64_t>{0, 0, 1}),
               std::invalid_argument);
  EXPECT_THROW(make_permutation<int>(Exec(), std::vector<std::int64_t>{0, 3, 1}),
               std::invalid_argument);
  EXPECT_EQ(make_permutation<int>(Exec(), std::vector<std::int64_t>{}).size(), 0);
}

// P A P^T on the device equals the host's, and P^T (P A P^T) P gives A back
// entry for entry: for random permutations, RCM and Band-k, on matrices with
// empty rows, a dense row, FEM and the shipped real matrices.
TYPED_TEST(ReorderTest, ReorderThenUnreorderIsTheIdentity) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  std::vector<std::pair<std::string, HostCrs>> matrices = {
      {"random_with_empty_rows", random_crs(700, 700, 12, 0.2, 0, 1)},
      {"one_long_row", random_crs(300, 300, 5, 0.1, 280, 2)},
      {"banded", banded_crs(1000, 1000, 30, 10, 0.05, 3)},
      {"one_by_one", random_crs(1, 1, 1, 0.0, 0, 4)},
      {"empty_0x0", HostCrs{}},
      {"fem_N8", to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 8))}};
  for (char const* name : {"1138_bus", "cage10", "email-Enron"}) {
    matrices.push_back({name, to_host(read_matrix_market<Scalar, Exec>(
                                  std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" + name + ".mtx.gz"))});
  }
  for (auto const& [name, h] : matrices) {
    SCOPED_TRACE(name);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const HostCrs expected = to_host(A);
    std::vector<std::int64_t> random(static_cast<std::size_t>(h.rows));
    std::iota(random.begin(), random.end(), 0);
    std::shuffle(random.begin(), random.end(), std::mt19937_64(7));
    const auto R = make_permutation<int>(Exec(), random);
    const std::vector<std::pair<std::string, Permutation<int, typename Exec::device_type>>> perms =
        {{"random", R},
         {"rcm", rcm(Exec(), A)},
         {"band_k2", band_k(Exec(), A, 2, 16).permutation},
         {"band_k3", band_k(Exec(), A, 3, 8, 4).permutation},
         {"degree", degree_order(Exec(), A)}};
    for (auto const& [how, P] : perms) {
      SCOPED_TRACE(how);
      const auto B = permute_symmetric(Exec(), A, P);
      const HostCrs b = to_host(B),
                    b_expected = permuted_on_host(expected, host_indices(P.new_to_old()));
      EXPECT_EQ(b.row_starts, b_expected.row_starts);
      EXPECT_EQ(b.col, b_expected.col);
      EXPECT_EQ(b.val, b_expected.val);
      const HostCrs back = to_host(unreorder(Exec(), Reordered<decltype(B)>{B, P}));
      EXPECT_EQ(back.row_starts, expected.row_starts);
      EXPECT_EQ(back.col, expected.col);
      EXPECT_EQ(back.val, expected.val);
    }
  }
}

// The degree ordering: vertices by decreasing out- plus in-degree, ties by
// index, on a small matrix by hand and on a skewed random graph (its degrees
// non-increasing in the new numbering, and a ReorderedOperator of it applies
// the user's matrix); a rectangular matrix is refused.
TYPED_TEST(ReorderTest, DegreeOrderPutsHubsFirstTiesByIndex) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  // Degrees (row + column entries; the diagonal (4, 4) twice): 2, 5, 1, 2, 2.
  const HostCrs small = from_entries(5, 5, {{0, 1}, {1, 0}, {1, 2}, {1, 3}, {3, 1}, {4, 4}});
  EXPECT_EQ(host_indices(degree_order(Exec(), make_device_crs<Scalar, Exec>(small)).new_to_old()),
            (std::vector<std::int64_t>{1, 0, 3, 4, 2}));
  EXPECT_EQ(degree_order(Exec(), make_device_crs<Scalar, Exec>(HostCrs{})).size(), 0);
  try {
    (void)degree_order(Exec(), make_device_crs<Scalar, Exec>(random_crs(4, 6, 3, 0.0, 0, 1)));
    ADD_FAILURE() << "a 4 x 6 matrix was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("square matrix, got 4 x 6"), std::string::npos)
        << e.what();
  }

  // Columns drawn toward a few hubs (u^3), then the numbering shuffled.
  const std::int64_t n = 3000;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::pair<std::int64_t, std::int64_t>> entries;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> row;
    const int len = static_cast<int>(20 * std::pow(unit(gen), 3.0));
    for (int k = 0; k < len; ++k) {
      const double u = unit(gen);
      row.push_back(static_cast<std::int64_t>(static_cast<double>(n) * u * u * u));
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (auto c : row) entries.push_back({i, c});
  }
  const HostCrs h = shuffled(from_entries(n, n, entries), 6);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto R = reorder_degree(Exec(), A);
  const auto order = host_indices(R.permutation.new_to_old());
  std::vector<std::int64_t> degree(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) degree[i] += h.row_starts[i + 1] - h.row_starts[i];
  for (auto c : h.col) ++degree[c];
  for (std::int64_t i = 1; i < n; ++i) {
    const auto a = degree[order[i - 1]], b = degree[order[i]];
    ASSERT_TRUE(a > b || (a == b && order[i - 1] < order[i])) << "new index " << i;
  }
  EXPECT_GT(degree[order[0]], 10 * h.nnz() / n); // a hub comes first
  const HostCrs b = to_host(R.matrix), b_expected = permuted_on_host(h, order);
  EXPECT_EQ(b.row_starts, b_expected.row_starts);
  EXPECT_EQ(b.col, b_expected.col);
  const V x = random_vector<V>(n, 7, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh);
  V y("y", n);
  auto op = make_reordered_operator<CrsFormat>(Exec(), R);
  Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  op.apply(Exec(), x, y);
  EXPECT_TRUE(matches_reference<Scalar>(y, ref));
}

TYPED_TEST(ReorderTest, PermuteThenUnpermuteIsTheIdentity) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(999, 999, 9, 0.1, 0, 5));
  const auto P = rcm(Exec(), A);
  const V x = random_vector<V>(999, 3, "x");
  V x_new("x_new", 999), back("back", 999);
  permute(Exec(), P, x, x_new);
  unpermute(Exec(), P, x_new, back);
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto nh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_new);
  auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  const auto n2o = host_indices(P.new_to_old());
  for (int i = 0; i < 999; ++i) {
    ASSERT_EQ(nh(i), xh(n2o[i]));
    ASSERT_EQ(bh(i), xh(i));
  }
  V wrong("wrong", 998);
  EXPECT_THROW(permute(Exec(), P, x, wrong), std::invalid_argument);
  EXPECT_THROW(permute(Exec(), P, wrong, x_new), std::invalid_argument);
  EXPECT_THROW(unpermute(Exec(), P, x_new, wrong), std::invalid_argument);
  EXPECT_THROW(unpermute(Exec(), P, wrong, back), std::invalid_argument);
}

// A gather or scatter into its own source would read entries it has already
// overwritten: aliased or overlapping vectors are refused, naming both.
TYPED_TEST(ReorderTest, PermuteRefusesVectorsSharingStorage) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(100, 100, 5, 0.1, 0, 7));
  const auto P = rcm(Exec(), A);
  V x = random_vector<V>(100, 3, "x");
  V twice("twice", 200);
  const auto first = Kokkos::subview(twice, std::make_pair(0, 100));
  const auto shifted = Kokkos::subview(twice, std::make_pair(50, 150));
  const auto apart = Kokkos::subview(twice, std::make_pair(100, 200));
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (std::invalid_argument const& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message([&] { permute(Exec(), P, x, x); }),
            "spmvkit::permute: x and x_new must not share storage");
  EXPECT_EQ(message([&] { unpermute(Exec(), P, x, x); }),
            "spmvkit::unpermute: y_new and y must not share storage");
  EXPECT_THROW(permute(Exec(), P, first, shifted), std::invalid_argument);
  EXPECT_THROW(unpermute(Exec(), P, shifted, first), std::invalid_argument);
  EXPECT_EQ(message([&] { permute(Exec(), P, x, V("short", 99)); }),
            "spmvkit::permute: x_new has 99 entries, the permutation 100");
  // Two halves of one allocation are apart: accepted.
  EXPECT_NO_THROW(permute(Exec(), P, first, apart));
  EXPECT_NO_THROW(unpermute(Exec(), P, apart, first));
}

// A banded matrix in a random numbering: RCM must bring the band back near
// its original width (never wider than the shuffled matrix), and not lose to
// Kokkos Kernels' graph_rcm by more than a little.
TYPED_TEST(ReorderTest, RcmNarrowsShuffledBandedMatrices) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (std::int64_t K : {1, 5, 40}) {
    SCOPED_TRACE("K = " + std::to_string(K));
    // Every row holds its whole band: a K-banded pattern of bandwidth K.
    const HostCrs band = banded_crs(3000, 3000, K, static_cast<int>(2 * K + 1), 0.0, 11);
    const HostCrs h = shuffled(band, 12);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto R = reorder_rcm(Exec(), A);
    const std::int64_t before = bandwidth(Exec(), A), after = bandwidth(Exec(), R.matrix);
    EXPECT_EQ(before, host_bandwidth(h));
    EXPECT_LE(after, before);
    EXPECT_LE(after, 2 * host_bandwidth(band));
    EXPECT_EQ(bandwidth(Exec(), unreorder(Exec(), R)), before);
  }
}

/// Kokkos Kernels' RCM on the same symmetrized pattern, as a permutation.
template <class Exec, class Crs>
auto kokkos_kernels_rcm(Crs const& A) {
  const auto g = detail::host_pattern(A, "test");
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> starts("starts", g.n + 1),
      adj("adj", g.adj.size());
  for (std::int64_t i = 0; i <= g.n; ++i) starts(i) = g.starts[i];
  for (std::size_t k = 0; k < g.adj.size(); ++k) adj(k) = g.adj[k];
  const auto labels =
      KokkosGraph::Experimental::graph_rcm<Kokkos::HostSpace::device_type>(starts, adj);
  std::vector<std::int64_t> new_to_old(static_cast<std::size_t>(g.n));
  for (std::int64_t v = 0; v < g.n; ++v) new_to_old[labels(v)] = v; // labels: old -> new
  return make_permutation<int>(Exec(), new_to_old);
}

// RCM beside Kokkos Kernels' graph_rcm on the shipped matrices: the bandwidth
// of each (printed), ours within 10% of theirs, and how many matrices become
// SellOffset16-able (every entry within int16 of the diagonal) after RCM.
TYPED_TEST(ReorderTest, RcmAgainstKokkosKernelsOnShippedMatrices) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  if (sizeof(Scalar) != 8) GTEST_SKIP() << "the pattern alone matters: double only";
  int sell_offset16_before = 0, sell_offset16_after = 0;
  for (char const* name : {"1138_bus", "bcsstk08", "bcsstk14", "cage10", "email-Enron"}) {
    const auto A = read_matrix_market<Scalar, Exec>(std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" +
                                                    name + ".mtx.gz");
    const auto ours = reorder_rcm(Exec(), A);
    const auto theirs = permute_symmetric(Exec(), A, kokkos_kernels_rcm<Exec>(A));
    const std::int64_t b0 = bandwidth(Exec(), A), b1 = bandwidth(Exec(), ours.matrix),
                       b2 = bandwidth(Exec(), theirs);
    std::cout << "[ rcm      ] " << name << ": bandwidth " << b0 << ", RCM " << b1
              << ", Kokkos Kernels graph_rcm " << b2 << "\n";
    EXPECT_LE(b1, b2 + b2 / 10 + 2) << name;
    sell_offset16_before += can_use_sell_offset16(Exec(), A);
    sell_offset16_after += can_use_sell_offset16(Exec(), ours.matrix);
  }
  // email-Enron (36,692 rows, bandwidth 34,414) fits int16 offsets only after RCM.
  EXPECT_EQ(sell_offset16_before, 4);
  EXPECT_EQ(sell_offset16_after, 5);
}

TYPED_TEST(ReorderTest, BandKGroupsAreContiguousAndCoverEveryRow) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar, Exec>(Exec(), 14);
  const std::int64_t n = A.num_rows();
  for (int k : {2, 3}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const auto g = band_k(Exec(), A, k, 24, 5);
    EXPECT_EQ(g.k, k);
    const auto sr = host_indices(g.super_rows);
    ASSERT_GE(sr.size(), 2u);
    EXPECT_EQ(sr.front(), 0);
    EXPECT_EQ(sr.back(), n);
    // Runs of exactly the target but for the last one.
    for (std::size_t s = 0; s + 1 < sr.size(); ++s)
      ASSERT_EQ(sr[s + 1] - sr[s],
                s + 2 < sr.size() ? std::int64_t(24) : n - 24 * static_cast<std::int64_t>(s))
          << "super-row " << s;
    if (k == 3) {
      const auto ssr = host_indices(g.super_super_rows);
      EXPECT_EQ(ssr.front(), 0);
      EXPECT_EQ(ssr.back(), g.num_super_rows());
      for (std::size_t t = 0; t + 1 < ssr.size(); ++t)
        ASSERT_EQ(ssr[t + 1] - ssr[t], t + 2 < ssr.size()
                                           ? std::int64_t(5)
                                           : g.num_super_rows() - 5 * static_cast<std::int64_t>(t));
    } else {
      EXPECT_EQ(g.super_super_rows.extent(0), 0u);
    }
    // Band-k is a bandwidth-limiting ordering, a little wider than RCM's.
    // (RCM itself widens FEM's natural band, (N-1)^2 + (N-1) + 1 = 183: its
    // level sets from a corner are diagonal planes.)
    const auto B = permute_symmetric(Exec(), A, g.permutation);
    const std::int64_t rcm_band = bandwidth(Exec(), reorder_rcm(Exec(), A).matrix);
    std::cout << "[ band-k   ] FEM N = 14, k = " << k << ": bandwidth " << bandwidth(Exec(), A)
              << " -> " << bandwidth(Exec(), B) << " (RCM " << rcm_band << "), "
              << g.num_super_rows() << " super-rows\n";
    EXPECT_LE(bandwidth(Exec(), B), 2 * rcm_band);
  }
  EXPECT_THROW(band_k(Exec(), A, 4, 8), std::invalid_argument);
  EXPECT_THROW(band_k(Exec(), A, 2, 0), std::invalid_argument);
  EXPECT_THROW(band_k(Exec(), make_device_crs<Scalar, Exec>(random_crs(5, 6, 2, 0, 0, 1)), 2, 4),
               std::invalid_argument);
  EXPECT_THROW(rcm(Exec(), make_device_crs<Scalar, Exec>(random_crs(5, 6, 2, 0, 0, 1))),
               std::invalid_argument);
}

// spmv through a ReorderedOperator takes and returns the user's numbering.
TYPED_TEST(ReorderTest, ReorderedOperatorAppliesTheOriginalMatrix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = shuffled(banded_crs(2000, 2000, 20, 15, 0.05, 21), 22);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto R = reorder_rcm(Exec(), A);
  const V x = random_vector<V>(2000, 23, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto ref = reference_spmv<Scalar>(h, 1.0, xh, 0.0, xh);
  V y("y", 2000), d("d", 2000);
  for_each_type(format_list{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    SCOPED_TRACE(F::family);
    if (!F::obstacle(Exec(), R.matrix, {}).empty()) return;
    auto op = make_reordered_operator<F>(Exec(), R);
    Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
    op.apply(Exec(), x, y);
    EXPECT_TRUE(matches_reference<Scalar>(y, ref));
    op.diagonal(Exec(), d);
    auto dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
    for (std::int64_t i = 0; i < h.rows; ++i) {
      double expected = 0;
      for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
        if (h.col[k] == i) expected += static_cast<Scalar>(h.val[k]);
      ASSERT_EQ(dh(i), static_cast<Scalar>(expected)) << "row " << i;
    }
    EXPECT_GT(op.bytes().matrix, F::bytes(op.matrix()).matrix);
  });
}

// A permutation of another size, handed back with the wrong matrix, is refused
// with both sizes named.
TYPED_TEST(ReorderTest, ReorderedOperatorRefusesAPermutationOfAnotherSize) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(60, 60, 4, 0.1, 0, 31));
  const auto other = rcm(Exec(), make_device_crs<Scalar, Exec>(random_crs(59, 59, 4, 0.1, 0, 32)));
  try {
    const ReorderedOperator<std::decay_t<decltype(A)>> op(A, other);
    ADD_FAILURE() << "no exception for a matrix of " << op.num_rows() << " rows";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("the matrix is 60 x 60, the permutation has 59 entries"),
              std::string::npos)
        << e.what();
  }
}

// CG on a reordered SPD matrix converges to the same solution, with the same
// iteration count up to rounding (CG is invariant under symmetric
// permutations), both through a ReorderedOperator and by permuting b and
// unpermuting x around a solve with the reordered matrix.
TYPED_TEST(ReorderTest, CgOnReorderedSpdMatrixGivesTheSameSolution) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const double tol = sizeof(Scalar) == 8 ? 1e-8 : 1e-4;
  std::vector<std::pair<std::string, CrsMatrix<Scalar, Exec>>> problems;
  problems.push_back({"fem_N12", make_fem_poisson_crs<Scalar, Exec>(Exec(), 12)});
  for (char const* name : {"1138_bus", "bcsstk14"}) {
    problems.push_back({name, read_matrix_market<Scalar, Exec>(
                                  std::string(SPMVKIT_TEST_MATRIX_DIR) + "/" + name + ".mtx.gz")});
  }
  for (auto const& [name, A] : problems) {
    SCOPED_TRACE(name);
    const std::int64_t n = A.num_rows();
    const V b = random_vector<V>(n, 31, "b");
    CgOptions opts;
    opts.relative_tolerance = tol;
    opts.max_iterations = 20000;
    opts.jacobi = true;
    V x_ref("x_ref", n), x_op("x_op", n), x_new("x_new", n), b_new("b_new", n), x("x", n);
    const CgResult ref = cg(Exec(), A, b, x_ref, opts);
    if (!ref.converged()) {
      // Single precision cannot reach the tolerance on 1138_bus: nothing to compare.
      EXPECT_EQ(sizeof(Scalar), 4u) << ref.message;
      continue;
    }
    for (auto const& [how, R] :
         {std::make_pair(std::string("rcm"), reorder_rcm(Exec(), A)),
          std::make_pair(std::string("band_k3"), reorder_band_k(Exec(), A, 3, 16, 4))}) {
      SCOPED_TRACE(how);
      auto op = make_reordered_operator<CrsFormat>(Exec(), R);
      const CgResult r1 = cg(Exec(), op, b, x_op, opts);
      permute(Exec(), R.permutation, b, b_new);
      const CgResult r2 = cg(Exec(), R.matrix, b_new, x_new, opts);
      unpermute(Exec(), R.permutation, x_new, x);
      for (CgResult const* r : {&r1, &r2}) {
        EXPECT_TRUE(r->converged()) << r->message;
        EXPECT_LE(r->true_relative_residual, tol);
        EXPECT_NEAR(r->iterations, ref.iterations, 2 + ref.iterations / 20);
      }
      auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_ref);
      for (V const& v : {x_op, x}) {
        auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
        double diff = 0, norm = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          diff += std::pow(double(c(i)) - double(a(i)), 2);
          norm += std::pow(double(a(i)), 2);
        }
        // Both solve to the tolerance; the condition number (bcsstk14: ~1e10
        // before scaling) bounds how far apart their x may be.
        EXPECT_LE(std::sqrt(diff / norm), sizeof(Scalar) == 8 ? 1e-4 : 1e-1);
      }
    }
  }
}

} // namespace
