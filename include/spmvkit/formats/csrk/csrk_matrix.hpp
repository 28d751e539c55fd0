// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CSRK_CSRK_MATRIX_HPP
#define SPMVKIT_FORMATS_CSRK_CSRK_MATRIX_HPP

/// The CSR-k format (Kabir, Booth and Raghavan 2014; Lane and Booth,
/// "Heterogeneous sparse matrix-vector multiplication via compressed sparse
/// row format"): CsrkMatrix, CsrkOptions, CsrkFormat, make_csrk. Longer than
/// most public headers because the numbering choice and the tuning model
/// need saying where the format is.
///
/// What is stored: a CRS of the rows in Band-k order (reorder/band_k.hpp),
/// plus the row pointer of the super-rows and, for k = 3, the super-row
/// pointer of the super-super-rows: a few extra arrays, the rest is plain CRS.
///
/// Numbering. The format concept's apply takes x and y in the user's
/// numbering. The paper runs SpMV on the symmetrically permuted matrix with
/// x and y permuted too; doing that inside apply would cost a gather of x
/// into a work vector on every product (and a work vector shared by
/// concurrent products). CSR-k keeps the permutation in the kernel's indexing
/// instead: only the rows are reordered, each stored row keeps the user's
/// column numbers, so the kernel reads x directly and writes row i's result
/// to y(row_permutation(i)). Per product that costs n extra index reads and
/// scattered (not streaming) stores of y, and nothing else. What Band-k buys
/// is kept: the rows of a super-row and of a team share columns, so their x
/// entries are reused from cache. What it cannot buy this way is spatial
/// locality of x when the user's numbering has none; for that, reorder the
/// whole problem (reorder_rcm or reorder_band_k with a ReorderedOperator, or
/// permute / unpermute around a solve) and build CSR-k of the reordered
/// matrix with band_k = false. to_crs is exact: rows come back in the user's
/// order with their entries in their order.
///
/// Kernels (detail::CsrkSpmv, shapes from detail::row_groups_shape):
/// - host backends: one team (one thread) per super-row (CSR-2) or per
///   super-super-row (CSR-3), rows one after the other: the paper's Listing 1.
/// - GPUs: one team per super-super-row (CSR-2: super_row_slots super-rows),
///   a super-row per group of threads, and vector lanes across the
///   super-row's rows (mean row length <= 8, GPUSpMV-3) or across one row's
///   entries (GPUSpMV-3.5), with the paper's four block shapes
///   (detail::row_groups_shape in launch_parameters.hpp).
///
/// Group sizes: given in CsrkOptions, or from the paper's constant-time
/// model (detail::csrk_model: on GPUs SSRS and SRS from ln(nnz / n), the A100
/// constants, TO BE FITTED ON THE H200 (csrk_tuning.hpp says how); on host
/// backends one constant per k, see detail::csrk_host_model). The GPU block
/// shape (lanes x row slots x super-row slots) is the paper's per row-density
/// case unless CsrkOptions::gpu_* say otherwise.
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/csrk/detail/csrk_kernels.hpp>
#include <spmvkit/formats/csrk/detail/csrk_tuning.hpp>
#include <spmvkit/reorder/band_k.hpp>
#include <spmvkit/reorder/permutation.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

struct CsrkFormat;

/// CSR-k options. Zeros mean "the default": k = 2 on host backends and 3 on
/// GPUs (the paper's recommendation), group sizes from the model
/// (detail::csrk_model), GPU block shape from launch_parameters.hpp
/// (detail::row_groups_shape). Explicit sizes and shapes are what a tuning
/// sweep sets (perf_tests: --csrk-sizes, --csrk-shape).
struct CsrkOptions {
  /// 2 (super-rows) or 3 (super-rows and super-super-rows); 0: the backend's default.
  int k = 0;
  /// SRS: rows per super-row; 0: the model.
  std::int64_t rows_per_super_row = 0;
  /// SSRS: super-rows per super-super-row (k = 3); 0: the model.
  std::int64_t super_rows_per_super_super_row = 0;
  /// Order the rows by Band-k (square matrices; a rectangular one keeps its
  /// order). false: the user's order, cut into consecutive groups.
  bool band_k = true;
  /// from_crs checks the CRS structure first (check_structure).
  bool check_structure = true;
  /// GPU block shape (ignored on host backends, where a team is one thread):
  /// vector lanes (a power of two <= 32), 0: by mean row length.
  int gpu_lanes = 0;
  /// GPU threads sharing one super-row (the paper's y of GPUSpMV-3.5); 0: by mean row length.
  int gpu_row_slots = 0;
  /// GPU super-rows in flight per team; 0: by mean row length.
  int gpu_super_row_slots = 0;
  /// GPU lanes across a row's entries (1, GPUSpMV-3.5) or across a
  /// super-row's rows (-1, GPUSpMV-3); 0: entries when rows average > 8.
  int gpu_lanes_over_entries = 0;
};

