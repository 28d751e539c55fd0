// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The balanced CRS kernel (formats/crs/detail/merge_path.hpp): pathological
// row-length shapes against the long-double reference and Kokkos Kernels,
// every alpha/beta case (beta = 0 over NaN), tiles that start and end inside
// rows (small tiles forced, in both kernel shapes and both carry fixes), the
// kept tile plan and bit-identical repeats.
#include "formats/crs/irregular_shapes.hpp"
#include "test_utils.hpp"

#include <spmvkit/formats/coo/coo_matrix.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class CrsBalancedTest : public ::testing::Test {};
TYPED_TEST_SUITE(CrsBalancedTest, AllConfigs, ConfigNames);

TYPED_TEST(CrsBalancedTest, PathologicalShapesMatchReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 40;
  for (auto const& [name, h] : irregular_shapes(true)) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const V x = random_vector<V>(h.cols, ++seed, "x");
    const V y0 = random_vector<V>(h.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    for (auto const& ab : alpha_beta_cases()) {
      SCOPED_TRACE(name + " alpha=" + std::to_string(ab.alpha) +
                   " beta=" + std::to_string(ab.beta));
      const auto ref = reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h);
      V y("y", static_cast<std::size_t>(h.rows));
      Kokkos::deep_copy(y, y0);
      KokkosSparse::spmv("N", Scalar(ab.alpha), to_kokkos_kernels(A), x, Scalar(ab.beta), y);
      Kokkos::fence();
      ASSERT_TRUE(matches_reference<Scalar>(y, ref)) << "Kokkos Kernels spmv";
      for (CrsKernel kernel : {CrsKernel::balanced, CrsKernel::automatic}) {
        EXPECT_TRUE(check_product<Scalar>(y0, ab.beta, ref, [&](V const& out) {
          spmv(Exec(), Scalar(ab.alpha), A, x, Scalar(ab.beta), out, kernel);
        })) << CrsFormat::name(kernel);
      }
    }
  }
}

