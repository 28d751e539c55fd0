// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_SPGEMM_HPP
#define SPMVKIT_SPGEMM_SPGEMM_HPP

/// \file
/// spgemm: C = A B for CRS matrices, in a symbolic phase (the structure of C)
/// and a numeric phase (its values) that users may run separately, so that
/// the numeric phase can be repeated when the values of A and B change but
/// their patterns do not. SpgemmHandle keeps what the symbolic phase found.
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/spgemm/detail/spgemm_numeric.hpp>
#include <spmvkit/spgemm/detail/spgemm_symbolic.hpp>
#include <spmvkit/spgemm/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace spmvkit {

namespace detail {
struct SpgemmHandleAccess;
} // namespace detail

/// What spgemm_symbolic() found about C = A B, kept for spgemm_numeric():
/// the structure of C (row starts, and arrays for the columns and values),
/// the order of rows by accumulator and the global pool, sizes, memory.
///
/// A handle serves one product shape: run spgemm_symbolic() again for other
/// patterns. Copies share C's arrays but not the plan; do not run numeric
/// phases of one handle concurrently on two execution space instances.
///
/// \tparam Scalar, ExecutionSpace, Ordinal, Offset those of the CrsMatrix operands
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class SpgemmHandle {
public:
  /// The type of A, B and C.
  using matrix_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// A handle without structure; spgemm_symbolic() fills it.
  explicit SpgemmHandle(SpgemmOptions const& options = {}) : options_(options) {}

  /// The options given at construction.
  SpgemmOptions const& options() const { return options_; }
  /// Whether spgemm_symbolic() has run (C's structure is known).
  bool has_structure() const { return state_.ready; }
  /// C: after spgemm_symbolic() its row starts and columns are set and its
  /// values allocated; after spgemm_numeric() it holds A B. Copies share the
  /// arrays, so a later numeric phase overwrites the values they see.
  matrix_type const& matrix() const { return state_.C; }
  /// Number of nonzeros of C (0 before the symbolic phase).
  std::int64_t nnz() const { return state_.ready ? state_.C.nnz() : 0; }
  /// Multiply-adds of one numeric phase: the sum over the entries a_ik of A
  /// of nnz(B row k). GFlop/s are usually counted as 2 of them per flop pair.
  std::int64_t multiply_adds() const { return state_.multiply_adds; }
  /// Multiply-adds per nonzero of C (0 for an empty C).
  double compression_ratio() const {
    return nnz() > 0 ? static_cast<double>(multiply_adds()) / static_cast<double>(nnz()) : 0.0;
  }
  /// Rows per accumulator in the numeric phase (from the exact row lengths;
  /// narrow: rows a thread each in numeric phases from stored positions, on GPUs).
  SpgemmRowBins row_bins() const {
    return bins_of(state_.bin_count, detail::spgemm_bin_short, state_.narrow.values_min_rows);
  }
  /// Rows per accumulator in the symbolic phase (from the row bounds). Where
  /// the host workspace took every row (SpgemmMemory::symbolic_workspace_bytes
  /// > 0), the bins the bounds would have chosen.
  SpgemmRowBins symbolic_row_bins() const {
    return bins_of(state_.symbolic_bin_count, detail::spgemm_bin_narrow, state_.narrow.min_rows);
  }
  /// The memory the product takes (see SpgemmMemory).
  SpgemmMemory const& memory() const { return state_.memory; }
  /// Whether numeric phases add products at positions the symbolic phase
  /// stored, rather than hashing columns (SpgemmNumeric::positions, and the
  /// entries and product lists made from them).
  bool keeps_positions() const { return state_.positions; }
  /// Whether numeric phases sum, for every entry of C, the list of its
  /// products that the symbolic phase kept in place of the positions
  /// (SpgemmNumeric::product_lists; SpgemmMemory::positions_bytes).
  bool keeps_product_lists() const { return state_.lists; }
  /// The numeric strategy the symbolic phase prepared (never automatic after
  /// spgemm_symbolic(); the options' choice where it fit, else what it fell back to).
  SpgemmNumeric numeric_algorithm() const {
    if (!state_.ready) return SpgemmNumeric::automatic;
    if (state_.lists) return SpgemmNumeric::product_lists;
    if (!state_.positions) return SpgemmNumeric::hash;
    return state_.entry_c_start.extent(0) > 0 ? SpgemmNumeric::entries : SpgemmNumeric::positions;
  }
  /// The accumulators the symbolic phase took (automatic before it ran).
  SpgemmSymbolic symbolic_algorithm() const {
    if (!state_.ready) return SpgemmSymbolic::automatic;
    return state_.memory.symbolic_workspace_bytes > 0 ? SpgemmSymbolic::workspace
                                                      : SpgemmSymbolic::accumulators;
  }

private:
  friend struct detail::SpgemmHandleAccess;

  /// The public bins: rows of the narrow bins up to `last` count as narrow
  /// where they take a row per thread, else as hash rows (spgemm_rows_per_thread).
  static SpgemmRowBins bins_of(std::int64_t const (&c)[detail::spgemm_num_bins], int last,
                               std::int64_t min_rows) {
    SpgemmRowBins r;
    r.empty = c[detail::spgemm_bin_empty];
    r.dense = c[detail::spgemm_bin_dense];
    r.global = c[detail::spgemm_bin_global];
    std::int64_t per_thread = 0;
    for (int b = detail::spgemm_bin_narrow; b <= last; ++b) per_thread += c[b];
    const bool narrow = per_thread > 0 && per_thread >= min_rows;
    r.narrow = narrow ? per_thread : 0;
    r.hash = c[detail::spgemm_bin_narrow] + c[detail::spgemm_bin_short] +
             c[detail::spgemm_bin_hash] - r.narrow;
    return r;
  }

  SpgemmOptions options_;
  detail::SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset> state_;
};

