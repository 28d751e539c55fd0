// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_SPGEMM_OPTIONS_HPP
#define SPMVKIT_SPGEMM_SPGEMM_OPTIONS_HPP

/// \file
/// The options of spgemm (spgemm/spgemm.hpp) and what a product reports
/// about itself: rows per accumulator and memory.

#include <cstdint>
#include <string>

namespace spmvkit {

/// How the symbolic phase accumulates the columns of a row of C
/// (SpgemmOptions::symbolic; SpgemmHandle::symbolic_algorithm() says which
/// one a product took).
enum class SpgemmSymbolic {
  /// Host backends: the dense workspace where it fits the memory limit and the
  /// product is dense enough to pay for clearing it, else the accumulators;
  /// GPUs: the accumulators.
  automatic,
  /// Rows binned by a bound on their length into team-scratch hash tables
  /// (bitmaps of a row's column window on the concurrent path), dense column
  /// tiles in scratch, and a global-memory pool for the longest rows.
  accumulators,
  /// Host backends: a dense workspace of num_cols marks per thread wherever it
  /// fits the memory limit, however sparse the product (else the
  /// accumulators). GPUs have none (a workspace per thread would not fit
  /// their memory): the accumulators there.
  workspace
};

/// How numeric phases add the products a_ik b_kj into C
/// (SpgemmOptions::numeric; SpgemmHandle::numeric_algorithm() says which one
/// a product took). Every choice but `hash` needs sorted columns and the
/// symbolic phase's positions within the memory limit, and takes `hash` where
/// either is missing; `entries` and `product_lists` take `positions` where
/// only their own arrays do not fit (or, for `entries`, a row of B is too long).
enum class SpgemmNumeric {
  /// `positions` where they take at most twice C's own bytes
  /// (spgemm_positions_max_ratio), else `hash`; on GPUs with the tuned team
  /// sizes (SpgemmOptions::team_size 0), `entries` instead of `positions` for
  /// products of at most 2^24 multiply-adds whose rows of B are at most 2048
  /// long (docs/notes/2026-11-24-spgemm-numeric-by-entry.md).
  automatic,
  /// Hash every product's column in its row's accumulator, in every numeric
  /// phase: the symbolic phase keeps nothing for it (the least memory, for a
  /// product whose numeric phase runs once). On GPUs, short rows of C (where
  /// enough fill the device) are summed a row per thread instead, each product's
  /// place found by a binary search of its sorted row.
  hash,
  /// The symbolic phase keeps the place in C of every product (2 bytes each, 4
  /// where a row of C is longer than 65536); numeric phases add each product at
  /// its place, a row of C per team or thread (long rows in chunks).
  positions,
  /// The places kept as for `positions`, added by entry of A: a thread's
  /// vector lanes over the entry's row of B, atomic adds into C (the sum's
  /// order can differ from run to run). Where a row of B is longer than 2048
  /// entries, `positions`.
  entries,
  /// The places turned into a list per nonzero of C of the products that land
  /// there (8 bytes per multiply-add, 16 where A or B has 2^32 entries or more,
  /// and 8 bytes per nonzero of C, in place of the positions); numeric phases
  /// sum each list in a register: no accumulator to clear, no atomics. The
  /// fastest numeric phases of SpMVKit's on graphs and planar meshes (up to
  /// 1.7x `positions`), slower on FEM products, and the symbolic phase takes
  /// longer (docs/notes/2026-11-24-spgemm-product-lists.md). Kept where they
  /// fit the memory limit beside the positions, which they replace.
  product_lists
};

/// Options of spgemm() and SpgemmHandle.
struct SpgemmOptions {
  /// Sort the column indices within each row of C (default). Without sorting
  /// the columns of a row come in an order that depends on the accumulator
  /// (still the same from one numeric phase to the next) and numeric phases
  /// hash (SpgemmNumeric::hash); skip it only where nothing downstream needs
  /// sorted rows.
  bool sort_columns = true;
  /// Bytes of device memory that C and SpGEMM's work arrays may take
  /// together; a product that needs more is refused (AllocationError naming
  /// the estimate) before C is allocated. 0 (default): the environment
  /// variable SPMVKIT_MEMORY_LIMIT if set (a value that is not a positive
  /// byte count is an error), else on host backends the memory available now
  /// (core/memory_limit.hpp), else no limit beyond the allocation itself (GPU
  /// backends: the estimates bound the peak from above, so free device memory
  /// would refuse products that fit).
  std::uint64_t memory_limit = 0;
  /// The symbolic phase's accumulators (see SpgemmSymbolic).
  SpgemmSymbolic symbolic = SpgemmSymbolic::automatic;
  /// What numeric phases add the products by (see SpgemmNumeric).
  SpgemmNumeric numeric = SpgemmNumeric::automatic;
  /// Threads per team of every row kernel. 0 (default): each launch's tuned
  /// shape. A positive count also takes the concurrent (GPU) code path on host
  /// backends (atomic inserts, team sorts, rows a thread each, chunks of long
  /// rows), and with it the accumulators; on every backend the chunk, list
  /// and entry launches then take the host's short shapes, and `automatic`
  /// never picks `entries`. At most 1024; teams times the tuned vector lanes
  /// must also fit the backend's largest team (a launch error otherwise).
  int team_size = 0;
  /// The concurrent path's bitmaps in the symbolic phase: a row of C whose
  /// columns span at most this many 32-bit words marks them in a bitmap instead
  /// of a hash table. 0 (default) or above 2048: 2048 words (team scratch holds
  /// no more); negative: no bitmaps.
  int window_words = 0;
  /// SpgemmNumeric::product_lists: 64-bit (row entry, B entry) pairs even where
  /// A and B have fewer than 2^32 entries, which 32-bit pairs would address.
  bool wide_product_lists = false;
};

/// Names of the choices, as benchmarks and logs print them.
inline char const* to_string(SpgemmSymbolic a) {
  switch (a) {
  case SpgemmSymbolic::automatic: return "automatic";
  case SpgemmSymbolic::accumulators: return "accumulators";
  case SpgemmSymbolic::workspace: return "workspace";
  }
  return "unknown";
}
/// \copydoc to_string(SpgemmSymbolic)
inline char const* to_string(SpgemmNumeric a) {
  switch (a) {
  case SpgemmNumeric::automatic: return "automatic";
  case SpgemmNumeric::hash: return "hash";
  case SpgemmNumeric::positions: return "positions";
  case SpgemmNumeric::entries: return "entries";
  case SpgemmNumeric::product_lists: return "product_lists";
  }
  return "unknown";
}

/// Rows of C per accumulator (spgemm/detail/spgemm_row_bins.hpp).
struct SpgemmRowBins {
  /// Rows without any product (empty rows of C).
  std::int64_t empty = 0;
  /// Rows a thread each, in one thread's share of team scratch (GPUs, where
  /// enough of them fill the device): in the symbolic passes those whose
  /// hash table fits the share, in numeric phases from stored positions also
  /// those whose values fit it.
  std::int64_t narrow = 0;
  /// Rows accumulated in a hash table in team scratch.
  std::int64_t hash = 0;
  /// Rows accumulated in dense column tiles in team scratch.
  std::int64_t dense = 0;
  /// Rows accumulated in the global-memory pool.
  std::int64_t global = 0;
};

/// The memory one product takes, in bytes, as the symbolic phase found it.
/// A and B are not counted.
struct SpgemmMemory {
  /// C: row starts, column indices and values.
  std::uint64_t output_bytes = 0;
  /// What the handle keeps between phases besides C (row order by
  /// accumulator; the numeric phase's global pool, or the product positions).
  std::uint64_t workspace_bytes = 0;
  /// The product positions, or the lists of products, kept for the numeric
  /// phase (part of workspace_bytes; 0: neither kept, numeric phases hash;
  /// SpgemmOptions::numeric).
  std::uint64_t positions_bytes = 0;
  /// The most device memory the symbolic phase held at once (row bounds,
  /// bins, row order, C's row starts, the symbolic global pool).
  std::uint64_t symbolic_peak_bytes = 0;
  /// Team scratch (GPU shared memory) per team, the largest of any launch.
  std::uint64_t team_scratch_bytes = 0;
  /// Host backends: the symbolic phase's dense workspace of num_cols marks
  /// per thread (and, while C's columns are written, a buffer of num_cols + 1
  /// entries per thread), held during the symbolic phase only; its marks are
  /// part of symbolic_peak_bytes, all of it of peak_bytes. 0: the rows were
  /// accumulated in the scratch hash tables, tiles and global pool (GPUs
  /// always; host backends when the workspace would not fit the memory limit
  /// or the product is too sparse for it).
  std::uint64_t symbolic_workspace_bytes = 0;
  /// The most device memory held at once: max(symbolic_peak_bytes,
  /// output_bytes + workspace_bytes, and while C's columns and the positions
  /// are written, output_bytes + workspace_bytes + symbolic_workspace_bytes).
  std::uint64_t peak_bytes = 0;
  /// The limit the product was checked against (0: none known).
  std::uint64_t limit_bytes = 0;
  /// Where limit_bytes came from ("SpgemmOptions::memory_limit",
  /// "SPMVKIT_MEMORY_LIMIT", "MemAvailable", "cgroup memory.max" or "none").
  std::string limit_source;
};

} // namespace spmvkit

#endif
