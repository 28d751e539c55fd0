// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_DETAIL_PERMUTATION_KERNELS_HPP
#define SPMVKIT_REORDER_DETAIL_PERMUTATION_KERNELS_HPP

// Device kernels of reorder/permutation.hpp: inverting a permutation,
// permuting vectors, the symmetric permutation P A P^T of a CRS matrix and
// the bandwidth.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

/// old_to_new(new_to_old(i)) = i.
template <class Ordinal, class Device>
struct InvertPermutation {
  Kokkos::View<const Ordinal*, Device> new_to_old;
  Kokkos::View<Ordinal*, Device> old_to_new;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const { old_to_new(new_to_old(i)) = i; }
};

/// Counts, per old index, how often it appears in new_to_old: a permutation
/// hits each exactly once (the reduction counts the indices that do not).
template <class Ordinal, class Device>
struct PermutationHits {
  Kokkos::View<const Ordinal*, Device> new_to_old;
  Kokkos::View<Ordinal*, Device> hits;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, std::int64_t& out_of_range) const {
    const Ordinal old = new_to_old(i);
    if (old < 0 || old >= static_cast<Ordinal>(hits.extent(0))) {
      ++out_of_range;
    } else {
      Kokkos::atomic_add(&hits(old), Ordinal(1)); // atomic_increment is deprecated in Kokkos 4
    }
  }
};

template <class Ordinal, class Device>
struct CountMisses {
  Kokkos::View<const Ordinal*, Device> hits;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, std::int64_t& misses) const {
    if (hits(i) != 1) ++misses;
  }
};

/// to(i) = from(index(i)): a gather. With index = new_to_old it moves a
/// vector into the reordered numbering (permute); to(index(i)) = from(i), the
/// scatter (Scatter = true), moves it back (unpermute).
template <bool Scatter, class Index, class From, class To>
struct PermuteVector {
  Index index;
  From from;
  To to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    if constexpr (Scatter) {
      to(index(i)) = from(i);
    } else {
      to(i) = from(index(i));
    }
  }
};

/// A row source (core/format_concept.hpp) whose row i is row index(i) of
/// another, entries in their order: with index = new_to_old, the rows of
/// P A (the row starts of P A P^T; CSR-k's stored rows), with index =
/// old_to_new the user's rows back from those.
template <class Rows, class Device>
struct IndexedRowSource {
  using value_type = typename Rows::value_type;
  using ordinal_type = typename Rows::ordinal_type;
  using offset_type = typename Rows::offset_type;
  Rows rows;
  Kokkos::View<const ordinal_type*, Device> index;
  KOKKOS_INLINE_FUNCTION ordinal_type length(ordinal_type row) const {
    return rows.length(index(row));
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(ordinal_type row, F&& f) const {
    rows.for_each_entry(index(row), static_cast<F&&>(f));
  }
};

template <class Rows, class Index>
IndexedRowSource<Rows, typename Index::device_type> indexed_rows(Rows const& rows,
                                                                 Index const& index) {
  return {rows, index};
}

/// Row i of B = P A P^T: the entries of old row new_to_old(i), columns
/// renumbered by old_to_new and sorted by new column, entries of one column
/// in their old order (so P^T (P A P^T) P gives A back, entry for entry, when
/// A's rows are sorted). One thread per row: the row's positions are first
/// written into B's column slots and heap-sorted there by the unique key
/// (new column, old position), then values and new columns are gathered
/// through them, in place, without scratch memory.
template <class Crs>
struct FillSymmetricPermutation {
  using Ordinal = typename Crs::ordinal_type;
  using Offset = typename Crs::offset_type;
  using Scalar = typename Crs::value_type;
  using Device = typename Crs::device_type;
  Kokkos::View<const Offset*, Device> a_starts;
  Kokkos::View<const Ordinal*, Device> a_cols;
  Kokkos::View<const Scalar*, Device> a_vals;
  Kokkos::View<const Ordinal*, Device> new_to_old;
  Kokkos::View<const Ordinal*, Device> old_to_new;
  Kokkos::View<const Offset*, Device> b_starts;
  Kokkos::View<Ordinal*, Device> b_cols;
  Kokkos::View<Scalar*, Device> b_vals;

  KOKKOS_INLINE_FUNCTION bool less(Offset a_first, Ordinal p, Ordinal q) const {
    const Ordinal cp = old_to_new(a_cols(a_first + p)), cq = old_to_new(a_cols(a_first + q));
    return cp < cq || (cp == cq && p < q);
  }
  KOKKOS_INLINE_FUNCTION void sift_down(Offset first, Offset a_first, Ordinal root,
                                        Ordinal count) const {
    while (true) {
      Ordinal child = 2 * root + 1;
      if (child >= count) return;
      if (child + 1 < count && less(a_first, b_cols(first + child), b_cols(first + child + 1)))
        ++child;
      if (!less(a_first, b_cols(first + root), b_cols(first + child))) return;
      const Ordinal t = b_cols(first + root);
      b_cols(first + root) = b_cols(first + child);
      b_cols(first + child) = t;
      root = child;
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row) const {
    const Ordinal old = new_to_old(row);
    const Offset a_first = a_starts(old);
    const auto count = static_cast<Ordinal>(a_starts(old + 1) - a_first);
    const Offset first = b_starts(row);
    for (Ordinal p = 0; p < count; ++p) b_cols(first + p) = p;
    for (Ordinal root = count / 2 - 1; root >= 0; --root) sift_down(first, a_first, root, count);
    for (Ordinal end = count - 1; end > 0; --end) {
      const Ordinal t = b_cols(first);
      b_cols(first) = b_cols(first + end);
      b_cols(first + end) = t;
      sift_down(first, a_first, 0, end);
    }
    for (Ordinal p = 0; p < count; ++p) {
      const Ordinal q = b_cols(first + p);
      b_vals(first + p) = a_vals(a_first + q);
      b_cols(first + p) = old_to_new(a_cols(a_first + q));
    }
  }
};

/// max |row - column| over the entries of a CRS matrix.
template <class Offset, class Ordinal, class Device>
struct RowBandwidth {
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> cols;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row, std::int64_t& band) const {
    for (Offset k = row_starts(row); k < row_starts(row + 1); ++k) {
      const std::int64_t d = static_cast<std::int64_t>(cols(k)) - row;
      const std::int64_t a = d < 0 ? -d : d;
      if (a > band) band = a;
    }
  }
};

} // namespace spmvkit::detail

#endif
