// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_REGISTRY_HPP
#define SPMVKIT_PERF_REGISTRY_HPP

// The benchmark registry: what the spmv, spmv200, transfer and cg benchmarks run. It walks
// spmvkit::format_list, so a format added to that list is benchmarked without being named
// here: each variant F::variants<Exec>() becomes an Implementation named F::name(options),
// converted with F::from_crs (after F::obstacle), applied with spmvkit::spmv, measured with
// the byte model F::bytes, and solved with spmvkit::cg through make_operator. Kokkos Kernels
// (native and default algorithm) follow as the references.

#include "options.hpp"
#include "perf_common.hpp"
#ifdef SPMVKIT_PERF_HAS_CUSPARSE
#include "cusparse_spmv.hpp"
#endif

#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/interop/kokkos_blas.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#if __has_include(<KokkosSparse_BsrMatrix.hpp>)
#include <KokkosSparse_BsrMatrix.hpp>
#endif
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/select/format_costs.hpp>
#include <spmvkit/select/variant_names.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::perf {

/// One implementation (a format variant, or a Kokkos Kernels algorithm) holding the matrix
/// in its own storage, once per rotated copy (copy 0 is the one checked and solved with).
template <class Scalar>
class Runner {
public:
  virtual ~Runner() = default;
  /// Why A cannot be stored this way ("" if it can): F::obstacle.
  virtual std::string obstacle(Crs<Scalar> const& A) const = 0;
  /// Converts A (F::from_crs) and keeps it as the next copy.
  virtual void add_copy(Crs<Scalar> const& A) = 0;
  /// y = A_k x (alpha = 1, beta = 0), asynchronous.
  virtual void apply(int k, Vector<Scalar> const& x, Vector<Scalar> const& y) = 0;
  /// The byte model of one SpMV of copy 0 (F::bytes).
  virtual SpmvBytes bytes() const = 0;
  /// Stored entries of copy 0 (padding included; nnz for formats without padding).
  virtual std::int64_t stored_entries() const = 0;
  /// The JSON label of what copy 0 stores, under the benchmark format name `name`
  /// ("family=sell;format=sell;C=4;sigma=1"): the options F::options(A) the matrix was built
  /// with, which is what a transfer moves. The label of what is run is the Implementation's.
  virtual std::string storage_label(std::string const& name) const = 0;
  /// Label keys known only once copy 0 is built ("chosen=sell_offset16_c32_s1" for the automatic
  /// format), "" for the others.
  virtual std::string built_label() const { return ""; }
  /// The automatic format's selection report of copy 0; nullptr for the others.
  virtual FormatSelection const* selection_costs() const { return nullptr; }

  /// CG on copy 0 through the operator the library offers for it (make_operator, or
  /// KokkosKernelsOperator), with the operator's byte model for the iteration bytes.
  struct Solve {
    CgResult result;
    SpmvBytes operator_bytes;
  };
  /// kokkos_blas: the KokkosBlasVectors policy (interop/kokkos_blas.hpp) instead of the fused
  /// vector kernels.
  virtual Solve cg(Vector<Scalar> const& b, Vector<Scalar> const& x, CgOptions const& opts,
                   bool kokkos_blas) = 0;
  /// Mixed-precision CG on copy 0: a float matrix with double vectors
  /// (make_mixed_operator<double>), the fused vector kernels. Empty where the implementation
  /// has no mixed product (double matrices, Kokkos Kernels).
  virtual std::optional<Solve> cg_mixed(Vector<double> const&, Vector<double> const&,
                                        CgOptions const&) {
    return std::nullopt;
  }
  /// y = A_k x with double vectors (a float matrix: mixed-precision spmv), asynchronous; false
  /// where the implementation has no mixed product (double matrices, Kokkos Kernels).
  virtual bool apply_mixed(int, Vector<double> const&, Vector<double> const&) { return false; }
};

