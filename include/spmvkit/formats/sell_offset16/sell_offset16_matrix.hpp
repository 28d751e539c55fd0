// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_OFFSET16_SELL_OFFSET16_MATRIX_HPP
#define SPMVKIT_FORMATS_SELL_OFFSET16_SELL_OFFSET16_MATRIX_HPP

/// \file
/// The SellOffset16 format: SELL-C-sigma storing int16 column offsets from the row
/// (SellOffset16Matrix, make_sell_offset16, can_use_sell_offset16, SellOffset16Format). It reuses
/// the SELL class, layout, conversion and kernel through its column encoding.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

namespace detail {

/// Column encoding of SellOffset16Matrix: col - row as std::int16_t, where row is
/// the entry's original row.
struct Int16ColumnOffsets {
  template <class Ordinal>
  using stored_type = std::int16_t;
  static constexpr bool relative = true;
  static constexpr char const* family = "sell_offset16";
  static constexpr char const* class_name = "spmvkit::SellOffset16Matrix";
  static constexpr char const* make_name = "spmvkit::make_sell_offset16";
  static constexpr char const* label = "SpMVKit::SellOffset16::";
  template <class Ordinal>
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal encode(Ordinal col, Ordinal row) {
    return col - row;
  }
  template <class Ordinal, class Stored>
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal decode(Stored stored, Ordinal row) {
    return row + stored;
  }
  /// Why A's columns do not all fit int16 offsets ("" if they do); defined
  /// below with its kernel.
  template <class ExecutionSpace, class Source>
  static std::string obstacle(ExecutionSpace const& exec, std::int64_t num_rows,
                              std::int64_t num_cols, std::int64_t nnz, Source const& source);
};

} // namespace detail

/// SELL-C-σ with 16-bit column offsets from the row, for banded and stencil matrices.
///
/// It has the layout of SellMatrix (chunks of C rows, column-major inside a
/// chunk, optional σ-window sort, row_lengths for exact round trips, the same
/// padding rule), but each entry stores col - row as std::int16_t
/// (column_offsets()), where row is the entry's original row
/// (row_permutation()(stored_row) when permuted). SpMV is memory-bound and
/// moves value + index per entry, so this cuts the traffic from 12 to 10 bytes
/// per entry in double (8 to 6 in float), for matrices whose entries all lie
/// within [-32768, 32767] of the diagonal: banded and stencil matrices such as
/// the 27-point FEM matrix (offsets up to n^2 + n + 1, 25,761 for 160^3
/// unknowns).
///
/// Padding must reach x from the row too: an empty row pads with
/// min(row, num_cols - 1), so an empty row more than 32768 rows below the last
/// column cannot address any x entry, and make_sell_offset16() rejects a matrix with
/// such rows (num_rows > num_cols + 32768) unless it has no entries at all
/// (then every chunk has width 0 and nothing is padded). Such rows can hold no
/// entry anyway: any column would be out of reach.
///
/// Test with can_use_sell_offset16() before converting, or catch make_sell_offset16()'s
/// std::invalid_argument and fall back to SellMatrix. Every member is that of
/// BasicSellMatrix; use column_offsets(), not column_indices().
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using SellOffset16Matrix =
    BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, detail::Int16ColumnOffsets>;

/// Trait: whether T is a SellOffset16Matrix (any template arguments).
template <class T>
struct is_sell_offset16_matrix : std::false_type {};
/// Trait specialisation: a BasicSellMatrix with 16-bit column offsets is a SellOffset16Matrix.
template <class S, class E, class O, class F>
struct is_sell_offset16_matrix<BasicSellMatrix<S, E, O, F, detail::Int16ColumnOffsets>>
    : std::true_type {};
/// Whether T is a SellOffset16Matrix: `is_sell_offset16_matrix<T>::value`.
template <class T>
inline constexpr bool is_sell_offset16_matrix_v = is_sell_offset16_matrix<T>::value;

namespace detail {

inline constexpr std::int64_t sell_offset16_min_offset = -32768;
inline constexpr std::int64_t sell_offset16_max_offset = 32767;

/// Finds the first row with an entry out of int16 reach (val = row, loc = its
/// column), over any row source; rows are visited in increasing order per
/// thread, so a thread stops looking once it holds a lower row.
template <class Source>
struct SellOffset16OffsetCheck {
  using Ordinal = typename Source::ordinal_type;
  using value_type = typename Kokkos::MinLoc<Ordinal, Ordinal>::value_type;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row, value_type& first) const {
    if (row >= first.val) return;
    bool found = false;
    source.for_each_entry(row, [&](Ordinal col, typename Source::value_type) {
      const std::int64_t offset = static_cast<std::int64_t>(col) - row;
      if (!found && (offset < sell_offset16_min_offset || offset > sell_offset16_max_offset)) {
        found = true;
        first.val = row;
        first.loc = col;
      }
    });
  }
};

