// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_SPMV_SETUP_HPP
#define SPMVKIT_PERF_SPMV_SETUP_HPP

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "registry.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// A matrix that a format cannot store (F::obstacle said why): the benchmark is skipped with
/// a note, not failed.
struct Unrepresentable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One matrix in one implementation, ready to multiply: copy 0 (checked against Kokkos Kernels
/// native) and, on demand, further deep copies of matrix, x and y that the timed loop rotates
/// through so that small problems are not measured out of the last-level cache.
template <class Scalar>
class SpmvSetup {
public:
  /// Throws Unrepresentable when the implementation cannot store the matrix.
  SpmvSetup(Options const& options, MatrixSource const& source,
            Implementation<Scalar> const& implementation)
      : options_(options), implementation_(implementation), runner_(implementation.make()),
        base_(load_matrix<Scalar>(options, source)), fem_n_(source.fem_n) {
    const std::string why = runner_->obstacle(base_);
    if (!why.empty()) throw Unrepresentable(why);
    add_copy(base_);
    check();
  }

  Implementation<Scalar> const& implementation() const { return implementation_; }
  Runner<Scalar>& runner() { return *runner_; }
  Runner<Scalar> const& runner() const { return *runner_; }
  Crs<Scalar> const& crs_matrix() const { return base_; }
  Vector<Scalar> const& x(int k) const { return x_.at(static_cast<std::size_t>(k)); }
  Vector<Scalar> const& y(int k) const { return y_.at(static_cast<std::size_t>(k)); }
  int fem_n() const { return fem_n_; }

  std::int64_t rows() const { return base_.num_rows(); }
  std::int64_t cols() const { return base_.num_cols(); }
  std::int64_t nnz() const { return base_.nnz(); }
  std::int64_t stored() const { return runner_->stored_entries(); }
  double padding() const { return nnz() ? static_cast<double>(stored()) / nnz() : 1.0; }
  /// The format model's features of the matrix (select/matrix_features.hpp), computed on
  /// first use.
  MatrixFeatures const& features() {
    if (!features_) features_ = compute_features(Exec(), base_);
    return *features_;
  }
  /// Bytes one SpMV moves under the format's byte model (F::bytes(A).total()).
  double bytes() const { return runner_->bytes().total(); }

  bool ok() const { return ok_; }
  std::string const& error() const { return error_; }
  double relative_error() const { return relative_error_; }
  double tolerance() const { return tolerance_; }

  /// Copies to rotate through: enough that they together exceed rotation_factor x LLC.
  int rotation() const {
    const double target = options_.rotation_factor * static_cast<double>(device_info().llc_bytes);
    const double k = std::ceil(target / std::max(1.0, bytes()));
    return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(options_.max_rotation)));
  }

  void ensure_copies(int count) {
    while (static_cast<int>(x_.size()) < count) add_copy(clone(base_));
  }

  /// y_k = A_k x_k (alpha = 1, beta = 0), asynchronous.
  void apply(int k) {
    const auto i = static_cast<std::size_t>(k);
    runner_->apply(k, x_[i], y_[i]);
  }

private:
  void add_copy(Crs<Scalar> const& A) {
    const auto k = static_cast<std::uint64_t>(x_.size());
    const std::uint64_t seed = options_.seed + 1000 * k;
    x_.push_back(random_vector<Scalar>("x", A.num_cols(), seed + 1));
    y_.push_back(random_vector<Scalar>("y", A.num_rows(), seed + 2));
    runner_->add_copy(A);
    Kokkos::fence();
  }

  /// ||y - y_ref||_inf <= tol * (|A||x|)_inf with y_ref from Kokkos Kernels native.
  void check() {
    Vector<Scalar> y_ref(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::y_ref")),
        static_cast<std::size_t>(base_.num_rows()));
    KKSpmv<Scalar> reference(KokkosKernelsAlgorithm::native);
    reference.apply(Exec(), Scalar(1), to_kokkos_kernels(base_), x_[0], Scalar(0), y_ref);
    apply(0);
    Kokkos::fence();
    const double err = max_abs_diff<Scalar>(y_[0], y_ref);
    const double scale = abs_product_norm<Scalar>(base_, x_[0]);
    tolerance_ = check_tolerance<Scalar>(max_row_length<Scalar>(base_));
    relative_error_ = scale > 0 ? err / scale : err;
    ok_ = relative_error_ <= tolerance_;
    if (!ok_) {
      std::ostringstream os;
      os << "result differs from Kokkos Kernels native: ||y - y_ref||_inf / (|A||x|)_inf = "
         << relative_error_ << " > " << tolerance_;
      error_ = os.str();
    }
    // y random again, as the timed calls will find it.
    fill_random(y_[0], options_.seed + 2);
    Kokkos::fence();
  }

  Options const& options_;
  Implementation<Scalar> implementation_;
  std::unique_ptr<Runner<Scalar>> runner_;
  Crs<Scalar> base_;
  int fem_n_ = 0;
  std::vector<Vector<Scalar>> x_, y_;
  bool ok_ = false;
  std::string error_;
  double relative_error_ = 0;
  double tolerance_ = 0;
  std::optional<MatrixFeatures> features_;
};

/// The cached setup for (source, implementation): built on first use, kept while consecutive
/// benchmarks (repetitions, spmv -> spmv200 -> cg) ask for the same pair, then replaced.
/// Throws Unrepresentable (remembered, so the obstacle is computed once per pair).
template <class Scalar>
SpmvSetup<Scalar>& spmv_setup(Options const& options, MatrixSource const& source,
                              Implementation<Scalar> const& implementation);

} // namespace spmvkit::perf

#endif
