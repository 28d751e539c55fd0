// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_CRS_DETAIL_CRS_ANALYSIS_HPP
#define SPMVKIT_FORMATS_CRS_DETAIL_CRS_ANALYSIS_HPP

// What a CrsMatrix computes about itself once and keeps: whether its structure
// was checked (every kernel relies on it), its row-length statistics
// (CrsKernel::automatic reads them, and on hosts CrsKernel::vector with sums
// in double) and the merge-path plan of the balanced
// kernel. All depend on the structure only, never on the values.
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/matrix_statistics.hpp>
#include <spmvkit/formats/crs/detail/merge_path.hpp>

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace spmvkit::detail {

/// The cache of one CRS matrix, shared by its copies (they share its arrays).
/// Filled on first use, under a mutex so that host threads may share a
/// matrix; each entry is computed once, on the execution space instance of
/// the call that first needs it, and that call waits for it.
template <class Scalar, class Ordinal, class Offset, class Device>
class CrsAnalysis {
public:
  using plan_type = MergePathPlan<Scalar, Ordinal, Offset, Device>;

  template <class ExecutionSpace, class RowStarts>
  MatrixStatistics statistics(ExecutionSpace const& exec, RowStarts const& row_starts,
                              std::int64_t num_cols) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!has_statistics_) {
      statistics_ = row_length_statistics(exec, row_starts, num_cols);
      has_statistics_ = true;
    }
    return statistics_;
  }

  /// The plan for ExecutionSpace's merge-path tiles (the tile length is a
  /// function of the matrix's size and the backend, so it is computed once).
  template <class ExecutionSpace, class RowStarts>
  plan_type plan(ExecutionSpace const& exec, RowStarts const& row_starts, std::int64_t num_rows,
                 std::int64_t nnz) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::int64_t tile = merge_path_parameters<ExecutionSpace>(num_rows, nnz).work_per_team;
    if (!has_plan_ || plan_.tile_length != tile) {
      plan_ = merge_path_plan<Scalar, Ordinal>(exec, row_starts, num_rows, nnz, "CrsMatrix");
      has_plan_ = true;
    }
    return plan_;
  }

  /// Runs `check` (which throws on a broken structure) unless the structure
  /// was checked or declared trusted before; a failed check is not kept, so
  /// every later use fails the same way.
  template <class Check>
  void ensure_structure(Check&& check) {
    // Every SpMV asks: once known, an acquire load answers without the lock.
    if (structure_known_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (structure_known_.load(std::memory_order_relaxed)) return;
    check();
    structure_known_.store(true, std::memory_order_release);
  }
  /// Records that the structure is valid (checked, or the caller's promise).
  void set_structure_known() {
    std::lock_guard<std::mutex> lock(mutex_);
    structure_known_.store(true, std::memory_order_release);
  }
  bool structure_known() const { return structure_known_.load(std::memory_order_acquire); }

  bool has_statistics() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return has_statistics_;
  }
  bool has_plan() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return has_plan_;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    structure_known_.store(false, std::memory_order_release);
    has_statistics_ = false;
    has_plan_ = false;
    plan_ = plan_type();
  }

private:
  mutable std::mutex mutex_;
  std::atomic<bool> structure_known_{false};
  bool has_statistics_ = false;
  MatrixStatistics statistics_;
  bool has_plan_ = false;
  plan_type plan_;
};

} // namespace spmvkit::detail

#endif
