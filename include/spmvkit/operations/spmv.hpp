// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_SPMV_HPP
#define SPMVKIT_OPERATIONS_SPMV_HPP

/// \file
/// spmv: y = beta y + alpha op(A) x for a matrix of any SpMVKit format, op(A)
/// = A or Aᵀ (SpmvMode), x and y one vector each (rank 1) or k columns each
/// (rank 2). The entry validates (static_asserts naming spmv, extents,
/// aliasing), applies the BLAS alpha/beta rules, and hands the rest to the
/// matrix's format (format_of_t<Matrix>::apply); it lists no formats.
///
/// Several columns: the format's kernel runs once per block of K = 8, 4, 2 or
/// 1 columns (16 first for LayoutRight on host backends: detail::column_block,
/// detail::for_each_column_block), carrying K sums per row
/// (detail::Lanes), so the matrix is read once per block rather than once per
/// column. On host backends, formats with walks_column_blocks (CRS, SELL, COO
/// and HYB) get all whole blocks of 16 of a LayoutRight product at once and
/// walk them inside the row loop. The merge-path kernels (balanced CRS, COO, HYB's tail)
/// keep K carries per tile; on GPUs they stage a tile's values and columns
/// and scan K lanes (formats/crs/detail/merge_path.hpp).
///
/// Transposed products run the format's own kernel on a transposed twin that
/// the matrix builds at the first one and keeps (core/detail/kept_transpose.hpp):
/// deterministic, no atomics, as fast as a product with Aᵀ stored, at the
/// cost of a second copy of the matrix (forget_transpose() frees it).
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/transpose.hpp>

#include <Kokkos_Core.hpp>

#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

/// Which product spmv computes (BLAS's trans argument).
enum class SpmvMode {
  none,               ///< y = beta y + alpha A x
  transpose,          ///< y = beta y + alpha Aᵀ x
  conjugate_transpose ///< y = beta y + alpha Aᴴ x: Aᵀ x for SpMVKit's real scalars
};

/// "none", "transpose" or "conjugate_transpose".
inline char const* name(SpmvMode mode) {
  switch (mode) {
  case SpmvMode::none: return "none";
  case SpmvMode::transpose: return "transpose";
  case SpmvMode::conjugate_transpose: return "conjugate_transpose";
  }
  return "unknown";
}

namespace detail {

template <class ExecutionSpace, class Matrix, class XView, class YView>
void check_spmv_arguments(Matrix const& A, XView const& x, YView const& y,
                          SpmvMode mode = SpmvMode::none) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "spmvkit::spmv: the first argument must be a Kokkos execution space instance");
  static_assert(std::is_same_v<ExecutionSpace, typename Matrix::execution_space>,
                "spmvkit::spmv: the execution space must be the matrix's execution space");
  static_assert(Kokkos::is_view<XView>::value, "spmvkit::spmv: x must be a Kokkos::View");
  static_assert(Kokkos::is_view<YView>::value, "spmvkit::spmv: y must be a Kokkos::View");
  static_assert(static_cast<int>(XView::rank) == 1 || static_cast<int>(XView::rank) == 2,
                "spmvkit::spmv: x must have rank 1 (a vector) or 2 (columns of vectors)");
  static_assert(static_cast<int>(XView::rank) == static_cast<int>(YView::rank),
                "spmvkit::spmv: x and y must have the same rank");
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

  const bool t = mode != SpmvMode::none;
  const std::int64_t x_rows = t ? A.num_rows() : A.num_cols();
  const std::int64_t y_rows = t ? A.num_cols() : A.num_rows();
  if (static_cast<std::int64_t>(x.extent(0)) != x_rows ||
      static_cast<std::int64_t>(y.extent(0)) != y_rows) {
    std::ostringstream os;
    os << "spmvkit::spmv: dimensions do not match: " << (t ? "A^T" : "A") << " is "
       << (t ? A.num_cols() : A.num_rows()) << " x " << x_rows << " (A is " << A.num_rows() << " x "
       << A.num_cols() << ", mode " << name(mode) << "), x has " << x.extent(0) << " rows (needs "
       << x_rows << "), y has " << y.extent(0) << " rows (needs " << y_rows << ")";
    throw std::invalid_argument(os.str());
  }
  if constexpr (static_cast<int>(XView::rank) == 2) {
    if (x.extent(1) != y.extent(1)) {
      throw std::invalid_argument("spmvkit::spmv: x has " + std::to_string(x.extent(1)) +
                                  " columns and y " + std::to_string(y.extent(1)) +
                                  "; they must have the same number");
    }
    if (x.extent(1) == 0) {
      throw std::invalid_argument("spmvkit::spmv: x and y have 0 columns");
    }
    if (x.extent(1) > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw std::invalid_argument("spmvkit::spmv: more than 2^31 - 1 columns");
    }
  }
  // y is written while x is read: overlapping storage would give a result
  // that depends on thread timing.
  if (storage_overlaps(x, y)) {
    throw std::invalid_argument("spmvkit::spmv: x and y must not share storage");
  }
}

