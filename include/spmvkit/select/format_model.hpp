// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SELECT_FORMAT_MODEL_HPP
#define SPMVKIT_SELECT_FORMAT_MODEL_HPP

/// \file
/// The format model: predicted seconds of one SpMV for every format variant
/// of format_list that has a cost estimate (select/format_costs.hpp), ranked.
///
///     seconds = launch + seconds_per_byte * bytes + seconds_per_critical_entry * critical_entries
///               + seconds_per_byte_critical * bytes * critical_entries
///               + seconds_per_row * rows + seconds_per_row_spread * row_spread
///
/// with constants per variant (named by F::name(options); the fourth fitted
/// for host ELL and ELL-R only, the last two for host tables) and backend
/// family (host threads, GPU), fitted by measurement: `scripts/fit_format_model.py`
/// reads a `spmvkit_perf` JSON run (every spmv row carries its variant's
/// `model_bytes`, `model_critical`, `model_rows` and `model_row_spread`
/// counters), fits the constants by
/// non-negative least squares on relative error, and writes
/// select/detail/fitted_costs.hpp. docs/format_selection.md tells how to refit
/// on another machine. A variant without constants for the backend is left to
/// tune mode.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/host_cpu.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/select/detail/fitted_costs.hpp>
#include <spmvkit/select/format_costs.hpp>
#include <spmvkit/select/matrix_features.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace spmvkit {

/// The model's prediction for one format variant.
struct FormatPrediction {
  std::string format;            ///< F::name(options): the variant
  std::string family;            ///< F::family
  SpmvEstimate estimate;         ///< its cost terms
  double seconds = 0;            ///< predicted seconds of one SpMV
  std::size_t format_index = 0;  ///< position of F in format_list
  std::size_t variant_index = 0; ///< position of the options in model_variants<F, ExecutionSpace>()
};

namespace detail {

/// The host table fitted at the thread count nearest to `threads` in ratio (the larger over the
/// smaller), nullptr when `tables` is empty. Among tables as near: the one fitted on `vendor` (not
/// HostCpuVendor::any), then the larger count, then the earlier listed (at one count the generated
/// list has any, intel, amd: a host of unknown vendor takes the Intel table, as before vendors).
/// `tables` is in increasing thread count, ended by {0, nullptr}.
inline KernelCost const* host_cost_table(int threads, HostCostTable const* tables,
                                         HostCpuVendor vendor = HostCpuVendor::any) {
  HostCostTable const* best = nullptr;
  double best_distance = 0;
  bool best_matches = false;
  const double t = threads < 1 ? 1.0 : static_cast<double>(threads);
  for (; tables->costs != nullptr; ++tables) {
    const double table_threads = static_cast<double>(tables->threads);
    const double d = table_threads > t ? table_threads / t : t / table_threads;
    const bool matches = vendor != HostCpuVendor::any && tables->vendor == vendor;
    const bool better = best == nullptr || d < best_distance ||
                        (d == best_distance &&
                         (matches != best_matches ? matches : tables->threads > best->threads));
    if (better) {
      best = tables;
      best_distance = d;
      best_matches = matches;
    }
  }
  return best == nullptr ? nullptr : best->costs;
}

/// The fitted constants of variant on the backend family of ExecutionSpace (the
/// host table nearest to its concurrency, of this host's CPU vendor where two are as near, or the
/// GPU table), nullptr if it has none. The tables end with a null name.
template <class ExecutionSpace>
KernelCost const* find_cost(std::string const& variant, std::vector<KernelCost> const& costs) {
  if (!costs.empty()) {
    for (auto const& c : costs) {
      if (c.variant != nullptr && variant == c.variant) return &c;
    }
    return nullptr;
  }
  KernelCost const* table =
      is_host_space_v<ExecutionSpace>
          ? host_cost_table(ExecutionSpace().concurrency(), fitted_host_tables, host_cpu_vendor())
          : fitted_gpu_costs;
  if (table == nullptr) return nullptr;
  for (; table->variant != nullptr; ++table) {
    if (variant == table->variant) return table;
  }
  return nullptr;
}

} // namespace detail

/// The options of F that the model and tune mode consider on ExecutionSpace: its
/// variants (F::variants<ExecutionSpace>()), after its default options when those are
/// not among them.
template <class F, class ExecutionSpace>
std::vector<typename F::options_type> model_variants() {
  auto v = F::template variants<ExecutionSpace>();
  const std::string default_name = F::name(typename F::options_type{});
  bool has_default = false;
  for (auto const& o : v) has_default = has_default || F::name(o) == default_name;
  if (!has_default) v.insert(v.begin(), typename F::options_type{});
  return v;
}

/// Seconds of one SpMV predicted from an estimate and a variant's constants.
inline double predict_seconds(KernelCost const& c, SpmvEstimate const& e) {
  return c.launch_seconds + c.seconds_per_byte * e.bytes +
         c.seconds_per_critical_entry * e.critical_entries +
         c.seconds_per_byte_critical * e.bytes * e.critical_entries + c.seconds_per_row * e.rows +
         c.seconds_per_row_spread * e.row_spread;
}

/// Every variant of format_list that the model can predict on ExecutionSpace for a
/// matrix with these features and types, fastest first.
///
/// A variant is predicted when its format has a cost estimate for its options
/// and there are constants for it: in `costs` when given, else in the
/// backend's fitted table. Costs nothing on the device.
template <class ExecutionSpace>
std::vector<FormatPrediction> predict_formats(MatrixFeatures const& f, TypeSizes sizes,
                                              std::vector<KernelCost> const& costs = {}) {
  std::vector<FormatPrediction> out;
  std::size_t format_index = 0;
  for_each_type(format_list{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    if constexpr (format_cost<F>::available) {
      auto const variants = model_variants<F, ExecutionSpace>();
      for (std::size_t i = 0; i < variants.size(); ++i) {
        auto const e = estimate_cost<F, ExecutionSpace>(f, variants[i], sizes);
        if (!e) continue;
        const std::string name = F::name(variants[i]);
        KernelCost const* c = detail::find_cost<ExecutionSpace>(name, costs);
        if (c == nullptr) continue;
        out.push_back({name, F::family, *e, predict_seconds(*c, *e), format_index, i});
      }
    }
    ++format_index;
  });
  std::stable_sort(out.begin(), out.end(),
                   [](auto const& a, auto const& b) { return a.seconds < b.seconds; });
  return out;
}

} // namespace spmvkit

#endif
