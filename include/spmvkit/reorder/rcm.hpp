// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_RCM_HPP
#define SPMVKIT_REORDER_RCM_HPP

/// Reverse Cuthill-McKee: rcm() (the permutation) and reorder_rcm() (the
/// reordered matrix with its permutation, reorder/permutation.hpp).
///
/// The ordering is computed on the host from the symmetrized pattern of A
/// (A + A^T without the diagonal), component by component, each from a
/// pseudo-peripheral vertex (George and Liu), neighbours queued by increasing
/// degree, ties by index, and the whole order reversed
/// (detail::reverse_cuthill_mckee). It is a breadth-first search whose
/// visiting order is the result, so it is sequential by nature; Kokkos
/// Kernels' KokkosGraph::Experimental::graph_rcm is a serial host algorithm
/// too. The cost is a copy of the pattern to the host and O(nnz log d) work;
/// the permutation is then applied on the device.
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/reorder/detail/host_graph.hpp>
#include <spmvkit/reorder/permutation.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

namespace detail {

/// The symmetrized pattern of a square CRS matrix, on the host.
template <class Crs>
HostGraph host_pattern(Crs const& A, char const* where) {
  if (A.num_rows() != A.num_cols()) {
    throw std::invalid_argument(
        std::string(where) + ": a symmetric reordering needs a square matrix, got " +
        std::to_string(A.num_rows()) + " x " + std::to_string(A.num_cols()));
  }
  ensure_structure(typename Crs::execution_space(), A);
  auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  return symmetrized_pattern(A.num_rows(), starts, cols);
}

} // namespace detail

/// The reverse Cuthill-McKee permutation of a square matrix (its symmetrized
/// pattern), on exec's memory. std::invalid_argument for a rectangular A.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Permutation<Ordinal, typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::device_type>
rcm(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  const detail::HostGraph g = detail::host_pattern(A, "spmvkit::rcm");
  return make_permutation<Ordinal>(exec, detail::reverse_cuthill_mckee(g));
}

/// A reordered by reverse Cuthill-McKee: P A P^T and P (reorder/permutation.hpp).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Reordered<CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>>
reorder_rcm(ExecutionSpace const& exec,
            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  auto P = rcm(exec, A);
  return {permute_symmetric(exec, A, P), P};
}

} // namespace spmvkit

#endif
