// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spgemm (operations/spgemm.hpp): C = A B against a long-double host reference
// (exact structure, values within a precision-scaled bound) and Kokkos
// Kernels' SpGEMM, on random, FEM, R-MAT-like and the shipped real matrices,
// the degenerate shapes, every accumulator, offset overflow, the memory
// limit, and repeated numeric phases.

#include "env_guard.hpp"
#include "test_utils.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spgemm.hpp>
#include <spmvkit/problems/fem_poisson.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace spmvkit;
using namespace spmvkit::test;

template <class Config>
class SpgemmTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmTest, AllConfigs, ConfigNames);

/// The product in long double, rows sorted, with each entry's error bound in
/// precision Scalar: a few ulps per product summed (Higham's bound for a dot
/// product of that length) times the sum of the products' magnitudes.
template <class Scalar>
struct HostProduct {
  HostCrs C;
  std::vector<long double> exact;
  std::vector<long double> bound;
};

template <class Scalar>
HostProduct<Scalar> host_product(HostCrs const& A, HostCrs const& B) {
  HostProduct<Scalar> r;
  r.C.rows = A.rows;
  r.C.cols = B.cols;
  const long double eps = std::numeric_limits<Scalar>::epsilon();
  std::vector<long double> sum(static_cast<std::size_t>(B.cols)), mag(sum.size());
  std::vector<std::int64_t> terms(sum.size()), seen;
  std::vector<char> used(sum.size(), 0);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    seen.clear();
    for (std::int64_t ka = A.row_starts[i]; ka < A.row_starts[i + 1]; ++ka) {
      const std::int64_t k = A.col[ka];
      const long double a = static_cast<Scalar>(A.val[ka]);
      for (std::int64_t kb = B.row_starts[k]; kb < B.row_starts[k + 1]; ++kb) {
        const std::int64_t c = B.col[kb];
        const long double p = a * static_cast<long double>(static_cast<Scalar>(B.val[kb]));
        if (!used[c]) {
          used[c] = 1;
          seen.push_back(c);
          sum[c] = mag[c] = 0;
          terms[c] = 0;
        }
        sum[c] += p;
        mag[c] += std::fabs(p);
        ++terms[c];
      }
    }
    std::sort(seen.begin(), seen.end());
    for (auto c : seen) {
      r.C.col.push_back(c);
      r.C.val.push_back(static_cast<double>(sum[c]));
      r.exact.push_back(sum[c]);
      r.bound.push_back(4 * eps * static_cast<long double>(terms[c] + 2) * mag[c] +
                        std::numeric_limits<Scalar>::min());
      used[c] = 0;
    }
    r.C.row_starts.push_back(static_cast<std::int64_t>(r.C.col.size()));
  }
  return r;
}

/// Sorts each row's (column, value) pairs: for products whose rows come unsorted.
inline void sort_rows(HostCrs& h) {
  std::vector<std::pair<std::int64_t, double>> row;
  for (std::int64_t i = 0; i < h.rows; ++i) {
    row.clear();
    for (auto k = h.row_starts[i]; k < h.row_starts[i + 1]; ++k)
      row.push_back({h.col[k], h.val[k]});
    std::sort(row.begin(), row.end());
    for (std::size_t j = 0; j < row.size(); ++j) {
      h.col[h.row_starts[i] + static_cast<std::int64_t>(j)] = row[j].first;
      h.val[h.row_starts[i] + static_cast<std::int64_t>(j)] = row[j].second;
    }
  }
}

/// C (from the device, rows sorted unless `sorted` promises they are) against
/// the reference: the same shape and structure, values within the bounds.
template <class Scalar>
::testing::AssertionResult matches_product(HostCrs got, HostProduct<Scalar> const& ref, bool sorted,
                                           std::string const& what) {
  if (!sorted) sort_rows(got);
  if (got.rows != ref.C.rows || got.cols != ref.C.cols) {
    return ::testing::AssertionFailure() << what << ": C is " << got.rows << " x " << got.cols
                                         << ", expected " << ref.C.rows << " x " << ref.C.cols;
  }
  if (got.row_starts != ref.C.row_starts) {
    for (std::int64_t i = 0; i < got.rows; ++i) {
      const auto g = got.row_starts[i + 1] - got.row_starts[i];
      const auto e = ref.C.row_starts[i + 1] - ref.C.row_starts[i];
      if (g != e) {
        return ::testing::AssertionFailure()
               << what << ": row " << i << " has " << g << " entries, expected " << e;
      }
    }
    return ::testing::AssertionFailure() << what << ": row starts differ";
  }
  std::ostringstream os;
  std::int64_t bad = 0;
  for (std::int64_t k = 0; k < ref.C.nnz(); ++k) {
    const long double v = static_cast<Scalar>(got.val[k]);
    const bool ok = got.col[k] == ref.C.col[k] && std::isfinite(got.val[k]) &&
                    std::fabs(v - ref.exact[k]) <= ref.bound[k];
    if (!ok && bad++ < 6) {
      os << "\n  entry " << k << ": column " << got.col[k] << " value " << got.val[k]
         << ", expected column " << ref.C.col[k] << " value " << static_cast<double>(ref.exact[k])
         << " +- " << static_cast<double>(ref.bound[k]);
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << bad << " of " << ref.C.nnz() << " entries differ:" << os.str();
}

HostCrs transpose(HostCrs const& A) {
  HostCrs T;
  T.rows = A.cols;
  T.cols = A.rows;
  T.row_starts.assign(static_cast<std::size_t>(A.cols + 1), 0);
  for (auto c : A.col) ++T.row_starts[c + 1];
  for (std::int64_t i = 0; i < A.cols; ++i) T.row_starts[i + 1] += T.row_starts[i];
  T.col.resize(A.col.size());
  T.val.resize(A.val.size());
  auto next = T.row_starts;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
      const auto p = next[A.col[k]]++;
      T.col[p] = i;
      T.val[p] = A.val[k];
    }
  }
  return T;
}

