// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Mixed-precision spmv for every format of spmvkit::format_list (typed over
// FormatConfigs): a float matrix with double vectors, a double matrix with
// float vectors, against a long-double reference of the matrix as stored.
//
// The bound is what sums in double allow (plus one rounding to float for
// float vectors). A float matrix times double vectors summed in float would
// miss it by orders of magnitude: the test checks that too, so it can tell.
#include "test_utils.hpp"

#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class SpmvMixedTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpmvMixedTest, FormatConfigs, FormatConfigNames);

/// The other of float and double.
template <class Scalar>
using partner_t = std::conditional_t<std::is_same_v<Scalar, float>, double, float>;

/// y = beta y0 + alpha A x in long double, A's values rounded to MatrixScalar
/// (the matrix as stored), x and y0 as the vectors hold them. The bound: the
/// sums in double (Higham's dot-product bound, a few units of double rounding
/// per term), and, for float vectors, the rounding of y to float. A row whose
/// parts are stored one after the other (HYB's ELL part, then its tail; a row
/// that a merge-path tile boundary splits) is rounded at each store, so the
/// float rounding is bounded by the row's magnitude |beta y0| + |alpha| |A||x|,
/// not by |y|.
template <class MatrixScalar, class VectorScalar, class XH, class YH>
Reference<double> mixed_reference(HostCrs const& A, double alpha, XH const& x, double beta,
                                  YH const& y0) {
  Reference<double> r;
  r.y.resize(A.rows);
  r.bound.resize(A.rows);
  const long double eps = std::numeric_limits<double>::epsilon();
  const long double eps_y = sizeof(VectorScalar) < 8 ? std::numeric_limits<float>::epsilon() : 0;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    long double sum = 0, mag = 0;
    for (std::int64_t k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
      const long double v = static_cast<MatrixScalar>(A.val[k]);
      sum += v * static_cast<long double>(x(A.col[k]));
      mag += std::fabs(v * static_cast<long double>(x(A.col[k])));
    }
    const long double len = static_cast<long double>(A.row_starts[i + 1] - A.row_starts[i]);
    const long double yterm = beta == 0.0 ? 0.0L : static_cast<long double>(beta) * y0(i);
    r.y[i] = yterm + static_cast<long double>(alpha) * sum;
    const long double scale = std::fabs(yterm) + std::fabs(static_cast<long double>(alpha)) * mag;
    r.bound[i] =
        4 * eps * (len + 3) * scale + 2 * eps_y * scale + std::numeric_limits<VectorScalar>::min();
  }
  return r;
}

/// A copy of v in another value type (rounded where it narrows).
template <class To, class From>
To converted(From const& v, char const* label) {
  To out(std::string(label), v.extent(0));
  auto vh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  auto oh = Kokkos::create_mirror_view(out);
  for (std::size_t i = 0; i < vh.extent(0); ++i)
    oh(i) = static_cast<typename To::value_type>(vh(i));
  Kokkos::deep_copy(out, oh);
  return out;
}

/// How many entries of y miss the reference's bound.
template <class YView>
std::int64_t count_misses(YView const& y, Reference<double> const& ref) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::int64_t misses = 0;
  for (std::size_t i = 0; i < ref.y.size(); ++i)
    if (!(std::fabs(static_cast<long double>(h(i)) - ref.y[i]) <= ref.bound[i])) ++misses;
  return misses;
}

struct MixedShape {
  char const* name;
  std::int64_t rows, cols;
  int max_row;
  double empty_fraction;
  std::int64_t long_row;
};

// Chunk tails, empty rows, a row far longer than the rest (CRS vector lanes,
// merge-path tiles that split a row: the carries), non-square, degenerate.
const MixedShape mixed_shapes[] = {
    {"random_with_empty_rows", 1000, 1000, 40, 0.2, 0},
    {"single_very_long_row", 777, 5000, 8, 0.1, 4000},
    {"n_below_chunk", 5, 9, 6, 0.0, 0},
    {"wide", 37, 400, 60, 0.1, 0},
    {"tall", 523, 17, 12, 0.25, 0},
    {"empty_0x0", 0, 0, 0, 0.0, 0},
};