namespace detail {
/// The plan inside a handle, for the phases and for tests of SpGEMM's internals.
struct SpgemmHandleAccess {
  template <class Handle>
  static auto& state(Handle& h) {
    return h.state_;
  }
};
} // namespace detail

/// Symbolic phase of C = A B: the structure of C, kept in `handle`.
///
/// Steps, all on the device: a bound on the length of every row of C
/// (min(sum over a_ik of nnz(B row k), num_cols of B)); a check that C fits
/// the Offset type (`std::length_error` naming the sizes when even a lower
/// bound on nnz(C) does not, before anything of C's size is allocated) and
/// the memory limit (AllocationError naming the estimate); rows binned by
/// their bound into accumulators (scratch hash tables, a row per thread on
/// GPUs where rows are short and many, else a row per team, which on GPUs
/// takes a bitmap of the row's column window instead where that window is at
/// most 65536 columns wide, as in FEM and other banded products; scratch dense tiles;
/// global pool; on host backends, where it fits the limit, every row in a
/// dense workspace of num_cols marks per thread instead, see
/// SpgemmMemory::symbolic_workspace_bytes); the exact length of every row; an exclusive scan into
/// C's row starts; the allocation of C's columns and values, after the exact nnz(C) was checked
/// again against Offset and the limit; the columns of every row (sorted unless the options say
/// otherwise), so that the numeric phase, the one repeated, writes values only and never sorts;
/// and, unless SpgemmOptions::numeric says hash, the position of every product in its row of C,
/// so that the numeric phase does not hash either (or, with SpgemmNumeric::product_lists, the list
/// of the products of every nonzero of C).
///
/// Throws std::invalid_argument when A's columns and B's rows differ (naming
/// both shapes) or when the structure of A or B is broken (checked once per
/// matrix, CrsMatrix). Synchronous: it reads counts back to the host.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spgemm_symbolic(ExecutionSpace const& exec,
                     SpgemmHandle<Scalar, ExecutionSpace, Ordinal, Offset>& handle,
                     CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                     CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "spmvkit::spgemm_symbolic: the first argument must be a Kokkos execution space");
  // Row bounds and hash tables index with A's columns and B's rows.
  detail::ensure_structure(exec, A);
  detail::ensure_structure(exec, B);
  detail::spgemm_symbolic_phase(exec, handle.options(), detail::SpgemmHandleAccess::state(handle),
                                A, B);
}

/// Numeric phase of C = A B: the values of C, for the structure
/// spgemm_symbolic() found. Returns C, which shares its arrays with
/// handle.matrix().
///
/// A and B must have the patterns the symbolic phase saw (only their values
/// may have changed); their shapes and nnz are checked (std::invalid_argument),
/// the patterns are checked by every strategy: a 64-bit fingerprint of A's and
/// B's row starts and columns, computed on the device, is compared with the
/// symbolic phase's, and a changed pattern makes every value of C NaN (a row
/// of A that was empty at the symbolic phase stays empty in C). May be repeated: each
/// call overwrites C's values in place and allocates nothing. Asynchronous on exec.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
spgemm_numeric(ExecutionSpace const& exec,
               SpgemmHandle<Scalar, ExecutionSpace, Ordinal, Offset>& handle,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "spmvkit::spgemm_numeric: the first argument must be a Kokkos execution space");
  detail::ensure_structure(exec, A);
  detail::ensure_structure(exec, B);
  detail::spgemm_numeric_phase(exec, handle.options(), detail::SpgemmHandleAccess::state(handle), A,
                               B);
  return handle.matrix();
}

/// C = A B (A: m x k, B: k x n, C: m x n), both phases with a handle of its
/// own. Columns sorted within rows unless options say otherwise. Throws like
/// spgemm_symbolic(). The values of C are ready when exec is fenced.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
spgemm(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
       CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
       SpgemmOptions const& options = {}) {
  SpgemmHandle<Scalar, ExecutionSpace, Ordinal, Offset> handle(options);
  spgemm_symbolic(exec, handle, A, B);
  return spgemm_numeric(exec, handle, A, B);
}

} // namespace spmvkit

#endif