// Tiles of a few path items put tile boundaries inside nearly every row, and
// runs of tiles inside one long row: both kernel shapes (in place, one thread
// per team; staged in scratch with a segmented scan, teams of 1 and 2
// threads) and both carry fixes (second launch; last team in the kernel),
// over CRS's row ends and COO's row keys.
TYPED_TEST(CrsBalancedTest, TilesInsideRowsEveryShapeAndCarryFix) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  using Device = typename CrsMatrix<Scalar, Exec>::device_type;
  // The shapes whose paths are short enough for tiles of a few items (the
  // long ones are tiled at the default length in the test above).
  std::vector<std::pair<std::string, HostCrs>> shapes;
  for (auto& shape : irregular_shapes(false))
    if (shape.second.rows + shape.second.nnz() <= 20000) shapes.push_back(std::move(shape));
  shapes.push_back({"random_with_long_row", random_crs(700, 900, 12, 0.2, 850, 77)});
  shapes.push_back({"tiny", from_row_lengths({0, 2, 0, 0, 3, 1, 0}, 4, 78)});
  // Host teams hold at most as many threads as the backend has (1 on Serial).
  const int max_team = Exec().concurrency();
  unsigned seed = 90;
  int shapes_run = 0;
  for (auto const& shape : shapes) {
    std::string const& name = shape.first;
    HostCrs const& h = shape.second; // captured below: a binding may be only from C++20
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto coo = CooFormat::from_crs(Exec(), A, CooOptions{});
    const V x = random_vector<V>(h.cols, ++seed, "x");
    const V y0 = random_vector<V>(h.rows, ++seed, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    const detail::kernel_x_type<Scalar, Device, Kokkos::LayoutRight> xk = x;
    for (auto const& ab : {AlphaBeta{1.5, 0.0}, AlphaBeta{-0.5, 2.0}}) {
      const auto ref = reference_spmv<Scalar>(h, ab.alpha, xh, ab.beta, y0h);
      for (int items : {1, 3, 8, 64}) {
        for (int team : {1, 2}) {
          if (team > max_team) continue;
          // Host teams of several threads meet at a barrier per scan step; on a
          // loaded 2-core machine each costs a time slice, so the multi-thread
          // teams run the plans of at most a few hundred tiles (every shape
          // still gets some: items = 64).
          if (team > 1 && (h.rows + h.nnz()) / (items * team) > 400) continue;
          for (bool staged : {false, true}) {
            if (!staged && team > 1) continue; // the in-place shape is one thread per team
            for (bool in_kernel : {false, true}) {
              // Host tiles run under both schedules (static: merge_path_parameters' small paths).
              for (bool static_schedule : {false, true}) {
                if (static_schedule && (staged || !detail::is_host_space_v<Exec>)) continue;
                // The Serial configurations run every combination of one-thread
                // teams; a multi-threaded backend, where each launch costs more,
                // runs those in which threads meet: teams of two, and the last
                // tile's fix-up among concurrent tiles.
                if (max_team > 1 && team == 1 && (staged || !in_kernel)) continue;
                SCOPED_TRACE(name + " items=" + std::to_string(items) +
                             " team=" + std::to_string(team) + " staged=" + std::to_string(staged) +
                             " carries_in_kernel=" + std::to_string(in_kernel) + " static=" +
                             std::to_string(static_schedule) + " beta=" + std::to_string(ab.beta));
                detail::LaunchParameters p;
                p.static_schedule = static_schedule;
                p.team_size = team;
                p.items_per_thread = items;
                p.work_per_team = items * team;
                p.staged = staged;
                p.carries_in_kernel = in_kernel;
                p.carries_in_kernel_max_tiles = std::numeric_limits<std::int64_t>::max();
                const auto plan = detail::merge_path_plan<Scalar, int>(Exec(), A.row_starts(),
                                                                       h.rows, h.nnz(), p, "test");
                EXPECT_TRUE(check_product<Scalar>(y0, ab.beta, ref, [&](V const& out) {
                  const detail::kernel_y_type<Scalar, Device, Kokkos::LayoutRight> yk = out;
                  detail::spmv_merge_path(
                      Exec(), p, plan, detail::CsrRowEnds<int, int, Device>{A.row_starts()},
                      A.column_indices(), A.values(), Kokkos::View<const int*, Device>(), h.rows,
                      xk, yk, Scalar(ab.alpha), Scalar(ab.beta), "SpMVKit::test::merge_path");
                }));
                // COO's row keys over the same plan: the staged shape stages its row ends from
                // them inside the first batch of loads (several batches at 64 items).
                EXPECT_TRUE(check_product<Scalar>(y0, ab.beta, ref, [&](V const& out) {
                  const detail::kernel_y_type<Scalar, Device, Kokkos::LayoutRight> yk = out;
                  detail::spmv_merge_path(
                      Exec(), p, plan, detail::CooRowKeys<int, int, Device>{coo.row_indices()},
                      coo.column_indices(), coo.values(), Kokkos::View<const int*, Device>(),
                      h.rows, xk, yk, Scalar(ab.alpha), Scalar(ab.beta),
                      "SpMVKit::test::merge_path_coo");
                })) << "COO";
              }
            }
          }
        }
      }
    }
    ++shapes_run;
  }
  EXPECT_EQ(shapes_run, static_cast<int>(shapes.size()));
}

/// Columns [first, first + count) of y against beta y0 + alpha A x, the
/// others still equal to y0's.
template <class Scalar, class Y2, class X2>
::testing::AssertionResult block_matches(HostCrs const& h, double alpha, X2 const& x, double beta,
                                         Y2 const& y0, Y2 const& y, int first, int count) {
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (int c = 0; c < static_cast<int>(y.extent(1)); ++c) {
    if (c < first || c >= first + count) {
      for (std::int64_t i = 0; i < h.rows; ++i) {
        if (!(yh(i, c) == y0h(i, c))) {
          return ::testing::AssertionFailure() << "column " << c << " (outside the block) changed";
        }
      }
      continue;
    }
    const auto ref = reference_spmv<Scalar>(h, alpha, Kokkos::subview(xh, Kokkos::ALL, c), beta,
                                            Kokkos::subview(y0h, Kokkos::ALL, c));
    auto result = matches_reference<Scalar>(Kokkos::subview(yh, Kokkos::ALL, c), ref);
    if (!result) return result << " (column " << c << ")";
  }
  return ::testing::AssertionSuccess();
}

