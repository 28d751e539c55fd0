// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_SYMBOLIC_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_SYMBOLIC_HPP

/// \file
/// The symbolic phase of SpGEMM (spgemm_symbolic(), spgemm/spgemm.hpp) as a
/// sequence of named steps over the state they pass on.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/spgemm/detail/spgemm_state.hpp>
#include <spmvkit/spgemm/spgemm_options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// Checks the options before anything runs (std::invalid_argument naming the option).
inline void spgemm_check_options(SpgemmOptions const& o) {
  if (o.team_size < 0 || o.team_size > 1024) {
    throw std::invalid_argument("spmvkit::spgemm: SpgemmOptions::team_size is " +
                                std::to_string(o.team_size) +
                                "; it must be 0 (each launch's tuned shape) or 1 to 1024 threads");
  }
  const auto symbolic = static_cast<int>(o.symbolic);
  const auto numeric = static_cast<int>(o.numeric);
  if (symbolic < 0 || symbolic > static_cast<int>(SpgemmSymbolic::workspace) || numeric < 0 ||
      numeric > static_cast<int>(SpgemmNumeric::product_lists)) {
    throw std::invalid_argument("spmvkit::spgemm: SpgemmOptions::symbolic (" +
                                std::to_string(symbolic) + ") or numeric (" +
                                std::to_string(numeric) + ") is not one of the enumerators");
  }
}

/// One run of the symbolic phase: run() takes the steps in order, each a
/// member function that leaves what the next ones need in the members.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
class SpgemmSymbolicSteps {
public:
  using State = SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Crs = typename State::crs_type;
  using Device = typename State::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  template <class T>
  using Unmanaged = Kokkos::View<T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  SpgemmSymbolicSteps(ExecutionSpace const& exec, SpgemmOptions const& options, State& s,
                      Crs const& A, Crs const& B)
      : exec_(exec), options_(options), s_(s), A_(A), B_(B) {}

  void run() {
    start();
    row_bounds();
    bin_by_bounds();
    choose_workspace();
    plan_counting();
    count_rows();
    allocate_c();
    plan_numeric();
    if (workspace_fills()) {
      fill_with_workspace();
    } else {
      fill_with_accumulators();
    }
    plan_hashing_values();
    s_.window = Kokkos::View<Ordinal*, Device>();
    s_.ready = true;
    exec_.fence();
  }

private:
  /// Shapes checked, the state reset to the options, the memory limit found.
  void start() {
    shapes_ = spgemm_shapes(A_.num_rows(), A_.num_cols(), B_.num_rows(), B_.num_cols(), A_.nnz(),
                            B_.nnz());
    if (A_.num_cols() != B_.num_rows()) {
      throw std::invalid_argument("spmvkit::spgemm: the inner dimensions differ: " + shapes_ +
                                  "; C = A B needs as many columns of A as rows of B");
    }
    spgemm_check_options(options_);
    s_ = State();
    s_.options = options_;
    s_.m = m_ = A_.num_rows();
    s_.k = A_.num_cols();
    s_.n = n_ = B_.num_cols();
    s_.a_nnz = A_.nnz();
    s_.b_nnz = B_.nnz();
    limit_ = spgemm_memory_limit<ExecutionSpace>(options_.memory_limit);
    s_.memory.limit_bytes = limit_.bytes;
    s_.memory.limit_source = limit_.source;
    mean_b_row_ = s_.k > 0 ? static_cast<double>(s_.b_nnz) / static_cast<double>(s_.k) : 0.0;
  }

