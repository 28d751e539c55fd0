// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CSR-k (csrk_matrix.hpp): the stored rows and groups, exact round trips in
// the user's order, explicit group sizes and the tuning model. Its SpMV,
// diagonal, byte model and CG are tested with every other format
// (test_spmv.cpp, test_format_concept.cpp, test_cg.cpp), for CSR-2 and CSR-3.
#include "test_utils.hpp"

#include <spmvkit/formats/csrk/csrk_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class C>
class CsrkTest : public ::testing::Test {};
TYPED_TEST_SUITE(CsrkTest, AllConfigs, ConfigNames);

template <class View>
std::vector<std::int64_t> host_indices(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<std::int64_t>(h.data(), h.data() + h.extent(0));
}

// Stored row i is the user's row row_permutation(i), entries and their order
// unchanged (the user's columns); the groups tile the stored rows.
TYPED_TEST(CsrkTest, StoresTheUsersRowsInBandKOrder) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  HostCrs h = random_crs(900, 900, 15, 0.1, 0, 3);
  // Unsorted rows and explicit zeros must come back as they were.
  for (std::int64_t i = 0; i < h.rows; i += 3)
    std::reverse(h.col.begin() + h.row_starts[i], h.col.begin() + h.row_starts[i + 1]);
  for (std::int64_t k = 0; k < h.nnz(); k += 4) h.val[k] = 0.0;
  const auto A = make_device_crs<Scalar, Exec>(h);
  const HostCrs expected = to_host(A);
  for (int k : {2, 3}) {
    for (bool reorder : {true, false}) {
      SCOPED_TRACE("k = " + std::to_string(k) + (reorder ? " band-k" : " natural"));
      CsrkOptions o;
      o.k = k;
      o.rows_per_super_row = 10;
      o.super_rows_per_super_super_row = 3;
      o.band_k = reorder;
      const auto M = make_csrk(Exec(), A, o);
      EXPECT_EQ(M.k(), k);
      EXPECT_EQ(M.band_k(), reorder);
      const auto perm = host_indices(M.row_permutation());
      const HostCrs stored = to_host(M.stored_rows());
      std::vector<bool> seen(900, false);
      for (std::int64_t i = 0; i < 900; ++i) {
        const std::int64_t r = perm[i];
        ASSERT_FALSE(seen[r]);
        seen[r] = true;
        if (!reorder) {
          ASSERT_EQ(r, i);
        }
        ASSERT_EQ(stored.row_starts[i + 1] - stored.row_starts[i],
                  expected.row_starts[r + 1] - expected.row_starts[r]);
        for (std::int64_t j = 0; j < expected.row_starts[r + 1] - expected.row_starts[r]; ++j) {
          ASSERT_EQ(stored.col[stored.row_starts[i] + j], expected.col[expected.row_starts[r] + j]);
          ASSERT_EQ(stored.val[stored.row_starts[i] + j], expected.val[expected.row_starts[r] + j]);
        }
      }
      const auto sr = host_indices(M.super_rows());
      EXPECT_EQ(sr.front(), 0);
      EXPECT_EQ(sr.back(), 900);
      for (std::size_t s = 0; s + 1 < sr.size(); ++s) ASSERT_LT(sr[s], sr[s + 1]);
      if (!reorder) {
        EXPECT_EQ(M.num_super_rows(), 90);
      }
      if (k == 3) {
        const auto ssr = host_indices(M.super_super_rows());
        EXPECT_EQ(ssr.back(), M.num_super_rows());
        if (!reorder) {
          EXPECT_EQ(M.num_super_super_rows(), 30);
        }
      } else {
        EXPECT_EQ(M.num_super_super_rows(), 0);
      }
      const HostCrs back = to_host(CsrkFormat::to_crs(Exec(), M));
      EXPECT_EQ(back.row_starts, expected.row_starts);
      EXPECT_EQ(back.col, expected.col);
      EXPECT_EQ(back.val, expected.val);
      EXPECT_EQ(CsrkFormat::name(CsrkFormat::options(M)), "csrk" + std::to_string(k) + "_sr10" +
                                                              (k == 3 ? "_ssr3" : "") +
                                                              (reorder ? "" : "_natural"));
    }
  }
}