/// y = beta y for a block of columns (alpha == 0).
template <class Y, class Scalar>
struct ScaleColumns {
  Y y;
  Scalar beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    for (std::size_t c = 0; c < y.extent(1); ++c) {
      y(i, c) = static_cast<typename Y::value_type>(beta == Scalar(0) ? Scalar(0) : beta * y(i, c));
    }
  }
};

/// Calls f(std::integral_constant<int, K>, c0) for blocks of K = 16 (when
/// MaxK = 16), 8, 4, 2 or 1 columns covering [0, k): at most ceil(k / 8) + 2 blocks.
template <int MaxK = 8, class F>
void for_each_column_block(int k, F&& f) {
  int c0 = 0;
  if constexpr (MaxK >= 16) {
    for (; c0 + 16 <= k; c0 += 16) f(std::integral_constant<int, 16>{}, c0);
  }
  for (; c0 + 8 <= k; c0 += 8) f(std::integral_constant<int, 8>{}, c0);
  if (c0 + 4 <= k) {
    f(std::integral_constant<int, 4>{}, c0);
    c0 += 4;
  }
  if (c0 + 2 <= k) {
    f(std::integral_constant<int, 2>{}, c0);
    c0 += 2;
  }
  if (c0 < k) f(std::integral_constant<int, 1>{}, c0);
}

