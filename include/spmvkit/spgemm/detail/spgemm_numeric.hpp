// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_NUMERIC_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_NUMERIC_HPP

/// \file
/// The numeric phase of SpGEMM (spgemm_numeric(), spgemm/spgemm.hpp): the
/// strategy the symbolic phase prepared (SpgemmNumeric), launched.

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/spgemm/detail/spgemm_state.hpp>
#include <spmvkit/spgemm/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// spgemm_numeric() (spgemm/spgemm.hpp).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spgemm_numeric_phase(ExecutionSpace const& exec, SpgemmOptions const& options,
                          SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                          CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                          CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  using Device = typename SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  if (!s.ready) {
    throw std::invalid_argument(
        "spmvkit::spgemm_numeric: the handle has no structure; run spgemm_symbolic first");
  }
  if (A.num_rows() != s.m || A.num_cols() != s.k || B.num_rows() != s.k || B.num_cols() != s.n ||
      A.nnz() != s.a_nnz || B.nnz() != s.b_nnz) {
    throw std::invalid_argument(
        "spmvkit::spgemm_numeric: the symbolic phase saw " +
        spgemm_shapes(s.m, s.k, s.k, s.n, s.a_nnz, s.b_nnz) + ", now " +
        spgemm_shapes(A.num_rows(), A.num_cols(), B.num_rows(), B.num_cols(), A.nnz(), B.nnz()));
  }
  if (s.lists) {
    spgemm_launch_lists(exec, A, B, s);
    return;
  }
  if (s.positions) {
    if (s.entry_c_start.extent(0) > 0) {
      spgemm_launch_entries(exec, A, B, s);
    } else {
      spgemm_launch_positions<false>(exec, A, B, s);
    }
    return;
  }
  // Hashing: the narrow and short bins' rows a row per thread where they
  // fill the device, else with the hash bin's teams. The fingerprint is
  // compared after the sums: the teams' tables and dense tiles cannot tell a
  // product into a column the symbolic phase did not see.
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  spgemm_launch_fingerprint(exec, s, A, B);
  int team_bin = spgemm_bin_narrow;
  if (s.search_rows) {
    spgemm_launch_search_rows(exec, A, B, s);
    team_bin = spgemm_bin_hash;
  }
  for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
    spgemm_launch<spgemm_values>(
        exec, A, B, b == spgemm_bin_hash ? spgemm_bin_range(s.launch, team_bin, b, b) : s.launch[b],
        s.perm, Kokkos::View<Ordinal*, Device>(), s.C.row_starts(), s.C.column_indices(),
        s.C.values(), s.pool_keys, s.pool_vals, options.sort_columns);
  }
  spgemm_launch_pattern_check<Crs>(exec, s, s.fingerprint_now,
                                   spgemm_fingerprint_parameters(exec, s.options.team_size),
                                   "SpMVKit::spgemm::hash_pattern_check");
}

} // namespace spmvkit::detail

#endif
