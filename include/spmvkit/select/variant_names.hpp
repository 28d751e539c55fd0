// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SELECT_VARIANT_NAMES_HPP
#define SPMVKIT_SELECT_VARIANT_NAMES_HPP

/// \file
/// The one grammar for naming format variants, shared by AutoOptions::candidates,
/// the examples' `--formats` and `spmvkit_perf --formats` (select_variants()).
///
/// A list is items separated by commas; each item selects, among the candidates
/// its user offers:
///   - `all` or `*`: every variant;
///   - a candidate's name: that candidate only (F::name(options): "crs" is CRS's
///     automatic kernel, "sell_c32_s1", "sell_offset16_c8_s1");
///   - a family (F::family) that is no candidate's name: all of the family's
///     variants ("sell_offset16" where no variant has default options);
///   - leading parts of names, up to an underscore: every variant whose name
///     starts with the item and `_` ("sell_c32": SELL with C = 32 and every σ;
///     "csrk3": every three-level CSR-k shape);
///   - a prefix ending in `*`: every variant whose name starts with it
///     ("sell_c3*"; "sell_*" also selects sell_offset16's variants).
/// The first rule that matches decides: "sell" is the name of SELL with default
/// options where that is a candidate, else the SELL family.
/// Names of the former Sell16 format ("sell16", "sell16_c32_s1", "sell16*") are
/// read as their sell_offset16 names until 0.4.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

/// One candidate a list of names can select.
struct VariantName {
  /// F::name(options), or a name of the caller's own ("kk_native").
  std::string name;
  /// F::family; the caller's own group otherwise.
  std::string family;
  /// One of the format's variants, which `all`, families and prefixes select; false
  /// for an extra candidate (a format with its default options beside its
  /// variants) that only its own name selects.
  bool variant = true;
};

/// `item` with a former name replaced by its current one ("sell16_c32_s1" ->
/// "sell_offset16_c32_s1"); any other item unchanged.
inline std::string current_variant_name(std::string const& item) {
  const std::string former = "sell16";
  if (item.compare(0, former.size(), former) != 0) return item;
  const std::string rest = item.substr(former.size());
  if (!rest.empty() && rest[0] != '_' && rest[0] != '*') return item;
  return "sell_offset16" + rest;
}

/// Which of `candidates` one item selects (same order and size as `candidates`);
/// all false when it selects none.
inline std::vector<bool> variants_selected_by(std::string const& raw_item,
                                              std::vector<VariantName> const& candidates) {
  const std::string item = current_variant_name(raw_item);
  std::vector<bool> out(candidates.size(), false);
  if (item.empty()) return out;
  const bool all = item == "all" || item == "*";
  const bool prefix = !all && item.back() == '*';
  // "all" and "*" are the empty prefix: every variant.
  const std::string stem = all ? std::string() : prefix ? item.substr(0, item.size() - 1) : item;
  bool is_a_name = false;
  bool is_a_family = false;
  for (auto const& c : candidates) {
    is_a_name = is_a_name || c.name == item;
    is_a_family = is_a_family || (c.variant && c.family == item);
  }
  const std::string leading = item + "_";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto const& c = candidates[i];
    if (all || prefix) {
      out[i] = c.variant && c.name.compare(0, stem.size(), stem) == 0;
    } else if (is_a_name) {
      out[i] = c.name == item;
    } else if (is_a_family) {
      out[i] = c.variant && c.family == item;
    } else {
      out[i] = c.variant && c.name.compare(0, leading.size(), leading) == 0;
    }
  }
  return out;
}

/// The candidates a list of items selects (flags in candidate order). Throws
/// std::invalid_argument, starting with `what` (such as "--formats" or
/// "spmvkit::AutoOptions::candidates"), for an item that selects nothing, naming
/// it and the known names, and for a list without items.
inline std::vector<bool> select_variants(std::vector<std::string> const& items,
                                         std::vector<VariantName> const& candidates,
                                         std::string const& what) {
  std::vector<bool> chosen(candidates.size(), false);
  bool any_item = false;
  for (auto const& item : items) {
    if (item.empty()) continue;
    any_item = true;
    const auto picked = variants_selected_by(item, candidates);
    bool matched = false;
    for (std::size_t i = 0; i < picked.size(); ++i) {
      if (picked[i]) chosen[i] = matched = true;
    }
    if (!matched) {
      std::string known;
      for (auto const& c : candidates) known += (known.empty() ? "" : ", ") + c.name;
      throw std::invalid_argument(what + ": '" + item + "' selects nothing here (all, a name, " +
                                  "a family or a prefix ending in * of: " + known + ")");
    }
  }
  if (!any_item) throw std::invalid_argument(what + ": the list names nothing");
  return chosen;
}

/// Splits a comma-separated list into its items (empty items dropped).
inline std::vector<std::string> split_variant_list(std::string const& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::size_t end = comma == std::string::npos ? list.size() : comma;
    if (end > start) out.push_back(list.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

} // namespace spmvkit

#endif