// Rank-2 x and y: tiles walk blocks of up to 8 columns (16 for LayoutRight on hosts; K sums and
// K carries per tile). The public call at the default tiles (k = 3, 8, 17: blocks of 2 + 1, 8,
// 8 + 8 + 1 or 16 + 1), then a block of 4 columns (LayoutLeft: also halved to single columns
// by a byte budget) over tiles of a few items, where runs of
// tiles end inside one row and every carry lane is added: in place (hosts) and staged with a
// scan of 4 lanes (teams of 1, 2 and 32 threads; on hosts at most the backend's threads), carries
// fixed in the kernel and by the second launch; and the same columns as two blocks of 2, with
// CRS's row ends and COO's row keys (the host shape walks both blocks row by row).
TYPED_TEST(CrsBalancedTest, MultiVectorBlocksMatchTheReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Device = typename CrsMatrix<Scalar, Exec>::device_type;
  std::vector<std::pair<std::string, HostCrs>> shapes = irregular_shapes(false);
  shapes.push_back({"random_with_long_row", random_crs(700, 900, 12, 0.2, 850, 77)});
  shapes.push_back({"tiny", from_row_lengths({0, 2, 0, 0, 3, 1, 0}, 4, 78)});
  unsigned seed = 300;
  for (auto const& shape : shapes) {
    HostCrs const& h = shape.second; // a lambda may capture a binding only from C++20
    SCOPED_TRACE(shape.first);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const auto coo = CooFormat::from_crs(Exec(), A, CooOptions{});
    auto run = [&](auto layout) {
      using L2 = Kokkos::View<Scalar**, decltype(layout), Exec>;
      for (int k : {3, 8, 17}) {
        const L2 x = random_columns<L2>(h.cols, k, ++seed);
        const L2 y0 = random_columns<L2>(h.rows, k, ++seed);
        for (auto const& ab : {AlphaBeta{1.5, 0.0}, AlphaBeta{-0.5, 2.0}}) {
          L2 y("y", static_cast<std::size_t>(h.rows), static_cast<std::size_t>(k));
          Kokkos::deep_copy(y, y0);
          spmv(Exec(), Scalar(ab.alpha), A, x, Scalar(ab.beta), y, CrsKernel::balanced);
          Kokkos::fence();
          EXPECT_TRUE(block_matches<Scalar>(h, ab.alpha, x, ab.beta, y0, y, 0, k))
              << "k = " << k << " beta = " << ab.beta;
          // The host block form adds in the order of one column's product: the same bits. (A
          // GPU's block form may contract a product and a sum that its rank-1 form rounds apart.)
          if (!detail::is_host_space_v<Exec>) continue;
          L2 by_column("by_column", static_cast<std::size_t>(h.rows), static_cast<std::size_t>(k));
          Kokkos::deep_copy(by_column, y0);
          for (int c = 0; c < k; ++c) {
            spmv(Exec(), Scalar(ab.alpha), A, Kokkos::subview(x, Kokkos::ALL, c), Scalar(ab.beta),
                 Kokkos::subview(by_column, Kokkos::ALL, c), CrsKernel::balanced);
          }
          auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
          auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_column);
          for (std::int64_t i = 0; i < h.rows; ++i) {
            for (int c = 0; c < k; ++c) {
              ASSERT_EQ(yh(i, c), ch(i, c)) << "row " << i << " column " << c << " k = " << k;
            }
          }
        }
      }
      using X2 = Kokkos::View<const Scalar**, decltype(layout), Device,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
      using Y2 =
          Kokkos::View<Scalar**, decltype(layout), Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      const L2 x = random_columns<L2>(h.cols, 6, ++seed);
      const L2 y0 = random_columns<L2>(h.rows, 6, ++seed);
      constexpr bool host = detail::is_host_space_v<Exec>;
      for (int items : {1, 3, 64}) {
        if (items < 64 && h.rows + h.nnz() > 20000) continue; // as in the test above
        for (int team : {1, 2, 32}) {
          if (host && team > Exec().concurrency()) continue;
          if (host && team > 1 && (h.rows + h.nnz()) / (items * team) > 400) continue;
          for (bool staged : {false, true}) {
            if (!staged && (team > 1 || !host)) continue;
            for (bool in_kernel : {false, true}) {
              for (bool static_schedule : {false, true}) {
                if (static_schedule && staged) continue;
                SCOPED_TRACE("items=" + std::to_string(items) + " team=" + std::to_string(team) +
                             " staged=" + std::to_string(staged) +
                             " carries_in_kernel=" + std::to_string(in_kernel) +
                             " static=" + std::to_string(static_schedule));
                detail::LaunchParameters p;
                p.static_schedule = static_schedule;
                p.team_size = team;
                p.items_per_thread = items;
                p.work_per_team = items * team;
                p.staged = staged;
                p.carries_in_kernel = in_kernel;
                p.carries_in_kernel_max_tiles = std::numeric_limits<std::int64_t>::max();
                // Tiles of 3 items: a LayoutLeft block halved down to single columns (x's
                // columns over the byte budget); LayoutRight keeps its block.
                if (items == 3) p.block_x_bytes = 1;
                const auto plan = detail::merge_path_plan<Scalar, int>(Exec(), A.row_starts(),
                                                                       h.rows, h.nnz(), p, "test");
                L2 y("y", static_cast<std::size_t>(h.rows), 6);
                Kokkos::deep_copy(y, y0);
                detail::spmv_merge_path(
                    Exec(), p, plan, detail::CsrRowEnds<int, int, Device>{A.row_starts()},
                    A.column_indices(), A.values(), Kokkos::View<const int*, Device>(), h.rows,
                    detail::MultiX<X2, 4>{x, 1}, detail::MultiY<Y2, 4>{y, 1}, Scalar(-0.5),
                    Scalar(2.0), "SpMVKit::test::merge_path_block");
                Kokkos::fence();
                EXPECT_TRUE(block_matches<Scalar>(h, -0.5, x, 2.0, y0, y, 1, 4));
                // The same columns as two blocks of 2 (walked together by the host shape, a carry
                // per column; the staged shape takes them one at a time).
                Kokkos::deep_copy(y, y0);
                detail::spmv_merge_path(
                    Exec(), p, plan, detail::CsrRowEnds<int, int, Device>{A.row_starts()},
                    A.column_indices(), A.values(), Kokkos::View<const int*, Device>(), h.rows,
                    detail::MultiX<X2, 2>{x, 1, 2}, detail::MultiY<Y2, 2>{y, 1, 2}, Scalar(-0.5),
                    Scalar(2.0), "SpMVKit::test::merge_path_blocks");
                Kokkos::fence();
                EXPECT_TRUE(block_matches<Scalar>(h, -0.5, x, 2.0, y0, y, 1, 4)) << "two blocks";
                // COO's row keys over the same plan (the same path coordinates).
                Kokkos::deep_copy(y, y0);
                detail::spmv_merge_path(
                    Exec(), p, plan, detail::CooRowKeys<int, int, Device>{coo.row_indices()},
                    coo.column_indices(), coo.values(), Kokkos::View<const int*, Device>(), h.rows,
                    detail::MultiX<X2, 2>{x, 1, 2}, detail::MultiY<Y2, 2>{y, 1, 2}, Scalar(-0.5),
                    Scalar(2.0), "SpMVKit::test::merge_path_coo_blocks");
                Kokkos::fence();
                EXPECT_TRUE(block_matches<Scalar>(h, -0.5, x, 2.0, y0, y, 1, 4))
                    << "COO, two blocks";
              }
            }
          }
        }
      }
    };
    run(Kokkos::LayoutLeft());
    run(Kokkos::LayoutRight());
  }
}

