// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// assemble_crs, refill and AssemblyPattern (operations/assembly.hpp): random
// unsorted triplets with duplicates against a host reference that sums each
// entry's values in triplet order in Scalar (so the comparison is exact),
// FEM element triplets against the row-source assembly, the slot map, refill
// against a fresh assembly, an element loop through adder(), both widths of the
// pattern's order indices, empty inputs and bad input.

#include "test_utils.hpp"

#include <spmvkit/operations/assembly.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class AssemblyTest : public ::testing::Test {};
TYPED_TEST_SUITE(AssemblyTest, AllConfigs, ConfigNames);

struct Triplets {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
};

/// n triplets, a fraction of them repeating an earlier (row, column), in random order; one
/// row left empty and one row holding many entries.
Triplets random_triplets(std::int64_t rows, std::int64_t cols, std::int64_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> row(0, rows - 1), col(0, cols - 1), pick(0, n);
  std::uniform_real_distribution<double> val(-1.0, 1.0), unit(0.0, 1.0);
  Triplets t;
  t.rows = rows;
  t.cols = cols;
  const std::int64_t empty = rows / 2, dense = rows / 3;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t i = row(gen), j = col(gen);
    if (!t.r.empty() && unit(gen) < 0.3) { // a duplicate of an earlier triplet
      const auto e = static_cast<std::size_t>(pick(gen) % static_cast<std::int64_t>(t.r.size()));
      i = t.r[e];
      j = t.c[e];
    } else if (unit(gen) < 0.1) {
      i = dense;
    }
    if (i == empty) i = (i + 1) % rows;
    t.r.push_back(i);
    t.c.push_back(j);
    t.v.push_back(val(gen));
  }
  return t;
}

/// An element loop's body: adds value t through the pattern's adder.
template <class Adder, class Values>
struct AddEach {
  Adder add;
  Values values;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const { add(t, values(t)); }
};

/// The assembled matrix on the host: per (row, column) the values summed in triplet order in
/// Scalar, rows sorted by column.
template <class Scalar>
HostCrs reference(Triplets const& t) {
  std::map<std::pair<std::int64_t, std::int64_t>, Scalar> sum;
  for (std::size_t k = 0; k < t.v.size(); ++k) {
    auto [it, fresh] = sum.try_emplace({t.r[k], t.c[k]}, Scalar(0));
    it->second += static_cast<Scalar>(t.v[k]);
  }
  HostCrs h;
  h.rows = t.rows;
  h.cols = t.cols;
  h.row_starts.assign(static_cast<std::size_t>(t.rows + 1), 0);
  for (auto const& [key, value] : sum) {
    ++h.row_starts[key.first + 1];
    h.col.push_back(key.second);
    h.val.push_back(static_cast<double>(value));
  }
  for (std::int64_t i = 0; i < t.rows; ++i) h.row_starts[i + 1] += h.row_starts[i];
  return h;
}

