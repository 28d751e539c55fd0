// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The BSR format (formats/bsr/bsr_matrix.hpp): block-size detection, both
// block layouts, padding and its refusals, SpMV with blocks of 1..8 (rank 1,
// several columns, mixed precision, transposed) against the reference. The
// format-wide promises (round trips, diagonal, byte model, the typed SpMV and
// solver suites) hold it with every other format, where random patterns give
// b = 1; the blocked matrices here exercise b > 1.
#include "test_utils.hpp"

#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class BsrTest : public ::testing::Test {};
TYPED_TEST_SUITE(BsrTest, AllConfigs, ConfigNames);

/// A random pattern of full b x b blocks: each block row gets up to
/// max_blocks distinct block columns (some block rows none), every entry of a
/// block nonzero. Rows are sorted.
HostCrs blocked_crs(std::int64_t block_rows, std::int64_t block_cols, int b, int max_blocks,
                    unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(0.05, 1.0), unit(0.0, 1.0);
  std::vector<std::vector<std::int64_t>> pattern(static_cast<std::size_t>(block_rows));
  for (auto& row : pattern) {
    if (block_cols == 0 || unit(gen) < 0.1) continue;
    const int n = std::uniform_int_distribution<int>(
        1, static_cast<int>(std::min<std::int64_t>(max_blocks, block_cols)))(gen);
    while (static_cast<int>(row.size()) < n) {
      const auto J = std::uniform_int_distribution<std::int64_t>(0, block_cols - 1)(gen);
      if (std::find(row.begin(), row.end(), J) == row.end()) row.push_back(J);
    }
    std::sort(row.begin(), row.end());
  }
  HostCrs h;
  h.rows = block_rows * b;
  h.cols = block_cols * b;
  for (std::int64_t i = 0; i < h.rows; ++i) {
    for (auto J : pattern[static_cast<std::size_t>(i / b)]) {
      for (int c = 0; c < b; ++c) {
        h.col.push_back(J * b + c);
        h.val.push_back(unit(gen) < 0.5 ? value(gen) : -value(gen));
      }
    }
    h.row_starts.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

/// h with the entries for which drop(row, col) holds removed.
template <class Drop>
HostCrs without(HostCrs const& h, Drop drop) {
  HostCrs o;
  o.rows = h.rows;
  o.cols = h.cols;
  for (std::int64_t i = 0; i < h.rows; ++i) {
    for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k) {
      if (drop(i, h.col[k])) continue;
      o.col.push_back(h.col[k]);
      o.val.push_back(h.val[k]);
    }
    o.row_starts.push_back(static_cast<std::int64_t>(o.col.size()));
  }
  return o;
}

template <class Scalar, class Exec, class M, class X>
void expect_product(HostCrs const& h, M const& B, X const& x, double alpha, double beta,
                    SpmvMode mode = SpmvMode::none) {
  using V = Kokkos::View<typename X::non_const_value_type*, Exec>;
  const HostCrs ref_matrix = mode == SpmvMode::none ? h : host_transpose(h);
  const V y0 = random_vector<V>(ref_matrix.rows, 99, "y0");
  V y("y", static_cast<std::size_t>(ref_matrix.rows));
  Kokkos::deep_copy(y, y0);
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  const auto ref = reference_spmv<Scalar>(ref_matrix, alpha, xh, beta, y0h);
  spmv(Exec(), mode, alpha, B, x, beta, y);
  Kokkos::fence();
  EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << "b = " << B.block_size();
}

TYPED_TEST(BsrTest, DetectsTheLargestExactBlockSize) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  for (int b = 1; b <= 8; ++b) {
    SCOPED_TRACE("b = " + std::to_string(b));
    const HostCrs h = blocked_crs(37, 29, b, 6, 100 + b);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto B = make_bsr(Exec(), A);
    EXPECT_EQ(B.block_size(), b);
    EXPECT_EQ(B.nnz(), h.nnz());
    // The backend's chunks pad (GPUs: 32 block rows); the blocks themselves are exact.
    EXPECT_EQ(B.num_blocks() * b * b, h.nnz());
    EXPECT_EQ(B.stored_entries(), static_cast<std::int64_t>(B.block_columns().extent(0)) * b * b);
    EXPECT_GE(B.stored_entries(), h.nnz());
    EXPECT_EQ(B.masks().extent(0), 0u);
    EXPECT_EQ(B.num_block_rows(), 37);
    EXPECT_EQ(B.num_block_cols(), 29);
    BsrOptions plain;
    plain.chunk_size = 1;
    EXPECT_EQ(make_bsr(Exec(), A, plain).stored_entries(), h.nnz());
  }
  // Blocks of 6 are also blocks of 3 and 2: the largest wins.
  const auto six = make_bsr(Exec(), make_device_crs<Scalar, Exec>(blocked_crs(10, 10, 6, 4, 7)));
  EXPECT_EQ(six.block_size(), 6);
  // FEM Poisson (one unknown per node): b = 1, the same entries as CRS.
  const auto fem = make_fem_poisson_crs<Scalar>(Exec(), 6);
  const auto F = make_bsr(Exec(), fem);
  EXPECT_EQ(F.block_size(), 1);
  EXPECT_EQ(F.num_blocks(), static_cast<std::int64_t>(fem.nnz()));
  // One missing entry in one block: that size is ruled out, exactness is needed.
  HostCrs h = blocked_crs(12, 12, 3, 4, 8);
  const std::int64_t gone_row = 4, gone_col = h.col[h.row_starts[4]];
  const HostCrs holed = without(h, [&](auto i, auto c) { return i == gone_row && c == gone_col; });
  EXPECT_EQ(make_bsr(Exec(), make_device_crs<Scalar, Exec>(holed)).block_size(), 1);
}