// Group sizes at their extremes (one row per super-row, one group for the
// whole matrix) and rectangular matrices (kept in the user's order) all
// multiply correctly.
TYPED_TEST(CsrkTest, ExtremeGroupSizesAndRectangularMatrices) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  for (HostCrs const& h : {random_crs(777, 777, 20, 0.15, 500, 7),
                           random_crs(300, 41, 9, 0.1, 0, 8), random_crs(41, 300, 60, 0.1, 0, 9)}) {
    const auto A = make_device_crs<Scalar, Exec>(h);
    const V x = random_vector<V>(h.cols, 10, "x");
    const V y0 = random_vector<V>(h.rows, 11, "y0");
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
    const auto ref = reference_spmv<Scalar>(h, 1.5, xh, -0.5, y0h);
    for (int k : {2, 3})
      for (std::int64_t srs : {1, 7, 100000})
        for (std::int64_t ssrs : {1, 5, 100000}) {
          SCOPED_TRACE("k = " + std::to_string(k) + " SRS = " + std::to_string(srs) +
                       " SSRS = " + std::to_string(ssrs));
          CsrkOptions o;
          o.k = k;
          o.rows_per_super_row = srs;
          o.super_rows_per_super_super_row = ssrs;
          const auto M = make_csrk(Exec(), A, o);
          EXPECT_EQ(M.band_k(), h.rows == h.cols);
          V y("y", h.rows);
          Kokkos::deep_copy(y, y0);
          spmv(Exec(), Scalar(1.5), M, x, Scalar(-0.5), y);
          EXPECT_TRUE(matches_reference<Scalar>(y, ref));
        }
  }
}

TYPED_TEST(CsrkTest, RejectsBadOptions) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(30, 30, 4, 0.0, 0, 1));
  for (auto [k, srs, ssrs] : {std::make_tuple(1, 0, 0), std::make_tuple(4, 0, 0),
                              std::make_tuple(2, -1, 0), std::make_tuple(3, 4, -2)}) {
    CsrkOptions o;
    o.k = k;
    o.rows_per_super_row = srs;
    o.super_rows_per_super_super_row = ssrs;
    EXPECT_FALSE(CsrkFormat::obstacle(Exec(), A, o).empty());
    EXPECT_THROW(make_csrk(Exec(), A, o), std::invalid_argument);
  }
  // GPU block shapes a team cannot hold are refused on every backend, at
  // conversion and at apply.
  for (auto [lanes, rows, srs] : {std::make_tuple(3, 0, 0), std::make_tuple(64, 1, 1),
                                  std::make_tuple(32, 8, 8), std::make_tuple(0, -1, 0)}) {
    CsrkOptions o;
    o.gpu_lanes = lanes;
    o.gpu_row_slots = rows;
    o.gpu_super_row_slots = srs;
    EXPECT_FALSE(CsrkFormat::obstacle(Exec(), A, o).empty());
    EXPECT_THROW(make_csrk(Exec(), A, o), std::invalid_argument);
    const auto M = make_csrk(Exec(), A);
    Kokkos::View<Scalar*, Exec> x("x", 30), y("y", 30);
    EXPECT_THROW(spmv(Exec(), Scalar(1), M, x, Scalar(0), y, o), std::invalid_argument);
  }
}

// Explicit GPU block shapes (the tuning sweep's), either lane mapping, give
// the product; on host backends they are accepted and ignored.
TYPED_TEST(CsrkTest, ExplicitBlockShapes) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  const HostCrs h = random_crs(1001, 1001, 24, 0.1, 0, 21);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const V x = random_vector<V>(h.cols, 22, "x");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  V y0("y0", h.rows);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  const auto ref = reference_spmv<Scalar>(h, 1.0, xh, 0.0, y0h);
  for (int k : {2, 3}) {
    CsrkOptions o;
    o.k = k;
    o.rows_per_super_row = 6;
    o.super_rows_per_super_super_row = 5;
    const auto M = make_csrk(Exec(), A, o);
    for (auto [lanes, rows, srs, entries] :
         {std::make_tuple(1, 1, 1, -1), std::make_tuple(8, 1, 12, -1), std::make_tuple(4, 8, 12, 1),
          std::make_tuple(32, 2, 16, 1), std::make_tuple(2, 3, 5, -1),
          std::make_tuple(16, 3, 5, 1)}) {
      SCOPED_TRACE("k = " + std::to_string(k) + " shape " + std::to_string(lanes) + "x" +
                   std::to_string(rows) + "x" + std::to_string(srs));
      CsrkOptions shape = CsrkFormat::options(M);
      shape.gpu_lanes = lanes;
      shape.gpu_row_slots = rows;
      shape.gpu_super_row_slots = srs;
      shape.gpu_lanes_over_entries = entries;
      V y("y", h.rows);
      Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
      spmv(Exec(), Scalar(1), M, x, Scalar(0), y, shape);
      EXPECT_TRUE(matches_reference<Scalar>(y, ref));
    }
  }
}