  /// A bound on every row's length (and, on the concurrent path, its bitmap
  /// window), and a lower bound on nnz(C) checked against Offset and the limit
  /// before anything of C's size exists.
  void row_bounds() {
    // Bounds and bins in one allocation (bins in the tail).
    bounds_and_bins_ = allocate_view<Kokkos::View<Ordinal*, Device>>(
        exec_, "SpMVKit::spgemm::row_bounds_and_bins",
        m_ + (m_ + std::int64_t(sizeof(Ordinal)) - 1) / std::int64_t(sizeof(Ordinal)));
    bound_ = Unmanaged<Ordinal>(bounds_and_bins_.data(), m_);
    const bool windows = options_.window_words >= 0 &&
                         (!is_host_space_v<ExecutionSpace> || options_.team_size > 0) && m_ > 0 &&
                         s_.k > 0;
    window_cap_ = options_.window_words > 0
                      ? std::min<std::int64_t>(options_.window_words, spgemm_max_window_words)
                      : spgemm_max_window_words;
    const auto spans = Kokkos::make_pair(2 * m_, 2 * m_ + 2 * s_.k);
    if (windows) {
      // Each row of B's column span, then each row of C's window (SpgemmRows::window_row).
      s_.window = allocate_view<Kokkos::View<Ordinal*, Device>>(
          exec_, "SpMVKit::spgemm::row_windows", 2 * m_ + 2 * s_.k);
      Kokkos::parallel_for(
          "SpMVKit::spgemm::column_spans", Range(exec_, 0, s_.k),
          SpgemmColumnSpans<Ordinal, Offset, Device>{B_.row_starts(), B_.column_indices(),
                                                     Kokkos::subview(s_.window, spans), n_});
    }
    std::int64_t sums[3] = {0, 0, 0};
    if (m_ > 0) {
      SpgemmBounds<Ordinal, Offset, Device> f;
      f.a_rs = A_.row_starts();
      f.a_ci = A_.column_indices();
      f.b_rs = B_.row_starts();
      f.bound = bound_;
      f.num_cols = n_;
      if (windows) {
        f.b_span = Kokkos::subview(s_.window, spans);
        f.window = Kokkos::subview(s_.window, Kokkos::make_pair(std::int64_t(0), 2 * m_));
      }
      Kokkos::parallel_reduce(
          "SpMVKit::spgemm::row_bounds", Range(exec_, 0, m_), f,
          Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
              sums, 3));
    }
    s_.multiply_adds = sums[0];
    least_nnz_ = sums[1];
    if (least_nnz_ > static_cast<std::int64_t>(std::numeric_limits<Offset>::max())) {
      spgemm_offset_overflow<Offset>(least_nnz_, true, shapes_);
    }
    check_rows_and_c();
  }

  /// What the phase keeps or holds throughout (bounds, bins, row order, row
  /// starts, windows), and that with the smallest C within the limit.
  void check_rows_and_c() {
    constexpr char const* where = "spmvkit::spgemm";
    rows_bytes_ = checked_add(
        checked_add(checked_bytes(m_, 2 * sizeof(Ordinal) + 1, "row bounds, bins and order", where),
                    checked_bytes(m_ + 1, sizeof(Offset), "C row_starts", where), "work", where),
        checked_bytes(static_cast<std::int64_t>(s_.window.extent(0)), sizeof(Ordinal),
                      "row windows", where),
        "work", where);
    spgemm_check_limit(limit_,
                       checked_add(spgemm_crs_bytes<Scalar, Ordinal, Offset>(m_, least_nnz_),
                                   rows_bytes_, "C", where),
                       "C = A B (at least " + std::to_string(least_nnz_) + " nonzeros)", shapes_);
  }

  /// Rows binned by their bound into accumulators (no short bin here: it only
  /// differs from the hash bin in numeric phases).
  void bin_by_bounds() {
    limits_ = spgemm_scratch_limits<ExecutionSpace>(sizeof(Scalar), sizeof(Ordinal));
    bin_ = Unmanaged<unsigned char>(reinterpret_cast<unsigned char*>(bounds_and_bins_.data() + m_),
                                    m_);
    s_.narrow = spgemm_narrow_parameters(
        exec_,
        static_cast<double>(s_.multiply_adds) / static_cast<double>(std::max<std::int64_t>(1, m_)),
        mean_b_row_, sizeof(Ordinal), limits_.hash_slots, options_.team_size);
    symbolic_max_ = spgemm_bin_rows(exec_, "symbolic", bound_, bin_, perm_, n_, limits_, launch_,
                                    s_.symbolic_bin_count, s_.narrow, s_.narrow.count_slots, 0);
    const std::int64_t busy = m_ - s_.symbolic_bin_count[spgemm_bin_empty];
    mean_products_ =
        busy > 0 ? static_cast<double>(s_.multiply_adds) / static_cast<double>(busy) : 0.0;
  }

  /// The memory a global pool may take beside `used` bytes.
  std::uint64_t pool_budget(std::uint64_t used) const {
    std::uint64_t b = spgemm_default_pool_bytes;
    if (limit_.bytes > 0)
      b = std::min<std::uint64_t>(b, limit_.bytes > used ? limit_.bytes - used : 0);
    return b;
  }

  /// Host backends: every row in the per-thread dense workspace where it fits
  /// (spgemm_use_workspace), else the bins' accumulators as on GPUs. Budgeted
  /// for the marks and the fill pass's buffer beside the smallest C.
  void choose_workspace() {
    if constexpr (is_host_space_v<ExecutionSpace>) {
      threads_ = std::max(1, Kokkos::Experimental::UniqueToken<ExecutionSpace>(exec_).size());
      const bool addressable = n_ < std::numeric_limits<std::int64_t>::max() /
                                            (2 * threads_ * std::int64_t(sizeof(Ordinal))) -
                                        1;
      if (!addressable || options_.team_size > 0 ||
          options_.symbolic == SpgemmSymbolic::accumulators || m_ == 0) {
        return;
      }
      const std::uint64_t bytes = static_cast<std::uint64_t>(threads_ * n_) * sizeof(Ordinal);
      const std::uint64_t both = 2 * bytes + static_cast<std::uint64_t>(threads_) * sizeof(Ordinal);
      const std::uint64_t c_least = spgemm_crs_bytes<Scalar, Ordinal, Offset>(m_, least_nnz_);
      if (bytes > 0 && spgemm_use_workspace<ExecutionSpace>(
                           threads_, n_, s_.multiply_adds, both, pool_budget(rows_bytes_ + c_least),
                           options_.symbolic == SpgemmSymbolic::workspace)) {
        marks_bytes_ = bytes;
        ws_bytes_ = both;
        ws_launch_ = spgemm_launch_parameters(
            exec_, SpgemmAccumulator::workspace, m_,
            static_cast<double>(s_.multiply_adds) / static_cast<double>(m_), mean_b_row_, 0);
      }
    }
  }

  /// The counting launches and their global pool, and the phase's peak memory checked.
  void plan_counting() {
    const bool workspace = marks_bytes_ > 0;
    symbolic_pool_ = workspace ? 0
                               : spgemm_plan_launches(exec_, launch_, symbolic_max_, n_,
                                                      mean_products_, mean_b_row_, sizeof(Ordinal),
                                                      pool_budget(rows_bytes_), options_.team_size);
    const byte_count pool_bytes =
        checked_bytes(symbolic_pool_, sizeof(Ordinal), "global pool", "spmvkit::spgemm");
    s_.memory.symbolic_peak_bytes =
        checked_add(rows_bytes_, pool_bytes + marks_bytes_, "symbolic phase", "spmvkit::spgemm");
    spgemm_check_limit(limit_, s_.memory.symbolic_peak_bytes, "the symbolic phase", shapes_);
    s_.memory.symbolic_workspace_bytes = marks_bytes_;
    s_.memory.team_scratch_bytes =
        workspace ? 0 : spgemm_scratch_of<Scalar, ExecutionSpace, Ordinal, Offset>(launch_, false);
  }

  /// The exact length of every row of C into its row starts: the workspace's
  /// count pass, or the bins' accumulators (the narrow bin a row per thread).
  void count_rows() {
    c_rs_ = allocate_view<typename Crs::row_starts_type>(
        exec_, "SpMVKit::CrsMatrix::row_starts(spgemm)", m_ + 1);
    Kokkos::deep_copy(exec_, c_rs_, Offset(0));
    if (marks_bytes_ > 0) {
      marks_ = allocate_view<Kokkos::View<Ordinal*, Device>>(
          exec_, "SpMVKit::spgemm::workspace_marks",
          static_cast<std::int64_t>(marks_bytes_ / sizeof(Ordinal)));
      Kokkos::deep_copy(exec_, marks_, std::numeric_limits<Ordinal>::max());
      spgemm_launch_workspace<false>(
          exec_, A_, B_, ws_launch_, marks_, Kokkos::View<Ordinal*, Device>(), c_rs_,
          typename Crs::column_indices_type(), options_.sort_columns,
          Kokkos::View<std::int64_t*, Device>(), Kokkos::View<std::uint16_t*, Device>());
      return;
    }
    auto pool = spgemm_allocate<Kokkos::View<Ordinal*, Device>>(
        exec_, "SpMVKit::spgemm::global_pool(symbolic)", symbolic_pool_);
    const int team_bin = spgemm_first_team_bin(launch_, s_.narrow.min_rows);
    if (team_bin != spgemm_bin_narrow) {
      spgemm_launch_narrow<false>(exec_, A_, B_, launch_[spgemm_bin_narrow], perm_, bound_, c_rs_,
                                  typename Crs::column_indices_type(),
                                  Kokkos::View<std::int64_t*, Device>(),
                                  Kokkos::View<std::uint16_t*, Device>());
    }
    SpgemmWindowArgs<Ordinal, Device> win;
    const auto hash = spgemm_bin_range(launch_, team_bin, spgemm_bin_hash, spgemm_bin_hash);
    s_.window_words_count = spgemm_launch_window(exec_, hash, s_.window, perm_, window_cap_);
    win.window = s_.window;
    win.words = s_.window_words_count;
    if (win.words > 0) {
      s_.memory.team_scratch_bytes = std::max<std::uint64_t>(
          s_.memory.team_scratch_bytes,
          SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_count, true>::scratch_bytes(
              hash.accumulator, hash.capacity, hash.p.team_size, win.words));
    }
    for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
      spgemm_launch<spgemm_count>(exec_, A_, B_, b == spgemm_bin_hash ? hash : launch_[b], perm_,
                                  bound_, c_rs_, typename Crs::column_indices_type(),
                                  typename Crs::values_type(), pool,
                                  Kokkos::View<Scalar*, Device>(), options_.sort_columns, win);
    }
  }

  /// The exact nnz(C), checked against Offset and the limit; the lengths kept
  /// as the numeric phase's bounds, scanned into row starts; C's arrays.
  void allocate_c() {
    std::int64_t nnz = 0;
    if (m_ > 0) {
      Kokkos::parallel_reduce("SpMVKit::spgemm::nnz", Range(exec_, 0, m_),
                              SpgemmSum<typename Crs::row_starts_type>{c_rs_}, nnz);
    }
    if (nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max())) {
      spgemm_offset_overflow<Offset>(nnz, false, shapes_);
    }
    if (m_ > 0) {
      // A length is at most n, an Ordinal.
      Kokkos::parallel_for(
          "SpMVKit::spgemm::row_lengths", Range(exec_, 0, m_),
          SpgemmCopy<Unmanaged<Ordinal>, typename Crs::row_starts_type>{bound_, c_rs_});
      Kokkos::parallel_scan("SpMVKit::spgemm::row_starts", Range(exec_, 0, m_ + 1),
                            SpgemmScan<Offset, Device>{c_rs_});
    }
    s_.memory.output_bytes = spgemm_crs_bytes<Scalar, Ordinal, Offset>(m_, nnz);
    spgemm_check_limit(limit_,
                       checked_add(s_.memory.output_bytes, rows_bytes_, "C", "spmvkit::spgemm"),
                       "C = A B (" + std::to_string(nnz) + " nonzeros)", shapes_);
    c_ci_ = allocate_view<typename Crs::column_indices_type>(
        exec_, "SpMVKit::CrsMatrix::column_indices(spgemm)", nnz);
    c_v_ =
        allocate_view<typename Crs::values_type>(exec_, "SpMVKit::CrsMatrix::values(spgemm)", nnz);
    s_.C = Crs(m_, n_, c_rs_, c_ci_, c_v_);
    s_.C.trust_structure(); // row starts from the exact counts, columns from B's checked ones
  }

  /// The numeric plan: rows binned by their exact length, the numeric global
  /// pool, and the memory the handle keeps.
  void plan_numeric() {
    constexpr char const* where = "spmvkit::spgemm";
    s_.perm = perm_;
    perm_ = Kokkos::View<Ordinal*, Device>();
    const std::int64_t numeric_max =
        spgemm_bin_rows(exec_, "numeric", bound_, bin_, s_.perm, n_, limits_, s_.launch,
                        s_.bin_count, s_.narrow, s_.narrow.fill_slots, s_.narrow.short_limit);
    const byte_count kept = checked_add(
        s_.memory.output_bytes, checked_bytes(m_, sizeof(Ordinal), "row order", where), "C", where);
    const std::int64_t numeric_pool = spgemm_plan_launches(
        exec_, s_.launch, numeric_max, n_, mean_products_, mean_b_row_,
        sizeof(Ordinal) + sizeof(Scalar), pool_budget(kept), options_.team_size);
    s_.pool_keys = spgemm_allocate<Kokkos::View<Ordinal*, Device>>(
        exec_, "SpMVKit::spgemm::global_pool_keys(numeric)", numeric_pool);
    s_.pool_vals = spgemm_allocate<Kokkos::View<Scalar*, Device>>(
        exec_, "SpMVKit::spgemm::global_pool_values(numeric)", numeric_pool);
    s_.memory.workspace_bytes = checked_add(
        checked_bytes(static_cast<std::int64_t>(s_.perm.extent(0)), sizeof(Ordinal), "row order",
                      where),
        checked_bytes(numeric_pool, sizeof(Ordinal) + sizeof(Scalar), "global pool", where),
        "workspace", where);
    s_.memory.team_scratch_bytes = std::max<std::uint64_t>(
        s_.memory.team_scratch_bytes,
        spgemm_scratch_of<Scalar, ExecutionSpace, Ordinal, Offset>(s_.launch, true));
    s_.memory.peak_bytes = std::max<std::uint64_t>(
        s_.memory.symbolic_peak_bytes, s_.memory.output_bytes + s_.memory.workspace_bytes);
  }

  /// Whether the workspace writes the columns (and positions) in one pass:
  /// where it counted, if C and the numeric plan left room for its marks and buffer.
  bool workspace_fills() {
    const bool fills =
        marks_bytes_ > 0 &&
        (limit_.bytes == 0 ||
         s_.memory.output_bytes + s_.memory.workspace_bytes + ws_bytes_ <= limit_.bytes);
    if (!fills) marks_ = Kokkos::View<Ordinal*, Device>();
    return fills;
  }

  /// The columns of C (sorted once here, so that no numeric phase sorts) and
  /// the product positions, in one pass of the workspace.
  void fill_with_workspace() {
    // The marks stay as the count pass left them: a mark equal to i there is a column of row i.
    const auto buffer = allocate_view<Kokkos::View<Ordinal*, Device>>(
        exec_, "SpMVKit::spgemm::workspace_buffer", threads_ * (n_ + 1));
    const auto fill = [&]() {
      if (s_.positions32.extent(0) > 0) {
        spgemm_launch_workspace<true>(exec_, A_, B_, ws_launch_, marks_, buffer, c_rs_, c_ci_,
                                      options_.sort_columns, s_.product_starts, s_.positions32);
      } else {
        spgemm_launch_workspace<true>(exec_, A_, B_, ws_launch_, marks_, buffer, c_rs_, c_ci_,
                                      options_.sort_columns, s_.product_starts, s_.positions16);
      }
    };
    if (!spgemm_store_positions(exec_, options_, limit_, s_, A_, B_, ws_bytes_, fill)) fill();
    s_.memory.symbolic_workspace_bytes = ws_bytes_;
    s_.memory.peak_bytes = std::max<std::uint64_t>(
        s_.memory.peak_bytes,
        s_.memory.output_bytes + s_.memory.workspace_bytes + s_.memory.symbolic_workspace_bytes);
  }

  /// The columns of C by the bins' accumulators. The narrow bin fills its rows
  /// and finds their positions in one pass, and so do the windowed rows of the
  /// hash bin; the position kernel finds the other rows' positions after they are filled.
  void fill_with_accumulators() {
    const int team_bin = spgemm_first_team_bin(s_.launch, s_.narrow.min_rows);
    const auto hash = spgemm_bin_range(s_.launch, team_bin, spgemm_bin_hash, spgemm_bin_hash);
    s_.window_words_fill =
        spgemm_launch_window(exec_, hash, s_.window, s_.perm, window_cap_, &s_.window_rows_fill);
    if (s_.window_words_fill > 0) {
      s_.memory.team_scratch_bytes = std::max<std::uint64_t>(
          s_.memory.team_scratch_bytes,
          SpgemmRows<Scalar, Ordinal, Offset, Device, spgemm_fill, true>::scratch_bytes(
              hash.accumulator, hash.capacity, hash.p.team_size, s_.window_words_fill));
    }
    const auto fill = [&](bool positions) {
      SpgemmWindowArgs<Ordinal, Device> win;
      win.window = s_.window;
      win.words = s_.window_words_fill;
      if (positions) {
        win.starts = s_.product_starts;
        win.pos16 = s_.positions16;
        win.pos32 = s_.positions32;
      }
      if (team_bin != spgemm_bin_narrow && s_.positions32.extent(0) > 0) {
        spgemm_launch_narrow<true>(exec_, A_, B_, s_.launch[spgemm_bin_narrow], s_.perm,
                                   Kokkos::View<Ordinal*, Device>(), c_rs_, c_ci_,
                                   s_.product_starts, s_.positions32);
      } else if (team_bin != spgemm_bin_narrow) {
        spgemm_launch_narrow<true>(exec_, A_, B_, s_.launch[spgemm_bin_narrow], s_.perm,
                                   Kokkos::View<Ordinal*, Device>(), c_rs_, c_ci_,
                                   s_.product_starts, s_.positions16);
      }
      for (int b = spgemm_bin_hash; b < spgemm_num_bins; ++b) {
        spgemm_launch<spgemm_fill>(exec_, A_, B_, b == spgemm_bin_hash ? hash : s_.launch[b],
                                   s_.perm, Kokkos::View<Ordinal*, Device>(), c_rs_, c_ci_, c_v_,
                                   s_.pool_keys, s_.pool_vals, options_.sort_columns, win);
      }
      if (positions) spgemm_launch_positions<true>(exec_, A_, B_, s_);
    };
    if (!spgemm_store_positions(exec_, options_, limit_, s_, A_, B_, 0, [&]() { fill(true); })) {
      fill(false);
    }
  }

  /// Hashing numeric phases: the patterns' fingerprint, which each numeric
  /// phase compares (a changed pattern makes C NaN, as the stored positions
  /// do); on GPUs the narrow and short bins a row per thread (SpgemmSearchRows).
  void plan_hashing_values() {
    if (s_.positions || s_.lists) return;
    s_.fingerprint_store = allocate_view<Kokkos::View<std::uint64_t*, Device>>(
        exec_, "SpMVKit::spgemm::pattern_fingerprint", 1);
    s_.fingerprint_now = Unmanaged<std::uint64_t>(s_.fingerprint_store.data(), 1);
    spgemm_take_fingerprint(exec_, s_, A_, B_);
    s_.search_rows = spgemm_search_rows_apply(s_, options_.sort_columns);
    s_.memory.workspace_bytes += sizeof(std::uint64_t);
    s_.memory.peak_bytes = std::max<std::uint64_t>(
        s_.memory.peak_bytes, s_.memory.output_bytes + s_.memory.workspace_bytes);
  }

  ExecutionSpace const& exec_;
  SpgemmOptions const& options_;
  State& s_;
  // Copies (a few Views): A or B may be the handle's own C, which start() resets.
  Crs A_;
  Crs B_;
  std::string shapes_;
  SpgemmLimit limit_;
  std::int64_t m_ = 0, n_ = 0;
  double mean_b_row_ = 0.0, mean_products_ = 0.0;
  /// Row bounds (the numeric phase's exact lengths later) and bins, one allocation.
  Kokkos::View<Ordinal*, Device> bounds_and_bins_;
  Unmanaged<Ordinal> bound_;
  Unmanaged<unsigned char> bin_;
  std::int64_t window_cap_ = 0;
  /// A lower bound on nnz(C), and the bytes of everything held besides C and pools.
  std::int64_t least_nnz_ = 0;
  byte_count rows_bytes_ = 0;
  SpgemmScratchLimits limits_;
  /// The counting launches' row order and launches.
  Kokkos::View<Ordinal*, Device> perm_;
  SpgemmBinLaunch launch_[spgemm_num_bins];
  std::int64_t symbolic_max_ = 0, symbolic_pool_ = 0;
  /// Host workspace: its marks, threads, bytes (marks; marks, buffer and
  /// cursors) and launch; marks_bytes_ == 0 where it is not taken.
  Kokkos::View<Ordinal*, Device> marks_;
  std::int64_t threads_ = 1;
  std::uint64_t marks_bytes_ = 0, ws_bytes_ = 0;
  LaunchParameters ws_launch_;
  typename Crs::row_starts_type c_rs_;
  typename Crs::column_indices_type c_ci_;
  typename Crs::values_type c_v_;
};

/// spgemm_symbolic() (spgemm/spgemm.hpp documents the steps).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
void spgemm_symbolic_phase(ExecutionSpace const& exec, SpgemmOptions const& options,
                           SpgemmState<Scalar, ExecutionSpace, Ordinal, Offset>& s,
                           CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                           CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& B) {
  SpgemmSymbolicSteps<Scalar, ExecutionSpace, Ordinal, Offset>(exec, options, s, A, B).run();
}

} // namespace spmvkit::detail

#endif
