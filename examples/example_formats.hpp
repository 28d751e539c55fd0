// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_EXAMPLES_EXAMPLE_FORMATS_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_FORMATS_HPP

// Choosing formats in the examples (not part of the library). Nothing here
// names a format: the candidates come from walking spmvkit::all_formats (the
// format list and the automatic format "auto"/"auto_tune" of select/), each
// format F offering its default options and F::variants<Exec>(), named by
// F::name(options). The examples that compare with Kokkos Kernels add its two
// SpMVs (spmvkit::name(KokkosKernelsAlgorithm)).
//
// --formats takes a comma-separated list in the grammar every SpMVKit CLI and
// AutoOptions::candidates share (spmvkit/select/variant_names.hpp: a name, a
// family, a prefix ending in '*', all), plus kk, kk-native, kk-default for the
// Kokkos Kernels SpMVs.
#include "example_cli.hpp"

#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/select/variant_names.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit::examples {

/// Kokkos Kernels' SpMVs, named as the library names them.
inline std::string const kk_native_name = name(KokkosKernelsAlgorithm::native);
inline std::string const kk_default_name = name(KokkosKernelsAlgorithm::vendor_default);

/// One runnable choice: a format of the list with options, or a Kokkos Kernels SpMV.
struct FormatCandidate {
  std::string name;
  std::string family;
  bool is_variant = false; ///< one of F::variants (else the default options)
};

/// Every candidate on ExecSpace: per format of the list its default options
/// (unless a variant has the same name) and its variants, in list order; then
/// Kokkos Kernels' two SpMVs when `kokkos_kernels`.
template <class ExecSpace>
std::vector<FormatCandidate> format_candidates(bool kokkos_kernels) {
  std::vector<FormatCandidate> out;
  for_each_type(all_formats{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    const auto variants = F::template variants<ExecSpace>();
    const std::string default_name = F::name(typename F::options_type{});
    const bool default_is_variant =
        std::any_of(variants.begin(), variants.end(),
                    [&](auto const& o) { return F::name(o) == default_name; });
    if (!default_is_variant) out.push_back({default_name, F::family, false});
    for (auto const& o : variants) out.push_back({F::name(o), F::family, true});
  });
  if (kokkos_kernels) {
    out.push_back({kk_native_name, "kokkos_kernels", true});
    out.push_back({kk_default_name, "kokkos_kernels", true});
  }
  return out;
}

/// One default per format family of the list (F::name of default options),
/// plus "kk" when `kokkos_kernels`: what most examples run unless told.
inline std::string one_per_family(bool kokkos_kernels) {
  std::vector<std::string> names;
  for_each_type(all_formats{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    names.push_back(F::name(typename F::options_type{}));
  });
  if (kokkos_kernels) names.emplace_back("kk");
  return join(names, ",");
}

/// The candidates a --formats list selects, in candidate order (the format
/// list's order, Kokkos Kernels last), each once, by the grammar every SpMVKit
/// CLI shares (spmvkit/select/variant_names.hpp), plus kk, kk-native and
/// kk-default for Kokkos Kernels' SpMVs. Throws UsageError naming an item that
/// selects nothing.
template <class ExecSpace>
std::vector<std::string> select_formats(std::string const& list, bool kokkos_kernels) {
  const auto candidates = format_candidates<ExecSpace>(kokkos_kernels);
  std::vector<VariantName> names;
  for (auto const& c : candidates) names.push_back({c.name, c.family, c.is_variant});
  std::vector<std::string> items;
  for (auto item : split_variant_list(list)) {
    if (kokkos_kernels && item == "kk") item = "kokkos_kernels";
    if (kokkos_kernels && item == "kk-native") item = kk_native_name;
    if (kokkos_kernels && item == "kk-default") item = kk_default_name;
    items.push_back(item);
  }
  std::vector<bool> chosen;
  try {
    chosen = select_variants(items, names, "--formats");
  } catch (std::invalid_argument const& e) {
    throw UsageError(e.what());
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (chosen[i]) out.push_back(candidates[i].name);
  return out;
}

/// The --formats option: `target` holds the list; `selected` receives the
/// chosen names when the option is parsed (and from the default, by
/// resolve_formats, when it is not).
template <class ExecSpace>
Option formats_option(std::string& target, bool kokkos_kernels) {
  std::vector<std::string> names;
  for (auto const& c : format_candidates<ExecSpace>(kokkos_kernels)) names.push_back(c.name);
  const std::string known = join(names, ", ");
  return {"formats", "LIST",
          "comma-separated formats: a name (" + known +
              "), a family (every variant), a prefix ending in * (sell_c32*: C = 32, every "
              "sigma), all" +
              (kokkos_kernels ? std::string(", kk (both Kokkos Kernels SpMVs), kk-native, "
                                            "kk-default")
                              : std::string()),
          [&target] { return target; },
          [&target, kokkos_kernels](std::string const& text) {
            select_formats<ExecSpace>(text, kokkos_kernels); // throws on a bad item
            target = text;
          }};
}

/// Calls fn(type_tag<F>{}, options, name) for every selected candidate of the
/// format list, in list order.
template <class ExecSpace, class Fn>
void for_each_selected_format(std::vector<std::string> const& selected, Fn&& fn) {
  auto is_selected = [&](std::string const& name) {
    return std::find(selected.begin(), selected.end(), name) != selected.end();
  };
  for_each_type(all_formats{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    std::vector<typename F::options_type> options{typename F::options_type{}};
    for (auto const& o : F::template variants<ExecSpace>()) options.push_back(o);
    std::vector<std::string> done;
    for (auto const& o : options) {
      const std::string name = F::name(o);
      if (!is_selected(name) || std::find(done.begin(), done.end(), name) != done.end()) continue;
      done.push_back(name);
      fn(tag, o, name);
    }
  });
}

/// Whether format F with options o can hold A; if not, prints one line
/// "note: <name> skipped: <reason>" and returns false.
template <class F, class ExecSpace, class Crs>
bool can_hold(ExecSpace const& exec, Crs const& A, typename F::options_type const& o,
              std::string const& name, std::ostream& os = std::cout) {
  const std::string why = F::obstacle(exec, A, o);
  if (why.empty()) return true;
  os << "note: " << name << " skipped: " << why << "\n";
  return false;
}

/// The name to show for matrix M built as `name`: the options it was built
/// with where they resolve a default (sell -> "sell (sell_c4_s1)"), and for
/// the automatic format what it chose (auto -> "auto (sell_offset16_c32_s1)").
template <class F, class Matrix>
std::string shown_name(std::string const& name, Matrix const& M) {
  if constexpr (std::is_same_v<F, AutoFormat>) {
    return name + " (" + M.selection().format + ")";
  }
  const std::string built = F::name(F::options(M));
  return built == name || built == F::name(typename F::options_type{}) ? name
                                                                       : name + " (" + built + ")";
}

/// For the automatic format, prints what it chose and why (AutoMatrix::
/// describe()), indented under a heading naming `name`; nothing for the others.
template <class F, class Matrix>
void explain_choice(std::string const& name, Matrix const& M, std::ostream& os = std::cout) {
  if constexpr (std::is_same_v<F, AutoFormat>) {
    os << name << ": automatic choice\n";
    std::istringstream lines(M.describe());
    for (std::string line; std::getline(lines, line);) os << "  " << line << "\n";
  } else {
    (void)name;
    (void)M;
    (void)os;
  }
}

} // namespace spmvkit::examples

#endif
