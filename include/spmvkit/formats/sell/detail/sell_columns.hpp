// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL_DETAIL_SELL_COLUMNS_HPP
#define SPMVKIT_FORMATS_SELL_DETAIL_SELL_COLUMNS_HPP

// Column encodings of the SELL formats: AbsoluteColumns (SellMatrix) here,
// Int16ColumnOffsets in formats/sell_offset16/.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace spmvkit {

namespace detail {

/// How a SELL format stores the column of an entry. The chunk layout, the
/// conversions and the SpMV kernel are written once for every encoding; an
/// encoding only says what is stored per entry and how the kernel turns it
/// back into a column, given the entry's original row.
///
/// AbsoluteColumns stores the column itself (SellMatrix).
struct AbsoluteColumns {
  template <class Ordinal>
  using stored_type = Ordinal;
  /// Whether decode() needs the row (the kernel then loads rows up front).
  static constexpr bool relative = false;
  static constexpr char const* family = "sell";
  static constexpr char const* class_name = "spmvkit::SellMatrix";
  static constexpr char const* make_name = "spmvkit::make_sell";
  static constexpr char const* label = "SpMVKit::Sell::";
  template <class Ordinal>
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal encode(Ordinal col, Ordinal /*row*/) {
    return col;
  }
  template <class Ordinal, class Stored>
  KOKKOS_FORCEINLINE_FUNCTION static Ordinal decode(Stored stored, Ordinal /*row*/) {
    return static_cast<Ordinal>(stored);
  }
  /// Every matrix can be stored with absolute columns.
  template <class ExecutionSpace, class Source>
  static std::string obstacle(ExecutionSpace const&, std::int64_t, std::int64_t, std::int64_t,
                              Source const&) {
    return "";
  }
};

} // namespace detail

} // namespace spmvkit

#endif
