// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The automatic format (select/): features against values counted on the
// host, the model's ranking under given constants, model and tune mode,
// candidate lists, refusals and fallbacks. SpMV, CG, round trips and the byte
// model of AutoMatrix run in the tests typed over FormatConfigs.
#include "test_utils.hpp"

#include <spmvkit/formats/sell_offset16/sell_offset16_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/elasticity.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/select/auto_matrix.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class SelectTest : public ::testing::Test {};
TYPED_TEST_SUITE(SelectTest, AllConfigs, ConfigNames);

/// SELL-C-1 stored entries counted on the host: chunks of c rows padded to
/// their longest row, the last chunk padded to c rows.
std::int64_t host_sell_padded(HostCrs const& h, int c) {
  std::int64_t total = 0;
  for (std::int64_t first = 0; first < h.rows; first += c) {
    std::int64_t width = 0;
    for (std::int64_t r = first; r < std::min<std::int64_t>(h.rows, first + c); ++r) {
      width = std::max(width, h.row_starts[r + 1] - h.row_starts[r]);
    }
    total += width * c;
  }
  return total;
}

TYPED_TEST(SelectTest, FeaturesMatchHostCounts) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // 1000 rows (not a multiple of 64), empty rows, one long row; then a band.
  for (auto const& h : {random_crs(1000, 1200, 30, 0.2, 900, 7), banded_crs(300, 300, 5, 8, 0.1, 3),
                        random_crs(0, 0, 0, 0.0, 0, 1), random_crs(3, 70000, 2, 0.0, 0, 9)}) {
    auto A = make_device_crs<Scalar, Exec>(h);
    const auto f = compute_features(Exec(), A);
    EXPECT_EQ(f.rows.num_rows, h.rows);
    EXPECT_EQ(f.rows.nnz, h.nnz());
    std::int64_t longest = 0, above = 0, below = 0;
    for (std::int64_t r = 0; r < h.rows; ++r) {
      longest = std::max(longest, h.row_starts[r + 1] - h.row_starts[r]);
      for (auto k = h.row_starts[r]; k < h.row_starts[r + 1]; ++k) {
        above = std::max(above, h.col[k] - r);
        below = std::max(below, r - h.col[k]);
      }
    }
    EXPECT_EQ(f.rows.max_row_length, longest);
    EXPECT_EQ(f.max_offset_above, above);
    EXPECT_EQ(f.max_offset_below, below);
    for (std::size_t i = 0; i < feature_chunk_sizes.size(); ++i) {
      EXPECT_EQ(f.sell_padded_entries[i], host_sell_padded(h, feature_chunk_sizes[i]))
          << "C = " << feature_chunk_sizes[i] << ", " << h.rows << " rows";
    }
    EXPECT_EQ(f.sell_offset16_eligible, can_use_sell_offset16(Exec(), A)) << h.rows << " rows";
    EXPECT_GE(f.seconds, 0.0);
  }
}

