// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spadd (operations/spadd.hpp): C = alpha A + beta B against a host reference
// that sums each entry's terms in the documented order in Scalar (an exact
// comparison), with duplicates and unsorted rows, disjoint and equal
// patterns, empty rows, repeated numeric phases with new values, and bad input.

#include "test_utils.hpp"

#include <spmvkit/operations/spadd.hpp>
#include <spmvkit/operations/transpose.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpaddTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpaddTest, AllConfigs, ConfigNames);

/// alpha A + beta B on the host: per (row, column) alpha a for A's entries in storage order,
/// then beta b for B's, summed in Scalar from 0.
template <class Scalar>
HostCrs host_add(double alpha, HostCrs const& A, double beta, HostCrs const& B) {
  std::map<std::pair<std::int64_t, std::int64_t>, Scalar> sum;
  auto add = [&](HostCrs const& M, double s) {
    for (std::int64_t i = 0; i < M.rows; ++i)
      for (std::int64_t k = M.row_starts[i]; k < M.row_starts[i + 1]; ++k) {
        auto [it, fresh] = sum.try_emplace({i, M.col[k]}, Scalar(0));
        it->second += static_cast<Scalar>(s) * static_cast<Scalar>(M.val[k]);
      }
  };
  add(A, alpha);
  add(B, beta);
  HostCrs C;
  C.rows = A.rows;
  C.cols = A.cols;
  C.row_starts.assign(static_cast<std::size_t>(A.rows + 1), 0);
  for (auto const& [key, value] : sum) {
    ++C.row_starts[key.first + 1];
    C.col.push_back(key.second);
    C.val.push_back(static_cast<double>(value));
  }
  for (std::int64_t i = 0; i < C.rows; ++i) C.row_starts[i + 1] += C.row_starts[i];
  return C;
}

void expect_same(HostCrs const& got, HostCrs const& want, std::string const& what) {
  ASSERT_EQ(got.row_starts, want.row_starts) << what;
  ASSERT_EQ(got.col, want.col) << what;
  ASSERT_EQ(got.val, want.val) << what;
}

TYPED_TEST(SpaddTest, MatchesTheHostSumForEveryPatternKind) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs u; // unsorted rows with duplicates
  u.rows = 3;
  u.cols = 4;
  u.row_starts = {0, 4, 4, 7};
  u.col = {3, 1, 3, 0, 2, 2, 0};
  u.val = {1, 2, 3, 4, 5, 6, 7};
  HostCrs diag{3, 4, {0, 1, 2, 3}, {0, 1, 2}, {0.5, -2, 8}};
  std::vector<std::tuple<std::string, HostCrs, HostCrs>> cases{
      {"random, different patterns", random_crs(400, 300, 10, 0.2, 250, 11),
       random_crs(400, 300, 10, 0.2, 0, 12)},
      {"the same pattern", random_crs(200, 200, 8, 0.1, 0, 13),
       random_crs(200, 200, 8, 0.1, 0, 13)},
      {"unsorted with duplicates + diagonal", u, diag},
      {"empty B", random_crs(30, 20, 5, 0.3, 0, 14),
       HostCrs{30, 20, std::vector<std::int64_t>(31, 0), {}, {}}},
      {"0 x 0", HostCrs{}, HostCrs{}}};
  for (auto const& [what, ha, hb] : cases) {
    const auto A = make_device_crs<Scalar, Exec>(ha);
    const auto B = make_device_crs<Scalar, Exec>(hb);
    const auto C = spadd(Exec(), Scalar(1.5), A, Scalar(-0.75), B);
    expect_same(to_host(C), host_add<Scalar>(1.5, ha, -0.75, hb), what);
    EXPECT_TRUE(C.structure_known()) << what;
  }
  // A - Aᵀ of a square matrix: the union pattern keeps the zeros of symmetric entries.
  const HostCrs s = random_crs(60, 60, 6, 0.1, 0, 15);
  const auto S = make_device_crs<Scalar, Exec>(s);
  const auto St = transpose(Exec(), S);
  expect_same(to_host(spadd(Exec(), Scalar(1), S, Scalar(-1), St)),
              host_add<Scalar>(1, s, -1, to_host(St)), "A - A^T");
}

TYPED_TEST(SpaddTest, NumericPhaseRepeatsWithNewValuesAndChecksItsOperands) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs ha = random_crs(150, 120, 9, 0.2, 0, 21), hb = random_crs(150, 120, 9, 0.2, 100, 22);
  const auto A = make_device_crs<Scalar, Exec>(ha);
  const auto B = make_device_crs<Scalar, Exec>(hb);
  SpaddHandle<Scalar, Exec> handle;
  EXPECT_FALSE(handle.has_structure());
  EXPECT_THROW(spadd_numeric(Exec(), Scalar(1), A, Scalar(1), B, handle), std::invalid_argument);
  spadd_symbolic(Exec(), A, B, handle);
  EXPECT_TRUE(handle.has_structure());
  for (int round = 0; round < 3; ++round) {
    for (auto& v : ha.val) v = v * 0.5 + round;
    const auto A2 = make_device_crs<Scalar, Exec>(ha);
    spadd_numeric(Exec(), Scalar(2), A2, Scalar(3), B, handle);
    Exec().fence();
    expect_same(to_host(handle.matrix()), host_add<Scalar>(2, ha, 3, hb),
                "round " + std::to_string(round));
  }
  // Operands of another shape or pattern size.
  const auto other = make_device_crs<Scalar, Exec>(random_crs(150, 121, 9, 0.2, 0, 23));
  EXPECT_THROW(spadd_symbolic(Exec(), A, other, handle), std::invalid_argument);
  const auto fewer = make_device_crs<Scalar, Exec>(random_crs(150, 120, 3, 0.2, 0, 24));
  try {
    spadd_numeric(Exec(), Scalar(1), fewer, Scalar(1), B, handle);
    ADD_FAILURE() << "a matrix of another pattern size was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("not the matrices of the symbolic phase"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