// No atomics on values: the same product twice is the same bits, also where
// long rows cross many tiles (the carries are summed in tile order).
TYPED_TEST(CrsBalancedTest, RepeatedProductsAreBitIdentical) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (auto const& [name, h] : irregular_shapes(false)) {
    SCOPED_TRACE(name);
    const auto A = make_device_crs<Scalar, Exec>(h);
    const V x = random_vector<V>(h.cols, 3, "x");
    V first("first", h.rows), again("again", h.rows);
    spmv(Exec(), Scalar(1), A, x, Scalar(0), first, CrsKernel::balanced);
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first);
    for (int repeat = 0; repeat < 3; ++repeat) {
      spmv(Exec(), Scalar(1), A, x, Scalar(0), again, CrsKernel::balanced);
      auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
      for (std::int64_t i = 0; i < h.rows; ++i) ASSERT_EQ(f(i), g(i)) << "row " << i;
    }
  }
}

// The row kernels' host blocks of a static launch take equal shares of weighted rows plus
// entries (balanced_first_row, checked against its definition: the first row whose coordinate
// reaches the block's share); the kernel built for a static host launch of 16 blocks uses them;
// and the products of both row kernels on the irregular shapes match the reference.
TYPED_TEST(CrsBalancedTest, RowKernelsSplitHostBlocksByRowsPlusEntries) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  unsigned seed = 70;
  auto shapes = irregular_shapes(false);
  shapes.push_back({"empty", HostCrs{}});
  for (auto const& [name, h] : shapes) {
    SCOPED_TRACE(name);
    Kokkos::View<std::int64_t*, Kokkos::HostSpace> starts("starts", h.row_starts.size());
    for (std::size_t i = 0; i < h.row_starts.size(); ++i)
      starts(i) = h.row_starts[i] + 5; // a nonzero base is measured from starts(0)
    // The coordinate of row r: the weighted rows before it plus their entries (h is a
    // structured binding, which C++17 lambdas cannot capture).
    auto const& offsets = h.row_starts;
    auto coordinate = [&offsets](std::int64_t r) {
      return detail::host_row_weight * r + offsets[static_cast<std::size_t>(r)];
    };
    const std::int64_t path = coordinate(h.rows);
    for (std::int64_t blocks : {1, 2, 3, 7, 16, 17, 64}) {
      std::int64_t previous = 0;
      for (std::int64_t b = 0; b <= blocks; ++b) {
        const std::int64_t row = detail::balanced_first_row(starts, h.rows, b, blocks);
        const std::int64_t share = b * path / blocks;
        ASSERT_LE(previous, row) << "block " << b << " of " << blocks;
        ASSERT_LE(row, h.rows) << "block " << b << " of " << blocks;
        if (b == 0 || b == blocks) {
          ASSERT_EQ(row, b == 0 ? 0 : h.rows) << "block " << b << " of " << blocks;
        } else {
          ASSERT_GE(coordinate(row), share) << "block " << b << " of " << blocks;
          if (row > 0) {
            ASSERT_LT(coordinate(row - 1), share) << "block " << b << " of " << blocks;
          }
        }
        previous = row;
      }
    }
    if (h.rows == 0) continue;
    const auto A = make_device_crs<Scalar, Exec>(h);
    const V x = random_vector<V>(h.cols, ++seed, "x");
    const V y0 = random_vector<V>(h.rows, ++seed, "y0");
    // A static host launch of 16 threads: its kernel walks the balanced blocks; elsewhere
    // (GPUs, dynamic launches) the blocks of work_per_team rows.
    detail::LaunchParameters p;
    detail::split_per_thread(p, h.rows, 16);
    const auto kernel =
        detail::crs_row_kernel<Exec, false>(p, Scalar(1), A, x, Scalar(0), V("y", h.rows));
    auto device_starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
    for (std::int64_t b = 0; b < p.league_size; ++b) {
      const auto rows = kernel.block_rows(b);
      if constexpr (detail::is_host_space_v<Exec>) {
        ASSERT_EQ(rows.first, detail::balanced_first_row(device_starts, h.rows, b, p.league_size));
        ASSERT_EQ(rows.second,
                  detail::balanced_first_row(device_starts, h.rows, b + 1, p.league_size));
      } else {
        ASSERT_EQ(rows.first, std::min<std::int64_t>(h.rows, b * p.work_per_team));
      }
    }
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    const auto ref = reference_spmv<Scalar>(h, 1.5, xh, 0.5, y0h);
    for (CrsKernel k : {CrsKernel::row_per_thread, CrsKernel::vector}) {
      EXPECT_TRUE(check_product<Scalar>(y0, 0.5, ref, [&](V const& out) {
        spmv(Exec(), Scalar(1.5), A, x, Scalar(0.5), out, k);
      })) << CrsFormat::name(k);
    }
  }
}

