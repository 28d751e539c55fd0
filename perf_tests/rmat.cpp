// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "rmat.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace spmvkit::perf {

namespace {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Uniform double in [0, 1) from 53 random bits.
inline double to_unit(std::uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-53; }

/// Runs f(begin, end) over [0, n) split across the host threads.
template <class F>
void parallel_ranges(std::int64_t n, F&& f) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t threads = std::min<std::int64_t>(hw, std::max<std::int64_t>(1, n / 4096));
  if (threads <= 1) {
    f(std::int64_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t begin = n * t / threads, end = n * (t + 1) / threads;
    pool.emplace_back([&f, begin, end] { f(begin, end); });
  }
  for (auto& th : pool) th.join();
}

} // namespace

HostCrsGraph generate_rmat(int scale, int edge_factor, std::uint64_t seed, double a, double b,
                           double c) {
  if (scale < 1 || scale > 30 || edge_factor < 1) {
    throw std::invalid_argument("spmvkit_perf: R-MAT needs 1 <= scale <= 30 and edge factor >= 1");
  }
  const std::int64_t n = std::int64_t(1) << scale;
  const std::int64_t m = n * edge_factor;
  if (m > std::int64_t(2000000000)) {
    throw std::invalid_argument("spmvkit_perf: R-MAT with " + std::to_string(m) +
                                " edges does not fit 32-bit offsets");
  }
  const double ab = a + b, abc = a + b + c;

  // 1. Edges, each from its own counter-based stream.
  std::vector<int> src(static_cast<std::size_t>(m)), dst(static_cast<std::size_t>(m));
  parallel_ranges(m, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t e = begin; e < end; ++e) {
      std::uint64_t state = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(e)));
      std::int64_t row = 0, col = 0;
      for (int level = 0; level < scale; ++level) {
        state = splitmix64(state);
        const double u = to_unit(state);
        const int down = u >= ab;                         // c or d
        const int right = (u >= a && u < ab) || u >= abc; // b or d
        row = 2 * row + down;
        col = 2 * col + right;
      }
      src[static_cast<std::size_t>(e)] = static_cast<int>(row);
      dst[static_cast<std::size_t>(e)] = static_cast<int>(col);
    }
  });

  // 2. Bucket by row (counting sort; the order inside a row is fixed by step 3).
  std::unique_ptr<std::atomic<int>[]> count(new std::atomic<int>[static_cast<std::size_t>(n)]);
  for (std::int64_t i = 0; i < n; ++i) count[i].store(0, std::memory_order_relaxed);
  parallel_ranges(m, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t e = begin; e < end; ++e) {
      count[src[static_cast<std::size_t>(e)]].fetch_add(1, std::memory_order_relaxed);
    }
  });
  std::vector<std::int64_t> start(static_cast<std::size_t>(n + 1), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    start[static_cast<std::size_t>(i + 1)] =
        start[static_cast<std::size_t>(i)] + count[i].load(std::memory_order_relaxed);
    count[i].store(0, std::memory_order_relaxed);
  }
  std::vector<int> bucket(static_cast<std::size_t>(m));
  parallel_ranges(m, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t e = begin; e < end; ++e) {
      const int r = src[static_cast<std::size_t>(e)];
      const int slot = count[r].fetch_add(1, std::memory_order_relaxed);
      bucket[static_cast<std::size_t>(start[static_cast<std::size_t>(r)] + slot)] =
          dst[static_cast<std::size_t>(e)];
    }
  });
  src.clear();
  src.shrink_to_fit();
  dst.clear();
  dst.shrink_to_fit();

  // 3. Sort and deduplicate each row.
  std::vector<int> unique_length(static_cast<std::size_t>(n));
  parallel_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      auto first = bucket.begin() + start[static_cast<std::size_t>(r)];
      auto last = bucket.begin() + start[static_cast<std::size_t>(r + 1)];
      std::sort(first, last);
      unique_length[static_cast<std::size_t>(r)] =
          static_cast<int>(std::unique(first, last) - first);
    }
  });

  // 4. Compact into CRS with values.
  HostCrsGraph g;
  g.rows = n;
  g.row_starts.assign(static_cast<std::size_t>(n + 1), 0);
  for (std::int64_t r = 0; r < n; ++r) {
    g.row_starts[static_cast<std::size_t>(r + 1)] =
        g.row_starts[static_cast<std::size_t>(r)] + unique_length[static_cast<std::size_t>(r)];
  }
  const std::int64_t nnz = g.row_starts[static_cast<std::size_t>(n)];
  g.cols.resize(static_cast<std::size_t>(nnz));
  g.values.resize(static_cast<std::size_t>(nnz));
  parallel_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const std::int64_t in = start[static_cast<std::size_t>(r)];
      const std::int64_t out = g.row_starts[static_cast<std::size_t>(r)];
      for (int j = 0; j < unique_length[static_cast<std::size_t>(r)]; ++j) {
        const int col = bucket[static_cast<std::size_t>(in + j)];
        g.cols[static_cast<std::size_t>(out + j)] = col;
        const std::uint64_t h = splitmix64(seed ^ splitmix64((static_cast<std::uint64_t>(r) << 32) |
                                                             static_cast<std::uint32_t>(col)));
        // Uniform in [-1, 1], never exactly zero.
        const double v = 2.0 * to_unit(h) - 1.0;
        g.values[static_cast<std::size_t>(out + j)] = v == 0.0 ? 0.5 : v;
      }
    }
  });
  return g;
}

} // namespace spmvkit::perf
