// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_ELL_ELL_MATRIX_HPP
#define SPMVKIT_FORMATS_ELL_ELL_MATRIX_HPP

/// The ELLPACK format: BasicEllMatrix (one class for every width policy),
/// EllMatrix, make_ell, to_crs, EllOptions and the format tags
/// BasicEllFormat<Width> / EllFormat. ELL-R (formats/ellr/) is the same class
/// with another width policy. The kernels and the layout are in detail/.
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/crs/detail/crs_refill.hpp>
#include <spmvkit/formats/ell/detail/ell_kernels.hpp>
#include <spmvkit/formats/ell/detail/ell_layout.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

template <class Width>
struct BasicEllFormat;

/// ELLPACK matrix (Kincaid, Oppe and Young's ITPACK format): every row is
/// padded to the longest row's length w and the n x w block is stored
/// column-major, entry j of row i at j * n + i, so that the threads of a GPU
/// warp, one row each, read one column of 32 consecutive rows in one
/// coalesced sweep. The padding rule is SELL's: value 0 at the row's first
/// column, or for an empty row at min(row, num_cols - 1), so padded entries
/// only read x entries that are valid (detail::FillEll).
///
/// `Width` says how far the kernel walks each row (detail::EllFullWidth: the
/// full w, ELL; detail::EllRowLengths: the row's own length, ELL-R); use the
/// aliases EllMatrix / EllrMatrix rather than this template.
///
/// row_lengths() keeps the true length of each row whatever the policy: ELL's
/// kernel does not read it, but it makes ELL -> CRS exact even when the
/// matrix stores explicit zeros (which look like padding).
///
/// A matrix with a few long rows would pad every row to them: conversions
/// refuse, before allocating anything, when n * w exceeds a limit
/// (detail::default_ell_padding_limit: 4 nnz + 64 n unless
/// EllOptions::max_padded_entries says otherwise), naming the padded size and
/// suggesting SELL or HYB.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Width>
class BasicEllMatrix {
  static_assert(std::is_floating_point_v<Scalar>, "EllMatrix: Scalar must be floating-point");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "EllMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "EllMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  /// The format tag (core/format_concept.hpp).
  using format_type = BasicEllFormat<Width>;
  /// The CRS matrix type it converts from and to.
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// Scalar type of the entries.
  using value_type = Scalar;
  /// Row and column index type.
  using ordinal_type = Ordinal;
  /// Entry offset type.
  using offset_type = Offset;
  /// How far the kernel walks each row (detail::EllFullWidth or detail::EllRowLengths).
  using width_policy = Width;
  /// Where the arrays live and the kernels run.
  using execution_space = ExecutionSpace;
  /// Memory space of the arrays.
  using memory_space = typename ExecutionSpace::memory_space;
  /// Kokkos::Device of execution_space and memory_space.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// View of indices.
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;
  /// View of the values.
  using values_type = Kokkos::View<Scalar*, device_type>;
  /// The row source reading this matrix back in CRS order (to_crs).
  using row_source_type = detail::EllRowSource<Scalar, Ordinal, Offset, device_type>;

  BasicEllMatrix() = default;

  /// Takes ownership of already-built arrays (n * width entries each, and n
  /// row lengths); use make_ell() / make_ellr() to convert a CrsMatrix.
  /// ELL multiplies its padding slots, so they must hold a valid column, as
  /// detail::FillEll writes them; ELL-R never indexes x with them.
  BasicEllMatrix(std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz, std::int64_t width,
                 ordinals_type column_indices, values_type values, ordinals_type row_lengths)
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", Width::class_name)),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", Width::class_name)),
        nnz_(detail::checked_index<Offset>(nnz, "nnz", Width::class_name)),
        width_(detail::checked_index<Ordinal>(width, "width", Width::class_name)),
        columns_(column_indices), values_(values), row_lengths_(row_lengths) {
    const std::string where = std::string(Width::class_name) + ": ";
    detail::checked_index<Offset>(num_rows * width, "num_rows * width", Width::class_name);
    if (static_cast<std::int64_t>(columns_.extent(0)) != num_rows * width ||
        values_.extent(0) != columns_.extent(0)) {
      throw std::invalid_argument(where +
                                  "column_indices and values must have num_rows * width = " +
                                  std::to_string(num_rows * width) + " entries");
    }
    if (static_cast<std::int64_t>(row_lengths_.extent(0)) != num_rows) {
      throw std::invalid_argument(where + "row_lengths must have num_rows entries");
    }
  }

  /// Number of rows.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  /// Number of columns.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Nonzeros of the original matrix, padding excluded.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return nnz_; }
  /// The padded row length w (the longest row).
  KOKKOS_INLINE_FUNCTION Ordinal width() const { return width_; }
  /// Entries actually stored: num_rows * width.
  KOKKOS_INLINE_FUNCTION Offset stored_entries() const {
    return static_cast<Offset>(values_.extent(0));
  }
  /// stored_entries / nnz: 1 means no padding. 1 for an empty matrix.
  double padding_ratio() const {
    return nnz_ == 0 ? 1.0 : static_cast<double>(stored_entries()) / static_cast<double>(nnz_);
  }
  /// Column of each stored entry, entry j of row i at j * num_rows + i.
  ordinals_type const& column_indices() const { return columns_; }
  /// The stored values.
  values_type const& values() const { return values_; }
  /// Length of each row (what makes to_crs exact).
  ordinals_type const& row_lengths() const { return row_lengths_; }
  /// The matrix as a row source (core/format_concept.hpp).
  row_source_type row_source() const { return {columns_, values_, row_lengths_, num_rows_}; }

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
  Offset nnz_ = 0;
  Ordinal width_ = 0;
  ordinals_type columns_;
  values_type values_;
  ordinals_type row_lengths_;
};

