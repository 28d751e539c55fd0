#ifndef SPMVKIT_FORMATS_CRS_CRS_MATRIX_HPP
#define SPMVKIT_FORMATS_CRS_CRS_MATRIX_HPP

/// The CRS format: CrsMatrix, its structure check and its format tag
/// (CrsFormat, see core/format_concept.hpp). CRS is also every format's
/// conversion source and target. About 300 lines: besides the class and its
/// tag, the matrix documents and exposes what it keeps about itself
/// (statistics, the balanced kernel's plan).
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/detail/crs_analysis.hpp>
#include <spmvkit/formats/crs/detail/crs_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
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
/// A matrix keeps what it computes about its structure: its row-length
/// statistics (statistics(), read by CrsKernel::automatic) and the tile plan
/// of the balanced kernel, each computed on first use and shared by copies.
/// Both read row_starts only; values may change freely, but after changing
/// row_starts in place call forget_analysis(). The balanced kernel's plan
/// holds a small workspace, so products with one matrix must not overlap in
/// time on two execution space instances when it runs that kernel.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class CrsMatrix {
  static_assert(std::is_floating_point_v<Scalar>,
                "CrsMatrix: Scalar must be a floating-point type");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "CrsMatrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "CrsMatrix: Offset must be integral and at least as wide as Ordinal");

public:
  using format_type = CrsFormat;
  using crs_type = CrsMatrix;
  /// The row source (core/format_concept.hpp) reading this matrix's arrays.
  using row_source_type =
      detail::CrsRowSource<Scalar, Ordinal, Offset,
                           Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using row_starts_type = Kokkos::View<Offset*, device_type>;
  using column_indices_type = Kokkos::View<Ordinal*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;

  CrsMatrix() = default;

  /// Allocates (uninitialised) storage for a num_rows x num_cols matrix with
  /// nnz entries; the caller fills the three Views.
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

  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return static_cast<Offset>(values_.extent(0)); }

  row_starts_type const& row_starts() const { return row_starts_; }
  column_indices_type const& column_indices() const { return column_indices_; }
  values_type const& values() const { return values_; }

  /// Row-length statistics (core/matrix_statistics.hpp): computed on exec by
  /// the first call that needs them (it waits for them), then kept.
  MatrixStatistics statistics(ExecutionSpace const& exec = ExecutionSpace()) const {
    return analysis_->statistics(exec, row_starts_, num_cols_);
  }
  /// Drops the kept statistics and tile plan (after row_starts changed).
  void forget_analysis() const { analysis_->clear(); }
  /// Internal: the kept analysis, for the kernels.
  detail::CrsAnalysis<Scalar, Ordinal, Offset, device_type>& analysis() const { return *analysis_; }

private:
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  row_starts_type row_starts_;
  column_indices_type column_indices_;
  values_type values_;
  std::shared_ptr<detail::CrsAnalysis<Scalar, Ordinal, Offset, device_type>> analysis_ =
      std::make_shared<detail::CrsAnalysis<Scalar, Ordinal, Offset, device_type>>();
};

/// Checks row_starts (starts at 0, non-decreasing, ends at nnz) and that every
/// column index lies in [0, num_cols). Throws std::invalid_argument naming the
/// first offending row. Runs on the matrix's execution space; costs about one SpMV.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void check_structure(ExecutionSpace const& exec,
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
  Ordinal first_bad = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::CrsMatrix::check_structure",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(exec, 0, A.num_rows()),
      detail::CrsStructureCheck<Ordinal, Offset, Device>{A.row_starts(), A.column_indices(),
                                                         A.num_cols()},
      Kokkos::Min<Ordinal>(first_bad));
  if (first_bad < A.num_rows()) { // the Min reducer starts at the largest Ordinal
    throw std::invalid_argument("spmvkit::check_structure: row " + std::to_string(first_bad) +
                                " has decreasing row_starts or a column index outside [0, " +
                                std::to_string(A.num_cols()) + ")");
  }
}

template <class T>
struct is_crs_matrix : std::false_type {};
template <class S, class E, class O, class F>
struct is_crs_matrix<CrsMatrix<S, E, O, F>> : std::true_type {};
template <class T>
inline constexpr bool is_crs_matrix_v = is_crs_matrix<T>::value;

