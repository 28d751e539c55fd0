// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_DETAIL_SPGEMM_PHASES_HPP
#define SPMVKIT_OPERATIONS_DETAIL_SPGEMM_PHASES_HPP

/// \file
/// The host side of SpGEMM's two phases (operations/spgemm.hpp): checks,
/// memory accounting, row binning and the launches of the row kernel.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/core/memory_limit.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/detail/spgemm_kernels.hpp>
#include <spmvkit/operations/detail/spgemm_tuning.hpp>
#include <spmvkit/operations/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// The host values of one bin's launch.
struct SpgemmBinLaunch {
  SpgemmAccumulator accumulator = SpgemmAccumulator::hash;
  std::int64_t first = 0, count = 0;
  /// Scratch hash slots or tile columns; narrow: hash slots of a row's table;
  /// global: entries per pool slot.
  std::int64_t capacity = 0;
  bool global_dense = false;
  /// Insert with atomics and sort as a team (GPU code path): teams of more than one thread or lane.
  bool concurrent = false;
  LaunchParameters p;
};

/// The plan SpgemmHandle keeps between the phases.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
struct SpgemmState {
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using device_type = typename crs_type::device_type;

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
  /// (The entry after product_starts' last: one allocation fewer.)
  Kokkos::View<std::uint64_t*, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      fingerprint_now;
  /// GPUs' numeric phase by entry of A (SpgemmPositionEntries,
  /// spgemm_entry_parameters): the row start of C of every entry of A, where
  /// that phase is used (empty otherwise).
  SpgemmEntryPlan entry_plan;
  Kokkos::View<Offset*, device_type> entry_c_start;
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
  /// Test hook: > 0 runs every bin with teams of this many threads through the
  /// concurrent (GPU) code path, atomics and team sorts included, so that host
  /// backends test it too (and keeps the host workspace off). Set before
  /// spgemm_symbolic().
  int test_team_size = 0;
  /// Test hook: 64-bit list pairs however few entries A and B have.
  bool test_wide_lists = false;
  /// Test hook: < 0 keeps the numeric phase by entry of A off (the row and
  /// chunk kernels of the positions), whatever spgemm_entry_parameters says.
  int test_entries = 0;
  /// Test hook for the host symbolic phase's dense workspace
  /// (spgemm_use_workspace): > 0 wherever it fits the memory budget, however
  /// sparse the product; < 0 never (the binned accumulators); 0 the rule.
  int test_workspace = 0;
  /// The symbolic phase's bitmap windows (SpgemmRows::window_row), GPU path:
  /// each row's window (SpgemmBounds) while the phase runs, and the most words
  /// of a window in the count and the fill launch (0: no row windowed), kept.
  Kokkos::View<Ordinal*, device_type> window;
  std::int64_t window_words_count = 0, window_words_fill = 0;
  /// Rows the fill pass windows: where they are all of the hash launch's, the
  /// position finding has no row of it left to launch for.
  std::int64_t window_rows_fill = 0;
  /// Test hook: < 0 no windows; > 0 windows of at most this many words
  /// (spgemm_max_window_words otherwise).
  int test_window_words = 0;
};

/// allocate_view, but an empty View without an allocation for no entries:
/// on CUDA every allocation is a cudaMalloc and every release a cudaFree,
/// which waits for the device, even for none (the global pools of a product
/// without long rows).
template <class View, class ExecutionSpace>
View spgemm_allocate(ExecutionSpace const& exec, std::string const& label, std::int64_t extent) {
  return extent > 0 ? allocate_view<View>(exec, label, extent) : View();
}

/// The memory limit of a product and where it came from.
using SpgemmLimit = MemoryLimit;

/// The option, SPMVKIT_MEMORY_LIMIT (core/memory_limit.hpp), or on host
/// backends the memory available. Device memory is not queried: the
/// estimates bound the peak from above and would refuse products that fit.
template <class ExecutionSpace>
SpgemmLimit spgemm_memory_limit(std::uint64_t option) {
  if constexpr (is_host_space_v<ExecutionSpace>) {
    return memory_limit<Kokkos::HostSpace>(option, "SpgemmOptions::memory_limit",
                                           "spmvkit::spgemm");
  } else {
    return configured_memory_limit(option, "SpgemmOptions::memory_limit", "spmvkit::spgemm");
  }
}

/// Bytes of a CRS matrix with m rows and nnz entries, checked against overflow.
template <class Scalar, class Ordinal, class Offset>
byte_count spgemm_crs_bytes(std::int64_t m, std::int64_t nnz) {
  constexpr char const* where = "spmvkit::spgemm";
  return checked_add(checked_bytes(m + 1, sizeof(Offset), "C row_starts", where),
                     checked_bytes(nnz, sizeof(Ordinal) + sizeof(Scalar), "C entries", where), "C",
                     where);
}

inline std::string spgemm_shapes(std::int64_t m, std::int64_t k, std::int64_t k2, std::int64_t n,
                                 std::int64_t a_nnz, std::int64_t b_nnz) {
  std::ostringstream os;
  os << "A is " << m << " x " << k << " (nnz " << a_nnz << "), B is " << k2 << " x " << n
     << " (nnz " << b_nnz << ")";
  return os.str();
}

inline void spgemm_check_limit(SpgemmLimit const& limit, byte_count need, std::string const& what,
                               std::string const& shapes) {
  if (limit.bytes == 0 || need <= limit.bytes) return;
  std::ostringstream os;
  os << "spmvkit::spgemm: " << what << " needs an estimated " << need << " bytes ("
     << static_cast<double>(need) / (1024.0 * 1024.0) << " MiB), more than the limit of "
     << limit.bytes << " bytes (" << limit.source << "); " << shapes
     << ". Set SpgemmOptions::memory_limit or SPMVKIT_MEMORY_LIMIT (bytes) to change the limit";
  throw AllocationError(os.str());
}

template <class Offset>
[[noreturn]] void spgemm_offset_overflow(std::int64_t nnz, bool at_least,
                                         std::string const& shapes) {
  std::ostringstream os;
  os << "spmvkit::spgemm: C = A B has " << (at_least ? "at least " : "") << nnz
     << " nonzeros, more than the " << sizeof(Offset) * 8 << "-bit Offset type holds (max "
     << std::numeric_limits<Offset>::max() << "); " << shapes
     << ". Use CrsMatrix with Offset = std::int64_t";
  throw std::length_error(os.str());
}

/// The sum of n entries of a View, in 64 bits.
template <class View>
struct SpgemmSum {
  View v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& s) const {
    s += static_cast<std::int64_t>(v(i));
  }
};

/// Bins the non-empty rows by accumulator from their bounds: counts per bin,
/// the stable row order perm (bins 1.. in order), and the largest bound of
/// the global bin (its pool's slot size). perm is allocated here
/// unless it already has the length.
template <class ExecutionSpace, class Bound, class Bin, class Perm>
std::int64_t
spgemm_bin_rows(ExecutionSpace const& exec, char const* phase, Bound const& bound, Bin const& bin,
                Perm& perm, std::int64_t n, SpgemmScratchLimits const& limits,
                SpgemmBinLaunch (&launch)[spgemm_num_bins], std::int64_t (&counts)[spgemm_num_bins],
                SpgemmNarrowPlan const& narrow, std::int64_t narrow_slots,
                std::int64_t short_limit) {
  using Ordinal = typename Perm::value_type;
  using Device = typename Perm::device_type;
  const auto m = static_cast<std::int64_t>(bound.extent(0));
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  for (auto& c : counts) c = 0;
  if (m > 0) {
    SpgemmClassify<Ordinal, Device> f;
    f.bound = bound;
    f.bin = bin;
    f.narrow_slots = narrow_slots;
    f.short_limit = short_limit;
    f.hash_slots = limits.hash_slots;
    f.dense_limit = limits.tile_columns * spgemm_max_tile_passes;
    f.num_cols = n;
    Kokkos::parallel_reduce(
        "SpMVKit::spgemm::bin_rows", Range(exec, 0, m), f,
        Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            counts, spgemm_num_bins));
  }
  // A row order of the right length is rewritten in place (the numeric plan
  // takes over the symbolic one's: the same rows are non-empty in both).
  if (static_cast<std::int64_t>(perm.extent(0)) != m - counts[spgemm_bin_empty]) {
    perm = allocate_view<Perm>(exec, std::string("SpMVKit::spgemm::row_order(") + phase + ")",
                               m - counts[spgemm_bin_empty]);
  }
  std::int64_t first = 0;
  for (int b = 1; b < spgemm_num_bins; ++b) {
    launch[b].first = first;
    launch[b].count = counts[b];
    if (counts[b] > 0) {
      Kokkos::parallel_scan(
          "SpMVKit::spgemm::order_rows", Range(exec, 0, m),
          SpgemmPartition<Ordinal, Device>{bin, perm, static_cast<unsigned char>(b), first});
    }
    first += counts[b];
  }
  for (int b : {spgemm_bin_narrow, spgemm_bin_short}) {
    launch[b].accumulator = SpgemmAccumulator::hash;
    launch[b].concurrent = true;
  }
  // The narrow bin's shape is its symbolic kernel's; the short bin's, the
  // numeric row-per-thread launch's (which takes both bins).
  launch[spgemm_bin_narrow].p = narrow.p;
  launch[spgemm_bin_short].p = narrow.values;
  launch[spgemm_bin_narrow].capacity = narrow_slots;
  launch[spgemm_bin_short].capacity = short_limit;
  launch[spgemm_bin_hash].accumulator = SpgemmAccumulator::hash;
  launch[spgemm_bin_hash].capacity = limits.hash_slots;
  launch[spgemm_bin_dense].accumulator = SpgemmAccumulator::dense;
  launch[spgemm_bin_dense].capacity = limits.tile_columns;
  launch[spgemm_bin_global].accumulator = SpgemmAccumulator::global;
  std::int64_t max_bound = 0;
  if (counts[spgemm_bin_global] > 0) {
    Kokkos::parallel_reduce(
        "SpMVKit::spgemm::global_bound", Range(exec, 0, m),
        SpgemmMaxBound<Ordinal, Device>{bound, bin, static_cast<unsigned char>(spgemm_bin_global)},
        Kokkos::Max<std::int64_t>(max_bound));
  }
  return max_bound;
}