// On the host a tile boundary never splits a row shorter than a quarter
// tile, so where all rows are that short the balanced kernel and COO add in
// exactly the order of the row kernel: the same bits (and the same course of
// a float CG). A row longer than that is split, and only agrees to rounding.
TYPED_TEST(CrsBalancedTest, HostBalancedSumsShortRowsLikeTheRowKernel) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  if constexpr (detail::is_host_space_v<Exec>) {
    for (std::int64_t rows : {300, 5000, 40000}) {
      const HostCrs h = random_crs(rows, rows, 60, 0.1, 0, 31);
      const auto A = make_device_crs<Scalar, Exec>(h);
      const auto p = detail::merge_path_parameters<Exec>(A.num_rows(), A.nnz());
      ASSERT_LE(60, p.whole_rows_up_to);
      const V x = random_vector<V>(rows, 32, "x");
      V by_row("by_row", rows), balanced("balanced", rows), coo("coo", rows);
      spmv(Exec(), Scalar(1.5), A, x, Scalar(0), by_row, CrsKernel::row_per_thread);
      spmv(Exec(), Scalar(1.5), A, x, Scalar(0), balanced, CrsKernel::balanced);
      spmv(Exec(), Scalar(1.5), CooFormat::from_crs(Exec(), A, {}), x, Scalar(0), coo);
      auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_row);
      auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), balanced);
      auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), coo);
      for (std::int64_t i = 0; i < rows; ++i) {
        ASSERT_EQ(r(i), b(i)) << "row " << i << " of " << rows;
        ASSERT_EQ(r(i), c(i)) << "row " << i << " of " << rows;
      }
    }
  }
}

