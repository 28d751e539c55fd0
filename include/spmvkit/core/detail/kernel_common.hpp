// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DETAIL_SPMV_COMMON_HPP
#define SPMVKIT_DETAIL_SPMV_COMMON_HPP

#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace spmvkit::detail {

// Kokkos 3.4 keeps sqrt in Experimental; 3.7 moved it to Kokkos:: and 4.x dropped the old name.
KOKKOS_INLINE_FUNCTION double device_sqrt(double v) {
#if KOKKOS_VERSION >= 30700
  return Kokkos::sqrt(v);
#else
  return Kokkos::Experimental::sqrt(v);
#endif
}

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

/// K numbers that the kernels carry where a rank-1 product carries one: the
/// sums of K columns of a multi-vector product, so that one read of the matrix
/// serves K columns (held in registers on GPUs). Arithmetic is lane-wise; a
/// scalar converts by broadcast, which lets widened_product<Lanes>(a, x(c))
/// and `Sum sum = 0` read as in the rank-1 kernels.
template <class T, int K>
struct Lanes {
  T v[K];
  Lanes() = default;
  KOKKOS_FORCEINLINE_FUNCTION Lanes(T s) { // NOLINT: broadcast by design
    for (int k = 0; k < K; ++k) v[k] = s;
  }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION explicit Lanes(Lanes<U, K> const& o) {
    for (int k = 0; k < K; ++k) v[k] = static_cast<T>(o.v[k]);
  }
  KOKKOS_FORCEINLINE_FUNCTION Lanes& operator+=(Lanes const& o) {
    for (int k = 0; k < K; ++k) v[k] += o.v[k];
    return *this;
  }
  // Older Kokkos reduces through volatile references.
  KOKKOS_FORCEINLINE_FUNCTION void operator+=(Lanes const volatile& o) volatile {
    for (int k = 0; k < K; ++k) v[k] = v[k] + o.v[k];
  }
  KOKKOS_FORCEINLINE_FUNCTION friend Lanes operator*(Lanes const& a, Lanes const& b) {
    Lanes r;
    for (int k = 0; k < K; ++k) r.v[k] = a.v[k] * b.v[k];
    return r;
  }
  KOKKOS_FORCEINLINE_FUNCTION friend Lanes operator+(Lanes const& a, Lanes const& b) {
    Lanes r;
    for (int k = 0; k < K; ++k) r.v[k] = a.v[k] + b.v[k];
    return r;
  }
};

/// Columns c0 .. c0 + K - 1 of a rank-2 x, read as one Lanes per row: what a
/// kernel instantiated for a multi-vector product takes for x.
template <class View2, int K>
struct MultiX {
  /// The scalar of x (as a rank-1 kernel vector's value_type).
  using value_type = typename View2::value_type;
  /// The scalar of x without const.
  using non_const_value_type = typename View2::non_const_value_type;
  static constexpr int lanes = K;
  View2 x;
  int c0;
  /// Consecutive blocks of K columns from c0 that a kernel walks row by row (formats with
  /// walks_column_blocks); 1 for every other kernel.
  int blocks = 1;
  KOKKOS_FORCEINLINE_FUNCTION Lanes<non_const_value_type, K> operator()(std::int64_t row) const {
    Lanes<non_const_value_type, K> r;
    for (int k = 0; k < K; ++k) r.v[k] = x(row, c0 + k);
    return r;
  }
};

/// Columns c0 .. c0 + K - 1 of a rank-2 y, written by store_row.
template <class View2, int K>
struct MultiY {
  /// The scalar of y.
  using value_type = typename View2::value_type;
  /// The scalar of y.
  using non_const_value_type = typename View2::non_const_value_type;
  static constexpr int lanes = K;
  View2 y;
  int c0;
  /// As MultiX::blocks.
  int blocks = 1;
};

template <class T>
struct is_multi_vector : std::false_type {};
template <class View2, int K>
struct is_multi_vector<MultiX<View2, K>> : std::true_type {};
template <class View2, int K>
struct is_multi_vector<MultiY<View2, K>> : std::true_type {};
/// Whether a kernel's vector type is a block of columns (MultiX, MultiY).
template <class T>
inline constexpr bool is_multi_vector_v = is_multi_vector<T>::value;

