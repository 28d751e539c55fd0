// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_HYB_HYB_MATRIX_HPP
#define SPMVKIT_FORMATS_HYB_HYB_MATRIX_HPP

/// \file
/// The HYB format (ELL + COO, cuSPARSE's former hybrid format, the TUM
/// seed's): the first `width` entries of every row in a column-major ELL
/// block, stored as SELL-C-σ (formats/sell/) so that each chunk is only as
/// wide as its longest head, and the rest of the longer rows in COO
/// (formats/coo/) over the compressed list of those rows. A product is the
/// SELL kernel (y = beta y + alpha A_ell x, every row) and then the COO
/// kernel adding alpha A_tail x to the tail rows only: beta is applied once.
///
/// The width rule (HybOptions::rule) decides the split; the anchors are
/// Ginkgo's Hybrid strategies:
/// - storage (default): the storage break-even of Ginkgo's
///   minimal_storage_limit. One more ELL column costs num_rows x (value +
///   column) bytes; keeping its entries in COO costs (rows longer than the
///   width) x (value + row + column). The width grows while the column is the
///   cheaper: the smallest w with rows_longer(w) x (S + 2I) <= num_rows x
///   (S + I), i.e. at most 75% of rows longer than w in FP64 with int indices.
///   Rows alike (FEM): w = the longest row, no tail. Power-law graphs: w near
///   the lower quartile of row lengths, the hubs' excess in COO.
/// - row_quantile (fraction p, default 0.8): Ginkgo's imbalance_limit, the
///   smallest w with at least a fraction p of the rows entirely in ELL.
/// - nnz_fraction (fraction q, default 0.9): the smallest w with at least a
///   fraction q of the nonzeros in ELL.
/// - fixed: cuSPARSE's user width (HybOptions::width, at most the longest row).
#include <spmvkit/core/detail/kept_transpose.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/coo/coo_matrix.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/hyb/detail/hyb_conversion.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

struct HybFormat;

/// How HYB chooses its ELL width (see the top of this file).
enum class HybWidthRule {
  storage,      ///< storage break-even (Ginkgo's minimal_storage_limit), the default
  row_quantile, ///< at least a fraction p of the rows entirely in ELL (Ginkgo's imbalance_limit)
  nnz_fraction, ///< at least a fraction q of the nonzeros in ELL
  fixed         ///< HybOptions::width (cuSPARSE's user width), at most the longest row
};

/// HYB options: the width rule and its parameter, and the SELL layout of the
/// ELL part (chunk size C, 0: the backend's default; sorting window sigma).
struct HybOptions {
  HybWidthRule rule = HybWidthRule::storage; ///< how the ELL width is chosen
  double fraction = 0;                       ///< row_quantile / nnz_fraction: p or q (0: 0.8 / 0.9)
  std::int64_t width = 0;                    ///< fixed: the ELL width
  int chunk_size = 0;     ///< SELL chunk size C of the ELL part (0: the backend's default)
  std::int64_t sigma = 1; ///< SELL sorting window of the ELL part (1: rows not sorted)
  /// from_crs checks the CRS structure first unless told not to.
  bool check_structure = true;
};

/// HYB matrix: ell() (SellMatrix of every row's head) and tail() (CooMatrix
/// whose row c is row tail_rows()(c) of the matrix). Made by make_hyb.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class HybMatrix {
public:
  /// The format tag, HybFormat (core/format_concept.hpp).
  using format_type = HybFormat;
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
  /// The ELL part's class (SELL-C-sigma).
  using ell_type = SellMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The tail's class (COO over the tail rows).
  using tail_type = CooMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// View of row indices (the tail's row map).
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;

  /// An empty 0 x 0 matrix without storage; assign a built matrix to it before use.
  HybMatrix() = default;
  /// Takes built parts (HybFormat::from_crs builds them): tail row c is row
  /// tail_rows(c) of the matrix. Throws std::invalid_argument when the parts
  /// do not fit together.
  HybMatrix(ell_type ell, tail_type tail, ordinals_type tail_rows, std::int64_t width,
            HybOptions const& options)
      : ell_(ell), tail_(tail), tail_rows_(tail_rows), width_(width), options_(options) {
    if (static_cast<std::int64_t>(tail_rows_.extent(0)) != tail_.num_rows() ||
        tail_.num_cols() != ell_.num_cols()) {
      throw std::invalid_argument("spmvkit::HybMatrix: the tail must have one row per entry of "
                                  "tail_rows and the ELL part's columns");
    }
  }

  /// Number of rows.
  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return ell_.num_rows(); }
  /// Number of columns.
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return ell_.num_cols(); }
  /// Number of entries (both parts, padding excluded).
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return ell_.nnz() + tail_.nnz(); }
  /// The ELL width: every row's first width() entries are in ell().
  std::int64_t width() const { return width_; }
  /// The ELL part: the first width() entries of every row.
  ell_type const& ell() const { return ell_; }
  /// The tail: the rest of the rows longer than width().
  tail_type const& tail() const { return tail_; }
  /// Row of the matrix that each tail row is.
  ordinals_type const& tail_rows() const { return tail_rows_; }
  /// The options the matrix was built with.
  HybOptions const& options() const { return options_; }
  /// Share of the nonzeros in the ELL part (1 for an empty matrix).
  double ell_fraction() const {
    return nnz() == 0 ? 1.0 : static_cast<double>(ell_.nnz()) / static_cast<double>(nnz());
  }

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
  ell_type ell_;
  tail_type tail_;
  ordinals_type tail_rows_;
  std::int64_t width_ = 0;
  HybOptions options_;
};