// The row kernels' three host prefetch modes (none, a line past each row's end, every line
// through a cursor) change no bit of the product and match the reference, for both row kernels,
// on the irregular shapes and on short rows whose ends fall at every offset of a line. (GPU
// launches take the team shape, which never prefetches.)
TYPED_TEST(CrsBalancedTest, RowKernelsGiveTheSameBitsInEveryPrefetchMode) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  using detail::HostRowPrefetch;
  if constexpr (detail::is_host_space_v<Exec>) {
    unsigned seed = 90;
    auto shapes = irregular_shapes(false);
    shapes.push_back({"short rows", random_crs(20000, 20000, 9, 0.05, 0, 91)});
    for (auto const& [name, h] : shapes) {
      SCOPED_TRACE(name);
      const auto A = make_device_crs<Scalar, Exec>(h);
      const V x = random_vector<V>(h.cols, ++seed, "x");
      const V y0 = random_vector<V>(h.rows, ++seed, "y0");
      auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
      const auto ref = reference_spmv<Scalar>(h, 1.5, xh, 0.5, y0h);
      for (const bool dynamic : {false, true}) {
        detail::LaunchParameters p;
        if (dynamic) {
          p.work_per_team = 64;
          p.league_size = (h.rows + 63) / 64;
        } else {
          detail::split_per_thread(p, h.rows, 16);
        }
        auto run = [&](auto vector, HostRowPrefetch mode) {
          V y("y", h.rows);
          Kokkos::deep_copy(y, y0);
          auto kernel = detail::crs_row_kernel<Exec, decltype(vector)::value>(p, Scalar(1.5), A, x,
                                                                              Scalar(0.5), y);
          kernel.prefetch = mode;
          detail::parallel_for_teams("SpMVKit::test::crs_rows", Exec(), p, kernel);
          return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
        };
        auto check = [&](auto vector) {
          const auto none = run(vector, HostRowPrefetch::none);
          EXPECT_TRUE(matches_reference(none, ref)) << "dynamic " << dynamic;
          for (HostRowPrefetch mode : {HostRowPrefetch::row_end, HostRowPrefetch::lines}) {
            const auto y = run(vector, mode);
            for (std::int64_t i = 0; i < h.rows; ++i) {
              ASSERT_EQ(none(i), y(i))
                  << "row " << i << ", mode " << static_cast<int>(mode) << ", dynamic " << dynamic;
            }
          }
        };
        check(std::false_type{});
        check(std::true_type{});
      }
    }
  }
}

