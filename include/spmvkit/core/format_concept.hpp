// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_FORMAT_CONCEPT_HPP
#define SPMVKIT_CORE_FORMAT_CONCEPT_HPP

/// \file
/// The format concept: the one thing spmv, cg, the tests, the benchmarks and
/// the examples look at. A format is a tag type F (CrsFormat, SellFormat, ...)
/// whose static members say everything a consumer needs:
///
/// | member | what |
/// | --- | --- |
/// | `F::family` | `char const*`, the format's short name, such as "sell" |
/// | `F::options_type` | default-constructible: conversion and kernel choices |
/// | `F::name(options)` | `std::string`, such as "sell_c32_s1" (benchmarks, reports) |
/// | `F::template variants<ExecutionSpace>()` | `std::vector<options_type>` worth sweeping on
/// ExecutionSpace | | `F::template matrix_type<Scalar, ExecutionSpace, Ordinal, Offset>` | the
/// matrix class | | `F::obstacle(exec, crs, options)` | why crs cannot be stored this way, "" if it
/// can | | `F::from_crs(exec, crs, options)` | the conversion, on the device | |
/// `F::from_rows(exec, rows, cols, source, options)` | built from a row source (below) | |
/// `F::to_crs(exec, A)` | back to CRS, exact | | `F::options(A)` | the options A was built with |
/// | `F::apply(exec, alpha, A, x, beta, y, options)` | y = beta y + alpha A x (validated input) |
/// | `F::diagonal(exec, A, d)` | d(i) = sum of A's entries (i, i) |
/// | `F::bytes(A)` | the byte model: minimum bytes one SpMV (beta = 0) moves |
///
/// Optional: `static constexpr bool walks_column_blocks = true` says that apply takes several
/// blocks of columns in one call (detail::MultiX::blocks > 1: spmv hands them over for wide
/// LayoutRight products on host backends) and that every kernel it runs either walks them or
/// splits them (detail::for_each_block). Without it apply gets one block at a time.
///
/// Optional: `F::refill(exec, A, crs)` writes the values of crs, a CRS matrix with the pattern A
/// was made from, into A's arrays (no allocation; every copy of A sees them), after checking
/// that pattern (std::invalid_argument naming the first row that differs, A unchanged).
/// detail::has_refill detects it. AutoFormat has one too, with weaker promises: where the
/// chosen format has none, AutoMatrix::refill converts anew (allocating, any pattern of the
/// shape and nnz).
///
/// Mixed precision. apply takes x and y (one value type V for both) of the
/// matrix's value type or, for a float or double matrix, of the other of the
/// two; alpha, beta and every row sum are in the wider of the two types
/// (detail::wider_t), and y is rounded at its store. diagonal takes d of
/// either type too. check_format checks both. F::bytes(A) counts x and y in
/// the matrix's value type; spmv_bytes<V>(A) gives the model for vectors of V.
///
/// A row source describes a matrix row by row on the device, so that every
/// format builds from it directly (CRS arrays, the FEM problem, a generator):
/// `value_type`, `ordinal_type`, `offset_type`, and the device functions
/// `length(row)` and `for_each_entry(row, f)` calling f(column, value) for
/// each entry of the row in order.
///
/// A matrix class names its format (`using format_type = F;`). A new format is
/// a folder under formats/ that defines the tag and the class, plus one line
/// in formats/format_list.hpp; check_format<F>() below names what a tag lacks.
#include <spmvkit/core/detail/kernel_common.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit {

/// A compile-time list of types (the format list, test configurations).
///
/// It holds no values; walk it with for_each_type().
template <class... Ts>
struct type_list {
  /// The number of types in the list.
  static constexpr std::size_t size = sizeof...(Ts);
};

/// An empty value standing for the type T, handed to the callback of for_each_type().
template <class T>
struct type_tag {
  /// The type this tag stands for.
  using type = T;
};
/// Calls `f(type_tag<T>{})` for every T of a type_list, in list order, on the host.
///
/// The callback is typically a generic lambda that reads the type back:
/// \code
/// for_each_type(format_list{}, [&](auto tag) {
///   using F = typename decltype(tag)::type;
///   std::cout << F::family << '\n';
/// });
/// \endcode
/// Nothing is launched on a device; the cost is that of the calls.
template <class... Ts, class F>
void for_each_type(type_list<Ts...>, F&& f) {
  (f(type_tag<Ts>{}), ...);
}