namespace detail {

inline double hyb_fraction(HybOptions const& o) {
  if (o.fraction != 0) return o.fraction;
  return o.rule == HybWidthRule::nnz_fraction ? 0.9 : 0.8;
}

/// The ELL width of A under o's rule: a binary search over [0, longest row],
/// each step one reduction over the row starts (all rules are monotone in w).
template <class ExecutionSpace, class Crs>
std::int64_t hyb_width(ExecutionSpace const& exec, Crs const& A, HybOptions const& o) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using RowStarts = typename Crs::row_starts_type;
  const std::int64_t n = A.num_rows(), nnz = A.nnz();
  const std::int64_t longest = A.statistics(exec).max_row_length;
  if (o.rule == HybWidthRule::fixed) return o.width < longest ? o.width : longest;
  const double value_bytes = sizeof(typename Crs::value_type);
  const double index_bytes = sizeof(typename Crs::ordinal_type);
  auto holds = [&](std::int64_t w) {
    std::int64_t count = 0;
    if (o.rule == HybWidthRule::nnz_fraction) {
      Kokkos::parallel_reduce("SpMVKit::Hyb::width_entries", Range(exec, 0, n),
                              EntriesWithin<RowStarts>{A.row_starts(), w}, count);
      return static_cast<double>(count) >= hyb_fraction(o) * static_cast<double>(nnz);
    }
    Kokkos::parallel_reduce("SpMVKit::Hyb::width_rows", Range(exec, 0, n),
                            RowsLongerThan<RowStarts>{A.row_starts(), w}, count);
    if (o.rule == HybWidthRule::storage) {
      return static_cast<double>(count) * (value_bytes + 2 * index_bytes) <=
             static_cast<double>(n) * (value_bytes + index_bytes);
    }
    return static_cast<double>(count) <= (1.0 - hyb_fraction(o)) * static_cast<double>(n);
  };
  std::int64_t lo = 0, hi = longest; // holds(longest) is always true
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (holds(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

} // namespace detail

/// The format tag of HYB (core/format_concept.hpp).
struct HybFormat {
  /// The family name, "hyb".
  static constexpr char const* family = "hyb";
  /// apply takes several blocks of columns at once (detail::walks_column_blocks).
  static constexpr bool walks_column_blocks = true;
  /// The options of HYB: HybOptions.
  using options_type = HybOptions;
  /// The matrix class of the format: HybMatrix.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = HybMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// Name for reports and benchmarks: "hyb", "hyb_rows80", "hyb_nnz90", "hyb_w16", with
  /// "_c<C>" and "_s<sigma>" when not the defaults.
  static std::string name(options_type const& o) {
    std::string n = "hyb";
    switch (o.rule) {
    case HybWidthRule::storage: break;
    case HybWidthRule::row_quantile:
      n += "_rows" + std::to_string(std::lround(100 * detail::hyb_fraction(o)));
      break;
    case HybWidthRule::nnz_fraction:
      n += "_nnz" + std::to_string(std::lround(100 * detail::hyb_fraction(o)));
      break;
    case HybWidthRule::fixed: n += "_w" + std::to_string(o.width); break;
    }
    if (o.chunk_size != 0) n += "_c" + std::to_string(o.chunk_size);
    if (o.sigma != 1) n += "_s" + std::to_string(o.sigma);
    return n;
  }
  /// The three width rules on the backend's SELL chunk size.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    HybOptions storage, rows, nnz;
    rows.rule = HybWidthRule::row_quantile;
    nnz.rule = HybWidthRule::nnz_fraction;
    return {storage, rows, nnz};
  }
  /// Why A cannot be stored as HYB with o: options out of range, or a SELL
  /// chunk size the backend cannot run ("" if it can).
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const&, Crs const&, options_type const& o) {
    if (!(o.fraction >= 0 && o.fraction <= 1) || o.width < 0 || o.chunk_size < 0 || o.sigma < 1) {
      return "fraction must lie in [0, 1], width and chunk size be >= 0 and sigma >= 1";
    }
    return detail::sell_chunk_size_obstacle<ExecutionSpace>(chunk_size<ExecutionSpace>(o));
  }
  /// CRS to HYB on exec (defined below).
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o);
  /// Through CRS (CrsFormat::from_rows): the width rules need the row lengths
  /// before anything is stored.
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const& o) {
    options_type checked = o;
    checked.check_structure = false;
    return from_crs(exec, CrsFormat::from_rows(exec, num_rows, num_cols, source, {}), checked);
  }
  /// HYB back to CRS, exact (defined below).
  template <class ExecutionSpace, class Hyb>
  static typename Hyb::crs_type to_crs(ExecutionSpace const& exec, Hyb const& A);
  /// The options A was built with.
  template <class Hyb>
  static options_type options(Hyb const& A) {
    return A.options();
  }
  /// y = beta y + alpha A x: the SELL kernel on the ELL part, then the COO
  /// kernel adding the tail into its rows (arguments validated by spmv()).
  template <class ExecutionSpace, class Hyb, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<Hyb, Y> alpha, Hyb const& A,
                    X const& x, detail::spmv_scalar_t<Hyb, Y> beta, Y const& y,
                    options_type const&) {
    detail::spmv_sell(exec, alpha, A.ell(), x, beta, y);
    if (A.tail().nnz() > 0) {
      // With y narrower than the sums (a double matrix with float vectors),
      // tail rows are rounded a second time here.
      detail::spmv_coo(exec, alpha, A.tail(), x, detail::spmv_scalar_t<Hyb, Y>(1), y, A.tail_rows(),
                       "SpMVKit::spmv::hyb_tail");
    }
  }
  /// The ELL part's diagonal, then the tail's diagonal entries added (in
  /// double, rounded again: exact unless a row stores its diagonal entry
  /// more than once, on both sides of the width).
  template <class ExecutionSpace, class Hyb, class D>
  static void diagonal(ExecutionSpace const& exec, Hyb const& A, D const& d) {
    SellFormat::diagonal(exec, A.ell(), d);
    Kokkos::parallel_for(
        "SpMVKit::Hyb::tail_diagonal",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                             A.tail().num_rows()),
        detail::TailDiagonal<typename Hyb::ordinals_type, typename Hyb::ordinals_type,
                             typename Hyb::tail_type::values_type, typename Hyb::ordinals_type, D>{
            A.tail().row_indices(), A.tail().column_indices(), A.tail().values(), A.tail_rows(), d,
            A.tail().nnz()});
  }
  /// The SELL part's and the COO part's matrix traffic, the tail's row map,
  /// and the tail rows of y read and written a second time; x; y once.
  template <class Hyb>
  static SpmvBytes bytes(Hyb const& A) {
    using S = typename Hyb::value_type;
    const double tail_rows = static_cast<double>(A.tail().num_rows());
    SpmvBytes b;
    b.matrix = SellFormat::bytes(A.ell()).matrix + CooFormat::bytes(A.tail()).matrix +
               tail_rows * (sizeof(typename Hyb::ordinal_type) + 2 * sizeof(S));
    b.x = static_cast<double>(A.num_cols()) * sizeof(S);
    b.y = static_cast<double>(A.num_rows()) * sizeof(S);
    return b;
  }