/// Bins lo..hi (consecutive in the row order) as one launch shaped like bin `shape`.
inline SpgemmBinLaunch spgemm_bin_range(SpgemmBinLaunch const (&launch)[spgemm_num_bins], int lo,
                                        int hi, int shape) {
  SpgemmBinLaunch l = launch[shape];
  l.first = launch[lo].first;
  l.count = 0;
  for (int b = lo; b <= hi; ++b) l.count += launch[b].count;
  return l;
}

/// Whether bins lo..hi take a row per thread: rows enough to fill the
/// device (spgemm_narrow_parameters), else they go with the hash bin's teams.
inline bool spgemm_rows_per_thread(SpgemmBinLaunch const (&launch)[spgemm_num_bins], int lo, int hi,
                                   std::int64_t min_rows) {
  const std::int64_t rows = spgemm_bin_range(launch, lo, hi, lo).count;
  return rows > 0 && rows >= min_rows;
}

/// The first bin of the symbolic passes' team-per-row hash launch: the short
/// bin where the narrow kernel takes the narrow bin, else the narrow bin.
inline int spgemm_first_team_bin(SpgemmBinLaunch const (&launch)[spgemm_num_bins],
                                 std::int64_t min_rows) {
  return spgemm_rows_per_thread(launch, spgemm_bin_narrow, spgemm_bin_narrow, min_rows)
             ? spgemm_bin_short
             : spgemm_bin_narrow;
}

/// Launch shapes of the bins; the global bin's pool slot size and slot count
/// from its longest row and the memory it may take. Returns the pool's entries.
template <class ExecutionSpace>
std::int64_t
spgemm_plan_launches(ExecutionSpace const& exec, SpgemmBinLaunch (&launch)[spgemm_num_bins],
                     std::int64_t global_max_bound, std::int64_t n, double mean_products,
                     double mean_b_row, std::uint64_t entry_bytes, std::uint64_t pool_budget,
                     int test_team_size) {
  for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
    auto& l = launch[b];
    std::int64_t max_slots = 0;
    if (b == spgemm_bin_global) {
      const std::int64_t slots = spgemm_hash_slots(global_max_bound);
      l.global_dense = n <= slots;
      l.capacity = l.global_dense ? n : slots;
      const std::uint64_t per_slot = static_cast<std::uint64_t>(l.capacity) * entry_bytes;
      max_slots = std::min<std::int64_t>(
          spgemm_concurrent_teams(exec),
          std::max<std::int64_t>(
              1, static_cast<std::int64_t>(pool_budget / std::max<std::uint64_t>(1, per_slot))));
    }
    // The hash bin's shape serves the narrow and short bins' rows too where
    // they go with its teams (spgemm_bin_range), even with no rows of its own.
    const std::int64_t rows =
        b == spgemm_bin_hash ? spgemm_bin_range(launch, spgemm_bin_narrow, b, b).count : l.count;
    l.p = spgemm_launch_parameters(exec, l.accumulator, rows, mean_products, mean_b_row, max_slots);
    l.concurrent = l.p.team_size * l.p.vector_length > 1;
    if (test_team_size > 0) {
      l.p.team_size = test_team_size;
      l.concurrent = true;
    }
  }
  auto const& g = launch[spgemm_bin_global];
  return g.count > 0 ? g.p.league_size * g.capacity : 0;
}

/// A's and B's patterns and the bin's rows of a kernel (SpgemmNarrowRows; with
/// the values, spgemm_bind_operands: SpgemmRows, SpgemmPositionRows,
/// SpgemmPositionChunks).
template <class F, class Crs, class Perm>
void spgemm_bind_pattern(F& f, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
                         Perm const& perm) {
  f.a_rs = A.row_starts();
  f.a_ci = A.column_indices();
  f.b_rs = B.row_starts();
  f.b_ci = B.column_indices();
  f.perm = perm;
  f.first = l.first;
  f.count = l.count;
}

/// spgemm_bind_pattern, and A's and B's values.
template <class F, class Crs, class Perm>
void spgemm_bind_operands(F& f, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
                          Perm const& perm) {
  spgemm_bind_pattern(f, A, B, l, perm);
  f.a_v = A.values();
  f.b_v = B.values();
}

/// Teams of a launch whose teams walk work_per_team rows each.
inline int spgemm_league(SpgemmBinLaunch const& l) {
  return static_cast<int>((l.count + l.p.work_per_team - 1) / l.p.work_per_team);
}

/// spgemm_bind_operands, and the rows a team walks (the row kernels).
template <class F, class Crs, class Perm>
void spgemm_bind_rows(F& f, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
                      Perm const& perm) {
  spgemm_bind_operands(f, A, B, l, perm);
  f.rows_per_team = l.p.work_per_team;
}

/// The symbolic passes' bitmap windows for one launch (SpgemmRows::window_row):
/// the rows' windows, the most words of one here, and for the fill pass the
/// product starts and positions it finds.
template <class Ordinal, class Device>
struct SpgemmWindowArgs {
  Kokkos::View<Ordinal*, Device> window;
  std::int64_t words = 0;
  Kokkos::View<std::int64_t*, Device> starts;
  Kokkos::View<std::uint16_t*, Device> pos16;
  Kokkos::View<std::uint32_t*, Device> pos32;
};

template <int Pass, bool Concurrent, class Crs, class Perm, class Bound, class Keys, class Vals>
void spgemm_launch_concurrency(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
    Perm const& perm, Bound const& bound, typename Crs::row_starts_type const& c_rs,
    typename Crs::column_indices_type const& c_ci, typename Crs::values_type const& c_v,
    Keys const& pool_keys, Vals const& pool_vals, bool sort,
    SpgemmWindowArgs<typename Crs::ordinal_type, typename Crs::device_type> const& win) {
  using ExecutionSpace = typename Crs::execution_space;
  using Ordinal = typename Crs::ordinal_type;
  using F = SpgemmRows<typename Crs::value_type, Ordinal, typename Crs::offset_type,
                       typename Crs::device_type, Pass, Concurrent>;
  F f;
  spgemm_bind_rows(f, A, B, l, perm);
  f.bound = bound;
  f.c_rs = c_rs;
  f.c_ci = c_ci;
  f.c_v = c_v;
  f.accumulator = l.accumulator;
  f.capacity = l.capacity;
  f.global_dense = l.global_dense;
  f.num_cols = B.num_cols();
  f.pool_keys = pool_keys;
  f.pool_vals = pool_vals;
  f.sort = sort;
  f.empty_key = std::numeric_limits<Ordinal>::max();
  f.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
  if (Concurrent && Pass != spgemm_values && l.accumulator == SpgemmAccumulator::hash) {
    f.window = win.window;
    f.window_words = win.words;
    f.starts = win.starts;
    f.pos16 = win.pos16;
    f.pos32 = win.pos32;
  }
  static constexpr char const* names[3][3] = {
      {"SpMVKit::spgemm::count_hash", "SpMVKit::spgemm::count_dense",
       "SpMVKit::spgemm::count_global"},
      {"SpMVKit::spgemm::fill_hash", "SpMVKit::spgemm::fill_dense", "SpMVKit::spgemm::fill_global"},
      {"SpMVKit::spgemm::numeric_hash", "SpMVKit::spgemm::numeric_dense",
       "SpMVKit::spgemm::numeric_global"}};
  // The league from the rows: a hash launch may carry the narrow and short
  // bins' rows too (spgemm_bin_range), or was shaped for them (spgemm_plan_launches).
  auto policy =
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
          exec, spgemm_league(l), l.p.team_size, l.p.vector_length));
  f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
  policy.set_scratch_size(
      f.scratch_level,
      Kokkos::PerTeam(F::scratch_bytes(l.accumulator, l.capacity, l.p.team_size, f.window_words)));
  Kokkos::parallel_for(names[Pass][static_cast<int>(l.accumulator)], policy, f);
}

/// One bin's launch: atomics only where a team has more than one thread or lane.
template <int Pass, class Crs, class Perm, class Bound, class Keys, class Vals>
void spgemm_launch(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
    Perm const& perm, Bound const& bound, typename Crs::row_starts_type const& c_rs,
    typename Crs::column_indices_type const& c_ci, typename Crs::values_type const& c_v,
    Keys const& pool_keys, Vals const& pool_vals, bool sort,
    SpgemmWindowArgs<typename Crs::ordinal_type, typename Crs::device_type> const& win = {}) {
  if (l.count == 0) return;
  if (l.concurrent) {
    spgemm_launch_concurrency<Pass, true>(exec, A, B, l, perm, bound, c_rs, c_ci, c_v, pool_keys,
                                          pool_vals, sort, win);
  } else {
    spgemm_launch_concurrency<Pass, false>(exec, A, B, l, perm, bound, c_rs, c_ci, c_v, pool_keys,
                                           pool_vals, sort, win);
  }
}

