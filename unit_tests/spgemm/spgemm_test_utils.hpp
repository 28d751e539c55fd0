// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_UNIT_TESTS_SPGEMM_SPGEMM_TEST_UTILS_HPP
#define SPMVKIT_UNIT_TESTS_SPGEMM_SPGEMM_TEST_UTILS_HPP

// What the SpGEMM tests share: the long-double reference product and its
// comparison with C, the test matrices (R-MAT-like graphs, rows long enough
// for every accumulator, the shipped real matrices), the strategy each option
// must end up with, and check_spgemm, which runs one product through a handle.
#include "test_utils.hpp"

#include <spmvkit/spgemm/spgemm.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// The two phases of every configuration of AllConfigs (int ordinals and
// offsets) are compiled once, in test_spgemm.cpp, which defines
// SPMVKIT_SPGEMM_TEST_INSTANTIATE before including this header: the other
// files of this folder declare them extern, which saves two thirds of each
// one's compile time. (Link them with test_spgemm.cpp.)
#define SPMVKIT_SPGEMM_TEST_PHASES(KEYWORD, S, E)                                                  \
  KEYWORD void spmvkit::detail::spgemm_symbolic_phase<S, E, int, int>(                             \
      E const&, spmvkit::SpgemmOptions const&, spmvkit::detail::SpgemmState<S, E, int, int>&,      \
      spmvkit::CrsMatrix<S, E, int, int> const&, spmvkit::CrsMatrix<S, E, int, int> const&);       \
  KEYWORD void spmvkit::detail::spgemm_numeric_phase<S, E, int, int>(                              \
      E const&, spmvkit::SpgemmOptions const&, spmvkit::detail::SpgemmState<S, E, int, int>&,      \
      spmvkit::CrsMatrix<S, E, int, int> const&, spmvkit::CrsMatrix<S, E, int, int> const&);
// The backends of AllConfigTuple (test_utils.hpp), double and float each.
#if defined(KOKKOS_ENABLE_SERIAL) && !defined(KOKKOS_ENABLE_OPENMP) &&                             \
    !defined(KOKKOS_ENABLE_THREADS)
#define SPMVKIT_SPGEMM_TEST_SERIAL(K)                                                              \
  SPMVKIT_SPGEMM_TEST_PHASES(K, double, Kokkos::Serial)                                            \
  SPMVKIT_SPGEMM_TEST_PHASES(K, float, Kokkos::Serial)
#else
#define SPMVKIT_SPGEMM_TEST_SERIAL(K)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
#define SPMVKIT_SPGEMM_TEST_OPENMP(K)                                                              \
  SPMVKIT_SPGEMM_TEST_PHASES(K, double, Kokkos::OpenMP)                                            \
  SPMVKIT_SPGEMM_TEST_PHASES(K, float, Kokkos::OpenMP)
#else
#define SPMVKIT_SPGEMM_TEST_OPENMP(K)
#endif
#ifdef KOKKOS_ENABLE_THREADS
#define SPMVKIT_SPGEMM_TEST_THREADS(K)                                                             \
  SPMVKIT_SPGEMM_TEST_PHASES(K, double, Kokkos::Threads)                                           \
  SPMVKIT_SPGEMM_TEST_PHASES(K, float, Kokkos::Threads)
#else
#define SPMVKIT_SPGEMM_TEST_THREADS(K)
#endif
#ifdef KOKKOS_ENABLE_CUDA
#define SPMVKIT_SPGEMM_TEST_CUDA(K)                                                                \
  SPMVKIT_SPGEMM_TEST_PHASES(K, double, Kokkos::Cuda)                                              \
  SPMVKIT_SPGEMM_TEST_PHASES(K, float, Kokkos::Cuda)
#else
#define SPMVKIT_SPGEMM_TEST_CUDA(K)
#endif
#ifdef KOKKOS_ENABLE_HIP
#define SPMVKIT_SPGEMM_TEST_HIP(K)                                                                 \
  SPMVKIT_SPGEMM_TEST_PHASES(K, double, Kokkos::HIP)                                               \
  SPMVKIT_SPGEMM_TEST_PHASES(K, float, Kokkos::HIP)
#else
#define SPMVKIT_SPGEMM_TEST_HIP(K)
#endif
#define SPMVKIT_SPGEMM_TEST_ALL_PHASES(K)                                                          \
  SPMVKIT_SPGEMM_TEST_SERIAL(K)                                                                    \
  SPMVKIT_SPGEMM_TEST_OPENMP(K)                                                                    \
  SPMVKIT_SPGEMM_TEST_THREADS(K)                                                                   \
  SPMVKIT_SPGEMM_TEST_CUDA(K)                                                                      \
  SPMVKIT_SPGEMM_TEST_HIP(K)