/// Why a matrix given by its row source cannot be stored as SellOffset16Matrix, or
/// "" if it can (see the padding rule on SellOffset16Matrix). Costs one pass over
/// the column indices.
template <class ExecutionSpace, class Source>
std::string sell_offset16_obstacle(ExecutionSpace const& exec, std::int64_t num_rows,
                                   std::int64_t num_cols, std::int64_t nnz, Source const& source) {
  using Ordinal = typename Source::ordinal_type;
  using Reducer = Kokkos::MinLoc<Ordinal, Ordinal>;
  typename Reducer::value_type first;
  Kokkos::parallel_reduce("SpMVKit::SellOffset16::check_offsets",
                          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(
                              exec, 0, static_cast<Ordinal>(num_rows)),
                          SellOffset16OffsetCheck<Source>{source}, Reducer(first));
  if (first.val < num_rows) { // MinLoc starts at the largest Ordinal
    const std::int64_t row = first.val, col = first.loc;
    return "row " + std::to_string(row) + " has column " + std::to_string(col) + ", offset " +
           std::to_string(col - row) + " outside int16";
  }
  const std::int64_t reachable_rows = num_cols - sell_offset16_min_offset;
  if (nnz > 0 && num_rows > reachable_rows) {
    return "row " + std::to_string(reachable_rows) +
           " has no entries and lies more than 32768 rows past the last column, so its "
           "padding could not address x";
  }
  return "";
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
std::string sell_offset16_obstacle(ExecutionSpace const& exec,
                                   CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return sell_offset16_obstacle(exec, A.num_rows(), A.num_cols(), A.nnz(), crs_row_source(A));
}

} // namespace detail

namespace detail {
template <class ExecutionSpace, class Source>
std::string Int16ColumnOffsets::obstacle(ExecutionSpace const& exec, std::int64_t num_rows,
                                         std::int64_t num_cols, std::int64_t nnz,
                                         Source const& source) {
  return sell_offset16_obstacle(exec, num_rows, num_cols, nnz, source);
}
} // namespace detail

/// Whether make_sell_offset16() accepts A: every column within int16 reach of its
/// row, and no empty row whose padding could not reach x (see SellOffset16Matrix).
///
/// Runs one pass over A's column indices on exec and reads the verdict back
/// (synchronous). A must have a valid structure, which this does not check
/// (check_structure() does); nor does it check a chunk size. make_sell_offset16()
/// checks both.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
bool can_use_sell_offset16(ExecutionSpace const& exec,
                           CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return detail::sell_offset16_obstacle(exec, A).empty();
}

/// Converts CRS to SELL-C-σ with 16-bit offsets on A's execution space, with
/// the chunking, σ-window sort and padding widths of make_sell(). Checks first
/// that the matrix fits (std::invalid_argument naming the first offending row
/// otherwise); the check and the stored size are the only values that travel
/// to the host.
///
/// Parameters, the other exceptions (invalid C or σ, broken CRS structure,
/// sizes beyond the index types, AllocationError) and the cost are those of
/// make_sell(), plus one pass over the column indices for the int16 check.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
SellOffset16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell_offset16(ExecutionSpace const& exec,
                   CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
                   std::int64_t sigma = 1) {
  return detail::make_basic_sell<detail::Int16ColumnOffsets>(exec, A, chunk_size, sigma);
}

/// make_sell_offset16() on a default-constructed instance of A's execution space.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
SellOffset16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell_offset16(CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
                   std::int64_t sigma = 1) {
  return make_sell_offset16(ExecutionSpace(), A, chunk_size, sigma);
}

/// The format tag of SellOffset16Matrix: SELL-C-sigma with int16 column offsets
/// (core/format_concept.hpp).
using SellOffset16Format = BasicSellFormat<detail::Int16ColumnOffsets>;

// The names before 0.3, when "Sell16" read as SELL with C = 16 (see CHANGELOG); removed in 0.4.
/// Deprecated: SellOffset16Matrix.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using Sell16Matrix [[deprecated("renamed SellOffset16Matrix")]] =
    SellOffset16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>;
/// Deprecated: SellOffset16Format.
using Sell16Format [[deprecated("renamed SellOffset16Format")]] = SellOffset16Format;
/// Deprecated: is_sell_offset16_matrix.
template <class T>
using is_sell16_matrix [[deprecated("renamed is_sell_offset16_matrix")]] =
    is_sell_offset16_matrix<T>;

/// Deprecated: make_sell_offset16().
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
[[deprecated(
    "renamed make_sell_offset16")]] SellOffset16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell16(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
            int chunk_size, std::int64_t sigma = 1) {
  return make_sell_offset16(exec, A, chunk_size, sigma);
}

/// Deprecated: make_sell_offset16().
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
[[deprecated(
    "renamed make_sell_offset16")]] SellOffset16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell16(CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
            std::int64_t sigma = 1) {
  return make_sell_offset16(ExecutionSpace(), A, chunk_size, sigma);
}

/// Deprecated: can_use_sell_offset16().
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
[[deprecated("renamed can_use_sell_offset16")]] bool
can_use_sell16(ExecutionSpace const& exec,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return can_use_sell_offset16(exec, A);
}

} // namespace spmvkit

#endif
