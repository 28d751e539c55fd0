// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_HYB_DETAIL_HYB_CONVERSION_HPP
#define SPMVKIT_FORMATS_HYB_DETAIL_HYB_CONVERSION_HPP

// The split of a CRS matrix into HYB's parts: the ELL width search, the head
// (the first `width` entries of each row, as a row source for SELL), the tail
// (the rest of the long rows, as COO over the compressed list of those rows)
// and the row source that joins both again (to_crs).
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/coo/detail/coo_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

/// A row source of the first `width` entries of each row of another source.
template <class Source>
struct HeadRows {
  using value_type = typename Source::value_type;
  using ordinal_type = typename Source::ordinal_type;
  using offset_type = typename Source::offset_type;
  Source source;
  ordinal_type width;
  KOKKOS_INLINE_FUNCTION ordinal_type length(ordinal_type row) const {
    const ordinal_type len = source.length(row);
    return len < width ? len : width;
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(ordinal_type row, F&& f) const {
    ordinal_type taken = 0;
    source.for_each_entry(row, [&](ordinal_type col, value_type value) {
      if (taken++ < width) f(col, value);
    });
  }
};

/// A row source of HYB: row r's head entries, then its tail entries (tail row
/// inverse(r), or none when inverse(r) < 0), which is the order of the CRS
/// matrix HYB was made from.
template <class Head, class Tail, class Inverse>
struct JoinedRows {
  using value_type = typename Head::value_type;
  using ordinal_type = typename Head::ordinal_type;
  using offset_type = typename Head::offset_type;
  Head head;
  Tail tail;
  Inverse inverse;
  KOKKOS_INLINE_FUNCTION ordinal_type length(ordinal_type row) const {
    const ordinal_type t = inverse(row);
    return head.length(row) + (t >= 0 ? tail.length(t) : ordinal_type(0));
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(ordinal_type row, F&& f) const {
    head.for_each_entry(row, f);
    const ordinal_type t = inverse(row);
    if (t >= 0) tail.for_each_entry(t, f);
  }
};

/// Rows longer than width.
template <class RowStarts>
struct RowsLongerThan {
  RowStarts row_starts;
  std::int64_t width;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& count) const {
    if (static_cast<std::int64_t>(row_starts(r + 1) - row_starts(r)) > width) ++count;
  }
};

/// Entries that an ELL part of this width holds: sum of min(length, width).
template <class RowStarts>
struct EntriesWithin {
  RowStarts row_starts;
  std::int64_t width;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& count) const {
    const std::int64_t len = static_cast<std::int64_t>(row_starts(r + 1) - row_starts(r));
    count += len < width ? len : width;
  }
};

/// tail_rows(c) = the c-th row longer than width (an exclusive scan).
template <class RowStarts, class Map>
struct TailRowList {
  RowStarts row_starts;
  Map tail_rows;
  std::int64_t width;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& count, bool final) const {
    if (static_cast<std::int64_t>(row_starts(r + 1) - row_starts(r)) > width) {
      if (final) tail_rows(count) = static_cast<typename Map::value_type>(r);
      ++count;
    }
  }
};

/// tail_starts(c): where tail row c's entries start (an exclusive scan of
/// length - width over the tail rows; tail_starts(m) = tail nonzeros).
template <class RowStarts, class Map, class TailStarts>
struct TailRowStarts {
  RowStarts row_starts;
  Map tail_rows;
  TailStarts tail_starts;
  std::int64_t width;
  std::int64_t num_tail_rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, std::int64_t& total, bool final) const {
    const auto r = tail_rows(c);
    if (final) tail_starts(c) = static_cast<typename TailStarts::value_type>(total);
    total += static_cast<std::int64_t>(row_starts(r + 1) - row_starts(r)) - width;
    if (final && c + 1 == num_tail_rows)
      tail_starts(c + 1) = static_cast<typename TailStarts::value_type>(total);
  }
};

/// Tail nonzero k: its tail row (a binary search on tail_starts, so a long
/// row is copied by many threads) and the CRS entry it copies.
template <class RowStarts, class Cols, class Vals, class Map, class TailStarts>
struct FillTail {
  RowStarts row_starts;
  Cols cols;
  Vals vals;
  Map tail_rows;
  TailStarts tail_starts;
  typename Map::non_const_type keys;
  typename Cols::non_const_type tail_cols;
  typename Vals::non_const_type tail_vals;
  std::int64_t width;
  std::int64_t num_tail_rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    const std::int64_t c =
        lower_bound(tail_starts, 0, num_tail_rows + 1, static_cast<std::int64_t>(k) + 1) - 1;
    const std::int64_t src = static_cast<std::int64_t>(row_starts(tail_rows(c))) + width +
                             (k - static_cast<std::int64_t>(tail_starts(c)));
    keys(k) = static_cast<typename Map::value_type>(c);
    tail_cols(k) = cols(src);
    tail_vals(k) = vals(src);
  }
};

/// inverse(tail_rows(c)) = c (inverse holds -1 elsewhere).
template <class Map, class Inverse>
struct InvertTailRows {
  Map tail_rows;
  Inverse inverse;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c) const {
    inverse(tail_rows(c)) = static_cast<typename Inverse::value_type>(c);
  }
};

/// Adds the tail's diagonal entries to d (which holds the head's diagonal).
template <class Keys, class Cols, class Vals, class Map, class Diag>
struct TailDiagonal {
  Keys keys;
  Cols cols;
  Vals vals;
  Map tail_rows;
  Diag diag;
  std::int64_t nnz;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c) const {
    const std::int64_t begin = lower_bound(keys, 0, nnz, c);
    const std::int64_t end = lower_bound(keys, begin, nnz, c + 1);
    const auto row = tail_rows(c);
    double d = 0;
    bool found = false;
    for (std::int64_t k = begin; k < end; ++k) {
      if (cols(k) == row) {
        d += static_cast<double>(vals(k));
        found = true;
      }
    }
    if (found)
      diag(row) = static_cast<typename Diag::value_type>(static_cast<double>(diag(row)) + d);
  }
};

} // namespace spmvkit::detail

#endif