/// R-MAT-like graph (recursive quadrant choices 0.57/0.19/0.19/0.05),
/// duplicates removed, values in [-1, 1] without zero.
HostCrs rmat_like(int scale, int edge_factor, unsigned seed) {
  const std::int64_t n = std::int64_t(1) << scale;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  for (std::int64_t e = 0; e < n * edge_factor; ++e) {
    std::int64_t r = 0, c = 0;
    for (int l = 0; l < scale; ++l) {
      const double x = u(gen);
      const int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
      r = 2 * r + (q >> 1);
      c = 2 * c + (q & 1);
    }
    edges.push_back({r, c});
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  HostCrs h = from_entries(n, n, edges);
  for (auto& v : h.val) v = (u(gen) < 0.5 ? -1 : 1) * (0.05 + u(gen));
  return h;
}

/// spgemm through the handle against the reference and, where both factors
/// have entries, Kokkos Kernels (same structure after sorting its rows, values
/// within the same bounds). Returns the handle for further checks.
template <class Scalar, class Exec, class Offset = int>
SpgemmHandle<Scalar, Exec, int, Offset>
check_spgemm(HostCrs const& ha, HostCrs const& hb, std::string const& what,
             SpgemmOptions const& options = {}, bool with_kokkos_kernels = true,
             int test_team_size = 0, int test_workspace = 0, int test_lists = 0,
             int test_window_words = 0) {
  const Exec exec;
  auto A = make_device_crs<Scalar, Exec, int, Offset>(ha);
  auto B = make_device_crs<Scalar, Exec, int, Offset>(hb);
  const auto ref = host_product<Scalar>(ha, hb);
  SpgemmOptions o = options;
  if (test_lists != 0) {
    o.product_lists = test_lists > 0;
  }
  SpgemmHandle<Scalar, Exec, int, Offset> handle(o);
  handle.state().test_team_size = test_team_size;
  handle.state().test_workspace = test_workspace;
  handle.state().test_wide_lists = test_lists > 1;
  handle.state().test_window_words = test_window_words;
  spgemm_symbolic(exec, handle, A, B);
  EXPECT_TRUE(handle.has_structure());
  EXPECT_EQ(handle.nnz(), ref.C.nnz()) << what;
  auto C = spgemm_numeric(exec, handle, A, B);
  exec.fence();
  EXPECT_NO_THROW(check_structure(exec, C)) << what;
  EXPECT_TRUE(matches_product<Scalar>(to_host(C), ref, options.sort_columns, what));
  std::int64_t multiply_adds = 0;
  for (std::int64_t i = 0; i < ha.rows; ++i) {
    for (auto k = ha.row_starts[i]; k < ha.row_starts[i + 1]; ++k) {
      multiply_adds += hb.row_starts[ha.col[k] + 1] - hb.row_starts[ha.col[k]];
    }
  }
  EXPECT_EQ(handle.multiply_adds(), multiply_adds) << what;
  EXPECT_GE(handle.memory().peak_bytes, handle.memory().output_bytes) << what;
  // Where the numeric phase went by entry of A (GPUs, or the team hook), the
  // positions' row and chunk kernels too.
  if (handle.state().entry_c_start.extent(0) > 0) {
    SpgemmHandle<Scalar, Exec, int, Offset> rows(o);
    rows.state().test_team_size = test_team_size;
    rows.state().test_workspace = test_workspace;
    rows.state().test_entries = -1;
    rows.state().test_window_words = test_window_words;
    spgemm_symbolic(exec, rows, A, B);
    EXPECT_EQ(rows.state().entry_c_start.extent(0), 0u) << what;
    auto D = spgemm_numeric(exec, rows, A, B);
    exec.fence();
    EXPECT_TRUE(matches_product<Scalar>(to_host(D), ref, options.sort_columns, what + ", rows"));
  }
  if (with_kokkos_kernels && ha.nnz() > 0 && hb.nnz() > 0 && ha.rows > 0 && hb.cols > 0) {
    using KK = kokkos_kernels_matrix_t<CrsMatrix<Scalar, Exec, int, Offset>>;
    KokkosKernelsSpgemm<KK> kk;
    kk.symbolic(to_kokkos_kernels(A), to_kokkos_kernels(B));
    kk.numeric(to_kokkos_kernels(A), to_kokkos_kernels(B));
    EXPECT_TRUE(matches_product<Scalar>(to_host(from_kokkos_kernels(kk.matrix())), ref, false,
                                        what + " (Kokkos Kernels)"));
  }
  return handle;
}

std::vector<std::string> shipped_matrices() {
  std::vector<std::string> out;
  for (auto const& e : std::filesystem::directory_iterator(SPMVKIT_TEST_MATRIX_DIR)) {
    const std::string p = e.path().string();
    // email-Enron's square (hub rows of ~1400 entries) alone would take longer
    // than this whole test; its rows are covered by the R-MAT-like graphs.
    if (p.size() > 7 && p.compare(p.size() - 7, 7, ".mtx.gz") == 0 &&
        p.find("email-Enron") == std::string::npos) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TYPED_TEST(SpgemmTest, RandomMatricesMatchReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Rectangular, with empty rows and one long row.
  check_spgemm<Scalar, Exec>(random_crs(300, 200, 12, 0.1, 150, 1),
                             random_crs(200, 250, 10, 0.1, 200, 2), "random 300x200 * 200x250");
  SpgemmOptions unsorted;
  unsorted.sort_columns = false;
  check_spgemm<Scalar, Exec>(random_crs(300, 200, 12, 0.1, 150, 3),
                             random_crs(200, 250, 10, 0.1, 200, 4), "random, unsorted", unsorted);
}

TYPED_TEST(SpgemmTest, FemSquareMatchesReferenceAndKokkosKernels) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 8));
  auto h = check_spgemm<Scalar, Exec>(A, A, "FEM N=8 A*A");
  // Q1 stencils: an interior row of A*A reaches the 5 x 5 x 5 neighbourhood
  // through 27 x 27 products.
  auto const rs = to_host(h.matrix()).row_starts;
  std::int64_t longest = 0;
  for (std::size_t i = 0; i + 1 < rs.size(); ++i) longest = std::max(longest, rs[i + 1] - rs[i]);
  EXPECT_EQ(longest, 125);
  EXPECT_GT(h.compression_ratio(), 1.0);
}

TYPED_TEST(SpgemmTest, ShippedRealMatricesSquareAndTimesTranspose) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto files = shipped_matrices();
  ASSERT_GE(files.size(), 3u) << "the shipped matrices are missing from "
                              << SPMVKIT_TEST_MATRIX_DIR;
  for (auto const& f : files) {
    const auto A = to_host(read_matrix_market<Scalar, Exec>(f));
    check_spgemm<Scalar, Exec>(A, A, f + ": A*A");
    // A A^T differs from A A only for unsymmetric patterns or values.
    const auto T = transpose(A);
    if (T.col != A.col || T.val != A.val) check_spgemm<Scalar, Exec>(A, T, f + ": A*A^T");
  }
}

TYPED_TEST(SpgemmTest, RmatLikeGraphs) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto G = rmat_like(10, 8, 7);
  check_spgemm<Scalar, Exec>(G, G, "R-MAT-like scale 10: A*A");
  check_spgemm<Scalar, Exec>(G, transpose(G), "R-MAT-like scale 10: A*A^T");
}

