// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// triple_product (spgemm/triple_product.hpp): R A P and Pᵀ A P against a long-double host
// reference, on FEM with an aggregation prolongator and random rectangular factors; numeric
// phases repeated on new values; shapes that do not chain; the memory limit shared by both
// products.

#include "spgemm/spgemm_test_utils.hpp"
#include "test_utils.hpp"

#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/spgemm/triple_product.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class TripleProductTest : public ::testing::Test {};
TYPED_TEST_SUITE(TripleProductTest, AllConfigs, ConfigNames);

/// R A P in long double, as a map per row, with the sum of |r||a||p| per entry for the bound.
struct HostTriple {
  std::vector<std::map<std::int64_t, long double>> val, mag;
};

HostTriple host_triple(HostCrs const& R, HostCrs const& A, HostCrs const& P) {
  std::vector<std::map<std::int64_t, long double>> ap(A.rows), apm(A.rows);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
      const auto c = A.col[k];
      for (auto q = P.row_starts[c]; q < P.row_starts[c + 1]; ++q) {
        ap[i][P.col[q]] += static_cast<long double>(A.val[k]) * P.val[q];
        apm[i][P.col[q]] += std::fabs(static_cast<long double>(A.val[k]) * P.val[q]);
      }
    }
  }
  HostTriple t;
  t.val.resize(R.rows);
  t.mag.resize(R.rows);
  for (std::int64_t i = 0; i < R.rows; ++i) {
    for (auto k = R.row_starts[i]; k < R.row_starts[i + 1]; ++k) {
      for (auto const& [c, v] : ap[R.col[k]]) t.val[i][c] += R.val[k] * v;
      for (auto const& [c, v] : apm[R.col[k]]) t.mag[i][c] += std::fabs(R.val[k]) * v;
    }
  }
  return t;
}

/// C has exactly the reference's structure (rows sorted) and values within
/// `ulps` eps of the magnitude sums.
template <class Scalar>
::testing::AssertionResult matches(HostCrs const& C, HostTriple const& ref, double ulps) {
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  if (C.rows != static_cast<std::int64_t>(ref.val.size())) {
    return ::testing::AssertionFailure() << "rows " << C.rows << " vs " << ref.val.size();
  }
  for (std::int64_t i = 0; i < C.rows; ++i) {
    const auto len = C.row_starts[i + 1] - C.row_starts[i];
    if (len != static_cast<std::int64_t>(ref.val[i].size())) {
      return ::testing::AssertionFailure()
             << "row " << i << " has " << len << " entries, the reference " << ref.val[i].size();
    }
    auto it = ref.val[i].begin();
    for (auto k = C.row_starts[i]; k < C.row_starts[i + 1]; ++k, ++it) {
      if (C.col[k] != it->first) {
        return ::testing::AssertionFailure()
               << "row " << i << ": column " << C.col[k] << ", reference " << it->first;
      }
      const double bound = ulps * eps * static_cast<double>(ref.mag[i].at(it->first));
      if (!(std::fabs(C.val[k] - static_cast<double>(it->second)) <= bound)) {
        return ::testing::AssertionFailure()
               << "entry (" << i << ", " << it->first << ") = " << C.val[k] << ", reference "
               << static_cast<double>(it->second);
      }
    }
  }
  return ::testing::AssertionSuccess();
}

/// Piecewise-constant aggregation: `size` consecutive rows per aggregate, the
/// last aggregate shorter, weights 1 / sqrt(size) as a normalised tentative P.
HostCrs aggregation(std::int64_t n, std::int64_t size) {
  HostCrs P;
  P.rows = n;
  P.cols = (n + size - 1) / size;
  for (std::int64_t i = 0; i < n; ++i) {
    P.col.push_back(i / size);
    P.val.push_back(1.0 / std::sqrt(static_cast<double>(size)));
    P.row_starts.push_back(i + 1);
  }
  return P;
}

void scale_values(HostCrs& M, double s) {
  for (auto& v : M.val) v *= s;
}

TYPED_TEST(TripleProductTest, GalerkinOfFemMatchesReferenceAndRepeats) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const auto A = make_fem_poisson_crs<Scalar, Exec, int, int>(exec, 9);
  const HostCrs ha = to_host(A);
  for (const std::int64_t size : {1, 8, 27}) {
    const HostCrs hp = aggregation(ha.rows, size);
    const HostCrs hr = host_transpose(hp);
    const auto P = make_device_crs<Scalar, Exec, int, int>(hp);
    const auto R = make_device_crs<Scalar, Exec, int, int>(hr);
    const auto ref = host_triple(hr, ha, hp);
    const std::string what = "aggregates of " + std::to_string(size);
    EXPECT_TRUE(matches<Scalar>(to_host(galerkin_product(exec, A, P)), ref, 64)) << what;

    TripleProductHandle<Scalar, Exec> h;
    triple_product_symbolic(exec, h, R, A, P);
    ASSERT_TRUE(h.has_structure());
    EXPECT_EQ(h.intermediate().num_rows(), A.num_rows()) << what;
    EXPECT_EQ(h.intermediate().num_cols(), P.num_cols()) << what;
    EXPECT_EQ(h.multiply_adds(),
              h.intermediate_product().multiply_adds() + h.outer_product().multiply_adds());
    EXPECT_GE(h.peak_bytes(), h.intermediate_product().memory().peak_bytes);
    EXPECT_TRUE(matches<Scalar>(to_host(triple_product_numeric(exec, h, R, A, P)), ref, 64))
        << what;
    // New values of all three (same patterns): the same arrays, scaled by 6.
    HostCrs ha2 = ha, hp2 = hp, hr2 = hr;
    scale_values(ha2, 2.0);
    scale_values(hp2, -1.5);
    scale_values(hr2, 2.0);
    const auto values_before = h.matrix().values().data();
    const auto C2 = triple_product_numeric(exec, h, make_device_crs<Scalar, Exec, int, int>(hr2),
                                           make_device_crs<Scalar, Exec, int, int>(ha2),
                                           make_device_crs<Scalar, Exec, int, int>(hp2));
    exec.fence();
    EXPECT_EQ(C2.values().data(), values_before) << what;
    EXPECT_TRUE(matches<Scalar>(to_host(C2), host_triple(hr2, ha2, hp2), 64)) << what;
  }
}