// BSR's block features: the detected b and its blocks, b = 1 (no blocks
// counted) for a scalar problem; the model then weighs BSR's byte model.
TYPED_TEST(SelectTest, BlockFeaturesAndTheBsrEstimate) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto E = make_elasticity<CrsFormat, Scalar>(Exec(), 4);
  const auto fe = compute_features(Exec(), E);
  EXPECT_EQ(fe.bsr_block_size, 3);
  EXPECT_EQ(fe.bsr_blocks * 9, static_cast<std::int64_t>(E.nnz()));
  const auto fp = compute_features(Exec(), make_fem_poisson_crs<Scalar>(Exec(), 8));
  EXPECT_EQ(fp.bsr_block_size, 1);
  EXPECT_EQ(fp.bsr_blocks, 0);
  const TypeSizes sizes{static_cast<int>(sizeof(Scalar)), 4, 4};
  EXPECT_FALSE(format_cost<BsrFormat>::estimate<Exec>(fp, BsrOptions{}, sizes));
  // Plain BSR's bytes are exact. Chunks of C block rows are priced with the
  // padding of the nearest SELL chunk of the features (64 scalar rows for the
  // 96 of C = 32, b = 3): close, not exact.
  for (int C : {1, 8, 32}) {
    SCOPED_TRACE("C = " + std::to_string(C));
    BsrOptions o;
    o.chunk_size = C;
    const auto e = format_cost<BsrFormat>::estimate<Exec>(fe, o, sizes);
    ASSERT_TRUE(e);
    const double stored = BsrFormat::bytes(make_bsr(Exec(), E, o)).total();
    if (C == 1) {
      EXPECT_DOUBLE_EQ(e->bytes, stored);
    } else {
      EXPECT_NEAR(e->bytes / stored, 1.0, 0.2);
    }
  }
  // A model that prices bytes alone picks BSR over CRS for a blocked matrix
  // whose BSR (the backend's chunks) holds fewer bytes.
  const auto E8 = make_elasticity<CrsFormat, Scalar>(Exec(), 8);
  ASSERT_LT(BsrFormat::bytes(make_bsr(Exec(), E8)).total(), CrsFormat::bytes(E8).total());
  AutoOptions o;
  o.costs = std::vector<KernelCost>{{"crs_vector", 1e-6, 1e-12, 0.0}, {"bsr", 1e-6, 1e-12, 0.0}};
  EXPECT_EQ(make_auto_matrix(Exec(), E8, o).selection().format, "bsr");
}

// ELL-R's estimate: its entries and row lengths where a thread walks one row (GPUs); on the
// host a strip of column_major_host_rows_per_thread rows reads to its longest row, so the
// padding of SELL at that chunk size is counted.
TYPED_TEST(SelectTest, EllrEstimateCountsWhatItsWalkReads) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_fem_poisson_crs<Scalar>(Exec(), 6); // rows of 8 to 27 entries
  const auto f = compute_features(Exec(), A);
  const TypeSizes sizes{static_cast<int>(sizeof(Scalar)), 4, 4};
  const auto e = format_cost<EllrFormat>::estimate<Exec>(f, EllOptions{}, sizes);
  ASSERT_TRUE(e);
  // Counted from the row lengths: each strip of 8 rows (the partial last one
  // as 8, like SELL's chunks) to its longest row.
  const HostCrs h = to_host(A);
  const std::int64_t n = h.rows, strip = detail::column_major_host_rows_per_thread;
  std::int64_t strips_read = 0;
  for (std::int64_t first = 0; first < n; first += strip) {
    std::int64_t longest = 0;
    for (std::int64_t i = first; i < std::min(first + strip, n); ++i)
      longest = std::max(longest, h.row_starts[i + 1] - h.row_starts[i]);
    strips_read += strip * longest;
  }
  ASSERT_GT(strips_read, h.nnz());
  const auto read =
      static_cast<double>(detail::is_host_space_v<Exec> ? strips_read : std::int64_t(h.nnz()));
  EXPECT_DOUBLE_EQ(e->bytes, read * (sizeof(Scalar) + 4) + static_cast<double>(n) * 4.0 +
                                 detail::vector_bytes(f, sizes));
  EXPECT_DOUBLE_EQ(e->critical_entries, static_cast<double>(f.rows.max_row_length));
}

TYPED_TEST(SelectTest, SellOffset16EligibilityAtTheInt16Limits) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Offsets of exactly +32767 and -32768 are storable, one more is not.
  auto edge = from_entries(40000, 40000, {{0, 32767}, {32768, 0}, {39999, 39999}});
  auto over = from_entries(40000, 40000, {{0, 32768}, {39999, 39999}});
  auto under = from_entries(40000, 40000, {{32769, 0}, {39999, 39999}});
  EXPECT_TRUE(compute_features(Exec(), make_device_crs<Scalar, Exec>(edge)).sell_offset16_eligible);
  EXPECT_FALSE(
      compute_features(Exec(), make_device_crs<Scalar, Exec>(over)).sell_offset16_eligible);
  EXPECT_FALSE(
      compute_features(Exec(), make_device_crs<Scalar, Exec>(under)).sell_offset16_eligible);
}