// Rows long enough for each accumulator on every backend: a row of A that
// reads 150 rows of B of 100 entries each has a bound of 15000 (over 10^4
// distinct columns), beyond the scratch hash table; with 20000 columns B fits
// the dense tiles, with 300000 it does not and the row goes to the global
// pool (with 9000, on GPUs, to the global pool's dense arrays).
std::pair<HostCrs, HostCrs> long_row_product(std::int64_t n) {
  HostCrs A = random_crs(60, 400, 6, 0.2, 100, 11);
  HostCrs B = random_crs(400, n, 4, 0.1, 0, 12);
  // Rows 0-149 of B get 100 entries each, spread over all columns.
  std::vector<std::pair<std::int64_t, std::int64_t>> entries;
  std::mt19937_64 gen(5);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  for (std::int64_t i = 0; i < B.rows; ++i) {
    std::vector<std::int64_t> cs(B.col.begin() + B.row_starts[i],
                                 B.col.begin() + B.row_starts[i + 1]);
    if (i < 150) {
      while (cs.size() < 100) {
        const auto c = col(gen);
        if (std::find(cs.begin(), cs.end(), c) == cs.end()) cs.push_back(c);
      }
      std::sort(cs.begin(), cs.end());
    }
    for (auto c : cs) entries.push_back({i, c});
  }
  B = from_entries(400, n, entries);
  // The long row of A reads rows 0-149 of B.
  std::vector<std::pair<std::int64_t, std::int64_t>> a_entries;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    if (i == 30) {
      for (std::int64_t k = 0; k < 150; ++k) a_entries.push_back({i, k});
    } else {
      for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
        a_entries.push_back({i, A.col[k]});
      }
    }
  }
  return {from_entries(60, 400, a_entries), B};
}

TYPED_TEST(SpgemmTest, EveryAccumulatorIsExercised) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  bool saw_dense = false, saw_global = false;
  // The dense tiles take rows of B at most this wide (FP64 on GPUs: 8192, below the 9000 that
  // host backends take; the long row's bound stays beyond the scratch hash table either way).
  const auto limits = detail::spgemm_scratch_limits<Exec>(sizeof(Scalar), sizeof(int));
  const std::int64_t dense_n =
      std::min<std::int64_t>(9000, limits.tile_columns * detail::spgemm_max_tile_passes);
  for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), dense_n}) {
    auto const [A, B] = long_row_product(n);
    // Sorted with and without the stored positions (both numeric paths), and unsorted.
    for (int variant = 0; variant < 3; ++variant) {
      const bool sorted = variant < 2;
      SpgemmOptions o;
      o.sort_columns = sorted;
      o.keep_positions = variant == 0;
      auto h = check_spgemm<Scalar, Exec>(
          A, B, "accumulators, n = " + std::to_string(n) + ", variant " + std::to_string(variant),
          o, sorted);
      EXPECT_EQ(h.keeps_positions(), variant == 0);
      for (auto const& bins : {h.row_bins(), h.symbolic_row_bins()}) {
        EXPECT_GT(bins.hash, 0);
        EXPECT_EQ(bins.empty + bins.narrow + bins.hash + bins.dense + bins.global, A.rows);
        saw_dense = saw_dense || bins.dense > 0;
        saw_global = saw_global || bins.global > 0;
      }
    }
  }
  EXPECT_TRUE(saw_dense);
  EXPECT_TRUE(saw_global);
}

struct NoWork {
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const&) const {}
};

/// The largest team the test hooks run the concurrent path with: as many
/// threads as the backend allows, at most 4.
template <class Exec>
int most_test_team() {
  return std::min(
      4, Kokkos::TeamPolicy<Exec>(Exec(), 1, 1).team_size_max(NoWork{}, Kokkos::ParallelForTag()));
}

// The concurrent code path (atomic insertion, team bitonic sort, segmented
// ordered writes by several threads), which GPUs take, run here with teams of
// one thread and of as many as the backend allows (at most 4), through every
// accumulator, sorted and not.
TYPED_TEST(SpgemmTest, ConcurrentPathOnEveryBackend) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int most = most_test_team<Exec>();
  std::vector<int> sizes{1};
  if (most > 1) sizes.push_back(most);
  for (int team : sizes) {
    for (int variant = 0; variant < 3; ++variant) {
      const bool sorted = variant < 2;
      SpgemmOptions o;
      o.sort_columns = sorted;
      o.keep_positions = variant == 0;
      const std::string what = "team of " + std::to_string(team) +
                               (variant == 0 ? ", positions"
                                : sorted     ? ", hashing"
                                             : ", unsorted");
      auto h = check_spgemm<Scalar, Exec>(random_crs(300, 200, 12, 0.1, 150, 1),
                                          random_crs(200, 250, 10, 0.1, 200, 2), "random, " + what,
                                          o, false, team);
      // Short rows a row per thread (the narrow bin) beside rows of a team.
      EXPECT_GT(h.symbolic_row_bins().narrow, 0) << what;
      EXPECT_GT(h.symbolic_row_bins().hash, 0) << what;
      EXPECT_GT(h.row_bins().narrow, 0) << what;
      EXPECT_GT(h.row_bins().hash, 0) << what;
      for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), std::int64_t(9000)}) {
        auto const [A, B] = long_row_product(n);
        check_spgemm<Scalar, Exec>(A, B, "long rows, n = " + std::to_string(n) + ", " + what, o,
                                   false, team);
      }
      check_spgemm<Scalar, Exec>(from_entries(4, 3, {{0, 0}, {0, 2}, {2, 1}}),
                                 from_entries(3, 5, {{0, 1}, {1, 0}, {2, 2}, {2, 1}}),
                                 "empty rows, " + what, o, false, team);
    }
  }
}

