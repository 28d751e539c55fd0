#ifndef SPMVKIT_PERF_SPMV_SETUP_HPP
#define SPMVKIT_PERF_SPMV_SETUP_HPP

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// One matrix in one format, ready to multiply: copy 0 (checked against Kokkos Kernels
/// native) and, on demand, further deep copies of matrix, x and y that the timed loop rotates
/// through so that small problems are not measured out of the last-level cache.
template <class Scalar>
class SpmvSetup {
public:
  SpmvSetup(MatrixSource const& source, FormatSpec const& format)
      : format_(format), base_(load_matrix<Scalar>(source)), fem_n_(source.fem_n) {
    add_copy(base_);
    if (format_.is_sell()) {
      auto const& S = sell_[0];
      stored_ = S.stored_entries();
      bytes_ =
          sell_bytes<Scalar>(S.num_rows(), S.num_cols(), stored_, S.num_chunks(), S.is_permuted());
    } else if (format_.is_sell16()) {
      auto const& S = sell16_[0];
      stored_ = S.stored_entries();
      bytes_ = sell_bytes<Scalar, std::int16_t>(S.num_rows(), S.num_cols(), stored_, S.num_chunks(),
                                                S.is_permuted());
    } else {
      stored_ = base_.nnz();
      bytes_ = crs_bytes<Scalar>(base_.num_rows(), base_.num_cols(), base_.nnz());
    }
    check();
  }

  FormatSpec const& format() const { return format_; }
  Crs<Scalar> const& crs_matrix() const { return base_; }
  Sell<Scalar> const& sell_matrix() const { return sell_.at(0); }
  Sell16<Scalar> const& sell16_matrix() const { return sell16_.at(0); }
  KKMatrix<Scalar> const& kk_matrix() const { return kk_.at(0); }
  Vector<Scalar> const& x(int k) const { return x_.at(static_cast<std::size_t>(k)); }
  Vector<Scalar> const& y(int k) const { return y_.at(static_cast<std::size_t>(k)); }
  int fem_n() const { return fem_n_; }

  std::int64_t rows() const { return base_.num_rows(); }
  std::int64_t cols() const { return base_.num_cols(); }
  std::int64_t nnz() const { return base_.nnz(); }
  std::int64_t stored() const { return stored_; }
  double padding() const { return nnz() ? static_cast<double>(stored_) / nnz() : 1.0; }
  /// Bytes one SpMV moves under the documented model (perf_tests/README.md).
  double bytes() const { return bytes_; }

  bool ok() const { return ok_; }
  std::string const& error() const { return error_; }
  double relative_error() const { return relative_error_; }
  double tolerance() const { return tolerance_; }

  /// Copies to rotate through: enough that they together exceed rotation_factor x LLC.
  int rotation() const {
    const double target = options().rotation_factor * static_cast<double>(device_info().llc_bytes);
    const double k = std::ceil(target / std::max(1.0, bytes_));
    return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(options().max_rotation)));
  }

  void ensure_copies(int count) {
    while (static_cast<int>(x_.size()) < count) add_copy(clone(base_));
  }

  /// y_k = A_k x_k (alpha = 1, beta = 0), asynchronous.
  void apply(int k) {
    const auto i = static_cast<std::size_t>(k);
    switch (format_.kind) {
    case FormatSpec::Kind::crs_row_per_thread:
      spmv(exec_, Scalar(1), crs_[i], x_[i], Scalar(0), y_[i], CrsKernel::row_per_thread);
      break;
    case FormatSpec::Kind::crs_vector:
      spmv(exec_, Scalar(1), crs_[i], x_[i], Scalar(0), y_[i], CrsKernel::vector);
      break;
    case FormatSpec::Kind::crs_automatic:
      spmv(exec_, Scalar(1), crs_[i], x_[i], Scalar(0), y_[i], CrsKernel::automatic);
      break;
    case FormatSpec::Kind::sell: spmv(exec_, Scalar(1), sell_[i], x_[i], Scalar(0), y_[i]); break;
    case FormatSpec::Kind::sell16:
      spmv(exec_, Scalar(1), sell16_[i], x_[i], Scalar(0), y_[i]);
      break;
    case FormatSpec::Kind::kk_native:
    case FormatSpec::Kind::kk_default:
      kk_spmv_[i]->apply(exec_, Scalar(1), kk_[i], x_[i], Scalar(0), y_[i]);
      break;
    }
  }

private:
  void add_copy(Crs<Scalar> const& A) {
    const auto k = static_cast<std::uint64_t>(x_.size());
    const std::uint64_t seed = options().seed + 1000 * k;
    x_.push_back(random_vector<Scalar>("x", A.num_cols(), seed + 1));
    y_.push_back(random_vector<Scalar>("y", A.num_rows(), seed + 2));
    if (format_.is_sell()) {
      sell_.push_back(make_sell(exec_, A, format_.chunk, format_.sigma));
    } else if (format_.is_sell16()) {
      // Matrices with entries farther than 32767 from the diagonal (R-MAT graphs, most
      // SuiteSparse matrices) cannot use it: skipped like a format too large for its indices.
      if (!can_use_sell16(exec_, A)) {
        throw std::length_error("column offsets do not fit 16 bits");
      }
      sell16_.push_back(make_sell16(exec_, A, format_.chunk, format_.sigma));
    } else {
      crs_.push_back(A);
    }
    if (format_.is_kk()) {
      kk_.push_back(to_kokkos_kernels(A));
      kk_spmv_.push_back(std::make_unique<KKSpmv<Scalar>>(
          format_.kind == FormatSpec::Kind::kk_native ? KokkosKernelsAlgorithm::native
                                                      : KokkosKernelsAlgorithm::vendor_default));
    }
    exec_.fence();
  }

  /// ||y - y_ref||_inf <= tol * (|A||x|)_inf with y_ref from Kokkos Kernels native.
  void check() {
    Vector<Scalar> y_ref(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::y_ref")),
        static_cast<std::size_t>(base_.num_rows()));
    KKSpmv<Scalar> reference(KokkosKernelsAlgorithm::native);
    reference.apply(exec_, Scalar(1), to_kokkos_kernels(base_), x_[0], Scalar(0), y_ref);
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
    fill_random(y_[0], options().seed + 2);
    Kokkos::fence();
  }

  Exec exec_;
  FormatSpec format_;
  Crs<Scalar> base_;
  int fem_n_ = 0;
  std::vector<Crs<Scalar>> crs_;
  std::vector<Sell<Scalar>> sell_;
  std::vector<Sell16<Scalar>> sell16_;
  std::vector<KKMatrix<Scalar>> kk_;
  std::vector<std::unique_ptr<KKSpmv<Scalar>>> kk_spmv_;
  std::vector<Vector<Scalar>> x_, y_;
  std::int64_t stored_ = 0;
  double bytes_ = 0;
  bool ok_ = false;
  std::string error_;
  double relative_error_ = 0;
  double tolerance_ = 0;
};

/// The cached setup for (source, format): built on first use, kept while consecutive
/// benchmarks (repetitions, spmv -> spmv200 -> cg) ask for the same pair, then replaced.
template <class Scalar>
SpmvSetup<Scalar>& spmv_setup(MatrixSource const& source, FormatSpec const& format);

} // namespace spmvkit::perf

#endif
