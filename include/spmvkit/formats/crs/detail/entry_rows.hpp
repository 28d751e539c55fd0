// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CRS_DETAIL_ENTRY_ROWS_HPP
#define SPMVKIT_FORMATS_CRS_DETAIL_ENTRY_ROWS_HPP

// The row of each stored entry of a CRS matrix, for kernels that run one
// thread per nonzero (ILU(0)'s sweeps, transpose, sparse addition).
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

/// rows(k) = the row of entry k, from the row starts; one work item per row.
template <class Starts, class Rows>
struct CrsEntryRows {
  Starts starts;
  Rows rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    for (auto k = starts(i); k < starts(i + 1); ++k)
      rows(k) = static_cast<typename Rows::value_type>(i);
  }
};

} // namespace spmvkit::detail

#endif