/// y = beta y (beta != 1), for rank 1 or rank 2 y: alpha == 0.
template <class ExecutionSpace, class Scalar, class YView>
void scale_only(ExecutionSpace const& exec, Scalar beta, YView const& y) {
  using Vector = typename YView::non_const_value_type;
  using Device = Kokkos::Device<ExecutionSpace, typename YView::memory_space>;
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>> rows(
      exec, 0, static_cast<std::int64_t>(y.extent(0)));
  if constexpr (static_cast<int>(YView::rank) == 1) {
    using Y = kernel_y_type<Vector, Device, typename YView::array_layout>;
    Kokkos::parallel_for("SpMVKit::spmv::scale_y", rows, ScaleY<Y, Scalar>{y, beta});
  } else {
    using Y = Kokkos::View<Vector**, typename YView::array_layout, Device,
                           Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    Kokkos::parallel_for("SpMVKit::spmv::scale_columns", rows, ScaleColumns<Y, Scalar>{y, beta});
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
  if (alpha == Scalar(0)) {
    if (beta != Scalar(1)) scale_only(exec, beta, y); // beta == 1: y = y
    return;
  }
  if constexpr (static_cast<int>(XView::rank) == 1) {
    using X = kernel_x_type<Vector, Device, typename XView::array_layout>;
    using Y = kernel_y_type<Vector, Device, typename YView::array_layout>;
    launch(X(x), Y(y));
  } else {
    using X = Kokkos::View<const Vector**, typename XView::array_layout, Device,
                           Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
    using Y = Kokkos::View<Vector**, typename YView::array_layout, Device,
                           Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const X xk = x;
    const Y yk = y;
    constexpr int max_block = column_block<ExecutionSpace, typename XView::array_layout>;
    const int k = static_cast<int>(x.extent(1));
    int first = 0;
    // Formats that walk blocks inside their row loop take all whole blocks of a wide
    // LayoutRight product at once: one read of the matrix and of x's and y's rows instead of
    // one per block (docs/notes/2026-12-01-multivector-host-wide.md).
    if constexpr (max_block == 16 && walks_column_blocks<format_of_t<Matrix>>::value) {
      const int blocks = k / max_block;
      if (blocks >= 2) {
        launch(MultiX<X, max_block>{xk, 0, blocks}, MultiY<Y, max_block>{yk, 0, blocks});
        first = blocks * max_block;
      }
    }
    for_each_column_block<max_block>(k - first, [&](auto width, int c0) {
      constexpr int K = decltype(width)::value;
      launch(MultiX<X, K>{xk, first + c0}, MultiY<Y, K>{yk, first + c0});
    });
  }
}

struct VisitProbe {
  template <class A, class B>
  void operator()(A const&, B const&) const {}
};
// Matrices that hold another (AutoMatrix) forward transposed products to it.
template <class, class = void>
struct has_visit : std::false_type {};
template <class M>
struct has_visit<M, std::void_t<decltype(std::declval<M const&>().visit(VisitProbe{}))>>
    : std::true_type {};

/// The transposed twin a matrix keeps: in its own format, or in CRS where
/// the format cannot store Aᵀ (ELL with a dense column in A, for one).
template <class Matrix>
struct TransposedTwin {
  std::shared_ptr<Matrix const> same;
  std::shared_ptr<typename Matrix::crs_type const> crs;
};

template <class ExecutionSpace, class Matrix>
TransposedTwin<Matrix> const& transposed_twin(ExecutionSpace const& exec, Matrix const& A,
                                              std::shared_ptr<TransposedTwin<Matrix> const>& hold) {
  using F = format_of_t<Matrix>;
  using Crs = typename Matrix::crs_type;
  hold = A.kept_transpose().template get<TransposedTwin<Matrix>>([&] {
    TransposedTwin<Matrix> twin;
    if constexpr (std::is_same_v<Matrix, Crs>) {
      twin.same = std::make_shared<Crs const>(transpose(exec, A));
    } else {
      Crs t = transpose(exec, F::to_crs(exec, A));
      const auto o = F::options(A);
      if (F::obstacle(exec, t, o).empty()) {
        twin.same = std::make_shared<Matrix const>(F::from_crs(exec, t, o));
      } else {
        twin.crs = std::make_shared<Crs const>(std::move(t));
      }
    }
    return twin;
  });
  return *hold;
}

} // namespace detail

/// y = beta * y + alpha * op(A) * x on the execution space instance `exec`,
/// for a matrix of any SpMVKit format; op(A) = A, or Aᵀ for
/// SpmvMode::transpose and conjugate_transpose.
///
/// - x and y: rank 1 (a vector each), or rank 2 (k >= 1 columns each, the
///   same k, any layout): column c of y takes op(A) times column c of x, the
///   matrix read once per block of up to 8 columns (16 for LayoutRight on
///   host backends, where CRS, SELL, COO and HYB, also as the automatic
///   format's choice, read it once for all whole blocks of 16).
/// - Transposed: the first transposed product builds a transposed twin of A
///   in A's format (in CRS where the format cannot store Aᵀ) and A keeps it
///   for the next ones (forget_transpose() frees it): the same kernels, no
///   atomics, results independent of thread timing, twice A's memory.
/// - beta == 0: y is overwritten without being read, so NaN/Inf in y do not
///   propagate (BLAS semantics).
/// - alpha == 0: A and x are not read; y = beta * y (zero if beta == 0); with
///   beta == 1 nothing is launched.
/// - x and y must not overlap; they must have op(A)'s num_cols and num_rows
///   rows and, rank 2, the same number of columns, at least one
///   (std::invalid_argument otherwise, naming the dimension).
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
/// \param mode    SpmvMode::none (A x) or transpose / conjugate_transpose (Aᵀ x)
/// \param alpha   scale of A x, converted to the wider of the matrix's and the
///                vectors' value types
/// \param A       a CrsMatrix, SellMatrix or SellOffset16Matrix (any type naming a format_type)
/// \param x       rank-1 or rank-2 `Kokkos::View` of op(A)'s num_cols rows of the matrix's
///                value_type or the mixed-precision partner (const or not, any layout),
///                accessible from exec
/// \param beta    scale of y, converted like alpha
/// \param y       non-const `Kokkos::View` of x's rank and value type with op(A)'s num_rows
///                rows (any layout), accessible from exec
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
/// `spmv_bytes<V>(A).total()` bytes for vectors of V (SpmvBytes), the matrix
/// part once per block of columns (once for all whole blocks of 16 where they
/// are walked together). No allocation, except the transposed twin
/// at the first transposed product and, on host backends, a carry
/// workspace of a few KB when the merge-path kernels (balanced CRS, COO,
/// HYB's tail) walk several blocks of 16 columns (host products are
/// synchronous, so it is freed when the product is done).
template <class ExecutionSpace, class Matrix, class XView, class YView,
          class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
