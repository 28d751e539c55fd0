// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_STATE_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_STATE_HPP

/// \file
/// The plan SpgemmHandle keeps between the phases.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/spgemm/detail/spgemm_host_workspace.hpp>
#include <spmvkit/spgemm/detail/spgemm_product_places.hpp>
#include <spmvkit/spgemm/detail/spgemm_search_rows.hpp>
#include <spmvkit/spgemm/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// The plan SpgemmHandle keeps between the phases.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
struct SpgemmState {
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using device_type = typename crs_type::device_type;

  /// The options the symbolic phase planned with.
  SpgemmOptions options;
  bool ready = false;
  std::int64_t m = 0, k = 0, n = 0, a_nnz = 0, b_nnz = 0;
  std::int64_t multiply_adds = 0;
  crs_type C;
  /// Non-empty rows by numeric accumulator: bin b is perm[first, first + count) of launch[b].
  Kokkos::View<Ordinal*, device_type> perm;
  /// The narrow and short bins' launch and threshold (spgemm_narrow_parameters).
  SpgemmNarrowPlan narrow;
  SpgemmBinLaunch launch[spgemm_num_bins];
  std::int64_t bin_count[spgemm_num_bins] = {};
  std::int64_t symbolic_bin_count[spgemm_num_bins] = {};
  /// The numeric global pool: launch[global].p.league_size slots of launch[global].capacity.
  Kokkos::View<Ordinal*, device_type> pool_keys;
  Kokkos::View<Scalar*, device_type> pool_vals;
  SpgemmMemory memory;
  /// The numeric phase from stored positions (SpgemmPositionRows): where the
  /// products of each entry of A start, and the position of every product in its
  /// row of C, 16-bit when every row of C is at most 65536 long, else 32-bit
  /// (one of the two is allocated).
  bool positions = false;
  Kokkos::View<std::int64_t*, device_type> product_starts;
  Kokkos::View<std::uint16_t*, device_type> positions16;
  Kokkos::View<std::uint32_t*, device_type> positions32;
  /// Bins whose rows SpgemmPositionChunks splits into chunks of
  /// `chunk.work_per_team` products (GPUs: the rows that team scratch does not
  /// hold): where each row's chunks start (count + 1 entries) and their number.
  Kokkos::View<std::int64_t*, device_type> chunk_first[spgemm_num_bins];
  std::int64_t num_chunks[spgemm_num_bins] = {};
  LaunchParameters chunk;
  /// The fingerprint of A's and B's patterns at the symbolic phase, and the
  /// device scalar each numeric phase computes it into (SpgemmFingerprint).
  std::uint64_t fingerprint = 0;
  /// (The entry after product_starts' last, one allocation fewer; for hashing,
  /// fingerprint_store.)
  Kokkos::View<std::uint64_t*, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      fingerprint_now;
  /// GPUs' numeric phase by entry of A (SpgemmPositionEntries,
  /// spgemm_entry_parameters): the row start of C of every entry of A, where
  /// that phase is used (empty otherwise).
  SpgemmEntryPlan entry_plan;
  Kokkos::View<Offset*, device_type> entry_c_start;
  /// Hashing numeric phases take the narrow and short bins a row per thread
  /// (SpgemmSearchRows; spgemm_search_rows_apply); every hashing numeric phase
  /// computes fingerprint_now into fingerprint_store.
  bool search_rows = false;
  Kokkos::View<std::uint64_t*, device_type> fingerprint_store;
  /// Every row of B had strictly increasing columns at the symbolic phase (so
  /// none repeats a column; the fingerprint keeps it true): the row-per-thread
  /// numeric kernel then adds without atomics.
  bool b_rows_strict = false;
  /// The numeric phase from lists of products by entry of C (SpgemmListValues,
  /// spgemm_list_parameters), in place of the positions, which are released with
  /// their starts and the row order once the lists are written: where each
  /// entry's list ends, the lists (32-bit pairs where A and B have fewer than
  /// 2^32 entries, else 64-bit; one of the two is allocated), the entries
  /// whose lists are long (list_plan.long_list), and the launch's fingerprint
  /// sum (zero between launches).
  bool lists = false;
  SpgemmListPlan list_plan;
  Kokkos::View<std::int64_t*, device_type> list_ends;
  Kokkos::View<SpgemmPair<std::uint32_t>*, device_type> list_pairs32;
  Kokkos::View<SpgemmPair<std::uint64_t>*, device_type> list_pairs64;
  Kokkos::View<std::int64_t*, device_type> list_long;
  std::int64_t list_long_count = 0;
  Kokkos::View<std::uint64_t*, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>> list_sync;
  /// The symbolic phase's bitmap windows (SpgemmRows::window_row), GPU path:
  /// each row's window (SpgemmBounds) while the phase runs, and the most words
  /// of a window in the count and the fill launch (0: no row windowed), kept.
  Kokkos::View<Ordinal*, device_type> window;
  std::int64_t window_words_count = 0, window_words_fill = 0;
  /// Rows the fill pass windows: where they are all of the hash launch's, the
  /// position finding has no row of it left to launch for.
  std::int64_t window_rows_fill = 0;
};

} // namespace spmvkit::detail

#endif
