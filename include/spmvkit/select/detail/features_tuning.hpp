// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SELECT_DETAIL_FEATURES_TUNING_HPP
#define SPMVKIT_SELECT_DETAIL_FEATURES_TUNING_HPP

// The launch shape of the feature passes of the automatic format choice,
// kept with the selection.

#include <spmvkit/core/detail/launch_parameters.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace spmvkit::detail {

/// The column-reach pass of select/matrix_features.hpp: teams of rows, a
/// group of vector lanes per row. GPUs: 32 lanes (a warp) per row, so a hub row
/// of 10^5 entries costs ~3K steps, not 10^5; 4 rows per team. Host: one
/// thread per team walking 4096 rows, lanes of 1.
template <class ExecutionSpace>
LaunchParameters features_launch_parameters(std::int64_t num_rows) {
  LaunchParameters p;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    p.team_size = 1;
    p.vector_length = 1;
    p.work_per_team = 4096;
  } else {
    p.team_size = 4;
    p.vector_length = 32;
    p.work_per_team = 4;
  }
  p.league_size = std::max<std::int64_t>(1, (num_rows + p.work_per_team - 1) / p.work_per_team);
  return p;
}

} // namespace spmvkit::detail

#endif