#ifdef SPMVKIT_SPGEMM_TEST_INSTANTIATE
SPMVKIT_SPGEMM_TEST_ALL_PHASES(template)
#else
SPMVKIT_SPGEMM_TEST_ALL_PHASES(extern template)
#endif

namespace spmvkit::test {

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

/// R-MAT-like graph (recursive quadrant choices 0.57/0.19/0.19/0.05),
/// duplicates removed, values in [-1, 1] without zero.
inline HostCrs rmat_like(int scale, int edge_factor, unsigned seed) {
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

/// The Matrix Market files shipped with the tests.
inline std::vector<std::string> shipped_matrices() {
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

// Rows long enough for each accumulator on every backend: a row of A that
// reads 150 rows of B of 100 entries each has a bound of 15000 (over 10^4
// distinct columns), beyond the scratch hash table; with 20000 columns B fits
// the dense tiles, with 300000 it does not and the row goes to the global
// pool (with 9000, on GPUs, to the global pool's dense arrays).
inline std::pair<HostCrs, HostCrs> long_row_product(std::int64_t n) {
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

struct NoWork {
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const&) const {}
};

/// The largest team SpgemmOptions::team_size runs the concurrent path with in
/// these tests: as many threads as the backend allows, at most 4.
template <class Exec>
int most_test_team() {
  return std::min(
      4, Kokkos::TeamPolicy<Exec>(Exec(), 1, 1).team_size_max(NoWork{}, Kokkos::ParallelForTag()));
}

/// Options naming the strategies (everything else default).
inline SpgemmOptions spgemm_options(SpgemmNumeric numeric,
                                    SpgemmSymbolic symbolic = SpgemmSymbolic::automatic,
                                    int team_size = 0, bool sort_columns = true) {
  SpgemmOptions o;
  o.numeric = numeric;
  o.symbolic = symbolic;
  o.team_size = team_size;
  o.sort_columns = sort_columns;
  return o;
}

/// sum over a_ik of nnz(B row k).
inline std::int64_t count_multiply_adds(HostCrs const& A, HostCrs const& B) {
  std::int64_t multiply_adds = 0;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
      multiply_adds += B.row_starts[A.col[k] + 1] - B.row_starts[A.col[k]];
    }
  }
  return multiply_adds;
}

inline std::int64_t longest_row(HostCrs const& h) {
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < h.rows; ++i) {
    longest = std::max(longest, h.row_starts[i + 1] - h.row_starts[i]);
  }
  return longest;
}

/// The numeric strategy that an explicit choice must end up with where the
/// memory allows it: hash for unsorted columns and products without any
/// multiply-add, positions for `entries` where a row of B is longer than 2048.
/// automatic where the library decides (the caller checks the bounds of that).
inline SpgemmNumeric expected_numeric(SpgemmOptions const& o, HostCrs const& A, HostCrs const& B) {
  if (o.numeric == SpgemmNumeric::hash || !o.sort_columns || count_multiply_adds(A, B) == 0) {
    return SpgemmNumeric::hash;
  }
  if (o.numeric == SpgemmNumeric::entries && longest_row(B) > 2048) {
    return SpgemmNumeric::positions;
  }
  return o.numeric;
}

/// The symbolic accumulators an explicit choice must end up with where the
/// memory allows it: the workspace on host backends only, never with a team
/// size (the concurrent path), and only where A has rows and B columns.
template <class Exec>
SpgemmSymbolic expected_symbolic(SpgemmOptions const& o, HostCrs const& A, HostCrs const& B) {
  if (o.symbolic == SpgemmSymbolic::automatic) return SpgemmSymbolic::automatic;
  const bool workspace = detail::is_host_space_v<Exec> && o.symbolic == SpgemmSymbolic::workspace &&
                         o.team_size == 0 && A.rows > 0 && B.cols > 0;
  return workspace ? SpgemmSymbolic::workspace : SpgemmSymbolic::accumulators;
}

inline std::string strategy_name(SpgemmOptions const& o) {
  std::string s =
      std::string("symbolic ") + to_string(o.symbolic) + ", numeric " + to_string(o.numeric);
  if (o.team_size > 0) s += ", team of " + std::to_string(o.team_size);
  if (!o.sort_columns) s += ", unsorted";
  return s;
}