template <class T, class Exec>
Kokkos::View<T*, typename Exec::memory_space> upload(std::vector<double> const& v) {
  Kokkos::View<T*, typename Exec::memory_space> d("SpMVKit::test::upload", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = static_cast<T>(v[i]);
  Kokkos::deep_copy(d, h);
  return d;
}

template <class T, class Exec>
Kokkos::View<T*, typename Exec::memory_space> upload(std::vector<std::int64_t> const& v) {
  Kokkos::View<T*, typename Exec::memory_space> d("SpMVKit::test::upload", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = static_cast<T>(v[i]);
  Kokkos::deep_copy(d, h);
  return d;
}

void expect_same(HostCrs const& got, HostCrs const& want, std::string const& what) {
  ASSERT_EQ(got.rows, want.rows) << what;
  ASSERT_EQ(got.cols, want.cols) << what;
  ASSERT_EQ(got.row_starts, want.row_starts) << what;
  ASSERT_EQ(got.col, want.col) << what;
  ASSERT_EQ(got.val.size(), want.val.size()) << what;
  for (std::size_t k = 0; k < got.val.size(); ++k) {
    ASSERT_EQ(got.val[k], want.val[k]) << what << ": entry " << k; // same sums, same order
  }
}

TYPED_TEST(AssemblyTest, RandomTripletsWithDuplicatesSumInTripletOrder) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Patterns above 1000 triplets keep 64-bit order indices here (above 2^32 in use), so that the
  // sets below cover both kinds.
  struct Limit {
    std::int64_t saved = detail::assembly_narrow_limit();
    Limit() { detail::assembly_narrow_limit() = 1000; }
    ~Limit() { detail::assembly_narrow_limit() = saved; }
  } limit;
  for (auto [rows, cols, count] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 1, 5},
                                   {7, 5, 40},
                                   {50, 40, 1000}, // at the limit: the last run start is 1000
                                   {300, 200, 5000},
                                   {2000, 3000, 40000}}) {
    const std::int64_t n =
        count; // a plain variable: lambdas capture structured bindings only in C++20
    const auto t = random_triplets(rows, cols, n, static_cast<unsigned>(rows + n));
    const auto r = upload<int, Exec>(t.r);
    const auto c = upload<std::int64_t, Exec>(t.c); // any integer type
    const auto v = upload<Scalar, Exec>(t.v);
    AssemblyPattern<Exec> pattern;
    const auto A = assemble_crs(Exec(), rows, cols, r, c, v, &pattern);
    const std::string what = std::to_string(rows) + " x " + std::to_string(cols) + ", " +
                             std::to_string(n) + " triplets";
    expect_same(to_host(A), reference<Scalar>(t), what);
    EXPECT_TRUE(A.structure_known());
    pattern.visit_order([&](auto const& order, auto const& run_starts) {
      using Index = typename std::decay_t<decltype(order)>::value_type;
      EXPECT_EQ(sizeof(Index), n > 1000 ? 8u : 4u) << what;
      EXPECT_EQ(static_cast<std::int64_t>(order.extent(0)), n) << what;
      EXPECT_EQ(static_cast<std::int64_t>(run_starts.extent(0)), pattern.nnz() + 1) << what;
    });
    EXPECT_EQ(pattern.num_triplets(), n);
    EXPECT_EQ(pattern.nnz(), static_cast<std::int64_t>(A.nnz()));

    // Each triplet's slot holds its (row, column).
    const HostCrs h = to_host(A);
    auto slots = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pattern.slots());
    for (std::int64_t k = 0; k < n; ++k) {
      const auto s = static_cast<std::int64_t>(slots(k));
      ASSERT_GE(s, h.row_starts[t.r[k]]) << what << ": triplet " << k;
      ASSERT_LT(s, h.row_starts[t.r[k] + 1]) << what << ": triplet " << k;
      ASSERT_EQ(h.col[s], t.c[k]) << what << ": triplet " << k;
    }

    // Refill with other values equals a fresh assembly of them, in the same storage.
    Triplets t2 = t;
    for (auto& x : t2.v) x = 2.0 * x + 0.25;
    const auto v2 = upload<Scalar, Exec>(t2.v);
    const auto* before = A.values().data();
    refill(Exec(), pattern, v2, A);
    Exec().fence();
    EXPECT_EQ(A.values().data(), before);
    expect_same(to_host(A), to_host(assemble_crs(Exec(), rows, cols, r, c, v2)), what + " refill");

    // An element loop adding through adder(): small integers, so that every order of the atomic
    // additions gives the same sums.
    Triplets t3 = t;
    for (std::size_t k = 0; k < t3.v.size(); ++k) t3.v[k] = static_cast<double>(k % 7) - 3.0;
    const auto v3 = upload<Scalar, Exec>(t3.v);
    const auto add = pattern.adder(Exec(), A);
    Kokkos::parallel_for("SpMVKit::test::element_loop",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(Exec(), 0, n),
                         AddEach<std::decay_t<decltype(add)>, std::decay_t<decltype(v3)>>{add, v3});
    Exec().fence();
    EXPECT_EQ(A.values().data(), before);
    expect_same(to_host(A), reference<Scalar>(t3), what + " adder");
  }
}

