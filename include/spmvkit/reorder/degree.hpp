// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_DEGREE_HPP
#define SPMVKIT_REORDER_DEGREE_HPP

/// Degree ordering for power-law graphs: degree_order() (the permutation) and
/// reorder_degree() (the reordered matrix with its permutation,
/// reorder/permutation.hpp).
///
/// Vertices are numbered by decreasing degree, the entries of the vertex's row
/// plus those of its column (out- plus in-degree of the pattern; a diagonal
/// entry counts twice), ties by the user's index. The hubs then take the first
/// indices, so the entries of x that most rows gather lie together in a few
/// cache lines. RCM suits meshes (it narrows the band); a power-law graph has
/// no narrow band, and this is the ordering for it. It pays where the vectors
/// stay in the reordered numbering across many products (a solve through
/// ReorderedOperator, or permute / unpermute around one): moving a vector
/// between the numberings costs a sizeable part of a product
/// (docs/notes/2026-12-05-power-law-cusparse-probe.md).
///
/// The degrees are counted on the device (integer atomics: exact); only the n
/// degrees go to the host, where a counting sort, stable so deterministic,
/// gives the order, which goes back to the device.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/reorder/permutation.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

namespace detail {

/// degree(i) = entries of row i (the in-degrees are added after).
template <class RowStarts, class Degrees>
struct RowDegrees {
  RowStarts row_starts;
  Degrees degree;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    degree(i) = static_cast<std::int64_t>(row_starts(i + 1) - row_starts(i));
  }
};

/// degree(j) += 1 for the column j of every entry.
template <class Cols, class Degrees>
struct ColumnDegrees {
  Cols cols;
  Degrees degree;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    Kokkos::atomic_increment(&degree(static_cast<std::int64_t>(cols(k))));
  }
};

/// new_to_old of the degree ordering: indices by decreasing degree, ties by
/// index (a stable counting sort on the host).
inline std::vector<std::int64_t> order_by_decreasing_degree(std::vector<std::int64_t> const& deg) {
  std::int64_t top = 0;
  for (auto d : deg) top = d > top ? d : top;
  // Bucket top - d: decreasing degree; positions by a prefix sum.
  std::vector<std::int64_t> start(static_cast<std::size_t>(top) + 2, 0);
  for (auto d : deg) ++start[static_cast<std::size_t>(top - d) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<std::int64_t> new_to_old(deg.size());
  for (std::size_t i = 0; i < deg.size(); ++i) {
    new_to_old[static_cast<std::size_t>(start[static_cast<std::size_t>(top - deg[i])]++)] =
        static_cast<std::int64_t>(i);
  }
  return new_to_old;
}

} // namespace detail

/// The degree ordering of a square matrix (see the top of this file), on
/// exec's memory. std::invalid_argument for a rectangular A or a broken CRS
/// structure.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Permutation<Ordinal, typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::device_type>
degree_order(ExecutionSpace const& exec,
             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Crs::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  if (A.num_rows() != A.num_cols()) {
    throw std::invalid_argument(
        "spmvkit::degree_order: a symmetric reordering needs a square matrix, got " +
        std::to_string(A.num_rows()) + " x " + std::to_string(A.num_cols()));
  }
  detail::ensure_structure(exec, A);
  const std::int64_t n = A.num_rows();
  using Degrees = Kokkos::View<std::int64_t*, Device>;
  auto degree = detail::allocate_view<Degrees>(exec, "SpMVKit::Reorder::degrees", n);
  Kokkos::parallel_for(
      "SpMVKit::Reorder::row_degrees", Range(exec, 0, n),
      detail::RowDegrees<typename Crs::row_starts_type, Degrees>{A.row_starts(), degree});
  Kokkos::parallel_for("SpMVKit::Reorder::column_degrees",
                       Range(exec, 0, static_cast<std::int64_t>(A.nnz())),
                       detail::ColumnDegrees<typename Crs::column_indices_type, Degrees>{
                           A.column_indices(), degree});
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), degree);
  const std::vector<std::int64_t> deg(host.data(), host.data() + n);
  return make_permutation<Ordinal>(exec, detail::order_by_decreasing_degree(deg));
}

/// A reordered by degree: P A P^T and P (reorder/permutation.hpp).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Reordered<CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>>
reorder_degree(ExecutionSpace const& exec,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  auto P = degree_order(exec, A);
  return {permute_symmetric(exec, A, P), P};
}

} // namespace spmvkit

#endif