TYPED_TEST(SelectTest, ModelRanksByTheGivenConstants) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_device_crs<Scalar, Exec>(banded_crs(2000, 2000, 40, 20, 0.0, 5));
  AutoOptions o;
  // Bytes cost next to nothing; SELL pays a launch cost 100x CRS's.
  o.costs =
      std::vector<KernelCost>{{"crs_vector", 1e-6, 1e-12, 0.0}, {"sell_c32_s1", 1e-4, 1e-12, 0.0}};
  auto M = make_auto_matrix(Exec(), A, o);
  EXPECT_EQ(M.selection().format, "crs_vector") << M.describe();
  ASSERT_EQ(M.selection().predictions.size(), 2u);
  EXPECT_LT(M.selection().predictions[0].seconds, M.selection().predictions[1].seconds);
  o.costs =
      std::vector<KernelCost>{{"crs_vector", 1e-4, 1e-12, 0.0}, {"sell_c32_s1", 1e-6, 1e-12, 0.0}};
  EXPECT_EQ(make_auto_matrix(Exec(), A, o).selection().format, "sell_c32_s1");
  // The former name (deprecated in 0.2, removed in 0.4) makes the same choice.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(spmvkit::make_matrix(Exec(), A, o).selection().format, "sell_c32_s1");
#pragma GCC diagnostic pop
  // The critical-path term: a matrix with one hub row makes CRS row-per-thread
  // lose to SELL under constants that weigh it; without the hub it wins.
  auto hub = make_device_crs<Scalar, Exec>(random_crs(2000, 2000, 4, 0.0, 1900, 11));
  auto flat = make_device_crs<Scalar, Exec>(random_crs(2000, 2000, 4, 0.0, 0, 11));
  o.costs = std::vector<KernelCost>{{"crs_row_per_thread", 1e-6, 1e-9, 1e-6},
                                    {"sell_c32_s1", 1e-6, 1.5e-9, 0.0}};
  EXPECT_EQ(make_auto_matrix(Exec(), hub, o).selection().format, "sell_c32_s1");
  EXPECT_EQ(make_auto_matrix(Exec(), flat, o).selection().format, "crs_row_per_thread");
}

TYPED_TEST(SelectTest, ProductsMatchTheReferenceInEveryMode) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, typename Exec::memory_space>;
  const auto h = random_crs(700, 650, 25, 0.1, 600, 21);
  auto A = make_device_crs<Scalar, Exec>(h);
  auto x = random_vector<V>(h.cols, 1, "x");
  auto y = random_vector<V>(h.rows, 2, "y");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto ref = reference_spmv<Scalar>(h, 1.5, xh, -0.5, yh);
  AutoOptions model, tune;
  tune.mode = SelectMode::tune;
  tune.costs = std::vector<KernelCost>{{"crs_row_per_thread", 1e-6, 1e-9, 1e-8},
                                       {"crs_vector", 2e-6, 1e-9, 1e-9},
                                       {"sell_c4_s1", 3e-6, 1e-9, 1e-9},
                                       {"sell_c32_s1", 4e-6, 1e-9, 1e-9}};
  model.costs = std::vector<KernelCost>(tune.costs.begin(), tune.costs.end());
  for (auto const& o : {model, tune}) {
    auto M = make_auto_matrix(Exec(), A, o);
    V yc("yc", h.rows);
    Kokkos::deep_copy(yc, y);
    spmv(Exec(), Scalar(1.5), M, x, Scalar(-0.5), yc);
    EXPECT_TRUE(matches_reference<Scalar>(yc, ref)) << M.describe();
  }
}