// The symbolic passes' bitmap windows (SpgemmRows::window_row) on the
// concurrent path: banded rows (windows of a few words) beside wide ones
// (hundreds of words), unsorted and repeated columns in rows of B, with the
// windows off, at their default width, and capped so that one launch windows
// some rows and hashes the others; C, the positions and the unsorted output must
// match the reference every way.
TYPED_TEST(SpgemmTest, WindowedRowsMatchHashedRows) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 3000;
  std::vector<std::pair<std::int64_t, std::int64_t>> entries;
  for (std::int64_t i = 0; i < n; ++i) {
    // Blocks of 64 rows alternate between a band of +-40 and one of +-1500.
    const std::int64_t reach = (i / 64) % 2 == 0 ? 40 : 1500;
    std::vector<std::int64_t> cols{i};
    for (std::int64_t j = 1; j < 16; ++j) {
      const std::int64_t c = i + ((j * 7919 + i * 31) % (2 * reach + 1)) - reach;
      if (c >= 0 && c < n) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (auto c : cols) entries.push_back({i, c});
  }
  const HostCrs A = from_entries(n, n, entries);
  // B: A's rows reversed, the first column of each repeated (lanes that or one bit).
  HostCrs B;
  B.rows = B.cols = n;
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<std::int64_t> cols(A.col.begin() + A.row_starts[r],
                                   A.col.begin() + A.row_starts[r + 1]);
    cols.push_back(cols.front());
    std::reverse(cols.begin(), cols.end());
    for (auto c : cols) {
      B.col.push_back(c);
      B.val.push_back(0.5 + 0.001 * static_cast<double>(B.col.size() % 89));
    }
    B.row_starts.push_back(static_cast<std::int64_t>(B.col.size()));
  }
  const int most = most_test_team<Exec>();
  const bool concurrent_by_default = !detail::is_host_space_v<Exec>;
  for (int team : {1, most}) {
    for (int cap : {-1, 0, 16}) {
      for (int variant = 0; variant < 3; ++variant) {
        SpgemmOptions o;
        o.sort_columns = variant < 2;
        o.keep_positions = variant == 0;
        const std::string what = "team " + std::to_string(team) + ", window cap " +
                                 std::to_string(cap) + ", variant " + std::to_string(variant);
        auto h = check_spgemm<Scalar, Exec>(A, B, what, o, false, concurrent_by_default ? 0 : team,
                                            0, -1, cap);
        EXPECT_EQ(h.keeps_positions(), variant == 0) << what;
        auto const& st = h.state();
        if (cap < 0) {
          EXPECT_EQ(st.window_words_count, 0) << what;
          EXPECT_EQ(st.window_words_fill, 0) << what;
        } else {
          // Band rows span about 3-6 words, wide rows up to about 94.
          EXPECT_GT(st.window_words_count, 0) << what;
          EXPECT_GT(st.window_words_fill, 0) << what;
          EXPECT_GT(st.window_rows_fill, 0) << what;
          EXPECT_LE(st.window_words_fill, cap > 0 ? cap : detail::spgemm_max_window_words) << what;
          if (cap == 0) {
            EXPECT_GT(st.window_words_fill, 50) << what;
          }
        }
        EXPECT_EQ(st.window.extent(0), 0u) << what;
      }
    }
    if (concurrent_by_default) break;
  }
}

// Long rows on the concurrent path go to SpgemmPositionChunks, which splits a
// row's products into chunks (64 products each under the test hook): chunks
// that start inside an entry's row of B, rows of B longer than several chunks,
// and empty rows of B (no products) at the start, the middle and the end of a
// row of A, where the search for a product's entry must skip them.
TYPED_TEST(SpgemmTest, ChunkedLongRowsWithEmptyAndLongRowsOfB) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 300000;
  std::mt19937_64 gen(21);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::vector<std::pair<std::int64_t, std::int64_t>> b, a;
  for (std::int64_t i = 0; i < 200; ++i) {
    const std::size_t len = (i >= 10 && i < 20) || i == 0 || i == 199 ? 0 : i == 149 ? 9000 : 100;
    std::set<std::int64_t> cs;
    while (cs.size() < len) cs.insert(col(gen));
    for (auto c : cs) b.push_back({i, c});
  }
  // Row 1 reads rows 0-149 and 199 of B (22900 products: beyond the scratch
  // hash table on every backend); row 2 reads row 149 alone (one entry of A,
  // 9000 products, also beyond it); row 0 reads short rows only.
  for (std::int64_t k = 0; k < 150; ++k) a.push_back({1, k});
  a.push_back({1, 199});
  a.push_back({2, 149});
  for (std::int64_t k : {3, 4, 5}) a.push_back({0, k});
  const HostCrs A = from_entries(3, 200, a), B = from_entries(200, n, b);
  const int most = most_test_team<Exec>();
  for (int team : {1, most}) {
    auto h = check_spgemm<Scalar, Exec>(A, B, "chunked rows, team of " + std::to_string(team), {},
                                        false, team);
    EXPECT_TRUE(h.keeps_positions());
    EXPECT_GT(h.row_bins().dense + h.row_bins().global, 0);
  }
}

// The host symbolic phase's dense workspace per thread (forced on wherever it
// fits) and the binned accumulators (forced off) give the same C on shapes
// with rows longer than any scratch table, empty rows and columns,
// rectangular factors and degenerate shapes, sorted with and without the
// positions, and unsorted. GPU backends never take the workspace.
TYPED_TEST(SpgemmTest, HostWorkspaceAndBinnedAccumulatorsAgree) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  constexpr bool host = detail::is_host_space_v<Exec>;
  std::vector<std::pair<std::string, std::pair<HostCrs, HostCrs>>> cases;
  for (std::int64_t n : {std::int64_t(20000), std::int64_t(300000), std::int64_t(9000)}) {
    cases.push_back({"long rows, n = " + std::to_string(n), long_row_product(n)});
  }
  cases.push_back({"random 300x200 * 200x250",
                   {random_crs(300, 200, 12, 0.1, 150, 1), random_crs(200, 250, 10, 0.1, 200, 2)}});
  cases.push_back({"empty rows and columns",
                   {from_entries(4, 3, {{0, 0}, {0, 2}, {2, 1}}),
                    from_entries(3, 5, {{0, 1}, {1, 0}, {2, 2}, {2, 1}})}});
  cases.push_back({"0x7 * 7x0", {from_entries(0, 7, {}), from_entries(7, 0, {})}});
  cases.push_back({"5x0 * 0x6", {from_entries(5, 0, {}), from_entries(0, 6, {})}});
  cases.push_back({"zero factors", {from_entries(5, 4, {}), from_entries(4, 6, {})}});
  std::vector<std::pair<std::int64_t, std::int64_t>> row, column;
  for (std::int64_t j = 0; j < 300; ++j) {
    row.push_back({0, j});
    column.push_back({j, 0});
  }
  cases.push_back({"dot product", {from_entries(1, 300, row), from_entries(300, 1, column)}});
  cases.push_back({"outer product", {from_entries(300, 1, column), from_entries(1, 300, row)}});
  const auto G = rmat_like(9, 8, 3);
  cases.push_back({"R-MAT-like scale 9, A*A^T", {G, transpose(G)}});
  for (auto const& [name, AB] : cases) {
    auto const& [A, B] = AB;
    for (int variant = 0; variant < 3; ++variant) {
      SpgemmOptions o;
      o.sort_columns = variant < 2;
      o.keep_positions = variant == 0;
      int kept = -1;
      for (int ws : {1, -1}) {
        const std::string what =
            name + ", variant " + std::to_string(variant) + (ws > 0 ? ", workspace" : ", bins");
        auto h = check_spgemm<Scalar, Exec>(A, B, what, o, false, 0, ws);
        const bool used = h.memory().symbolic_workspace_bytes > 0;
        EXPECT_EQ(used, host && ws > 0 && A.rows > 0 && B.cols > 0) << what;
        if (used) {
          EXPECT_GE(h.memory().peak_bytes,
                    h.memory().output_bytes + h.memory().symbolic_workspace_bytes)
              << what;
        }
        // Both ways keep the positions under the same rule.
        if (kept >= 0) {
          EXPECT_EQ(h.keeps_positions(), kept == 1) << what;
        }
        kept = h.keeps_positions() ? 1 : 0;
      }
    }
  }
}

