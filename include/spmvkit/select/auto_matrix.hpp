// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SELECT_AUTO_MATRIX_HPP
#define SPMVKIT_SELECT_AUTO_MATRIX_HPP

/// \file
/// The automatic format: make_auto_matrix(exec, crs) picks the fastest format
/// variant of format_list for a matrix and returns an AutoMatrix, which
/// spmv(), cg() and the benchmarks take like any other matrix (AutoFormat
/// models the format concept). Longer than most public headers: the
/// selection, its report and the format tag belong together.
///
/// - Model mode (default): compute_features() (three cheap passes on the
///   device), the format model's ranking (select/format_model.hpp), then the
///   conversion of the first variant whose format accepts the matrix.
/// - Tune mode: the model's first AutoOptions::tune_candidates variants are
///   converted and timed (fenced, median of tune_repetitions SpMVs after a
///   warm-up, x all ones); the fastest is kept. The report says what tuning
///   cost and after how many SpMVs it pays for itself.
///
/// The chosen matrix lives in a std::variant over format_list's matrix types;
/// each product dispatches through std::visit on the host (a jump through a
/// small table, nanoseconds against a kernel launch's microseconds).
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/select/format_model.hpp>
#include <spmvkit/select/matrix_features.hpp>
#include <spmvkit/select/variant_names.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace spmvkit {

struct AutoFormat;

/// How make_auto_matrix() chooses.
enum class SelectMode {
  model, ///< the format model's first choice (no SpMV is run)
  tune   ///< time the model's first few choices on the matrix, keep the fastest
};

/// Options of the automatic format (make_auto_matrix()).
struct AutoOptions {
  /// Model (default) or tune.
  SelectMode mode = SelectMode::model;
  /// Tune mode: how many of the model's best variants are timed (>= 1).
  int tune_candidates = 3;
  /// Tune mode: timed SpMVs per candidate, after one warm-up (>= 1); the median counts.
  int tune_repetitions = 5;
  /// Check the CRS structure (check_structure()) before anything else.
  bool check_structure = true;
  /// Variants to choose among, named as every CLI of SpMVKit names them
  /// (select/variant_names.hpp: "sell_c32_s1", a family such as "sell_offset16",
  /// "sell_c32*", "all"; "crs" and "sell" name the variants with default
  /// options); an item that selects nothing throws std::invalid_argument; empty:
  /// every variant.
  /// Variants the model cannot predict are considered after the predicted ones,
  /// in list order (tune mode times them like the others).
  std::vector<std::string> candidates;
  /// Model constants to use instead of the backend's fitted table
  /// (select/detail/fitted_costs.hpp), for constants refitted at run time;
  /// empty: the fitted table.
  std::vector<KernelCost> costs;
  /// Vectors per product the matrix is chosen for (>= 1): block Krylov methods and several
  /// right-hand sides apply it to rank-2 Views of this many columns. With more than one on a
  /// host backend, the choice is among the CRS kernels, unless the variants considered (by
  /// `candidates` or `costs`) include none: on hosts CRS leads the other formats on
  /// multi-vector products (docs/notes/2026-12-04-host-multivector-format-choice.md).
  /// Predictions and tune mode's timings are of one vector. GPUs choose as for one vector.
  int columns = 1;
};

/// What make_auto_matrix() chose and why: AutoMatrix::selection(), printed by describe().
struct FormatSelection {
  /// One variant converted (and in tune mode timed) during the choice.
  struct Trial {
    std::string format;                     ///< the variant, F::name(options)
    double predicted_seconds = 0;           ///< the model's prediction (NaN: not predicted)
    double measured_seconds = std::nan(""); ///< tune mode: median SpMV time; else NaN
    std::string note;                       ///< why it was not kept, if it was refused
  };
  std::string format;                        ///< the chosen variant, F::name(options)
  std::string family;                        ///< its F::family
  SelectMode mode = SelectMode::model;       ///< how it was chosen
  std::string reason;                        ///< one sentence: why this variant
  MatrixFeatures features;                   ///< what the model saw
  std::vector<FormatPrediction> predictions; ///< every predicted variant, fastest first
  std::vector<Trial> trials;                 ///< the variants converted, in order
  SpmvBytes bytes;                           ///< byte model of the chosen matrix
  double check_seconds = 0;                  ///< the CRS structure check (check_structure)
  double conversion_seconds = 0;             ///< conversions, the kept one and any refused
  double tuning_seconds = 0;                 ///< tune mode: conversions and timed SpMVs
  /// Tune mode: tuning_seconds / (time of the model's first choice - time of
  /// the chosen one), the SpMVs after which tuning has paid for itself;
  /// infinity when the model's first choice won (tuning never pays).
  double payback_spmvs = std::numeric_limits<double>::infinity();
};