// On a host the row kernel sums a row in order and the vector kernel, in double, in four
// interleaved partial sums combined as (s0 + s1) + (s2 + s3), then the last entries
// (four_lane_row_sum); in float, and for a block of columns, both sum in order. Rows whose sums
// round differently in the two orders (big + 1 rounds to big; x is all ones, so every product is
// exact) tell them apart.
TYPED_TEST(CrsBalancedTest, HostVectorKernelSumsRowsInFourPartialSums) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  if constexpr (detail::is_host_space_v<Exec>) {
    const double big = std::ldexp(1.0, std::numeric_limits<Scalar>::digits + 1);
    HostCrs h;
    h.rows = 3;
    h.cols = 5;
    // In order: 1, 2, 0 (the three-entry row is all tail); four partial sums: 0, 1, 0.
    const std::vector<std::vector<double>> rows = {
        {big, 1, -big, 1}, {big, 1, -big, 1, 1}, {big, 1, -big}};
    for (auto const& r : rows) {
      for (std::size_t j = 0; j < r.size(); ++j) {
        h.col.push_back(static_cast<std::int64_t>(j));
        h.val.push_back(r[j]);
      }
      h.row_starts.push_back(static_cast<std::int64_t>(h.val.size()));
    }
    const auto A = make_device_crs<Scalar, Exec>(h);
    V x("x", h.cols), by_row("by_row", h.rows), by_lanes("by_lanes", h.rows);
    Kokkos::deep_copy(x, Scalar(1));
    spmv(Exec(), Scalar(1), A, x, Scalar(0), by_row, CrsKernel::row_per_thread);
    spmv(Exec(), Scalar(1), A, x, Scalar(0), by_lanes, CrsKernel::vector);
    auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_row);
    auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_lanes);
    const Scalar in_order[] = {1, 2, 0}, in_lanes[] = {0, 1, 0};
    const bool four_lanes = std::is_same_v<Scalar, double>;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(r(i), in_order[i]) << "row kernel, row " << i;
      EXPECT_EQ(l(i), four_lanes ? in_lanes[i] : in_order[i]) << "vector kernel, row " << i;
    }
    using M = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Exec>;
    M X("X", h.cols, 2), Y("Y", h.rows, 2);
    Kokkos::deep_copy(X, Scalar(1));
    spmv(Exec(), Scalar(1), A, X, Scalar(0), Y, CrsKernel::vector);
    auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
    for (int i = 0; i < 3; ++i)
      for (int c = 0; c < 2; ++c)
        EXPECT_EQ(yh(i, c), in_order[i]) << "row " << i << " column " << c;
    // The same rows and 20 empty ones: the longest row is 9.6 times the mean, and there the
    // vector kernel runs the row loop (detail::host_rows_alike).
    HostCrs wide = h;
    wide.rows += 20;
    for (int i = 0; i < 20; ++i) wide.row_starts.push_back(wide.row_starts.back());
    const auto W = make_device_crs<Scalar, Exec>(wide);
    ASSERT_FALSE(detail::host_rows_alike(W.statistics(Exec())));
    V yw("yw", wide.rows);
    Kokkos::deep_copy(yw, Scalar(7));
    spmv(Exec(), Scalar(1), W, x, Scalar(0), yw, CrsKernel::vector);
    auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yw);
    for (std::int64_t i = 0; i < wide.rows; ++i) {
      EXPECT_EQ(w(i), i < 3 ? in_order[i] : Scalar(0))
          << "vector kernel, irregular rows, row " << i;
    }
  }
}

