// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_ROW_BLOCKS_HPP
#define SPMVKIT_CORE_DETAIL_ROW_BLOCKS_HPP

// Element-wise reductions that also store (s = r − α v with ‖s‖², ...), run by
// blocks of rows on host spaces. Kokkos' host backends hand the functor a
// reference into the thread's reduction buffer; the stores may alias it, so
// the compiler keeps the sum in memory and every row waits on a store-to-load
// chain: 4-5 times the time of the same loop over a local sum
// (docs/notes/2026-11-30-host-blocked-reductions.md). GPUs keep one row per
// thread, adding into the reduction value directly as before.

#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace spmvkit::detail {

/// Rows per work item of reduce_rows(): a block on host spaces, one row on GPUs.
template <class ExecutionSpace>
constexpr std::int64_t reduce_rows_block() {
  return is_host_space_v<ExecutionSpace> ? 2048 : 1;
}

/// f(i, sum) for the rows of work item c, summed in a local.
template <class F, std::int64_t Block>
struct RowBlockSum {
  F f;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, double& sum) const {
    if constexpr (Block == 1) {
      f(c, sum);
    } else {
      const std::int64_t begin = c * Block, end = begin + Block < n ? begin + Block : n;
      double local = 0;
      for (std::int64_t i = begin; i < end; ++i) f(i, local);
      sum += local;
    }
  }
};

/// The same for Count sums (f(i, sums) with sums an array).
template <class F, std::int64_t Block, unsigned Count>
struct RowBlockSums {
  using value_type = double[];
  F f;
  std::int64_t n;
  unsigned value_count = Count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, value_type sums) const {
    if constexpr (Block == 1) {
      f(c, sums);
    } else {
      const std::int64_t begin = c * Block, end = begin + Block < n ? begin + Block : n;
      double local[Count] = {};
      for (std::int64_t i = begin; i < end; ++i) f(i, local);
      for (unsigned k = 0; k < Count; ++k) sums[k] += local[k];
    }
  }
};

template <class ExecutionSpace>
auto reduce_rows_policy(ExecutionSpace const& exec, std::int64_t n) {
  constexpr std::int64_t block = reduce_rows_block<ExecutionSpace>();
  return Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
      exec, 0, (n + block - 1) / block);
}

/// sum = Σ of what f(i, double& sum) adds for the rows i of [0, n), on `exec`
/// (asynchronous as Kokkos::parallel_reduce into a host scalar: it fences).
template <class ExecutionSpace, class F>
void reduce_rows(std::string const& label, ExecutionSpace const& exec, std::int64_t n, F const& f,
                 double& sum) {
  constexpr std::int64_t block = reduce_rows_block<ExecutionSpace>();
  Kokkos::parallel_reduce(label, reduce_rows_policy(exec, n), RowBlockSum<F, block>{f, n}, sum);
}

/// The same for a functor with Count sums (value_type double[], f(i, sums)).
template <class ExecutionSpace, class F, unsigned Count>
void reduce_rows(std::string const& label, ExecutionSpace const& exec, std::int64_t n, F const& f,
                 double (&sums)[Count]) {
  constexpr std::int64_t block = reduce_rows_block<ExecutionSpace>();
  Kokkos::parallel_reduce(label, reduce_rows_policy(exec, n), RowBlockSums<F, block, Count>{f, n},
                          sums);
}

} // namespace spmvkit::detail

#endif
