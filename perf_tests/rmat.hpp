// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_RMAT_HPP
#define SPMVKIT_PERF_RMAT_HPP

#include <cstdint>
#include <vector>

namespace spmvkit::perf {

/// A host CRS matrix with 32-bit indices (the benchmarks' Ordinal/Offset = int).
struct HostCrsGraph {
  std::int64_t rows = 0;
  std::vector<int> row_starts; // rows + 1
  std::vector<int> cols;       // sorted, unique within each row
  std::vector<double> values;  // uniform in [-1, 1] \ {0}, a hash of (row, col, seed)
};

/// R-MAT power-law graph (Chakrabarti, Zhan, Faloutsos 2004) as a 2^scale x 2^scale matrix:
/// edge_factor * 2^scale edges, each placed by `scale` recursive quadrant choices with
/// probabilities a, b, c, d = 1 - a - b - c; duplicates are removed. Counter-based random
/// numbers (a hash of seed and edge index) make the result independent of the thread count;
/// generation runs on std::thread::hardware_concurrency() host threads.
HostCrsGraph generate_rmat(int scale, int edge_factor, std::uint64_t seed, double a = 0.57,
                           double b = 0.19, double c = 0.19);

} // namespace spmvkit::perf

#endif
