// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_COO_COO_MATRIX_HPP
#define SPMVKIT_FORMATS_COO_COO_MATRIX_HPP

/// \file
/// The COO format: CooMatrix (one (row, column, value) triplet per nonzero,
/// sorted by row), make_coo and the format tag CooFormat
/// (core/format_concept.hpp). Its SpMV is the merge-path kernel of the
/// balanced CRS kernel (formats/crs/detail/merge_path.hpp) with the row ends
/// read from the row indices: tiles of equal work, rows that cross tiles
/// fixed by a carry pass, beta y folded in, no atomics (bit-identical results
/// from run to run). COO moves 4-8 more bytes per nonzero than CRS; it is the
/// exchange format of many codes and HYB's long-row tail.
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/coo/detail/coo_kernels.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/crs/detail/merge_path.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

struct CooFormat;

/// COO matrix: row_indices(), column_indices() and values() hold one nonzero
/// each, ordered by row (non-decreasing row indices; within a row, any order,
/// kept by the conversions). The matrix also keeps the tile plan of its SpMV
/// (a few entries per ~1000 nonzeros on a GPU, per ~10^4 on the host), which
/// includes a small workspace: products with one matrix must not overlap in
/// time on two execution space instances.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class CooMatrix {
  static_assert(std::is_floating_point_v<Scalar>, "CooMatrix: Scalar must be floating-point");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "CooMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "CooMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  /// The format tag, CooFormat (core/format_concept.hpp).
  using format_type = CooFormat;
  /// The CRS type this format converts from and to.
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The type of the matrix entries, Scalar.
  using value_type = Scalar;
  /// The row and column index type, Ordinal.
  using ordinal_type = Ordinal;
  /// The entry index type, Offset.
  using offset_type = Offset;
  /// The execution space kernels on this matrix run on.
  using execution_space = ExecutionSpace;
  /// Where the arrays live: the execution space's default memory space.
  using memory_space = typename ExecutionSpace::memory_space;
  /// `Kokkos::Device<execution_space, memory_space>`, the device of every View here.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// View of nnz row or column indices.
  using indices_type = Kokkos::View<Ordinal*, device_type>;
  /// View of nnz values.
  using values_type = Kokkos::View<Scalar*, device_type>;
  /// The SpMV's tile plan (internal).
  using plan_type = detail::MergePathPlan<Scalar, Ordinal, Offset, device_type>;

  /// An empty 0 x 0 matrix without storage; assign a built matrix to it before use.
  CooMatrix() = default;

  /// Takes already-built, sorted arrays and their SpMV plan (built for these
  /// rows by detail::merge_path_plan); use make_coo() or CooFormat::from_crs.
  CooMatrix(std::int64_t num_rows, std::int64_t num_cols, indices_type row_indices,
            indices_type column_indices, values_type values, plan_type plan)
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", "spmvkit::CooMatrix")),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", "spmvkit::CooMatrix")),
        row_indices_(row_indices), column_indices_(column_indices), values_(values), plan_(plan) {
    if (row_indices_.extent(0) != values_.extent(0) ||
        column_indices_.extent(0) != values_.extent(0)) {
      throw std::invalid_argument("spmvkit::CooMatrix: row_indices, column_indices and values "
                                  "must have one entry per nonzero");
    }
    detail::checked_index<Offset>(static_cast<std::int64_t>(values_.extent(0)), "nnz",
                                  "spmvkit::CooMatrix");
  }

  /// Number of rows; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  /// Number of columns; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Number of stored entries; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return static_cast<Offset>(values_.extent(0)); }
  /// The row index of each entry, non-decreasing.
  indices_type const& row_indices() const { return row_indices_; }
  /// The column index of each entry, in [0, num_cols).
  indices_type const& column_indices() const { return column_indices_; }
  /// The value of each entry.
  values_type const& values() const { return values_; }
  /// The SpMV's tile plan (detail::MergePathPlan).
  plan_type const& plan() const { return plan_; }

  /// Frees the transposed twin that the first transposed product
  /// (spmv with SpmvMode::transpose) built and kept; call it after changing
  /// the values or the structure in place, so that the next transposed
  /// product builds it anew. Copies of the matrix share the twin.
  void forget_transpose() const { kept_transpose_->clear(); }
  /// Internal: the kept transposed twin (operations/spmv.hpp).
  detail::KeptTranspose& kept_transpose() const { return *kept_transpose_; }

