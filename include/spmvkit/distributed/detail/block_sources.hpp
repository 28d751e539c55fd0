// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DETAIL_BLOCK_SOURCES_HPP
#define SPMVKIT_DISTRIBUTED_DETAIL_BLOCK_SOURCES_HPP

// Row sources (core/format_concept.hpp) of the two blocks of a rank's rows,
// read from a slab source (global columns): any format builds its blocks with
// from_rows, on the device, without an intermediate CRS.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

/// The entries of the slab whose column this rank owns, columns made local.
template <class Slab, class Ordinal, class Offset>
struct DiagonalBlockSource {
  using value_type = typename Slab::value_type;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Slab slab;
  std::int64_t first, end;
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    Ordinal n = 0;
    slab.for_each_entry(static_cast<std::int64_t>(row), [&](std::int64_t col, value_type) {
      if (col >= first && col < end) ++n;
    });
    return n;
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    slab.for_each_entry(static_cast<std::int64_t>(row), [&](std::int64_t col, value_type v) {
      if (col >= first && col < end) f(static_cast<Ordinal>(col - first), v);
    });
  }
};

/// The entries of the slab whose column another rank owns, the column
/// replaced by its index among the sorted ghosts (a binary search): the
/// off-process block, whose columns are the ghost vector's entries and whose
/// row r is the slab's local row rows(r) (the rows with such entries).
template <class Slab, class Ordinal, class Offset, class Ghosts, class Rows>
struct OffProcessBlockSource {
  using value_type = typename Slab::value_type;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Slab slab;
  std::int64_t first, end;
  Ghosts ghosts;
  Rows rows;
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    Ordinal n = 0;
    slab.for_each_entry(static_cast<std::int64_t>(rows(row)), [&](std::int64_t col, value_type) {
      if (col < first || col >= end) ++n;
    });
    return n;
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    slab.for_each_entry(static_cast<std::int64_t>(rows(row)), [&](std::int64_t col, value_type v) {
      if (col >= first && col < end) return;
      std::int64_t lo = 0, hi = static_cast<std::int64_t>(ghosts.extent(0));
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (ghosts(mid) < col) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      f(static_cast<Ordinal>(lo), v);
    });
  }
};

/// Per row: the number of off-process entries (scanned into offsets) and the
/// first row with a column outside [0, cols).
template <class Slab, class Offsets>
struct CountOffProcess {
  Slab slab;
  std::int64_t first, end, cols;
  Offsets offsets; // rows + 1: exclusive prefix of the counts
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, std::int64_t& sum, bool last) const {
    if (last) offsets(row) = sum;
    if (row == static_cast<std::int64_t>(offsets.extent(0)) - 1) return;
    std::int64_t n = 0;
    slab.for_each_entry(row, [&](std::int64_t col, typename Slab::value_type) {
      if (col < first || col >= end) ++n;
    });
    sum += n;
  }
};

/// The rows with an off-process entry (a count above zero in the scanned
/// counts), listed in increasing order; with an empty `rows`, counts them.
template <class Offsets, class Rows>
struct ListOffProcessRows {
  Offsets offsets; // rows + 1: exclusive prefix of the counts
  Rows rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, std::int64_t& n, bool last) const {
    if (offsets(row + 1) == offsets(row)) return;
    if (last && rows.extent(0) > 0) rows(n) = static_cast<typename Rows::value_type>(row);
    ++n;
  }
};

/// y(rows(i)) += product(i): the off-process block's product added into the
/// rows it belongs to (rows are unique, so no two entries meet).
template <class Vector, class Rows>
struct AddIntoRows {
  Vector y, product;
  Rows rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { y(rows(i)) += product(i); }
};

/// AddIntoRows for k columns: Y(rows(i), j) += product(i, j), t = i k + j.
template <class Multi, class Product, class Rows>
struct AddIntoRowsColumns {
  Multi y;
  Product product;
  Rows rows;
  std::int64_t k;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    const std::int64_t i = t / k, j = t - i * k;
    y(rows(i), j) += product(i, j);
  }
};

template <class Slab>
struct FindBadColumn {
  Slab slab;
  std::int64_t cols;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, std::int64_t& bad) const {
    slab.for_each_entry(row, [&](std::int64_t col, typename Slab::value_type) {
      if ((col < 0 || col >= cols) && row < bad) bad = row;
    });
  }
};

template <class Slab, class Offsets, class Columns>
struct CollectOffProcess {
  Slab slab;
  std::int64_t first, end;
  Offsets offsets;
  Columns columns;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    std::int64_t at = offsets(row);
    slab.for_each_entry(row, [&](std::int64_t col, typename Slab::value_type) {
      if (col < first || col >= end) columns(at++) = col;
    });
  }
};

} // namespace spmvkit::detail

#endif