TYPED_TEST(BsrTest, StoresBlocksInEitherLayout) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // One 2 x 2 block (0, 1) of [[1, 2], [3, 4]] in a 2 x 4 matrix.
  HostCrs h;
  h.rows = 2;
  h.cols = 4;
  h.row_starts = {0, 2, 4};
  h.col = {2, 3, 2, 3};
  h.val = {1, 2, 3, 4};
  const auto A = make_device_crs<Scalar, Exec>(h);
  BsrOptions o;
  o.block_size = 2;
  o.chunk_size = 1; // plain BSR: the block's entries in order (chunks interleave block rows)
  const auto R = make_bsr(Exec(), A, o);
  o.layout = BsrBlockLayout::column_major;
  const auto C = make_bsr(Exec(), A, o);
  auto rv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), R.values());
  auto cv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.values());
  auto rc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), R.block_columns());
  ASSERT_EQ(rv.extent(0), 4u);
  EXPECT_EQ(rc(0), 1);
  EXPECT_EQ(std::vector<double>(rv.data(), rv.data() + 4), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(std::vector<double>(cv.data(), cv.data() + 4), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_EQ(BsrFormat::options(C).layout, BsrBlockLayout::column_major);
  EXPECT_EQ(BsrFormat::options(C).block_size, 2);
}

// The GPU's kernels for chunks (a thread per block row, a thread per row of a
// block row, and a pair of lanes per block row) run here on any backend through
// their functors, in teams of one thread on hosts (the pair's two lanes one
// after the other), so their indexing is checked where there is no GPU.
template <int B, class Scalar, class Exec>
void check_chunk_kernels() {
  using V = Kokkos::View<Scalar*, Exec>;
  using Policy = Kokkos::TeamPolicy<Exec>;
  const HostCrs h = blocked_crs(45, 41, B, 30, 300 + B);
  const auto A = make_device_crs<Scalar, Exec>(h);
  constexpr int C = 8, chunks_per_team = 2;
  constexpr bool host = detail::is_host_space_v<Exec>;
  for (auto layout : {BsrBlockLayout::row_major, BsrBlockLayout::column_major}) {
    BsrOptions o;
    o.chunk_size = C;
    o.layout = layout;
    const auto M = make_bsr(Exec(), A, o);
    using Matrix = std::decay_t<decltype(M)>;
    ASSERT_EQ(M.block_size(), B);
    const V x = random_vector<V>(h.cols, 11 + B, "x");
    const V y0 = random_vector<V>(h.rows, 12 + B, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    const auto ref = reference_spmv<Scalar>(h, -1.5, xh, 0.5, y0h);
    const int chunks = (M.num_block_rows() + C - 1) / C;
    const int league = (chunks + chunks_per_team - 1) / chunks_per_team;
    const auto alpha = static_cast<Scalar>(-1.5), beta = static_cast<Scalar>(0.5);
    for (auto threads : {BsrThreads::block_row, BsrThreads::row, BsrThreads::pair}) {
      SCOPED_TRACE(std::string(threads == BsrThreads::row    ? "a thread per row"
                               : threads == BsrThreads::pair ? "a pair of lanes per block row"
                                                             : "a thread per block row") +
                   (layout == BsrBlockLayout::row_major ? ", row-major" : ", column-major"));
      V y("y", static_cast<std::size_t>(h.rows));
      Kokkos::deep_copy(y, y0);
      if (threads == BsrThreads::row) {
        Kokkos::parallel_for(
            Policy(Exec(), league, host ? 1 : chunks_per_team * C * B),
            detail::BsrSpmvSlicedRows<B, 4, Matrix, V, V>{M.row_source(), x, y, alpha, beta,
                                                          M.num_block_rows(), chunks_per_team});
      } else if (threads == BsrThreads::pair) {
        // Unrolled by 2 of a lane's blocks, so the blocks pair and single steps both run.
        using Pair = detail::BsrSpmvSlicedPair<B, 2, Matrix, V, V>;
        Kokkos::parallel_for(
            Policy(Exec(), league, host ? 1 : chunks_per_team * C, Pair::lanes),
            Pair{M.row_source(), x, y, alpha, beta, M.num_block_rows(), chunks_per_team});
      } else {
        Kokkos::parallel_for(Policy(Exec(), league, host ? 1 : chunks_per_team * C),
                             detail::BsrSpmvSliced<B, 2, Matrix, V, V>{M.row_source(), x, y, alpha,
                                                                       beta, M.num_block_rows(),
                                                                       chunks_per_team});
      }
      Kokkos::fence();
      EXPECT_TRUE(matches_reference<Scalar>(y, ref)) << "b = " << B;
    }
  }
}

TYPED_TEST(BsrTest, ChunkKernelsMatchTheReferenceOnAnyBackend) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  check_chunk_kernels<2, Scalar, Exec>();
  check_chunk_kernels<3, Scalar, Exec>();
  check_chunk_kernels<5, Scalar, Exec>();
}

TEST(BsrThreadsTest, AutomaticPairsLanesFor3x3BlocksWhileBlockRowsFillUnderASixth) {
  using spmvkit::detail::bsr_pair_threads;
  using spmvkit::detail::bsr_row_threads;
  const std::int64_t gpu = 270336; // an H200's Kokkos concurrency
  EXPECT_TRUE(bsr_pair_threads(false, BsrThreads::automatic, 3, 1, 32, gpu, false));
  EXPECT_TRUE(bsr_pair_threads(false, BsrThreads::automatic, 3, gpu / 6 - 1, 32, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::automatic, 3, gpu / 6, 32, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::automatic, 3, gpu / 6 + 1, 32, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::automatic, 3, gpu / 4 - 1, 32, gpu, false));
  // Other block sizes split rows instead; several vectors keep a thread per block row.
  for (const int b : {2, 5}) {
    EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::automatic, b, 1, 32, gpu, false)) << b;
    EXPECT_FALSE(bsr_row_threads(false, BsrThreads::pair, b, 1, 32, gpu)) << b;
  }
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::automatic, 3, 1, 32, gpu, true));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::pair, 3, 1, 32, gpu, true));
  // Explicit choices hold at any size; plain BSR and hosts have one shape.
  EXPECT_TRUE(bsr_pair_threads(false, BsrThreads::pair, 2, 10 * gpu, 32, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::block_row, 3, 1, 32, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::row, 3, 1, 32, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(false, BsrThreads::pair, 3, 1, 1, gpu, false));
  EXPECT_FALSE(bsr_pair_threads(true, BsrThreads::pair, 3, 1, 8, 2, false));
  EXPECT_FALSE(bsr_pair_threads<Kokkos::DefaultHostExecutionSpace>(BsrThreads::automatic, 3, 1, 8,
                                                                   2, false));
}

