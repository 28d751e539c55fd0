// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CRS_CRS_MATRIX_HPP
#define SPMVKIT_FORMATS_CRS_CRS_MATRIX_HPP

/// \file
/// The CRS format: CrsMatrix, its structure check and its format tag
/// (CrsFormat, see core/format_concept.hpp). CRS is also every format's
/// conversion source and target. About 300 lines: besides the class and its
/// tag, the matrix documents and exposes what it keeps about itself
/// (statistics, the balanced kernel's plan).
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/detail/crs_analysis.hpp>
#include <spmvkit/formats/crs/detail/crs_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

struct CrsFormat;

/// Compressed Row Storage matrix held in rank-1 Views of ExecutionSpace's memory.
///
/// row_starts has num_rows + 1 entries; the entries of row i are
/// [row_starts(i), row_starts(i + 1)) of column_indices and values.
///
/// Ordinal indexes rows and columns, Offset indexes nonzeros. The default
/// Offset = int keeps row_starts at 4 bytes and matches cuSPARSE's 32-bit
/// path; a matrix with more than 2^31 - 1 nonzeros is rejected at construction
/// with std::length_error and needs Offset = std::int64_t.
///
/// Columns within a row may come in any order, and duplicate (row, column)
/// entries are allowed: SpMV adds them up. Explicit zeros are stored like any
/// other entry.
///
/// A CrsMatrix is a handle: copies share the three Views (Kokkos reference
/// counting), and the arrays live as long as any copy or View of them does.
/// Fill it either through the allocating constructor and the three accessors
/// (on the device, or through host mirrors and `Kokkos::deep_copy`), or wrap
/// existing Views; check_structure() verifies the result. Other formats are
/// converted from it (make_sell(), make_sell_offset16()) and back (to_crs()).
///
/// Every kernel trusts the structure (row starts monotone from 0 to nnz,
/// column indices in [0, num_cols)), so the first operation that reads it
/// (spmv(), cg(), spgemm(), a conversion, a reordering) checks it once, as
/// check_structure() does, and throws std::invalid_argument naming the first
/// bad row instead of reading out of bounds. The verdict is kept with the
/// matrix (shared by copies); the check costs about one SpMV and a wait, once.
/// For data known to be valid, trust_structure() skips it: a broken structure
/// then reads out of bounds. The Matrix Market reader and SpGEMM, which
/// build the structure themselves, return matrices marked as checked.
///
/// A matrix keeps what it computes about its structure: its row-length
/// statistics (statistics(), read by CrsKernel::automatic and, on host
/// backends, CrsKernel::vector and the row kernels' launches above 2^19 entries) and the tile
/// plan of the balanced kernel, each
/// computed on first use and shared by copies.
/// Both read row_starts only; values may change freely, but after changing
/// row_starts or column_indices in place call forget_analysis(), which also
/// forgets that the structure was checked. The balanced kernel's plan
/// holds a small workspace, so products with one matrix must not overlap in
/// time on two execution space instances when it runs that kernel.
///
/// \tparam Scalar         value type; a floating-point type (`static_assert`)
/// \tparam ExecutionSpace Kokkos execution space; the arrays live in its default memory space
/// \tparam Ordinal        row and column index type; signed integral, default `int`
/// \tparam Offset         entry index type (row_starts); integral, at least as wide as Ordinal
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class CrsMatrix {
  static_assert(std::is_floating_point_v<Scalar>,
                "CrsMatrix: Scalar must be a floating-point type");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "CrsMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "CrsMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  /// The format tag, CrsFormat (core/format_concept.hpp).
  using format_type = CrsFormat;
  /// The CRS type other formats convert to: this class itself.
  using crs_type = CrsMatrix;
  /// The row source (core/format_concept.hpp) reading this matrix's arrays.
  using row_source_type =
      detail::CrsRowSource<Scalar, Ordinal, Offset,
                           Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  /// The type of the matrix entries, Scalar.
  using value_type = Scalar;
  /// The row and column index type, Ordinal.
  using ordinal_type = Ordinal;
  /// The entry index type of row_starts, Offset.
  using offset_type = Offset;
  /// The execution space kernels on this matrix run on.
  using execution_space = ExecutionSpace;
  /// Where the arrays live: the execution space's default memory space.
  using memory_space = typename ExecutionSpace::memory_space;
  /// `Kokkos::Device<execution_space, memory_space>`, the device of every View here.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// View of num_rows + 1 row starts.
  using row_starts_type = Kokkos::View<Offset*, device_type>;
  /// View of nnz column indices.
  using column_indices_type = Kokkos::View<Ordinal*, device_type>;
  /// View of nnz values.
  using values_type = Kokkos::View<Scalar*, device_type>;

  /// An empty 0 x 0 matrix without storage; assign a constructed matrix to it before use.
  CrsMatrix() = default;

  /// Allocates (uninitialised) storage for a num_rows x num_cols matrix with
  /// nnz entries; the caller fills the three Views.
  ///
  /// The Views are labelled `SpMVKit::CrsMatrix::<array>(label)` and allocated
  /// on `exec` without initialisation (contents are undefined until filled).
  /// Throws std::invalid_argument for a negative size, std::length_error when
  /// num_rows or num_cols does not fit Ordinal or nnz (or num_rows) does not
  /// fit Offset, and AllocationError when an allocation fails. Costs the
  /// allocations only; nothing is launched.
  CrsMatrix(std::string const& label, std::int64_t num_rows, std::int64_t num_cols,
            std::int64_t nnz, ExecutionSpace const& exec = ExecutionSpace())
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", "spmvkit::CrsMatrix")),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", "spmvkit::CrsMatrix")) {
    detail::checked_index<Offset>(nnz, "nnz", "spmvkit::CrsMatrix");
    // row_starts(num_rows) == nnz must itself be representable.
    detail::checked_index<Offset>(num_rows, "num_rows", "spmvkit::CrsMatrix");
    row_starts_ = detail::allocate_view<row_starts_type>(
        exec, "SpMVKit::CrsMatrix::row_starts(" + label + ")", num_rows + 1);
    column_indices_ = detail::allocate_view<column_indices_type>(
        exec, "SpMVKit::CrsMatrix::column_indices(" + label + ")", nnz);
    values_ =
        detail::allocate_view<values_type>(exec, "SpMVKit::CrsMatrix::values(" + label + ")", nnz);
  }

  /// Wraps existing Views without copying. Extents are checked; the contents
  /// (monotone row_starts, column indices in range) are the caller's promise;
  /// check_structure() verifies them.
  ///
  /// Throws std::invalid_argument when row_starts does not have num_rows + 1
  /// entries or column_indices and values differ in length, and
  /// std::length_error when a size does not fit its index type. The matrix
  /// shares the Views with the caller. No kernel, no allocation.
  CrsMatrix(std::int64_t num_rows, std::int64_t num_cols, row_starts_type row_starts,
            column_indices_type column_indices, values_type values)
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", "spmvkit::CrsMatrix")),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", "spmvkit::CrsMatrix")),
        row_starts_(row_starts), column_indices_(column_indices), values_(values) {
    if (static_cast<std::int64_t>(row_starts_.extent(0)) != num_rows + 1) {
      throw std::invalid_argument("spmvkit::CrsMatrix: row_starts has " +
                                  std::to_string(row_starts_.extent(0)) + " entries, expected " +
                                  "num_rows + 1 = " + std::to_string(num_rows + 1));
    }
    if (column_indices_.extent(0) != values_.extent(0)) {
      throw std::invalid_argument("spmvkit::CrsMatrix: column_indices has " +
                                  std::to_string(column_indices_.extent(0)) +
                                  " entries but values has " + std::to_string(values_.extent(0)));
    }
    detail::checked_index<Offset>(static_cast<std::int64_t>(values_.extent(0)), "nnz",
                                  "spmvkit::CrsMatrix");
  }

  /// Number of rows; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  /// Number of columns; callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Number of stored entries (explicit zeros and duplicates included): the
  /// extent of values(). Callable on the host and in kernels.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return static_cast<Offset>(values_.extent(0)); }

  /// The num_rows + 1 row starts: row i holds entries [row_starts(i), row_starts(i + 1)).
  row_starts_type const& row_starts() const { return row_starts_; }
  /// The column index of each entry, in [0, num_cols), in row order.
  column_indices_type const& column_indices() const { return column_indices_; }
  /// The value of each entry, in the order of column_indices().
  values_type const& values() const { return values_; }

  /// Row-length statistics (core/matrix_statistics.hpp): computed on exec by
  /// the first call that needs them (it waits for them), then kept.
  MatrixStatistics statistics(ExecutionSpace const& exec = ExecutionSpace()) const {
    return analysis_->statistics(exec, row_starts_, num_cols_);
  }
  /// Drops the kept statistics, tile plan, structure verdict and transposed
  /// twin (after row_starts or column_indices changed): the next use checks
  /// again.
  void forget_analysis() const {
    analysis_->clear();
    kept_transpose_->clear();
  }
  /// Declares the structure valid without checking it (data known to be
  /// well formed, such as arrays from another library): no operation checks
  /// it then, and a broken structure reads out of bounds. Shared by copies.
  void trust_structure() const { analysis_->set_structure_known(); }
  /// Whether the structure was checked (check_structure(), or the first
  /// operation on the matrix) or declared trusted (trust_structure()).
  bool structure_known() const { return analysis_->structure_known(); }
  /// Internal: the kept analysis, for the kernels.
  detail::CrsAnalysis<Scalar, Ordinal, Offset, device_type>& analysis() const { return *analysis_; }

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
  row_starts_type row_starts_;
  column_indices_type column_indices_;
  values_type values_;
  std::shared_ptr<detail::CrsAnalysis<Scalar, Ordinal, Offset, device_type>> analysis_ =
      std::make_shared<detail::CrsAnalysis<Scalar, Ordinal, Offset, device_type>>();
};

