// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_UNIT_TESTS_DISTRIBUTED_MPI_TEST_UTILS_HPP
#define SPMVKIT_UNIT_TESTS_DISTRIBUTED_MPI_TEST_UTILS_HPP

// Helpers of the distributed tests: test matrices every rank builds whole (the
// single-rank reference), their slabs for make_distributed_matrix, partitions
// and cross-rank checks.
#include "test_utils.hpp"

#include <spmvkit/distributed/distributed.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace spmvkit::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Whether every rank passes the same value.
inline bool same_on_all_ranks(std::int64_t value) {
  std::int64_t low = 0, high = 0;
  MPI_Allreduce(&value, &low, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &high, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return low == high;
}

/// Whether every rank holds the same text.
inline bool same_text_on_all_ranks(std::string const& text) {
  return same_on_all_ranks(static_cast<std::int64_t>(std::hash<std::string>{}(text) >> 1)) &&
         same_on_all_ranks(static_cast<std::int64_t>(text.size()));
}

/// Host CRS of an irregular nonsymmetric square matrix: short and long rows, an
/// empty row, columns all over (every rank talks to every other), a dominant
/// diagonal.
inline HostCrs irregular_matrix(std::int64_t n) {
  HostCrs h;
  h.rows = h.cols = n;
  for (std::int64_t i = 0; i < n; ++i) {
    std::map<std::int64_t, double> row; // sorted, distinct columns
    if (i != n / 2) {                   // row n/2 stays empty
      const std::int64_t extra = (i * 7) % 11 == 0 ? 25 : (i % 5);
      row[i] = 30.0 + static_cast<double>(i % 3);
      for (std::int64_t k = 0; k < extra; ++k) {
        const std::int64_t c = (i * 13 + k * 37 + 5) % n;
        if (c != i) row[c] = -0.5 - 0.01 * static_cast<double>((i + k) % 17);
      }
    }
    for (auto const& [c, v] : row) {
      h.col.push_back(c);
      h.val.push_back(v);
    }
    h.row_starts.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

/// Host CRS with two uncoupled diagonal blocks, [0, split) and [split, n):
/// with a split of the partition at `split`, the ranks of the first block
/// receive nothing from the others.
inline HostCrs two_block_matrix(std::int64_t n, std::int64_t split) {
  HostCrs h;
  h.rows = h.cols = n;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t lo = i < split ? 0 : split, hi = i < split ? split : n;
    for (std::int64_t c = i - 2; c <= i + 2; ++c) {
      if (c < lo || c >= hi) continue;
      h.col.push_back(c);
      h.val.push_back(c == i ? 4.0 : -1.0 + 0.1 * static_cast<double>(c - i));
    }
    h.row_starts.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

/// The rows [first, first + m) of h as a slab source on Exec.
template <class Scalar, class Exec>
auto slab_of(HostCrs const& h, std::int64_t first, std::int64_t m) {
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  Kokkos::View<std::int64_t*, Device> rs("test::slab_row_starts", m + 1);
  const std::int64_t begin = h.row_starts[first], nnz = h.row_starts[first + m] - begin;
  Kokkos::View<std::int64_t*, Device> cs("test::slab_columns", nnz);
  Kokkos::View<Scalar*, Device> vs("test::slab_values", nnz);
  auto rh = Kokkos::create_mirror_view(rs);
  auto ch = Kokkos::create_mirror_view(cs);
  auto vh = Kokkos::create_mirror_view(vs);
  for (std::int64_t i = 0; i <= m; ++i) rh(i) = h.row_starts[first + i] - begin;
  for (std::int64_t k = 0; k < nnz; ++k) {
    ch(k) = h.col[begin + k];
    vh(k) = static_cast<Scalar>(h.val[begin + k]);
  }
  Kokkos::deep_copy(rs, rh);
  Kokkos::deep_copy(cs, ch);
  Kokkos::deep_copy(vs, vh);
  return detail::CrsSlab<Scalar, Device>{rs, cs, vs};
}

/// Offsets with one row on rank 0, the rest split unevenly (rank r gets about
/// r + 1 shares): "one row on a rank" and "uneven" at once.
inline std::vector<std::int64_t> uneven_offsets(std::int64_t n, int p) {
  std::vector<std::int64_t> o(static_cast<std::size_t>(p) + 1, 0);
  if (p == 1) {
    o[1] = n;
    return o;
  }
  o[1] = 1;
  std::int64_t shares = 0;
  for (int r = 1; r < p; ++r) shares += r + 1;
  std::int64_t at = 1, used = 0;
  for (int r = 1; r < p; ++r) {
    used += r + 1;
    at = r == p - 1 ? n : 1 + (n - 1) * used / shares;
    o[static_cast<std::size_t>(r) + 1] = at;
  }
  return o;
}

/// x(i) for global row i: reproducible on every rank and partition.
inline double test_x(std::int64_t i) {
  return 0.5 + 0.25 * static_cast<double>((i * 2654435761LL) % 97) / 97.0;
}

/// This rank's part of the global vector with entries f(global row).
template <class Vector>
Vector local_vector(RowPartition const& part, std::function<double(std::int64_t)> const& f) {
  Vector v("test::local_vector", part.local_rows());
  auto h = Kokkos::create_mirror_view(v);
  for (std::int64_t i = 0; i < part.local_rows(); ++i) {
    h(i) = static_cast<typename Vector::value_type>(f(part.first_row() + i));
  }
  Kokkos::deep_copy(v, h);
  return v;
}

} // namespace spmvkit::test

#endif
