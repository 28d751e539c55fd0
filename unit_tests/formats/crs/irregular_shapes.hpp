// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_UNIT_TESTS_FORMATS_CRS_IRREGULAR_SHAPES_HPP
#define SPMVKIT_UNIT_TESTS_FORMATS_CRS_IRREGULAR_SHAPES_HPP

// Pathological row-length distributions for the load-balanced kernels (the
// balanced CRS kernel, COO, HYB) and a checker of y = beta y + alpha A x
// against the long-double reference.
#include "test_utils.hpp"

#include <spmvkit/operations/spmv.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit::test {

/// A matrix with the given row lengths: a row at least a quarter as long as
/// the matrix is wide takes evenly spaced columns, a shorter one random
/// distinct columns; values in +-[0.05, 1].
inline HostCrs from_row_lengths(std::vector<std::int64_t> const& lengths, std::int64_t cols,
                                unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(0.05, 1.0), unit(0.0, 1.0);
  HostCrs h;
  h.rows = static_cast<std::int64_t>(lengths.size());
  h.cols = cols;
  std::vector<std::int64_t> pick;
  for (auto len : lengths) {
    len = std::min(len, cols);
    pick.clear();
    if (len * 4 >= cols) {
      for (std::int64_t k = 0; k < len; ++k)
        pick.push_back(k * cols / std::max<std::int64_t>(1, len));
    } else {
      // Draw, sort, drop repeats, draw the missing ones again.
      std::uniform_int_distribution<std::int64_t> column(0, cols - 1);
      while (static_cast<std::int64_t>(pick.size()) < len) {
        for (auto k = static_cast<std::int64_t>(pick.size()); k < len; ++k)
          pick.push_back(column(gen));
        std::sort(pick.begin(), pick.end());
        pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
      }
    }
    for (auto c : pick) {
      h.col.push_back(c);
      h.val.push_back(unit(gen) < 0.5 ? value(gen) : -value(gen));
    }
    h.row_starts.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

/// The shapes of issue 12, each a way to starve a row-owned kernel or to
/// break a tiled one. `huge`: also rows of 10^5 and 10^6 entries side by
/// side with empty ones (1.2M nonzeros, a second or so per product check).
inline std::vector<std::pair<std::string, HostCrs>> irregular_shapes(bool huge) {
  std::vector<std::pair<std::string, HostCrs>> shapes;
  unsigned seed = 1200;
  {
    std::vector<std::int64_t> len(3000, 2);
    len[1234] = 3000; // one dense row among short ones
    shapes.push_back({"one_dense_row", from_row_lengths(len, 3000, ++seed)});
  }
  {
    std::vector<std::int64_t> len(2500, 0);
    len[0] = 2500; // a dense first row, nothing else
    shapes.push_back({"dense_first_row_only", from_row_lengths(len, 2500, ++seed)});
  }
  {
    std::vector<std::int64_t> len(4000, 0);
    len.back() = 4000;
    shapes.push_back({"all_nonzeros_in_last_row", from_row_lengths(len, 4000, ++seed)});
  }
  {
    std::vector<std::int64_t> len(150000, 0);
    std::mt19937_64 gen(++seed);
    for (int i = 0; i < 60; ++i) len[gen() % len.size()] = 1 + static_cast<std::int64_t>(gen() % 9);
    shapes.push_back({"many_empty_rows", from_row_lengths(len, 500, ++seed)});
  }
  shapes.push_back({"single_row", from_row_lengths({9000}, 9000, ++seed)});
  {
    std::vector<std::int64_t> len(7000);
    for (std::size_t i = 0; i < len.size(); ++i) len[i] = i % 3 != 0 ? 1 : 0;
    shapes.push_back({"single_column", from_row_lengths(len, 1, ++seed)});
  }
  {
    // Power-law lengths (Zipf-like): most rows short, a few very long.
    std::vector<std::int64_t> len(20000);
    std::mt19937_64 gen(++seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (auto& l : len)
      l = static_cast<std::int64_t>(std::min(8000.0, 1.0 / std::pow(u(gen), 1.3)));
    shapes.push_back({"power_law", from_row_lengths(len, 20000, ++seed)});
  }
  if (huge) {
    std::vector<std::int64_t> len = {0, 1000000, 0, 0, 100000, 3, 0, 100000, 0};
    shapes.push_back({"rows_of_0_1e5_1e6", from_row_lengths(len, 1000000, ++seed)});
  }
  return shapes;
}

struct AlphaBeta {
  double alpha, beta;
};
/// beta = 0 runs over a y full of NaN: y must not be read.
inline std::vector<AlphaBeta> alpha_beta_cases() {
  return {{1.0, 0.0}, {2.5, -1.5}, {-1.0, 1.0}, {0.75, 0.0}, {0.0, 2.0}, {0.0, 0.0}};
}

/// Runs `product(y)` (y = beta y + alpha A x for the given x) and checks it
/// against the reference; y starts as y0, or NaN when beta == 0.
template <class Scalar, class V, class Product>
::testing::AssertionResult check_product(V const& y0, double beta, Reference<Scalar> const& ref,
                                         Product&& product) {
  V y("y", y0.extent(0));
  if (beta == 0.0) {
    Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  } else {
    Kokkos::deep_copy(y, y0);
  }
  product(y);
  Kokkos::fence();
  return matches_reference<Scalar>(y, ref);
}

} // namespace spmvkit::test

#endif