// The rule and the limit: FEM products take the workspace by default on host
// backends; a memory limit that leaves room for the binned accumulators but
// not for the workspace falls back to them, with the same C.
TYPED_TEST(SpgemmTest, HostWorkspaceFallsBackUnderTheMemoryLimit) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  constexpr bool host = detail::is_host_space_v<Exec>;
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 6));
  auto d = check_spgemm<Scalar, Exec>(F, F, "FEM N=6 A*A, default", {}, false);
  EXPECT_EQ(d.memory().symbolic_workspace_bytes > 0, host);
  // B with 300000 columns: 1.2 MB of marks per thread against a C of ~100 KB.
  auto const [A, B] = long_row_product(300000);
  auto off = check_spgemm<Scalar, Exec>(A, B, "wide B, bins", {}, false, 0, -1);
  EXPECT_EQ(off.memory().symbolic_workspace_bytes, 0u);
  auto on = check_spgemm<Scalar, Exec>(A, B, "wide B, workspace", {}, false, 0, 1);
  if (!host) {
    EXPECT_EQ(on.memory().symbolic_workspace_bytes, 0u);
    return;
  }
  ASSERT_GT(on.memory().symbolic_workspace_bytes, 0u);
  ASSERT_LT(off.memory().peak_bytes, on.memory().peak_bytes);
  SpgemmOptions tight;
  tight.memory_limit = off.memory().peak_bytes;
  auto t =
      check_spgemm<Scalar, Exec>(A, B, "wide B, limit below the workspace", tight, false, 0, 1);
  EXPECT_EQ(t.memory().symbolic_workspace_bytes, 0u);
  EXPECT_TRUE(t.keeps_positions());
  EXPECT_LE(t.memory().peak_bytes, tight.memory_limit);
}

TYPED_TEST(SpgemmTest, EmptyRowsColumnsAndDegenerateShapes) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // Empty rows in A, empty columns in B (columns 3 and 4 never appear).
  const HostCrs A = from_entries(4, 3, {{0, 0}, {0, 2}, {2, 1}});
  const HostCrs B = from_entries(3, 5, {{0, 1}, {1, 0}, {2, 2}, {2, 1}});
  check_spgemm<Scalar, Exec>(A, B, "empty rows and columns");
  // 0 x k times k x 0, m x 0 times 0 x n, 0 x 0 times 0 x 0, all-zero factors.
  check_spgemm<Scalar, Exec>(from_entries(0, 7, {}), from_entries(7, 0, {}), "0x7 * 7x0");
  check_spgemm<Scalar, Exec>(from_entries(5, 0, {}), from_entries(0, 6, {}), "5x0 * 0x6");
  check_spgemm<Scalar, Exec>(from_entries(0, 0, {}), from_entries(0, 0, {}), "0x0 * 0x0");
  check_spgemm<Scalar, Exec>(from_entries(5, 4, {}), from_entries(4, 6, {}), "zero factors");
  auto C = spgemm(Exec(), make_device_crs<Scalar, Exec>(from_entries(0, 7, {})),
                  make_device_crs<Scalar, Exec>(from_entries(7, 0, {})));
  EXPECT_EQ(C.num_rows(), 0);
  EXPECT_EQ(C.num_cols(), 0);
  EXPECT_EQ(C.nnz(), 0);
}

TYPED_TEST(SpgemmTest, DenseRowTimesDenseColumnAndOuterProduct) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t k = 5000;
  std::vector<std::pair<std::int64_t, std::int64_t>> row, column;
  for (std::int64_t j = 0; j < k; ++j) {
    row.push_back({0, j});
    column.push_back({j, 0});
  }
  // 1 x k times k x 1: all 5000 products land in one entry.
  check_spgemm<Scalar, Exec>(from_entries(1, k, row), from_entries(k, 1, column), "dot product");
  // 300 x 1 times 1 x 300: a dense 300 x 300 C.
  std::vector<std::pair<std::int64_t, std::int64_t>> c300, r300;
  for (std::int64_t j = 0; j < 300; ++j) {
    c300.push_back({j, 0});
    r300.push_back({0, j});
  }
  auto h = check_spgemm<Scalar, Exec>(from_entries(300, 1, c300), from_entries(1, 300, r300),
                                      "outer product");
  EXPECT_EQ(h.nnz(), 300 * 300);
  EXPECT_DOUBLE_EQ(h.compression_ratio(), 1.0);
}

// C = A B with A = 46341 x 1 and B = 1 x 46341, both all ones: C would be
// dense with 46341^2 > 2^31 - 1 entries. The lower bound on nnz(C) already
// overflows int offsets, so the error comes before C's counting or storage.
TYPED_TEST(SpgemmTest, OffsetOverflowIsRefusedBeforeAllocation) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 46341;
  std::vector<std::pair<std::int64_t, std::int64_t>> column, row;
  for (std::int64_t j = 0; j < n; ++j) {
    column.push_back({j, 0});
    row.push_back({0, j});
  }
  const auto A = make_device_crs<Scalar, Exec>(from_entries(n, 1, column));
  const auto B = make_device_crs<Scalar, Exec>(from_entries(1, n, row));
  SpgemmHandle<Scalar, Exec> handle;
  try {
    spgemm_symbolic(Exec(), handle, A, B);
    FAIL() << "no std::length_error";
  } catch (std::length_error const& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("2147488281"), std::string::npos) << what; // 46341^2
    EXPECT_NE(what.find("46341 x 1"), std::string::npos) << what;
    EXPECT_NE(what.find("Offset"), std::string::npos) << what;
  }
  EXPECT_FALSE(handle.has_structure());
}