TEST(BsrThreadsTest,
     AutomaticSplitsRowsWhileBlockRowsFillUnderAQuarterOfTheDeviceBesides3x3Blocks) {
  using spmvkit::detail::bsr_row_threads;
  const std::int64_t gpu = 270336; // an H200's Kokkos concurrency
  for (const int b : {2, 5}) {
    EXPECT_TRUE(bsr_row_threads(false, BsrThreads::automatic, b, gpu / 4 - 1, 32, gpu)) << b;
    EXPECT_FALSE(bsr_row_threads(false, BsrThreads::automatic, b, gpu / 4, 32, gpu)) << b;
    EXPECT_FALSE(bsr_row_threads(false, BsrThreads::automatic, b, 10 * gpu, 32, gpu)) << b;
  }
  // 3 x 3 blocks keep a thread per block row however few they are.
  EXPECT_FALSE(bsr_row_threads(false, BsrThreads::automatic, 3, 1, 32, gpu));
  EXPECT_FALSE(bsr_row_threads(false, BsrThreads::automatic, 3, gpu / 4 - 1, 32, gpu));
  // Explicit choices hold at any size; plain BSR and hosts have one shape.
  EXPECT_TRUE(bsr_row_threads(false, BsrThreads::row, 3, 10 * gpu, 32, gpu));
  EXPECT_FALSE(bsr_row_threads(false, BsrThreads::block_row, 2, 1, 32, gpu));
  EXPECT_FALSE(bsr_row_threads(false, BsrThreads::row, 3, 1, 1, gpu));
  EXPECT_FALSE(bsr_row_threads(true, BsrThreads::row, 3, 1, 8, 2));
  EXPECT_FALSE(
      bsr_row_threads<Kokkos::DefaultHostExecutionSpace>(BsrThreads::automatic, 2, 1, 8, 2));
}