/// The rows of launch l that are windowed (spgemm_windowed) under `cap`
/// words: the most words of one (what the launch's scratch must hold; 0:
/// none) and, where `rows` is asked for, their number.
template <class ExecutionSpace, class Window, class Perm>
std::int64_t spgemm_launch_window(ExecutionSpace const& exec, SpgemmBinLaunch const& l,
                                  Window const& window, Perm const& perm, std::int64_t cap,
                                  std::int64_t* rows = nullptr) {
  if (rows != nullptr) *rows = 0;
  if (window.extent(0) == 0 || l.count == 0 || !l.concurrent || cap <= 0) return 0;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  SpgemmMaxWindow<typename Perm::value_type, typename Perm::device_type> f{perm, window, l.first,
                                                                           cap, false};
  std::int64_t m = 0;
  Kokkos::parallel_reduce("SpMVKit::spgemm::window_words", Range(exec, 0, l.count), f,
                          Kokkos::Max<std::int64_t>(m));
  if (rows != nullptr && m > 0) {
    f.count_rows = true;
    Kokkos::parallel_reduce("SpMVKit::spgemm::windowed_rows", Range(exec, 0, l.count), f, *rows);
  }
  return std::max<std::int64_t>(m, 0);
}

/// The narrow bin's symbolic passes (SpgemmNarrowRows): count (rows by their
/// bound) or fill, which also finds the product positions where `pos` is allocated.
template <bool Fill, class Crs, class Perm, class Pos>
void spgemm_launch_narrow(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, SpgemmBinLaunch const& l,
    Perm const& perm,
    Kokkos::View<typename Crs::ordinal_type*, typename Crs::device_type> const& bound,
    typename Crs::row_starts_type const& c_rs, typename Crs::column_indices_type const& c_ci,
    Kokkos::View<std::int64_t*, typename Crs::device_type> const& starts,
    Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  using Ordinal = typename Crs::ordinal_type;
  using F = SpgemmNarrowRows<Ordinal, typename Crs::offset_type, typename Crs::device_type, Pos,
                             Fill, true>;
  if (l.count == 0) return;
  F f;
  spgemm_bind_pattern(f, A, B, l, perm);
  f.bound = bound;
  f.starts = starts;
  f.c_rs = c_rs;
  f.c_ci = c_ci;
  f.pos = pos;
  f.slots = l.capacity;
  f.empty_key = std::numeric_limits<Ordinal>::max();
  f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
  auto policy = argument_launch(
      Kokkos::TeamPolicy<ExecutionSpace>(exec, spgemm_league(l), l.p.team_size, l.p.vector_length));
  policy.set_scratch_size(f.scratch_level,
                          Kokkos::PerTeam(F::scratch_bytes(l.p.team_size, l.capacity)));
  Kokkos::parallel_for(Fill ? "SpMVKit::spgemm::fill_narrow" : "SpMVKit::spgemm::count_narrow",
                       policy, f);
}

/// The pattern fingerprint of A and B (SpgemmFingerprint) and its index
/// space; `check_order`: also count B's rows that are not strictly increasing.
template <class Crs>
SpgemmFingerprint<typename Crs::ordinal_type, typename Crs::offset_type, typename Crs::device_type>
spgemm_fingerprint_functor(Crs const& A, Crs const& B, bool check_order) {
  using F = SpgemmFingerprint<typename Crs::ordinal_type, typename Crs::offset_type,
                              typename Crs::device_type>;
  F f;
  f.a_rs = A.row_starts();
  f.a_ci = A.column_indices();
  f.b_rs = B.row_starts();
  f.b_ci = B.column_indices();
  const bool same = A.row_starts().data() == B.row_starts().data() &&
                    A.column_indices().data() == B.column_indices().data() &&
                    A.row_starts().extent(0) == B.row_starts().extent(0) && A.nnz() == B.nnz();
  f.a_weight = same ? F::weight + 1 : F::weight;
  f.a_rows = static_cast<std::int64_t>(A.row_starts().extent(0));
  f.a_end = f.a_rows + static_cast<std::int64_t>(A.nnz());
  f.b_rows = static_cast<std::int64_t>(B.row_starts().extent(0));
  f.b_end = same ? f.a_end : f.a_end + f.b_rows + static_cast<std::int64_t>(B.nnz());
  f.rows_end = check_order ? f.b_end + static_cast<std::int64_t>(B.num_rows()) : f.b_end;
  f.value_count = check_order ? 2 : 1;
  return f;
}

/// Slots of a team's scratch in the position kernel, in the scratch-hash bin
/// (its table's slots: a table of columns and positions while the positions are
/// found, a dense array of the row's values in numeric phases); rows of the
/// other bins binary-search their row of C and accumulate in C itself.
inline std::int64_t spgemm_position_capacity(SpgemmBinLaunch const& l) {
  return l.accumulator == SpgemmAccumulator::hash ? l.capacity : 0;
}

/// One bin's launch of the position kernel (Find: the symbolic pass that
/// stores the positions; else the numeric phase).
template <bool Find, bool Concurrent, class Crs, class State, class Pos>
void spgemm_launch_positions_concurrency(typename Crs::execution_space const& exec, Crs const& A,
                                         Crs const& B, State const& s, SpgemmBinLaunch const& l,
                                         std::int64_t capacity,
                                         Kokkos::View<Pos*, typename Crs::device_type> const& pos,
                                         bool narrow, SpgemmBinLaunch const* beside) {
  using ExecutionSpace = typename Crs::execution_space;
  using F = SpgemmPositionRows<typename Crs::value_type, typename Crs::ordinal_type,
                               typename Crs::offset_type, typename Crs::device_type, Pos, Find,
                               Concurrent>;
  F f;
  spgemm_bind_rows(f, A, B, l, s.perm);
  f.c_rs = s.C.row_starts();
  f.c_ci = s.C.column_indices();
  f.c_v = s.C.values();
  f.starts = s.product_starts;
  f.pos = pos;
  f.capacity = capacity;
  f.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
  f.empty_key = std::numeric_limits<typename Crs::ordinal_type>::max();
  f.scratch_level = spgemm_scratch_level<ExecutionSpace>();
  f.fingerprint = s.fingerprint_now;
  f.expected_fingerprint = s.fingerprint;
  f.strided = l.accumulator == SpgemmAccumulator::global;
  if (Find && Concurrent && !narrow && l.accumulator == SpgemmAccumulator::hash) {
    // The fill pass found the windowed rows' positions (SpgemmRows::window_row).
    f.window = s.window;
    f.window_words = s.window_words_fill;
  }
  LaunchParameters p = l.p;
  p.league_size = spgemm_league(l);
  if (narrow) {
    // The narrow bin: a row per thread, each in its own `capacity` values,
    // an odd number apart so that the threads of a warp, each at the same
    // place of its row, fall in different shared-memory banks (an even
    // stride of 64 doubles put all of them in one bank).
    f.narrow_segment = capacity | 1;
    f.capacity = f.narrow_segment * p.team_size;
    if (beside != nullptr) {
      f.team_first = beside->first;
      f.team_count = beside->count;
      f.capacity = std::max(f.capacity, spgemm_position_capacity(*beside));
      p.league_size += beside->count;
    }
  }
  auto policy =
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
          exec, static_cast<int>(p.league_size), p.team_size, p.vector_length));
  policy.set_scratch_size(f.scratch_level, Kokkos::PerTeam(F::scratch_bytes(f.capacity)));
  Kokkos::parallel_for(
      Find ? "SpMVKit::spgemm::find_positions" : "SpMVKit::spgemm::numeric_positions", policy, f);
}

/// One bin's launch of the chunked position kernel (SpgemmPositionChunks),
/// after clearing the bin's rows in numeric phases.
template <bool Find, class Crs, class State, class Pos>
void spgemm_launch_chunks(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                          State const& s, int b,
                          Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  using Scalar = typename Crs::value_type;
  using Ordinal = typename Crs::ordinal_type;
  using Offset = typename Crs::offset_type;
  using Device = typename Crs::device_type;
  auto const& l = s.launch[b];
  auto const& p = s.chunk;
  if constexpr (!Find) {
    SpgemmChunkClear<Scalar, Ordinal, Offset, Device> clear;
    clear.c_rs = s.C.row_starts();
    clear.perm = s.perm;
    clear.first = l.first;
    clear.c_v = s.C.values();
    clear.fingerprint = s.fingerprint_now;
    clear.expected_fingerprint = s.fingerprint;
    clear.not_found = std::numeric_limits<Scalar>::quiet_NaN();
    Kokkos::parallel_for("SpMVKit::spgemm::clear_chunked_rows",
                         argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                             exec, static_cast<int>(l.count), p.team_size, p.vector_length)),
                         clear);
  }
  SpgemmPositionChunks<Scalar, Ordinal, Offset, Device, Pos, Find> f;
  spgemm_bind_operands(f, A, B, l, s.perm);
  f.c_rs = s.C.row_starts();
  f.c_ci = s.C.column_indices();
  f.c_v = s.C.values();
  f.starts = s.product_starts;
  f.chunk_first = s.chunk_first[b];
  f.chunk = p.work_per_team;
  f.pos = pos;
  f.fingerprint = s.fingerprint_now;
  f.expected_fingerprint = s.fingerprint;
  Kokkos::parallel_for(Find ? "SpMVKit::spgemm::find_positions_chunked"
                            : "SpMVKit::spgemm::numeric_positions_chunked",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>(s.num_chunks[b]), p.team_size, p.vector_length)),
                       f);
}

