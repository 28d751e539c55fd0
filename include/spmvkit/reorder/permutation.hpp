// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_PERMUTATION_HPP
#define SPMVKIT_REORDER_PERMUTATION_HPP

/// Symmetric permutations kept with the matrix they made: Permutation (both
/// directions on the device), permute_symmetric (B = P A P^T on the device),
/// permute / unpermute for vectors, Reordered (a permuted CRS matrix and its
/// permutation) and bandwidth().
///
/// Numbering: the permutation maps the reordered ("new") numbering to the
/// user's ("old") one, new_to_old(i) = the old index of new index i, so that
/// B(i, j) = A(new_to_old(i), new_to_old(j)), x_new = permute(x) has
/// x_new(i) = x(new_to_old(i)), and y = unpermute(y_new) has
/// y(new_to_old(i)) = y_new(i). Then B x_new = permute(A x): a system
/// A x = b is solved as B x_new = permute(b), x = unpermute(x_new).
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/reorder/detail/permutation_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

/// A permutation of n indices held on the device in both directions.
template <class Ordinal, class Device>
class Permutation {
public:
  /// Row and column index type.
  using ordinal_type = Ordinal;
  /// Kokkos::Device of execution_space and memory_space.
  using device_type = Device;
  /// View of one direction of the permutation.
  using view_type = Kokkos::View<Ordinal*, Device>;

  Permutation() = default;
  /// Both directions, already consistent (see make_permutation to build one
  /// from new_to_old alone, checked).
  Permutation(view_type new_to_old, view_type old_to_new)
      : new_to_old_(new_to_old), old_to_new_(old_to_new) {
    if (new_to_old_.extent(0) != old_to_new_.extent(0)) {
      throw std::invalid_argument("spmvkit::Permutation: the two directions differ in length");
    }
  }

  /// Number of indices permuted (n).
  std::int64_t size() const { return static_cast<std::int64_t>(new_to_old_.extent(0)); }
  /// new_to_old()(i): the user's index of reordered index i.
  view_type const& new_to_old() const { return new_to_old_; }
  /// old_to_new()(i): the reordered index of the user's index i.
  view_type const& old_to_new() const { return old_to_new_; }
  /// The inverse permutation (the two directions swapped; no copy).
  Permutation inverse() const { return Permutation(old_to_new_, new_to_old_); }

private:
  view_type new_to_old_;
  view_type old_to_new_;
};

/// A Permutation from its new_to_old direction on the device, which must be a
/// permutation of 0 .. n-1 (checked on the device: std::invalid_argument
/// otherwise); the inverse is computed on the device.
template <class ExecutionSpace, class Ordinal, class Device>
Permutation<Ordinal, Device> make_permutation(ExecutionSpace const& exec,
                                              Kokkos::View<Ordinal*, Device> new_to_old) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  const auto n = static_cast<Ordinal>(new_to_old.extent(0));
  auto old_to_new = detail::allocate_view<Kokkos::View<Ordinal*, Device>>(
      exec, "SpMVKit::Permutation::old_to_new", n);
  Kokkos::deep_copy(exec, old_to_new, Ordinal(0));
  std::int64_t bad = 0, misses = 0;
  Kokkos::parallel_reduce("SpMVKit::Permutation::check", Range(exec, 0, n),
                          detail::PermutationHits<Ordinal, Device>{new_to_old, old_to_new}, bad);
  Kokkos::parallel_reduce("SpMVKit::Permutation::check_hits", Range(exec, 0, n),
                          detail::CountMisses<Ordinal, Device>{old_to_new}, misses);
  if (bad != 0 || misses != 0) {
    throw std::invalid_argument("spmvkit::make_permutation: not a permutation of 0.." +
                                std::to_string(static_cast<std::int64_t>(n) - 1) + " (" +
                                std::to_string(bad) + " indices out of range, " +
                                std::to_string(misses) + " indices not hit exactly once)");
  }
  Kokkos::parallel_for("SpMVKit::Permutation::invert", Range(exec, 0, n),
                       detail::InvertPermutation<Ordinal, Device>{new_to_old, old_to_new});
  return Permutation<Ordinal, Device>(new_to_old, old_to_new);
}

/// The same from a host vector (new_to_old[new] = old), uploaded to exec's memory.
template <class Ordinal, class ExecutionSpace>
Permutation<Ordinal, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>
make_permutation(ExecutionSpace const& exec, std::vector<std::int64_t> const& new_to_old) {
  using View =
      Kokkos::View<Ordinal*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  auto view = detail::allocate_view<View>(exec, "SpMVKit::Permutation::new_to_old",
                                          static_cast<std::int64_t>(new_to_old.size()));
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < new_to_old.size(); ++i) {
    host(i) = static_cast<Ordinal>(new_to_old[i]);
  }
  Kokkos::deep_copy(exec, view, host);
  return make_permutation(exec, view);
}

