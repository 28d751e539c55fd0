// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_BAND_K_HPP
#define SPMVKIT_REORDER_BAND_K_HPP

/// Band-k, the ordering of the CSR-k format (Kabir, Booth and Raghavan 2014;
/// Lane and Booth, "Heterogeneous sparse matrix-vector multiplication via
/// compressed sparse row format", Listing 2): a bandwidth-limiting ordering
/// of the rows that also groups them into super-rows (k >= 2) and
/// super-super-rows (k = 3), each group contiguous.
///
/// Our reading of the paper's outline (it gives no more detail than Listing
/// 2), in detail::band_k_order:
/// 1. G0 = the symmetrized pattern of A (A + A^T, no diagonal, unit weights).
/// 2. For each of the k - 1 levels: order the current graph by weighted
///    reverse Cuthill-McKee, then coarsen it by contracting runs of the
///    target size that are consecutive in that order (the super-row size in
///    rows, then the super-super-row size in super-rows); the coarse graph
///    weighs each edge by the fine edges it stands for.
/// 3. Order the coarsest graph by weighted RCM ("weighted bandwidth limiting
///    ordering": neighbours queued by increasing weighted degree, from a
///    pseudo-peripheral start).
/// 4. Expand level by level: each coarse vertex's members take its place, in
///    the order of their level's RCM, turned around when the coarse order
///    runs against it.
/// The result's bandwidth is mostly 1.0 to 1.5 times RCM's on the real
/// matrices, the paper's "slightly wider than RCM" (detail::contract_runs says why runs
/// rather than connected aggregates). Groups have exactly the target size but
/// for the last one of each level.
/// Like RCM it runs on the host (a sequence of breadth-first searches);
/// everything it produces is uploaded once.
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/reorder/detail/band_k_graph.hpp>
#include <spmvkit/reorder/permutation.hpp>
#include <spmvkit/reorder/rcm.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

/// A row ordering with its groups: rows new_to_old(r) for r in
/// [super_rows(s), super_rows(s + 1)) form super-row s, and super-rows
/// [super_super_rows(t), super_super_rows(t + 1)) form super-super-row t
/// (k = 3; empty for k = 2).
template <class Ordinal, class Device>
struct RowGroups {
  /// The permutation P (both directions).
  Permutation<Ordinal, Device> permutation;
  /// Row pointer of the super-rows, in the new row numbering (num_super_rows + 1 entries).
  Kokkos::View<Ordinal*, Device> super_rows;
  /// Super-row pointer of the super-super-rows (k = 3; empty for k = 2).
  Kokkos::View<Ordinal*, Device> super_super_rows;
  /// 2 (super-rows) or 3 (super-rows and super-super-rows).
  int k = 2;
  /// Number of super-rows.
  std::int64_t num_super_rows() const {
    return super_rows.extent(0) ? static_cast<std::int64_t>(super_rows.extent(0)) - 1 : 0;
  }
  /// Number of super-super-rows (0 for k = 2).
  std::int64_t num_super_super_rows() const {
    return super_super_rows.extent(0) ? static_cast<std::int64_t>(super_super_rows.extent(0)) - 1
                                      : 0;
  }
};

namespace detail {

inline void check_group_sizes(int k, std::int64_t rows_per_super_row,
                              std::int64_t super_rows_per_super_super_row, char const* where) {
  if ((k != 2 && k != 3) || rows_per_super_row < 1 ||
      (k == 3 && super_rows_per_super_super_row < 1)) {
    throw std::invalid_argument(
        std::string(where) + ": k must be 2 or 3 and group sizes >= 1, got k = " +
        std::to_string(k) + ", " + std::to_string(rows_per_super_row) + " rows per super-row, " +
        std::to_string(super_rows_per_super_super_row) + " super-rows per super-super-row");
  }
}

template <class Ordinal, class ExecutionSpace>
Kokkos::View<Ordinal*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>
upload_pointer(ExecutionSpace const& exec, std::vector<std::int64_t> const& pointer,
               std::string const& label) {
  using View =
      Kokkos::View<Ordinal*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  auto view = allocate_view<View>(exec, label, static_cast<std::int64_t>(pointer.size()));
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < pointer.size(); ++i) host(i) = static_cast<Ordinal>(pointer[i]);
  Kokkos::deep_copy(exec, view, host);
  return view;
}

