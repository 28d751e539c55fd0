// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_DETAIL_SELL_LAYOUT_HPP
#define SPMVKIT_FORMATS_SELL_DETAIL_SELL_LAYOUT_HPP

// The chunk layout of SELL-C-sigma and the conversion kernels from and to CRS,
// shared by every column encoding (SellMatrix, SellOffset16Matrix) and by the FEM
// problem's direct assembly.
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {
namespace detail {

/// The widest chunk (BasicSellMatrix::longest_row), as a max reduction over the chunk widths.
template <class Widths>
struct WidestChunk {
  Widths widths;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, std::int64_t& w) const {
    if (static_cast<std::int64_t>(widths(c)) > w) w = static_cast<std::int64_t>(widths(c));
  }
};

/// Sorts each window of sigma rows by decreasing length, ties by increasing
/// row index. The keys are unique, so the result is deterministic whatever the
/// backend. Heapsort: in place, O(sigma log sigma) per window, no scratch.
template <class Ordinal, class Device>
struct SortWindows {
  Kokkos::View<Ordinal*, Device> perm;
  Kokkos::View<const Ordinal*, Device> lengths;
  std::int64_t sigma;
  std::int64_t num_rows;

  // "a goes after b" in the sorted order.
  KOKKOS_INLINE_FUNCTION bool after(Ordinal a, Ordinal b) const {
    return lengths(a) < lengths(b) || (lengths(a) == lengths(b) && a > b);
  }
  KOKKOS_INLINE_FUNCTION void sift_down(std::int64_t first, std::int64_t root,
                                        std::int64_t count) const {
    while (true) {
      std::int64_t child = 2 * root + 1;
      if (child >= count) return;
      // max-heap w.r.t. "after", so the element that goes last bubbles up.
      if (child + 1 < count && after(perm(first + child + 1), perm(first + child))) ++child;
      if (!after(perm(first + child), perm(first + root))) return;
      const Ordinal t = perm(first + root);
      perm(first + root) = perm(first + child);
      perm(first + child) = t;
      root = child;
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t window) const {
    const std::int64_t first = window * sigma;
    const std::int64_t count = (first + sigma <= num_rows) ? sigma : num_rows - first;
    for (std::int64_t i = 0; i < count; ++i) perm(first + i) = static_cast<Ordinal>(first + i);
    for (std::int64_t root = count / 2 - 1; root >= 0; --root) sift_down(first, root, count);
    for (std::int64_t end = count - 1; end > 0; --end) {
      const Ordinal t = perm(first);
      perm(first) = perm(first + end);
      perm(first + end) = t;
      sift_down(first, 0, end);
    }
  }
};

template <class Ordinal, class Offset, class Device>
struct ChunkWidths {
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Ordinal*, Device> perm; // empty: identity
  Kokkos::View<Ordinal*, Device> widths;
  Ordinal num_rows;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal chunk, std::int64_t& total) const {
    const std::int64_t first = static_cast<std::int64_t>(chunk) * chunk_size;
    const std::int64_t last = first + chunk_size < num_rows ? first + chunk_size : num_rows;
    Ordinal w = 0;
    for (std::int64_t r = first; r < last; ++r) {
      const Ordinal row = perm.extent(0) ? perm(r) : static_cast<Ordinal>(r);
      w = lengths(row) > w ? lengths(row) : w;
    }
    widths(chunk) = w;
    total += static_cast<std::int64_t>(w) * chunk_size;
  }
};

template <class Ordinal, class Offset, class Device>
struct ChunkStartsScan {
  Kokkos::View<const Ordinal*, Device> widths;
  Kokkos::View<Offset*, Device> starts;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal chunk, Offset& partial, bool final) const {
    if (final) starts(chunk) = partial;
    partial += static_cast<Offset>(widths(chunk)) * chunk_size;
    if (final && chunk + 1 == static_cast<Ordinal>(widths.extent(0))) starts(chunk + 1) = partial;
  }
};

/// One thread per stored row: copies its entries (from any row source, see
/// core/format_concept.hpp) into the chunk's column-major slots, encoded by
/// Columns, and pads the rest of the chunk width. This is the one place of
/// the padding rule (on BasicSellMatrix): value 0 at the row's first column,
/// or for an empty row at the valid column nearest to it.
template <class Columns, class Source, class Offset, class Device>
struct FillSell {
  using Scalar = typename Source::value_type;
  using Ordinal = typename Source::ordinal_type;
  using Stored = typename Columns::template stored_type<Ordinal>;
  Source source;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Ordinal*, Device> widths;
  Kokkos::View<Stored*, Device> cols;
  Kokkos::View<Scalar*, Device> vals;
  Ordinal num_rows;
  Ordinal num_cols;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    const Ordinal chunk = static_cast<Ordinal>(stored_row / chunk_size);
    const Ordinal width = widths(chunk);
    // A chunk of width 0 stores nothing; otherwise num_cols > 0.
    if (width == 0) return;
    const Offset base = chunk_starts(chunk) + static_cast<Offset>(stored_row % chunk_size);
    // Must agree with the kernel (detail/sell_kernels.hpp): rows past num_rows count as row 0.
    const Ordinal row = stored_row < num_rows
                            ? (perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row))
                            : Ordinal(0);
    Ordinal pad_col = row < num_cols ? row : num_cols - 1;
    Ordinal j = 0;
    if (stored_row < num_rows) {
      source.for_each_entry(row, [&](Ordinal col, Scalar value) {
        const Offset slot = base + static_cast<Offset>(j) * chunk_size;
        if (j == 0) pad_col = col;
        cols(slot) = static_cast<Stored>(Columns::encode(col, row));
        vals(slot) = value;
        ++j;
      });
    }
    for (; j < width; ++j) {
      const Offset slot = base + static_cast<Offset>(j) * chunk_size;
      cols(slot) = static_cast<Stored>(Columns::encode(pad_col, row));
      vals(slot) = Scalar(0);
    }
  }
};

