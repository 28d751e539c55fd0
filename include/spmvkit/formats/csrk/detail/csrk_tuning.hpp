// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CSRK_DETAIL_CSRK_TUNING_HPP
#define SPMVKIT_FORMATS_CSRK_DETAIL_CSRK_TUNING_HPP

// The constant-time model of CSR-k's group sizes (Lane and Booth, section 4):
// rows per super-row (SRS) and super-rows per super-super-row (SSRS) from the
// mean row length rdensity = nnz / n alone.
#include <spmvkit/core/memory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace spmvkit::detail {

struct CsrkSizes {
  std::int64_t rows_per_super_row = 1;             // SRS
  std::int64_t super_rows_per_super_super_row = 1; // SSRS (k = 3)
};

/// Rounding to nearest, halves towards +infinity (the paper's ⌊x⌉).
inline std::int64_t round_half_up(double v) {
  return static_cast<std::int64_t>(std::floor(v + 0.5));
}

/// The paper's GPU model, SSRS = ⌊a - b ln(rdensity)⌉ and SRS = ⌊c -
/// d ln(rdensity)⌉, then adjusted per block shape (the four rdensity cases
/// of detail::row_groups_shape: <= 8, <= 16, <= 32, > 32).
///
/// TO BE FITTED ON THE H200: the paper's A100 constants and adjustments, unmeasured here.
/// To refit, as the paper did (section 4.1):
/// 1. On a CUDA build, time CSR-3 for every (SRS, SSRS) pair of a grid over
///    the real set and FEM sizes, with the default block shapes:
///      spmvkit_perf --families=spmv --precision=double --fem-n=64,96,128,161
///        --formats=csrk3 --csrk-sizes=4x4,4x8,...,48x48
///    (--csrk-sizes items are SRSxSSRS; the paper's grid is {4, 6, 8, 12, 16,
///    24, 32, 48}^2; the benchmark names carry the pair, csrk3_sr<SRS>_ssr<SSRS>).
///    --csrk-shapes=LxRxS[:rows|:entries] adds block shapes to the sweep if
///    the shapes of row_groups_shape are to be refitted too.
/// 2. Per matrix, take the pair of the smallest median time.
/// 3. Within each rdensity case, fit SSRS and SRS separately by least squares
///    against ln(rdensity); lower the slope by hand where the fit drops too
///    fast at large rdensity; the per-case factors below are what remains
///    between the case's best pairs and the fit.
/// 4. Replace the constants below, say here in a line what they were fitted
///    on, and put the sweep (GPU, CUDA, Kokkos, date, matrices, times) in a
///    dated note in docs/notes/. Until then, CsrkOptions's sizes and
///    gpu_* fields override the model for any one matrix.
inline CsrkSizes csrk_gpu_model(double rdensity) {
  const double l = std::log(std::max(rdensity, 1.0));
  std::int64_t ssrs = round_half_up(9.175 - 1.32 * l); // A100 (paper); refit on the H200
  std::int64_t srs = round_half_up(20.5 - 3.50 * l);   // A100 (paper); refit on the H200
  if (rdensity <= 8) {
  } else if (rdensity <= 16) {
    srs *= 4;
  } else if (rdensity <= 32) {
    ssrs = round_half_up(static_cast<double>(ssrs) * 2.5);
    srs = ssrs * 3;
  } else {
    ssrs *= 2;
    srs = ssrs * 2;
  }
  return {std::max<std::int64_t>(srs, 1), std::max<std::int64_t>(ssrs, 1)};
}

/// The host model. On a CPU the kernel runs a super-row (CSR-2) or a
/// super-super-row (CSR-3) per team, rows in order, so the size that matters
/// is the rows per team; the paper found no usable link to rdensity on CPUs
/// and recommends one constant, the geometric mean of the per-matrix optima
/// (96 rows on Ice Lake and Rome).
///
/// Re-fitted that way on the 2-core CI box, one thread; the curve is flat
/// (docs/notes/2026-11-23-csrk-host-rows-per-team.md has the command, the
/// grid and the optima).
///
/// To refit (e.g. with all cores of the 16-core node, where team counts
/// matter for balance): run that note's command with OMP_NUM_THREADS set,
/// --csrk-sizes over the same grid, take each matrix's fastest SRS (CSR-2)
/// and SRS x SSRS (CSR-3), and put their geometric means here.
inline CsrkSizes csrk_host_model(int k, double /*rdensity*/) {
  if (k == 2) return {768, 1};
  return {64, 16};
}

template <class ExecutionSpace>
CsrkSizes csrk_model(int k, double rdensity) {
  return is_host_space_v<ExecutionSpace> ? csrk_host_model(k, rdensity) : csrk_gpu_model(rdensity);
}

} // namespace spmvkit::detail

#endif