/// An entry of the registry.
template <class Scalar>
struct Implementation {
  std::string name;          // benchmark name part: F::name(options), kk_native, kk_default
  std::string family;        // F::family, "kk" or "cusparse"
  std::string label;         // the JSON label: "family=<family>;format=<name>;<options>"
  bool is_reference = false; // Kokkos Kernels, cuSPARSE
  bool is_default = false;   // a format with its default options (F::options_type{})
  std::function<std::unique_ptr<Runner<Scalar>>()> make;
  /// The format model's cost terms of this variant for a matrix (select/format_costs.hpp),
  /// reported beside its time so that scripts/fit_format_model.py can fit the model; empty
  /// function (references, the automatic format) or empty optional: not estimated.
  std::function<std::optional<SpmvEstimate>(MatrixFeatures const&)> estimate;
  /// Whether Runner::cg solves (false: Kokkos Kernels' BSR and cuSPARSE offer a product
  /// only, and the cg family does not register them).
  bool solves = true;
};

// ---------------------------------------------------------------------------------------------
// Labels. The format concept has no member that lists an options_type's fields, so the
// options types of today's formats are described here; a format with another options_type
// gets family and name only. (Once the concept offers such a member, these overloads go.)
// ---------------------------------------------------------------------------------------------
inline std::string option_fields(CrsOptions const& o) {
  switch (o.kernel) {
  case CrsKernel::row_per_thread: return "kernel=row_per_thread";
  case CrsKernel::vector: return "kernel=vector";
  case CrsKernel::balanced: return "kernel=balanced";
  case CrsKernel::automatic: break;
  }
  return "kernel=automatic";
}
inline std::string option_fields(SellOptions const& o) {
  return "C=" + std::to_string(o.chunk_size) + ";sigma=" + std::to_string(o.sigma);
}
inline std::string option_fields(CsrkOptions const& o) {
  std::string s = "k=" + std::to_string(o.k) + ";SRS=" + std::to_string(o.rows_per_super_row) +
                  ";SSRS=" + std::to_string(o.super_rows_per_super_super_row) +
                  ";band_k=" + (o.band_k ? "1" : "0");
  if (o.gpu_lanes != 0 || o.gpu_row_slots != 0 || o.gpu_super_row_slots != 0) {
    s += ";lanes=" + std::to_string(o.gpu_lanes) + ";row_slots=" + std::to_string(o.gpu_row_slots) +
         ";super_row_slots=" + std::to_string(o.gpu_super_row_slots);
  }
  if (o.gpu_lanes_over_entries != 0) {
    s += std::string(";lanes_over=") + (o.gpu_lanes_over_entries > 0 ? "entries" : "rows");
  }
  return s;
}
inline std::string option_fields(BsrOptions const& o) {
  return "b=" + std::to_string(o.block_size) + ";C=" + std::to_string(o.chunk_size) +
         ";layout=" + (o.layout == BsrBlockLayout::row_major ? "row" : "column") +
         (o.allow_padding ? ";padding=1" : "");
}
inline std::string option_fields(AutoOptions const& o) {
  return o.mode == SelectMode::model ? "mode=model" : "mode=tune";
}
template <class OtherOptions>
std::string option_fields(OtherOptions const&) {
  return "";
}

template <class F>
std::string format_label(std::string const& name, typename F::options_type const& o) {
  const std::string fields = option_fields(o);
  return std::string("family=") + F::family + ";format=" + name +
         (fields.empty() ? "" : ";" + fields);
}

template <class M, class = void>
struct has_stored_entries : std::false_type {};
template <class M>
struct has_stored_entries<M, std::void_t<decltype(std::declval<M const&>().stored_entries())>>
    : std::true_type {};

/// Stored entries of a matrix: stored_entries() where the class has it (padded formats), nnz().
template <class Matrix>
std::int64_t stored_entries_of(Matrix const& A) {
  if constexpr (has_stored_entries<Matrix>::value) {
    return static_cast<std::int64_t>(A.stored_entries());
  } else {
    return static_cast<std::int64_t>(A.nnz());
  }
}

// ---------------------------------------------------------------------------------------------
// A format of the list, through its format tag only.
// ---------------------------------------------------------------------------------------------
template <class Scalar, class F>
class FormatRunner final : public Runner<Scalar> {
  static_assert(check_format<F, Scalar, Exec>());
  using Matrix = matrix_of_t<F, Scalar, Exec>;
  using FormatOptions = typename F::options_type;

public:
  explicit FormatRunner(FormatOptions const& options) : options_(options) {}