/// The minimum memory traffic of one SpMV with beta = 0, in bytes, split by array.
///
/// Every stored matrix array is read once (padding included), x read once, y
/// written once. Caches may serve x more than once, so real traffic can be
/// higher; this lower bound makes GB/s comparable across formats, and it is the
/// bandwidth floor of solvers. Each format computes it with `F::bytes(A)`
/// (MatrixOperator::bytes() for an operator); dividing total() by a measured SpMV
/// time gives the effective bandwidth.
struct SpmvBytes {
  double matrix = 0; ///< values, indices and bookkeeping arrays
  double x = 0;      ///< num_cols * sizeof(vector scalar)
  double y = 0;      ///< num_rows * sizeof(vector scalar)
  /// matrix + x + y, in bytes.
  double total() const { return matrix + x + y; }
};

/// The byte model of one SpMV of A with x and y of VectorScalar (mixed
/// precision): the format's matrix traffic (`F::bytes(A).matrix`), x as
/// num_cols and y as num_rows entries of VectorScalar.
///
/// A float matrix with double vectors moves `matrix` (about 8 bytes per
/// nonzero in CRS instead of 12) plus 8 bytes per row for each vector. With
/// VectorScalar the matrix's value type it is `F::bytes(A)` itself. No work
/// beyond F::bytes.
template <class VectorScalar, class Matrix>
SpmvBytes spmv_bytes(Matrix const& A) {
  SpmvBytes b = Matrix::format_type::bytes(A);
  b.x = static_cast<double>(A.num_cols()) * sizeof(VectorScalar);
  b.y = static_cast<double>(A.num_rows()) * sizeof(VectorScalar);
  return b;
}