TYPED_TEST(AssemblyTest, FemElementTripletsEqualTheRowSourceAssembly) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Each row's entries split into element-like pieces: every entry becomes 1 to 4 triplets whose
  // values sum to it, shuffled across the whole matrix.
  const HostCrs fem = to_host(make_fem_poisson_crs<double>(Exec(), 6));
  Triplets t;
  t.rows = fem.rows;
  t.cols = fem.cols;
  std::mt19937_64 gen(7);
  for (std::int64_t i = 0; i < fem.rows; ++i) {
    for (std::int64_t k = fem.row_starts[i]; k < fem.row_starts[i + 1]; ++k) {
      const int pieces = 1 + static_cast<int>(gen() % 4);
      for (int p = 0; p < pieces; ++p) {
        t.r.push_back(i);
        t.c.push_back(fem.col[k]);
        // Pieces that add up exactly in binary: val / 2^p shares.
        t.v.push_back(p + 1 < pieces ? fem.val[k] / (2 << p) : 0.0);
      }
      // The last piece carries what is left: val - the sum of the others.
      double rest = fem.val[k];
      for (int p = 0; p + 1 < pieces; ++p) rest -= fem.val[k] / (2 << p);
      t.v.back() = rest;
    }
  }
  std::vector<std::size_t> perm(t.v.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), gen);
  Triplets s = t;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    s.r[i] = t.r[perm[i]];
    s.c[i] = t.c[perm[i]];
    s.v[i] = t.v[perm[i]];
  }
  const auto A = assemble_crs(Exec(), s.rows, s.cols, upload<int, Exec>(s.r),
                              upload<int, Exec>(s.c), upload<Scalar, Exec>(s.v));
  const HostCrs h = to_host(A);
  const HostCrs want = to_host(make_fem_poisson_crs<Scalar>(Exec(), 6));
  ASSERT_EQ(h.row_starts, want.row_starts);
  ASSERT_EQ(h.col, want.col); // the FEM rows come sorted
  const double tol = sizeof(Scalar) == 4 ? 1e-5 : 1e-13;
  for (std::size_t k = 0; k < h.val.size(); ++k) {
    EXPECT_NEAR(h.val[k], want.val[k], tol * (1.0 + std::abs(want.val[k]))) << k;
  }
}

/// The sort's outcome on the host, for comparing its paths.
struct HostSorted {
  std::vector<std::int64_t> order, run_starts, row_starts, columns;
  std::int64_t nnz = 0;
  std::vector<double> sums; // each run's values summed (RunSums), exactly as Scalar holds them
  bool operator==(HostSorted const& o) const {
    return order == o.order && run_starts == o.run_starts && row_starts == o.row_starts &&
           columns == o.columns && nnz == o.nnz && sums == o.sums;
  }
};

template <class V>
std::vector<double> to_doubles(V const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(h(i));
  return out;
}