TYPED_TEST(SelectTest, ReconvertedKeepsTheFormatForNewValues) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, typename Exec::memory_space>;
  auto h = random_crs(500, 500, 20, 0.05, 0, 9);
  const auto A = make_device_crs<Scalar, Exec>(h);
  for (auto const& candidates : {std::vector<std::string>{"sell_c32_s1"},
                                 std::vector<std::string>{"crs"}, std::vector<std::string>{}}) {
    AutoOptions o;
    o.candidates = candidates;
    const auto M = make_auto_matrix(Exec(), A, o);
    for (auto& v : h.val) v = 2 * v + 0.25; // new values, the same pattern
    const auto B = make_device_crs<Scalar, Exec>(h);
    const auto R = M.reconverted(Exec(), B);
    EXPECT_EQ(R.selection().format, M.selection().format);
    auto x = random_vector<V>(h.cols, 3, "x");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    V y("y", h.rows);
    auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    const auto ref = reference_spmv<Scalar>(h, 1, xh, 0, yh);
    spmv(Exec(), Scalar(1), R, x, Scalar(0), y);
    EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << R.describe();
  }
  const auto M = make_auto_matrix(Exec(), A);
  const auto other = make_device_crs<Scalar, Exec>(random_crs(500, 500, 10, 0.05, 0, 10));
  EXPECT_THROW(M.reconverted(Exec(), other), std::invalid_argument);
  const AutoMatrix<Scalar, Exec> empty;
  EXPECT_THROW(empty.reconverted(Exec(), A), std::logic_error);
}

TYPED_TEST(SelectTest, RefillReachesEveryCopyAndChecksThePattern) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, typename Exec::memory_space>;
  const auto h = random_crs(500, 500, 20, 0.05, 0, 9);
  const auto A = make_device_crs<Scalar, Exec>(h);
  auto h2 = h;
  for (auto& v : h2.val) v = 2 * v + 0.25; // new values, the same pattern
  const auto B = make_device_crs<Scalar, Exec>(h2);
  auto moved = h2; // the same nnz, one column moved
  moved.col[moved.row_starts[250]] = (moved.col[moved.row_starts[250]] + 499) % 500;
  auto x = random_vector<V>(h.cols, 3, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  V y("y", h.rows);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto ref = reference_spmv<Scalar>(h2, 1, xh, 0, yh);
  for (auto const& candidates : {std::vector<std::string>{"sell_c32_s1"},
                                 std::vector<std::string>{"crs"}, std::vector<std::string>{}}) {
    AutoOptions o;
    o.candidates = candidates;
    const auto M = make_auto_matrix(Exec(), A, o);
    const auto copy = M;
    M.refill(Exec(), B);
    EXPECT_EQ(copy.selection().format, M.selection().format);
    spmv(Exec(), Scalar(1), copy, x, Scalar(0), y);
    EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << copy.describe();
    if (M.selection().format.rfind("sell", 0) == 0) {
      EXPECT_THROW(M.refill(Exec(), make_device_crs<Scalar, Exec>(moved)), std::invalid_argument);
      spmv(Exec(), Scalar(1), M, x, Scalar(0), y); // unchanged by the refused refill
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << M.describe();
    }
  }
  const auto M = make_auto_matrix(Exec(), A);
  EXPECT_THROW(
      M.refill(Exec(), make_device_crs<Scalar, Exec>(random_crs(500, 500, 10, 0.05, 0, 10))),
      std::invalid_argument);
  const AutoMatrix<Scalar, Exec> empty;
  EXPECT_THROW(empty.refill(Exec(), A), std::logic_error);
}