/// B = P A P^T for a square CRS matrix, on A's execution space: row i of B is
/// row new_to_old(i) of A with its columns renumbered by old_to_new and
/// sorted (entries of one column keep their order). Costs about two SpMVs
/// plus a per-row sort.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Device>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
permute_symmetric(ExecutionSpace const& exec,
                  CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                  Permutation<Ordinal, Device> const& P) {
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  if (A.num_rows() != A.num_cols() || P.size() != A.num_rows()) {
    throw std::invalid_argument(
        "spmvkit::permute_symmetric: needs a square matrix and a permutation of its size, got " +
        std::to_string(A.num_rows()) + " x " + std::to_string(A.num_cols()) + " and " +
        std::to_string(P.size()));
  }
  detail::ensure_structure(exec, A);
  const Ordinal n = A.num_rows();
  Crs B("permute_symmetric", n, n, A.nnz(), exec);
  if (n == 0) {
    Kokkos::deep_copy(exec, B.row_starts(), Offset(0));
    return B;
  }
  const auto rows = detail::indexed_rows(detail::crs_row_source(A), P.new_to_old());
  Kokkos::parallel_scan("SpMVKit::Reorder::permuted_row_starts", Range(exec, 0, n),
                        detail::SourceRowStarts<decltype(rows), typename Crs::row_starts_type>{
                            rows, B.row_starts(), n});
  Kokkos::parallel_for("SpMVKit::Reorder::permute_entries", Range(exec, 0, n),
                       detail::FillSymmetricPermutation<Crs>{
                           A.row_starts(), A.column_indices(), A.values(), P.new_to_old(),
                           P.old_to_new(), B.row_starts(), B.column_indices(), B.values()});
  return B;
}

namespace detail {

/// The checks of permute / unpermute: both vectors of the permutation's size,
/// and their address ranges apart (so interleaved strided views are refused
/// too), since a gather or scatter into its own source reads entries it has
/// already overwritten.
template <class From, class To>
void check_permuted_pair(char const* where, char const* from_name, From const& from,
                         char const* to_name, To const& to, std::int64_t size) {
  const auto check_size = [&](char const* name, std::size_t extent) {
    if (static_cast<std::int64_t>(extent) != size) {
      throw std::invalid_argument(std::string(where) + ": " + name + " has " +
                                  std::to_string(extent) + " entries, the permutation " +
                                  std::to_string(size));
    }
  };
  check_size(from_name, from.extent(0));
  check_size(to_name, to.extent(0));
  if (storage_overlaps(from, to)) {
    throw std::invalid_argument(std::string(where) + ": " + from_name + " and " + to_name +
                                " must not share storage");
  }
}

} // namespace detail

/// x_new(i) = x(new_to_old(i)): a vector in the user's numbering moved to the
/// reordered one. Asynchronous on exec; x and x_new must not overlap
/// (checked on their address ranges).
template <class ExecutionSpace, class Ordinal, class Device, class XView, class XNewView>
void permute(ExecutionSpace const& exec, Permutation<Ordinal, Device> const& P, XView const& x,
             XNewView const& x_new) {
  detail::check_permuted_pair("spmvkit::permute", "x", x, "x_new", x_new, P.size());
  Kokkos::parallel_for(
      "SpMVKit::Reorder::permute",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, P.size()),
      detail::PermuteVector<false, typename Permutation<Ordinal, Device>::view_type, XView,
                            XNewView>{P.new_to_old(), x, x_new});
}

/// y(new_to_old(i)) = y_new(i): a vector in the reordered numbering moved
/// back to the user's. Asynchronous on exec; y_new and y must not overlap
/// (checked on their address ranges).
template <class ExecutionSpace, class Ordinal, class Device, class YNewView, class YView>
void unpermute(ExecutionSpace const& exec, Permutation<Ordinal, Device> const& P,
               YNewView const& y_new, YView const& y) {
  detail::check_permuted_pair("spmvkit::unpermute", "y_new", y_new, "y", y, P.size());
  Kokkos::parallel_for(
      "SpMVKit::Reorder::unpermute",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, P.size()),
      detail::PermuteVector<true, typename Permutation<Ordinal, Device>::view_type, YNewView,
                            YView>{P.new_to_old(), y_new, y});
}

/// A reordered matrix with the permutation that made it:
/// matrix = P A P^T for the user's A (see the numbering above).
template <class Crs>
struct Reordered {
  /// The CRS matrix type it converts from and to.
  using crs_type = Crs;
  /// The permutation type.
  using permutation_type = Permutation<typename Crs::ordinal_type, typename Crs::device_type>;
  /// The reordered matrix P A P^T.
  Crs matrix;
  /// The permutation P (both directions).
  permutation_type permutation;
};

/// The user's matrix back from a reordered one: P^T B P.
template <class Crs>
Crs unreorder(typename Crs::execution_space const& exec, Reordered<Crs> const& R) {
  return permute_symmetric(exec, R.matrix, R.permutation.inverse());
}

/// The bandwidth max |i - j| over A's entries (0 for a diagonal or empty
/// matrix), on the device.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
std::int64_t bandwidth(ExecutionSpace const& exec,
                       CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using Device = typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  detail::ensure_structure(exec, A);
  std::int64_t band = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::Reorder::bandwidth",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(exec, 0, A.num_rows()),
      detail::RowBandwidth<Offset, Ordinal, Device>{A.row_starts(), A.column_indices()},
      Kokkos::Max<std::int64_t>(band));
  return band > 0 ? band : 0; // the Max reducer starts below 0 (no rows, no entries)
}

} // namespace spmvkit

#endif
