// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SELECT_FORMAT_COSTS_HPP
#define SPMVKIT_SELECT_FORMAT_COSTS_HPP

/// \file
/// What one SpMV of a format variant would cost, estimated from a matrix's
/// features (select/matrix_features.hpp) without converting it: the
/// format_cost trait. The estimate has two terms of the variant that the
/// model (select/format_model.hpp) turns into seconds with constants fitted
/// per variant and backend:
///
/// - `bytes`: the variant's byte model (the F::bytes of the matrix it would
///   build), padding included; host ELL-R, unlike its F::bytes, counts the
///   padding its strips read;
/// - `critical_entries`: the entries on the longest serial path of the
///   kernel, the work one thread (or one group of lanes) must do alone. For a
///   kernel that owns whole rows it is the longest row (divided by its lanes);
///   for kernels that split rows it is about zero. This is the term that makes
///   a hub row of 10^5 entries cost what it costs.
///
/// and two terms of the matrix alone, the same for every variant
/// (estimate_cost() adds them): `rows`, and `row_spread`, the rows times the
/// standard deviation of their lengths. Host row loops pay per row, and more
/// where lengths vary (likely the loop exits the branch predictor misses); a
/// host table may fit a constant for each (the 16-thread one does).
///
/// A format without a specialisation is never chosen by the model; tune mode
/// (AutoOptions) still times it when asked. A specialisation returns an
/// empty optional for options it cannot estimate. Two formats have none on
/// purpose: CSR-k, whose conversion reorders the matrix on the host (Band-k)
/// and would cost far more than the model's budget of a few SpMVs, and HYB,
/// whose ELL width rule needs the row-length distribution beyond the
/// features (name them in AutoOptions::candidates to have them timed). BSR
/// is estimated for its detected block size only.
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/host_cpu.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/select/matrix_features.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace spmvkit {

/// The sizes in bytes of a matrix's value, ordinal and offset types.
struct TypeSizes {
  int scalar = 8;  ///< sizeof(Scalar)
  int ordinal = 4; ///< sizeof(Ordinal)
  int offset = 4;  ///< sizeof(Offset)
};

/// The cost terms of one SpMV of a format variant (see the file comment).
struct SpmvEstimate {
  double bytes = 0;            ///< byte model of the variant, padding included
  double critical_entries = 0; ///< entries on the longest serial path
  double rows = 0;             ///< rows of the matrix
  double row_spread = 0;       ///< rows times the standard deviation of the row lengths
};

/// The fitted constants of one format variant on one backend family
/// (select/format_model.hpp): seconds = launch_seconds + seconds_per_byte *
/// bytes + seconds_per_critical_entry * critical_entries +
/// seconds_per_byte_critical * bytes * critical_entries + seconds_per_row *
/// rows + seconds_per_row_spread * row_spread.
struct KernelCost {
  char const* variant;               ///< F::name(options) of the variant
  double launch_seconds;             ///< fixed cost of one SpMV
  double seconds_per_byte;           ///< inverse of the variant's effective bandwidth
  double seconds_per_critical_entry; ///< cost of one entry on the serial path
  /// per byte and entry of the serial path: a rate that falls as the path grows (host ELL's
  /// strips read its w columns as w streams at once); 0 where not fitted
  double seconds_per_byte_critical = 0;
  double seconds_per_row = 0;        ///< per row (host tables; 0 where not fitted)
  double seconds_per_row_spread = 0; ///< per row and unit of row-length deviation (host tables)
};

/// A host table of fitted constants, the thread count and the CPU vendor it was fitted at: a
/// host's constants depend on how many threads share its caches and memory channels, and on its
/// cores (the same kernels rank differently on Intel and AMD cores), so there is one table per
/// measured thread count and vendor.
struct HostCostTable {
  int threads;                               ///< concurrency() of the fitting run; 0 ends a list
  KernelCost const* costs;                   ///< its table, ended by a null variant
  HostCpuVendor vendor = HostCpuVendor::any; ///< the fitting run's CPU vendor
};

/// Trait: the cost estimate of format F. Not specialised: no estimate.
template <class F>
struct format_cost {
  /// false: the model does not estimate F.
  static constexpr bool available = false;
};

namespace detail {
inline double vector_bytes(MatrixFeatures const& f, TypeSizes s) {
  return static_cast<double>(f.rows.num_rows + f.rows.num_cols) * s.scalar;
}
} // namespace detail

/// CRS: every kernel moves the same bytes; they differ in the serial path.
template <>
struct format_cost<CrsFormat> {
  /// true: estimated.
  static constexpr bool available = true;
  /// The estimate of CRS with kernel o.kernel on ExecutionSpace; automatic is not
  /// estimated (it is one of the others).
  template <class ExecutionSpace>
  static std::optional<SpmvEstimate> estimate(MatrixFeatures const& f, CrsOptions const& o,
                                              TypeSizes s) {
    SpmvEstimate e;
    e.bytes = static_cast<double>(f.rows.nnz) * (s.scalar + s.ordinal) +
              static_cast<double>(f.rows.num_rows + 1) * s.offset + detail::vector_bytes(f, s);
    const double longest = static_cast<double>(f.rows.max_row_length);
    switch (o.kernel) {
    case CrsKernel::row_per_thread: e.critical_entries = longest; break;
    case CrsKernel::vector:
      e.critical_entries = detail::is_host_space_v<ExecutionSpace>
                               ? longest
                               : longest / detail::crs_vector_lanes(f.rows.mean_row_length);
      break;
    case CrsKernel::balanced: {
      // Rows are split over tiles of the merge path: no serial path beyond a
      // tile, and the plan's tile coordinates and carries on top.
      const auto p = detail::merge_path_parameters<ExecutionSpace>(f.rows.num_rows, f.rows.nnz);
      e.critical_entries = static_cast<double>(p.items_per_thread);
      e.bytes += static_cast<double>(p.league_size + 1) * (s.ordinal + s.offset) +
                 2.0 * static_cast<double>(p.league_size) * s.scalar;
      break;
    }
    default: return std::nullopt;
    }
    return e;
  }
};

/// SELL-C-σ and SellOffset16 with σ = 1 (the padding of a σ window is not among
/// the features); the longest row is walked by one thread of its chunk.
template <class Columns>
struct format_cost<BasicSellFormat<Columns>> {
  /// true: estimated.
  static constexpr bool available = true;
  /// The estimate of SELL-C-1 (C = o.chunk_size, 0 for the backend's
  /// default); empty for σ > 1, and for SellOffset16 on a matrix it cannot store.
  template <class ExecutionSpace>
  static std::optional<SpmvEstimate> estimate(MatrixFeatures const& f, SellOptions const& o,
                                              TypeSizes s) {
    if (o.sigma != 1) return std::nullopt;
    if (Columns::relative && !f.sell_offset16_eligible) return std::nullopt;
    const int c =
        o.chunk_size != 0 ? o.chunk_size : detail::default_sell_chunk_size<ExecutionSpace>();
    const double chunks = static_cast<double>((f.rows.num_rows + c - 1) / c);
    const int column_bytes = Columns::relative ? 2 : s.ordinal;
    SpmvEstimate e;
    e.bytes = static_cast<double>(f.sell_padded(c)) * (s.scalar + column_bytes) +
              (chunks + 1) * s.offset + chunks * s.ordinal + detail::vector_bytes(f, s);
    e.critical_entries = static_cast<double>(f.rows.max_row_length);
    return e;
  }
};

/// ELL and ELL-R: n x w column-major, w the longest row; a row per thread
/// walks its row (ELL: the full width). Not estimated beyond ELL's padding
/// limit, where the conversion refuses the matrix.
template <class Width>
struct format_cost<BasicEllFormat<Width>> {
  /// true: estimated.
  static constexpr bool available = true;
  /// The estimate of ELL (ELL-R) with options o.
  template <class ExecutionSpace>
  static std::optional<SpmvEstimate> estimate(MatrixFeatures const& f, EllOptions const& o,
                                              TypeSizes s) {
    const std::int64_t n = f.rows.num_rows;
    const std::int64_t padded = n * f.rows.max_row_length;
    const std::int64_t limit = o.max_padded_entries > 0
                                   ? o.max_padded_entries
                                   : detail::default_ell_padding_limit(n, f.rows.nnz);
    if (padded > limit) return std::nullopt;
    // A host ELL-R strip of column_major_host_rows_per_thread rows reads to its longest row, so
    // it moves the lines of SELL-C-1's padding at that C, not only its entries (a partial last
    // strip, walked row by row, and the narrower strips of several vectors are priced alike).
    const double read =
        detail::is_host_space_v<ExecutionSpace> && Width::stops_at_row_length
            ? static_cast<double>(f.sell_padded(detail::column_major_host_rows_per_thread))
            : static_cast<double>(f.rows.nnz);
    SpmvEstimate e;
    e.bytes = Width::matrix_bytes(static_cast<double>(n), read, static_cast<double>(padded),
                                  s.scalar, s.ordinal) +
              detail::vector_bytes(f, s);
    e.critical_entries = static_cast<double>(f.rows.max_row_length);
    return e;
  }
};

/// COO: sorted triplets on the merge-path machinery (no serial path beyond a tile).
template <>
struct format_cost<CooFormat> {
  /// true: estimated.
  static constexpr bool available = true;
  /// The estimate of COO (its byte model with the plan's tiles).
  template <class ExecutionSpace>
  static std::optional<SpmvEstimate> estimate(MatrixFeatures const& f, CooOptions const&,
                                              TypeSizes s) {
    const auto p = detail::merge_path_parameters<ExecutionSpace>(f.rows.num_rows, f.rows.nnz);
    const double tiles = static_cast<double>(p.league_size);
    SpmvEstimate e;
    e.bytes = static_cast<double>(f.rows.nnz) * (s.scalar + 2 * s.ordinal) +
              (tiles + 1) * (s.ordinal + s.offset) + 2 * tiles * s.scalar +
              detail::vector_bytes(f, s);
    e.critical_entries = static_cast<double>(p.items_per_thread);
    return e;
  }
};

/// BSR with the detected block size b >= 2 (none below: 1 x 1 blocks are CRS
/// with nothing gained). Chunks of C block rows pad like SELL-C of C b
/// scalar rows (the measured padding at min(C b, 64) rows, a block row being
/// b rows of equal length). A GPU block row is one thread (C > 1; b threads
/// with BsrThreads::row) or a group of up to 32 lanes (C = 1), a host block
/// row one thread: the serial path is the longest row times b (times 1 with
/// a thread per row), over 32 lanes for plain BSR on a GPU.
template <>
struct format_cost<BsrFormat> {
  /// true: estimated.
  static constexpr bool available = true;
  /// The estimate of BSR with options o: the detected b only (a given or
  /// padded block size is not among the features).
  template <class ExecutionSpace>
  static std::optional<SpmvEstimate> estimate(MatrixFeatures const& f, BsrOptions const& o,
                                              TypeSizes s) {
    if (o.block_size != 0 || o.allow_padding || f.bsr_block_size < 2) return std::nullopt;
    const int b = f.bsr_block_size;
    const int C = detail::bsr_chunk_size<ExecutionSpace>(o);
    const double blocks = static_cast<double>(f.bsr_blocks);
    const double block_rows = static_cast<double>(f.rows.num_rows) / b;
    double slots = blocks;
    if (C > 1 && f.rows.nnz > 0) {
      slots = blocks * static_cast<double>(f.sell_padded(C * b < 64 ? C * b : 64)) /
              static_cast<double>(f.rows.nnz);
    }
    SpmvEstimate e;
    e.bytes = slots * (static_cast<double>(b) * b * s.scalar + s.ordinal) +
              (std::ceil(block_rows / C) + 1) * s.offset + (C > 1 ? block_rows * s.ordinal : 0.0) +
              detail::vector_bytes(f, s);
    // A thread's serial work: a block row's b rows (one row with BsrThreads::row). A pair of
    // lanes keeps b: the GPU table was fitted on one lane, and the pair gains little at the
    // sizes fitted (docs/notes/2026-12-07-bsr-pair-lanes.md).
    const bool host = detail::is_host_space_v<ExecutionSpace>;
    const bool rows = detail::bsr_row_threads<ExecutionSpace>(
        o.threads, b, static_cast<std::int64_t>(block_rows), C, ExecutionSpace().concurrency());
    const double path = static_cast<double>(f.rows.max_row_length) * (rows ? 1 : b);
    e.critical_entries = host || C > 1 ? path : path / 32;
    return e;
  }
};

/// The estimate of variant o of format F (format_cost<F>::estimate) with the
/// matrix's row terms (rows, row_spread); empty where F has none for o.
template <class F, class ExecutionSpace>
std::optional<SpmvEstimate> estimate_cost(MatrixFeatures const& f,
                                          typename F::options_type const& o, TypeSizes s) {
  static_assert(format_cost<F>::available, "spmvkit::estimate_cost: F has no cost estimate");
  auto e = format_cost<F>::template estimate<ExecutionSpace>(f, o, s);
  if (e) {
    e->rows = static_cast<double>(f.rows.num_rows);
    e->row_spread = e->rows * std::sqrt(std::max(0.0, f.rows.row_length_variance));
  }
  return e;
}

} // namespace spmvkit

#endif