template <bool Find, class Crs, class State>
void spgemm_launch_positions(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                             State const& s) {
  using ExecutionSpace = typename Crs::execution_space;
  if constexpr (!Find) {
    // Checked by every team of the kernels below (SpgemmFingerprint).
    SpgemmFingerprintTeams<typename Crs::ordinal_type, typename Crs::offset_type,
                           typename Crs::device_type>
        f;
    f.f = spgemm_fingerprint_functor(A, B, false);
    f.out = s.fingerprint_now;
    const LaunchParameters p = spgemm_fingerprint_parameters(exec, s.test_team_size);
    f.items = p.work_per_team;
    Kokkos::deep_copy(exec, s.fingerprint_now, std::uint64_t(0));
    Kokkos::parallel_for("SpMVKit::spgemm::pattern_fingerprint",
                         argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                             exec, static_cast<int>((f.f.b_end + f.items - 1) / f.items),
                             p.team_size, p.vector_length)),
                         f);
  }
  const auto launch = [&](SpgemmBinLaunch const& l, std::int64_t capacity, bool narrow,
                          SpgemmBinLaunch const* beside) {
    if (l.count == 0) return;
    // The bin's scratch was sized for a column and a value per slot; finding
    // positions takes two indices per slot.
    using Ordinal = typename Crs::ordinal_type;
    if (Find && sizeof(Ordinal) > sizeof(typename Crs::value_type)) capacity /= 2;
    // A row per thread adds with plain stores where no row of B repeats a
    // column: a thread's lanes then add to distinct positions, and its vector
    // loops are ordered (each ends with a warp barrier on GPUs). Team rows
    // that join the launch add with atomics regardless (SpgemmPositionRows).
    const bool concurrent = l.concurrent && !(narrow && !Find && s.b_rows_strict);
    if (s.positions16.extent(0) > 0) {
      if (concurrent) {
        spgemm_launch_positions_concurrency<Find, true>(exec, A, B, s, l, capacity, s.positions16,
                                                        narrow, beside);
      } else {
        spgemm_launch_positions_concurrency<Find, false>(exec, A, B, s, l, capacity, s.positions16,
                                                         narrow, beside);
      }
    } else {
      if (concurrent) {
        spgemm_launch_positions_concurrency<Find, true>(exec, A, B, s, l, capacity, s.positions32,
                                                        narrow, beside);
      } else {
        spgemm_launch_positions_concurrency<Find, false>(exec, A, B, s, l, capacity, s.positions32,
                                                         narrow, beside);
      }
    }
  };
  // Scratch rows. Find: the narrow kernel found the narrow bin's positions as it
  // filled its rows (where it took them), the hash bin's teams find the
  // others'. Values: a row per thread in its share of the hash bin's scratch
  // for the narrow and short bins, where they fill the device, a team per
  // row for the rest.
  int team_bin = spgemm_first_team_bin(s.launch, s.narrow.min_rows);
  bool hash_done = false;
  if constexpr (!Find) {
    team_bin = spgemm_bin_narrow;
    if (spgemm_rows_per_thread(s.launch, spgemm_bin_narrow, spgemm_bin_short,
                               s.narrow.values_min_rows)) {
      team_bin = spgemm_bin_hash;
      // The hash bin's rows join the launch where their teams have its shape.
      auto const& h = s.launch[spgemm_bin_hash];
      const auto rows =
          spgemm_bin_range(s.launch, spgemm_bin_narrow, spgemm_bin_short, spgemm_bin_short);
      hash_done = h.count > 0 && h.concurrent == rows.concurrent &&
                  h.p.team_size == rows.p.team_size && h.p.vector_length == rows.p.vector_length;
      launch(
          rows,
          std::max(s.launch[spgemm_bin_short].capacity, s.launch[spgemm_bin_narrow].capacity / 2),
          true, hash_done ? &h : nullptr);
    }
  }
  if (!hash_done) {
    const auto hash = spgemm_bin_range(s.launch, team_bin, spgemm_bin_hash, spgemm_bin_hash);
    // Find: none of the rows left where the fill pass windowed them all.
    if (!Find || s.window_words_fill == 0 || s.window_rows_fill < hash.count) {
      launch(hash, spgemm_position_capacity(hash), false, nullptr);
    }
  }
  // Rows beyond scratch: chunks of products on GPUs, else a team per row.
  for (int b = spgemm_bin_dense; b < spgemm_num_bins; ++b) {
    auto const& l = s.launch[b];
    if (l.count == 0) continue;
    if (s.chunk_first[b].extent(0) > 0) {
      if (s.positions16.extent(0) > 0) {
        spgemm_launch_chunks<Find>(exec, A, B, s, b, s.positions16);
      } else {
        spgemm_launch_chunks<Find>(exec, A, B, s, b, s.positions32);
      }
    } else {
      launch(l, spgemm_position_capacity(l), false, nullptr);
    }
  }
}

/// One pass of SpgemmListBuild over every entry of A.
template <bool Write, class Crs, class State, class Pos, class Index>
void spgemm_launch_list_build(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, State const& s,
    Kokkos::View<Pos*, typename Crs::device_type> const& pos,
    Kokkos::View<SpgemmPair<Index>*, typename Crs::device_type> const& pairs) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmListBuild<typename Crs::ordinal_type, typename Crs::offset_type, typename Crs::device_type,
                  Pos, Index, Write>
      f;
  f.a_rs = A.row_starts();
  f.a_ci = A.column_indices();
  f.b_rs = B.row_starts();
  f.c_rs = s.C.row_starts();
  f.starts = s.product_starts;
  f.pos = pos;
  f.ends = s.list_ends;
  f.pairs = pairs;
  f.m = s.m;
  f.a_nnz = s.a_nnz;
  LaunchParameters const& p = s.list_plan.build;
  f.entries_per_team = p.work_per_team;
  const std::int64_t league = (s.a_nnz + p.work_per_team - 1) / p.work_per_team;
  Kokkos::parallel_for(
      Write ? "SpMVKit::spgemm::write_product_lists" : "SpMVKit::spgemm::count_product_lists",
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(exec, static_cast<int>(league),
                                                         p.team_size, p.vector_length)),
      f);
}

/// The symbolic phase's step after the positions: the lists of products by
/// entry of C (SpgemmListValues), where the options ask for them
/// (SpgemmOptions::product_lists) and they fit the limit while the positions
/// (`held`, with whatever else is held besides C) still exist. The positions,
/// their starts, the chunk starts and the row order are then released.
/// Returns whether the lists were kept.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
bool spgemm_store_lists(ExecutionSpace const& exec, SpgemmOptions const& options,
                        SpgemmLimit const& limit,
                        SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                        CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                        CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                        std::uint64_t held) {
  using Device = typename SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  constexpr char const* where = "spmvkit::spgemm";
  const double mean_b_row = s.k > 0 ? static_cast<double>(s.b_nnz) / static_cast<double>(s.k) : 0.0;
  const std::int64_t nnz = s.C.nnz();
  if (!options.product_lists || nnz == 0) return false;
  s.list_plan = spgemm_list_parameters(exec, mean_b_row, s.test_team_size);
  constexpr auto narrow_max = static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max());
  const bool wide = s.test_wide_lists || s.a_nnz > narrow_max || s.b_nnz > narrow_max;
  // Lists longer than long_list: at most this many (each holds more products).
  const std::int64_t long_max =
      s.list_plan.long_list < s.multiply_adds ? s.multiply_adds / (s.list_plan.long_list + 1) : 0;
  const byte_count bytes = checked_add(
      checked_add(checked_bytes(s.multiply_adds,
                                wide ? sizeof(SpgemmPair<std::uint64_t>)
                                     : sizeof(SpgemmPair<std::uint32_t>),
                                "product lists", where),
                  checked_bytes(nnz + 2, sizeof(std::int64_t), "product list ends", where), "lists",
                  where),
      checked_bytes(long_max + 1, sizeof(std::int64_t), "long product lists", where), "lists",
      where);
  const std::uint64_t peak = s.memory.output_bytes + held + bytes;
  if (limit.bytes > 0 && peak > limit.bytes) return false;
  // Two entries more: the numeric launch's fingerprint sum, and the count of
  // long lists while they are found.
  const auto ends = allocate_view<Kokkos::View<std::int64_t*, Device>>(
      exec, "SpMVKit::spgemm::product_list_ends", nnz + 2);
  Kokkos::deep_copy(exec, ends, std::int64_t(0));
  s.list_ends = Kokkos::subview(ends, Kokkos::pair<std::int64_t, std::int64_t>(0, nnz));
  s.list_sync = Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      reinterpret_cast<std::uint64_t*>(ends.data() + nnz), 1);
  const auto long_count =
      Kokkos::subview(ends, Kokkos::pair<std::int64_t, std::int64_t>(nnz + 1, nnz + 2));
  s.list_long = spgemm_allocate<Kokkos::View<std::int64_t*, Device>>(
      exec, "SpMVKit::spgemm::long_product_lists", long_max);
  if (wide) {
    s.list_pairs64 = allocate_view<Kokkos::View<SpgemmPair<std::uint64_t>*, Device>>(
        exec, "SpMVKit::spgemm::product_lists", s.multiply_adds);
  } else {
    s.list_pairs32 = allocate_view<Kokkos::View<SpgemmPair<std::uint32_t>*, Device>>(
        exec, "SpMVKit::spgemm::product_lists", s.multiply_adds);
  }
  const auto build = [&](auto const& pos, auto const& pairs) {
    spgemm_launch_list_build<false>(exec, A, B, s, pos, pairs);
    SpgemmListScan<Ordinal, Offset, Device> scan;
    scan.a_rs = A.row_starts();
    scan.c_rs = s.C.row_starts();
    scan.starts = s.product_starts;
    scan.ends = s.list_ends;
    scan.long_entries = s.list_long;
    scan.long_count = long_count;
    scan.long_list = s.list_plan.long_list;
    scan.m = s.m;
    LaunchParameters const& p = s.list_plan.scan;
    scan.rows_per_team = p.work_per_team;
    Kokkos::parallel_for("SpMVKit::spgemm::product_list_starts",
                         argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                             exec, static_cast<int>((s.m + p.work_per_team - 1) / p.work_per_team),
                             p.team_size, p.vector_length)),
                         scan);
    spgemm_launch_list_build<true>(exec, A, B, s, pos, pairs);
  };
  const auto build_pairs = [&](auto const& pos) {
    if (wide) {
      build(pos, s.list_pairs64);
    } else {
      build(pos, s.list_pairs32);
    }
  };
  if (s.positions16.extent(0) > 0) {
    build_pairs(s.positions16);
  } else {
    build_pairs(s.positions32);
  }
  // The numeric launch's league depends on it; the symbolic phase ends with a
  // fence anyway.
  Kokkos::deep_copy(exec, Kokkos::View<std::int64_t, Kokkos::HostSpace>(&s.list_long_count),
                    Kokkos::subview(long_count, 0));
  exec.fence();
  s.lists = true;
  s.positions16 = Kokkos::View<std::uint16_t*, Device>();
  s.positions32 = Kokkos::View<std::uint32_t*, Device>();
  s.product_starts = Kokkos::View<std::int64_t*, Device>();
  for (auto& c : s.chunk_first) c = Kokkos::View<std::int64_t*, Device>();
  s.perm = Kokkos::View<Ordinal*, Device>();
  s.memory.positions_bytes = bytes;
  s.memory.workspace_bytes = bytes;
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes, peak);
  return true;
}