// The GPU mappings (lanes over a super-row's rows, over a row's entries)
// run on host backends too when called directly, with the team sizes a host
// team can hold: their slot and stride arithmetic is checked here, not only
// on GPUs.
TYPED_TEST(CsrkTest, GpuMappingsOnTheHost) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using V = Kokkos::View<Scalar*, Exec>;
  using Mapping = detail::CsrkMapping;
  const HostCrs h = random_crs(733, 733, 19, 0.1, 300, 31);
  const auto A = make_device_crs<Scalar, Exec>(h);
  const V x = random_vector<V>(h.cols, 32, "x");
  const V y0 = random_vector<V>(h.rows, 33, "y0");
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto y0h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  const auto ref = reference_spmv<Scalar>(h, 2.0, xh, 0.5, y0h);
  const auto ref0 = reference_spmv<Scalar>(h, 2.0, xh, 0.0, y0h);
  const int max_team =
      Kokkos::TeamPolicy<Exec>(Exec(), 1, 1)
          .team_size_max(
              detail::CsrkSpmv<Mapping::lanes_over_rows, true, CsrkMatrix<Scalar, Exec>, V, V>{},
              Kokkos::ParallelForTag());
  for (int k : {2, 3}) {
    CsrkOptions o;
    o.k = k;
    o.rows_per_super_row = 7;
    o.super_rows_per_super_super_row = 3;
    const auto M = make_csrk(Exec(), A, o);
    for (auto [rows, srs] : {std::make_pair(1, 1), std::make_pair(2, 1), std::make_pair(1, 2),
                             std::make_pair(2, 2), std::make_pair(3, 1)}) {
      if (rows * srs > max_team) continue;
      detail::RowGroupsShape shape;
      shape.row_slots = rows;
      shape.super_row_slots = srs;
      for (double beta : {0.5, 0.0}) {
        SCOPED_TRACE("k = " + std::to_string(k) + " row slots " + std::to_string(rows) +
                     " super-row slots " + std::to_string(srs) + " beta " + std::to_string(beta));
        V y("y", h.rows);
        Kokkos::deep_copy(y, y0);
        detail::spmv_csrk_mapped<Mapping::lanes_over_rows>(Exec(), Scalar(2), M, x, Scalar(beta), y,
                                                           shape);
        EXPECT_TRUE(matches_reference<Scalar>(y, beta == 0 ? ref0 : ref));
        Kokkos::deep_copy(y, y0);
        detail::spmv_csrk_mapped<Mapping::lanes_over_entries>(Exec(), Scalar(2), M, x, Scalar(beta),
                                                              y, shape);
        EXPECT_TRUE(matches_reference<Scalar>(y, beta == 0 ? ref0 : ref));
      }
    }
  }
}

// The paper's GPU model (A100 constants, to be refitted on the H200) in its
// four row-density cases, and the host constants.
TEST(CsrkModel, PaperFormulaAndHostConstants) {
  const auto at = [](double r) {
    const auto s = detail::csrk_gpu_model(r);
    return std::make_pair(s.rows_per_super_row, s.super_rows_per_super_super_row);
  };
  EXPECT_EQ(at(5.0), std::make_pair(std::int64_t(15), std::int64_t(7)));
  EXPECT_EQ(at(12.0), std::make_pair(std::int64_t(48), std::int64_t(6)));
  // FEM: 27-point rows.
  EXPECT_EQ(at(26.5), std::make_pair(std::int64_t(39), std::int64_t(13)));
  EXPECT_EQ(at(40.0), std::make_pair(std::int64_t(16), std::int64_t(8)));
  EXPECT_EQ(at(0.0).first, 21); // an empty matrix: ln clamped at rdensity 1
  EXPECT_GE(at(1e9).first, 1);
  // The host model is one constant per k, whatever the row density.
  for (int k : {2, 3}) {
    const auto a = detail::csrk_host_model(k, 3.0), b = detail::csrk_host_model(k, 60.0);
    EXPECT_EQ(a.rows_per_super_row, b.rows_per_super_row);
    EXPECT_EQ(a.super_rows_per_super_super_row, b.super_rows_per_super_super_row);
    EXPECT_GE(a.rows_per_super_row, 1);
  }
  EXPECT_EQ(detail::csrk_host_model(2, 27.0).super_rows_per_super_super_row, 1);
}

} // namespace
