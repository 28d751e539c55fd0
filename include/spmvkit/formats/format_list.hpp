#ifndef SPMVKIT_FORMATS_FORMAT_LIST_HPP
#define SPMVKIT_FORMATS_FORMAT_LIST_HPP

/// The one list of SpMVKit's formats. The tests, the benchmarks and the
/// examples iterate over it; spmv and cg need only the matrix's own format
/// (core/format_concept.hpp). Adding a format: its folder under formats/, its
/// header included here, and one entry in format_list.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/ell/ell_matrix.hpp>
#include <spmvkit/formats/ellr/ellr_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/formats/sell16/sell16_matrix.hpp>

namespace spmvkit {

using format_list = type_list<CrsFormat, SellFormat, Sell16Format, EllFormat, EllrFormat>;

} // namespace spmvkit

#endif