template <class Columns, class Scalar, class Ordinal, class Offset, class Device>
struct SellToCrs {
  using Stored = typename Columns::template stored_type<Ordinal>;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Stored*, Device> sell_cols;
  Kokkos::View<const Scalar*, Device> sell_vals;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Offset*, Device> crs_starts;
  Kokkos::View<Ordinal*, Device> crs_cols;
  Kokkos::View<Scalar*, Device> crs_vals;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    const Ordinal chunk = static_cast<Ordinal>(stored_row / chunk_size);
    const Offset base = chunk_starts(chunk) + static_cast<Offset>(stored_row % chunk_size);
    const Ordinal row = perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row);
    const Offset out = crs_starts(row);
    const Ordinal length = lengths(row);
    for (Ordinal j = 0; j < length; ++j) {
      const Offset slot = base + static_cast<Offset>(j) * chunk_size;
      crs_cols(out + j) = Columns::decode(sell_cols(slot), row);
      crs_vals(out + j) = sell_vals(slot);
    }
  }
};

template <class Ordinal, class Offset, class Device>
struct LengthsToStarts {
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<Offset*, Device> starts;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Offset& partial, bool final) const {
    if (final) starts(i) = partial;
    partial += lengths(i);
    if (final && i + 1 == static_cast<Ordinal>(lengths.extent(0))) starts(i + 1) = partial;
  }
};

} // namespace detail

namespace detail {

/// The chunk layout of a SELL matrix from its row lengths: the σ-window
/// permutation (empty for σ = 1), the chunk widths and starts, and the stored
/// size, the one value that travels to the host (for the allocation that
/// follows). Shared by every route to a SELL matrix, so that they agree on
/// permutation and padding.
template <class Ordinal, class Offset, class ExecutionSpace>
struct SellLayout {
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  Kokkos::View<Ordinal*, Device> perm, widths;
  Kokkos::View<Offset*, Device> starts;
  std::int64_t num_chunks = 0;
  std::int64_t stored = 0;
  /// The window actually used: sigma clamped to [1, max(n, 1)].
  std::int64_t sigma = 1;

  SellLayout(ExecutionSpace const& exec, Kokkos::View<const Ordinal*, Device> lengths,
             int chunk_size, std::int64_t requested_sigma, std::string const& label,
             char const* where)
      : sigma(requested_sigma) {
    using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
    using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    if (chunk_size < 1 || sigma < 1) {
      throw std::invalid_argument(
          std::string(where) + ": chunk size C and sigma must be >= 1, got C = " +
          std::to_string(chunk_size) + ", sigma = " + std::to_string(sigma));
    }
    const auto n = static_cast<Ordinal>(lengths.extent(0));
    num_chunks = (static_cast<std::int64_t>(n) + chunk_size - 1) / chunk_size;
    checked_index<Ordinal>(num_chunks * chunk_size, "rows padded to a multiple of C", where);
    // A window longer than the matrix sorts the whole matrix: clamp, so that
    // the window arithmetic below cannot overflow for a huge sigma.
    sigma = std::min<std::int64_t>(sigma, std::max<std::int64_t>(n, 1));
    if (sigma > 1) {
      perm = allocate_view<Kokkos::View<Ordinal*, Device>>(exec, label + "row_permutation", n);
      const std::int64_t windows = (static_cast<std::int64_t>(n) + sigma - 1) / sigma;
      Kokkos::parallel_for(label + "sort_windows", Range64(exec, 0, windows),
                           SortWindows<Ordinal, Device>{perm, lengths, sigma, n});
    }
    widths =
        allocate_view<Kokkos::View<Ordinal*, Device>>(exec, label + "chunk_widths", num_chunks);
    Kokkos::parallel_reduce(
        label + "chunk_widths", Range(exec, 0, static_cast<Ordinal>(num_chunks)),
        ChunkWidths<Ordinal, Offset, Device>{lengths, perm, widths, n, chunk_size}, stored);
    checked_index<Offset>(stored, "stored entries (nonzeros + padding)", where);
    starts =
        allocate_view<Kokkos::View<Offset*, Device>>(exec, label + "chunk_starts", num_chunks + 1);
    if (num_chunks == 0) {
      Kokkos::deep_copy(exec, starts, Offset(0));
    } else {
      Kokkos::parallel_scan(label + "chunk_starts",
                            Range(exec, 0, static_cast<Ordinal>(num_chunks)),
                            ChunkStartsScan<Ordinal, Offset, Device>{widths, starts, chunk_size});
    }
  }
};

} // namespace detail
} // namespace spmvkit

#endif