/// SpgemmPatternCheck's one team after a numeric launch that summed the
/// fingerprint into `sync` (the lists', or the positions' by entry of A).
template <class Crs, class State>
void spgemm_launch_pattern_check(typename Crs::execution_space const& exec, State const& s,
                                 Kokkos::View<std::uint64_t*, typename Crs::device_type,
                                              Kokkos::MemoryTraits<Kokkos::Unmanaged>> const& sync,
                                 LaunchParameters const& p, char const* label) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmPatternCheck<typename Crs::value_type, typename Crs::device_type> check;
  check.sync = sync;
  check.c_v = s.C.values();
  check.expected_fingerprint = s.fingerprint;
  check.not_found = std::numeric_limits<typename Crs::value_type>::quiet_NaN();
  Kokkos::parallel_for(
      label,
      argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(exec, 1, p.team_size, p.vector_length)),
      check);
}

/// GPUs: after the positions, where spgemm_entry_parameters takes the numeric
/// phase by entry of A (SpgemmPositionEntries), each entry's row start of C,
/// if it fits the limit beside what the handle keeps (`held`: whatever else
/// is alive meanwhile).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spgemm_store_entry_starts(ExecutionSpace const& exec, SpgemmLimit const& limit,
                               SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                               CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                               std::uint64_t held) {
  using Device = typename SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  if (s.test_entries < 0 || s.a_nnz == 0) return;
  const auto longest_b = [&] {
    std::int64_t longest = 0;
    Kokkos::parallel_reduce("SpMVKit::spgemm::longest_row_of_b", Range(exec, 0, s.k),
                            SpgemmMaxRow<Offset, Device>{B.row_starts()},
                            Kokkos::Max<std::int64_t>(longest));
    return longest;
  };
  const double mean_b_row = s.k > 0 ? static_cast<double>(s.b_nnz) / static_cast<double>(s.k) : 0.0;
  s.entry_plan =
      spgemm_entry_parameters(exec, mean_b_row, longest_b, s.multiply_adds, s.test_team_size);
  if (!s.entry_plan.use) return;
  const byte_count bytes =
      checked_bytes(s.a_nnz, sizeof(Offset), "entry starts", "spmvkit::spgemm");
  const std::uint64_t peak = s.memory.output_bytes + s.memory.workspace_bytes + held + bytes;
  if (limit.bytes > 0 && peak > limit.bytes) {
    s.entry_plan.use = false;
    return;
  }
  s.entry_c_start =
      allocate_view<Kokkos::View<Offset*, Device>>(exec, "SpMVKit::spgemm::entry_starts", s.a_nnz);
  SpgemmEntryStarts<Offset, Device> f;
  f.a_rs = A.row_starts();
  f.c_rs = s.C.row_starts();
  f.c_start = s.entry_c_start;
  f.m = s.m;
  LaunchParameters const& p = s.entry_plan.starts;
  f.rows_per_team = p.work_per_team;
  Kokkos::parallel_for("SpMVKit::spgemm::entry_starts",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>((s.m + p.work_per_team - 1) / p.work_per_team),
                           p.team_size, p.vector_length)),
                       f);
  // The numeric launches sum the fingerprint into it; SpgemmPatternCheck clears it.
  Kokkos::deep_copy(exec, s.fingerprint_now, std::uint64_t(0));
  s.memory.workspace_bytes += bytes;
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes, peak);
}

/// The numeric phase from stored positions by entry of A: C's values cleared,
/// SpgemmPositionEntries, SpgemmPatternCheck's one team.
template <class Crs, class State, class Pos>
void spgemm_launch_entries_values(typename Crs::execution_space const& exec, Crs const& A,
                                  Crs const& B, State const& s,
                                  Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmPositionEntries<typename Crs::value_type, typename Crs::ordinal_type,
                        typename Crs::offset_type, typename Crs::device_type, Pos>
      f;
  f.b_rs = B.row_starts();
  f.c_start = s.entry_c_start;
  f.a_ci = A.column_indices();
  f.a_v = A.values();
  f.b_v = B.values();
  f.starts = s.product_starts;
  f.pos = pos;
  f.c_v = s.C.values();
  f.a_nnz = s.a_nnz;
  f.b_rows = s.k;
  f.b_nnz = s.b_nnz;
  LaunchParameters const& p = s.entry_plan.values;
  f.entries_per_team = p.work_per_team;
  f.fingerprint = spgemm_fingerprint_functor(A, B, false);
  f.fingerprint_items = s.entry_plan.fingerprint_items;
  f.fingerprint_teams = (f.fingerprint.b_end + f.fingerprint_items - 1) / f.fingerprint_items;
  f.sync = s.fingerprint_now;
  const std::int64_t league =
      f.fingerprint_teams + (s.a_nnz + p.work_per_team - 1) / p.work_per_team;
  Kokkos::parallel_for("SpMVKit::spgemm::numeric_entries",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>(league), p.team_size, p.vector_length)),
                       f);
}

template <class Crs, class State>
void spgemm_launch_entries(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                           State const& s) {
  Kokkos::deep_copy(exec, s.C.values(), typename Crs::value_type(0));
  if (s.positions16.extent(0) > 0) {
    spgemm_launch_entries_values(exec, A, B, s, s.positions16);
  } else {
    spgemm_launch_entries_values(exec, A, B, s, s.positions32);
  }
  spgemm_launch_pattern_check<Crs>(exec, s, s.fingerprint_now, s.entry_plan.check,
                                   "SpMVKit::spgemm::numeric_entries_check");
}

/// The numeric phase from lists of products: two launches (SpgemmListValues,
/// then SpgemmPatternCheck's one team).
template <class Crs, class State, class Index>
void spgemm_launch_lists_values(
    typename Crs::execution_space const& exec, Crs const& A, Crs const& B, State const& s,
    Kokkos::View<SpgemmPair<Index>*, typename Crs::device_type> const& pairs) {
  using ExecutionSpace = typename Crs::execution_space;
  SpgemmListValues<typename Crs::value_type, typename Crs::ordinal_type, typename Crs::offset_type,
                   typename Crs::device_type, Index>
      f;
  f.a_v = A.values();
  f.b_v = B.values();
  f.ends = s.list_ends;
  f.pairs = pairs;
  f.long_entries = s.list_long;
  f.long_count = s.list_long_count;
  f.long_list = s.list_plan.long_list;
  f.c_v = s.C.values();
  f.nnz = s.C.nnz();
  LaunchParameters const& p = s.list_plan.values;
  f.entries_per_team = p.work_per_team;
  f.list_teams = (f.nnz + p.work_per_team - 1) / p.work_per_team;
  f.fingerprint = spgemm_fingerprint_functor(A, B, false);
  f.fingerprint_items = s.list_plan.fingerprint_items;
  f.fingerprint_teams = (f.fingerprint.b_end + f.fingerprint_items - 1) / f.fingerprint_items;
  f.sync = s.list_sync;
  const std::int64_t league =
      f.fingerprint_teams + f.list_teams + (f.long_count + p.team_size - 1) / p.team_size;
  Kokkos::parallel_for("SpMVKit::spgemm::numeric_lists",
                       argument_launch(Kokkos::TeamPolicy<ExecutionSpace>(
                           exec, static_cast<int>(league), p.team_size, p.vector_length)),
                       f);
}

template <class Crs, class State>
void spgemm_launch_lists(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                         State const& s) {
  if (s.list_pairs64.extent(0) > 0) {
    spgemm_launch_lists_values(exec, A, B, s, s.list_pairs64);
  } else {
    spgemm_launch_lists_values(exec, A, B, s, s.list_pairs32);
  }
  spgemm_launch_pattern_check<Crs>(exec, s, s.list_sync, s.list_plan.check,
                                   "SpMVKit::spgemm::numeric_lists_check");
}

