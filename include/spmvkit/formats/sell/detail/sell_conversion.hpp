// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_DETAIL_SELL_CONVERSION_HPP
#define SPMVKIT_FORMATS_SELL_DETAIL_SELL_CONVERSION_HPP

// Conversion of any row source, and of CRS, to a SELL format of any column
// encoding (the class is in formats/sell/sell_matrix.hpp).
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
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