namespace detail {

template <class, class = void>
struct has_format_type : std::false_type {};
template <class M>
struct has_format_type<M, std::void_t<typename M::format_type>> : std::true_type {};

// Detection of each member of the concept, so that check_format can name the
// one that is missing instead of failing deep inside a consumer.
template <class F, class = void>
struct has_family : std::false_type {};
template <class F>
struct has_family<F, std::enable_if_t<std::is_convertible_v<decltype(F::family), char const*>>>
    : std::true_type {};

template <class F, class = void>
struct has_options_type : std::false_type {};
template <class F>
struct has_options_type<F,
                        std::enable_if_t<std::is_default_constructible_v<typename F::options_type>>>
    : std::true_type {};

template <class F, class = void>
struct has_name : std::false_type {};
template <class F>
struct has_name<
    F, std::enable_if_t<std::is_same_v<
           decltype(F::name(std::declval<typename F::options_type const&>())), std::string>>>
    : std::true_type {};

template <class F, class ExecutionSpace, class = void>
struct has_variants : std::false_type {};
template <class F, class ExecutionSpace>
struct has_variants<
    F, ExecutionSpace,
    std::enable_if_t<std::is_same_v<decltype(F::template variants<ExecutionSpace>()),
                                    std::vector<typename F::options_type>>>> : std::true_type {};

template <class F, class Scalar, class ExecutionSpace, class = void>
struct has_matrix_type : std::false_type {};
template <class F, class Scalar, class ExecutionSpace>
struct has_matrix_type<
    F, Scalar, ExecutionSpace,
    std::void_t<typename F::template matrix_type<Scalar, ExecutionSpace, int, int>>>
    : std::true_type {};

template <class F, class Crs, class = void>
struct has_from_crs : std::false_type {};
template <class F, class Crs>
struct has_from_crs<
    F, Crs,
    std::enable_if_t<std::is_same_v<
        decltype(F::from_crs(std::declval<typename Crs::execution_space const&>(),
                             std::declval<Crs const&>(),
                             std::declval<typename F::options_type const&>())),
        typename F::template matrix_type<typename Crs::value_type, typename Crs::execution_space,
                                         typename Crs::ordinal_type, typename Crs::offset_type>>>>
    : std::true_type {};

template <class F, class Crs, class = void>
struct has_from_rows : std::false_type {};
template <class F, class Crs>
struct has_from_rows<
    F, Crs,
    std::enable_if_t<std::is_same_v<
        decltype(F::from_rows(std::declval<typename Crs::execution_space const&>(), std::int64_t(),
                              std::int64_t(), std::declval<typename Crs::row_source_type const&>(),
                              std::declval<typename F::options_type const&>())),
        typename F::template matrix_type<typename Crs::value_type, typename Crs::execution_space,
                                         typename Crs::ordinal_type, typename Crs::offset_type>>>>
    : std::true_type {};

template <class F, class Crs, class = void>
struct has_obstacle : std::false_type {};
template <class F, class Crs>
struct has_obstacle<F, Crs,
                    std::enable_if_t<std::is_same_v<
                        decltype(F::obstacle(std::declval<typename Crs::execution_space const&>(),
                                             std::declval<Crs const&>(),
                                             std::declval<typename F::options_type const&>())),
                        std::string>>> : std::true_type {};

template <class F, class M, class Crs, class = void>
struct has_to_crs : std::false_type {};
template <class F, class M, class Crs>
struct has_to_crs<F, M, Crs,
                  std::enable_if_t<std::is_same_v<
                      decltype(F::to_crs(std::declval<typename M::execution_space const&>(),
                                         std::declval<M const&>())),
                      Crs>>> : std::true_type {};

template <class F, class M, class = void>
struct has_matrix_options : std::false_type {};
template <class F, class M>
struct has_matrix_options<
    F, M,
    std::enable_if_t<
        std::is_same_v<decltype(F::options(std::declval<M const&>())), typename F::options_type>>>
    : std::true_type {};

// The vectors apply and diagonal are handed: unmanaged Views of V, the
// matrix's value type or (mixed precision) the other of float and double.
template <class M, class V = typename M::value_type>
using kernel_vector_t =
    Kokkos::View<V*, typename M::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class M, class V = typename M::value_type>
using kernel_const_vector_t =
    Kokkos::View<const V*, typename M::device_type,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;

template <class F, class M, class V, class = void>
struct has_apply : std::false_type {};
template <class F, class M, class V>
struct has_apply<F, M, V,
                 std::void_t<decltype(F::apply(std::declval<typename M::execution_space const&>(),
                                               std::declval<wider_t<typename M::value_type, V>>(),
                                               std::declval<M const&>(),
                                               std::declval<kernel_const_vector_t<M, V> const&>(),
                                               std::declval<wider_t<typename M::value_type, V>>(),
                                               std::declval<kernel_vector_t<M, V> const&>(),
                                               std::declval<typename F::options_type const&>()))>>
    : std::true_type {};

template <class F, class M, class V, class = void>
struct has_diagonal : std::false_type {};
template <class F, class M, class V>
struct has_diagonal<F, M, V,
                    std::void_t<decltype(F::diagonal(
                        std::declval<typename M::execution_space const&>(),
                        std::declval<M const&>(), std::declval<kernel_vector_t<M, V> const&>()))>>
    : std::true_type {};

/// The vector type a mixed-precision product pairs with a matrix of Scalar:
/// double for float, float for double; Scalar itself otherwise (no mixed
/// product is defined, so the concept checks the same-precision one twice).
template <class Scalar>
using mixed_vector_scalar_t =
    std::conditional_t<std::is_same_v<Scalar, float>, double,
                       std::conditional_t<std::is_same_v<Scalar, double>, float, Scalar>>;

template <class F, class M, class = void>
struct has_bytes : std::false_type {};
template <class F, class M>
struct has_bytes<
    F, M, std::enable_if_t<std::is_same_v<decltype(F::bytes(std::declval<M const&>())), SpmvBytes>>>
    : std::true_type {};

} // namespace detail

/// Whether T is a matrix of some SpMVKit format (it names a `format_type`).
template <class T>
inline constexpr bool is_spmvkit_matrix_v = detail::has_format_type<T>::value;

/// The format tag of a matrix type (`Matrix::format_type`): CrsFormat for a CrsMatrix,
/// SellFormat for a SellMatrix, SellOffset16Format for a SellOffset16Matrix.
template <class Matrix>
using format_of_t = typename Matrix::format_type;