/// A CSR-k matrix (see above). Rows are stored in the order of
/// row_permutation() (stored row -> the user's row), with the user's columns.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class CsrkMatrix {
public:
  /// The format tag (core/format_concept.hpp).
  using format_type = CsrkFormat;
  /// The CRS matrix type it converts from and to.
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// Scalar type of the entries.
  using value_type = Scalar;
  /// Row and column index type.
  using ordinal_type = Ordinal;
  /// Entry offset type.
  using offset_type = Offset;
  /// Where the arrays live and the kernels run.
  using execution_space = ExecutionSpace;
  /// Memory space of the arrays.
  using memory_space = typename ExecutionSpace::memory_space;
  /// Kokkos::Device of execution_space and memory_space.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// View of the row starts.
  using row_starts_type = typename crs_type::row_starts_type;
  /// View of indices.
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;
  /// View of the values.
  using values_type = typename crs_type::values_type;
  /// The row ordering and its group pointers (reorder/band_k.hpp).
  using groups_type = RowGroups<Ordinal, device_type>;

  CsrkMatrix() = default;

  /// The stored rows (row i is the user's row groups.permutation.new_to_old()(i))
  /// and their groups; use make_csrk() to convert a CrsMatrix.
  /// `options` are those it was built with, sizes resolved (k, SRS, SSRS nonzero).
  CsrkMatrix(crs_type const& stored_rows, groups_type const& groups, CsrkOptions const& options)
      : rows_(stored_rows), groups_(groups), options_(options) {
    const std::string where = "spmvkit::CsrkMatrix: ";
    if (groups.k != 2 && groups.k != 3) {
      throw std::invalid_argument(where + "k must be 2 or 3, got " + std::to_string(groups.k));
    }
    if (groups.permutation.size() != stored_rows.num_rows() || groups.super_rows.extent(0) == 0 ||
        (groups.k == 3) != (groups.super_super_rows.extent(0) != 0)) {
      throw std::invalid_argument(where + "the permutation must have num_rows entries, the "
                                          "super-row pointer at least one, and the "
                                          "super-super-row pointer must exist exactly for k = 3");
    }
  }

  /// Rows of A.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return rows_.num_rows(); }
  /// Columns of A.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return rows_.num_cols(); }
  /// Stored entries (explicit zeros included).
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return rows_.nnz(); }
  /// 2 or 3: the levels of grouping.
  int k() const { return groups_.k; }
  /// The super-row size the matrix was built for (SRS); Band-k's groups have
  /// exactly this many rows but the last (reorder/band_k.hpp).
  std::int64_t rows_per_super_row() const { return options_.rows_per_super_row; }
  /// The super-super-row size (SSRS) the matrix was built for; 1 for k = 2.
  std::int64_t super_rows_per_super_super_row() const {
    return options_.super_rows_per_super_super_row;
  }
  /// Whether the rows were ordered by Band-k (else: the user's order).
  bool band_k() const { return options_.band_k; }
  /// The options it was built with, sizes resolved.
  CsrkOptions const& options() const { return options_; }

  /// The stored rows as a CRS matrix (rows permuted, the user's columns).
  crs_type const& stored_rows() const { return rows_; }
  /// Row starts of the stored rows (num_rows + 1).
  row_starts_type const& row_starts() const { return rows_.row_starts(); }
  /// Column indices of the stored rows, in the user's numbering.
  typename crs_type::column_indices_type const& column_indices() const {
    return rows_.column_indices();
  }
  /// Values of the stored rows.
  values_type const& values() const { return rows_.values(); }
  /// Stored row -> the user's row.
  ordinals_type const& row_permutation() const { return groups_.permutation.new_to_old(); }
  /// The row ordering (both directions) and the group pointers.
  groups_type const& groups() const { return groups_; }
  /// Row pointer of the super-rows (num_super_rows + 1 entries).
  ordinals_type const& super_rows() const { return groups_.super_rows; }
  /// Super-row pointer of the super-super-rows (k = 3; empty for k = 2).
  ordinals_type const& super_super_rows() const { return groups_.super_super_rows; }
  /// Number of super-rows.
  std::int64_t num_super_rows() const { return groups_.num_super_rows(); }
  /// Number of super-super-rows (0 for k = 2).
  std::int64_t num_super_super_rows() const { return groups_.num_super_super_rows(); }

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
  crs_type rows_;
  groups_type groups_;
  CsrkOptions options_;
};

