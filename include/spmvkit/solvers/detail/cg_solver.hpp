// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_CG_SOLVER_HPP
#define SPMVKIT_SOLVERS_DETAIL_CG_SOLVER_HPP

// The CG loop behind spmvkit::cg (solvers/cg.hpp says what it does and why).
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/solvers/cg_options.hpp>
#include <spmvkit/solvers/detail/cg_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit::detail {

inline std::string cg_number(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

/// Whether two Views' storage overlaps (then an in-place solve would destroy b).
template <class A, class B>
bool views_overlap(A const& a, B const& b) {
  if (a.span() == 0 || b.span() == 0) return false;
  auto const* ab = reinterpret_cast<char const*>(a.data());
  auto const* bb = reinterpret_cast<char const*>(b.data());
  auto const* ae = ab + a.span() * sizeof(typename A::value_type);
  auto const* be = bb + b.span() * sizeof(typename B::value_type);
  return ab < be && bb < ae;
}

/// One CG solve: the arguments are checked and the work vectors allocated at
/// construction; solve() runs start, iterations, the true-residual check and
/// any residual replacement. Op may be const (applies are then const calls).
template <class ExecSpace, class Op, class BView, class XView>
class CgSolver {
  using Scalar = typename Op::scalar_type;
  using Vec = typename Op::vector_type;
  using Range = CgRange<ExecSpace>;
  using MemorySpace = typename Vec::memory_space;
  using HostSums = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using DeviceSum = Kokkos::View<double, MemorySpace, Kokkos::MemoryUnmanaged>;
  using DeviceRecord = Kokkos::View<CgRecord, MemorySpace, Kokkos::MemoryUnmanaged>;
  using Scalars = Kokkos::View<double*, MemorySpace>;
  using Flag = Kokkos::View<int, MemorySpace>;
  static_assert(std::is_same_v<ExecSpace, typename Op::execution_space>,
                "spmvkit::cg: exec must be the operator's (matrix's) execution space");
  static_assert(Kokkos::is_view<BView>::value && Kokkos::is_view<XView>::value,
                "spmvkit::cg: b and x must be Kokkos::Views");
  static_assert(static_cast<int>(BView::rank) == 1 && static_cast<int>(XView::rank) == 1,
                "spmvkit::cg: b and x must have rank 1");
  static_assert(std::is_same_v<typename BView::non_const_value_type, Scalar> &&
                    std::is_same_v<typename XView::value_type, Scalar>,
                "spmvkit::cg: b and x must hold the matrix's scalar type, x non-const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename XView::memory_space>::accessible,
                "spmvkit::cg: b and x must be accessible from the execution space");
  static_assert(sizeof(CgRecord) == 3 * sizeof(double), "a record is three ring doubles");
  static constexpr double largest = std::numeric_limits<double>::max();

public:
  CgSolver(ExecSpace const& exec, Op& op, BView const& b, XView const& x, CgOptions const& opts)
      : exec_(exec), op_(op), b_(b), x_(x), opts_(opts), n_(op.num_rows()) {
    if (op.num_cols() != n_ || static_cast<std::int64_t>(b.extent(0)) != n_ ||
        static_cast<std::int64_t>(x.extent(0)) != n_) {
      throw std::invalid_argument(
          "spmvkit::cg: A must be square with b and x of matching size; A is " +
          std::to_string(n_) + " x " + std::to_string(op.num_cols()) + ", b has " +
          std::to_string(b.extent(0)) + " entries, x has " + std::to_string(x.extent(0)));
    }
    if (views_overlap(b, x)) {
      throw std::invalid_argument("spmvkit::cg: x and b must not share storage (x is overwritten "
                                  "while b is still needed); solve into a separate View");
    }
    if (!(opts.relative_tolerance >= 0) || opts.max_iterations < 0 || opts.check_interval < 0 ||
        opts.progress_every < 0) {
      throw std::invalid_argument("spmvkit::cg: relative_tolerance (" +
                                  cg_number(opts.relative_tolerance) + "), max_iterations (" +
                                  std::to_string(opts.max_iterations) + "), check_interval (" +
                                  std::to_string(opts.check_interval) + ") and progress_every (" +
                                  std::to_string(opts.progress_every) + ") must be >= 0");
    }
    // A longer interval than the solve reads nothing more often, and the
    // scalar ring (interval + 1 records) must stay a small allocation.
    const int interval =
        opts.check_interval > 0 ? opts.check_interval : cg_check_interval<ExecSpace>();
    check_interval_ = std::max(1, std::min(interval, std::max(1, opts.max_iterations)));
    layout_ = CgScalarLayout{check_interval_ + 1};
    r_ = allocate_view<Vec>(exec, "SpMVKit::cg::r", n_);
    p_ = allocate_view<Vec>(exec, "SpMVKit::cg::p", n_);
    q_ = allocate_view<Vec>(exec, "SpMVKit::cg::q", n_);
    scalars_ = allocate_view<Scalars>(exec, "SpMVKit::cg::scalars", layout_.size());
    host_scalars_ = Kokkos::create_mirror_view(scalars_);
    stopped_ = Flag("SpMVKit::cg::stopped");
  }

  CgResult solve() {
    Kokkos::Timer total_timer;
    auto done = [&](CgStatus status, std::string message) {
      exec_.fence();
      result_.status = status;
      result_.message = std::move(message);
      result_.total_seconds = total_timer.seconds();
      return result_;
    };
    if (!opts_.use_initial_guess) {
      Kokkos::parallel_for("SpMVKit::cg::zero_x", Range(exec_, 0, n_), CgZero<XView>{x_});
    }
    if (opts_.jacobi) {
      std::string problem = invert_diagonal();
      if (!problem.empty()) {
        result_.relative_residual = result_.true_relative_residual =
            std::numeric_limits<double>::quiet_NaN(); // not computed
        return done(CgStatus::breakdown, std::move(problem));
      }
    }
    std::string problem = start(opts_.use_initial_guess);
    if (!problem.empty()) return done(CgStatus::breakdown, std::move(problem));
    if (norm_b_ == 0) {
      // The solution is 0 whatever the start.
      Kokkos::parallel_for("SpMVKit::cg::zero_x", Range(exec_, 0, n_), CgZero<XView>{x_});
      return done(CgStatus::converged, "");
    }

    Kokkos::Timer loop_timer;
    CgStatus status = iterate(loop_timer);
    double previous_true = std::numeric_limits<double>::infinity();
    while (true) {
      compute_true_residual();
      const double true_rr = result_.true_relative_residual;
      if (status != CgStatus::converged) break;
      if (true_rr <= opts_.relative_tolerance) break;
      // The recurrence converged, the true residual did not: replace the
      // residual and go on while that still pays (halves the true residual).
      if (!(true_rr < 0.5 * previous_true) || result_.iterations >= opts_.max_iterations) {
        message_ = "the recurrence residual " + cg_number(result_.relative_residual) +
                   " met the tolerance " + cg_number(opts_.relative_tolerance) +
                   " but the true residual ‖b − A x‖/‖b‖ is " + cg_number(true_rr) + " after " +
                   std::to_string(result_.residual_replacements) +
                   " residual replacement(s); the tolerance is below what this precision "
                   "attains for this matrix";
        status = result_.iterations >= opts_.max_iterations && true_rr < 0.5 * previous_true
                     ? CgStatus::iteration_limit
                     : CgStatus::stagnated;
        break;
      }
      previous_true = true_rr;
      ++result_.residual_replacements;
      problem = start(true);
      if (!problem.empty()) {
        status = CgStatus::breakdown;
        message_ = problem;
        break;
      }
      status = iterate(loop_timer);
    }
    result_.iteration_seconds = loop_timer.seconds();
    result_.seconds_per_iteration =
        result_.iterations > 0 ? result_.iteration_seconds / result_.iterations : 0.0;
    if (opts_.time_spmv) result_.spmv_seconds = spmv_seconds_;
    if (opts_.progress_stream && opts_.progress_every > 0) {
      *opts_.progress_stream << "cg: " << name(status) << " after " << result_.iterations
                             << " iterations, relative residual " << std::scientific
                             << std::setprecision(3) << result_.relative_residual << " (true "
                             << result_.true_relative_residual << ")" << std::defaultfloat
                             << (message_.empty() ? "" : ": " + message_) << std::endl;
    }
    return done(status, message_);
  }

private:
  /// D⁻¹ into dinv_; the reason if a diagonal entry is unusable.
  std::string invert_diagonal() {
    dinv_ = allocate_view<Vec>(exec_, "SpMVKit::cg::inverse_diagonal", n_);
    op_.diagonal(exec_, dinv_);
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "SpMVKit::cg::check_diagonal", Range(exec_, 0, n_),
        InvertDiagonal<Vec>{dinv_, static_cast<double>(std::numeric_limits<Scalar>::max())}, bad);
    double bad_sum = static_cast<double>(bad);
    op_.reduction().all_reduce_host(&bad_sum, 1);
    if (bad_sum == 0) return "";
    std::int64_t first = n_;
    Kokkos::parallel_reduce("SpMVKit::cg::first_bad_diagonal", Range(exec_, 0, n_),
                            FirstZero<Vec>{dinv_}, Kokkos::Min<std::int64_t>(first));
    exec_.fence();
    return "Jacobi preconditioner: " + std::to_string(static_cast<std::int64_t>(bad_sum)) + " of " +
           std::to_string(n_) +
           " rows have a zero, negative or non-finite diagonal "
           "entry" +
           (first < n_ ? " (first: row " + std::to_string(first) + ")" : "");
  }

  /// r = b − A x (from_x) or b, p = z = D⁻¹r; rᵀr, rᵀz and ‖b‖ to the host,
  /// and the start record of iteration result_.iterations on the device.
  std::string start(bool from_x) {
    double sums[3] = {0, 0, 0};
    if (from_x) {
      Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(exec_, 0, n_), CgCopy<XView, Vec>{x_, p_});
      op_.apply(exec_, p_, q_);
    }
    Kokkos::parallel_reduce("SpMVKit::cg::start", Range(exec_, 0, n_),
                            CgStart<BView, Vec>{3, b_, q_, r_, p_, dinv_, from_x, opts_.jacobi},
                            HostSums(sums, 3));
    exec_.fence();
    op_.reduction().all_reduce_host(sums, 3);
    rr_ = sums[0];
    const double rz = sums[1];
    if (result_.iterations == 0 && result_.residual_replacements == 0) {
      norm_b_ = std::sqrt(sums[2]);
      if (!std::isfinite(norm_b_)) {
        result_.relative_residual = result_.true_relative_residual = norm_b_;
        return "non-finite value in bᵀb (the right-hand side)";
      }
      if (norm_b_ == 0) return "";
      threshold_sq_ = (opts_.relative_tolerance * norm_b_) * (opts_.relative_tolerance * norm_b_);
    }
    if (!std::isfinite(rr_) || !std::isfinite(rz)) {
      result_.relative_residual = result_.true_relative_residual = rr_;
      return "non-finite value in the residual rᵀr at iteration " +
             std::to_string(result_.iterations) + " (is the initial guess or the matrix finite?)";
    }
    result_.relative_residual = std::sqrt(rr_) / norm_b_;
    for (int i = 0; i < layout_.size(); ++i) host_scalars_(i) = 0;
    host_scalars_(layout_.record(result_.iterations)) = rr_;
    host_scalars_(layout_.record(result_.iterations) + 1) = rz;
    Kokkos::deep_copy(exec_, scalars_, host_scalars_);
    Kokkos::deep_copy(exec_, stopped_, 0);
    exec_.fence();
    return "";
  }

  /// Iterations from result_.iterations on, until the device's stopping test
  /// (cg_verdict) or the iteration limit ends them.
  CgStatus iterate(Kokkos::Timer const& loop_timer) {
    const int first = result_.iterations;
    if (rr_ <= threshold_sq_) return CgStatus::converged;
    CgStatus status = CgStatus::iteration_limit;
    int examined = first;
    Kokkos::Timer spmv_timer;
    for (int k = first + 1; status == CgStatus::iteration_limit && k <= opts_.max_iterations; ++k) {
      const int current = layout_.record(k), previous = layout_.record(k - 1);
      if (opts_.time_spmv) {
        exec_.fence();
        spmv_timer.reset();
      }
      op_.apply(exec_, p_, q_);
      if (opts_.time_spmv) {
        exec_.fence();
        spmv_seconds_ += spmv_timer.seconds();
      }
      Kokkos::parallel_reduce("SpMVKit::cg::pAp", Range(exec_, 0, n_), CgDot<Vec>{p_, q_},
                              DeviceSum(scalars_.data() + CgScalarLayout::pq));
      op_.reduction().all_reduce(exec_, scalars_.data() + CgScalarLayout::pq, 1);
      Kokkos::parallel_reduce("SpMVKit::cg::update", Range(exec_, 0, n_),
                              CgUpdate<Vec, Scalars, Flag>{q_, r_, dinv_, scalars_, stopped_,
                                                           previous, largest, opts_.jacobi},
                              DeviceRecord(reinterpret_cast<CgRecord*>(scalars_.data() + current)));
      // rᵀr and rᵀz only: pᵀAp rides along from index 0 and is global already.
      op_.reduction().all_reduce(exec_, scalars_.data() + current, 2);
      Kokkos::parallel_for(
          "SpMVKit::cg::direction", Range(exec_, 0, n_),
          CgDirection<XView, Vec, Scalars, Flag>{x_, r_, p_, dinv_, scalars_, stopped_, current,
                                                 previous, threshold_sq_, largest, opts_.jacobi});
      const bool progress_due = opts_.progress_every > 0 && k % opts_.progress_every == 0;
      if ((k - first) % check_interval_ != 0 && k != opts_.max_iterations && !progress_due)
        continue;
      Kokkos::deep_copy(exec_, host_scalars_, scalars_);
      exec_.fence();
      const double elapsed = loop_timer.seconds();
      while (examined < k && status == CgStatus::iteration_limit)
        status = examine(++examined, elapsed);
    }
    exec_.fence();
    return status;
  }

  /// What the host learns from iteration k's record (the same cg_verdict the
  /// device applied, so both stop at the same iteration).
  CgStatus examine(int k, double elapsed) {
    const int at = layout_.record(k);
    const double rr = host_scalars_(at), rz = host_scalars_(at + 1), pAp = host_scalars_(at + 2);
    switch (cg_verdict(rr, rz, pAp, threshold_sq_, largest)) {
    case CgVerdict::nonfinite_pAp:
      message_ = "non-finite value in pᵀAp at iteration " + std::to_string(k);
      return CgStatus::breakdown;
    case CgVerdict::not_positive_definite:
      message_ = "matrix is not positive definite (pᵀAp = " + cg_number(pAp) + " at iteration " +
                 std::to_string(k) + ")";
      return CgStatus::breakdown;
    case CgVerdict::nonfinite_r:
      result_.iterations = k;
      message_ = std::string("non-finite value in ") + (std::isfinite(rr) ? "rᵀz" : "rᵀr") +
                 " at iteration " + std::to_string(k);
      return CgStatus::breakdown;
    case CgVerdict::converged:
    case CgVerdict::go: break;
    }
    result_.iterations = k;
    rr_ = rr;
    result_.relative_residual = std::sqrt(rr) / norm_b_;
    report(k, elapsed);
    return rr <= threshold_sq_ ? CgStatus::converged : CgStatus::iteration_limit;
  }

  void report(int k, double elapsed) {
    if (opts_.progress_every <= 0 || k % opts_.progress_every != 0) return;
    if (opts_.progress_stream) {
      *opts_.progress_stream << "cg: iteration " << std::setw(6) << k << "  relative residual "
                             << std::scientific << std::setprecision(3) << result_.relative_residual
                             << std::defaultfloat << "  " << std::fixed << std::setprecision(3)
                             << 1e3 * elapsed / k << " ms/iteration" << std::defaultfloat
                             << std::endl;
    }
    if (opts_.progress_callback)
      opts_.progress_callback(CgProgress{k, result_.relative_residual, elapsed});
  }

  /// ‖b − A x‖/‖b‖ into result_.true_relative_residual (q = A x is left for a
  /// residual replacement's start, which recomputes it anyway).
  void compute_true_residual() {
    if (!(norm_b_ > 0) || !std::isfinite(norm_b_)) return;
    Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(exec_, 0, n_), CgCopy<XView, Vec>{x_, p_});
    op_.apply(exec_, p_, q_);
    double sum = 0;
    Kokkos::parallel_reduce("SpMVKit::cg::true_residual", Range(exec_, 0, n_),
                            CgResidualNorm<BView, Vec>{b_, q_}, sum);
    exec_.fence();
    op_.reduction().all_reduce_host(&sum, 1);
    result_.true_relative_residual = std::sqrt(sum) / norm_b_;
  }

  ExecSpace exec_;
  Op& op_;
  BView b_;
  XView x_;
  CgOptions const& opts_;
  std::int64_t n_;
  int check_interval_ = 1;
  CgScalarLayout layout_;
  Vec r_, p_, q_, dinv_; // dinv_ stays empty without Jacobi; kernels then never read it
  Scalars scalars_;
  typename Scalars::HostMirror host_scalars_;
  Flag stopped_;
  CgResult result_;
  std::string message_;
  double norm_b_ = 0, threshold_sq_ = 0, rr_ = 0, spmv_seconds_ = 0;
};

} // namespace spmvkit::detail

#endif