/// CRS kernel choice: the CRS storage is the same for every kernel, so the
/// choice is an SpMV option, not part of the matrix. automatic: from the
/// matrix's statistics (detail::automatic_crs_kernel); balanced: work split
/// by nonzeros (formats/crs/detail/merge_path.hpp). Every CRS kernel gives
/// bit-identical products from run to run: no kernel accumulates with atomics.
/// (balanced counts finished tiles with one atomic integer and reads the
/// carries of rows that cross tiles atomically, adding them in tile order.)
struct CrsOptions {
  CrsKernel kernel = CrsKernel::automatic;
  CrsOptions() = default;
  CrsOptions(CrsKernel k) : kernel(k) {} // NOLINT: spmv(..., CrsKernel::vector) reads naturally
};

/// The CRS format tag (core/format_concept.hpp).
struct CrsFormat {
  static constexpr char const* family = "crs";
  using options_type = CrsOptions;
  template <class Scalar, class Exec, class Ordinal, class Offset>
  using matrix_type = CrsMatrix<Scalar, Exec, Ordinal, Offset>;

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
  /// the same loop, which the benchmarks show side by side.
  template <class Exec>
  static std::vector<options_type> variants() {
    return {CrsOptions(CrsKernel::row_per_thread), CrsOptions(CrsKernel::vector),
            CrsOptions(CrsKernel::balanced)};
  }
  template <class Exec, class Crs>
  static std::string obstacle(Exec const&, Crs const&, options_type const&) {
    return "";
  }
  /// CRS to CRS shares the arrays (no copy), as every other from_crs would
  /// have to keep the source alive anyway.
  template <class Exec, class Crs>
  static Crs from_crs(Exec const&, Crs const& A, options_type const&) {
    return A;
  }
  /// CRS straight from a row source (core/format_concept.hpp): lengths,
  /// a scan for the row starts (its total, nnz, is the one value that travels
  /// to the host), then one fill. Checks num_rows and the total against the
  /// index types before allocating the entries.
  template <class Exec, class Source>
  static matrix_type<typename Source::value_type, Exec, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(Exec const& exec, std::int64_t num_rows, std::int64_t num_cols, Source const& source,
            options_type const&) {
    using Crs = matrix_type<typename Source::value_type, Exec, typename Source::ordinal_type,
                            typename Source::offset_type>;
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
      Kokkos::parallel_reduce("SpMVKit::Crs::from_rows_count",
                              Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, n),
                              detail::SourceNnz<Source>{source}, nnz);
      detail::checked_index<Offset>(nnz, "nnz", where);
      Kokkos::parallel_scan(
          "SpMVKit::Crs::from_rows_starts",
          Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, n),
          detail::SourceRowStarts<Source, typename Crs::row_starts_type>{source, starts, n});
    }
    auto cols = detail::allocate_view<typename Crs::column_indices_type>(
        exec, "SpMVKit::CrsMatrix::column_indices(from_rows)", nnz);
    auto vals = detail::allocate_view<typename Crs::values_type>(
        exec, "SpMVKit::CrsMatrix::values(from_rows)", nnz);
    Kokkos::parallel_for(
        "SpMVKit::Crs::from_rows_fill",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, n),
        detail::FillCrsFromSource<Source, typename Crs::row_starts_type,
                                  typename Crs::column_indices_type, typename Crs::values_type>{
            source, starts, cols, vals});
    return Crs(num_rows, num_cols, starts, cols, vals);
  }
  template <class Exec, class Crs>
  static Crs to_crs(Exec const&, Crs const& A) {
    return A;
  }
  template <class Crs>
  static options_type options(Crs const&) {
    return {};
  }
  template <class Exec, class Crs, class X, class Y>
  static void apply(Exec const& exec, typename Crs::value_type alpha, Crs const& A, X const& x,
                    typename Crs::value_type beta, Y const& y, options_type const& o) {
    detail::spmv_crs(exec, alpha, A, x, beta, y, o.kernel);
  }
  template <class Exec, class Crs, class D>
  static void diagonal(Exec const& exec, Crs const& A, D const& d) {
    Kokkos::parallel_for(
        "SpMVKit::Crs::diagonal",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, A.num_rows()),
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