private:
  template <class ExecutionSpace>
  static int chunk_size(options_type const& o) {
    return o.chunk_size != 0 ? o.chunk_size : detail::default_sell_chunk_size<ExecutionSpace>();
  }
};

/// CRS -> HYB on A's execution space: the width (HybFormat's rule), the head
/// of every row into SELL, the longer rows' rest into COO.
template <class ExecutionSpace, class Crs>
HybFormat::matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                       typename Crs::offset_type>
HybFormat::from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
  using Scalar = typename Crs::value_type;
  using Ordinal = typename Crs::ordinal_type;
  using Offset = typename Crs::offset_type;
  using Hyb = matrix_type<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Tail = typename Hyb::tail_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using RowStarts = typename Crs::row_starts_type;
  const std::string why = obstacle(exec, A, o);
  if (!why.empty()) throw std::invalid_argument("spmvkit::HybFormat::from_crs: " + why);
  if (o.check_structure) detail::ensure_structure(exec, A);
  const std::int64_t n = A.num_rows();
  const std::int64_t width = detail::hyb_width(exec, A, o);

  SellOptions sell;
  sell.chunk_size = chunk_size<ExecutionSpace>(o);
  sell.sigma = o.sigma;
  sell.check_structure = false;
  auto ell = SellFormat::from_rows(exec, n, A.num_cols(),
                                   detail::HeadRows<decltype(detail::crs_row_source(A))>{
                                       detail::crs_row_source(A), static_cast<Ordinal>(width)},
                                   sell);

  // The tail: the list of long rows, where each one's rest starts, the copy.
  std::int64_t m = 0;
  Kokkos::parallel_reduce("SpMVKit::Hyb::tail_rows_count", Range(exec, 0, n),
                          detail::RowsLongerThan<RowStarts>{A.row_starts(), width}, m);
  auto tail_rows =
      detail::allocate_view<typename Hyb::ordinals_type>(exec, "SpMVKit::HybMatrix::tail_rows", m);
  auto tail_starts = detail::allocate_view<Kokkos::View<Offset*, typename Hyb::device_type>>(
      exec, "SpMVKit::HybMatrix::tail_row_starts", m + 1);
  std::int64_t tail_nnz = 0;
  if (m > 0) {
    Kokkos::parallel_scan("SpMVKit::Hyb::tail_rows", Range(exec, 0, n),
                          detail::TailRowList<RowStarts, typename Hyb::ordinals_type>{
                              A.row_starts(), tail_rows, width});
    Kokkos::parallel_scan(
        "SpMVKit::Hyb::tail_row_starts", Range(exec, 0, m),
        detail::TailRowStarts<RowStarts, typename Hyb::ordinals_type, decltype(tail_starts)>{
            A.row_starts(), tail_rows, tail_starts, width, m},
        tail_nnz);
  } else {
    Kokkos::deep_copy(exec, tail_starts, Offset(0));
  }
  auto keys = detail::allocate_view<typename Tail::indices_type>(
      exec, "SpMVKit::HybMatrix::tail_row_indices", tail_nnz);
  auto cols = detail::allocate_view<typename Tail::indices_type>(
      exec, "SpMVKit::HybMatrix::tail_column_indices", tail_nnz);
  auto vals = detail::allocate_view<typename Tail::values_type>(
      exec, "SpMVKit::HybMatrix::tail_values", tail_nnz);
  Kokkos::parallel_for(
      "SpMVKit::Hyb::tail_fill", Range(exec, 0, tail_nnz),
      detail::FillTail<RowStarts, typename Crs::column_indices_type, typename Crs::values_type,
                       typename Hyb::ordinals_type, decltype(tail_starts)>{
          A.row_starts(), A.column_indices(), A.values(), tail_rows, tail_starts, keys, cols, vals,
          width, m});
  auto plan = detail::merge_path_plan<Scalar, Ordinal>(exec, tail_starts, m, tail_nnz, "HybTail");
  return Hyb(ell, Tail(m, A.num_cols(), keys, cols, vals, plan), tail_rows, width, o);
}

