// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_SPMV_HPP
#define SPMVKIT_OPERATIONS_SPMV_HPP

/// \file
/// spmv: y = beta y + alpha A x for a matrix of any SpMVKit format. The entry
/// validates (static_asserts naming spmv, extents, aliasing), applies the BLAS
/// alpha/beta rules, and hands the rest to the matrix's format
/// (format_of_t<Matrix>::apply); it lists no formats.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/format_concept.hpp>

#include <Kokkos_Core.hpp>

#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace spmvkit {

namespace detail {

template <class ExecutionSpace, class Matrix, class XView, class YView>
void check_spmv_arguments(Matrix const& A, XView const& x, YView const& y) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "spmvkit::spmv: the first argument must be a Kokkos execution space instance");
  static_assert(std::is_same_v<ExecutionSpace, typename Matrix::execution_space>,
                "spmvkit::spmv: the execution space must be the matrix's execution space");
  static_assert(Kokkos::is_view<XView>::value, "spmvkit::spmv: x must be a Kokkos::View");
  static_assert(Kokkos::is_view<YView>::value, "spmvkit::spmv: y must be a Kokkos::View");
  static_assert(static_cast<int>(XView::rank) == 1, "spmvkit::spmv: x must have rank 1");
  static_assert(static_cast<int>(YView::rank) == 1, "spmvkit::spmv: y must have rank 1");
  static_assert(std::is_same_v<typename YView::value_type, typename YView::non_const_value_type>,
                "spmvkit::spmv: y must be non-const");
  static_assert(
      std::is_same_v<typename XView::non_const_value_type, typename YView::non_const_value_type>,
      "spmvkit::spmv: x and y must hold the same value type");
  static_assert(
      is_spmv_vector_scalar_v<typename Matrix::value_type, typename XView::non_const_value_type>,
      "spmvkit::spmv: x and y must hold the matrix's value_type, or (mixed precision) "
      "double for a float matrix or float for a double matrix");
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace, typename XView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace, typename YView::memory_space>::accessible,
      "spmvkit::spmv: x and y must be accessible from the execution space");

  if (static_cast<std::int64_t>(x.extent(0)) != A.num_cols() ||
      static_cast<std::int64_t>(y.extent(0)) != A.num_rows()) {
    std::ostringstream os;
    os << "spmvkit::spmv: dimensions do not match: A is " << A.num_rows() << " x " << A.num_cols()
       << ", x has " << x.extent(0) << " entries (needs " << A.num_cols() << "), y has "
       << y.extent(0) << " entries (needs " << A.num_rows() << ")";
    throw std::invalid_argument(os.str());
  }
  // y is written while x is read: overlapping storage would give a result
  // that depends on thread timing.
  if (x.span() > 0 && y.span() > 0) {
    auto const* xb = reinterpret_cast<char const*>(x.data());
    auto const* yb = reinterpret_cast<char const*>(y.data());
    auto const* xe = xb + x.span() * sizeof(typename XView::value_type);
    auto const* ye = yb + y.span() * sizeof(typename YView::value_type);
    if (xb < ye && yb < xe) {
      throw std::invalid_argument("spmvkit::spmv: x and y must not share storage");
    }
  }
}

template <class ExecutionSpace, class Matrix, class XView, class YView, class Launch>
void spmv_dispatch(ExecutionSpace const& exec, spmv_scalar_t<Matrix, XView> alpha, Matrix const& A,
                   XView const& x, spmv_scalar_t<Matrix, XView> beta, YView const& y,
                   Launch&& launch) {
  check_spmv_arguments<ExecutionSpace>(A, x, y);
  using Scalar = spmv_scalar_t<Matrix, XView>;
  using Vector = typename XView::non_const_value_type;
  using Device = typename Matrix::device_type;
  using X = kernel_x_type<Vector, Device, typename XView::array_layout>;
  using Y = kernel_y_type<Vector, Device, typename YView::array_layout>;
  const X xk = x;
  const Y yk = y;
  if (alpha == Scalar(0)) {
    if (beta == Scalar(1)) return; // y = y
    Kokkos::parallel_for("SpMVKit::spmv::scale_y",
                         Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                             exec, 0, static_cast<std::int64_t>(y.extent(0))),
                         ScaleY<Y, Scalar>{yk, beta});
    return;
  }
  launch(xk, yk);
}

} // namespace detail