/// The columns a kernel's vector type carries: K for a block (MultiX, MultiY), 1 for a vector.
template <class T, class = void>
struct lanes_of : std::integral_constant<int, 1> {};
template <class T>
struct lanes_of<T, std::enable_if_t<is_multi_vector_v<T>>> : std::integral_constant<int, T::lanes> {
};

template <class Acc, class Y, class = void>
struct spmv_sum {
  using type = Acc;
};
template <class Acc, class Y>
struct spmv_sum<Acc, Y, std::enable_if_t<is_multi_vector_v<Y>>> {
  using type = Lanes<Acc, Y::lanes>;
};
/// What a kernel writing Y sums a row in: Acc (the wider scalar), or Lanes of
/// it for a block of columns.
template <class Acc, class Y>
using spmv_sum_t = typename spmv_sum<Acc, Y>::type;

template <class Matrix, class V>
struct spmv_scalar<Matrix, V, std::enable_if_t<is_multi_vector_v<V>>> {
  using type = wider_t<typename Matrix::value_type, typename V::non_const_value_type>;
};

/// The blocks of columns a kernel's vector carries (MultiX::blocks); 1 for a vector.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION int column_blocks(V const& v) {
  if constexpr (is_multi_vector_v<V>) {
    return v.blocks;
  } else {
    (void)v;
    return 1;
  }
}

/// Block b of a vector's blocks of columns, as a one-block vector; a vector itself.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V column_block_at(V const& v, int b) {
  if constexpr (is_multi_vector_v<V>) {
    V r = v;
    r.c0 += b * V::lanes;
    r.blocks = 1;
    return r;
  } else {
    (void)b;
    return v;
  }
}

/// f(std::true_type) when v carries several blocks of columns, f(std::false_type) for a vector or
/// one block: a host shape compiles its one-block loop without the loop over blocks.
template <class V, class F>
KOKKOS_FORCEINLINE_FUNCTION void with_blocks_known(V const& v, F&& f) {
  if constexpr (is_multi_vector_v<V>) {
    if (v.blocks > 1) {
      f(std::true_type{});
      return;
    }
  } else {
    (void)v;
  }
  f(std::false_type{});
}

/// For kernels that take one block of columns at a time: f(x block, y block) for each of
/// x's blocks (f(x, y) once for vectors and single blocks).
template <class X, class Y, class F>
void for_each_block(X const& x, Y const& y, F&& f) {
  for (int b = 0; b < column_blocks(x); ++b) f(column_block_at(x, b), column_block_at(y, b));
}

/// A block of LayoutLeft columns read through one pointer per column, for host loops: the
/// compiler then loads x(row, k) with one instruction instead of adding the column's offset first.
template <class T, int K>
struct HostColumns {
  static constexpr int lanes = K;
  T const* col[K];
  KOKKOS_FORCEINLINE_FUNCTION Lanes<std::remove_const_t<T>, K> operator()(std::int64_t row) const {
    Lanes<std::remove_const_t<T>, K> r;
    for (int k = 0; k < K; ++k) r.v[k] = col[k][row];
    return r;
  }
};

/// HostColumns of a LayoutLeft block; any other x as it is.
template <class X>
KOKKOS_FORCEINLINE_FUNCTION auto host_columns(X const& x) {
  if constexpr (is_multi_vector_v<X>) {
    if constexpr (std::is_same_v<typename decltype(x.x)::array_layout, Kokkos::LayoutLeft>) {
      HostColumns<typename X::value_type, X::lanes> h;
      // Pointer arithmetic, not &x.x(0, c): a matrix without columns has an x without rows.
      for (int k = 0; k < X::lanes; ++k)
        h.col[k] = x.x.data() + static_cast<std::size_t>(x.x.stride(1)) * (x.c0 + k);
      return h;
    } else {
      return x;
    }
  } else {
    return x;
  }
}