private:
  std::shared_ptr<detail::KeptTranspose> kept_transpose_ =
      std::make_shared<detail::KeptTranspose>();
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  indices_type row_indices_;
  indices_type column_indices_;
  values_type values_;
  plan_type plan_;
};

/// COO from sorted triplets on exec: rows non-decreasing, rows and columns in
/// range (checked in one pass; std::invalid_argument names the first bad
/// nonzero), then the row starts of the SpMV plan by a binary search per row.
/// Shares the Views (no copy); they must live in ExecutionSpace's memory.
template <class Offset = int, class ExecutionSpace, class Rows, class Cols, class Vals>
CooMatrix<typename Vals::non_const_value_type, ExecutionSpace, typename Rows::non_const_value_type,
          Offset>
make_coo(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
         Rows const& row_indices, Cols const& column_indices, Vals const& values) {
  using Scalar = typename Vals::non_const_value_type;
  using Ordinal = typename Rows::non_const_value_type;
  static_assert(std::is_same_v<typename Cols::non_const_value_type, Ordinal>,
                "spmvkit::make_coo: row and column indices must have the same type");
  using Coo = CooMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Coo::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t nnz = static_cast<std::int64_t>(values.extent(0));
  if (row_indices.extent(0) != values.extent(0) || column_indices.extent(0) != values.extent(0)) {
    throw std::invalid_argument("spmvkit::make_coo: row_indices, column_indices and values must "
                                "have one entry per nonzero");
  }
  detail::checked_index<Offset>(num_rows, "num_rows", "spmvkit::make_coo");
  const typename Coo::indices_type rows = row_indices, cols = column_indices;
  const typename Coo::values_type vals = values;
  std::int64_t first_bad = nnz;
  if (nnz > 0) {
    Kokkos::parallel_reduce(
        "SpMVKit::Coo::check_triplets", Range(exec, 0, nnz),
        detail::CooTripletCheck<typename Coo::indices_type, typename Coo::indices_type>{
            rows, cols, num_rows, num_cols, nnz},
        Kokkos::Min<std::int64_t>(first_bad));
  }
  if (first_bad < nnz) {
    throw std::invalid_argument("spmvkit::make_coo: nonzero " + std::to_string(first_bad) +
                                " has a row or column outside the matrix, or a row index "
                                "greater than the next nonzero's (rows must be sorted)");
  }
  auto starts = detail::allocate_view<Kokkos::View<Offset*, Device>>(
      exec, "SpMVKit::CooMatrix::row_starts(plan)", num_rows + 1);
  Kokkos::parallel_for("SpMVKit::Coo::row_starts", Range(exec, 0, num_rows + 1),
                       detail::RowStartsOfSortedRows<typename Coo::indices_type, decltype(starts)>{
                           rows, starts, nnz});
  auto plan = detail::merge_path_plan<Scalar, Ordinal>(exec, starts, num_rows, nnz, "CooMatrix");
  return Coo(num_rows, num_cols, rows, cols, vals, plan);
}

/// COO options: from_crs checks the CRS structure first unless told not to.
struct CooOptions {
  /// Check the CRS structure (check_structure()) before converting it.
  bool check_structure = true;
};

