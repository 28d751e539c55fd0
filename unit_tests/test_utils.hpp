// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_UNIT_TESTS_TEST_UTILS_HPP
#define SPMVKIT_UNIT_TESTS_TEST_UTILS_HPP

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/select/auto_matrix.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::test {

/// (value type, execution space) pairs every typed test runs over: double and
/// float on each enabled backend. Where a parallel host backend is enabled,
/// Serial is left out: its kernels are the same source as that backend's run
/// by one thread (the suite runs again with OMP_NUM_THREADS=1), and its
/// instantiations were a third of the suite's build on CI's two cores.
/// core/test_serial_backend.cpp keeps Serial compiled and run there (every
/// format's SpMV, a CG solve).
template <class Scalar, class Exec>
struct Config {
  using value_type = Scalar;
  using execution_space = Exec;
};

template <class Tuple>
struct to_gtest_types;
template <class... Ts>
struct to_gtest_types<std::tuple<Ts...>> {
  using type = ::testing::Types<Ts...>;
};

using AllConfigTuple = decltype(std::tuple_cat(
#if defined(KOKKOS_ENABLE_SERIAL) && !defined(KOKKOS_ENABLE_OPENMP) &&                             \
    !defined(KOKKOS_ENABLE_THREADS)
    std::tuple<Config<double, Kokkos::Serial>, Config<float, Kokkos::Serial>>{},
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    std::tuple<Config<double, Kokkos::OpenMP>, Config<float, Kokkos::OpenMP>>{},
#endif
#ifdef KOKKOS_ENABLE_THREADS
    std::tuple<Config<double, Kokkos::Threads>, Config<float, Kokkos::Threads>>{},
#endif
#ifdef KOKKOS_ENABLE_CUDA
    std::tuple<Config<double, Kokkos::Cuda>, Config<float, Kokkos::Cuda>>{},
#endif
#ifdef KOKKOS_ENABLE_HIP
    std::tuple<Config<double, Kokkos::HIP>, Config<float, Kokkos::HIP>>{},
#endif
    std::tuple<>{}));
using AllConfigs = typename to_gtest_types<AllConfigTuple>::type;

/// A configuration and a format of spmvkit::format_list: tests typed over
/// FormatConfigs run for every format in the list without naming any.
template <class Scalar, class Exec, class Format>
struct FormatConfig : Config<Scalar, Exec> {
  using format = Format;
};

template <class Configs, class Formats>
struct cross_formats;
template <class... Cs, class... Fs>
struct cross_formats<std::tuple<Cs...>, type_list<Fs...>> {
  template <class C>
  using with_formats =
      std::tuple<FormatConfig<typename C::value_type, typename C::execution_space, Fs>...>;
  using type = decltype(std::tuple_cat(std::declval<with_formats<Cs>>()...));
};

// all_formats: every format of format_list and the automatic one (select/).
using FormatConfigs =
    typename to_gtest_types<typename cross_formats<AllConfigTuple, all_formats>::type>::type;

struct FormatConfigNames {
  template <class T>
  static std::string GetName(int) {
    return std::string(sizeof(typename T::value_type) == 8 ? "double_" : "float_") +
           T::execution_space::name() + "_" + T::format::family;
  }
};

/// The options a typed test runs a format with: every variant the format
/// sweeps, plus its defaults.
template <class Format, class Exec>
std::vector<typename Format::options_type> test_options() {
  auto v = Format::template variants<Exec>();
  v.insert(v.begin(), typename Format::options_type{});
  return v;
}

/// Options that build the same stored matrix as `built` again. The automatic
/// format's tune mode times its candidates, so two builds of one matrix may
/// choose differently on a loaded machine; naming the variant `built` chose
/// makes the second build deterministic. Every other format: `o` unchanged.
template <class Format, class M>
typename Format::options_type same_choice_options(M const& built, typename Format::options_type o) {
  if constexpr (std::is_same_v<Format, spmvkit::AutoFormat>) {
    o.candidates = {built.selection().format};
  }
  return o;
}

struct ConfigNames {
  template <class T>
  static std::string GetName(int i) {
    return std::string(sizeof(typename T::value_type) == 8 ? "double_" : "float_") +
           T::execution_space::name() + "_" + std::to_string(i);
  }
};

/// The optional matrix collection: $SPMVKIT_MATRIX_DIR if set, else the
/// configured SPMVKIT_MATRIX_DIR; empty when none was configured.
inline std::string optional_matrix_dir() {
  if (char const* env = std::getenv("SPMVKIT_MATRIX_DIR")) return env;
  return SPMVKIT_MATRIX_DIR;
}

/// A CRS matrix on the host, in plain vectors: what tests build, the serial
/// reference reads, and make_device_crs() uploads.
struct HostCrs {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> row_starts{0};
  std::vector<std::int64_t> col;
  std::vector<double> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(val.size()); }
};