  std::string obstacle(Crs<Scalar> const& A) const override {
    return F::obstacle(exec_, A, options_);
  }
  void add_copy(Crs<Scalar> const& A) override {
    if constexpr (std::is_same_v<F, AutoFormat>) {
      // Every rotated copy must hold what copy 0 chose, or the timed loop would mix formats.
      if (!matrices_.empty()) {
        AutoOptions same = options_;
        same.mode = SelectMode::model;
        same.candidates = {matrices_.front().selection().format};
        matrices_.push_back(F::from_crs(exec_, A, same));
        return;
      }
    }
    matrices_.push_back(F::from_crs(exec_, A, options_));
  }
  void apply(int k, Vector<Scalar> const& x, Vector<Scalar> const& y) override {
    spmv(exec_, Scalar(1), matrices_[static_cast<std::size_t>(k)], x, Scalar(0), y, options_);
  }
  SpmvBytes bytes() const override { return F::bytes(matrices_.front()); }
  std::int64_t stored_entries() const override { return stored_entries_of(matrices_.front()); }
  std::string storage_label(std::string const& name) const override {
    return format_label<F>(name, F::options(matrices_.front()));
  }
  std::string built_label() const override {
    if constexpr (std::is_same_v<F, AutoFormat>) {
      return "chosen=" + matrices_.front().selection().format;
    } else {
      return "";
    }
  }
  FormatSelection const* selection_costs() const override {
    if constexpr (std::is_same_v<F, AutoFormat>) {
      return &matrices_.front().selection();
    } else {
      return nullptr;
    }
  }
  typename Runner<Scalar>::Solve cg(Vector<Scalar> const& b, Vector<Scalar> const& x,
                                    CgOptions const& opts, bool kokkos_blas) override {
    auto op = make_operator(matrices_.front(), options_);
    if (kokkos_blas) return {spmvkit::cg(exec_, op, b, x, opts, KokkosBlasVectors()), op.bytes()};
    return {spmvkit::cg(exec_, op, b, x, opts), op.bytes()};
  }
  bool apply_mixed(int k, Vector<double> const& x, Vector<double> const& y) override {
    if constexpr (std::is_same_v<Scalar, float>) {
      spmv(exec_, 1.0, matrices_[static_cast<std::size_t>(k)], x, 0.0, y, options_);
      return true;
    } else {
      (void)k;
      (void)x;
      (void)y;
      return false;
    }
  }
  std::optional<typename Runner<Scalar>::Solve>
  cg_mixed(Vector<double> const& b, Vector<double> const& x, CgOptions const& opts) override {
    if constexpr (std::is_same_v<Scalar, float>) {
      auto op = make_mixed_operator<double>(matrices_.front(), options_);
      return typename Runner<Scalar>::Solve{spmvkit::cg(exec_, op, b, x, opts), op.bytes()};
    } else {
      (void)b;
      (void)x;
      (void)opts;
      return std::nullopt;
    }
  }

private:
  Exec exec_;
  FormatOptions options_;
  std::deque<Matrix> matrices_; // a deque: operators keep references to its elements
};

// ---------------------------------------------------------------------------------------------
// Kokkos Kernels: the references (zero-copy views of the CRS matrix).
// ---------------------------------------------------------------------------------------------
template <class Scalar>
class KokkosKernelsRunner final : public Runner<Scalar> {
public:
  explicit KokkosKernelsRunner(KokkosKernelsAlgorithm algorithm) : algorithm_(algorithm) {}