namespace detail {
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void check_crs_structure(ExecutionSpace const& exec,
                         CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using Device = typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  Offset first = 0, last = 0;
  Kokkos::deep_copy(first, Kokkos::subview(A.row_starts(), 0));
  Kokkos::deep_copy(last, Kokkos::subview(A.row_starts(), A.num_rows()));
  exec.fence();
  if (first != 0 || last != A.nnz()) {
    throw std::invalid_argument(
        "spmvkit::check_structure: row_starts must run from 0 to nnz = " + std::to_string(A.nnz()) +
        ", got " + std::to_string(first) + " .. " + std::to_string(last));
  }
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max(); // the Min reducer's start
  // Rows before the first row with bad starts cover entries [0, row_starts(bad_row)) in order;
  // a bad column there names its (earlier) row, else the bad starts name theirs.
  std::int64_t bad_row = none;
  Kokkos::parallel_reduce(
      "SpMVKit::CrsMatrix::check_row_starts", Range(exec, 0, A.num_rows()),
      detail::CrsRowStartsCheck<Offset, Device>{A.row_starts(), static_cast<std::int64_t>(A.nnz())},
      Kokkos::Min<std::int64_t>(bad_row));
  std::int64_t bad_entry = none;
  Kokkos::parallel_reduce(
      "SpMVKit::CrsMatrix::check_columns", Range(exec, 0, static_cast<std::int64_t>(A.nnz())),
      detail::CrsColumnsCheck<Ordinal, Device>{A.column_indices(), A.num_cols()},
      Kokkos::Min<std::int64_t>(bad_entry));
  std::int64_t covered = A.nnz();
  if (bad_row != none) {
    Offset start = 0;
    Kokkos::deep_copy(start, Kokkos::subview(A.row_starts(), bad_row));
    covered = start;
  }
  if (bad_entry != none && bad_entry < covered) {
    std::int64_t row = none;
    Kokkos::parallel_reduce(
        "SpMVKit::CrsMatrix::row_of_entry",
        Range(exec, 0, bad_row != none ? bad_row : static_cast<std::int64_t>(A.num_rows())),
        detail::CrsRowOfEntry<Offset, Device>{A.row_starts(), bad_entry},
        Kokkos::Min<std::int64_t>(row));
    Ordinal column = 0;
    Kokkos::deep_copy(column, Kokkos::subview(A.column_indices(), bad_entry));
    throw std::invalid_argument("spmvkit::check_structure: row " + std::to_string(row) +
                                " has column index " + std::to_string(column) + " outside [0, " +
                                std::to_string(A.num_cols()) + ") at entry " +
                                std::to_string(bad_entry));
  }
  if (bad_row != none) {
    throw std::invalid_argument(
        "spmvkit::check_structure: row " + std::to_string(bad_row) +
        " has row_starts that decrease or leave [0, nnz = " + std::to_string(A.nnz()) + "]");
  }
}

/// check_structure() unless the matrix's structure is already known (checked
/// or trusted): what every operation reading the structure calls first.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void ensure_structure(ExecutionSpace const& exec,
                      CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  A.analysis().ensure_structure([&] { check_crs_structure(exec, A); });
}
} // namespace detail