/// The CSR-k format tag (core/format_concept.hpp).
struct CsrkFormat {
  /// Short name of the format (benchmark names, reports).
  static constexpr char const* family = "csrk";
  /// Conversion and kernel choices.
  using options_type = CsrkOptions;
  /// The matrix class of this format.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = CsrkMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// The variant's name (benchmarks, reports): the family, plus the options that differ from the
  /// defaults.
  static std::string name(options_type const& o) {
    std::string n = family;
    if (o.k != 0) n += std::to_string(o.k);
    if (o.rows_per_super_row != 0) n += "_sr" + std::to_string(o.rows_per_super_row);
    if (o.super_rows_per_super_super_row != 0)
      n += "_ssr" + std::to_string(o.super_rows_per_super_super_row);
    if (!o.band_k) n += "_natural";
    if (o.gpu_lanes != 0 || o.gpu_row_slots != 0 || o.gpu_super_row_slots != 0)
      n += "_b" + std::to_string(o.gpu_lanes) + "x" + std::to_string(o.gpu_row_slots) + "x" +
           std::to_string(o.gpu_super_row_slots);
    if (o.gpu_lanes_over_entries != 0) n += o.gpu_lanes_over_entries > 0 ? "_entries" : "_rows";
    return n;
  }
  /// CSR-2 and CSR-3 with the model's sizes.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    options_type k2, k3;
    k2.k = 2;
    k3.k = 3;
    return {k2, k3};
  }
  /// Bad options (k, negative sizes, a GPU shape a team cannot hold), or "".
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const&, Crs const&, options_type const& o) {
    if ((o.k != 0 && o.k != 2 && o.k != 3) || o.rows_per_super_row < 0 ||
        o.super_rows_per_super_super_row < 0) {
      return "k must be 0 (default), 2 or 3 and group sizes >= 0 (0: the model), got k = " +
             std::to_string(o.k) + ", SRS = " + std::to_string(o.rows_per_super_row) +
             ", SSRS = " + std::to_string(o.super_rows_per_super_super_row);
    }
    return shape_obstacle(o);
  }
  /// Why the GPU block shape of `o` cannot launch, or "" (checked on every backend).
  static std::string shape_obstacle(options_type const& o) {
    const bool lanes_ok = o.gpu_lanes == 0 || (o.gpu_lanes > 0 && o.gpu_lanes <= 32 &&
                                               (o.gpu_lanes & (o.gpu_lanes - 1)) == 0);
    const std::int64_t threads = std::int64_t(std::max(o.gpu_lanes, 1)) *
                                 std::max(o.gpu_row_slots, 1) * std::max(o.gpu_super_row_slots, 1);
    if (!lanes_ok || o.gpu_row_slots < 0 || o.gpu_super_row_slots < 0 || threads > 1024) {
      return "GPU block shape lanes x row slots x super-row slots = " +
             std::to_string(o.gpu_lanes) + " x " + std::to_string(o.gpu_row_slots) + " x " +
             std::to_string(o.gpu_super_row_slots) +
             ": lanes must be 0 or a power of two <= 32, slots >= 0 (0: the default), and at "
             "most 1024 threads in all";
    }
    return "";
  }
  /// Converts on the device after Band-k on the host (see make_csrk()).
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    using M = matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                          typename Crs::offset_type>;
    const std::string problem = obstacle(exec, A, o);
    if (!problem.empty()) throw std::invalid_argument("spmvkit::make_csrk: " + problem);
    if (o.check_structure) detail::ensure_structure(exec, A);
    const int k = o.k != 0 ? o.k : (detail::is_host_space_v<ExecutionSpace> ? 2 : 3);
    const double rdensity = A.num_rows() > 0 ? double(A.nnz()) / A.num_rows() : 0.0;
    const detail::CsrkSizes model = detail::csrk_model<ExecutionSpace>(k, rdensity);
    const std::int64_t srs = o.rows_per_super_row ? o.rows_per_super_row : model.rows_per_super_row;
    const std::int64_t ssrs = k == 2 ? 1
                              : o.super_rows_per_super_super_row
                                  ? o.super_rows_per_super_super_row
                                  : model.super_rows_per_super_super_row;
    const bool reorder = o.band_k && A.num_rows() == A.num_cols();
    const auto groups =
        reorder ? band_k(exec, A, k, srs, ssrs)
                : consecutive_groups<typename Crs::ordinal_type>(exec, A.num_rows(), k, srs, ssrs);
    auto stored = CrsFormat::from_rows(
        exec, A.num_rows(), A.num_cols(),
        detail::indexed_rows(detail::crs_row_source(A), groups.permutation.new_to_old()),
        CrsOptions());
    options_type resolved = o;
    resolved.k = k;
    resolved.rows_per_super_row = srs;
    resolved.super_rows_per_super_super_row = ssrs;
    resolved.band_k = reorder;
    return M(stored, groups, resolved);
  }
  /// Through CRS: Band-k needs the whole pattern on the host anyway.
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type o) {
    const auto crs = CrsFormat::from_rows(exec, num_rows, num_cols, source, CrsOptions());
    o.check_structure = false;
    return from_crs(exec, crs, o);
  }
  /// The user's rows back, entries in their order (exact).
  template <class ExecutionSpace, class M>
  static typename M::crs_type to_crs(ExecutionSpace const& exec, M const& A) {
    return CrsFormat::from_rows(exec, A.num_rows(), A.num_cols(),
                                detail::indexed_rows(detail::crs_row_source(A.stored_rows()),
                                                     A.groups().permutation.old_to_new()),
                                CrsOptions());
  }
  /// The options A was built with (sizes resolved; SSRS 0 for k = 2).
  template <class M>
  static options_type options(M const& A) {
    options_type o = A.options();
    if (o.k == 2) o.super_rows_per_super_super_row = 0;
    return o;
  }
  /// y = beta y + alpha A x; of `o` only the GPU block shape is read (the
  /// groups are fixed at conversion).
  template <class ExecutionSpace, class M, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<M, Y> alpha, M const& A,
                    X const& x, detail::spmv_scalar_t<M, Y> beta, Y const& y,
                    options_type const& o) {
    const std::string problem = shape_obstacle(o);
    if (!problem.empty()) throw std::invalid_argument("spmvkit::spmv (CSR-k): " + problem);
    detail::spmv_csrk(exec, alpha, A, x, beta, y,
                      detail::row_groups_shape<ExecutionSpace>(
                          A.num_rows(), A.nnz(), o.gpu_lanes, o.gpu_row_slots,
                          o.gpu_super_row_slots, o.gpu_lanes_over_entries));
  }
  /// d(i) = the sum of A's entries (i, i).
  template <class ExecutionSpace, class M, class D>
  static void diagonal(ExecutionSpace const& exec, M const& A, D const& d) {
    Kokkos::parallel_for(
        "SpMVKit::Csrk::diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<typename M::ordinal_type>>(
            exec, 0, A.num_rows()),
        detail::CsrkDiagonal<M, D>{A.row_starts(), A.column_indices(), A.values(),
                                   A.row_permutation(), d});
  }
  /// CRS's arrays + the row permutation (read for every row's store) + the
  /// group pointers + x + y.
  template <class M>
  static SpmvBytes bytes(M const& A) {
    using S = typename M::value_type;
    using O = typename M::ordinal_type;
    SpmvBytes b;
    b.matrix = static_cast<double>(A.nnz()) * (sizeof(S) + sizeof(O)) +
               (static_cast<double>(A.num_rows()) + 1) * sizeof(typename M::offset_type) +
               static_cast<double>(A.num_rows()) * sizeof(O) +
               (static_cast<double>(A.num_super_rows()) + 1) * sizeof(O) +
               (A.k() == 3 ? (static_cast<double>(A.num_super_super_rows()) + 1) * sizeof(O) : 0.0);
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }
};

/// Converts CRS to CSR-k on A's execution space: structure check, Band-k (on
/// the host, see reorder/band_k.hpp), then the stored rows on the device.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CsrkMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_csrk(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
          CsrkOptions const& options = {}) {
  return CsrkFormat::from_crs(exec, A, options);
}

} // namespace spmvkit

#endif
