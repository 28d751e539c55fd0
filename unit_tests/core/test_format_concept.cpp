// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every format of spmvkit::format_list promises through the format
// concept (core/format_concept.hpp): exact round trips through CRS, the
// diagonal, the byte model and distinct variant names. Typed over
// FormatConfigs, so a new format is held to the same promises unnamed.
#include "test_utils.hpp"

#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class FormatConceptTest : public ::testing::Test {};
TYPED_TEST_SUITE(FormatConceptTest, FormatConfigs, FormatConfigNames);

static_assert(format_list::size >= 3, "CRS, SELL and SellOffset16 at least");

std::vector<std::pair<std::string, HostCrs>> concept_matrices() {
  return {{"random_with_empty_rows", random_crs(600, 600, 30, 0.2, 0, 41)},
          {"one_long_row", random_crs(300, 900, 6, 0.1, 800, 42)},
          {"rectangular", random_crs(45, 130, 20, 0.1, 0, 43)},
          {"banded", banded_crs(2000, 2000, 60, 12, 0.05, 44)},
          {"empty_0x0", random_crs(0, 0, 0, 0.0, 0, 45)},
          {"all_rows_empty", random_crs(33, 33, 0, 1.0, 0, 46)}};
}

TYPED_TEST(FormatConceptTest, RoundTripThroughCrsIsExact) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  auto matrices = concept_matrices();
  matrices.push_back({"1138_bus", to_host(read_matrix_market<Scalar, Exec>(
                                      std::string(SPMVKIT_TEST_MATRIX_DIR) + "/1138_bus.mtx.gz"))});
  int converted = 0;
  for (auto const& [name, h] : matrices) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const HostCrs expected = to_host(A); // values rounded to Scalar
    for (auto const& o : test_options<Format, Exec>()) {
      SCOPED_TRACE(name + " " + Format::name(o));
      if (!Format::obstacle(Exec(), A, o).empty()) continue;
      const auto M = Format::from_crs(Exec(), A, o);
      EXPECT_EQ(M.num_rows(), A.num_rows());
      EXPECT_EQ(M.num_cols(), A.num_cols());
      EXPECT_EQ(M.nnz(), A.nnz());
      const HostCrs back = to_host(Format::to_crs(Exec(), M));
      EXPECT_EQ(back.row_starts, expected.row_starts);
      EXPECT_EQ(back.col, expected.col);
      EXPECT_EQ(back.val, expected.val);
      ++converted;
    }
  }
  EXPECT_GT(converted, 0);
}

// The optional F::refill: new values of the same pattern reach every copy of the matrix; another
// pattern is refused with nothing changed, or (the automatic format's converting fallback)
// converted anew. Formats without it are skipped.
TYPED_TEST(FormatConceptTest, RefillTakesNewValuesAndRefusesAnotherPattern) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using Crs = CrsMatrix<Scalar, Exec>;
  using M = typename Format::template matrix_type<Scalar, Exec, int, int>;
  using V = Kokkos::View<Scalar*, Exec>;
  if constexpr (!detail::has_refill<Format, Exec, M, Crs>::value) {
    GTEST_SKIP() << Format::family << " has no refill";
  } else {
    constexpr bool converts = std::is_same_v<Format, AutoFormat>;
    int refilled = 0, refused = 0;
    for (auto const& [name, h] : concept_matrices()) {
      HostCrs h2 = h;
      for (auto& v : h2.val) v = 2 * v - 0.75;
      const auto A = make_device_crs<Scalar, Exec>(h);
      const auto B = make_device_crs<Scalar, Exec>(h2);
      const HostCrs expected = to_host(B);
      // Another pattern of the same shape and nnz: the last entry of the middle row with entries
      // moves one column on.
      HostCrs h3 = h2;
      std::int64_t moved = -1;
      for (std::int64_t r = h3.rows / 2; r < h3.rows && h3.cols > 1; ++r) {
        if (h3.row_starts[r + 1] > h3.row_starts[r]) {
          auto& c = h3.col[static_cast<std::size_t>(h3.row_starts[r + 1] - 1)];
          c = (c + 1) % h3.cols;
          moved = r;
          break;
        }
      }
      for (auto const& o : test_options<Format, Exec>()) {
        SCOPED_TRACE(name + " " + Format::name(o));
        if (!Format::obstacle(Exec(), A, o).empty()) continue;
        const auto Mat = Format::from_crs(Exec(), A, o);
        const auto copy = Mat;
        // A transposed product first: the matrix keeps a transposed twin, which the refill must
        // drop.
        V x("x", static_cast<std::size_t>(h.rows)), y("y", static_cast<std::size_t>(h.cols));
        Kokkos::deep_copy(x, Scalar(1));
        spmv(Exec(), SpmvMode::transpose, Scalar(1), Mat, x, Scalar(0), y);
        Format::refill(Exec(), Mat, B);
        const HostCrs back = to_host(Format::to_crs(Exec(), copy));
        EXPECT_EQ(back.row_starts, expected.row_starts);
        EXPECT_EQ(back.col, expected.col);
        EXPECT_EQ(back.val, expected.val);
        spmv(Exec(), SpmvMode::transpose, Scalar(1), copy, x, Scalar(0), y);
        auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
        for (std::int64_t j = 0; j < h.cols; ++j) {
          double sum = 0; // column sums of B
          for (std::int64_t i = 0; i < h.rows; ++i)
            for (auto k = expected.row_starts[i]; k < expected.row_starts[i + 1]; ++k)
              if (expected.col[k] == j) sum += expected.val[k];
          ASSERT_NEAR(yh(j), sum, 1e-4 * (1 + std::abs(sum))) << "column " << j;
        }
        ++refilled;
        EXPECT_THROW(Format::refill(
                         Exec(), Mat,
                         make_device_crs<Scalar, Exec>(random_crs(h.rows + 1, h.cols, 3, 0, 0, 5))),
                     std::invalid_argument);
        if (moved < 0) continue;
        bool threw = false;
        try {
          Format::refill(Exec(), Mat, make_device_crs<Scalar, Exec>(h3));
        } catch (std::invalid_argument const& e) {
          threw = true;
          EXPECT_NE(std::string(e.what()).find("row " + std::to_string(moved) + " "),
                    std::string::npos)
              << e.what();
        }
        const HostCrs after = to_host(Format::to_crs(Exec(), Mat));
        if (!converts) {
          EXPECT_TRUE(threw) << "another pattern was refilled";
        }
        EXPECT_EQ(after.col, threw ? expected.col : to_host(make_device_crs<Scalar, Exec>(h3)).col);
        EXPECT_EQ(after.val, expected.val);
        refused += threw;
      }
    }
    EXPECT_GT(refilled, 0);
    if (!converts) {
      EXPECT_GT(refused, 0);
    }
  }
}