  std::string obstacle(Crs<Scalar> const&) const override { return ""; }
  void add_copy(Crs<Scalar> const& A) override {
    crs_.push_back(A);
    kk_.push_back(to_kokkos_kernels(A));
    spmv_.push_back(std::make_unique<KKSpmv<Scalar>>(algorithm_));
  }
  void apply(int k, Vector<Scalar> const& x, Vector<Scalar> const& y) override {
    const auto i = static_cast<std::size_t>(k);
    spmv_[i]->apply(exec_, Scalar(1), kk_[i], x, Scalar(0), y);
  }
  /// The CRS byte model: Kokkos Kernels reads the same three arrays.
  SpmvBytes bytes() const override { return CrsFormat::bytes(crs_.front()); }
  std::int64_t stored_entries() const override { return crs_.front().nnz(); }
  std::string storage_label(std::string const&) const override { return label(algorithm_); }
  typename Runner<Scalar>::Solve cg(Vector<Scalar> const& b, Vector<Scalar> const& x,
                                    CgOptions const& opts, bool kokkos_blas) override {
    // One operator for every solve: its SpMV handle is set up once.
    if (!op_)
      op_ = std::make_unique<KokkosKernelsOperator<KKMatrix<Scalar>>>(kk_.front(), algorithm_);
    // KokkosBlas vectors with Kokkos Kernels' SpMV: the CG a Kokkos user writes.
    if (kokkos_blas) return {spmvkit::cg(exec_, *op_, b, x, opts, KokkosBlasVectors()), bytes()};
    return {spmvkit::cg(exec_, *op_, b, x, opts), bytes()};
  }

  static std::string name(KokkosKernelsAlgorithm a) {
    return a == KokkosKernelsAlgorithm::native ? "kk_native" : "kk_default";
  }
  static std::string label(KokkosKernelsAlgorithm a) {
    return "family=kk;format=" + name(a) +
           (a == KokkosKernelsAlgorithm::native ? ";algorithm=native" : ";algorithm=default");
  }

private:
  Exec exec_;
  KokkosKernelsAlgorithm algorithm_;
  std::deque<Crs<Scalar>> crs_;
  std::deque<KKMatrix<Scalar>> kk_; // a deque: the operator keeps a reference to kk_.front()
  std::vector<std::unique_ptr<KKSpmv<Scalar>>> spmv_;
  std::unique_ptr<KokkosKernelsOperator<KKMatrix<Scalar>>> op_;
};

#if SPMVKIT_KOKKOS_KERNELS_HAS_SPMV_HANDLE && __has_include(<KokkosSparse_BsrMatrix.hpp>)
#define SPMVKIT_PERF_HAS_KK_BSR 1
/// Kokkos Kernels' BsrMatrix with the block size SpMVKit's BSR detects (its own conversion
/// from the CRS matrix), applied with KokkosSparse::spmv: native, or default (cuSPARSE's
/// bsrmv on CUDA builds with that TPL). Matrices without blocks (b = 1) are left out.
template <class Scalar>
class KokkosKernelsBsrRunner final : public Runner<Scalar> {
  using Bsr =
      KokkosSparse::Experimental::BsrMatrix<Scalar, int, typename Exec::device_type, void, int>;
  using Spmv = KokkosKernelsSpmv<Bsr, Vector<Scalar>, Vector<Scalar>>;

public:
  explicit KokkosKernelsBsrRunner(KokkosKernelsAlgorithm algorithm) : algorithm_(algorithm) {}