/// ELLPACK: the kernel walks every row to the full width w.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
using EllMatrix = BasicEllMatrix<Scalar, ExecutionSpace, Ordinal, Offset, detail::EllFullWidth>;

/// ELL options: the padding limit and the structure check.
struct EllOptions {
  /// The most entries n * w the conversion may store; 0: the default limit
  /// (detail::default_ell_padding_limit, 4 nnz + 64 n).
  std::int64_t max_padded_entries = 0;
  /// from_crs checks the CRS structure first (check_structure); false skips
  /// that pass for data the caller knows to be well formed.
  bool check_structure = true;
};

namespace detail {

/// Any row source -> ELL with any width policy, on exec: row lengths, the
/// longest row, the padding limit (checked before the n x w block is
/// allocated), one fill. The longest row and nnz are the values that travel
/// to the host.
template <class Width, class ExecutionSpace, class Source>
BasicEllMatrix<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
               typename Source::offset_type, Width>
make_basic_ell_from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
                         Source const& source, EllOptions const& options) {
  using Scalar = typename Source::value_type;
  using Ordinal = typename Source::ordinal_type;
  using Offset = typename Source::offset_type;
  using Ell = BasicEllMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Width>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  const std::string label = Width::label;
  const Ordinal n = checked_index<Ordinal>(num_rows, "num_rows", Width::make_name);
  const Ordinal m = checked_index<Ordinal>(num_cols, "num_cols", Width::make_name);
  std::int64_t nnz = 0;
  Kokkos::parallel_reduce(label + "count", Range(exec, 0, n), SourceNnz<Source>{source}, nnz);
  checked_index<Offset>(nnz, "nnz", Width::make_name);
  const auto widest = widest_row(exec, n, source, label);
  const std::string obstacle = ell_padding_obstacle(
      n, nnz, widest.val, widest.loc, options.max_padded_entries, sizeof(Scalar) + sizeof(Ordinal));
  if (!obstacle.empty())
    throw std::invalid_argument(std::string(Width::make_name) + ": " + obstacle);
  const std::int64_t stored = static_cast<std::int64_t>(n) * widest.val;
  checked_index<Offset>(stored, "num_rows * width", Width::make_name);
  auto lengths = allocate_view<typename Ell::ordinals_type>(exec, label + "row_lengths", n);
  Kokkos::parallel_for(label + "row_lengths", Range(exec, 0, n),
                       SourceRowLengths<Source, typename Ell::ordinals_type>{source, lengths});
  auto cols = allocate_view<typename Ell::ordinals_type>(exec, label + "column_indices", stored);
  auto vals = allocate_view<typename Ell::values_type>(exec, label + "values", stored);
  Kokkos::parallel_for(
      label + "fill", Range(exec, 0, n),
      FillEll<Source, Offset, typename Ell::device_type>{source, cols, vals, n, m, widest.val});
  return Ell(n, m, nnz, widest.val, cols, vals, lengths);
}

/// New values of the same pattern into an ELL layout (BasicEllFormat::refill), one thread per
/// row: RefillCheck compares the row's length and columns, RefillValues writes the values;
/// padding slots keep their zeros.
template <class Source, class Offset, class Device>
struct RefillEll {
  using Scalar = typename Source::value_type;
  using Ordinal = typename Source::ordinal_type;
  Source source;
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Ordinal*, Device> cols;
  Kokkos::View<Scalar*, Device> vals;
  Ordinal num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(RefillCheck, std::int64_t r, std::int64_t& first) const {
    const Ordinal row = static_cast<Ordinal>(r);
    if (row >= first) return;
    bool differs = source.length(row) != lengths(row);
    if (!differs) {
      Ordinal j = 0;
      source.for_each_entry(row, [&](Ordinal col, Scalar) {
        if (cols(static_cast<Offset>(j) * num_rows + row) != col) differs = true;
        ++j;
      });
    }
    if (differs) first = row;
  }
  KOKKOS_INLINE_FUNCTION void operator()(RefillValues, std::int64_t r) const {
    const Ordinal row = static_cast<Ordinal>(r);
    Ordinal j = 0;
    source.for_each_entry(row, [&](Ordinal, Scalar value) {
      vals(static_cast<Offset>(j) * num_rows + row) = value;
      ++j;
    });
  }
};

} // namespace detail