TYPED_TEST(FormatConceptTest, DiagonalSumsTheDiagonalEntries) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using V = Kokkos::View<Scalar*, Exec>;
  for (auto const& [name, h] : concept_matrices()) {
    if (h.rows != h.cols) continue;
    std::vector<double> d(static_cast<std::size_t>(h.rows), 0.0);
    for (std::int64_t i = 0; i < h.rows; ++i)
      for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
        if (h.col[k] == i) d[i] += static_cast<Scalar>(h.val[k]);
    const auto A = make_device_crs<Scalar, Exec>(h);
    for (auto const& o : test_options<Format, Exec>()) {
      SCOPED_TRACE(name + " " + Format::name(o));
      if (!Format::obstacle(Exec(), A, o).empty()) continue;
      const auto M = Format::from_crs(Exec(), A, o);
      V diag("diag", static_cast<std::size_t>(h.rows));
      Kokkos::deep_copy(diag, Scalar(-12345));
      Format::diagonal(Exec(), M, diag);
      auto dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), diag);
      for (std::int64_t i = 0; i < h.rows; ++i)
        ASSERT_EQ(dh(i), static_cast<Scalar>(d[i])) << "row " << i;
    }
  }
}

TYPED_TEST(FormatConceptTest, ByteModelCountsEveryStoredArrayAndTheVectors) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  const HostCrs h = random_crs(500, 400, 25, 0.1, 0, 51);
  const auto A = make_device_crs<Scalar, Exec>(h);
  for (auto const& o : test_options<Format, Exec>()) {
    SCOPED_TRACE(Format::name(o));
    if (!Format::obstacle(Exec(), A, o).empty()) continue;
    const SpmvBytes b = Format::bytes(Format::from_crs(Exec(), A, o));
    EXPECT_EQ(b.x, 400.0 * sizeof(Scalar));
    EXPECT_EQ(b.y, 500.0 * sizeof(Scalar));
    // Every nonzero's value is read at least once, and something locates it.
    EXPECT_GT(b.matrix, static_cast<double>(h.nnz()) * sizeof(Scalar));
    EXPECT_EQ(b.total(), b.matrix + b.x + b.y);
  }
  // CRS is the reference model: values + column indices + row starts.
  const SpmvBytes crs = CrsFormat::bytes(A);
  EXPECT_EQ(crs.matrix,
            static_cast<double>(h.nnz()) * (sizeof(Scalar) + sizeof(int)) + 501.0 * sizeof(int));
}

TYPED_TEST(FormatConceptTest, VariantNamesAreDistinctAndNameTheFamily) {
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  std::set<std::string> names;
  const auto variants = Format::template variants<Exec>();
  ASSERT_FALSE(variants.empty());
  for (auto const& o : variants) {
    const std::string n = Format::name(o);
    EXPECT_EQ(n.rfind(Format::family, 0), 0u) << n << " does not start with " << Format::family;
    EXPECT_TRUE(names.insert(n).second) << "duplicate variant name " << n;
  }
}

} // namespace