/// One product through a handle with `options` against the reference `ref`
/// of ha hb: C's structure and values, the multiply-adds, the memory, and,
/// without an explicit memory limit, the strategies the options ask for
/// (so that a choice silently falling back fails). Where the numeric phase
/// went by entry of A and `rows_too`, the positions' row and chunk kernels
/// on the same product as well. Returns the handle for further checks.
template <class Scalar, class Exec, class Offset>
SpgemmHandle<Scalar, Exec, int, Offset>
check_product(CrsMatrix<Scalar, Exec, int, Offset> const& A,
              CrsMatrix<Scalar, Exec, int, Offset> const& B, HostCrs const& ha, HostCrs const& hb,
              HostProduct<Scalar> const& ref, std::string const& what, SpgemmOptions const& options,
              bool rows_too = true) {
  const Exec exec;
  SpgemmHandle<Scalar, Exec, int, Offset> handle(options);
  EXPECT_EQ(handle.numeric_algorithm(), SpgemmNumeric::automatic) << what;
  spgemm_symbolic(exec, handle, A, B);
  EXPECT_TRUE(handle.has_structure());
  EXPECT_EQ(handle.nnz(), ref.C.nnz()) << what;
  auto C = spgemm_numeric(exec, handle, A, B);
  exec.fence();
  EXPECT_NO_THROW(check_structure(exec, C)) << what;
  EXPECT_TRUE(matches_product<Scalar>(to_host(C), ref, options.sort_columns, what));
  EXPECT_EQ(handle.multiply_adds(), count_multiply_adds(ha, hb)) << what;
  EXPECT_GE(handle.memory().peak_bytes, handle.memory().output_bytes) << what;
  const SpgemmNumeric numeric = handle.numeric_algorithm();
  EXPECT_NE(numeric, SpgemmNumeric::automatic) << what;
  EXPECT_NE(handle.symbolic_algorithm(), SpgemmSymbolic::automatic) << what;
  EXPECT_EQ(handle.keeps_positions(), numeric != SpgemmNumeric::hash) << what;
  EXPECT_EQ(handle.keeps_product_lists(), numeric == SpgemmNumeric::product_lists) << what;
  if (options.memory_limit == 0) {
    const SpgemmNumeric n = expected_numeric(options, ha, hb);
    if (n != SpgemmNumeric::automatic) {
      EXPECT_EQ(numeric, n) << what << ": numeric " << to_string(numeric) << ", asked for "
                            << to_string(options.numeric);
    } else {
      // automatic: positions or hash (by the positions' size), entries on GPUs only.
      EXPECT_NE(numeric, SpgemmNumeric::product_lists) << what;
      if (detail::is_host_space_v<Exec> || options.team_size > 0) {
        EXPECT_NE(numeric, SpgemmNumeric::entries) << what;
      }
    }
    const SpgemmSymbolic s = expected_symbolic<Exec>(options, ha, hb);
    if (s != SpgemmSymbolic::automatic) {
      EXPECT_EQ(handle.symbolic_algorithm(), s)
          << what << ": symbolic " << to_string(handle.symbolic_algorithm()) << ", asked for "
          << to_string(options.symbolic);
    }
  }
  if (rows_too && numeric == SpgemmNumeric::entries) {
    SpgemmOptions o = options;
    o.numeric = SpgemmNumeric::positions;
    SpgemmHandle<Scalar, Exec, int, Offset> rows(o);
    spgemm_symbolic(exec, rows, A, B);
    EXPECT_EQ(rows.numeric_algorithm(), SpgemmNumeric::positions) << what;
    auto D = spgemm_numeric(exec, rows, A, B);
    exec.fence();
    EXPECT_TRUE(matches_product<Scalar>(to_host(D), ref, options.sort_columns, what + ", rows"));
  }
  return handle;
}

/// check_product for host matrices.
template <class Scalar, class Exec, class Offset = int>
SpgemmHandle<Scalar, Exec, int, Offset> check_spgemm(HostCrs const& ha, HostCrs const& hb,
                                                     std::string const& what,
                                                     SpgemmOptions const& options = {}) {
  return check_product<Scalar, Exec, Offset>(make_device_crs<Scalar, Exec, int, Offset>(ha),
                                             make_device_crs<Scalar, Exec, int, Offset>(hb), ha, hb,
                                             host_product<Scalar>(ha, hb), what, options);
}

} // namespace spmvkit::test

#endif