/// Converts any ELL format back to CRS (padding dropped, explicit zeros
/// kept), on the device.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Width>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(ExecutionSpace const& exec,
       BasicEllMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Width> const& E) {
  return CrsFormat::from_rows(exec, E.num_rows(), E.num_cols(), E.row_source(), CrsOptions());
}

/// The format tag of every ELL width policy (core/format_concept.hpp).
template <class Width>
struct BasicEllFormat {
  /// Short name of the format (benchmark names, reports).
  static constexpr char const* family = Width::family;
  /// Conversion and kernel choices.
  using options_type = EllOptions;
  /// The matrix class of this format.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = BasicEllMatrix<Scalar, ExecutionSpace, Ordinal, Offset, Width>;

  /// The variant's name (benchmarks, reports): the family, plus the options that differ from the
  /// defaults.
  static std::string name(options_type const& o) {
    if (o.max_padded_entries <= 0) return family;
    return std::string(family) + "_max" + std::to_string(o.max_padded_entries);
  }
  /// The default only: ELL has no layout parameter; the limit is a safety net.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    return {options_type{}};
  }
  /// The padding limit (one pass over the row starts).
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    const auto widest =
        detail::widest_row(exec, A.num_rows(), detail::crs_row_source(A), Width::label);
    return detail::ell_padding_obstacle(
        A.num_rows(), A.nnz(), widest.val, widest.loc, o.max_padded_entries,
        sizeof(typename Crs::value_type) + sizeof(typename Crs::ordinal_type));
  }
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  /// Built from a row source on the device (core/format_concept.hpp).
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const& o) {
    return detail::make_basic_ell_from_rows<Width>(exec, num_rows, num_cols, source, o);
  }
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  /// Converts CRS on the device, after the checks of obstacle() (core/format_concept.hpp).
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    if (o.check_structure) detail::ensure_structure(exec, A);
    return detail::make_basic_ell_from_rows<Width>(exec, A.num_rows(), A.num_cols(),
                                                   detail::crs_row_source(A), o);
  }
  /// B's values into A's arrays, B a CRS matrix with the pattern A was made from (shape, row
  /// lengths, columns in order): no allocation and no layout pass. Every copy of A sees them;
  /// A's kept transpose is dropped. B's structure and pattern are checked first:
  /// std::invalid_argument names the first row that differs, and A is left as it was.
  /// Synchronous; a pass over B's columns, then one over its values.
  template <class ExecutionSpace, class Ell, class Crs>
  static void refill(ExecutionSpace const& exec, Ell const& A, Crs const& B) {
    const auto source = detail::crs_row_source(B);
    detail::refill_by_rows(
        exec, A, B,
        detail::RefillEll<decltype(source), typename Ell::offset_type, typename Ell::device_type>{
            source, A.row_lengths(), A.column_indices(), A.values(), A.num_rows()},
        Width::label, std::string(Width::class_name) + "::refill");
  }
  /// Back to CRS, exact (explicit zeros included).
  template <class ExecutionSpace, class Ell>
  static typename Ell::crs_type to_crs(ExecutionSpace const& exec, Ell const& A) {
    return spmvkit::to_crs(exec, A);
  }
  /// The options it was built (or is applied) with.
  template <class Ell>
  static options_type options(Ell const&) {
    return {};
  }
  /// y = beta y + alpha A x on validated input (spmv() validates).
  template <class ExecutionSpace, class Ell, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<Ell, Y> alpha, Ell const& A,
                    X const& x, detail::spmv_scalar_t<Ell, Y> beta, Y const& y,
                    options_type const&) {
    detail::spmv_ell(exec, alpha, A, x, beta, y);
  }
  /// d(i) = the sum of the entries (i, i).
  template <class ExecutionSpace, class Ell, class D>
  static void diagonal(ExecutionSpace const& exec, Ell const& A, D const& d) {
    Kokkos::parallel_for(
        std::string(Width::label) + "diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<typename Ell::ordinal_type>>(
            exec, 0, A.num_rows()),
        detail::SourceDiagonal<typename Ell::row_source_type, D>{A.row_source(), d});
  }
  /// What the kernel reads (detail::EllFullWidth / EllRowLengths::
  /// matrix_bytes) + x + y.
  template <class Ell>
  static SpmvBytes bytes(Ell const& A) {
    using S = typename Ell::value_type;
    SpmvBytes b;
    b.matrix = Width::matrix_bytes(static_cast<double>(A.num_rows()), static_cast<double>(A.nnz()),
                                   static_cast<double>(A.stored_entries()), sizeof(S),
                                   sizeof(typename Ell::ordinal_type));
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }
};

/// ELLPACK (core/format_concept.hpp).
using EllFormat = BasicEllFormat<detail::EllFullWidth>;

/// Converts CRS to ELL on A's execution space (no host round trip). A broken
/// CRS is rejected first (std::invalid_argument naming the first bad row), and
/// a matrix whose padding would exceed the limit (EllOptions) is refused with
/// std::invalid_argument before anything large is allocated.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
EllMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_ell(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
         EllOptions const& options = {}) {
  return BasicEllFormat<detail::EllFullWidth>::from_crs(exec, A, options);
}

} // namespace spmvkit

#endif