TYPED_TEST(SelectTest, TuneModeKeepsTheFastestTimed) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_device_crs<Scalar, Exec>(random_crs(3000, 3000, 30, 0.05, 0, 4));
  AutoOptions o;
  o.mode = SelectMode::tune;
  o.tune_candidates = 2;
  o.tune_repetitions = 3;
  o.costs = std::vector<KernelCost>{{"crs_vector", 1e-6, 1e-12, 0.0},
                                    {"sell_c32_s1", 2e-6, 1e-12, 0.0},
                                    {"sell_c4_s1", 3e-6, 1e-12, 0.0}};
  const auto M = make_auto_matrix(Exec(), A, o);
  auto const& s = M.selection();
  std::vector<FormatSelection::Trial> timed;
  for (auto const& t : s.trials) {
    if (std::isfinite(t.measured_seconds)) timed.push_back(t);
  }
  ASSERT_EQ(timed.size(), 2u); // the third candidate is not timed
  EXPECT_EQ(timed[0].format, "crs_vector");
  EXPECT_EQ(timed[1].format, "sell_c32_s1");
  auto best = std::min_element(timed.begin(), timed.end(), [](auto const& a, auto const& b) {
    return a.measured_seconds < b.measured_seconds;
  });
  EXPECT_EQ(s.format, best->format);
  EXPECT_GT(s.tuning_seconds, 0.0);
  if (s.format == "crs_vector") {
    EXPECT_TRUE(std::isinf(s.payback_spmvs));
  } else {
    EXPECT_NEAR(s.payback_spmvs,
                s.tuning_seconds / (timed[0].measured_seconds - best->measured_seconds),
                1e-9 * s.payback_spmvs);
  }
}

TYPED_TEST(SelectTest, CandidatesRefusalsAndFallback) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Columns far from the diagonal: SellOffset16 cannot store it.
  auto A = make_device_crs<Scalar, Exec>(random_crs(500, 90000, 6, 0.0, 0, 8));
  AutoOptions o;
  o.costs = std::vector<KernelCost>{{"sell_offset16_c32_s1", 1e-7, 1e-10, 0.0},
                                    {"crs_vector", 1e-6, 1e-9, 0.0}};
  // SellOffset16 is not predicted (not eligible), so the model goes to CRS.
  auto M = make_auto_matrix(Exec(), A, o);
  EXPECT_EQ(M.selection().format, "crs_vector") << M.describe();
  // Named but unpredicted and refused: the refusal is reported, CRS is the last resort.
  o.candidates = {"sell_offset16"};
  o.costs.clear();
  auto N = make_auto_matrix(Exec(), A, o);
  EXPECT_EQ(N.selection().format, "crs");
  ASSERT_FALSE(N.selection().trials.empty());
  EXPECT_NE(N.selection().trials.front().note.find("int16"), std::string::npos) << N.describe();
  // A family name selects its variants, unpredicted ones in list order.
  o.candidates = {"sell"};
  EXPECT_EQ(make_auto_matrix(Exec(), A, o).selection().family, "sell");
  // The grammar every CLI shares: a prefix, the former Sell16 names, and an item
  // that selects nothing is an error naming it.
  o.candidates = {"sell_c8*"};
  EXPECT_EQ(make_auto_matrix(Exec(), A, o).selection().format.rfind("sell_c8_", 0), 0u);
  o.candidates = {"sell16"};
  EXPECT_EQ(
      make_auto_matrix(Exec(), A, o).selection().trials.front().format.rfind("sell_offset16", 0),
      0u);
  o.candidates = {"crs", "sell_c99"};
  try {
    make_auto_matrix(Exec(), A, o);
    ADD_FAILURE() << "an unknown candidate was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("AutoOptions::candidates: 'sell_c99' selects nothing"),
              std::string::npos)
        << e.what();
  }
  // No constants at all: CRS, and the report says why.
  o.candidates.clear();
  o.costs = std::vector<KernelCost>{{"no_such_variant", 1, 1, 1}};
  auto P = make_auto_matrix(Exec(), A, o);
  EXPECT_EQ(P.selection().format, "crs");
  EXPECT_NE(P.describe().find("no candidate variant"), std::string::npos) << P.describe();
}

