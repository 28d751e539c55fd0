// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// transpose (operations/transpose.hpp): against a host transpose (exact, as
// values are only moved) on random matrices with empty rows and one dense
// row, unsorted rows with duplicates, FEM, and degenerate shapes;
// transpose(transpose(A)) == A; every ordering path; the mirror path of
// self-transposed patterns and its refusals; a broken structure is reported.

#include "test_utils.hpp"

#include <spmvkit/operations/transpose.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class TransposeTest : public ::testing::Test {};
TYPED_TEST_SUITE(TransposeTest, AllConfigs, ConfigNames);

template <class Scalar>
void expect_equal(HostCrs const& got, HostCrs const& want, std::string const& what) {
  ASSERT_EQ(got.rows, want.rows) << what;
  ASSERT_EQ(got.cols, want.cols) << what;
  ASSERT_EQ(got.row_starts, want.row_starts) << what;
  ASSERT_EQ(got.col, want.col) << what;
  ASSERT_EQ(got.val.size(), want.val.size()) << what;
  for (std::size_t k = 0; k < got.val.size(); ++k)
    ASSERT_EQ(got.val[k], static_cast<double>(static_cast<Scalar>(want.val[k])))
        << what << " " << k;
}

TYPED_TEST(TransposeTest, MatchesTheHostTransposeAndIsAnInvolution) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  std::vector<std::pair<std::string, HostCrs>> cases;
  cases.emplace_back("random 500 x 300 with a dense row", random_crs(500, 300, 12, 0.2, 300, 3));
  cases.emplace_back("random 40 x 900", random_crs(40, 900, 60, 0.1, 0, 4));
  cases.emplace_back("one column", random_crs(50, 1, 1, 0.3, 0, 5));
  cases.emplace_back("FEM N = 5", to_host(make_fem_poisson_crs<double>(Exec(), 5)));
  // Unsorted rows with duplicates: still a valid CRS matrix.
  HostCrs u;
  u.rows = 3;
  u.cols = 4;
  u.row_starts = {0, 4, 4, 7};
  u.col = {3, 1, 3, 0, 2, 2, 0};
  u.val = {1, 2, 3, 4, 5, 6, 7};
  cases.emplace_back("unsorted with duplicates", u);
  cases.emplace_back("3 x 0", HostCrs{3, 0, {0, 0, 0, 0}, {}, {}});
  cases.emplace_back("0 x 5", HostCrs{0, 5, {0}, {}, {}});
  for (auto const& [what, h] : cases) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto T = transpose(Exec(), A);
    expect_equal<Scalar>(to_host(T), host_transpose(h), what);
    EXPECT_TRUE(T.structure_known()) << what;
    // Twice: A with each row's columns sorted (stably), i.e. A itself where rows are sorted.
    const auto TT = transpose(Exec(), T);
    expect_equal<Scalar>(to_host(TT), host_transpose(host_transpose(h)), what + " twice");
    if (what.rfind("random", 0) == 0 || what.rfind("FEM", 0) == 0) {
      expect_equal<Scalar>(to_host(TT), h, what + " twice = A");
    }
  }
}

