// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_ELLR_ELLR_MATRIX_HPP
#define SPMVKIT_FORMATS_ELLR_ELLR_MATRIX_HPP

/// The ELL-R format (ELLPACK-R, Vázquez et al. 2010): ELL's n x w
/// column-major block plus the length of each row, so that each row stops at
/// its own length instead of walking the padding (EllrMatrix, make_ellr,
/// EllrFormat). It reuses ELL's class, layout, conversions, padding limit and
/// kernel through its width policy.
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/ell/ell_matrix.hpp>

#include <Kokkos_Core.hpp>

namespace spmvkit {

namespace detail {

/// Width policy of ELL-R: each row walks row_lengths()(row) entries. On a GPU
/// a thread whose row is done idles while the longer rows of its warp go on,
/// and the padding slots are never requested; on the host a thread walks its
/// strip of rows column by column to the strip's longest row and drops the
/// shorter rows' padded terms (detail::EllSpmv).
struct EllRowLengths {
  static constexpr char const* family = "ellr";
  static constexpr char const* class_name = "spmvkit::EllrMatrix";
  static constexpr char const* make_name = "spmvkit::make_ellr";
  static constexpr char const* label = "SpMVKit::EllR::";
  static constexpr bool stops_at_row_length = true;
  /// The entries the kernel reads, nnz x (value + column), plus the row
  /// lengths. A lower bound: a GPU reads 32-byte sectors, so where rows of
  /// one warp end at different lengths some padding travels along.
  static double matrix_bytes(double rows, double nnz, double /*stored*/, double value_bytes,
                             double index_bytes) {
    return nnz * (value_bytes + index_bytes) + rows * index_bytes;
  }
};

} // namespace detail

/// ELLPACK-R: the layout of EllMatrix (same padding rule, same limit on the
/// padded size, row_lengths() for exact round trips), and a kernel that stops
/// each row at its own length.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using EllrMatrix = BasicEllMatrix<Scalar, ExecutionSpace, Ordinal, Offset, detail::EllRowLengths>;

/// ELLPACK-R (core/format_concept.hpp).
using EllrFormat = BasicEllFormat<detail::EllRowLengths>;

/// Converts CRS to ELL-R on A's execution space, with the checks of
/// make_ell() (CRS structure, padding limit before allocation).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
EllrMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_ellr(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
          EllOptions const& options = {}) {
  return EllrFormat::from_crs(exec, A, options);
}

} // namespace spmvkit

#endif
