// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_CG_TUNING_HPP
#define SPMVKIT_SOLVERS_DETAIL_CG_TUNING_HPP

// CG's tuning, kept with the solvers (the SpMV kernel shapes stay in
// core/detail/launch_parameters.hpp).

#include <spmvkit/core/memory.hpp>

#include <cstdint>

namespace spmvkit::detail {

/// Iterations between the host's reads of CG's scalars (CgOptions::
/// check_interval = 0). Host backends finish each reduction before the host
/// goes on, so a read costs nothing there and checking every iteration wastes
/// no SpMV. On a GPU each read stalls the device for a round trip while the
/// host queues the next kernels; every 8 iterations hides that and wastes at
/// most 7 SpMVs after convergence.
template <class ExecutionSpace>
constexpr int cg_check_interval() {
  return is_host_space_v<ExecutionSpace> ? 1 : 8;
}

/// Rows per work item of the fused CG kernels. GPUs take one row per thread
/// (coalesced); host backends take a block, so that the device scalars are
/// read, divided and tested once per block rather than per row, and the row
/// loop vectorises (see docs/notes/2026-11-27-cg-host-blocks.md).
template <class ExecutionSpace>
constexpr std::int64_t cg_block() {
  return is_host_space_v<ExecutionSpace> ? 2048 : 1;
}

} // namespace spmvkit::detail

#endif