TYPED_TEST(TransposeTest, EveryOrderPathGivesTheSameTranspose) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Short columns (the bucketed paths' case, sorted by rank in scratch), a column
  // of about 300 entries (sorted by the network in scratch) and one longer than
  // the scratch sort's limit, bucket_sort_largest (a dense column: a dense row of
  // the transpose).
  HostCrs dense_column = random_crs(3000, 400, 8, 0.1, 0, 6);
  for (std::int64_t i = 0; i < dense_column.rows; ++i) {
    const auto k = static_cast<std::size_t>(dense_column.row_starts[i]);
    if (dense_column.row_starts[i + 1] > dense_column.row_starts[i]) dense_column.col[k] = 7;
  }
  HostCrs long_column = random_crs(1200, 400, 8, 0.1, 0, 7);
  for (std::int64_t i = 0, set = 0; i < long_column.rows && set < 300; ++i) {
    const auto k = static_cast<std::size_t>(long_column.row_starts[i]);
    if (long_column.row_starts[i + 1] > long_column.row_starts[i]) {
      long_column.col[k] = 9;
      ++set;
    }
  }
  for (auto const& h : {random_crs(800, 600, 20, 0.2, 0, 5), long_column, dense_column}) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    for (auto path : {detail::EntrySort::automatic, detail::EntrySort::host_buckets,
                      detail::EntrySort::device_buckets, detail::EntrySort::global_sort}) {
      expect_equal<Scalar>(to_host(detail::transpose_by(Exec(), A, path)), host_transpose(h),
                           "path " + std::to_string(static_cast<int>(path)));
    }
    // Host buckets planned for 1 thread (atomic cursors) and for 3 (a stable
    // counting sort in chunks).
    for (std::int64_t threads : {1, 3}) {
      detail::host_bucket_threads() = threads;
      const auto T = to_host(detail::transpose_by(Exec(), A, detail::EntrySort::host_buckets));
      detail::host_bucket_threads() = 0;
      expect_equal<Scalar>(T, host_transpose(h), "threads " + std::to_string(threads));
    }
  }
}

TYPED_TEST(TransposeTest, SelfTransposedPatternsTakeTheMirrorPath) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // FEM's pattern with distinct values, so that a value moved to the wrong place shows.
  HostCrs fem = to_host(make_fem_poisson_crs<double>(Exec(), 6));
  for (std::size_t k = 0; k < fem.val.size(); ++k) fem.val[k] = 1.0 + static_cast<double>(k);
  // Column counts equal to the row lengths, but no mirror: row i holds column i + 1 (cyclic).
  HostCrs shift{5, 5, {0, 1, 2, 3, 4, 5}, {1, 2, 3, 4, 0}, {1, 2, 3, 4, 5}};
  // A self-transposed pattern with one row's columns swapped (unsorted).
  HostCrs unsorted = fem;
  std::swap(unsorted.col[1], unsorted.col[2]);
  std::swap(unsorted.val[1], unsorted.val[2]);
  // Duplicates in a self-transposed pattern: rows {0, 1, 1} and {0, 0, 1}.
  HostCrs duplicates{2, 2, {0, 3, 6}, {0, 1, 1, 0, 0, 1}, {1, 2, 3, 4, 5, 6}};
  for (auto const& [h, mirrored] : {std::pair<HostCrs, bool>{fem, true},
                                    {shift, false},
                                    {unsorted, false},
                                    {duplicates, false}}) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const std::string what =
        std::to_string(h.rows) + " rows, mirrored " + (mirrored ? "yes" : "no");
    CrsMatrix<Scalar, Exec> T("t", A.num_cols(), A.num_rows(), A.nnz(), Exec());
    std::int64_t largest = 0;
    EXPECT_EQ(detail::mirror_transpose(Exec(), A, T, largest), mirrored) << what;
    if (mirrored) expect_equal<Scalar>(to_host(T), host_transpose(h), what + " (mirror alone)");
    // transpose() falls back to the sorting paths where the mirror does not apply.
    expect_equal<Scalar>(to_host(transpose(Exec(), A)), host_transpose(h), what);
    expect_equal<Scalar>(
        to_host(detail::transpose_by(Exec(), A, detail::EntrySort::automatic, false)),
        host_transpose(h), what + " (no mirror)");
  }
}

TYPED_TEST(TransposeTest, BrokenStructureIsReported) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs bad{2, 2, {0, 1, 2}, {0, 2}, {1, 1}}; // column 2 of a 2-column matrix
  EXPECT_THROW(transpose(Exec(), make_device_crs<Scalar, Exec>(bad)), std::invalid_argument);
}

} // namespace