/// Checks row_starts (starts at 0, non-decreasing, ends at nnz) and that every
/// column index lies in [0, num_cols). Throws std::invalid_argument naming the
/// first offending row. Runs on the matrix's execution space; costs about one SpMV.
///
/// Synchronous: it reads two row starts and the verdict back to the host.
/// Unsorted columns and duplicate entries are valid CRS and pass. A passed
/// check is kept with the matrix, so operations on it do not check again.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void check_structure(ExecutionSpace const& exec,
                     CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  detail::check_crs_structure(exec, A);
  A.trust_structure();
}

/// Trait: whether T is a CrsMatrix (any template arguments).
template <class T>
struct is_crs_matrix : std::false_type {};
/// Trait specialisation: every CrsMatrix is a CRS matrix.
template <class S, class E, class O, class F>
struct is_crs_matrix<CrsMatrix<S, E, O, F>> : std::true_type {};
/// Whether T is a CrsMatrix: `is_crs_matrix<T>::value`.
template <class T>
inline constexpr bool is_crs_matrix_v = is_crs_matrix<T>::value;

/// CRS kernel choice: the CRS storage is the same for every kernel, so the
/// choice is an SpMV option, not part of the matrix.
///
/// Converts implicitly from `CrsKernel`, so `spmv(exec, 1.0, A, x, 0.0, y,
/// CrsKernel::vector)` reads naturally. The default, CrsKernel::automatic,
/// is what spmv() uses without options.
///
/// Determinism: every CRS kernel gives bit-identical products from run to
/// run, and none accumulates with atomics. balanced uses one atomic integer
/// (a count of finished tiles) and atomic loads and stores in its fix-up of
/// rows that cross tiles, whose partial sums it adds in tile order.
struct CrsOptions {
  /// The CRS SpMV kernel, a value of the enum `spmvkit::CrsKernel`.
  ///
  /// - `CrsKernel::automatic` (default): from the matrix's kept row-length
  ///   statistics (statistics(); detail::automatic_crs_kernel in
  ///   core/detail/launch_parameters.hpp documents the thresholds): `balanced`
  ///   when the longest row is at least 8 times the mean and the long rows
  ///   matter (hub rows hold 5% of the nonzeros or more, or, on the host, the
  ///   longest row is a quarter of one thread's share; on a GPU, rows too short
  ///   for vector lanes or a row of 256 entries or more); otherwise `vector` on
  ///   GPU backends when rows hold 12 or more entries on average (about 6
  ///   entries per lane, 2 to 32 lanes), else `row_per_thread`; on host
  ///   backends `vector` when the longest row is below 8 times the mean, else
  ///   `row_per_thread`;
  /// - `CrsKernel::row_per_thread`: one thread per row (the natural row loop on
  ///   host backends, each row summed in order; uncoalesced loads on a GPU,
  ///   best for very short rows);
  /// - `CrsKernel::vector`: one row per group of vector lanes (coalesced loads
  ///   and a lane reduction on a GPU; on host backends the row loop, with each
  ///   row summed in double in four interleaved partial sums combined in a
  ///   fixed order where the longest row is below 8 times the mean, in order
  ///   elsewhere, in float and for several columns);
  /// - `CrsKernel::balanced`: the work split by nonzeros and rows together
  ///   (merge path, formats/crs/detail/merge_path.hpp), so that no row, however
  ///   long, is left to one thread; the tile plan is computed by the first
  ///   balanced product and kept with the matrix.
  CrsKernel kernel = CrsKernel::automatic;
  /// The automatic kernel.
  CrsOptions() = default;
  /// The given kernel; implicit on purpose, so a CrsKernel can be passed where CrsOptions is taken.
  CrsOptions(CrsKernel k) : kernel(k) {} // NOLINT: spmv(..., CrsKernel::vector) reads naturally
};