/// host_columns(x) in kernels of a host space; x as it is on GPUs, where a View needs fewer
/// registers than K pointers.
template <class ExecutionSpace, class X>
KOKKOS_FORCEINLINE_FUNCTION auto host_columns_on(X const& x) {
  if constexpr (is_host_space_v<ExecutionSpace>) {
    return host_columns(x);
  } else {
    return x;
  }
}

/// Whether a format's apply takes several blocks of columns in one call
/// (`static constexpr bool walks_column_blocks = true`): its host kernels walk them inside the
/// row loop, so a wide LayoutRight product reads the matrix, x and y once.
template <class Format, class = void>
struct walks_column_blocks : std::false_type {};
template <class Format>
struct walks_column_blocks<Format, std::void_t<decltype(Format::walks_column_blocks)>>
    : std::bool_constant<Format::walks_column_blocks> {};

/// Whether format F has the optional `F::refill(exec, A, crs)` for its matrix type M and the
/// CRS type Crs (core/format_concept.hpp).
template <class F, class ExecutionSpace, class M, class Crs, class = void>
struct has_refill : std::false_type {};
template <class F, class ExecutionSpace, class M, class Crs>
struct has_refill<
    F, ExecutionSpace, M, Crs,
    std::void_t<decltype(F::refill(std::declval<ExecutionSpace const&>(), std::declval<M const&>(),
                                   std::declval<Crs const&>()))>> : std::true_type {};

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

/// How far ahead (bytes) host kernels prefetch the matrix entries they stream: on the Intel
/// development VM the hardware prefetchers alone left host SpMV well below the copy rate
/// (docs/notes/2026-12-07-host-software-prefetch.md).
inline constexpr std::uintptr_t host_prefetch_distance = 4096;

// Software prefetch in host code compiled by GCC or Clang; nothing in device code.
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) &&                                 \
    !defined(__SYCL_DEVICE_ONLY__) && (defined(__GNUC__) || defined(__clang__))
#define SPMVKIT_HOST_PREFETCH_ENABLED 1
#else
#define SPMVKIT_HOST_PREFETCH_ENABLED 0
#endif

/// Prefetches the cache lines from the one holding `next` up to `end` (addresses as integers;
/// a hint: it never faults, also past an allocation's end) and returns the line after the last.
KOKKOS_FORCEINLINE_FUNCTION std::uintptr_t host_prefetch_lines(std::uintptr_t next,
                                                               std::uintptr_t end) {
#if SPMVKIT_HOST_PREFETCH_ENABLED
  constexpr std::uintptr_t line = 64;
  for (; next < end; next += line) __builtin_prefetch(reinterpret_cast<void const*>(next));
#else
  (void)end;
#endif
  return next;
}

/// Host kernels: prefetches the cache lines of [begin, end) `distance` bytes ahead, where the
/// same thread's walk of that stream will be then.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void
host_prefetch_ahead(T const* begin, T const* end,
                    std::uintptr_t distance = host_prefetch_distance) {
  host_prefetch_lines((reinterpret_cast<std::uintptr_t>(begin) & ~std::uintptr_t(63)) + distance,
                      reinterpret_cast<std::uintptr_t>(end) + distance);
}

/// Host row kernels on short rows: prefetches the line host_prefetch_distance bytes past `end`
/// (a row's end), once per row and with no test. Rows shorter than a line each end in a new line
/// or the last one, so their ends reach every line; HostPrefetchCursor's test, true every few
/// rows at no fixed rhythm, cost more than the prefetch saved there
/// (docs/notes/2026-12-07-host-crs-short-row-prefetch.md).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void host_prefetch_past(T const* end) {
#if SPMVKIT_HOST_PREFETCH_ENABLED
  __builtin_prefetch(reinterpret_cast<void const*>(reinterpret_cast<std::uintptr_t>(end) +
                                                   host_prefetch_distance));
#else
  (void)end;
#endif
}