/// Random sparse matrix: each row gets a length drawn from [0, max_row], some
/// rows are forced empty, and optionally one row is very long. Columns within
/// a row are distinct and sorted; values are in [-1, 1] and never zero.
inline HostCrs random_crs(std::int64_t rows, std::int64_t cols, int max_row, double empty_fraction,
                          std::int64_t long_row_length, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(0.05, 1.0);
  std::uniform_int_distribution<int> sign(0, 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  HostCrs A;
  A.rows = rows;
  A.cols = cols;
  const std::int64_t long_row = rows > 0 && long_row_length > 0 ? rows / 3 : -1;
  std::vector<std::int64_t> pick;
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t len = 0;
    if (i == long_row) {
      len = std::min(long_row_length, cols);
    } else if (cols > 0 && unit(gen) >= empty_fraction) {
      len = std::min<std::int64_t>(cols, std::uniform_int_distribution<int>(0, max_row)(gen));
    }
    pick.clear();
    if (len == 0) {
    } else if (len * 4 > cols) {
      // Dense-ish row: take a random subset by shuffling all columns.
      std::vector<std::int64_t> all(cols);
      for (std::int64_t c = 0; c < cols; ++c) all[c] = c;
      std::shuffle(all.begin(), all.end(), gen);
      pick.assign(all.begin(), all.begin() + len);
    } else {
      std::uniform_int_distribution<std::int64_t> column(0, cols - 1);
      // Sized up front: GCC 12 at -O3 otherwise warns (-Wstringop-overflow)
      // about the reallocation path of push_back, which it cannot bound.
      pick.resize(static_cast<std::size_t>(len));
      std::size_t filled = 0;
      while (filled < pick.size()) {
        const auto c = column(gen);
        if (std::find(pick.begin(), pick.begin() + filled, c) == pick.begin() + filled) {
          pick[filled++] = c;
        }
      }
    }
    std::sort(pick.begin(), pick.end());
    for (auto c : pick) {
      A.col.push_back(c);
      A.val.push_back(sign(gen) ? value(gen) : -value(gen));
    }
    A.row_starts.push_back(static_cast<std::int64_t>(A.col.size()));
  }
  return A;
}

/// Random matrix whose columns lie within [row - K, row + K] ∩ [0, cols):
/// lengths drawn from [0, max_row], some rows forced empty, and about a third
/// of the rows also get both ends of their band, so that offsets of exactly
/// ±K (the int16 limits when K = 32767) occur.
inline HostCrs banded_crs(std::int64_t rows, std::int64_t cols, std::int64_t K, int max_row,
                          double empty_fraction, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(0.05, 1.0), unit(0.0, 1.0);
  HostCrs A;
  A.rows = rows;
  A.cols = cols;
  std::vector<std::int64_t> pick;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t lo = std::max<std::int64_t>(0, i - K);
    const std::int64_t hi = std::min<std::int64_t>(cols - 1, i + K);
    pick.clear();
    if (lo <= hi && unit(gen) >= empty_fraction) {
      const std::int64_t len =
          std::min<std::int64_t>(hi - lo + 1, std::uniform_int_distribution<int>(0, max_row)(gen));
      std::uniform_int_distribution<std::int64_t> column(lo, hi);
      while (static_cast<std::int64_t>(pick.size()) < len) {
        const auto c = column(gen);
        if (std::find(pick.begin(), pick.end(), c) == pick.end()) pick.push_back(c);
      }
      if (len > 0 && unit(gen) < 0.3) {
        for (auto c : {lo, hi})
          if (std::find(pick.begin(), pick.end(), c) == pick.end()) pick.push_back(c);
      }
    }
    std::sort(pick.begin(), pick.end());
    for (auto c : pick) {
      A.col.push_back(c);
      A.val.push_back(unit(gen) < 0.5 ? value(gen) : -value(gen));
    }
    A.row_starts.push_back(static_cast<std::int64_t>(A.col.size()));
  }
  return A;
}

/// A matrix with the given (row, col) entries, sorted by row then column.
inline HostCrs from_entries(std::int64_t rows, std::int64_t cols,
                            std::vector<std::pair<std::int64_t, std::int64_t>> const& entries) {
  HostCrs h;
  h.rows = rows;
  h.cols = cols;
  h.row_starts.assign(static_cast<std::size_t>(rows + 1), 0);
  for (auto const& e : entries) ++h.row_starts[e.first + 1];
  for (std::int64_t i = 0; i < rows; ++i) h.row_starts[i + 1] += h.row_starts[i];
  for (auto const& e : entries) { // entries come sorted by (row, col)
    h.col.push_back(e.second);
    h.val.push_back(1.0 + 0.5 * static_cast<double>(h.col.size()));
  }
  return h;
}

template <class Scalar, class Exec, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, Exec, Ordinal, Offset> make_device_crs(HostCrs const& h) {
  CrsMatrix<Scalar, Exec, Ordinal, Offset> A("test", h.rows, h.cols, h.nnz());
  auto rs = Kokkos::create_mirror_view(A.row_starts());
  auto ci = Kokkos::create_mirror_view(A.column_indices());
  auto va = Kokkos::create_mirror_view(A.values());
  for (std::int64_t i = 0; i <= h.rows; ++i) rs(i) = static_cast<Offset>(h.row_starts[i]);
  for (std::int64_t k = 0; k < h.nnz(); ++k) {
    ci(k) = static_cast<Ordinal>(h.col[k]);
    va(k) = static_cast<Scalar>(h.val[k]);
  }
  Kokkos::deep_copy(A.row_starts(), rs);
  Kokkos::deep_copy(A.column_indices(), ci);
  Kokkos::deep_copy(A.values(), va);
  return A;
}