/// A readable report of a selection: the chosen variant, why, the features it
/// was chosen from, the expected bytes per SpMV and what the choice cost.
std::string describe(FormatSelection const& s);

/// One alternative of AutoMatrix's variant: a matrix of format F and the
/// options its products run with.
template <class F, class Matrix>
struct AutoEntry {
  using format_type = F;            ///< the format tag
  Matrix matrix;                    ///< the converted matrix
  typename F::options_type options; ///< the options its spmv runs with
};

namespace detail {
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class List>
struct auto_variant;
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class... Fs>
struct auto_variant<Scalar, ExecutionSpace, Ordinal, Offset, type_list<Fs...>> {
  using type =
      std::variant<AutoEntry<Fs, matrix_of_t<Fs, Scalar, ExecutionSpace, Ordinal, Offset>>...>;
};
} // namespace detail

/// A matrix stored in the format make_auto_matrix() chose (see the file comment).
///
/// A handle like every SpMVKit matrix: copies share the stored matrix and the
/// selection report.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class AutoMatrix {
public:
  /// The format tag, AutoFormat.
  using format_type = AutoFormat;
  /// The CRS type it converts from and to.
  using crs_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The type of the matrix entries.
  using value_type = Scalar;
  /// The row and column index type.
  using ordinal_type = Ordinal;
  /// The entry index type.
  using offset_type = Offset;
  /// The execution space products run on.
  using execution_space = ExecutionSpace;
  /// The memory space of the stored arrays.
  using memory_space = typename ExecutionSpace::memory_space;
  /// `Kokkos::Device<execution_space, memory_space>`.
  using device_type = Kokkos::Device<execution_space, memory_space>;
  /// A std::variant of AutoEntry over format_list's matrix types.
  using variant_type =
      typename detail::auto_variant<Scalar, ExecutionSpace, Ordinal, Offset, format_list>::type;

  /// An empty handle (0 x 0, a CRS without entries is not even stored).
  AutoMatrix() = default;
  /// Wraps a stored variant and its report (make_auto_matrix() builds these).
  AutoMatrix(variant_type stored, FormatSelection selection, AutoOptions options,
             std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz)
      : stored_(std::make_shared<variant_type>(std::move(stored))),
        selection_(std::make_shared<FormatSelection>(std::move(selection))), options_(options),
        num_rows_(num_rows), num_cols_(num_cols), nnz_(nnz) {}

  /// Number of rows.
  std::int64_t num_rows() const { return num_rows_; }
  /// Number of columns.
  std::int64_t num_cols() const { return num_cols_; }
  /// Number of stored entries of the source CRS (padding not counted).
  std::int64_t nnz() const { return nnz_; }
  /// The options it was built with.
  AutoOptions const& options() const { return options_; }
  /// What was chosen and why.
  FormatSelection const& selection() const { return *selection_; }
  /// describe(selection()).
  std::string describe() const { return spmvkit::describe(*selection_); }
  /// Frees the transposed twin the chosen matrix keeps for transposed
  /// products (its forget_transpose()); nothing for an empty handle.
  void forget_transpose() const {
    if (stored_) visit([](auto const& B, auto const&) { B.forget_transpose(); });
  }
  /// The same format and options for B, a CRS matrix of this shape and nnz whose values (or
  /// pattern) changed, such as a multigrid level after a refresh: B's conversion alone,
  /// without the features or the model. The report is kept, its conversion_seconds
  /// replaced. Throws std::invalid_argument for another shape or nnz, std::logic_error for
  /// an empty handle, and what the conversion throws. Synchronous.
  AutoMatrix reconverted(ExecutionSpace const& exec, crs_type const& B) const {
    check_same_shape("reconverted", B);
    Kokkos::Timer timer;
    variant_type v = std::visit(
        [&](auto const& e) -> variant_type {
          using E = std::decay_t<decltype(e)>;
          return E{E::format_type::from_crs(exec, B, e.options), e.options};
        },
        *stored_);
    exec.fence();
    FormatSelection s = *selection_;
    s.conversion_seconds = timer.seconds();
    return AutoMatrix(std::move(v), std::move(s), options_, num_rows_, num_cols_, nnz_);
  }
  /// B's values in the stored format, B a CRS matrix with the pattern this handle was made from
  /// (a multigrid level after a refresh, a time step). A format with F::refill (SELL,
  /// SellOffset16, ELL, ELL-R) writes them into its arrays: no allocation, no layout pass, and
  /// B's pattern is checked first (std::invalid_argument naming the first row that differs,
  /// nothing changed). The others convert B anew (CRS shares B's arrays), whatever its pattern.
  /// Either way every copy of this handle sees the new values, and the report's
  /// conversion_seconds becomes this call's time; no product on the handle may run meanwhile
  /// (from another host thread). Throws std::invalid_argument for another shape or nnz,
  /// std::logic_error for an empty handle. Synchronous.
  void refill(ExecutionSpace const& exec, crs_type const& B) const {
    check_same_shape("refill", B);
    Kokkos::Timer timer;
    std::visit(
        [&](auto& e) {
          using F = typename std::decay_t<decltype(e)>::format_type;
          if constexpr (detail::has_refill<F, ExecutionSpace, decltype(e.matrix), crs_type>::value)
            F::refill(exec, e.matrix, B);
          else
            e.matrix = F::from_crs(exec, B, e.options);
        },
        *stored_);
    exec.fence();
    selection_->conversion_seconds = timer.seconds();
  }
  /// Calls f(matrix, options) with the chosen matrix and its options, returns its result.
  template <class Visitor>
  decltype(auto) visit(Visitor&& f) const {
    if (!stored_) throw std::logic_error("spmvkit::AutoMatrix: empty handle");
    return std::visit([&](auto const& e) -> decltype(auto) { return f(e.matrix, e.options); },
                      *stored_);
  }