// The tile plan is computed by the first balanced product, kept, shared by
// copies of the matrix, and dropped by forget_analysis().
TYPED_TEST(CrsBalancedTest, PlanIsKeptSharedAndForgotten) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = random_crs(500, 500, 20, 0.1, 400, 5);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const auto copy = A;
  EXPECT_FALSE(A.analysis().has_plan());
  const V x = random_vector<V>(h.cols, 6, "x");
  V y("y", h.rows);
  spmv(Exec(), Scalar(1), A, x, Scalar(0), y, CrsKernel::balanced);
  EXPECT_TRUE(A.analysis().has_plan());
  EXPECT_TRUE(copy.analysis().has_plan());
  EXPECT_EQ(&A.analysis(), &copy.analysis());
  const auto plan = A.analysis().plan(Exec(), A.row_starts(), A.num_rows(), A.nnz());
  EXPECT_EQ(plan.tile_length,
            detail::merge_path_parameters<Exec>(A.num_rows(), A.nnz()).work_per_team);
  EXPECT_EQ(plan.num_tiles, (h.rows + h.nnz() + plan.tile_length - 1) / plan.tile_length);
  copy.forget_analysis();
  EXPECT_FALSE(A.analysis().has_plan());
  EXPECT_FALSE(A.analysis().has_statistics());
  // A matrix built independently has its own analysis.
  const auto B = make_device_crs<Scalar, Exec>(h);
  EXPECT_NE(&A.analysis(), &B.analysis());
}

// The merge-path coordinates of the plan: tile t starts at diagonal
// t * tile_length, with rows + nonzeros consumed = the diagonal, and the
// row ends before the nonzeros of the next row.
TYPED_TEST(CrsBalancedTest, PlanCoordinatesLieOnTheMergePath) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const HostCrs h = from_row_lengths({0, 0, 5, 1, 0, 9, 0, 0, 4, 0}, 12, 9);
  const auto A = make_device_crs<Scalar, Exec>(h);
  detail::LaunchParameters p;
  p.items_per_thread = p.work_per_team = 3;
  const auto plan = detail::merge_path_plan<Scalar, int>(Exec(), A.row_starts(), h.rows, h.nnz(), p,
                                                         "coordinates");
  auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.tile_rows);
  auto nnz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.tile_nnz);
  ASSERT_EQ(plan.num_tiles, (10 + 19 + 2) / 3);
  for (std::int64_t t = 0; t <= plan.num_tiles; ++t) {
    const std::int64_t d = std::min<std::int64_t>(3 * t, 29);
    EXPECT_EQ(rows(t) + nnz(t), d) << "tile " << t;
    // Rows ended so far have all their nonzeros consumed; the next row has
    // not ended, so the nonzeros consumed stop before its end.
    if (rows(t) > 0) {
      EXPECT_LE(h.row_starts[rows(t)], nnz(t)) << "tile " << t;
    }
    if (rows(t) < h.rows) {
      EXPECT_LE(nnz(t), h.row_starts[rows(t) + 1]) << "tile " << t;
    }
  }
  EXPECT_TRUE(plan.has_crossings); // tiles of 3 items cut the rows of 5 and 9
}

} // namespace