  std::string obstacle(Crs<Scalar> const& A) const override {
    const auto plan = detail::bsr_plan(exec_, A, BsrOptions{});
    if (!plan.obstacle.empty()) return plan.obstacle;
    return plan.block_size == 1 ? "no block structure (b = 1)" : "";
  }
  void add_copy(Crs<Scalar> const& A) override {
    const auto plan = detail::bsr_plan(exec_, A, BsrOptions{});
    block_size_ = plan.block_size;
    blocks_ = plan.blocks;
    rows_ = A.num_rows();
    cols_ = A.num_cols();
    bsr_.push_back(Bsr(to_kokkos_kernels(A), block_size_));
    spmv_.push_back(std::make_unique<Spmv>(algorithm_));
  }
  void apply(int k, Vector<Scalar> const& x, Vector<Scalar> const& y) override {
    const auto i = static_cast<std::size_t>(k);
    spmv_[i]->apply(exec_, Scalar(1), bsr_[i], x, Scalar(0), y);
  }
  /// BSR's byte model: b * b values and one block column per block, block row starts.
  SpmvBytes bytes() const override {
    SpmvBytes b;
    b.matrix = static_cast<double>(blocks_) * block_size_ * block_size_ * sizeof(Scalar) +
               static_cast<double>(blocks_) * sizeof(int) +
               (static_cast<double>(rows_ / block_size_) + 1) * sizeof(int);
    b.x = static_cast<double>(cols_) * sizeof(Scalar);
    b.y = static_cast<double>(rows_) * sizeof(Scalar);
    return b;
  }
  std::int64_t stored_entries() const override { return blocks_ * block_size_ * block_size_; }
  std::string storage_label(std::string const&) const override { return label(algorithm_); }
  typename Runner<Scalar>::Solve cg(Vector<Scalar> const&, Vector<Scalar> const&, CgOptions const&,
                                    bool) override {
    throw std::logic_error("spmvkit_perf: " + name(algorithm_) + " has no CG");
  }

  static std::string name(KokkosKernelsAlgorithm a) {
    return a == KokkosKernelsAlgorithm::native ? "kk_bsr_native" : "kk_bsr_default";
  }
  static std::string label(KokkosKernelsAlgorithm a) {
    return "family=kk;format=" + name(a) +
           (a == KokkosKernelsAlgorithm::native ? ";algorithm=native" : ";algorithm=default");
  }

private:
  Exec exec_;
  KokkosKernelsAlgorithm algorithm_;
  int block_size_ = 1;
  std::int64_t blocks_ = 0, rows_ = 0, cols_ = 0;
  std::deque<Bsr> bsr_;
  std::vector<std::unique_ptr<Spmv>> spmv_;
};
#endif

#if defined(SPMVKIT_PERF_HAS_CUSPARSE) && defined(KOKKOS_ENABLE_CUDA)
/// The COO row index of every entry of A, for cuSPARSE's COO algorithms.
struct ExpandRows {
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<Ordinal*, Device> rows;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const {
    for (Offset k = row_starts(i); k < row_starts(i + 1); ++k) rows(k) = i;
  }
};

/// cuSPARSE's generic SpMV called directly (cusparse_spmv.hpp): CSR ALG1, CSR ALG2, COO ALG1
/// and COO ALG2, each prepared (buffer, preprocess) and timed on copy 0 in warm cache (median
/// of 20 calls), the fastest then run by the benchmark like every other entry; the rotated
/// copies take copy 0's choice. The trials are in the label: chosen=..., <algorithm>_us=...
template <class Scalar>
class CusparseBestRunner final : public Runner<Scalar> {
public:
  std::string obstacle(Crs<Scalar> const&) const override { return ""; }
  void add_copy(Crs<Scalar> const& A) override {
    Copy c{A,
           Kokkos::View<Ordinal*, Device>(
               Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                  std::string("SpMVKit::perf::cusparse_coo_rows")),
               static_cast<std::size_t>(A.nnz())),
           nullptr};
    Kokkos::parallel_for(
        "SpMVKit::perf::cusparse_coo_rows",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec_, 0, A.num_rows()),
        ExpandRows{A.row_starts(), c.rows});
    exec_.fence();
    c.spmv =
        std::make_unique<CusparseSpmv>(A.num_rows(), A.num_cols(), A.nnz(), A.row_starts().data(),
                                       c.rows.data(), A.column_indices().data(), A.values().data(),
                                       static_cast<int>(sizeof(Scalar)), exec_.cuda_stream());
    // The runner's own vectors: the benchmark's come with apply.
    const auto x = random_vector<Scalar>("cusparse_x", A.num_cols(), 7);
    const Vector<Scalar> y("SpMVKit::perf::cusparse_y", static_cast<std::size_t>(A.num_rows()));
    if (copies_.empty()) {
      trials_ = c.spmv->choose(x.data(), y.data(), 20);
    } else {
      c.spmv->use(copies_.front().spmv->algorithm(), x.data(), y.data());
    }
    exec_.fence();
    copies_.push_back(std::move(c));
  }
  void apply(int k, Vector<Scalar> const& x, Vector<Scalar> const& y) override {
    copies_[static_cast<std::size_t>(k)].spmv->apply(x.data(), y.data());
  }
  /// The CRS byte model: the CSR algorithms read the same three arrays (the COO ones read a
  /// row index per entry more; the model does not charge it).
  SpmvBytes bytes() const override { return CrsFormat::bytes(copies_.front().A); }
  std::int64_t stored_entries() const override { return copies_.front().A.nnz(); }
  std::string storage_label(std::string const&) const override { return label(); }
  std::string built_label() const override {
    std::string s = "chosen=" + copies_.front().spmv->algorithm();
    for (auto const& t : trials_) {
      s += ";" + t.algorithm +
           (t.failure.empty() ? "_us=" + std::to_string(t.seconds * 1e6) : "=" + t.failure);
    }
    return s;
  }
  typename Runner<Scalar>::Solve cg(Vector<Scalar> const&, Vector<Scalar> const&, CgOptions const&,
                                    bool) override {
    throw std::logic_error("spmvkit_perf: cusparse_best has no CG");
  }

  static std::string label() { return "family=cusparse;format=cusparse_best;algorithm=best"; }