private:
  // reconverted() and refill(): a non-empty handle, B of this shape and nnz.
  void check_same_shape(char const* what, crs_type const& B) const {
    const std::string where = std::string("spmvkit::AutoMatrix::") + what;
    if (!stored_) throw std::logic_error(where + ": empty handle");
    if (B.num_rows() != num_rows_ || B.num_cols() != num_cols_ || B.nnz() != nnz_) {
      throw std::invalid_argument(where + ": the matrix is " + std::to_string(B.num_rows()) +
                                  " x " + std::to_string(B.num_cols()) + " with " +
                                  std::to_string(B.nnz()) + " entries, this one " +
                                  std::to_string(num_rows_) + " x " + std::to_string(num_cols_) +
                                  " with " + std::to_string(nnz_));
    }
  }

  // Shared and mutable so that refill() reaches every copy of the handle.
  std::shared_ptr<variant_type> stored_;
  std::shared_ptr<FormatSelection> selection_;
  AutoOptions options_;
  std::int64_t num_rows_ = 0;
  std::int64_t num_cols_ = 0;
  std::int64_t nnz_ = 0;
};

namespace detail {

/// Calls f(type_tag<F>) for the index-th format of format_list.
template <class Fn>
void with_format_at(std::size_t index, Fn&& f) {
  std::size_t i = 0;
  for_each_type(format_list{}, [&](auto tag) {
    if (i++ == index) f(tag);
  });
}

/// Every variant of format_list on ExecutionSpace (model_variants), unpredicted (NaN seconds).
template <class ExecutionSpace>
std::vector<FormatPrediction> all_variants() {
  std::vector<FormatPrediction> out;
  std::size_t format_index = 0;
  for_each_type(format_list{}, [&](auto tag) {
    using F = typename decltype(tag)::type;
    auto const variants = model_variants<F, ExecutionSpace>();
    for (std::size_t i = 0; i < variants.size(); ++i) {
      out.push_back(
          {F::name(variants[i]), F::family, SpmvEstimate{}, std::nan(""), format_index, i});
    }
    ++format_index;
  });
  return out;
}

/// Median seconds of `repetitions` fenced SpMVs of M after one warm-up.
template <class ExecutionSpace, class M, class X, class Y>
double time_spmv(ExecutionSpace const& exec, M const& A,
                 typename format_of_t<M>::options_type const& o, X const& x, Y const& y,
                 int repetitions) {
  using F = format_of_t<M>;
  using S = typename M::value_type;
  exec.fence();
  F::apply(exec, S(1), A, x, S(0), y, o);
  exec.fence();
  std::vector<double> t;
  for (int r = 0; r < repetitions; ++r) {
    Kokkos::Timer timer;
    F::apply(exec, S(1), A, x, S(0), y, o);
    exec.fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

inline std::string seconds_text(double s) {
  std::ostringstream os;
  os.precision(3);
  if (!(s == s)) return "-";
  if (s < 1e-3) {
    os << s * 1e6 << " us";
  } else if (s < 1) {
    os << s * 1e3 << " ms";
  } else {
    os << s << " s";
  }
  return os.str();
}

} // namespace detail

/// Chooses a format for the CRS matrix A on exec and converts A to it.
///
/// \param exec    execution space instance of A's type
/// \param A       a CrsMatrix (not modified; the result may share its arrays
///                when CRS is chosen)
/// \param options model or tune mode and their settings
///
/// Throws std::invalid_argument for a broken CRS structure (when
/// check_structure) or options out of range, and whatever a conversion of the
/// last remaining candidate throws (AllocationError); a candidate that cannot
/// store A (its obstacle) or whose conversion runs out of index range or
/// memory is skipped and recorded in the report, and CRS with its automatic
/// kernel is the last resort. Synchronous.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
AutoMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_auto_matrix(ExecutionSpace const& exec,
                 CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                 AutoOptions const& options = {}) {
  using Result = AutoMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Variant = typename Result::variant_type;
  constexpr char const* where = "spmvkit::make_auto_matrix";
  if (options.tune_candidates < 1 || options.tune_repetitions < 1) {
    throw std::invalid_argument(std::string(where) +
                                ": tune_candidates and tune_repetitions must be >= 1, got " +
                                std::to_string(options.tune_candidates) + " and " +
                                std::to_string(options.tune_repetitions));
  }
  if (options.columns < 1) {
    throw std::invalid_argument(std::string(where) + ": AutoOptions::columns must be >= 1, got " +
                                std::to_string(options.columns));
  }
  FormatSelection s;
  if (options.check_structure) {
    Kokkos::Timer check;
    detail::ensure_structure(exec, A); // 0 s when A was checked before
    s.check_seconds = check.seconds();
  }
  s.mode = options.mode;
  s.features = compute_features(exec, A);
  s.predictions = predict_formats<ExecutionSpace>(s.features,
                                                  TypeSizes{static_cast<int>(sizeof(Scalar)),
                                                            static_cast<int>(sizeof(Ordinal)),
                                                            static_cast<int>(sizeof(Offset))},
                                                  options.costs);
  // What is tried, in order: the predictions, and with a candidate list only
  // those it names, followed by the named variants the model cannot predict.
  std::vector<FormatPrediction> order;
  if (options.candidates.empty()) {
    order = s.predictions;
  } else {
    // The names follow the grammar of select/variant_names.hpp; an item that
    // selects nothing is an error, not an empty choice.
    auto const every = detail::all_variants<ExecutionSpace>();
    std::vector<VariantName> names;
    for (auto const& v : every) names.push_back({v.format, v.family, true});
    auto const picked = select_variants(options.candidates, names,
                                        std::string(where) + ": AutoOptions::candidates");
    auto named = [&](FormatPrediction const& p) {
      for (std::size_t i = 0; i < every.size(); ++i) {
        if (every[i].format == p.format) return bool(picked[i]);
      }
      return false;
    };
    for (auto const& p : s.predictions) {
      if (named(p)) order.push_back(p);
    }
    for (auto const& p : every) {
      bool predicted = false;
      for (auto const& q : order) predicted = predicted || q.format == p.format;
      if (named(p) && !predicted) order.push_back(p);
    }
  }

  // Several columns on a host: CRS kernels only, where the variants considered include any.
  std::string scope;
  if constexpr (detail::is_host_space_v<ExecutionSpace>) {
    if (options.columns > 1) {
      std::vector<FormatPrediction> crs;
      for (auto const& p : order) {
        if (p.family == CrsFormat::family) crs.push_back(p);
      }
      if (!crs.empty()) {
        order = std::move(crs);
        scope = "; only the CRS kernels, for products of " + std::to_string(options.columns) +
                " columns on a host (times of one vector)";
      }
    }
  }

  // Converts prediction p (or CRS automatic for p == nullptr); empty optional
  // and a note in the report when its format refuses A.
  auto convert = [&](FormatPrediction const* p, FormatSelection::Trial& trial) {
    std::optional<Variant> out;
    Kokkos::Timer timer;
    auto build = [&](auto tag, auto const& o) {
      using F = typename decltype(tag)::type;
      using M = matrix_of_t<F, Scalar, ExecutionSpace, Ordinal, Offset>;
      std::string obstacle = F::obstacle(exec, A, o);
      if (!obstacle.empty()) {
        trial.note = obstacle;
        return;
      }
      try {
        out.emplace(std::in_place_type<AutoEntry<F, M>>,
                    AutoEntry<F, M>{F::from_crs(exec, A, o), o});
      } catch (std::length_error const& e) {
        trial.note = e.what();
      } catch (AllocationError const& e) {
        trial.note = e.what();
      }
    };
    if (p == nullptr) {
      build(type_tag<CrsFormat>{}, CrsOptions{});
    } else {
      detail::with_format_at(p->format_index, [&](auto tag) {
        using F = typename decltype(tag)::type;
        build(tag, model_variants<F, ExecutionSpace>()[p->variant_index]);
      });
    }
    exec.fence();
    s.conversion_seconds += timer.seconds();
    return out;
  };

  std::optional<Variant> chosen;
  if (options.mode == SelectMode::model) {
    for (auto const& p : order) {
      FormatSelection::Trial trial{p.format, p.seconds, std::nan(""), ""};
      chosen = convert(&p, trial);
      s.trials.push_back(trial);
      if (chosen) {
        s.format = p.format;
        s.family = p.family;
        s.reason = p.seconds == p.seconds
                       ? "fastest predicted of " + std::to_string(order.size()) + " variants (" +
                             detail::seconds_text(p.seconds) + " per SpMV)" + scope
                       : "first of the named candidates that accepts the matrix (not predicted)";
        break;
      }
    }
  } else {
    Kokkos::Timer tuning;
    using Vector = Kokkos::View<Scalar*, typename Result::device_type>;
    auto x = detail::allocate_view<Vector>(exec, "SpMVKit::select::tune_x", A.num_cols());
    auto y = detail::allocate_view<Vector>(exec, "SpMVKit::select::tune_y", A.num_rows());
    Kokkos::deep_copy(exec, x, Scalar(1)); // never time on zeros
    double best = std::numeric_limits<double>::infinity();
    double first = std::nan("");
    int timed = 0;
    for (auto const& p : order) {
      if (timed == options.tune_candidates) break;
      FormatSelection::Trial trial{p.format, p.seconds, std::nan(""), ""};
      auto candidate = convert(&p, trial);
      if (candidate) {
        trial.measured_seconds = std::visit(
            [&](auto const& e) {
              return detail::time_spmv(exec, e.matrix, e.options, x, y, options.tune_repetitions);
            },
            *candidate);
        if (timed == 0) first = trial.measured_seconds;
        ++timed;
        if (trial.measured_seconds < best) {
          best = trial.measured_seconds;
          chosen = std::move(candidate); // the previous best is released here
          s.format = p.format;
          s.family = p.family;
        }
      }
      s.trials.push_back(trial);
    }
    s.tuning_seconds = tuning.seconds();
    if (chosen) {
      s.reason = "fastest measured of " + std::to_string(timed) + " timed variants (" +
                 detail::seconds_text(best) + " per SpMV)" + scope;
      if (best < first) s.payback_spmvs = s.tuning_seconds / (first - best);
    }
  }
  if (!chosen) {
    FormatSelection::Trial trial{"crs", std::nan(""), std::nan(""), ""};
    chosen = convert(nullptr, trial);
    s.trials.push_back(trial);
    s.format = "crs";
    s.family = CrsFormat::family;
    s.reason = order.empty() ? "no candidate variant has fitted model constants on this "
                               "backend: CRS with its automatic kernel"
                             : "every candidate variant refused the matrix: CRS with its "
                               "automatic kernel";
  }
  s.bytes = std::visit(
      [](auto const& e) { return format_of_t<std::decay_t<decltype(e.matrix)>>::bytes(e.matrix); },
      *chosen);
  return Result(std::move(*chosen), std::move(s), options, A.num_rows(), A.num_cols(), A.nnz());
}

/// The former name of make_auto_matrix(), which did not say that it chooses
/// the format: the same call. Deprecated in 0.2, removed in 0.4.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
[[deprecated("spmvkit::make_matrix is now spmvkit::make_auto_matrix")]] AutoMatrix<
    Scalar, ExecutionSpace, Ordinal, Offset>
make_matrix(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
            AutoOptions const& options = {}) {
  return make_auto_matrix(exec, A, options);
}

/// The automatic format's tag (core/format_concept.hpp): make_auto_matrix() as a
/// format, so that everything walking a format list can take it.
struct AutoFormat {
  /// The family name, "auto".
  static constexpr char const* family = "auto";
  /// The options: AutoOptions.
  using options_type = AutoOptions;
  /// apply takes several blocks of columns at once and hands them to the chosen format one
  /// block at a time unless it walks them itself (detail::walks_column_blocks).
  static constexpr bool walks_column_blocks = true;
  /// The matrix class: AutoMatrix.
  template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
  using matrix_type = AutoMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// "auto" for model mode, "auto_tune" for tune mode.
  static std::string name(options_type const& o) {
    return o.mode == SelectMode::model ? "auto" : "auto_tune";
  }
  /// Both modes with their default settings.
  template <class ExecutionSpace>
  static std::vector<options_type> variants() {
    AutoOptions tune;
    tune.mode = SelectMode::tune;
    return {AutoOptions{}, tune};
  }
  /// Never an obstacle: CRS is the last resort.
  template <class ExecutionSpace, class Crs>
  static std::string obstacle(ExecutionSpace const&, Crs const&, options_type const&) {
    return "";
  }
  /// make_auto_matrix(exec, A, o).
  template <class ExecutionSpace, class Crs>
  static matrix_type<typename Crs::value_type, ExecutionSpace, typename Crs::ordinal_type,
                     typename Crs::offset_type>
  from_crs(ExecutionSpace const& exec, Crs const& A, options_type const& o) {
    return make_auto_matrix(exec, A, o);
  }
  /// A CRS from the row source (CrsFormat::from_rows), then make_auto_matrix().
  template <class ExecutionSpace, class Source>
  static matrix_type<typename Source::value_type, ExecutionSpace, typename Source::ordinal_type,
                     typename Source::offset_type>
  from_rows(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
            Source const& source, options_type const& o) {
    auto crs = CrsFormat::from_rows(exec, num_rows, num_cols, source, CrsOptions{});
    AutoOptions checked = o;
    checked.check_structure = false; // built here, well formed by construction
    return make_auto_matrix(exec, crs, checked);
  }
  /// A.refill(exec, B): the chosen format's refill, or a new conversion of B.
  template <class ExecutionSpace, class M, class Crs>
  static void refill(ExecutionSpace const& exec, M const& A, Crs const& B) {
    A.refill(exec, B);
  }
  /// The chosen format's to_crs.
  template <class ExecutionSpace, class M>
  static typename M::crs_type to_crs(ExecutionSpace const& exec, M const& A) {
    return A.visit([&](auto const& B, auto const&) {
      return format_of_t<std::decay_t<decltype(B)>>::to_crs(exec, B);
    });
  }
  /// The options A was built with.
  template <class M>
  static options_type options(M const& A) {
    return A.options();
  }
  /// The chosen format's apply with the chosen options; `o` is not used (the
  /// choice is made at construction).
  template <class ExecutionSpace, class M, class X, class Y>
  static void apply(ExecutionSpace const& exec, detail::spmv_scalar_t<M, Y> alpha, M const& A,
                    X const& x, detail::spmv_scalar_t<M, Y> beta, Y const& y, options_type const&) {
    A.visit([&](auto const& B, auto const& o) {
      using Format = format_of_t<std::decay_t<decltype(B)>>;
      if constexpr (detail::walks_column_blocks<Format>::value) {
        Format::apply(exec, alpha, B, x, beta, y, o);
      } else {
        detail::for_each_block(x, y, [&](auto const& xb, auto const& yb) {
          Format::apply(exec, alpha, B, xb, beta, yb, o);
        });
      }
    });
  }
  /// The chosen format's diagonal.
  template <class ExecutionSpace, class M, class D>
  static void diagonal(ExecutionSpace const& exec, M const& A, D const& d) {
    A.visit([&](auto const& B, auto const&) {
      format_of_t<std::decay_t<decltype(B)>>::diagonal(exec, B, d);
    });
  }
  /// The chosen format's byte model.
  template <class M>
  static SpmvBytes bytes(M const& A) {
    return A.visit([](auto const& B, auto const&) {
      return format_of_t<std::decay_t<decltype(B)>>::bytes(B);
    });
  }
};

/// format_list followed by AutoFormat: what the tests, benchmarks and
/// examples walk to cover the automatic choice beside every format.
template <class List>
struct with_auto_format;
/// Specialisation for a type_list.
template <class... Fs>
struct with_auto_format<type_list<Fs...>> {
  /// The list with AutoFormat appended.
  using type = type_list<Fs..., AutoFormat>;
};
/// Every format tag and the automatic one.
using all_formats = typename with_auto_format<format_list>::type;

inline std::string describe(FormatSelection const& s) {
  std::ostringstream os;
  auto const& r = s.features.rows;
  os << "format: " << s.format << " (family " << s.family << "), "
     << (s.mode == SelectMode::model ? "model" : "tune") << " mode: " << s.reason << "\n";
  os << "matrix: " << r.num_rows << " x " << r.num_cols << ", " << r.nnz
     << " nonzeros; row length mean " << r.mean_row_length << ", max " << r.max_row_length
     << ", variance " << r.row_length_variance << ", hub mass " << r.hub_mass << "; bandwidth "
     << s.features.bandwidth() << ", SellOffset16 "
     << (s.features.sell_offset16_eligible ? "yes" : "no") << "\n";
  os << "expected bytes per SpMV: " << s.bytes.total() << " (matrix " << s.bytes.matrix << ")\n";
  os << "predictions:";
  const std::size_t shown = std::min<std::size_t>(s.predictions.size(), 5);
  for (std::size_t i = 0; i < shown; ++i) {
    os << (i ? ", " : " ") << s.predictions[i].format << " "
       << detail::seconds_text(s.predictions[i].seconds);
  }
  if (s.predictions.empty()) os << " none";
  os << "\n";
  for (auto const& t : s.trials) {
    os << "  tried " << t.format;
    if (t.measured_seconds == t.measured_seconds)
      os << ": measured " << detail::seconds_text(t.measured_seconds);
    if (!t.note.empty()) os << ": refused (" << t.note << ")";
    os << "\n";
  }
  os << "cost: structure check " << detail::seconds_text(s.check_seconds) << ", features "
     << detail::seconds_text(s.features.seconds) << ", conversion "
     << detail::seconds_text(s.conversion_seconds);
  if (s.mode == SelectMode::tune) {
    os << ", tuning " << detail::seconds_text(s.tuning_seconds) << ", pays back after ";
    if (std::isinf(s.payback_spmvs)) {
      os << "never (the model's first choice was fastest)";
    } else {
      os << s.payback_spmvs << " SpMVs";
    }
  }
  os << "\n";
  return os.str();
}

} // namespace spmvkit

#endif