template <class Matrix>
HostCrs to_host(Matrix const& A) {
  HostCrs h;
  h.rows = A.num_rows();
  h.cols = A.num_cols();
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  h.row_starts.assign(rs.data(), rs.data() + rs.extent(0));
  h.col.assign(ci.data(), ci.data() + ci.extent(0));
  h.val.assign(va.data(), va.data() + va.extent(0));
  return h;
}

/// Aᵀ on the host: rows of A visited in order, so each row of Aᵀ lists A's rows in increasing
/// order and duplicates in A's storage order.
inline HostCrs host_transpose(HostCrs const& A) {
  HostCrs T;
  T.rows = A.cols;
  T.cols = A.rows;
  T.row_starts.assign(static_cast<std::size_t>(A.cols + 1), 0);
  for (auto c : A.col) ++T.row_starts[c + 1];
  for (std::int64_t j = 0; j < A.cols; ++j) T.row_starts[j + 1] += T.row_starts[j];
  T.col.resize(A.col.size());
  T.val.resize(A.val.size());
  std::vector<std::int64_t> next(T.row_starts.begin(), T.row_starts.end() - 1);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (std::int64_t k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
      const auto p = next[A.col[k]]++;
      T.col[p] = i;
      T.val[p] = A.val[k];
    }
  }
  return T;
}

template <class View>
View random_vector(std::int64_t n, unsigned seed, char const* label) {
  View v(std::string(label), static_cast<std::size_t>(n));
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) h(i) = static_cast<typename View::value_type>(d(gen));
  Kokkos::deep_copy(v, h);
  return v;
}

/// Random rank-2 View of `cols` columns, entries in [-1, 1).
template <class View>
View random_columns(std::int64_t rows, int cols, unsigned seed) {
  View v("columns", static_cast<std::size_t>(rows), static_cast<std::size_t>(cols));
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (int c = 0; c < cols; ++c) h(i, c) = static_cast<typename View::value_type>(d(gen));
  Kokkos::deep_copy(v, h);
  return v;
}

/// Serial reference y = beta*y0 + alpha*A*x in long double, with the error
/// bound each entry may carry in precision Scalar: a few ulps per term of the
/// row (Higham's bound for a dot product), scaled by the row's magnitude.
template <class Scalar>
struct Reference {
  std::vector<long double> y;
  std::vector<long double> bound;
};

template <class Scalar, class XH, class YH>
Reference<Scalar> reference_spmv(HostCrs const& A, double alpha, XH const& x, double beta,
                                 YH const& y0) {
  Reference<Scalar> r;
  r.y.resize(A.rows);
  r.bound.resize(A.rows);
  const long double eps = std::numeric_limits<Scalar>::epsilon();
  for (std::int64_t i = 0; i < A.rows; ++i) {
    long double sum = 0, mag = 0;
    for (std::int64_t k = A.row_starts[i]; k < A.row_starts[i + 1]; ++k) {
      const long double v = static_cast<Scalar>(A.val[k]);
      sum += v * static_cast<long double>(x(A.col[k]));
      mag += std::fabs(v * static_cast<long double>(x(A.col[k])));
    }
    const long double len = static_cast<long double>(A.row_starts[i + 1] - A.row_starts[i]);
    const long double yterm = beta == 0.0 ? 0.0L : static_cast<long double>(beta) * y0(i);
    r.y[i] = yterm + static_cast<long double>(alpha) * sum;
    r.bound[i] = 4 * eps * (len + 3) *
                     (std::fabs(yterm) + std::fabs(static_cast<long double>(alpha)) * mag) +
                 std::numeric_limits<Scalar>::min();
  }
  return r;
}

/// Compares a device result with the reference; on failure reports how many
/// entries differ and the first few, with their bounds.
template <class Scalar, class YView>
::testing::AssertionResult matches_reference(YView const& y, Reference<Scalar> const& ref) {
  if (y.extent(0) != ref.y.size()) {
    return ::testing::AssertionFailure()
           << "y has " << y.extent(0) << " entries, the reference " << ref.y.size();
  }
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::ostringstream os;
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < ref.y.size(); ++i) {
    const long double got = h(i);
    const bool ok =
        std::isfinite(static_cast<double>(got)) && std::fabs(got - ref.y[i]) <= ref.bound[i];
    if (!ok) {
      if (bad < 8) {
        os << "\n  y(" << i << ") = " << static_cast<double>(got) << ", expected "
           << static_cast<double>(ref.y[i]) << " +- " << static_cast<double>(ref.bound[i]);
      }
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << ref.y.size() << " entries differ:" << os.str();
}

} // namespace spmvkit::test

#endif
