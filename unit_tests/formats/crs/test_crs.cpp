// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CrsMatrix itself: index-type overflow at construction and the structure check.
#include "test_utils.hpp"

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/spgemm/spgemm.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class CrsTest : public ::testing::Test {};
TYPED_TEST_SUITE(CrsTest, AllConfigs, ConfigNames);

TYPED_TEST(CrsTest, RejectsIndexOverflowAtConstruction) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t too_many = std::int64_t(std::numeric_limits<int>::max()) + 1;
  try {
    CrsMatrix<Scalar, Exec> A("huge", 10, 10, too_many);
    FAIL() << "expected std::length_error";
  } catch (std::length_error const& e) {
    EXPECT_NE(std::string(e.what()).find("nnz"), std::string::npos) << e.what();
  }
  EXPECT_THROW((CrsMatrix<Scalar, Exec>("huge", too_many, 10, 0)), std::length_error);
  EXPECT_THROW((CrsMatrix<Scalar, Exec>("neg", -1, 10, 0)), std::invalid_argument);
}

TYPED_TEST(CrsTest, CheckStructureFindsBadRows) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h = random_crs(50, 30, 6, 0.0, 0, 11);
  auto good = make_device_crs<Scalar, Exec>(h);
  EXPECT_NO_THROW(check_structure(Exec(), good));
  HostCrs bad = h;
  std::int64_t row = 20;
  while (bad.row_starts[row] == bad.row_starts[row + 1]) ++row; // first non-empty row >= 20
  bad.col[bad.row_starts[row]] = 30;                            // out of range
  auto A = make_device_crs<Scalar, Exec>(bad);
  try {
    check_structure(Exec(), A);
    FAIL() << "expected std::invalid_argument";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("row " + std::to_string(row)), std::string::npos)
        << e.what();
  }
}

// A byte count that wraps would allocate a few bytes and let the first fill
// overflow the heap: 2^62 + 1 entries of 4 or 8 bytes must be refused by name.
TYPED_TEST(CrsTest, RejectsByteCountsThatWrap) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t huge = (std::int64_t(1) << 62) + 1;
  try {
    CrsMatrix<Scalar, Exec, int, std::int64_t> A("huge", 10, 10, huge);
    FAIL() << "expected std::length_error";
  } catch (std::length_error const& e) {
    EXPECT_NE(std::string(e.what()).find("column_indices"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos) << e.what();
  }
}

// Conversions read the CRS they are given: a broken one is named, not turned
// into a matrix that computes a wrong y.
TYPED_TEST(CrsTest, ConversionsRejectBrokenStructureNamingTheRow) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h = random_crs(60, 40, 6, 0.0, 0, 12);
  HostCrs bad_col = h;
  std::int64_t col_row = 17;
  while (h.row_starts[col_row] == h.row_starts[col_row + 1]) ++col_row; // non-empty row >= 17
  bad_col.col[bad_col.row_starts[col_row]] = 40;                        // out of range
  HostCrs bad_starts = h;
  bad_starts.row_starts[31] = bad_starts.row_starts[30] - 1; // decreasing at row 30
  for (auto const& [what, broken, row] :
       {std::make_tuple("column", bad_col, col_row),
        std::make_tuple("row_starts", bad_starts, std::int64_t(30))}) {
    SCOPED_TRACE(what);
    auto A = make_device_crs<Scalar, Exec>(broken);
    // Before C++20 a lambda may not capture a structured binding (nvcc warns).
    const std::string expected = "row " + std::to_string(row);
    for_each_type(format_list{}, [&](auto tag) {
      using F = typename decltype(tag)::type;
      if (std::is_same_v<F, CrsFormat>) return; // no conversion, nothing read
      try {
        F::from_crs(Exec(), A, {});
        ADD_FAILURE() << F::family << ": expected std::invalid_argument";
      } catch (std::invalid_argument const& e) {
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos)
            << F::family << ": " << e.what();
      }
    });
  }
  // The opt-out skips the pass for data the caller vouches for.
  auto good = make_device_crs<Scalar, Exec>(h);
  SellOptions trusted;
  trusted.check_structure = false;
  EXPECT_NO_THROW(SellFormat::from_crs(Exec(), good, trusted));
}

// spmv, cg and spgemm on a CRS matrix with a column index past num_cols used
// to read past x (a wrong y, "converged" from cg, a heap overflow under
// AddressSanitizer): every operation checks the structure once per matrix.
TYPED_TEST(CrsTest, OperationsRejectBrokenStructureNamingTheRow) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, typename Exec::memory_space>;
  HostCrs h; // tridiagonal (-1, 4, -1): SPD, so cg would run on it
  h.rows = h.cols = 40;
  for (std::int64_t i = 0; i < 40; ++i) {
    for (std::int64_t j = std::max<std::int64_t>(i - 1, 0); j <= std::min<std::int64_t>(i + 1, 39);
         ++j) {
      h.col.push_back(j);
      h.val.push_back(i == j ? 4.0 : -1.0);
    }
    h.row_starts.push_back(h.nnz());
  }
  const std::int64_t row = 17;
  HostCrs bad_col = h;
  bad_col.col[bad_col.row_starts[row] + 1] = 40; // one past the last column
  HostCrs bad_starts = h;
  bad_starts.row_starts[row + 1] = bad_starts.row_starts[row] - 1; // decreasing after `row`
  const V x("x", 40), y("y", 40);
  Kokkos::deep_copy(x, Scalar(1));
  auto expect_row = [&](auto&& call, std::int64_t bad_row, char const* what) {
    try {
      call();
      ADD_FAILURE() << what << ": expected std::invalid_argument";
    } catch (std::invalid_argument const& e) {
      EXPECT_NE(std::string(e.what()).find("row " + std::to_string(bad_row)), std::string::npos)
          << what << ": " << e.what();
    }
  };
  for (auto const& [name, broken, bad_row] :
       {std::make_tuple("column", bad_col, row), std::make_tuple("row_starts", bad_starts, row)}) {
    SCOPED_TRACE(name);
    const auto A = make_device_crs<Scalar, Exec>(broken);
    EXPECT_FALSE(A.structure_known());
    expect_row([&] { spmv(Exec(), Scalar(1), A, x, Scalar(0), y); }, bad_row, "spmv");
    // A failed check is not remembered as passed: the next call fails too.
    expect_row([&] { spmv(Exec(), Scalar(1), A, x, Scalar(0), y); }, bad_row, "spmv again");
    expect_row([&] { cg(Exec(), A, x, y); }, bad_row, "cg");
    expect_row([&] { spgemm(Exec(), A, A); }, bad_row, "spgemm");
    EXPECT_FALSE(A.structure_known());
  }
  // A good matrix is checked by its first operation, once, and copies share the verdict.
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto copy = A;
  EXPECT_FALSE(copy.structure_known());
  spmv(Exec(), Scalar(1), A, x, Scalar(0), y);
  EXPECT_TRUE(copy.structure_known());
  A.forget_analysis(); // the arrays may have changed: check again
  EXPECT_FALSE(A.structure_known());
  check_structure(Exec(), A);
  EXPECT_TRUE(A.structure_known());
  // The documented opt-out: trusted data is not checked (a valid matrix here).
  const auto trusted = make_device_crs<Scalar, Exec>(h);
  trusted.trust_structure();
  EXPECT_TRUE(trusted.structure_known());
  EXPECT_NO_THROW(spmv(Exec(), Scalar(1), trusted, x, Scalar(0), y));
  // The reader and SpGEMM build their structure themselves and say so.
  EXPECT_TRUE(spgemm(Exec(), A, A).structure_known());
}

} // namespace