TYPED_TEST(SpgemmTest, MemoryLimitAndDimensionMismatchAreClearErrors) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto A = make_device_crs<Scalar, Exec>(random_crs(200, 150, 10, 0.0, 0, 8));
  const auto B = make_device_crs<Scalar, Exec>(random_crs(150, 100, 10, 0.0, 0, 9));
  SpgemmOptions tight;
  tight.memory_limit = 4096;
  try {
    spgemm(Exec(), A, B, tight);
    FAIL() << "no AllocationError";
  } catch (AllocationError const& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs an estimated"), std::string::npos) << what;
    EXPECT_NE(what.find("SpgemmOptions::memory_limit"), std::string::npos) << what;
  }
  // SPMVKIT_MEMORY_LIMIT is read as the Matrix Market reader reads it
  // (core/memory_limit.hpp): garbage and negative values are errors, not "no limit".
  for (char const* bad : {"garbage", "-5"}) {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", bad);
    try {
      spgemm(Exec(), A, B);
      ADD_FAILURE() << "SPMVKIT_MEMORY_LIMIT=" << bad << " accepted";
    } catch (std::invalid_argument const& e) {
      EXPECT_EQ(std::string(e.what()), std::string("spmvkit::spgemm: SPMVKIT_MEMORY_LIMIT='") +
                                           bad + "' is not a positive number of bytes");
    }
  }
  {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", "4096");
    EXPECT_THROW(spgemm(Exec(), A, B), AllocationError);
  }
  SpgemmOptions roomy;
  roomy.memory_limit = std::uint64_t(1) << 30;
  SpgemmHandle<Scalar, Exec> handle(roomy);
  spgemm_symbolic(Exec(), handle, A, B);
  EXPECT_EQ(handle.memory().limit_bytes, roomy.memory_limit);
  EXPECT_LE(handle.memory().peak_bytes, roomy.memory_limit);
  EXPECT_GT(handle.memory().output_bytes, 0u);
  try {
    spgemm(Exec(), A, A);
    FAIL() << "no std::invalid_argument";
  } catch (std::invalid_argument const& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("A is 200 x 150"), std::string::npos) << what;
    EXPECT_NE(what.find("B is 200 x 150"), std::string::npos) << what;
  }
  SpgemmHandle<Scalar, Exec> fresh;
  EXPECT_THROW(spgemm_numeric(Exec(), fresh, A, B), std::invalid_argument);
  EXPECT_THROW(spgemm_numeric(Exec(), handle, B, B), std::invalid_argument);
}

// The numeric phase again with new values of A and B (same patterns): new
// products in the same arrays, nothing reallocated.
TYPED_TEST(SpgemmTest, NumericPhaseRepeatsWithNewValues) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  HostCrs ha = random_crs(400, 300, 15, 0.05, 250, 13);
  HostCrs hb = random_crs(300, 350, 15, 0.05, 300, 14);
  auto A = make_device_crs<Scalar, Exec>(ha);
  auto B = make_device_crs<Scalar, Exec>(hb);
  SpgemmHandle<Scalar, Exec> handle;
  spgemm_symbolic(exec, handle, A, B);
  auto C1 = spgemm_numeric(exec, handle, A, B);
  exec.fence();
  ASSERT_TRUE(matches_product<Scalar>(to_host(C1), host_product<Scalar>(ha, hb), true, "first"));
  auto const* cols = C1.column_indices().data();
  auto const* vals = C1.values().data();
  std::mt19937_64 gen(99);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (auto& v : ha.val) v = u(gen);
  for (auto& v : hb.val) v = u(gen);
  auto A2 = make_device_crs<Scalar, Exec>(ha);
  auto B2 = make_device_crs<Scalar, Exec>(hb);
  Kokkos::deep_copy(A.values(), A2.values());
  Kokkos::deep_copy(B.values(), B2.values());
  for (int round = 0; round < 2; ++round) {
    auto C2 = spgemm_numeric(exec, handle, A, B);
    exec.fence();
    EXPECT_EQ(C2.column_indices().data(), cols);
    EXPECT_EQ(C2.values().data(), vals);
    EXPECT_TRUE(matches_product<Scalar>(to_host(C2), host_product<Scalar>(ha, hb), true,
                                        "new values, round " + std::to_string(round)));
  }
}

// The stored positions (SpgemmOptions::keep_positions): 16-bit where every row
// of C is at most 65536 long, 32-bit beyond; the same product as hashing; off
// for unsorted rows; dropped, not refused, when they would break the limit.
TYPED_TEST(SpgemmTest, ProductPlacesAreKeptAtTheirWidth) {
  // Positions: 2 or 4 bytes a multiply-add; starts: nnz(A) + 1 entries and the fingerprint.
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 8));
  auto h = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, positions", {}, true, 0, 0, -1);
  ASSERT_TRUE(h.keeps_positions());
  EXPECT_FALSE(h.keeps_product_lists());
  EXPECT_EQ(h.memory().positions_bytes,
            static_cast<std::uint64_t>(h.multiply_adds()) * 2 + (F.nnz() + 2) * 8);
  EXPECT_LE(h.memory().positions_bytes, h.memory().workspace_bytes);
  SpgemmOptions hashing;
  hashing.keep_positions = false;
  auto g = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, hashing", hashing, false);
  EXPECT_FALSE(g.keeps_positions());
  EXPECT_EQ(g.memory().positions_bytes, 0u);
  SpgemmOptions unsorted;
  unsorted.sort_columns = false;
  auto u = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, unsorted", unsorted, false);
  EXPECT_FALSE(u.keeps_positions());

  // Two rows of C of 70000 entries: positions need 32 bits.
  const std::int64_t n = 70000;
  std::vector<std::pair<std::int64_t, std::int64_t>> wide;
  for (std::int64_t j = 0; j < n; ++j) wide.push_back({j % 2, j});
  const HostCrs A = from_entries(3, 2, {{0, 0}, {1, 0}, {1, 1}, {2, 1}});
  auto w =
      check_spgemm<Scalar, Exec>(A, from_entries(2, n, wide), "rows of 70000", {}, false, 0, 0, -1);
  ASSERT_TRUE(w.keeps_positions());
  EXPECT_EQ(w.memory().positions_bytes,
            static_cast<std::uint64_t>(w.multiply_adds()) * 4 + (A.nnz() + 2) * 8);

  // A limit between the peak without positions and the peak with them (without
  // the row starts that the numeric phase by entry of A adds on GPUs).
  const Exec exec;
  const auto dF = make_device_crs<Scalar, Exec>(F);
  SpgemmHandle<Scalar, Exec> places_only;
  places_only.state().test_entries = -1;
  spgemm_symbolic(exec, places_only, dF, dF);
  ASSERT_TRUE(places_only.keeps_positions());
  const std::uint64_t with = places_only.memory().peak_bytes;
  const std::uint64_t without = g.memory().peak_bytes;
  ASSERT_LT(without, with);
  SpgemmOptions tight;
  tight.memory_limit = with - 1;
  auto t = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, limit below the positions", tight, false,
                                      0, 0, -1);
  EXPECT_FALSE(t.keeps_positions());
  EXPECT_LE(t.memory().peak_bytes, tight.memory_limit);
  // Where the numeric phase goes by entry of A (GPUs), a limit that holds the
  // positions but not those row starts keeps the positions and the row kernels.
  if (h.state().entry_c_start.extent(0) > 0) {
    ASSERT_LT(with, h.memory().peak_bytes);
    tight.memory_limit = h.memory().peak_bytes - 1;
    auto e = check_spgemm<Scalar, Exec>(F, F, "FEM N=8 A*A, limit below the entries' row starts",
                                        tight, false, 0, 0, -1);
    EXPECT_TRUE(e.keeps_positions());
    EXPECT_EQ(e.state().entry_c_start.extent(0), 0u);
    EXPECT_LE(e.memory().peak_bytes, tight.memory_limit);
  }
}

