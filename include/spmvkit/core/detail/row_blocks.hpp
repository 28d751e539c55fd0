// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_ROW_BLOCKS_HPP
#define SPMVKIT_CORE_DETAIL_ROW_BLOCKS_HPP

// Element-wise reductions that also store (s = r − α v with ‖s‖², ...), run by
// blocks of rows on host spaces. Kokkos' host backends hand the functor a
// reference into the thread's reduction buffer; the stores may alias it, so
// the compiler keeps the sum in memory and every row waits on a store-to-load
// chain, where a block summing into a local does not (measured in
// docs/notes/2026-11-30-host-blocked-reductions.md). GPUs keep one row per
// thread and the policy they had, adding into the reduction value directly.

#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// Rows per work item of reduce_rows() on a host space of `threads` threads:
/// about eight items per thread, 256 to 2048 rows each (smaller blocks keep
/// many threads busy on short vectors).
inline std::int64_t reduce_rows_host_block(std::int64_t n, std::int64_t threads) {
  const std::int64_t items = 8 * (threads > 0 ? threads : 1);
  const std::int64_t block = (n + items - 1) / items;
  return block < 256 ? 256 : (block > 2048 ? 2048 : block);
}

/// Host blocks sum into `Lanes` independent partial sums: one running sum
/// makes the row loop a chain of dependent adds (3-4 cycles each), slower than
/// memory for vectors in cache. Calls row(i, lane) for the rows [begin, end),
/// lane = (i − begin) mod Lanes, in chunks of Lanes that the compiler unrolls;
/// the lanes are summed in order afterwards, so results stay deterministic.
/// Which count pays depends on the functor, so each caller names its own:
/// pure dot products take 8; most functors that also store lose with more
/// than 2 on x86-64 (the loop then vectorises into shuffles), some with more
/// than 1 (docs/notes/2026-12-04-cg-host-lanes.md,
/// docs/notes/2026-12-04-host-reduction-lanes.md).
template <int Lanes, class Row>
KOKKOS_INLINE_FUNCTION void for_lanes(std::int64_t begin, std::int64_t end, Row const& row) {
  static_assert(Lanes >= 1, "spmvkit::detail::for_lanes: at least one lane");
  std::int64_t i = begin;
  for (; i + Lanes <= end; i += Lanes)
    for (int l = 0; l < Lanes; ++l) row(i + l, l);
  for (int l = 0; i < end; ++i, ++l) row(i, l);
}

/// f(i, sum) for the rows of work item c, summed in Lanes locals (Blocked,
/// host spaces), or f(c, sum) for row c (GPUs).
template <class F, bool Blocked, int Lanes = 1>
struct RowBlockSum {
  F f;
  std::int64_t n, block;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, double& sum) const {
    if constexpr (!Blocked) {
      f(c, sum);
    } else {
      const std::int64_t begin = c * block, end = begin + block < n ? begin + block : n;
      double local[Lanes] = {};
      for_lanes<Lanes>(begin, end, [&](std::int64_t i, int l) { f(i, local[l]); });
      double total = 0;
      for (int l = 0; l < Lanes; ++l) total += local[l];
      sum += total;
    }
  }
};

/// The same for Count sums (f(i, sums) with sums an array).
template <class F, bool Blocked, unsigned Count, int Lanes = 1>
struct RowBlockSums {
  using value_type = double[];
  F f;
  std::int64_t n, block;
  unsigned value_count = Count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, value_type sums) const {
    if constexpr (!Blocked) {
      f(c, sums);
    } else {
      const std::int64_t begin = c * block, end = begin + block < n ? begin + block : n;
      double local[Lanes][Count] = {};
      for_lanes<Lanes>(begin, end, [&](std::int64_t i, int l) { f(i, local[l]); });
      for (unsigned k = 0; k < Count; ++k) {
        double total = 0;
        for (int l = 0; l < Lanes; ++l) total += local[l][k];
        sums[k] += total;
      }
    }
  }
};

/// a(i) b(i) summed in double: the plain dot product for reduce_rows<8>().
template <class A, class B>
struct RowDot {
  A a;
  B b;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    sum += static_cast<double>(a(i)) * static_cast<double>(b(i));
  }
};

/// Calls run(policy, block): blocks of reduce_rows_host_block() rows on host
/// spaces, one row per item on GPUs (the policy the solvers used before).
template <class ExecutionSpace, class Run>
void with_row_blocks(ExecutionSpace const& exec, std::int64_t n, Run&& run) {
  if constexpr (is_host_space_v<ExecutionSpace>) {
    const std::int64_t block = reduce_rows_host_block(n, exec.concurrency());
    run(Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
            exec, 0, (n + block - 1) / block),
        block);
  } else {
    run(Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), std::int64_t(1));
  }
}

/// sum = Σ of what f(i, double& sum) adds for the rows i of [0, n), on `exec`
/// (asynchronous as Kokkos::parallel_reduce into a host scalar: it fences).
/// Lanes: the partial sums of a host block (see for_lanes; one by default).
template <int Lanes = 1, class ExecutionSpace, class F>
void reduce_rows(std::string const& label, ExecutionSpace const& exec, std::int64_t n, F const& f,
                 double& sum) {
  using Blocks = RowBlockSum<F, is_host_space_v<ExecutionSpace>, Lanes>;
  with_row_blocks(exec, n, [&](auto const& policy, std::int64_t block) {
    Kokkos::parallel_reduce(label, policy, Blocks{f, n, block}, sum);
  });
}

/// The same for a functor with Count sums (value_type double[], value_count
/// Count, f(i, sums)); std::logic_error when value_count is not Count.
template <int Lanes = 1, class ExecutionSpace, class F, unsigned Count>
void reduce_rows(std::string const& label, ExecutionSpace const& exec, std::int64_t n, F const& f,
                 double (&sums)[Count]) {
  if (f.value_count != Count) {
    throw std::logic_error("spmvkit::detail::reduce_rows (" + label + "): the functor has " +
                           std::to_string(f.value_count) + " sums, the result array " +
                           std::to_string(Count));
  }
  using Blocks = RowBlockSums<F, is_host_space_v<ExecutionSpace>, Count, Lanes>;
  with_row_blocks(exec, n, [&](auto const& policy, std::int64_t block) {
    Kokkos::parallel_reduce(label, policy, Blocks{f, n, block}, sums);
  });
}

} // namespace spmvkit::detail

#endif
