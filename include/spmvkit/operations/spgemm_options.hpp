// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_SPGEMM_OPTIONS_HPP
#define SPMVKIT_OPERATIONS_SPGEMM_OPTIONS_HPP

/// \file
/// The options of spgemm (operations/spgemm.hpp) and what a product reports
/// about itself: rows per accumulator and memory.

#include <cstdint>
#include <string>

namespace spmvkit {

/// Options of spgemm() and SpgemmHandle.
struct SpgemmOptions {
  /// Sort the column indices within each row of C (default). Without sorting
  /// the columns of a row come in an order that depends on the accumulator
  /// (still the same from one numeric phase to the next); skip it only where
  /// nothing downstream needs sorted rows.
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
  /// Let the symbolic phase store the place in C of every product a_ik b_kj
  /// (2 bytes each, 4 where a row of C is longer than 65536), so that every
  /// numeric phase adds each product at its place instead of hashing its
  /// column (default). Kept only with sorted columns, when the positions take at
  /// most twice C's bytes and fit the memory limit; SpgemmMemory::
  /// positions_bytes says whether they were kept. Turn off to save that memory
  /// where the numeric phase runs once.
  bool keep_positions = true;
  /// Where the positions are kept, let the symbolic phase turn them into a list
  /// per nonzero of C of the products that land there (8 bytes per
  /// multiply-add, 16 where A or B has 2^32 entries or more, and 8 bytes per
  /// nonzero of C, in place of the positions), so that every numeric phase sums
  /// each list in a register: no accumulator to clear, no atomics
  /// (SpgemmHandle::keeps_product_lists). Off by default: the lists' numeric
  /// phases were the fastest of SpMVKit's on graphs and planar meshes (up to
  /// 1.7x the default's) but slower on FEM products, and symbolic phases took
  /// longer (docs/notes/2026-11-24-spgemm-product-lists.md). Kept within the memory
  /// limit only.
  bool product_lists = false;
};

/// Rows of C per accumulator (the bins of rows, operations/detail/spgemm_kernels.hpp).
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
  /// SpgemmOptions::keep_positions, SpgemmOptions::product_lists).
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