/// A host thread's walk along one array from `begin`: through(end) prefetches the lines up to
/// `end` + host_prefetch_distance that it has not prefetched yet, so each line once, and a
/// short row costs a compare, not a prefetch per row (rows of a few entries share a line).
/// A cursor made with `on` false never prefetches (its line is past every address).
template <class T>
struct HostPrefetchCursor {
  std::uintptr_t next;
  KOKKOS_FORCEINLINE_FUNCTION HostPrefetchCursor(T const* begin, bool on)
      : next(on ? (reinterpret_cast<std::uintptr_t>(begin) & ~std::uintptr_t(63)) +
                      host_prefetch_distance
                : ~std::uintptr_t(0)) {}
  KOKKOS_FORCEINLINE_FUNCTION void through(T const* end) {
    next =
        host_prefetch_lines(next, reinterpret_cast<std::uintptr_t>(end) + host_prefetch_distance);
  }
};

/// y = beta * y + alpha * Ax for one row, with beta == 0 known at compile time (a kernel that
/// tests beta once, not per row). beta == 0 never reads y, so NaN or garbage in y is overwritten
/// (BLAS semantics). Formed in Scalar (the accumulation type) and rounded once to y's type.
template <class Y, class Scalar, class Index, bool Zero>
KOKKOS_FORCEINLINE_FUNCTION void store_row(Y const& y, Index row, Scalar alpha, Scalar beta,
                                           Scalar sum, std::bool_constant<Zero>) {
  if constexpr (Zero) {
    (void)beta;
    y(row) = static_cast<typename Y::value_type>(alpha * sum);
  } else {
    y(row) = static_cast<typename Y::value_type>(beta * y(row) + alpha * sum);
  }
}

/// f(alpha, beta, zero) with alpha and beta as the caller's locals (as members of a kernel they
/// may alias y and are reloaded after every store) and zero = std::true_type when beta == 0,
/// std::false_type otherwise: beta's test taken out of a host shape's row loop
/// (docs/notes/2026-12-01-host-row-loop.md).
template <class Scalar, class F>
KOKKOS_FORCEINLINE_FUNCTION void with_beta_known(Scalar alpha, Scalar beta, F&& f) {
  if (beta == Scalar(0)) {
    f(alpha, beta, std::true_type{});
  } else {
    f(alpha, beta, std::false_type{});
  }
}

/// store_row with beta tested for this row.
template <class Y, class Scalar, class Index>
KOKKOS_FORCEINLINE_FUNCTION void store_row(Y const& y, Index row, Scalar alpha, Scalar beta,
                                           Scalar sum) {
  if (beta == Scalar(0)) {
    store_row(y, row, alpha, beta, sum, std::true_type{});
  } else {
    store_row(y, row, alpha, beta, sum, std::false_type{});
  }
}

/// store_row for a block of columns (column c0 + k of y takes lane k), beta == 0 known at
/// compile time.
template <class View2, int K, class Scalar, class Index, bool Zero>
KOKKOS_FORCEINLINE_FUNCTION void store_row(MultiY<View2, K> const& y, Index row, Scalar alpha,
                                           Scalar beta, Lanes<Scalar, K> const& sum,
                                           std::bool_constant<Zero>) {
  using V = typename View2::non_const_value_type;
  for (int k = 0; k < K; ++k) {
    auto& out = y.y(row, y.c0 + k);
    if constexpr (Zero) {
      (void)beta;
      out = static_cast<V>(alpha * sum.v[k]);
    } else {
      out = static_cast<V>(beta * out + alpha * sum.v[k]);
    }
  }
}

/// store_row for a block of columns with beta tested for this row.
template <class View2, int K, class Scalar, class Index>
KOKKOS_FORCEINLINE_FUNCTION void store_row(MultiY<View2, K> const& y, Index row, Scalar alpha,
                                           Scalar beta, Lanes<Scalar, K> const& sum) {
  if (beta == Scalar(0)) {
    store_row(y, row, alpha, beta, sum, std::true_type{});
  } else {
    store_row(y, row, alpha, beta, sum, std::false_type{});
  }
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

// Lane reductions (the CRS vector kernel's) of a block of columns' sums.
namespace Kokkos {
template <class T, int K>
struct reduction_identity<spmvkit::detail::Lanes<T, K>> {
  KOKKOS_FORCEINLINE_FUNCTION static spmvkit::detail::Lanes<T, K> sum() {
    return spmvkit::detail::Lanes<T, K>(T(0));
  }
};
} // namespace Kokkos

#endif