// Patterns that changed after the symbolic phase (same shapes and nnz): a
// moved column, and rows of B whose lengths changed. Entries of the affected
// row become NaN on either numeric path; nothing is read out of bounds.
TYPED_TEST(SpgemmTest, ChangedPatternGivesNaNNotGarbage) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  // Row i of A reads rows i % 40 and (i + 3) % 40 of B; row i of B has
  // columns i, i + 10 and i + 20, so column 0 of C comes from row 0 of B only
  // and column 1 from row 1 only.
  std::vector<std::pair<std::int64_t, std::int64_t>> a, b;
  for (std::int64_t i = 0; i < 50; ++i) {
    a.push_back({i, i % 40});
    a.push_back({i, (i + 3) % 40});
  }
  for (std::int64_t i = 0; i < 40; ++i) {
    for (std::int64_t c : {i, i + 10, i + 20}) b.push_back({i, c});
  }
  // Column 0 of row 0 moved to column 5; entry (1, 1) moved to (0, 5), so
  // that rows 0 and 1 change lengths.
  auto moved = b, shifted = b;
  moved[0] = {0, 5};
  shifted[3] = {0, 5};
  std::sort(shifted.begin(), shifted.end());
  const HostCrs ha = from_entries(50, 40, a);
  const int most = most_test_team<Exec>();
  // 0: positions, 1: lists of products, 2: hashing, 3: positions by entry of A
  // (the GPUs' rule, through the test hook on host backends).
  for (int path = 0; path < 4; ++path) {
    SpgemmOptions o;
    o.keep_positions = path != 2;
    auto A = make_device_crs<Scalar, Exec>(ha);
    for (auto const& changed : {moved, shifted}) {
      o.product_lists = path == 1;
      SpgemmHandle<Scalar, Exec> handle(o);
      if (path == 3) handle.state().test_team_size = most;
      spgemm_symbolic(exec, handle, A, make_device_crs<Scalar, Exec>(from_entries(40, 60, b)));
      EXPECT_EQ(handle.keeps_positions(), path != 2);
      EXPECT_EQ(handle.keeps_product_lists(), path == 1);
      if (path == 3) {
        EXPECT_EQ(handle.state().entry_c_start.extent(0), static_cast<std::size_t>(ha.nnz()));
      }
      auto C = to_host(spgemm_numeric(
          exec, handle, A, make_device_crs<Scalar, Exec>(from_entries(40, 60, changed))));
      const auto nans =
          std::count_if(C.val.begin(), C.val.end(), [](double v) { return std::isnan(v); });
      EXPECT_GT(nans, 0) << "path " << path;
      // The same handle, the pattern it was made for: no NaN left over.
      if (path == 1 || path == 3) {
        auto D = to_host(spgemm_numeric(exec, handle, A,
                                        make_device_crs<Scalar, Exec>(from_entries(40, 60, b))));
        EXPECT_EQ(std::count_if(D.val.begin(), D.val.end(), [](double v) { return std::isnan(v); }),
                  0);
      }
    }
  }
}

// The fingerprint is the same whether B shares A's arrays (A A: hashed once)
// or is a copy of them, and still catches a changed pattern when they are shared.
TYPED_TEST(SpgemmTest, FingerprintOfSharedAndCopiedFactors) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const HostCrs ha = random_crs(300, 300, 9, 0.05, 120, 21);
  const auto ref = host_product<Scalar>(ha, ha);
  auto A = make_device_crs<Scalar, Exec>(ha);
  auto copy = make_device_crs<Scalar, Exec>(ha);
  for (bool shared_first : {true, false}) {
    SpgemmHandle<Scalar, Exec> handle;
    spgemm_symbolic(exec, handle, A, shared_first ? A : copy);
    ASSERT_TRUE(handle.keeps_positions());
    auto C = to_host(spgemm_numeric(exec, handle, A, shared_first ? copy : A));
    EXPECT_TRUE(matches_product<Scalar>(C, ref, true,
                                        shared_first ? "A A, then A copy" : "A copy, then A A"));
  }
  // One column of a row moved (same nnz): A' A' after a symbolic A A.
  HostCrs moved = ha;
  std::int64_t row = 0;
  while (moved.row_starts[row + 1] - moved.row_starts[row] < 2) ++row;
  const auto last = moved.row_starts[row + 1] - 1;
  std::int64_t c = 0;
  while (std::find(moved.col.begin() + moved.row_starts[row], moved.col.begin() + last + 1, c) !=
         moved.col.begin() + last + 1) {
    ++c;
  }
  moved.col[last] = c;
  SpgemmHandle<Scalar, Exec> handle;
  spgemm_symbolic(exec, handle, A, A);
  auto M = make_device_crs<Scalar, Exec>(moved);
  const auto C = to_host(spgemm_numeric(exec, handle, M, M));
  EXPECT_GT(std::count_if(C.val.begin(), C.val.end(), [](double v) { return std::isnan(v); }), 0);
}