TYPED_TEST(TripleProductTest, RectangularRandomFactorsAndEveryNumericStrategy) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  // R 40 x 300, A 300 x 200 (with empty rows and a long row), P 200 x 35.
  const HostCrs hr = random_crs(40, 300, 12, 0.1, 0, 11);
  const HostCrs ha = random_crs(300, 200, 9, 0.1, 150, 12);
  const HostCrs hp = random_crs(200, 35, 4, 0.2, 0, 13);
  const auto ref = host_triple(hr, ha, hp);
  const auto R = make_device_crs<Scalar, Exec, int, int>(hr);
  const auto A = make_device_crs<Scalar, Exec, int, int>(ha);
  const auto P = make_device_crs<Scalar, Exec, int, int>(hp);
  for (const auto numeric : {SpgemmNumeric::automatic, SpgemmNumeric::hash,
                             SpgemmNumeric::positions, SpgemmNumeric::product_lists}) {
    SpgemmOptions o;
    o.numeric = numeric;
    TripleProductHandle<Scalar, Exec> h(o);
    triple_product_symbolic(exec, h, R, A, P);
    if (numeric != SpgemmNumeric::automatic) {
      EXPECT_EQ(h.intermediate_product().numeric_algorithm(), numeric);
      EXPECT_EQ(h.outer_product().numeric_algorithm(), numeric);
    }
    EXPECT_TRUE(matches<Scalar>(to_host(triple_product_numeric(exec, h, R, A, P)), ref, 64))
        << to_string(numeric);
  }
}

TYPED_TEST(TripleProductTest, ShapesThatDoNotChainAndTheSharedMemoryLimit) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const auto A = make_device_crs<Scalar, Exec, int, int>(random_crs(30, 20, 5, 0.0, 0, 1));
  const auto P = make_device_crs<Scalar, Exec, int, int>(random_crs(20, 6, 3, 0.0, 0, 2));
  const auto R = make_device_crs<Scalar, Exec, int, int>(random_crs(6, 30, 8, 0.0, 0, 3));
  const auto bad = make_device_crs<Scalar, Exec, int, int>(random_crs(7, 29, 8, 0.0, 0, 4));
  try {
    (void)triple_product(exec, bad, A, P);
    ADD_FAILURE() << "R with 29 columns against A with 30 rows was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("R 7 x 29, A 30 x 20, P 20 x 6"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)triple_product(exec, R, A, R), std::invalid_argument);
  EXPECT_THROW((void)galerkin_product(exec, A, P), std::invalid_argument); // A not square
  TripleProductHandle<Scalar, Exec> empty;
  EXPECT_THROW((void)triple_product_numeric(exec, empty, R, A, P), std::invalid_argument);

  // A failed symbolic phase leaves the handle without structure, not with the previous one.
  HostCrs broken_host = random_crs(30, 20, 5, 0.0, 0, 1);
  broken_host.col.back() = 20; // one column past the end
  const auto broken = make_device_crs<Scalar, Exec, int, int>(broken_host);
  TripleProductHandle<Scalar, Exec> reused;
  triple_product_symbolic(exec, reused, R, A, P);
  ASSERT_TRUE(reused.has_structure());
  EXPECT_THROW(triple_product_symbolic(exec, reused, R, broken, P), std::invalid_argument);
  EXPECT_FALSE(reused.has_structure());

  // A limit that A P alone fits but that leaves R (A P) too little: refused, naming the product.
  TripleProductHandle<Scalar, Exec> probe;
  triple_product_symbolic(exec, probe, R, A, P);
  SpgemmOptions tight;
  tight.memory_limit = probe.intermediate_product().memory().peak_bytes;
  TripleProductHandle<Scalar, Exec> h(tight);
  try {
    triple_product_symbolic(exec, h, R, A, P);
    ADD_FAILURE() << "a limit of " << tight.memory_limit << " bytes was enough for both products";
  } catch (AllocationError const& e) {
    EXPECT_NE(std::string(e.what()).find("spmvkit::"), std::string::npos) << e.what();
  }
  // With room for both, the second product sees what the first leaves.
  SpgemmOptions roomy;
  roomy.memory_limit = 4 * probe.peak_bytes() + 4096;
  TripleProductHandle<Scalar, Exec> ok(roomy);
  triple_product_symbolic(exec, ok, R, A, P);
  EXPECT_LE(ok.outer_product().memory().limit_bytes,
            roomy.memory_limit - ok.intermediate_product().memory().output_bytes);
}

} // namespace