TYPED_TEST(BsrTest, ProductsMatchTheReferenceForEveryBlockSize) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (int b = 1; b <= 8; ++b) {
    // Block rows of 0..40 blocks: GPU lanes take several steps and some none.
    const HostCrs h = blocked_crs(53, 47, b, 40, 200 + b);
    const auto A = make_device_crs<Scalar, Exec>(h);
    for (auto layout : {BsrBlockLayout::row_major, BsrBlockLayout::column_major}) {
      SCOPED_TRACE("b = " + std::to_string(b) +
                   (layout == BsrBlockLayout::row_major ? " row-major" : " column-major"));
      BsrOptions o;
      o.layout = layout;
      const auto B = make_bsr(Exec(), A, o);
      ASSERT_EQ(B.block_size(), b);
      const V x = random_vector<V>(h.cols, 5 + b, "x");
      expect_product<Scalar, Exec>(h, B, x, 1.0, 0.0);
      expect_product<Scalar, Exec>(h, B, x, -2.5, 0.5);
      const V xt = random_vector<V>(h.rows, 6 + b, "xt");
      expect_product<Scalar, Exec>(h, B, xt, 1.5, -1.0, SpmvMode::transpose);
    }
  }
}

TYPED_TEST(BsrTest, SeveralColumnsAndMixedPrecisionMatchTheReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Other = std::conditional_t<std::is_same_v<Scalar, double>, float, double>;
  // A pair of lanes, asked for, serves one vector; several take a thread per block row.
  for (auto const& [b, threads] :
       {std::pair{3, BsrThreads::automatic}, std::pair{5, BsrThreads::automatic},
        std::pair{8, BsrThreads::automatic}, std::pair{3, BsrThreads::pair},
        std::pair{5, BsrThreads::pair}}) {
    SCOPED_TRACE("b = " + std::to_string(b) + (threads == BsrThreads::pair ? ", pair" : ""));
    const HostCrs h = blocked_crs(31, 31, b, 12, 300 + b);
    BsrOptions o;
    o.threads = threads;
    const auto B = make_bsr(Exec(), make_device_crs<Scalar, Exec>(h), o);
    ASSERT_EQ(B.block_size(), b);
    // Mixed precision: vectors of the other type, sums in the wider one.
    using VO = Kokkos::View<Other*, Exec>;
    const VO xo = random_vector<VO>(h.cols, 17, "xo");
    expect_product<float, Exec>(h, B, xo, 0.5, 2.0); // bound of the narrower type
    // Eleven columns: blocks of 8, 2 and 1 columns, each against the reference.
    const int k = 11;
    Kokkos::View<Scalar**, Kokkos::LayoutLeft, Exec> X("X", h.cols, k), Y("Y", h.rows, k);
    std::vector<Kokkos::View<Scalar*, Exec>> xs;
    for (int c = 0; c < k; ++c) {
      xs.push_back(random_vector<Kokkos::View<Scalar*, Exec>>(h.cols, 40 + c, "xc"));
      Kokkos::deep_copy(Kokkos::subview(X, Kokkos::ALL, c), xs.back());
    }
    spmv(Exec(), Scalar(1.25), B, X, Scalar(0), Y);
    Kokkos::fence();
    for (int c = 0; c < k; ++c) {
      auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xs[c]);
      Kokkos::View<double*, Kokkos::HostSpace> zero("zero", static_cast<std::size_t>(h.rows));
      const auto ref = reference_spmv<Scalar>(h, 1.25, xh, 0.0, zero);
      Kokkos::View<Scalar*, Exec> yc("yc", h.rows);
      Kokkos::deep_copy(yc, Kokkos::subview(Y, Kokkos::ALL, c));
      EXPECT_TRUE(matches_reference<Scalar>(yc, ref)) << "column " << c;
    }
  }
}

