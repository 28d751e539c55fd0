// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_DETAIL_SELL_CONVERSION_HPP
#define SPMVKIT_FORMATS_SELL_DETAIL_SELL_CONVERSION_HPP

// Conversion of any row source, and of CRS, to a SELL format of any column
// encoding (the class is in formats/sell/sell_matrix.hpp).
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/crs/detail/crs_refill.hpp>
#include <spmvkit/formats/sell/detail/sell_layout.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Columns>
class BasicSellMatrix;

namespace detail {

/// Any row source (core/format_concept.hpp) -> SELL with any column
/// encoding, on exec: checks, row lengths, the layout, one fill. The stored
/// size is the one value that travels to the host (for the allocation), and
/// everything is checked before the large arrays are allocated.
template <class Columns, class ExecutionSpace, class Source>
BasicSellMatrix<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                typename Source::offset_type, Columns>
make_basic_sell_from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
                          std::int64_t nnz, Source const& source, int chunk_size,
                          std::int64_t sigma) {
  using Ordinal = typename Source::ordinal_type;
  using Offset = typename Source::offset_type;
  using Sell =
      BasicSellMatrix<typename Source::value_type, ExecutionSpace, Ordinal, Offset, Columns>;
  using Device = typename Sell::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::string label = Columns::label;
  if (chunk_size < 1 || sigma < 1) {
    throw std::invalid_argument(std::string(Columns::make_name) +
                                ": chunk size C and sigma must be >= 1, got C = " +
                                std::to_string(chunk_size) + ", sigma = " + std::to_string(sigma));
  }
  const Ordinal n = checked_index<Ordinal>(num_rows, "num_rows", Columns::make_name);
  const Ordinal m = checked_index<Ordinal>(num_cols, "num_cols", Columns::make_name);
  // The backend's limit on C, then whether the encoding can hold every column.
  std::string obstacle = sell_chunk_size_obstacle<ExecutionSpace>(chunk_size);
  if (obstacle.empty()) {
    obstacle = Columns::obstacle(exec, num_rows, num_cols, nnz, source);
    if (!obstacle.empty() && Columns::relative) obstacle += "; use SellMatrix";
  }
  if (!obstacle.empty()) {
    throw std::invalid_argument(std::string(Columns::make_name) + ": " + obstacle);
  }
  auto lengths = allocate_view<typename Sell::ordinals_type>(exec, label + "row_lengths", n);
  Kokkos::parallel_for(label + "row_lengths", Range(exec, 0, n),
                       SourceRowLengths<Source, typename Sell::ordinals_type>{source, lengths});
  const SellLayout<Ordinal, Offset, ExecutionSpace> layout(exec, lengths, chunk_size, sigma, label,
                                                           Columns::make_name);
  auto cols = allocate_view<typename Sell::columns_type>(exec, label + "columns", layout.stored);
  auto vals = allocate_view<typename Sell::values_type>(exec, label + "values", layout.stored);
  Kokkos::parallel_for(label + "fill", Range64(exec, 0, layout.num_chunks * chunk_size),
                       FillSell<Columns, Source, Offset, Device>{source, layout.perm, layout.starts,
                                                                 layout.widths, cols, vals, n, m,
                                                                 chunk_size});
  return Sell(n, m, nnz, chunk_size, layout.sigma, layout.starts, layout.widths, cols, vals,
              layout.perm, lengths);
}

/// New values of the same pattern into a SELL layout (BasicSellFormat::refill), one thread per
/// stored row: RefillCheck compares the row's length and decoded columns, RefillValues writes
/// the values; padding slots keep their zeros.
template <class Columns, class Source, class Offset, class Device>
struct RefillSell {
  using Scalar = typename Source::value_type;
  using Ordinal = typename Source::ordinal_type;
  using Stored = typename Columns::template stored_type<Ordinal>;
  Source source;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Stored*, Device> cols;
  Kokkos::View<Scalar*, Device> vals;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION Ordinal row_of(std::int64_t s) const {
    return perm.extent(0) ? perm(s) : static_cast<Ordinal>(s);
  }
  KOKKOS_INLINE_FUNCTION Offset base_of(std::int64_t s) const {
    return chunk_starts(static_cast<Ordinal>(s / chunk_size)) + static_cast<Offset>(s % chunk_size);
  }
  KOKKOS_INLINE_FUNCTION void operator()(RefillCheck, std::int64_t s, std::int64_t& first) const {
    const Ordinal row = row_of(s);
    if (row >= first) return;
    bool differs = source.length(row) != lengths(row);
    if (!differs) {
      const Offset base = base_of(s);
      Ordinal j = 0;
      // Decoded, not encoded, so that a column out of the encoding's reach cannot wrap onto
      // the stored one.
      source.for_each_entry(row, [&](Ordinal col, Scalar) {
        if (Columns::decode(cols(base + static_cast<Offset>(j) * chunk_size), row) != col)
          differs = true;
        ++j;
      });
    }
    if (differs) first = row;
  }
  KOKKOS_INLINE_FUNCTION void operator()(RefillValues, std::int64_t s) const {
    const Ordinal row = row_of(s);
    const Offset base = base_of(s);
    Ordinal j = 0;
    source.for_each_entry(row, [&](Ordinal, Scalar value) {
      vals(base + static_cast<Offset>(j) * chunk_size) = value;
      ++j;
    });
  }
};

/// BasicSellFormat::refill: B's values into S's layout after the checks of refill_by_rows.
template <class Columns, class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Crs>
void refill_sell(ExecutionSpace const& exec,
                 BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns> const& S,
                 Crs const& B) {
  using Device = typename Crs::device_type;
  const auto source = crs_row_source(B);
  refill_by_rows(exec, S, B,
                 RefillSell<Columns, decltype(source), Offset, Device>{
                     source, S.row_permutation(), S.chunk_starts(), S.row_lengths(),
                     S.stored_columns(), S.values(), S.chunk_size()},
                 Columns::label, std::string(Columns::class_name) + "::refill");
}

/// CRS -> SELL with any column encoding, on A's execution space. A broken
/// CRS (decreasing row starts, columns out of range) would give a SELL matrix
/// that computes a wrong y, or reads out of bounds, so its structure is
/// checked first (one pass, about the cost of one SpMV) unless the caller
/// vouches for it (validate = false).
template <class Columns, class Scalar, class ExecutionSpace, class Ordinal, class Offset>
BasicSellMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Columns>
make_basic_sell(ExecutionSpace const& exec,
                CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
                std::int64_t sigma, bool validate = true) {
  if (validate) ensure_structure(exec, A);
  return make_basic_sell_from_rows<Columns>(exec, A.num_rows(), A.num_cols(), A.nnz(),
                                            crs_row_source(A), chunk_size, sigma);
}

} // namespace detail

} // namespace spmvkit

#endif