/// The COO format tag (core/format_concept.hpp).
struct CooFormat {
  /// The family name, "coo".
  static constexpr char const* family = "coo";
  /// apply takes several blocks of columns at once (detail::walks_column_blocks).
  static constexpr bool walks_column_blocks = true;
  /// The options of COO: CooOptions.
  using options_type = CooOptions;
  /// The matrix class of the format: CooMatrix.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = CooMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// Name for reports and benchmarks: "coo".
  static std::string name(options_type const&) { return "coo"; }
  /// One variant: COO has no kernel choice.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    return {CooOptions{}};
  }
  /// Why A cannot be stored as COO: never, so always "".
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const&, Crs const&, options_type const&) {
    return "";
  }
  /// Row index per nonzero (a binary search on the row starts each, so long
  /// rows convert in parallel), copies of the columns and values, and the
  /// SpMV plan from the CRS row starts.
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    using Coo = matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                            typename Crs::offset_type>;
    using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    if (o.check_structure) detail::ensure_structure(exec, A);
    const std::int64_t nnz = A.nnz();
    auto rows = detail::allocate_view<typename Coo::indices_type>(
        exec, "SpMVKit::CooMatrix::row_indices(from_crs)", nnz);
    auto cols = detail::allocate_view<typename Coo::indices_type>(
        exec, "SpMVKit::CooMatrix::column_indices(from_crs)", nnz);
    auto vals = detail::allocate_view<typename Coo::values_type>(
        exec, "SpMVKit::CooMatrix::values(from_crs)", nnz);
    Kokkos::parallel_for(
        "SpMVKit::Coo::from_crs_rows", Range(exec, 0, nnz),
        detail::RowOfEachNonzero<typename Crs::row_starts_type, typename Coo::indices_type>{
            A.row_starts(), rows, A.num_rows()});
    Kokkos::deep_copy(exec, cols, A.column_indices());
    Kokkos::deep_copy(exec, vals, A.values());
    auto plan = detail::merge_path_plan<typename Crs::value_type, typename Crs::ordinal_type>(
        exec, A.row_starts(), A.num_rows(), nnz, "CooMatrix");
    return Coo(A.num_rows(), A.num_cols(), rows, cols, vals, plan);
  }
  /// Through CRS (CrsFormat::from_rows), whose arrays COO copies.
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const&) {
    return from_crs(exec, CrsFormat::from_rows(exec, num_rows, num_cols, source, {}),
                    CooOptions{false});
  }
  /// Row starts by a binary search per row; columns and values copied.
  template <class ExecutionSpace, class Coo>
  static typename Coo::crs_type to_crs(ExecutionSpace const& exec, Coo const& A) {
    using Crs = typename Coo::crs_type;
    Crs B("to_crs", A.num_rows(), A.num_cols(), A.nnz(), exec);
    Kokkos::parallel_for(
        "SpMVKit::Coo::to_crs_row_starts",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
            exec, 0, static_cast<std::int64_t>(A.num_rows()) + 1),
        detail::RowStartsOfSortedRows<typename Coo::indices_type, typename Crs::row_starts_type>{
            A.row_indices(), B.row_starts(), A.nnz()});
    Kokkos::deep_copy(exec, B.column_indices(), A.column_indices());
    Kokkos::deep_copy(exec, B.values(), A.values());
    return B;
  }
  /// The options a COO matrix carries: the default CooOptions.
  template <class Coo>
  static options_type options(Coo const&) {
    return {};
  }
  /// y = beta y + alpha A x on the matrix's merge-path plan, asynchronous on
  /// exec (arguments validated by spmv()).
  template <class ExecutionSpace, class Coo, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<Coo, Y> alpha, Coo const& A,
                    X const& x, detail::spmv_scalar_t<Coo, Y> beta, Y const& y,
                    options_type const&) {
    using Map = Kokkos::View<const typename Coo::ordinal_type*, typename Coo::device_type>;
    detail::spmv_coo(exec, alpha, A, x, beta, y, Map()); // a block of columns per tile
  }
  /// d(i) = the sum of A's stored entries (i, i), 0 for a row without one.
  template <class ExecutionSpace, class Coo, class D>
  static void diagonal(ExecutionSpace const& exec, Coo const& A, D const& d) {
    Kokkos::parallel_for(
        "SpMVKit::Coo::diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, A.num_rows()),
        detail::CooDiagonal<typename Coo::indices_type, typename Coo::indices_type,
                            typename Coo::values_type, D>{A.row_indices(), A.column_indices(),
                                                          A.values(), d, A.nnz()});
  }
  /// nnz x (value + row + column) + the plan's tile coordinates + its
  /// carries (written and read once per tile) + x + y.
  template <class Coo>
  static SpmvBytes bytes(Coo const& A) {
    using S = typename Coo::value_type;
    using O = typename Coo::ordinal_type;
    const double tiles = static_cast<double>(A.plan().num_tiles);
    SpmvBytes b;
    b.matrix = static_cast<double>(A.nnz()) * (sizeof(S) + 2 * sizeof(O)) +
               (tiles + 1) * (sizeof(O) + sizeof(typename Coo::offset_type)) +
               2 * tiles * sizeof(detail::merge_carry_t<S>);
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }
};

} // namespace spmvkit

#endif