/// A launch of the host symbolic phase's workspace kernel (SpgemmWorkspaceRows)
/// over every row of A: the count pass (Fill false) or the fill pass, which
/// also finds the product positions when they are allocated (`pos`).
template <bool Fill, class Pos, class Crs, class Ws>
void spgemm_launch_workspace(typename Crs::execution_space const& exec, Crs const& A, Crs const& B,
                             LaunchParameters const& p, Ws const& marks, Ws const& buffer,
                             typename Crs::row_starts_type const& c_rs,
                             typename Crs::column_indices_type const& c_ci, bool sort,
                             Kokkos::View<std::int64_t*, typename Crs::device_type> const& starts,
                             Kokkos::View<Pos*, typename Crs::device_type> const& pos) {
  using ExecutionSpace = typename Crs::execution_space;
  // Compiled for host execution spaces only: the kernel's operator is host code (std::sort),
  // and the phase never chooses the workspace elsewhere.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    using F = SpgemmWorkspaceRows<typename Crs::ordinal_type, typename Crs::offset_type,
                                  typename Crs::device_type, Pos, Fill>;
    if (A.num_rows() == 0) return;
    F f;
    f.a_rs = A.row_starts();
    f.a_ci = A.column_indices();
    f.b_rs = B.row_starts();
    f.b_ci = B.column_indices();
    f.num_rows = A.num_rows();
    f.rows_per_team = p.work_per_team;
    f.num_cols = B.num_cols();
    f.c_rs = c_rs;
    f.c_ci = c_ci;
    f.marks = marks;
    f.buffer = buffer;
    f.token = Kokkos::Experimental::UniqueToken<ExecutionSpace>(exec);
    f.sort = sort;
    f.find = pos.extent(0) > 0;
    f.scan_ratio = spgemm_workspace_scan_ratio;
    f.rank_sort_max = spgemm_workspace_rank_sort_max;
    f.none = std::numeric_limits<typename Crs::ordinal_type>::max();
    f.starts = starts;
    f.pos = pos;
    Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(
        exec, static_cast<int>(p.league_size), p.team_size, p.vector_length);
    Kokkos::parallel_for(
        Fill ? "SpMVKit::spgemm::fill_workspace" : "SpMVKit::spgemm::count_workspace", policy, f);
  } else {
    (void)exec, (void)A, (void)B, (void)p, (void)marks, (void)buffer, (void)c_rs, (void)c_ci;
    (void)sort, (void)starts, (void)pos;
  }
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
std::uint64_t spgemm_scratch_of(SpgemmBinLaunch const (&launch)[spgemm_num_bins], bool values) {
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  std::uint64_t m = 0;
  for (int b = 1; b < spgemm_num_bins; ++b) {
    auto const& l = launch[b];
    if (l.count == 0) continue;
    if (b == spgemm_bin_short) continue; // a hash-bin team, or a narrow launch
    if (b == spgemm_bin_narrow) {
      // Values: the numeric plan's rows are filled (two indices a slot), then
      // a row per thread accumulates in a share of the hash bin's scratch
      // (SpgemmPositionRows::value_rows_narrow).
      const std::uint64_t team = static_cast<std::uint64_t>(launch[spgemm_bin_short].p.team_size);
      const std::int64_t segment = std::max(launch[spgemm_bin_short].capacity, l.capacity / 2);
      m = std::max<std::uint64_t>(
          {m,
           values ? SpgemmNarrowRows<Ordinal, Offset, Device, std::uint16_t, true,
                                     true>::scratch_bytes(l.p.team_size, l.capacity)
                  : SpgemmNarrowRows<Ordinal, Offset, Device, std::uint16_t, false,
                                     true>::scratch_bytes(l.p.team_size, l.capacity),
           values ? team * static_cast<std::uint64_t>(segment) * sizeof(Scalar) : 0});
      continue;
    }
    const std::uint64_t s =
        values ? SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_values, true>::scratch_bytes(
                     l.accumulator, l.capacity, l.p.team_size)
               : SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_count, true>::scratch_bytes(
                     l.accumulator, l.capacity, l.p.team_size);
    m = std::max(m, s);
  }
  return m;
}

/// The symbolic phase's last step: the position of every product in its row of
/// C, so that numeric phases add without hashing (SpgemmPositionRows). Kept
/// only for sorted rows (the place is found by binary search) and where the
/// positions take at most spgemm_positions_max_ratio times C's own bytes and fit
/// the limit beside everything else the handle keeps; the numeric global pool
/// is then released. Otherwise numeric phases hash as the symbolic one did.
/// `find` fills the allocated positions (the position kernel, or the host
/// workspace's fill pass, which writes the columns too); `held` is what else
/// it holds meanwhile (the host workspace). Returns whether the positions were kept.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class Find>
bool spgemm_store_positions(ExecutionSpace const& exec, SpgemmOptions const& options,
                            SpgemmLimit const& limit,
                            SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B,
                            std::uint64_t held, Find const& find) {
  using Device = typename SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr char const* where = "spmvkit::spgemm";
  if (!options.keep_positions || !options.sort_columns || s.multiply_adds == 0) return false;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce("SpMVKit::spgemm::longest_row", Range(exec, 0, s.m),
                          SpgemmMaxRow<Offset, Device>{s.C.row_starts()},
                          Kokkos::Max<std::int64_t>(longest));
  const bool positions_fit16 = longest <= 65536;
  const byte_count bytes =
      checked_add(checked_bytes(s.multiply_adds,
                                positions_fit16 ? sizeof(std::uint16_t) : sizeof(std::uint32_t),
                                "product positions", where),
                  checked_bytes(s.a_nnz + 2, sizeof(std::int64_t), "product starts", where),
                  "positions", where);
  if (bytes > spgemm_positions_max_ratio * s.memory.output_bytes) return false;
  const std::uint64_t perm_bytes = static_cast<std::uint64_t>(s.perm.extent(0)) * sizeof(Ordinal);
  const std::uint64_t kept = s.memory.output_bytes + perm_bytes + bytes;
  // While the positions are found the numeric pool still exists.
  const std::uint64_t peak = std::max<std::uint64_t>(
      kept, s.memory.output_bytes + s.memory.workspace_bytes + bytes + held);
  if (limit.bytes > 0 && peak > limit.bytes) return false;
  // One entry more: the numeric phases' fingerprint (SpgemmState::fingerprint_now).
  s.product_starts = allocate_view<Kokkos::View<std::int64_t*, Device>>(
      exec, "SpMVKit::spgemm::product_starts", s.a_nnz + 2);
  Kokkos::parallel_scan("SpMVKit::spgemm::product_starts", Range(exec, 0, s.a_nnz + 1),
                        SpgemmProductStarts<Ordinal, Offset, Device>{
                            A.column_indices(), B.row_starts(), s.product_starts, s.a_nnz});
  if (positions_fit16) {
    s.positions16 = allocate_view<Kokkos::View<std::uint16_t*, Device>>(
        exec, "SpMVKit::spgemm::product_positions", s.multiply_adds);
  } else {
    s.positions32 = allocate_view<Kokkos::View<std::uint32_t*, Device>>(
        exec, "SpMVKit::spgemm::product_positions", s.multiply_adds);
  }
  // Rows that team scratch does not hold, on GPUs, in chunks of products.
  s.chunk = spgemm_chunk_parameters(exec, s.test_team_size);
  std::uint64_t chunk_bytes = 0;
  for (int b = 1; b < spgemm_num_bins; ++b) {
    auto const& l = s.launch[b];
    if (b <= spgemm_bin_hash || l.count == 0 || !l.concurrent) continue;
    s.chunk_first[b] = allocate_view<Kokkos::View<std::int64_t*, Device>>(
        exec, "SpMVKit::spgemm::chunk_starts", l.count + 1);
    SpgemmChunkScan<Ordinal, Offset, Device> f;
    f.a_rs = A.row_starts();
    f.perm = s.perm;
    f.starts = s.product_starts;
    f.chunk_first = s.chunk_first[b];
    f.first = l.first;
    f.count = l.count;
    f.chunk = s.chunk.work_per_team;
    Kokkos::parallel_scan("SpMVKit::spgemm::chunk_starts", Range(exec, 0, l.count + 1), f);
    exec.fence();
    Kokkos::deep_copy(s.num_chunks[b], Kokkos::subview(s.chunk_first[b], l.count));
    chunk_bytes += static_cast<std::uint64_t>(l.count + 1) * sizeof(std::int64_t);
  }
  s.fingerprint_now = Kokkos::View<std::uint64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      reinterpret_cast<std::uint64_t*>(s.product_starts.data() + s.a_nnz + 1), 1);
  {
    const auto f = spgemm_fingerprint_functor(A, B, true);
    std::uint64_t sums[2] = {0, 0};
    Kokkos::parallel_reduce("SpMVKit::spgemm::pattern_fingerprint", Range(exec, 0, f.rows_end), f,
                            sums);
    s.fingerprint = sums[0];
    s.b_rows_strict = sums[1] == 0;
  }
  find();
  s.positions = true;
  s.pool_keys = Kokkos::View<Ordinal*, Device>();
  s.pool_vals = Kokkos::View<Scalar*, Device>();
  s.memory.positions_bytes = bytes;
  s.memory.workspace_bytes = perm_bytes + bytes + chunk_bytes;
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes, peak);
  if (!spgemm_store_lists(exec, options, limit, s, A, B, s.memory.workspace_bytes + held)) {
    spgemm_store_entry_starts(exec, limit, s, A, B, held);
  }
  return true;
}

