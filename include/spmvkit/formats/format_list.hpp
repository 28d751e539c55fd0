// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_FORMAT_LIST_HPP
#define SPMVKIT_FORMATS_FORMAT_LIST_HPP

/// \file
/// The one list of SpMVKit's formats. The tests, the benchmarks and the
/// examples iterate over it; spmv and cg need only the matrix's own format
/// (core/format_concept.hpp). Adding a format: its folder under formats/, its
/// header included here, and one entry in format_list.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/formats/coo/coo_matrix.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/csrk/csrk_matrix.hpp>
#include <spmvkit/formats/ell/ell_matrix.hpp>
#include <spmvkit/formats/ellr/ellr_matrix.hpp>
#include <spmvkit/formats/hyb/hyb_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/formats/sell_offset16/sell_offset16_matrix.hpp>

namespace spmvkit {

/// Every format tag of SpMVKit, in a fixed order: CrsFormat, SellFormat, SellOffset16Format,
/// EllFormat, EllrFormat, CsrkFormat, CooFormat, HybFormat, BsrFormat.
///
/// A type_list: walk it with for_each_type() to do something for every format (tests,
/// benchmarks, the examples' `--formats`). Formats that cannot store a given matrix say so
/// through their `obstacle()` (see core/format_concept.hpp) rather than by leaving the list.
using format_list = type_list<CrsFormat, SellFormat, SellOffset16Format, EllFormat, EllrFormat,
                              CsrkFormat, CooFormat, HybFormat, BsrFormat>;

} // namespace spmvkit

#endif
