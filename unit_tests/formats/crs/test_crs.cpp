// CrsMatrix itself: index-type overflow at construction and the structure check.
#include "test_utils.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

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

} // namespace