/// The matrix type of format F for a scalar type and execution space, with
/// the default (int) index types unless given.
///
/// `matrix_of_t<SellFormat, double, ExecutionSpace>` is `SellMatrix<double, ExecutionSpace>`.
template <class F, class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using matrix_of_t = typename F::template matrix_type<Scalar, ExecutionSpace, Ordinal, Offset>;

/// Compile-time check that F models the format concept for matrices of
/// Scalar on ExecutionSpace, each missing member named by its own message (the ArborX
/// access-traits pattern). Every consumer calls it, so a new format that lacks
/// a member fails here, not deep inside a kernel.
///
/// Use it as `static_assert(check_format<F, Scalar, ExecutionSpace>());`: a missing or
/// mistyped member is a compile error with its own `static_assert` message; when
/// it compiles, it returns true. No run-time cost.
template <class F, class Scalar, class ExecutionSpace>
constexpr bool check_format() {
  static_assert(detail::has_family<F>::value,
                "SpMVKit format concept: F::family (char const*) is missing");
  static_assert(detail::has_options_type<F>::value,
                "SpMVKit format concept: F::options_type (default-constructible) is missing");
  static_assert(detail::has_name<F>::value,
                "SpMVKit format concept: std::string F::name(options_type const&) is missing");
  static_assert(
      detail::has_variants<F, ExecutionSpace>::value,
      "SpMVKit format concept: std::vector<options_type> F::variants<ExecutionSpace>() is missing");
  static_assert(
      detail::has_matrix_type<F, Scalar, ExecutionSpace>::value,
      "SpMVKit format concept: F::matrix_type<Scalar, ExecutionSpace, Ordinal, Offset> is missing");
  if constexpr (detail::has_matrix_type<F, Scalar, ExecutionSpace>::value) {
    using M = typename F::template matrix_type<Scalar, ExecutionSpace, int, int>;
    using Crs = typename M::crs_type;
    static_assert(std::is_same_v<typename M::format_type, F>,
                  "SpMVKit format concept: matrix_type::format_type must name the format");
    static_assert(detail::has_obstacle<F, Crs>::value,
                  "SpMVKit format concept: std::string F::obstacle(exec, crs, options) is missing");
    static_assert(detail::has_from_crs<F, Crs>::value,
                  "SpMVKit format concept: F::from_crs(exec, crs, options) returning matrix_type "
                  "is missing");
    static_assert(detail::has_from_rows<F, Crs>::value,
                  "SpMVKit format concept: F::from_rows(exec, rows, cols, source, options) "
                  "returning matrix_type is missing");
    static_assert(detail::has_to_crs<F, M, Crs>::value,
                  "SpMVKit format concept: F::to_crs(exec, A) returning the CrsMatrix is missing");
    static_assert(detail::has_matrix_options<F, M>::value,
                  "SpMVKit format concept: options_type F::options(A) is missing");
    static_assert(detail::has_apply<F, M, Scalar>::value,
                  "SpMVKit format concept: F::apply(exec, alpha, A, x, beta, y, options) is "
                  "missing");
    static_assert(detail::has_apply<F, M, detail::mixed_vector_scalar_t<Scalar>>::value,
                  "SpMVKit format concept: F::apply(exec, alpha, A, x, beta, y, options) must "
                  "take x and y of the other precision too (a float matrix with double vectors, "
                  "a double matrix with float vectors; alpha and beta of the wider type)");
    static_assert(detail::has_diagonal<F, M, Scalar>::value,
                  "SpMVKit format concept: F::diagonal(exec, A, d) is missing");
    static_assert(detail::has_diagonal<F, M, detail::mixed_vector_scalar_t<Scalar>>::value,
                  "SpMVKit format concept: F::diagonal(exec, A, d) must take d of the other "
                  "precision too (mixed-precision solvers)");
    static_assert(detail::has_bytes<F, M>::value,
                  "SpMVKit format concept: SpmvBytes F::bytes(A) (the byte model) is missing");
  }
  return true;
}

} // namespace spmvkit

#endif