TYPED_TEST(BsrTest, PaddingIsRefusedNamedOrStoredExactly) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs full = blocked_crs(20, 20, 4, 5, 9);
  // Row 9's first entry gone: block row 2 has a block with 15 of 16 entries.
  const std::int64_t gone = full.col[full.row_starts[9]];
  const HostCrs h = without(full, [&](auto i, auto c) { return i == 9 && c == gone; });
  const auto A = make_device_crs<Scalar, Exec>(h);
  BsrOptions o;
  o.block_size = 4;
  const std::string why = BsrFormat::obstacle(Exec(), A, o);
  EXPECT_NE(why.find("block (2, " + std::to_string(gone / 4) + ")"), std::string::npos) << why;
  EXPECT_NE(why.find("15 of 16"), std::string::npos) << why;
  EXPECT_THROW(make_bsr(Exec(), A, o), std::invalid_argument);

  o.allow_padding = true;
  EXPECT_EQ(BsrFormat::obstacle(Exec(), A, o), "");
  const auto B = make_bsr(Exec(), A, o);
  EXPECT_EQ(B.nnz(), h.nnz());
  EXPECT_EQ(B.num_blocks() * 16, full.nnz());
  // One mask per stored block slot (the chunks' padding included).
  EXPECT_EQ(static_cast<std::int64_t>(B.masks().extent(0)) * 16, B.stored_entries());
  BsrOptions plain = o;
  plain.chunk_size = 1;
  EXPECT_EQ(make_bsr(Exec(), A, plain).stored_entries(), full.nnz());
  const HostCrs back = to_host(to_crs(Exec(), B));
  const HostCrs expected = to_host(A);
  EXPECT_EQ(back.row_starts, expected.row_starts);
  EXPECT_EQ(back.col, expected.col);
  EXPECT_EQ(back.val, expected.val);
  const V x = random_vector<V>(h.cols, 3, "x");
  expect_product<Scalar, Exec>(h, B, x, 1.0, 0.0);
  // The options it reports build it again.
  const auto again = make_bsr(Exec(), A, BsrFormat::options(B));
  EXPECT_EQ(again.stored_entries(), B.stored_entries());

  // A diagonal matrix in blocks of 8: 1 of 8 entries real, mostly zeros.
  HostCrs d;
  d.rows = d.cols = 64;
  for (std::int64_t i = 0; i < 64; ++i) {
    d.col.push_back(i);
    d.val.push_back(2.0);
    d.row_starts.push_back(i + 1);
  }
  BsrOptions p;
  p.block_size = 8;
  p.allow_padding = true;
  const std::string sparse = BsrFormat::obstacle(Exec(), make_device_crs<Scalar, Exec>(d), p);
  EXPECT_NE(sparse.find("mostly zeros"), std::string::npos) << sparse;
  p.min_fill = 0.1;
  EXPECT_EQ(make_bsr(Exec(), make_device_crs<Scalar, Exec>(d), p).num_blocks() * 64, 8 * 64);
}

