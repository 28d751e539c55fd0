// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DETAIL_SPMV_COMMON_HPP
#define SPMVKIT_DETAIL_SPMV_COMMON_HPP

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace spmvkit::detail {

/// The wider of two floating-point types: the accumulation type of a
/// mixed-precision product (a float matrix with double vectors sums in double,
/// and so does a double matrix with float vectors, rounding once at the store).
/// wider_t<S, S> is S, so same-precision kernels instantiate exactly as before.
template <class A, class B>
using wider_t = std::conditional_t<(sizeof(B) > sizeof(A)), B, A>;

/// Whether vectors of V may meet a matrix of MatrixScalar in spmv: the same
/// type, or float with double either way round (the mixed precision every
/// backend, CUDA included, computes natively).
template <class MatrixScalar, class V>
inline constexpr bool
    is_spmv_vector_scalar_v = std::is_same_v<MatrixScalar, V> ||
                              ((std::is_same_v<MatrixScalar, float> ||
                                std::is_same_v<MatrixScalar, double>)&&(std::is_same_v<V, float> ||
                                                                        std::is_same_v<V, double>));

/// The scalar of a product of Matrix with the vector View V: alpha, beta and
/// the row sums, wider_t of the two value types. When V is not a View of a
/// floating-point type, the matrix's value type, so that spmv's own
/// static_asserts (not a failed deduction) report the mistake.
template <class Matrix, class V, class = void>
struct spmv_scalar {
  using type = typename Matrix::value_type;
};
template <class Matrix, class V>
struct spmv_scalar<Matrix, V,
                   std::enable_if_t<Kokkos::is_view<V>::value &&
                                    std::is_floating_point_v<typename V::non_const_value_type>>> {
  using type = wider_t<typename Matrix::value_type, typename V::non_const_value_type>;
};
template <class Matrix, class V>
using spmv_scalar_t = typename spmv_scalar<Matrix, V>::type;

/// a * b in the accumulation type Acc: the narrower factor is widened first
/// (a float value times a double x entry is an exact double product). With
/// a, b and Acc of one type both casts vanish.
template <class Acc, class A, class B>
KOKKOS_FORCEINLINE_FUNCTION Acc widened_product(A a, B b) {
  return static_cast<Acc>(a) * static_cast<Acc>(b);
}

/// Keeps alpha and beta out of template deduction, so spmv(1.0, A_float, ...)
/// converts the literal instead of failing to deduce.
template <class T>
struct non_deduced {
  using type = T;
};
template <class T>
using non_deduced_t = typename non_deduced<T>::type;

/// The vector types the kernels are instantiated with: whatever layout the
/// caller's Views have, viewed unmanaged (no reference counting in kernels)
/// and, for x, through the read-only cache path.
template <class Scalar, class Device, class Layout>
using kernel_x_type = Kokkos::View<const Scalar*, Layout, Device,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
template <class Scalar, class Device, class Layout>
using kernel_y_type =
    Kokkos::View<Scalar*, Layout, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Load of data that is read exactly once (matrix values and indices). On
/// CUDA devices it bypasses cache retention (ld.global.cs) so that the
/// re-used x entries stay in L1/L2; elsewhere it is a plain load.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_streaming(T const* p) {
#if defined(__CUDA_ARCH__)
  return __ldcs(p);
#else
  return *p;
#endif
}

/// y = beta * y + alpha * Ax for one row; beta == 0 never reads y, so NaN or
/// garbage in y is overwritten (BLAS semantics). Formed in Scalar (the
/// accumulation type) and rounded once to y's type.
template <class Y, class Scalar, class Index>
KOKKOS_FORCEINLINE_FUNCTION void store_row(Y const& y, Index row, Scalar alpha, Scalar beta,
                                           Scalar sum) {
  y(row) = static_cast<typename Y::value_type>(beta == Scalar(0) ? alpha * sum
                                                                 : beta * y(row) + alpha * sum);
}

/// y = beta * y, used when alpha == 0 (A and x are not referenced).
template <class Y, class Scalar>
struct ScaleY {
  Y y;
  Scalar beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    y(i) = static_cast<typename Y::value_type>(beta == Scalar(0) ? Scalar(0) : beta * y(i));
  }
};

} // namespace spmvkit::detail

#endif