void spmv(ExecutionSpace const& exec, SpmvMode mode, detail::spmv_scalar_t<Matrix, XView> alpha,
          Matrix const& A, XView const& x, detail::spmv_scalar_t<Matrix, XView> beta,
          YView const& y, typename format_of_t<Matrix>::options_type const& options) {
  using Format = format_of_t<Matrix>;
  static_assert(check_format<Format, typename Matrix::value_type, ExecutionSpace>());
  if (mode == SpmvMode::none) {
    detail::spmv_dispatch(exec, alpha, A, x, beta, y, [&](auto const& xk, auto const& yk) {
      Format::apply(exec, alpha, A, xk, beta, yk, options);
    });
    return;
  }
  // Checked against A first, so that bad arguments never build a twin.
  detail::check_spmv_arguments<ExecutionSpace>(A, x, y, mode);
  if constexpr (detail::has_visit<Matrix>::value) {
    A.visit([&](auto const& B, auto const& o) { spmv(exec, mode, alpha, B, x, beta, y, o); });
  } else {
    using Scalar = detail::spmv_scalar_t<Matrix, XView>;
    if (alpha == Scalar(0)) { // A is not read: no twin either
      if (beta != Scalar(1)) detail::scale_only(exec, beta, y);
      return;
    }
    std::shared_ptr<detail::TransposedTwin<Matrix> const> hold;
    auto const& twin = detail::transposed_twin(exec, A, hold);
    if (twin.same) {
      spmv(exec, SpmvMode::none, alpha, *twin.same, x, beta, y, options);
    } else {
      spmv(exec, SpmvMode::none, alpha, *twin.crs, x, beta, y, CrsFormat::options(*twin.crs));
    }
  }
}

/// y = beta * y + alpha * op(A) * x on `exec` with the options A was built
/// with. Same rules, exceptions and cost as the overload with options.
template <class ExecutionSpace, class Matrix, class XView, class YView,
          class = std::enable_if_t<is_spmvkit_matrix_v<Matrix> &&
                                   Kokkos::is_execution_space<ExecutionSpace>::value>>
void spmv(ExecutionSpace const& exec, SpmvMode mode, detail::spmv_scalar_t<Matrix, XView> alpha,
          Matrix const& A, XView const& x, detail::spmv_scalar_t<Matrix, XView> beta,
          YView const& y) {
  spmv(exec, mode, alpha, A, x, beta, y, format_of_t<Matrix>::options(A));
}

/// y = beta * y + alpha * A * x on `exec` with the format's options for this
/// call: spmv(exec, SpmvMode::none, alpha, A, x, beta, y, options), whose
/// rules, exceptions and cost apply.
template <class ExecutionSpace, class Matrix, class XView, class YView,
          class = std::enable_if_t<is_spmvkit_matrix_v<Matrix>>>
void spmv(ExecutionSpace const& exec, detail::spmv_scalar_t<Matrix, XView> alpha, Matrix const& A,
          XView const& x, detail::spmv_scalar_t<Matrix, XView> beta, YView const& y,
          typename format_of_t<Matrix>::options_type const& options) {
  spmv(exec, SpmvMode::none, alpha, A, x, beta, y, options);
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