template <class V>
std::vector<std::int64_t> to_vector(V const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<std::int64_t> out(h.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(h(i));
  return out;
}

TYPED_TEST(AssemblyTest, EverySortPathGivesTheSameOrder) {
  using Exec = typename TypeParam::execution_space;
  // Rows of at most ~900 triplets (sorted in scratch on the device path, which
  // also counts the rows' runs there), rows longer than its limit of 1024
  // (each random set's dense row holds a tenth of the triplets), and rows that
  // are all duplicates of one entry.
  Triplets short_rows = random_triplets(3000, 2000, 8000, 13);
  Triplets few = random_triplets(900, 700, 12000, 11);
  Triplets dense = random_triplets(300, 5000, 30000, 12); // its dense row holds ~3000 entries
  Triplets same;
  same.rows = 3;
  same.cols = 2;
  for (int k = 0; k < 2500; ++k) {
    same.r.push_back(k % 2);
    same.c.push_back(1);
    same.v.push_back(1.0);
  }
  // Runs of 1 to 19 triplets of one row in a row, as element loops emit them: the
  // device path counts a run within a thread's group by one atomic.
  Triplets runs;
  runs.rows = 500;
  runs.cols = 400;
  {
    std::mt19937_64 gen(14);
    std::uniform_int_distribution<std::int64_t> row(0, runs.rows - 1), col(0, 39), len(1, 19);
    while (runs.r.size() < 9000) {
      const std::int64_t i = row(gen), n = len(gen);
      for (std::int64_t k = 0; k < n; ++k) {
        runs.r.push_back(i);
        runs.c.push_back(col(gen) * 10 + i % 10);
        runs.v.push_back(1.0);
      }
    }
  }
  // A row of 512 triplets (37 columns), one of 1024 (the scratch sort's limit,
  // 61 columns), rows of 64 and 65 (the last ranked and the first sorted by the
  // network), two rows of 400 duplicates of one column (longer than a warp), an
  // empty row and a row of one.
  Triplets edge;
  edge.rows = 8;
  edge.cols = 70;
  for (int k = 0; k < 512; ++k) {
    edge.r.push_back(0);
    edge.c.push_back((k * 7) % 37);
    edge.v.push_back(0.5 + (k % 5));
  }
  for (int k = 0; k < 800; ++k) {
    edge.r.push_back(1 + 2 * (k % 2)); // rows 1 and 3 interleaved
    edge.c.push_back(3);
    edge.v.push_back(0.25 * (k % 3) - 0.1);
  }
  for (int k = 0; k < 1024; ++k) {
    edge.r.push_back(5);
    edge.c.push_back((k * 13) % 61);
    edge.v.push_back(0.125 * (k % 7) - 0.3);
  }
  for (int row : {6, 7}) {
    for (int k = 0; k < 58 + row; ++k) {
      edge.r.push_back(row);
      edge.c.push_back((k * 11) % 23);
      edge.v.push_back(0.75 - 0.0625 * (k % 9));
    }
  }
  edge.r.push_back(4);
  edge.c.push_back(49);
  edge.v.push_back(2.0);
  // Rows of 1 to 64 triplets (a warp's lanes hold one or two keys each):
  // columns repeated within each half of 32 and across the halves, and (row 6)
  // columns that only the second half holds.
  Triplets warp;
  warp.rows = 8;
  warp.cols = 45;
  {
    const int lengths[] = {1, 31, 32, 33, 63, 64, 64, 2};
    for (int row = 0; row < 8; ++row) {
      for (int k = 0; k < lengths[row]; ++k) {
        warp.r.push_back(row);
        warp.c.push_back(row == 6 ? k % 40 : (k * 5 + row) % 19);
        warp.v.push_back(0.3 - 0.01 * k);
      }
    }
  }
  // Rows of 300 distinct columns, none, runs of 40 (longer than a warp), 64
  // triplets in 40 runs and in 43 (12 bytes a run within and just over 8
  // bytes a triplet) and one triplet.
  Triplets mixed;
  mixed.rows = 6;
  mixed.cols = 600;
  {
    const int lengths[] = {300, 0, 200, 64, 64, 1};
    const int columns[] = {300, 1, 5, 40, 43, 1};
    for (int row = 0; row < 6; ++row) {
      for (int k = 0; k < lengths[row]; ++k) {
        mixed.r.push_back(row);
        mixed.c.push_back((k * 7 + row) % columns[row] * 2 + row % 2);
        mixed.v.push_back(1.0 / (2 + k % 11) - 0.002 * k);
      }
    }
  }
  // Longest rows of 630 and 700 triplets: on CUDA in double precision the fill
  // sums the first in scratch (4 rows a team within Kokkos' bound), not the second.
  Triplets wide630, wide700;
  for (auto [t, n] : {std::pair<Triplets*, int>{&wide630, 630}, {&wide700, 700}}) {
    t->rows = 3;
    t->cols = 300;
    for (int k = 0; k < n + 5; ++k) {
      t->r.push_back(k < n ? 1 : 2);
      t->c.push_back((k * 37) % 257);
      t->v.push_back(1.0 / (3 + k % 13) - 0.001 * k); // inexact: sums show their order
    }
  }
  using detail::EntrySort;
  using Scalar = typename TypeParam::value_type;
  using Values = Kokkos::View<Scalar*, typename Exec::memory_space>;
  for (auto const* t :
       {&short_rows, &few, &dense, &same, &runs, &edge, &warp, &mixed, &wide630, &wide700}) {
    const auto r = upload<int, Exec>(t->r);
    const auto c = upload<int, Exec>(t->c);
    const detail::TripletSource<decltype(r), decltype(c)> source{r, c};
    const auto n = static_cast<std::int64_t>(t->r.size());
    const Values v = upload<Scalar, Exec>(t->v);
    std::vector<HostSorted> got;
    for (auto path : {EntrySort::automatic, EntrySort::host_buckets, EntrySort::device_buckets,
                      EntrySort::global_sort}) {
      detail::RunSums<Values, detail::ValueAt<Values>> sums{{}, {v}, "test"};
      auto s =
          detail::sort_entries<int, int>(Exec(), t->rows, t->cols, n, source, "test", path, &sums);
      got.push_back({to_vector(s.order), to_vector(s.run_starts), to_vector(s.row_starts),
                     to_vector(s.columns), s.nnz, to_doubles(sums.values)});
    }
    // Host buckets planned for 1 thread (atomic cursors) and for 3 and 7 (a
    // stable counting sort in up to that many chunks).
    for (std::int64_t threads : {1, 3, 7}) {
      detail::host_bucket_threads() = threads;
      detail::RunSums<Values, detail::ValueAt<Values>> sums{{}, {v}, "test"};
      auto s = detail::sort_entries<int, int>(Exec(), t->rows, t->cols, n, source, "test",
                                              EntrySort::host_buckets, &sums);
      detail::host_bucket_threads() = 0;
      got.push_back({to_vector(s.order), to_vector(s.run_starts), to_vector(s.row_starts),
                     to_vector(s.columns), s.nnz, to_doubles(sums.values)});
    }
    // The order is (row, column, t): unique, so every path must give it, and the
    // same sums, bit for bit (each run summed in the order of t).
    const HostCrs want = reference<Scalar>(*t);
    EXPECT_EQ(got[0].row_starts, want.row_starts) << t->rows;
    EXPECT_EQ(got[0].columns, want.col) << t->rows;
    EXPECT_EQ(got[0].sums, want.val) << t->rows;
    for (std::int64_t p = 1; p < n; ++p) {
      const auto a = static_cast<std::size_t>(got[0].order[p - 1]);
      const auto b = static_cast<std::size_t>(got[0].order[p]);
      ASSERT_TRUE(std::tie(t->r[a], t->c[a], a) < std::tie(t->r[b], t->c[b], b)) << p;
    }
    for (std::size_t k = 1; k < got.size(); ++k) EXPECT_TRUE(got[k] == got[0]) << "path " << k;
    // Without keep_order (assembly without a pattern) the device fill sums in
    // scratch where the values fit beside the keys: the same matrix, no order,
    // with 32- and 64-bit columns.
    for (auto path : {EntrySort::automatic, EntrySort::host_buckets, EntrySort::device_buckets,
                      EntrySort::global_sort}) {
      detail::RunSums<Values, detail::ValueAt<Values>> sums{{}, {v}, "test", false};
      auto s =
          detail::sort_entries<int, int>(Exec(), t->rows, t->cols, n, source, "test", path, &sums);
      EXPECT_EQ(s.order.extent(0), 0u);
      EXPECT_EQ(s.run_starts.extent(0), 0u);
      EXPECT_EQ(s.nnz, got[0].nnz);
      EXPECT_EQ(to_vector(s.row_starts), got[0].row_starts);
      EXPECT_EQ(to_vector(s.columns), got[0].columns);
      EXPECT_EQ(to_doubles(sums.values), got[0].sums) << static_cast<int>(path);
      detail::RunSums<Values, detail::ValueAt<Values>> wide_sums{{}, {v}, "test", false};
      auto w = detail::sort_entries<std::int64_t, int>(Exec(), t->rows, t->cols, n, source, "test",
                                                       path, &wide_sums);
      EXPECT_EQ(to_vector(w.row_starts), got[0].row_starts);
      EXPECT_EQ(to_vector(w.columns), got[0].columns);
      EXPECT_EQ(to_doubles(wide_sums.values), got[0].sums) << static_cast<int>(path);
    }
  }
}

// The host sort counts per thread chunk only where there are at least two
// entries per bucket and the chunks keep at least half the threads busy.
TEST(AssemblyHostChunks, ChunksNeedEntriesPerBucketAndHalfTheThreads) {
  using detail::host_bucket_chunks;
  EXPECT_EQ(host_bucket_chunks(2, 100, 1000), 2);
  EXPECT_EQ(host_bucket_chunks(16, 100, 6400), 16); // FEM element triplets: 64 per row
  EXPECT_EQ(host_bucket_chunks(16, 100, 900), 9);
  EXPECT_EQ(host_bucket_chunks(16, 100, 300), 1); // 3 chunks would idle 13 threads
  EXPECT_EQ(host_bucket_chunks(1, 100, 6400), 1);
  EXPECT_EQ(host_bucket_chunks(4, 100, 150), 1); // under 2 entries per bucket
  EXPECT_EQ(host_bucket_chunks(4, 0, 10), 1);
  EXPECT_EQ(host_bucket_chunks(4, 10, std::int64_t(1) << 32), 1); // 32-bit counts
}

TYPED_TEST(AssemblyTest, EmptyInputsAndBadInput) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using IV = Kokkos::View<int*, typename Exec::memory_space>;
  using SV = Kokkos::View<Scalar*, typename Exec::memory_space>;
  // No triplets: every row empty; a 0 x 0 matrix too.
  AssemblyPattern<Exec> pattern;
  auto A = assemble_crs(Exec(), 4, 3, IV("r", 0), IV("c", 0), SV("v", 0), &pattern);
  EXPECT_EQ(A.num_rows(), 4);
  EXPECT_EQ(A.num_cols(), 3);
  EXPECT_EQ(A.nnz(), 0);
  EXPECT_EQ(to_host(A).row_starts, (std::vector<std::int64_t>{0, 0, 0, 0, 0}));
  refill(Exec(), pattern, SV("v", 0), A);
  pattern.adder(Exec(), A); // nothing to zero
  EXPECT_EQ(pattern.slots().extent(0), 0u);
  EXPECT_EQ(AssemblyPattern<Exec>().slots().extent(0), 0u); // never assembled
  EXPECT_EQ(assemble_crs(Exec(), 0, 0, IV("r", 0), IV("c", 0), SV("v", 0)).nnz(), 0);

  const auto r = upload<int, Exec>(std::vector<std::int64_t>{0, 1, 2, 1});
  const auto c = upload<int, Exec>(std::vector<std::int64_t>{0, 1, 3, 1});
  const auto v = upload<Scalar, Exec>(std::vector<double>{1, 2, 3, 4});
  // A column out of range: the error names the first bad triplet and its place.
  try {
    assemble_crs(Exec(), 3, 3, r, c, v);
    ADD_FAILURE() << "an out-of-range column was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("entry 2 at (2, 3)"), std::string::npos) << e.what();
  }
  // Negative indices too.
  const auto neg = upload<int, Exec>(std::vector<std::int64_t>{0, -1, 0, 0});
  EXPECT_THROW(assemble_crs(Exec(), 3, 4, neg, c, v), std::invalid_argument);
  // Mismatched extents, negative sizes, sizes beyond the index type.
  EXPECT_THROW(assemble_crs(Exec(), 3, 4, r, c, SV("v", 3)), std::invalid_argument);
  EXPECT_THROW(assemble_crs(Exec(), -1, 4, r, c, v), std::invalid_argument);
  EXPECT_THROW(assemble_crs(Exec(), std::int64_t(1) << 40, 4, r, c, v), std::length_error);

  // A refill of the wrong length or into another matrix.
  AssemblyPattern<Exec> p2;
  auto B = assemble_crs(Exec(), 3, 4, r, c, v, &p2);
  EXPECT_EQ(B.nnz(), 3); // (1, 1) twice
  EXPECT_THROW(refill(Exec(), p2, SV("v", 3), B), std::invalid_argument);
  EXPECT_THROW(refill(Exec(), p2, v, A), std::invalid_argument);
  // A refill from the matrix's own values would read what it overwrites: refused.
  AssemblyPattern<Exec> p3;
  const auto r3 = upload<int, Exec>(std::vector<std::int64_t>{0, 1, 2});
  auto C = assemble_crs(Exec(), 3, 3, r3, r3, B.values(), &p3);
  EXPECT_THROW(refill(Exec(), p3, C.values(), C), std::invalid_argument);
  EXPECT_THROW(p2.adder(Exec(), A), std::invalid_argument);
  refill(Exec(), p2, v, B);
  Exec().fence();
  EXPECT_EQ(to_host(B).val, (std::vector<double>{1, 6, 3}));
}

} // namespace
