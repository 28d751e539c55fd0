// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DETAIL_SPMV_COMMON_HPP
#define SPMVKIT_DETAIL_SPMV_COMMON_HPP

#include <Kokkos_Core.hpp>

namespace spmvkit::detail {

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
/// garbage in y is overwritten (BLAS semantics).
template <class Y, class Scalar, class Index>
KOKKOS_FORCEINLINE_FUNCTION void store_row(Y const& y, Index row, Scalar alpha, Scalar beta,
                                           Scalar sum) {
  y(row) = beta == Scalar(0) ? alpha * sum : beta * y(row) + alpha * sum;
}

/// y = beta * y, used when alpha == 0 (A and x are not referenced).
template <class Y, class Scalar>
struct ScaleY {
  Y y;
  Scalar beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i);
  }
};

} // namespace spmvkit::detail

#endif