/// The CRS format tag (core/format_concept.hpp).
///
/// Users rarely call its members directly: spmv(), cg() and the conversions
/// call them. They are documented for code that walks format_list.
struct CrsFormat {
  /// The family name, "crs".
  static constexpr char const* family = "crs";
  /// The options of CRS: the kernel choice, CrsOptions.
  using options_type = CrsOptions;
  /// apply takes several blocks of columns at once (detail::walks_column_blocks).
  static constexpr bool walks_column_blocks = true;
  /// The matrix class of the format: CrsMatrix.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// Name of the variant for reports and benchmarks: "crs" (automatic kernel),
  /// "crs_row_per_thread", "crs_vector" or "crs_balanced".
  static std::string name(options_type const& o) {
    switch (o.kernel) {
    case CrsKernel::row_per_thread: return "crs_row_per_thread";
    case CrsKernel::vector: return "crs_vector";
    case CrsKernel::balanced: return "crs_balanced";
    case CrsKernel::automatic: break;
    }
    return "crs";
  }
  /// Every kernel everywhere: on host backends row_per_thread and vector are
  /// the same loop, which the benchmarks show side by side. automatic is
  /// listed too, although it runs one of the others: it is what a plain
  /// spmv() on a CRS matrix does, so tests and benchmarks must cover its
  /// choice (it must never be the catastrophically slow one).
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    return {CrsOptions(CrsKernel::row_per_thread), CrsOptions(CrsKernel::vector),
            CrsOptions(CrsKernel::balanced), CrsOptions(CrsKernel::automatic)};
  }
  /// Why A cannot be stored as CRS: never, so always "" (no work).
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const&, Crs const&, options_type const&) {
    return "";
  }
  /// CRS to CRS shares the arrays (no copy), as every other from_crs would
  /// have to keep the source alive anyway.
  template <class ExecutionSpace, class Crs>
  static Crs from_crs(ExecutionSpace const&, Crs const& A, options_type const&) {
    return A;
  }
  /// CRS straight from a row source (core/format_concept.hpp): lengths,
  /// a scan for the row starts (its total, nnz, is the one value that travels
  /// to the host), then one fill. Checks num_rows and the total against the
  /// index types before allocating the entries.
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const&) {
    using Crs = matrix_type<typename Source::value_type, ExecutionSpace,
                            typename Source::ordinal_type, typename Source::offset_type>;
    using Ordinal = typename Source::ordinal_type;
    using Offset = typename Source::offset_type;
    constexpr char const* where = "spmvkit::CrsFormat::from_rows";
    const auto n = detail::checked_index<Ordinal>(num_rows, "num_rows", where);
    detail::checked_index<Ordinal>(num_cols, "num_cols", where);
    detail::checked_index<Offset>(num_rows, "num_rows", where);
    auto starts = detail::allocate_view<typename Crs::row_starts_type>(
        exec, "SpMVKit::CrsMatrix::row_starts(from_rows)", num_rows + 1);
    std::int64_t nnz = 0;
    if (n == 0) {
      Kokkos::deep_copy(exec, starts, Offset(0));
    } else {
      // Summed in 64 bits so that an Offset overflow is caught, not wrapped.
      Kokkos::parallel_reduce(
          "SpMVKit::Crs::from_rows_count",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(exec, 0, n),
          detail::SourceNnz<Source>{source}, nnz);
      detail::checked_index<Offset>(nnz, "nnz", where);
      Kokkos::parallel_scan(
          "SpMVKit::Crs::from_rows_starts",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(exec, 0, n),
          detail::SourceRowStarts<Source, typename Crs::row_starts_type>{source, starts, n});
    }
    auto cols = detail::allocate_view<typename Crs::column_indices_type>(
        exec, "SpMVKit::CrsMatrix::column_indices(from_rows)", nnz);
    auto vals = detail::allocate_view<typename Crs::values_type>(
        exec, "SpMVKit::CrsMatrix::values(from_rows)", nnz);
    Kokkos::parallel_for(
        "SpMVKit::Crs::from_rows_fill",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(exec, 0, n),
        detail::FillCrsFromSource<Source, typename Crs::row_starts_type,
                                  typename Crs::column_indices_type, typename Crs::values_type>{
            source, starts, cols, vals});
    return Crs(num_rows, num_cols, starts, cols, vals); // a source's columns are checked on use
  }
  /// CRS back to CRS: A itself, sharing its arrays (no copy, no work).
  template <class ExecutionSpace, class Crs>
  static Crs to_crs(ExecutionSpace const&, Crs const& A) {
    return A;
  }
  /// The options a CRS matrix carries: the default CrsOptions (automatic
  /// kernel), since the kernel is not part of the matrix.
  template <class Crs>
  static options_type options(Crs const&) {
    return {};
  }
  /// y = beta y + alpha A x with the kernel of `o`, asynchronous on exec.
  ///
  /// The arguments are not checked here, and alpha == 0 is not special-cased:
  /// call spmv(), which validates them and applies the BLAS alpha/beta rules
  /// before it calls this. One pass over the entries (nnz multiply-adds).
  template <class ExecutionSpace, class Crs, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<Crs, Y> alpha, Crs const& A,
                    X const& x, detail::spmv_scalar_t<Crs, Y> beta, Y const& y,
                    options_type const& o) {
    detail::ensure_structure(exec, A); // once per matrix: a lock and a flag afterwards
    detail::spmv_crs(exec, alpha, A, x, beta, y, o.kernel);
  }
  /// d(i) = the sum of A's stored entries (i, i), 0 for a row without one;
  /// d has num_rows entries. Asynchronous on exec; one pass over the entries.
  template <class ExecutionSpace, class Crs, class D>
  static void diagonal(ExecutionSpace const& exec, Crs const& A, D const& d) {
    detail::ensure_structure(exec, A);
    Kokkos::parallel_for(
        "SpMVKit::Crs::diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, A.num_rows()),
        detail::CrsDiagonal<typename Crs::row_starts_type, typename Crs::column_indices_type,
                            typename Crs::values_type, D>{A.row_starts(), A.column_indices(),
                                                          A.values(), d});
  }
  /// nnz (value + column index) + (n + 1) row starts + x + y.
  template <class Crs>
  static SpmvBytes bytes(Crs const& A) {
    using S = typename Crs::value_type;
    SpmvBytes b;
    b.matrix = static_cast<double>(A.nnz()) * (sizeof(S) + sizeof(typename Crs::ordinal_type)) +
               (static_cast<double>(A.num_rows()) + 1) * sizeof(typename Crs::offset_type);
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }
};

} // namespace spmvkit

#endif