TYPED_TEST(BsrTest, RejectsBadOptionsAndUnsortedRows) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(blocked_crs(6, 6, 2, 3, 11));
  for (int bad : {-1, 9}) {
    BsrOptions o;
    o.block_size = bad;
    EXPECT_NE(BsrFormat::obstacle(Exec(), A, o).find("outside 1..8"), std::string::npos);
    EXPECT_THROW(make_bsr(Exec(), A, o), std::invalid_argument);
  }
  BsrOptions five;
  five.block_size = 5; // 12 rows
  EXPECT_NE(BsrFormat::obstacle(Exec(), A, five).find("does not divide the dimensions 12 x 12"),
            std::string::npos);
  BsrOptions fill;
  fill.block_size = 2;
  fill.allow_padding = true;
  fill.min_fill = 0;
  EXPECT_NE(BsrFormat::obstacle(Exec(), A, fill).find("min_fill"), std::string::npos);

  // Row 1 lists column 3 before column 2; row 4 repeats a column.
  HostCrs h;
  h.rows = h.cols = 6;
  h.row_starts = {0, 2, 4, 6, 8, 10, 12};
  h.col = {0, 1, 3, 2, 0, 1, 4, 5, 4, 4, 4, 5};
  h.val = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto U = make_device_crs<Scalar, Exec>(h);
  const std::string why = BsrFormat::obstacle(Exec(), U, BsrOptions{});
  EXPECT_NE(why.find("row 1 "), std::string::npos) << why;
  EXPECT_THROW(make_bsr(Exec(), U), std::invalid_argument);
  h.col = {0, 1, 2, 3, 0, 1, 4, 5, 4, 4, 4, 5};
  const std::string dup =
      BsrFormat::obstacle(Exec(), make_device_crs<Scalar, Exec>(h), BsrOptions{});
  EXPECT_NE(dup.find("row 4 "), std::string::npos) << dup;

  // Constructor checks.
  using Bsr = BsrMatrix<Scalar, Exec>;
  using Offsets = typename Bsr::offsets_type;
  using Ordinals = typename Bsr::ordinals_type;
  using Values = typename Bsr::values_type;
  EXPECT_THROW(Bsr(4, 4, 0, 3, BsrBlockLayout::row_major, 1, Offsets("s", 2), Ordinals(),
                   Ordinals("c", 0), Values("v", 0)),
               std::invalid_argument);
  EXPECT_THROW(Bsr(4, 4, 4, 2, BsrBlockLayout::row_major, 1, Offsets("s", 3), Ordinals(),
                   Ordinals("c", 1), Values("v", 3)),
               std::invalid_argument);
  EXPECT_THROW(Bsr(4, 4, 0, 2, BsrBlockLayout::row_major, 2, Offsets("s", 2), Ordinals(),
                   Ordinals("c", 0), Values("v", 0)),
               std::invalid_argument); // C = 2 needs the block row lengths
  EXPECT_THROW(Bsr(4, 4, 0, 2, BsrBlockLayout::row_major, 0, Offsets("s", 2), Ordinals(),
                   Ordinals("c", 0), Values("v", 0)),
               std::invalid_argument);
  // b = 0 means "detect" only in BsrOptions; a matrix never has it.
  for (int b : {0, 9}) {
    try {
      Bsr(8, 8, 0, b, BsrBlockLayout::row_major, 1, Offsets("s", 2), Ordinals(), Ordinals("c", 0),
          Values("v", 0));
      ADD_FAILURE() << "block size " << b << " accepted";
    } catch (std::invalid_argument const& e) {
      EXPECT_EQ(std::string(e.what()),
                "spmvkit::BsrMatrix: block size " + std::to_string(b) + " is outside 1..8");
    }
  }
}