template <class Ordinal, class ExecutionSpace>
RowGroups<Ordinal, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>
upload_groups(ExecutionSpace const& exec, int k, std::vector<std::int64_t> const& new_to_old,
              std::vector<std::vector<std::int64_t>> const& pointers) {
  RowGroups<Ordinal, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>> g;
  g.k = k;
  g.permutation = make_permutation<Ordinal>(exec, new_to_old);
  g.super_rows = upload_pointer<Ordinal>(exec, pointers[0], "SpMVKit::Reorder::super_rows");
  if (k == 3) {
    g.super_super_rows =
        upload_pointer<Ordinal>(exec, pointers[1], "SpMVKit::Reorder::super_super_rows");
  }
  return g;
}

} // namespace detail

/// Band-k of a square matrix: the row ordering and its groups of
/// rows_per_super_row rows and, for k = 3, of super_rows_per_super_super_row
/// super-rows (the last group of each level shorter). std::invalid_argument for a rectangular A or
/// bad sizes.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
RowGroups<Ordinal, typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::device_type>
band_k(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
       int k, std::int64_t rows_per_super_row, std::int64_t super_rows_per_super_super_row = 1) {
  detail::check_group_sizes(k, rows_per_super_row, super_rows_per_super_super_row,
                            "spmvkit::band_k");
  const detail::HostGraph g = detail::host_pattern(A, "spmvkit::band_k");
  std::vector<std::int64_t> targets{rows_per_super_row};
  if (k == 3) targets.push_back(super_rows_per_super_super_row);
  std::vector<std::vector<std::int64_t>> pointers;
  const auto order = detail::band_k_order(g, k, targets, pointers);
  return detail::upload_groups<Ordinal>(exec, k, order, pointers);
}

/// The rows in their own order, cut into consecutive super-rows of
/// rows_per_super_row rows (the last one shorter) and super-super-rows of
/// super_rows_per_super_super_row super-rows: CSR-k's groups without Band-k,
/// for a matrix already ordered (or not square).
template <class Ordinal, class ExecutionSpace>
RowGroups<Ordinal, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>
consecutive_groups(ExecutionSpace const& exec, std::int64_t num_rows, int k,
                   std::int64_t rows_per_super_row,
                   std::int64_t super_rows_per_super_super_row = 1) {
  detail::check_group_sizes(k, rows_per_super_row, super_rows_per_super_super_row,
                            "spmvkit::consecutive_groups");
  std::vector<std::int64_t> identity(static_cast<std::size_t>(num_rows));
  for (std::int64_t i = 0; i < num_rows; ++i) identity[i] = i;
  std::vector<std::vector<std::int64_t>> pointers(2, std::vector<std::int64_t>{0});
  while (pointers[0].back() < num_rows)
    pointers[0].push_back(std::min(num_rows, pointers[0].back() + rows_per_super_row));
  const auto super_rows = static_cast<std::int64_t>(pointers[0].size()) - 1;
  while (pointers[1].back() < super_rows)
    pointers[1].push_back(
        std::min(super_rows, pointers[1].back() + super_rows_per_super_super_row));
  return detail::upload_groups<Ordinal>(exec, k, identity, pointers);
}

/// A reordered by Band-k as a symmetric permutation, P A P^T with P
/// (reorder/permutation.hpp), e.g. to compare its bandwidth with RCM's. The
/// groups are dropped; band_k() keeps them.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Reordered<CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>>
reorder_band_k(ExecutionSpace const& exec,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int k,
               std::int64_t rows_per_super_row, std::int64_t super_rows_per_super_super_row = 1) {
  auto groups = band_k(exec, A, k, rows_per_super_row, super_rows_per_super_super_row);
  return {permute_symmetric(exec, A, groups.permutation), groups.permutation};
}

} // namespace spmvkit

#endif