private:
  struct Copy {
    Crs<Scalar> A;
    Kokkos::View<Ordinal*, Device> rows;
    std::unique_ptr<CusparseSpmv> spmv;
  };
  Exec exec_;
  std::deque<Copy> copies_;
  std::vector<CusparseTrial> trials_;
};
#endif

// ---------------------------------------------------------------------------------------------
// The registry.
// ---------------------------------------------------------------------------------------------

/// The variants of F that the benchmarks run: F::variants<Exec>(), except where options ask
/// for a sweep (CSR-k: --csrk-sizes x --csrk-shapes replace its variants).
template <class F>
std::vector<typename F::options_type> swept_variants(Options const* options) {
  if constexpr (std::is_same_v<F, CsrkFormat>) {
    if (options && (!options->csrk_sizes.empty() || !options->csrk_shapes.empty())) {
      std::vector<CsrkOptions> sizes;
      for (auto const& s : options->csrk_sizes) {
        CsrkOptions o;
        o.k = s.k;
        o.rows_per_super_row = s.rows_per_super_row;
        o.super_rows_per_super_super_row = s.super_rows_per_super_super_row;
        sizes.push_back(o);
      }
      if (sizes.empty()) sizes = F::template variants<Exec>();
      if (options->csrk_shapes.empty()) return sizes;
      std::vector<CsrkOptions> out;
      for (auto const& s : sizes) {
        for (auto const& shape : options->csrk_shapes) {
          CsrkOptions o = s;
          o.gpu_lanes = shape.lanes;
          o.gpu_row_slots = shape.row_slots;
          o.gpu_super_row_slots = shape.super_row_slots;
          o.gpu_lanes_over_entries = shape.lanes_over_entries;
          out.push_back(o);
        }
      }
      return out;
    }
  }
  return F::template variants<Exec>();
}

/// The format model's estimate of variant o of F, where F has a cost model.
template <class Scalar, class F>
std::function<std::optional<SpmvEstimate>(MatrixFeatures const&)>
estimate_of(typename F::options_type const& o) {
  if constexpr (format_cost<F>::available) {
    return [o](MatrixFeatures const& f) {
      return estimate_cost<F, Exec>(f, o,
                                    TypeSizes{static_cast<int>(sizeof(Scalar)),
                                              static_cast<int>(sizeof(int)),
                                              static_cast<int>(sizeof(int))});
    };
  } else {
    return {};
  }
}