// Chunks of C block rows: padded to their widest block row, the entries of a
// chunk's blocks interleaved; the same products, diagonal and CRS as plain BSR.
TYPED_TEST(BsrTest, ChunksPadAndInterleaveWithTheSameResults) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (int b : {1, 2, 3, 5, 8}) {
    const HostCrs h = blocked_crs(45, 41, b, 20, 400 + b);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const HostCrs expected = to_host(A);
    for (int C : {1, 2, 3, 8, 32, 64}) {
      for (auto layout : {BsrBlockLayout::row_major, BsrBlockLayout::column_major}) {
        SCOPED_TRACE("b = " + std::to_string(b) + ", C = " + std::to_string(C) +
                     (layout == BsrBlockLayout::row_major ? " row-major" : " column-major"));
        BsrOptions o;
        o.chunk_size = C;
        o.layout = layout;
        const auto B = make_bsr(Exec(), A, o);
        EXPECT_EQ(B.chunk_size(), C);
        EXPECT_EQ(B.num_blocks() * b * b, h.nnz());
        EXPECT_GE(B.stored_blocks(), B.num_blocks());
        if (C == 1) {
          EXPECT_EQ(B.stored_blocks(), B.num_blocks());
        } else {
          EXPECT_THROW(B.block_row_starts(), std::logic_error);
        }
        const HostCrs back = to_host(to_crs(Exec(), B));
        EXPECT_EQ(back.row_starts, expected.row_starts);
        EXPECT_EQ(back.col, expected.col);
        EXPECT_EQ(back.val, expected.val);
        const V x = random_vector<V>(h.cols, 50 + C, "x");
        expect_product<Scalar, Exec>(h, B, x, 1.0, 0.0);
        expect_product<Scalar, Exec>(h, B, x, 0.5, -2.0);
        EXPECT_EQ(BsrFormat::options(B).chunk_size, C);
      }
    }
  }
  // Chunks with partly filled blocks: masks and chunk padding together.
  const HostCrs full = blocked_crs(30, 30, 4, 6, 17);
  const std::int64_t gone = full.col[full.row_starts[13]];
  const HostCrs h = without(full, [&](auto i, auto c) { return i == 13 && c == gone; });
  const auto A = make_device_crs<Scalar, Exec>(h);
  BsrOptions o;
  o.block_size = 4;
  o.allow_padding = true;
  o.chunk_size = 8;
  const auto B = make_bsr(Exec(), A, o);
  EXPECT_EQ(B.nnz(), h.nnz());
  const HostCrs back = to_host(to_crs(Exec(), B));
  EXPECT_EQ(back.col, to_host(A).col);
  expect_product<Scalar, Exec>(h, B, random_vector<V>(h.cols, 2, "x"), 1.0, 0.0);
  V d("d", h.rows);
  BsrFormat::diagonal(Exec(), B, d);
  auto dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  for (std::int64_t i = 0; i < h.rows; ++i) {
    Scalar want = 0;
    for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
      if (h.col[k] == i) want = static_cast<Scalar>(h.val[k]);
    EXPECT_EQ(dh(i), want) << "row " << i;
  }
}

TYPED_TEST(BsrTest, DiagonalAndEmptyMatrices) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = blocked_crs(15, 15, 3, 4, 12);
  const auto B = make_bsr(Exec(), make_device_crs<Scalar, Exec>(h));
  ASSERT_EQ(B.block_size(), 3);
  V d("d", 45);
  BsrFormat::diagonal(Exec(), B, d);
  auto dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  for (std::int64_t i = 0; i < 45; ++i) {
    Scalar expected = 0;
    for (std::int64_t k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
      if (h.col[k] == i) expected = static_cast<Scalar>(h.val[k]);
    EXPECT_EQ(dh(i), expected) << "row " << i;
  }
  // 0 x 0, and 16 x 16 with no entries (detection gives 8, no blocks).
  const auto E = make_bsr(Exec(), make_device_crs<Scalar, Exec>(random_crs(0, 0, 0, 0, 0, 1)));
  EXPECT_EQ(E.num_blocks(), 0);
  HostCrs z;
  z.rows = z.cols = 16;
  z.row_starts.assign(17, 0);
  const auto Z = make_bsr(Exec(), make_device_crs<Scalar, Exec>(z));
  EXPECT_EQ(Z.block_size(), 8);
  EXPECT_EQ(Z.num_blocks(), 0);
  V x = random_vector<V>(16, 1, "x"), y("y", 16);
  Kokkos::deep_copy(y, Scalar(7));
  spmv(Exec(), Scalar(1), Z, x, Scalar(0), y);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(yh(i), Scalar(0));
}

} // namespace