// Rows of B that repeat a column or are not sorted: the row-per-thread
// numeric kernel (many short rows, so that it runs on GPUs too) must add with
// atomics there; rows of strictly increasing columns let it add plainly.
TYPED_TEST(SpgemmTest, RowsOfBWithRepeatedOrUnsortedColumns) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t m = 40000, k = 500, n = 700;
  std::vector<std::pair<std::int64_t, std::int64_t>> a, b;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < 3; ++j) a.push_back({i, (i * 7 + j * 131) % k});
  }
  for (std::int64_t r = 0; r < k; ++r) {
    for (std::int64_t j = 0; j < 6; ++j) b.push_back({r, (r * 3 + j * 17) % n});
  }
  std::sort(b.begin(), b.end());
  const HostCrs ha = from_entries(m, k, a);
  const HostCrs sorted = from_entries(k, n, b);
  // Each row of B repeats its first column twice more (three lanes add to
  // one place of C), and every other row is reversed.
  HostCrs repeated;
  repeated.rows = k;
  repeated.cols = n;
  for (std::int64_t r = 0; r < k; ++r) {
    std::vector<std::int64_t> cols(sorted.col.begin() + sorted.row_starts[r],
                                   sorted.col.begin() + sorted.row_starts[r + 1]);
    cols.push_back(cols.front());
    cols.insert(cols.begin() + 2, cols.front());
    if (r % 2 == 1) std::reverse(cols.begin(), cols.end());
    for (auto c : cols) {
      repeated.col.push_back(c);
      repeated.val.push_back(0.25 + 0.001 * static_cast<double>(repeated.col.size() % 97));
    }
    repeated.row_starts.push_back(static_cast<std::int64_t>(repeated.col.size()));
  }
  const int most = most_test_team<Exec>();
  for (int team : {0, most}) {
    const std::string what = "team hook " + std::to_string(team);
    auto h =
        check_spgemm<Scalar, Exec>(ha, sorted, "strict rows of B, " + what, {}, false, team, 0, -1);
    EXPECT_TRUE(h.keeps_positions()) << what;
    EXPECT_TRUE(h.state().b_rows_strict) << what;
    auto r = check_spgemm<Scalar, Exec>(ha, repeated, "repeated columns, " + what, {}, false, team,
                                        0, -1);
    EXPECT_TRUE(r.keeps_positions()) << what;
    auto l = check_spgemm<Scalar, Exec>(ha, repeated, "repeated columns, lists, " + what, {}, false,
                                        team, 0, 1);
    EXPECT_TRUE(l.keeps_product_lists()) << what;
    EXPECT_FALSE(r.state().b_rows_strict) << what;
    if (team > 1 || !detail::is_host_space_v<Exec>) {
      EXPECT_GT(r.row_bins().narrow, 0) << what;
    }
  }
}

// The numeric phase from lists of products by entry of C (the GPUs' rule,
// forced here on every backend, with teams of one thread and of several):
// every accumulator's rows, rows of B longer than a team, a row of A spread
// over many teams, and repeated numeric phases on new values.
TYPED_TEST(SpgemmTest, ProductListsMatchReference) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const int most = most_test_team<Exec>();
  const auto F = to_host(make_fem_poisson_crs<Scalar, Exec>(Exec(), 6));
  const auto G = rmat_like(9, 8, 17);
  auto const [L, R] = long_row_product(20000);
  for (int team : {0, most}) {
    const std::string what = ", team hook " + std::to_string(team);
    for (auto const& [a, b, name] :
         {std::make_tuple(F, F, "FEM N=6 A*A"), std::make_tuple(G, transpose(G), "R-MAT A*A^T"),
          std::make_tuple(L, R, "long rows"),
          std::make_tuple(random_crs(300, 200, 12, 0.1, 150, 1),
                          random_crs(200, 250, 10, 0.1, 200, 2), "random rectangular")}) {
      // 32-bit pairs, and 64-bit ones through the test hook.
      for (int lists : {1, 2}) {
        auto h = check_spgemm<Scalar, Exec>(a, b, name + what + (lists > 1 ? ", wide" : ""), {},
                                            false, team, 0, lists);
        ASSERT_TRUE(h.keeps_product_lists()) << name << what;
        EXPECT_TRUE(h.keeps_positions()) << name << what;
        // A pair of indices per multiply-add, an end per entry of C (two more:
        // the launch's fingerprint sum and the count of long lists), and room
        // for every list longer than long_list: all the handle keeps besides C.
        auto const& st = h.state();
        const std::int64_t long_list = st.list_plan.long_list;
        const std::int64_t long_max =
            long_list < h.multiply_adds() ? h.multiply_adds() / (long_list + 1) : 0;
        EXPECT_LE(st.list_long_count, long_max) << name << what;
        EXPECT_EQ(h.memory().positions_bytes,
                  static_cast<std::uint64_t>(h.multiply_adds()) * (lists > 1 ? 16 : 8) +
                      static_cast<std::uint64_t>(h.nnz() + 2) * 8 +
                      static_cast<std::uint64_t>(long_max + 1) * 8)
            << name << what;
        EXPECT_EQ(h.memory().workspace_bytes, h.memory().positions_bytes) << name << what;
        // The hook's teams take lists longer than 4 apart (a FEM product's
        // entries hold up to 27 products).
        if (team > 0) {
          EXPECT_GT(st.list_long_count, 0) << name << what;
        }
      }
    }
  }
  // New values on the same handle, twice (the launch's fingerprint sum and
  // count start from zero each time).
  const Exec exec;
  HostCrs ha = random_crs(400, 300, 15, 0.05, 250, 13);
  const HostCrs hb = random_crs(300, 350, 15, 0.05, 300, 14);
  auto A = make_device_crs<Scalar, Exec>(ha);
  auto B = make_device_crs<Scalar, Exec>(hb);
  SpgemmOptions always;
  always.product_lists = true;
  SpgemmHandle<Scalar, Exec> handle(always);
  spgemm_symbolic(exec, handle, A, B);
  ASSERT_TRUE(handle.keeps_product_lists());
  for (int round = 0; round < 3; ++round) {
    for (auto& v : ha.val) v = -0.5 * v + 0.25;
    Kokkos::deep_copy(A.values(), make_device_crs<Scalar, Exec>(ha).values());
    auto C = spgemm_numeric(exec, handle, A, B);
    exec.fence();
    EXPECT_TRUE(matches_product<Scalar>(to_host(C), host_product<Scalar>(ha, hb), true,
                                        "lists, new values, round " + std::to_string(round)));
  }
  // Where the lists would break the memory limit they are not kept (the positions are).
  SpgemmOptions tight = always;
  tight.memory_limit = handle.memory().peak_bytes - 1;
  auto t = check_spgemm<Scalar, Exec>(ha, hb, "lists over the limit", tight, false);
  EXPECT_FALSE(t.keeps_product_lists());
  EXPECT_LE(t.memory().peak_bytes, tight.memory_limit);
}

TYPED_TEST(SpgemmTest, WideOffsets) {
  using Scalar = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  check_spgemm<Scalar, Exec, std::int64_t>(random_crs(120, 90, 9, 0.1, 80, 15),
                                           random_crs(90, 130, 9, 0.1, 60, 16), "int64 offsets");
}

} // namespace