/// y = beta * y + alpha * A * x on the execution space instance `exec`, for a
/// matrix of any SpMVKit format.
///
/// - beta == 0: y is overwritten without being read, so NaN/Inf in y do not
///   propagate (BLAS semantics).
/// - alpha == 0: A and x are not read; y = beta * y (zero if beta == 0); with
///   beta == 1 nothing is launched.
/// - x and y must not overlap; their extents must be num_cols and num_rows
///   (std::invalid_argument otherwise).
/// The call is asynchronous with respect to the host, like any Kokkos kernel
/// launched on `exec`.
///
/// Mixed precision: x and y may hold double for a float matrix, or float for
/// a double matrix (both the same type). Every row is then summed in the wider
/// type, alpha and beta are taken in it, and y is rounded when stored (once;
/// with float y, twice for a row stored in two parts: HYB's tail rows and rows
/// that a merge-path tile splits in balanced CRS and COO): a
/// float matrix with double vectors reads 4-byte values and gives a product
/// accurate to double rounding of the float matrix's exact product. With
/// vectors of the matrix's type the kernels are the same-precision ones.
///
/// `options` are the format's (format_of_t<Matrix>::options_type); for CRS they
/// choose the kernel, e.g. spmv(exec, 1, A, x, 0, y, CrsKernel::vector).
/// Without them, the options the matrix was built with.
///
/// \param exec    execution space instance; its type must be the matrix's
///                execution_space (compile-time check)
/// \param alpha   scale of A x, converted to the wider of the matrix's and the
///                vectors' value types
/// \param A       a CrsMatrix, SellMatrix or SellOffset16Matrix (any type naming a format_type)
/// \param x       rank-1 `Kokkos::View` of num_cols entries of the matrix's value_type or
///                the mixed-precision partner (const or not, any layout), accessible from exec
/// \param beta    scale of y, converted like alpha
/// \param y       rank-1 non-const `Kokkos::View` of num_rows entries of x's value type
///                (any layout), accessible from exec
/// \param options the format's options for this call (SellOptions are ignored: the
///                layout is fixed at conversion)
///
/// Wrong View types, ranks, value types or memory spaces are compile errors
/// (`static_assert` messages naming spmvkit::spmv). Throws std::invalid_argument
/// when the extents do not match A or x and y share storage; nothing is
/// launched then.
///
/// Cost: one pass over the stored entries (nnz multiply-adds for CRS,
/// stored_entries() for SELL, padding included); memory traffic at least
/// `spmv_bytes<V>(A).total()` bytes for vectors of V (SpmvBytes). No allocation.
template <class ExecutionSpace, class Matrix, class XView, class YView,
          class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
void spmv(ExecutionSpace const& exec, detail::spmv_scalar_t<Matrix, XView> alpha, Matrix const& A,
          XView const& x, detail::spmv_scalar_t<Matrix, XView> beta, YView const& y,
          typename format_of_t<Matrix>::options_type const& options) {
  using Format = format_of_t<Matrix>;
  static_assert(check_format<Format, typename Matrix::value_type, ExecutionSpace>());
  detail::spmv_dispatch(exec, alpha, A, x, beta, y, [&](auto const& xk, auto const& yk) {
    Format::apply(exec, alpha, A, xk, beta, yk, options);
  });
}

/// y = beta * y + alpha * A * x on `exec` with the options A was built with
/// (`format_of_t<Matrix>::options(A)`: the automatic kernel for CRS).
///
/// Same rules, exceptions and cost as the overload with options.
template <class ExecutionSpace, class Matrix, class XView, class YView,
          class = std::enable_if_t<is_spmvkit_matrix_v<Matrix> &&
                                   Kokkos::is_execution_space<ExecutionSpace>::value>>
void spmv(ExecutionSpace const& exec, detail::spmv_scalar_t<Matrix, XView> alpha, Matrix const& A,
          XView const& x, detail::spmv_scalar_t<Matrix, XView> beta, YView const& y) {
  spmv(exec, alpha, A, x, beta, y, format_of_t<Matrix>::options(A));
}

/// y = beta * y + alpha * A * x on a default-constructed instance of the
/// matrix's execution space, with the options A was built with.
///
/// Same rules, exceptions and cost as the overload with options.
template <class Matrix, class XView, class YView,
          class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
void spmv(detail::spmv_scalar_t<Matrix, XView> alpha, Matrix const& A, XView const& x,
          detail::spmv_scalar_t<Matrix, XView> beta, YView const& y) {
  spmv(typename Matrix::execution_space(), alpha, A, x, beta, y);
}

} // namespace spmvkit

#endif