/// spgemm_symbolic() (operations/spgemm.hpp documents the steps).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spgemm_symbolic_phase(ExecutionSpace const& exec, SpgemmOptions const& options,
                           SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                           CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                           CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  using State = SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Crs = typename State::crs_type;
  using Device = typename State::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::string shapes =
      spgemm_shapes(A.num_rows(), A.num_cols(), B.num_rows(), B.num_cols(), A.nnz(), B.nnz());
  if (A.num_cols() != B.num_rows()) {
    throw std::invalid_argument("spmvkit::spgemm: the inner dimensions differ: " + shapes +
                                "; C = A B needs as many columns of A as rows of B");
  }
  const int test_team_size = s.test_team_size, test_workspace = s.test_workspace;
  const bool test_wide_lists = s.test_wide_lists;
  const int test_entries = s.test_entries;
  const int test_window_words = s.test_window_words;
  s = State();
  s.test_window_words = test_window_words;
  s.test_team_size = test_team_size;
  s.test_workspace = test_workspace;
  s.test_wide_lists = test_wide_lists;
  s.test_entries = test_entries;
  s.m = A.num_rows();
  s.k = A.num_cols();
  s.n = B.num_cols();
  s.a_nnz = A.nnz();
  s.b_nnz = B.nnz();
  const std::int64_t m = s.m, n = s.n;
  const SpgemmLimit limit = spgemm_memory_limit<ExecutionSpace>(options.memory_limit);
  s.memory.limit_bytes = limit.bytes;
  s.memory.limit_source = limit.source;

  // Row bounds, and a lower bound on nnz(C) checked before anything of C's size exists.
  // Bounds and bins in one allocation (bins in the tail).
  const auto bounds_and_bins = allocate_view<Kokkos::View<Ordinal*, Device>>(
      exec, "SpMVKit::spgemm::row_bounds_and_bins",
      m + (m + std::int64_t(sizeof(Ordinal)) - 1) / std::int64_t(sizeof(Ordinal)));
  const Kokkos::View<Ordinal*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bound(
      bounds_and_bins.data(), m);
  // The concurrent (GPU) path's bitmap windows: each row of B's column span,
  // then each row of C's window (SpgemmRows::window_row).
  const bool windows = s.test_window_words >= 0 &&
                       (!is_host_space_v<ExecutionSpace> || s.test_team_size > 0) && m > 0 &&
                       s.k > 0;
  const std::int64_t window_cap =
      s.test_window_words > 0 ? s.test_window_words : spgemm_max_window_words;
  if (windows) {
    s.window = allocate_view<Kokkos::View<Ordinal*, Device>>(exec, "SpMVKit::spgemm::row_windows",
                                                             2 * m + 2 * s.k);
    Kokkos::parallel_for("SpMVKit::spgemm::column_spans", Range(exec, 0, s.k),
                         SpgemmColumnSpans<Ordinal, Offset, Device>{
                             B.row_starts(), B.column_indices(),
                             Kokkos::subview(s.window, Kokkos::make_pair(2 * m, 2 * m + 2 * s.k)),
                             n});
  }
  std::int64_t sums[3] = {0, 0, 0};
  if (m > 0) {
    SpgemmBounds<Ordinal, Offset, Device> f;
    f.a_rs = A.row_starts();
    f.a_ci = A.column_indices();
    f.b_rs = B.row_starts();
    f.bound = bound;
    f.num_cols = n;
    if (windows) {
      f.b_span = Kokkos::subview(s.window, Kokkos::make_pair(2 * m, 2 * m + 2 * s.k));
      f.window = Kokkos::subview(s.window, Kokkos::make_pair(std::int64_t(0), 2 * m));
    }
    Kokkos::parallel_reduce(
        "SpMVKit::spgemm::row_bounds", Range(exec, 0, m), f,
        Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            sums, 3));
  }
  s.multiply_adds = sums[0];
  if (sums[1] > static_cast<std::int64_t>(std::numeric_limits<Offset>::max())) {
    spgemm_offset_overflow<Offset>(sums[1], true, shapes);
  }
  // Kept or held through the symbolic phase: bounds, bins, row order, row starts.
  const byte_count rows_bytes = checked_add(
      checked_add(checked_bytes(m, 2 * sizeof(Ordinal) + 1, "row bounds, bins and order",
                                "spmvkit::spgemm"),
                  checked_bytes(m + 1, sizeof(Offset), "C row_starts", "spmvkit::spgemm"), "work",
                  "spmvkit::spgemm"),
      checked_bytes(static_cast<std::int64_t>(s.window.extent(0)), sizeof(Ordinal), "row windows",
                    "spmvkit::spgemm"),
      "work", "spmvkit::spgemm");
  spgemm_check_limit(limit,
                     checked_add(spgemm_crs_bytes<Scalar, Ordinal, Offset>(m, sums[1]), rows_bytes,
                                 "C", "spmvkit::spgemm"),
                     "C = A B (at least " + std::to_string(sums[1]) + " nonzeros)", shapes);

  // Bins by bound, then the exact row lengths into C's row starts.
  const auto limits = spgemm_scratch_limits<ExecutionSpace>(sizeof(Scalar), sizeof(Ordinal));
  const Kokkos::View<unsigned char*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bin(
      reinterpret_cast<unsigned char*>(bounds_and_bins.data() + m), m);
  Kokkos::View<Ordinal*, Device> perm;
  SpgemmBinLaunch launch[spgemm_num_bins];
  const double mean_b_row = s.k > 0 ? static_cast<double>(s.b_nnz) / static_cast<double>(s.k) : 0.0;
  const SpgemmNarrowPlan narrow = spgemm_narrow_parameters(
      exec,
      static_cast<double>(s.multiply_adds) / static_cast<double>(std::max<std::int64_t>(1, m)),
      mean_b_row, sizeof(Ordinal), limits.hash_slots, s.test_team_size);
  s.narrow = narrow;
  // No short bin here: it only differs from the hash bin in numeric phases.
  const std::int64_t symbolic_max =
      spgemm_bin_rows(exec, "symbolic", bound, bin, perm, n, limits, launch, s.symbolic_bin_count,
                      narrow, narrow.count_slots, 0);
  const std::int64_t busy = m - s.symbolic_bin_count[spgemm_bin_empty];
  const double mean_products =
      busy > 0 ? static_cast<double>(s.multiply_adds) / static_cast<double>(busy) : 0.0;
  const auto pool_budget = [&](std::uint64_t used) {
    std::uint64_t b = spgemm_default_pool_bytes;
    if (limit.bytes > 0)
      b = std::min<std::uint64_t>(b, limit.bytes > used ? limit.bytes - used : 0);
    return b;
  };

  // Host backends: every row in the per-thread dense workspace where it fits
  // (spgemm_use_workspace), else the bins' accumulators as on GPUs. Budgeted
  // for the marks and the fill pass's buffer beside the smallest C.
  Kokkos::View<Ordinal*, Device> marks;
  std::int64_t threads = 1;
  std::uint64_t marks_bytes = 0, ws_bytes = 0;
  LaunchParameters ws_launch;
  if constexpr (is_host_space_v<ExecutionSpace>) {
    threads = std::max(1, Kokkos::Experimental::UniqueToken<ExecutionSpace>(exec).size());
    const bool addressable = n < std::numeric_limits<std::int64_t>::max() /
                                         (2 * threads * std::int64_t(sizeof(Ordinal))) -
                                     1;
    if (addressable && s.test_team_size == 0 && s.test_workspace >= 0 && m > 0) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(threads * n) * sizeof(Ordinal);
      const std::uint64_t both = 2 * bytes + static_cast<std::uint64_t>(threads) * sizeof(Ordinal);
      const std::uint64_t c_least = spgemm_crs_bytes<Scalar, Ordinal, Offset>(m, sums[1]);
      if (bytes > 0 && spgemm_use_workspace<ExecutionSpace>(threads, n, s.multiply_adds, both,
                                                            pool_budget(rows_bytes + c_least),
                                                            s.test_workspace > 0)) {
        marks_bytes = bytes;
        ws_bytes = both;
        ws_launch = spgemm_launch_parameters(
            exec, SpgemmAccumulator::workspace, m,
            static_cast<double>(s.multiply_adds) / static_cast<double>(m), mean_b_row, 0);
      }
    }
  }
  const bool workspace = marks_bytes > 0;
  const std::int64_t symbolic_pool =
      workspace ? 0
                : spgemm_plan_launches(exec, launch, symbolic_max, n, mean_products, mean_b_row,
                                       sizeof(Ordinal), pool_budget(rows_bytes), s.test_team_size);
  const byte_count symbolic_pool_bytes =
      checked_bytes(symbolic_pool, sizeof(Ordinal), "global pool", "spmvkit::spgemm");
  s.memory.symbolic_peak_bytes = checked_add(rows_bytes, symbolic_pool_bytes + marks_bytes,
                                             "symbolic phase", "spmvkit::spgemm");
  spgemm_check_limit(limit, s.memory.symbolic_peak_bytes, "the symbolic phase", shapes);
  s.memory.symbolic_workspace_bytes = marks_bytes;
  s.memory.team_scratch_bytes =
      workspace ? 0 : spgemm_scratch_of<Scalar, ExecutionSpace, Ordinal, Offset>(launch, false);
  auto c_rs = allocate_view<typename Crs::row_starts_type>(
      exec, "SpMVKit::CrsMatrix::row_starts(spgemm)", m + 1);
  Kokkos::deep_copy(exec, c_rs, Offset(0));
  const Ordinal no_row = std::numeric_limits<Ordinal>::max();
  if (workspace) {
    marks = allocate_view<Kokkos::View<Ordinal*, Device>>(
        exec, "SpMVKit::spgemm::workspace_marks",
        static_cast<std::int64_t>(marks_bytes / sizeof(Ordinal)));
    Kokkos::deep_copy(exec, marks, no_row);
    spgemm_launch_workspace<false>(exec, A, B, ws_launch, marks, Kokkos::View<Ordinal*, Device>(),
                                   c_rs, typename Crs::column_indices_type(), options.sort_columns,
                                   Kokkos::View<std::int64_t*, Device>(),
                                   Kokkos::View<std::uint16_t*, Device>());
  } else {
    auto pool = spgemm_allocate<Kokkos::View<Ordinal*, Device>>(
        exec, "SpMVKit::spgemm::global_pool(symbolic)", symbolic_pool);
    const int team_bin = spgemm_first_team_bin(launch, narrow.min_rows);
    if (team_bin != spgemm_bin_narrow) {
      spgemm_launch_narrow<false>(exec, A, B, launch[spgemm_bin_narrow], perm, bound, c_rs,
                                  typename Crs::column_indices_type(),
                                  Kokkos::View<std::int64_t*, Device>(),
                                  Kokkos::View<std::uint16_t*, Device>());
    }
    SpgemmWindowArgs<Ordinal, Device> win;
    const auto hash = spgemm_bin_range(launch, team_bin, spgemm_bin_hash, spgemm_bin_hash);
    s.window_words_count = spgemm_launch_window(exec, hash, s.window, perm, window_cap);
    win.window = s.window;
    win.words = s.window_words_count;
    if (win.words > 0) {
      s.memory.team_scratch_bytes = std::max<std::uint64_t>(
          s.memory.team_scratch_bytes,
          SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_count, true>::scratch_bytes(
              hash.accumulator, hash.capacity, hash.p.team_size, win.words));
    }
    for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
      spgemm_launch<spgemm_count>(exec, A, B, b == spgemm_bin_hash ? hash : launch[b], perm, bound,
                                  c_rs, typename Crs::column_indices_type(),
                                  typename Crs::values_type(), pool,
                                  Kokkos::View<Scalar*, Device>(), options.sort_columns, win);
    }
  }

  // Exact nnz(C), checked, then the scan and C's arrays.
  std::int64_t nnz = 0;
  if (m > 0) {
    Kokkos::parallel_reduce("SpMVKit::spgemm::nnz", Range(exec, 0, m),
                            SpgemmSum<typename Crs::row_starts_type>{c_rs}, nnz);
  }
  if (nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max())) {
    spgemm_offset_overflow<Offset>(nnz, false, shapes);
  }
  if (m > 0) {
    // Exact lengths become the numeric phase's bounds (a length is at most n, an Ordinal).
    Kokkos::parallel_for(
        "SpMVKit::spgemm::row_lengths", Range(exec, 0, m),
        SpgemmCopy<Kokkos::View<Ordinal*, Device>, typename Crs::row_starts_type>{bound, c_rs});
    Kokkos::parallel_scan("SpMVKit::spgemm::row_starts", Range(exec, 0, m + 1),
                          SpgemmScan<Offset, Device>{c_rs});
  }
  s.memory.output_bytes = spgemm_crs_bytes<Scalar, Ordinal, Offset>(m, nnz);
  spgemm_check_limit(limit, checked_add(s.memory.output_bytes, rows_bytes, "C", "spmvkit::spgemm"),
                     "C = A B (" + std::to_string(nnz) + " nonzeros)", shapes);
  auto c_ci = allocate_view<typename Crs::column_indices_type>(
      exec, "SpMVKit::CrsMatrix::column_indices(spgemm)", nnz);
  auto c_v =
      allocate_view<typename Crs::values_type>(exec, "SpMVKit::CrsMatrix::values(spgemm)", nnz);
  s.C = Crs(m, n, c_rs, c_ci, c_v);
  s.C.trust_structure(); // row starts from the exact counts, columns from B's checked ones

  // The numeric plan: bins by exact length, and the numeric pool.
  s.perm = perm;
  perm = Kokkos::View<Ordinal*, Device>();
  const std::int64_t numeric_max =
      spgemm_bin_rows(exec, "numeric", bound, bin, s.perm, n, limits, s.launch, s.bin_count, narrow,
                      narrow.fill_slots, narrow.short_limit);
  const byte_count kept = checked_add(
      s.memory.output_bytes, checked_bytes(m, sizeof(Ordinal), "row order", "spmvkit::spgemm"), "C",
      "spmvkit::spgemm");
  const std::int64_t numeric_pool =
      spgemm_plan_launches(exec, s.launch, numeric_max, n, mean_products, mean_b_row,
                           sizeof(Ordinal) + sizeof(Scalar), pool_budget(kept), s.test_team_size);
  s.pool_keys = spgemm_allocate<Kokkos::View<Ordinal*, Device>>(
      exec, "SpMVKit::spgemm::global_pool_keys(numeric)", numeric_pool);
  s.pool_vals = spgemm_allocate<Kokkos::View<Scalar*, Device>>(
      exec, "SpMVKit::spgemm::global_pool_values(numeric)", numeric_pool);
  s.memory.workspace_bytes =
      checked_add(checked_bytes(static_cast<std::int64_t>(s.perm.extent(0)), sizeof(Ordinal),
                                "row order", "spmvkit::spgemm"),
                  checked_bytes(numeric_pool, sizeof(Ordinal) + sizeof(Scalar), "global pool",
                                "spmvkit::spgemm"),
                  "workspace", "spmvkit::spgemm");
  s.memory.team_scratch_bytes = std::max<std::uint64_t>(
      s.memory.team_scratch_bytes,
      spgemm_scratch_of<Scalar, ExecutionSpace, Ordinal, Offset>(s.launch, true));
  s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.symbolic_peak_bytes,
                                                s.memory.output_bytes + s.memory.workspace_bytes);

  // The columns of C, sorted once here so that no numeric phase sorts, and
  // the product positions. The workspace writes both in one pass, if C and the
  // numeric plan left room for its marks and buffer; else the bins'
  // accumulators write the columns and the position kernel finds the positions.
  const bool fill_workspace =
      workspace && (limit.bytes == 0 ||
                    s.memory.output_bytes + s.memory.workspace_bytes + ws_bytes <= limit.bytes);
  if (!fill_workspace) marks = Kokkos::View<Ordinal*, Device>();
  if (fill_workspace) {
    // The marks stay as the count pass left them: a mark equal to i there is a column of row i.
    const auto buffer = allocate_view<Kokkos::View<Ordinal*, Device>>(
        exec, "SpMVKit::spgemm::workspace_buffer", threads * (n + 1));
    const auto fill = [&]() {
      if (s.positions32.extent(0) > 0) {
        spgemm_launch_workspace<true>(exec, A, B, ws_launch, marks, buffer, c_rs, c_ci,
                                      options.sort_columns, s.product_starts, s.positions32);
      } else {
        spgemm_launch_workspace<true>(exec, A, B, ws_launch, marks, buffer, c_rs, c_ci,
                                      options.sort_columns, s.product_starts, s.positions16);
      }
    };
    if (!spgemm_store_positions(exec, options, limit, s, A, B, ws_bytes, fill)) fill();
    s.memory.symbolic_workspace_bytes = ws_bytes;
    s.memory.peak_bytes = std::max<std::uint64_t>(s.memory.peak_bytes,
                                                  s.memory.output_bytes + s.memory.workspace_bytes +
                                                      s.memory.symbolic_workspace_bytes);
  } else {
    // The narrow bin fills its rows and finds their positions in one pass, and
    // so do the windowed rows of the hash bin; the position kernel finds the
    // other rows' positions after they are filled.
    const int team_bin = spgemm_first_team_bin(s.launch, narrow.min_rows);
    const auto hash = spgemm_bin_range(s.launch, team_bin, spgemm_bin_hash, spgemm_bin_hash);
    s.window_words_fill =
        spgemm_launch_window(exec, hash, s.window, s.perm, window_cap, &s.window_rows_fill);
    if (s.window_words_fill > 0) {
      s.memory.team_scratch_bytes = std::max<std::uint64_t>(
          s.memory.team_scratch_bytes,
          SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_fill, true>::scratch_bytes(
              hash.accumulator, hash.capacity, hash.p.team_size, s.window_words_fill));
    }
    const auto fill = [&](bool positions) {
      SpgemmWindowArgs<Ordinal, Device> win;
      win.window = s.window;
      win.words = s.window_words_fill;
      if (positions) {
        win.starts = s.product_starts;
        win.pos16 = s.positions16;
        win.pos32 = s.positions32;
      }
      if (team_bin != spgemm_bin_narrow && s.positions32.extent(0) > 0) {
        spgemm_launch_narrow<true>(exec, A, B, s.launch[spgemm_bin_narrow], s.perm,
                                   Kokkos::View<Ordinal*, Device>(), c_rs, c_ci, s.product_starts,
                                   s.positions32);
      } else if (team_bin != spgemm_bin_narrow) {
        spgemm_launch_narrow<true>(exec, A, B, s.launch[spgemm_bin_narrow], s.perm,
                                   Kokkos::View<Ordinal*, Device>(), c_rs, c_ci, s.product_starts,
                                   s.positions16);
      }
      for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
        spgemm_launch<spgemm_fill>(exec, A, B, b == spgemm_bin_hash ? hash : s.launch[b], s.perm,
                                   Kokkos::View<Ordinal*, Device>(), c_rs, c_ci, c_v, s.pool_keys,
                                   s.pool_vals, options.sort_columns, win);
      }
      if (positions) spgemm_launch_positions<true>(exec, A, B, s);
    };
    if (!spgemm_store_positions(exec, options, limit, s, A, B, 0, [&]() { fill(true); })) {
      fill(false);
    }
  }
  s.window = Kokkos::View<Ordinal*, Device>();
  s.ready = true;
  exec.fence();
}