/// HYB -> CRS: both parts back to CRS, then joined row by row (head entries,
/// then tail entries: the order of the CRS matrix HYB was made from).
template <class ExecutionSpace, class Hyb>
typename Hyb::crs_type HybFormat::to_crs(ExecutionSpace const& exec, Hyb const& A) {
  using Ordinal = typename Hyb::ordinal_type;
  const auto head = spmvkit::to_crs(exec, A.ell());
  const auto tail = CooFormat::to_crs(exec, A.tail());
  auto inverse = detail::allocate_view<typename Hyb::ordinals_type>(
      exec, "SpMVKit::HybMatrix::to_crs_inverse", A.num_rows());
  Kokkos::deep_copy(exec, inverse, Ordinal(-1));
  Kokkos::parallel_for(
      "SpMVKit::Hyb::to_crs_inverse",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                           A.tail().num_rows()),
      detail::InvertTailRows<typename Hyb::ordinals_type, typename Hyb::ordinals_type>{
          A.tail_rows(), inverse});
  using Head = decltype(detail::crs_row_source(head));
  using Inverse = Kokkos::View<const Ordinal*, typename Hyb::device_type>;
  return CrsFormat::from_rows(exec, A.num_rows(), A.num_cols(),
                              detail::JoinedRows<Head, Head, Inverse>{detail::crs_row_source(head),
                                                                      detail::crs_row_source(tail),
                                                                      inverse},
                              {});
}

} // namespace spmvkit

#endif