/// Every variant of every format of spmvkit::all_formats (format_list, then the automatic
/// format), in list order, then kk_native and kk_default (and Kokkos Kernels' BSR, and
/// cusparse_best on CUDA builds with cuSPARSE): what spmv, spmv200 and cg run.
/// With options, the sweeps they ask for (swept_variants); without, the formats' own
/// variants (the usage text, the checks).
template <class Scalar>
std::vector<Implementation<Scalar>> spmv_implementations(Options const* options = nullptr) {
  std::vector<Implementation<Scalar>> out;
  for_each_type(all_formats{}, [&out, options](auto tag) {
    using F = typename decltype(tag)::type;
    for (auto const& o : swept_variants<F>(options)) {
      out.push_back({F::name(o), F::family, format_label<F>(F::name(o), o), false, false,
                     [o] { return std::make_unique<FormatRunner<Scalar, F>>(o); },
                     estimate_of<Scalar, F>(o)});
    }
  });
  for (auto a : {KokkosKernelsAlgorithm::native, KokkosKernelsAlgorithm::vendor_default}) {
    out.push_back({KokkosKernelsRunner<Scalar>::name(a),
                   "kk",
                   KokkosKernelsRunner<Scalar>::label(a),
                   true,
                   false,
                   [a] { return std::make_unique<KokkosKernelsRunner<Scalar>>(a); },
                   {}});
  }
#ifdef SPMVKIT_PERF_HAS_KK_BSR
  for (auto a : {KokkosKernelsAlgorithm::native, KokkosKernelsAlgorithm::vendor_default}) {
    out.push_back({KokkosKernelsBsrRunner<Scalar>::name(a),
                   "kk",
                   KokkosKernelsBsrRunner<Scalar>::label(a),
                   true,
                   false,
                   [a] { return std::make_unique<KokkosKernelsBsrRunner<Scalar>>(a); },
                   {},
                   false});
  }
#endif
#if defined(SPMVKIT_PERF_HAS_CUSPARSE) && defined(KOKKOS_ENABLE_CUDA)
  out.push_back({"cusparse_best",
                 "cusparse",
                 CusparseBestRunner<Scalar>::label(),
                 true,
                 false,
                 [] { return std::make_unique<CusparseBestRunner<Scalar>>(); },
                 {},
                 false});
#endif
  return out;
}

/// What a transfer can move: each format with its default options (F::options_type{}, named
/// F::name of them: "crs", "sell", ...; is_default), then its variants under their names.
template <class Scalar>
std::vector<Implementation<Scalar>> transfer_implementations() {
  std::vector<Implementation<Scalar>> out;
  for_each_type(format_list{}, [&out](auto tag) {
    using F = typename decltype(tag)::type;
    std::vector<typename F::options_type> options{typename F::options_type{}};
    for (auto const& o : F::template variants<Exec>()) options.push_back(o);
    for (std::size_t i = 0; i < options.size(); ++i) {
      auto const o = options[i];
      bool duplicate = false;
      for (auto const& e : out) duplicate = duplicate || e.name == F::name(o);
      if (duplicate) continue;
      out.push_back({F::name(o),
                     F::family,
                     format_label<F>(F::name(o), o),
                     false,
                     i == 0,
                     [o] { return std::make_unique<FormatRunner<Scalar, F>>(o); },
                     {}});
    }
  });
  return out;
}

} // namespace spmvkit::perf

namespace spmvkit::perf {

/// Which of `impls` a list of --formats items selects (select/variant_names.hpp's grammar;
/// "default", where `with_default`, also selects each format with its default options).
/// Throws std::invalid_argument starting with `what` for an item that selects nothing.
template <class Scalar>
std::vector<bool> select_implementations(std::vector<std::string> const& items,
                                         std::vector<Implementation<Scalar>> const& impls,
                                         std::string const& what, bool with_default = false) {
  std::vector<VariantName> names;
  for (auto const& impl : impls) names.push_back({impl.name, impl.family, true});
  std::vector<std::string> rest;
  std::vector<bool> out(impls.size(), false);
  for (auto const& item : items) {
    if (with_default && item == "default") {
      for (std::size_t i = 0; i < impls.size(); ++i) out[i] = out[i] || impls[i].is_default;
    } else {
      rest.push_back(item);
    }
  }
  if (rest.empty() && !items.empty()) return out;
  const auto picked = select_variants(rest, names, what);
  for (std::size_t i = 0; i < impls.size(); ++i) out[i] = out[i] || picked[i];
  return out;
}

} // namespace spmvkit::perf

#endif