/// spgemm_numeric() (operations/spgemm.hpp).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spgemm_numeric_phase(ExecutionSpace const& exec, SpgemmOptions const& options,
                          SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                          CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                          CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  using Device = typename SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  if (!s.ready) {
    throw std::invalid_argument(
        "spmvkit::spgemm_numeric: the handle has no structure; run spgemm_symbolic first");
  }
  if (A.num_rows() != s.m || A.num_cols() != s.k || B.num_rows() != s.k || B.num_cols() != s.n ||
      A.nnz() != s.a_nnz || B.nnz() != s.b_nnz) {
    throw std::invalid_argument(
        "spmvkit::spgemm_numeric: the symbolic phase saw " +
        spgemm_shapes(s.m, s.k, s.k, s.n, s.a_nnz, s.b_nnz) + ", now " +
        spgemm_shapes(A.num_rows(), A.num_cols(), B.num_rows(), B.num_cols(), A.nnz(), B.nnz()));
  }
  if (s.lists) {
    spgemm_launch_lists(exec, A, B, s);
    return;
  }
  if (s.positions) {
    if (s.entry_c_start.extent(0) > 0) {
      spgemm_launch_entries(exec, A, B, s);
    } else {
      spgemm_launch_positions<false>(exec, A, B, s);
    }
    return;
  }
  // Hashing: the narrow and short bins' rows go with the hash bin's teams.
  for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
    spgemm_launch<spgemm_values>(
        exec, A, B,
        b == spgemm_bin_hash ? spgemm_bin_range(s.launch, spgemm_bin_narrow, b, b) : s.launch[b],
        s.perm, Kokkos::View<Ordinal*, Device>(), s.C.row_starts(), s.C.column_indices(),
        s.C.values(), s.pool_keys, s.pool_vals, options.sort_columns);
  }
}

} // namespace spmvkit::detail

#endif