TYPED_TEST(SelectTest, SeveralColumnsChooseAmongCrsKernelsOnHosts) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const HostCrs h = banded_crs(400, 400, 3, 5, 0.0, 2);
  auto A = make_device_crs<Scalar, Exec>(h);
  AutoOptions o;
  o.costs =
      std::vector<KernelCost>{{"sell_c4_s1", 1e-7, 1e-12, 0.0}, {"crs_vector", 1e-6, 1e-9, 0.0}};
  EXPECT_EQ(make_auto_matrix(Exec(), A, o).selection().format, "sell_c4_s1");
  o.columns = 8;
  const auto M = make_auto_matrix(Exec(), A, o);
  if constexpr (detail::is_host_space_v<Exec>) {
    EXPECT_EQ(M.selection().format, "crs_vector") << M.describe();
    EXPECT_NE(M.describe().find("only the CRS kernels, for products of 8 columns on a host"),
              std::string::npos)
        << M.describe();
  } else {
    EXPECT_EQ(M.selection().format, "sell_c4_s1") << M.describe();
  }
  // Its product of 8 distinct columns, each against the long-double reference.
  using Block = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Exec::memory_space>;
  const Block X = random_columns<Block>(400, 8, 31);
  Block Y("Y", 400, 8);
  spmv(Exec(), Scalar(1), M, X, Scalar(0), Y);
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
  for (int c = 0; c < 8; ++c) {
    const auto column = Kokkos::subview(xh, Kokkos::ALL, c);
    const auto ref = reference_spmv<Scalar>(h, 1.0, column, 0.0, column);
    EXPECT_TRUE(matches_reference(Kokkos::subview(Y, Kokkos::ALL, c), ref)) << "column " << c;
  }
  // Candidates that name no CRS kernel keep their own choice.
  o.candidates = {"sell"};
  EXPECT_EQ(make_auto_matrix(Exec(), A, o).selection().family, "sell");
}

TYPED_TEST(SelectTest, RejectsBadInput) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_device_crs<Scalar, Exec>(random_crs(50, 50, 5, 0.0, 0, 1));
  AutoOptions o;
  o.tune_candidates = 0;
  EXPECT_THROW(make_auto_matrix(Exec(), A, o), std::invalid_argument);
  o = AutoOptions{};
  o.tune_repetitions = -1;
  EXPECT_THROW(make_auto_matrix(Exec(), A, o), std::invalid_argument);
  o = AutoOptions{};
  o.columns = 0;
  try {
    make_auto_matrix(Exec(), A, o);
    ADD_FAILURE() << "columns = 0 was accepted";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("AutoOptions::columns must be >= 1, got 0"),
              std::string::npos)
        << e.what();
  }
  // A broken structure is named before anything is converted.
  auto h = random_crs(50, 50, 5, 0.0, 0, 1);
  h.col[3] = 77;
  auto B = make_device_crs<Scalar, Exec>(h);
  EXPECT_THROW(make_auto_matrix(Exec(), B, AutoOptions{}), std::invalid_argument);
}

TYPED_TEST(SelectTest, DescribeNamesChoiceFeaturesAndCost) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto A = make_device_crs<Scalar, Exec>(banded_crs(400, 400, 3, 5, 0.0, 2));
  AutoOptions o;
  o.costs = std::vector<KernelCost>{{"sell_c4_s1", 1e-6, 1e-9, 0.0}};
  const std::string d = make_auto_matrix(Exec(), A, o).describe();
  for (char const* what : {"format: sell_c4_s1", "model mode", "bandwidth 3", "SellOffset16 yes",
                           "expected bytes per SpMV", "cost: structure check"}) {
    EXPECT_NE(d.find(what), std::string::npos) << what << " not in:\n" << d;
  }
}

} // namespace