struct MixedCoefficients {
  double alpha, beta;
};
const MixedCoefficients mixed_coefficients[] = {{1.0, 0.0}, {2.5, -1.5}, {0.0, 2.0}, {-0.75, 1.0}};

TYPED_TEST(SpmvMixedTest, EveryVariantSumsInTheWiderType) {
  using Scalar = typename TypeParam::value_type; // the matrix's
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using Vector = partner_t<Scalar>; // the vectors'
  using V = Kokkos::View<Vector*, Exec>;
  using VS = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 41;
  int checked = 0, float_sums_missed = 0, float_sums_tried = 0;
  for (auto const& shape : mixed_shapes) {
    const HostCrs h = random_crs(shape.rows, shape.cols, shape.max_row, shape.empty_fraction,
                                 shape.long_row, ++seed);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const V x = random_vector<V>(h.cols, ++seed, "x");
    const V y0 = random_vector<V>(h.rows, ++seed, "y0");
    const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    const auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    for (auto const& o : test_options<Format, Exec>()) {
      if (!Format::obstacle(Exec(), A, o).empty()) continue;
      const auto M = Format::from_crs(Exec(), A, o);
      for (auto const& ab : mixed_coefficients) {
        SCOPED_TRACE(std::string(shape.name) + " " + Format::name(o) +
                     " alpha=" + std::to_string(ab.alpha) + " beta=" + std::to_string(ab.beta));
        const auto ref = mixed_reference<Scalar, Vector>(h, ab.alpha, xh, ab.beta, y0h);
        V y("y", static_cast<std::size_t>(h.rows));
        // beta == 0 overwrites y unread, NaN included.
        Kokkos::deep_copy(y, ab.beta == 0 ? std::numeric_limits<Vector>::quiet_NaN() : Vector(0));
        if (ab.beta != 0) Kokkos::deep_copy(y, y0);
        spmv(Exec(), ab.alpha, M, x, ab.beta, y, o);
        Kokkos::fence();
        EXPECT_TRUE(matches_reference<double>(y, ref)) << "options given";
        // Through the matrix's own options, with a const x.
        Kokkos::View<const Vector*, Exec> xc = x;
        Kokkos::deep_copy(y, y0);
        spmv(Exec(), ab.alpha, M, xc, ab.beta, y);
        Kokkos::fence();
        EXPECT_TRUE(matches_reference<double>(y, ref)) << "matrix's options";
        ++checked;
        // The same product with the vectors rounded to the matrix's float and
        // summed in float misses the mixed bound: the bound can tell.
        if constexpr (std::is_same_v<Scalar, float>) {
          if (ab.alpha != 0 && h.nnz() > 100) {
            const VS xs = converted<VS>(x, "xs");
            const VS ys = converted<VS>(y0, "ys");
            spmv(Exec(), Scalar(ab.alpha), M, xs, Scalar(ab.beta), ys, o);
            Kokkos::fence();
            ++float_sums_tried;
            if (count_misses(ys, ref) > 0) ++float_sums_missed;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  if constexpr (std::is_same_v<Scalar, float>) {
    EXPECT_GT(float_sums_tried, 0);
    EXPECT_EQ(float_sums_missed, float_sums_tried);
  }
}

// Mixed vectors keep spmv's checks: sizes, aliasing (the storage of x and y
// in bytes, whatever their type), and the byte model counts the vectors in
// their own type.
TYPED_TEST(SpmvMixedTest, ChecksAndByteModel) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using Vector = partner_t<Scalar>;
  using V = Kokkos::View<Vector*, Exec>;
  const HostCrs h = random_crs(300, 300, 20, 0.1, 0, 5);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto o = typename Format::options_type{};
  ASSERT_TRUE(Format::obstacle(Exec(), A, o).empty());
  const auto M = Format::from_crs(Exec(), A, o);
  V x("x", 300), y("y", 300), short_y("short_y", 299);
  EXPECT_THROW(spmv(Exec(), 1.0, M, x, 0.0, short_y), std::invalid_argument);
  EXPECT_THROW(spmv(Exec(), 1.0, M, x, 0.0, x), std::invalid_argument);
  V both("both", 600);
  const auto front = Kokkos::subview(both, std::make_pair(0, 300));
  const auto overlapping = Kokkos::subview(both, std::make_pair(299, 599));
  const auto apart = Kokkos::subview(both, std::make_pair(300, 600));
  EXPECT_THROW(spmv(Exec(), 1.0, M, front, 0.0, overlapping), std::invalid_argument);
  EXPECT_NO_THROW(spmv(Exec(), 1.0, M, front, 0.0, apart));
  Kokkos::fence();

  const SpmvBytes same = Format::bytes(M);
  const SpmvBytes own = spmv_bytes<Scalar>(M);
  const SpmvBytes mixed = spmv_bytes<Vector>(M);
  // The convention spmv_bytes relies on: each format counts x and y once.
  EXPECT_EQ(own.matrix, same.matrix);
  EXPECT_EQ(own.x, same.x);
  EXPECT_EQ(own.y, same.y);
  EXPECT_EQ(mixed.matrix, same.matrix);
  EXPECT_EQ(mixed.x, 300.0 * sizeof(Vector));
  EXPECT_EQ(mixed.y, 300.0 * sizeof(Vector));
  // An operator on vectors of the other type reports that model.
  const auto op = make_mixed_operator<Vector>(M);
  static_assert(std::is_same_v<typename decltype(op)::scalar_type, Vector>);
  EXPECT_EQ(op.bytes().total(), mixed.total());
  EXPECT_EQ(make_operator(M).bytes().total(), same.total());
}

// The mixed operator's apply and diagonal (what mixed CG runs on).
TYPED_TEST(SpmvMixedTest, OperatorAppliesAndTakesTheDiagonalInVectorPrecision) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Format = typename TypeParam::format;
  using Vector = partner_t<Scalar>;
  using V = Kokkos::View<Vector*, Exec>;
  HostCrs h = random_crs(200, 200, 12, 0.0, 0, 9);
  // Add a diagonal entry to every other row (sorted in place of its column).
  HostCrs g;
  g.rows = g.cols = 200;
  for (std::int64_t i = 0; i < 200; ++i) {
    bool placed = i % 2 == 1;
    for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k) {
      if (!placed && h.col[k] >= i) {
        g.col.push_back(i);
        g.val.push_back(3.0 + 1e-9 * static_cast<double>(i)); // not a float
        placed = true;
      }
      g.col.push_back(h.col[k]);
      g.val.push_back(h.val[k]);
    }
    if (!placed) {
      g.col.push_back(i);
      g.val.push_back(3.0 + 1e-9 * static_cast<double>(i));
    }
    g.row_starts.push_back(static_cast<std::int64_t>(g.col.size()));
  }
  const auto A = make_device_crs<Scalar, Exec>(g);
  for (auto const& o : test_options<Format, Exec>()) {
    if (!Format::obstacle(Exec(), A, o).empty()) continue;
    SCOPED_TRACE(Format::name(o));
    const auto M = Format::from_crs(Exec(), A, o);
    const auto op = make_mixed_operator<Vector>(M, o);
    const V x = random_vector<V>(200, 3, "x");
    V y("y", 200), d("d", 200);
    op.apply(Exec(), x, y);
    op.diagonal(Exec(), d);
    Kokkos::fence();
    const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    EXPECT_TRUE(matches_reference<double>(y, mixed_reference<Scalar, Vector>(g, 1, xh, 0, xh)));
    const auto dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
    for (std::int64_t i = 0; i < 200; ++i) {
      double expected = 0;
      for (std::int64_t k = g.row_starts[i]; k < g.row_starts[i + 1]; ++k)
        if (g.col[k] == i) expected += static_cast<double>(static_cast<Scalar>(g.val[k]));
      EXPECT_EQ(dh(i), static_cast<Vector>(expected)) << "d(" << i << ")";
    }
  }
}

} // namespace
