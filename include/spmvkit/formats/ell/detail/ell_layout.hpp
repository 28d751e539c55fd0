// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_ELL_DETAIL_ELL_LAYOUT_HPP
#define SPMVKIT_FORMATS_ELL_DETAIL_ELL_LAYOUT_HPP

// The n x w column-major layout shared by ELL and ELL-R (formats/ellr/): the
// width policy of ELL, the padding limit, the fill from any row source and
// the row source that reads an ELL matrix back (to_crs).
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace spmvkit::detail {

/// How far the SpMV kernel walks each row of an ELL layout. The layout, its
/// conversions, the kernel and the diagonal are written once; the width
/// policy says whether a row stops at its own length and what the byte model
/// counts.
///
/// EllFullWidth (ELL): every row walks the full width w, padding included,
/// and the kernel reads no row length: the classic ELLPACK kernel.
struct EllFullWidth {
  static constexpr char const* family = "ell";
  static constexpr char const* class_name = "spmvkit::EllMatrix";
  static constexpr char const* make_name = "spmvkit::make_ell";
  static constexpr char const* label = "SpMVKit::Ell::";
  /// Whether each row stops at row_lengths() (which the kernel then reads).
  static constexpr bool stops_at_row_length = false;
  /// Stored entries (padding included) x (value + column).
  static double matrix_bytes(double /*rows*/, double /*nnz*/, double stored, double value_bytes,
                             double index_bytes) {
    return stored * (value_bytes + index_bytes);
  }
};

/// The default padding limit of ELL and ELL-R: padded entries n * w may be at
/// most 4 nnz + 64 n. Why these numbers: SpMV moves the stored entries, so at
/// a padding ratio of 4 ELL already moves four times CRS's matrix bytes (ELL-R
/// reads less but allocates the same) and SELL-C-sigma, which pads per chunk
/// of C rows, or HYB is the better choice; refusing there costs nothing real
/// and turns the power-law case (one dense row among short ones: w close to
/// n) into a message instead of an out-of-memory failure. The 64 n term lets
/// matrices of very short rows with a few rows up to ~64 entries through,
/// where the ratio is large but the padded block stays small (w <= 64 +
/// 4 nnz / n). A caller who wants ELL anyway sets EllOptions::max_padded_entries.
inline std::int64_t default_ell_padding_limit(std::int64_t num_rows, std::int64_t nnz) {
  return 4 * nnz + 64 * num_rows;
}

inline std::string human_bytes(double bytes) {
  char const* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) {
    bytes /= 1024.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", bytes, units[u]);
  return text;
}

/// Why an n-row matrix whose longest rows (one of them `widest_row`) have w entries cannot
/// be padded to an n x w block ("" if it can), decided before anything is
/// allocated. `limit` <= 0 means the default limit.
inline std::string ell_padding_obstacle(std::int64_t num_rows, std::int64_t nnz, std::int64_t w,
                                        std::int64_t widest_row, std::int64_t limit,
                                        double bytes_per_entry) {
  const std::int64_t padded = num_rows * w; // both < 2^31: no overflow
  const std::int64_t max_padded = limit > 0 ? limit : default_ell_padding_limit(num_rows, nnz);
  if (padded <= max_padded) return "";
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.1f",
                nnz > 0 ? static_cast<double>(padded) / static_cast<double>(nnz) : 0.0);
  return "padding every row to the longest (row " + std::to_string(widest_row) + " has " +
         std::to_string(w) + " entries) would store " + std::to_string(num_rows) + " x " +
         std::to_string(w) + " = " + std::to_string(padded) + " entries (" +
         human_bytes(static_cast<double>(padded) * bytes_per_entry) + "), padding ratio " + ratio +
         " for " + std::to_string(nnz) + " nonzeros; the limit is " + std::to_string(max_padded) +
         (limit > 0 ? " (EllOptions::max_padded_entries)"
                    : " entries (4 nnz + 64 rows; EllOptions::max_padded_entries overrides it)") +
         ". Use SELL-C-sigma (SellFormat, padding per chunk of C rows sorted in windows of sigma) "
         "or HYB (ELL part plus COO for the long rows)";
}

/// The length of the longest row of a row source and a row that long (the
/// first one within a thread; MaxLoc keeps either one of equal rows).
template <class Source>
struct SourceWidestRow {
  using Ordinal = typename Source::ordinal_type;
  using value_type = typename Kokkos::MaxLoc<Ordinal, Ordinal>::value_type;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row, value_type& widest) const {
    const Ordinal length = source.length(row);
    if (length > widest.val || (length == widest.val && row < widest.loc)) {
      widest.val = length;
      widest.loc = row;
    }
  }
};

template <class ExecutionSpace, class Source>
typename Kokkos::MaxLoc<typename Source::ordinal_type, typename Source::ordinal_type>::value_type
widest_row(ExecutionSpace const& exec, std::int64_t num_rows, Source const& source,
           std::string const& label) {
  using Ordinal = typename Source::ordinal_type;
  using Reducer = Kokkos::MaxLoc<Ordinal, Ordinal>;
  typename Reducer::value_type widest;
  widest.val = 0;
  widest.loc = 0;
  if (num_rows > 0) {
    Kokkos::parallel_reduce(label + "widest_row",
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(
                                exec, 0, static_cast<Ordinal>(num_rows)),
                            SourceWidestRow<Source>{source}, Reducer(widest));
  }
  return widest;
}

/// One thread per row: copies the row's entries (from any row source) into
/// slots row, row + n, row + 2n, ... and pads the rest of the width. The one
/// place of ELL's padding rule: value 0 at the row's first column, which the
/// row reads anyway, or for an empty row at the valid column nearest to it,
/// min(row, num_cols - 1). Padding must address a valid x entry because ELL
/// multiplies it like any other entry (0 * NaN in a padded x entry makes the
/// row NaN, as in any kernel that multiplies stored zeros). With num_cols = 0
/// every row is empty, w = 0 and nothing is padded.
template <class Source, class Offset, class Device>
struct FillEll {
  using Scalar = typename Source::value_type;
  using Ordinal = typename Source::ordinal_type;
  Source source;
  Kokkos::View<Ordinal*, Device> cols;
  Kokkos::View<Scalar*, Device> vals;
  Ordinal num_rows;
  Ordinal num_cols;
  Ordinal width;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row) const {
    Ordinal pad_col = row < num_cols ? row : num_cols - 1;
    Ordinal j = 0;
    source.for_each_entry(row, [&](Ordinal col, Scalar value) {
      const Offset slot = static_cast<Offset>(j) * num_rows + row;
      if (j == 0) pad_col = col;
      cols(slot) = col;
      vals(slot) = value;
      ++j;
    });
    for (; j < width; ++j) {
      const Offset slot = static_cast<Offset>(j) * num_rows + row;
      cols(slot) = pad_col;
      vals(slot) = Scalar(0);
    }
  }
};

/// The row source (core/format_concept.hpp) of an ELL layout: row i is its
/// first row_lengths(i) slots. CRS is built from it (to_crs), so the round
/// trip is exact, explicit zeros included.
template <class Scalar, class Ordinal, class Offset, class Device>
struct EllRowSource {
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Kokkos::View<const Ordinal*, Device> cols;
  Kokkos::View<const Scalar*, Device> vals;
  Kokkos::View<const Ordinal*, Device> lengths;
  Ordinal num_rows;
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const { return lengths(row); }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    for (Ordinal j = 0; j < lengths(row); ++j) {
      const Offset slot = static_cast<Offset>(j) * num_rows + row;
      f(cols(slot), vals(slot));
    }
  }
};

} // namespace spmvkit::detail

#endif
