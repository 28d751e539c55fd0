// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_KRYLOV_BASE_HPP
#define SPMVKIT_SOLVERS_DETAIL_KRYLOV_BASE_HPP

// What bicgstab() and gmres() share: argument checks, the work copy of x, timed
// applies, reductions through the operator's policy, the true residual, progress
// lines and the result (solvers/solver_options.hpp states the stopping rules).
#include <spmvkit/core/detail/row_blocks.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/solver_options.hpp>
#include <spmvkit/solvers/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit::detail {

inline std::string solver_number(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

template <class To, class From>
struct KrylovCopy {
  To to;
  From from;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) = from(i); }
};

/// r = b − q; sums = {rᵀr, bᵀb}.
template <class Vec, class B>
struct KrylovResidual {
  using value_type = double[];
  B b;
  Vec q, r;
  unsigned value_count = 2;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const auto ri = b(i) - q(i);
    r(i) = ri;
    sums[0] += static_cast<double>(ri) * static_cast<double>(ri);
    sums[1] += static_cast<double>(b(i)) * static_cast<double>(b(i));
  }
};

// Whether a reduction policy can agree on errors across its processes
// (agree_on_errors: collective; throws the same exception everywhere when any
// process has a message), as MpiReduction does.
template <class Reduction, class = void>
struct has_error_agreement : std::false_type {};
template <class Reduction>
struct has_error_agreement<Reduction,
                           std::void_t<decltype(std::declval<Reduction const&>().agree_on_errors(
                               "", std::declval<std::string const&>()))>> : std::true_type {};

/// The frame of a Krylov solver with host-formed scalars.
template <class ExecutionSpace, class Op, class Prec, class BView, class XView>
class KrylovBase {
protected:
  using Scalar = typename Op::scalar_type;
  using Vec = typename Op::vector_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace>;
  using Reduction = std::decay_t<decltype(std::declval<Op const&>().reduction())>;
  static constexpr bool identity_prec = is_identity_preconditioner_v<Prec>;
  static constexpr bool elementwise_prec = is_elementwise_preconditioner_v<Prec>;
  static_assert(std::is_same_v<ExecutionSpace, typename Op::execution_space>,
                "spmvkit solvers: exec must be the operator's (matrix's) execution space");
  static_assert(is_preconditioner_v<Prec>,
                "spmvkit solvers: the preconditioner must model the concept of "
                "solvers/preconditioner.hpp");
  static_assert(std::is_same_v<typename Prec::vector_type, Vec>,
                "spmvkit solvers: the preconditioner's vector_type must be the operator's");
  static_assert(Kokkos::is_view<BView>::value && Kokkos::is_view<XView>::value &&
                    static_cast<int>(BView::rank) == 1 && static_cast<int>(XView::rank) == 1,
                "spmvkit solvers: b and x must be rank-1 Kokkos::Views");
  static_assert(std::is_same_v<typename BView::non_const_value_type, Scalar> &&
                    std::is_same_v<typename XView::value_type, Scalar>,
                "spmvkit solvers: b and x must hold the operator's scalar_type, x non-const");
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace, typename BView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace, typename XView::memory_space>::accessible,
      "spmvkit solvers: b and x must be accessible from the execution space");

  KrylovBase(char const* name, ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b,
             XView const& x, SolverOptions const& opts)
      : name_(name), exec_(exec), op_(op), M_(M), b_(b), x_(x), opts_(opts), n_(op.num_rows()),
        reduction_(op.reduction()) {
    agreed([&] { set_up(exec, op, M, b, x, opts); });
  }

  /// Runs `f` (checks, allocations); for a distributed operator every process
  /// then learns whether any failed, so that none waits in a reduction for a
  /// process that threw.
  template <class F>
  void agreed(F&& f) {
    if constexpr (has_error_agreement<Reduction>::value) {
      std::string error;
      try {
        f();
      } catch (std::exception const& e) {
        error = e.what();
      }
      reduction_.agree_on_errors((std::string("spmvkit::") + name_).c_str(), error);
    } else {
      f();
    }
  }

private:
  void set_up(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b, XView const& x,
              SolverOptions const& opts) {
    const std::string where = std::string("spmvkit::") + name_;
    if (op.num_cols() != n_ || static_cast<std::int64_t>(b.extent(0)) != n_ ||
        static_cast<std::int64_t>(x.extent(0)) != n_) {
      throw std::invalid_argument(
          where + ": A must be square with b and x of matching size; A is " + std::to_string(n_) +
          " x " + std::to_string(op.num_cols()) + ", b has " + std::to_string(b.extent(0)) +
          " entries, x has " + std::to_string(x.extent(0)));
    }
    if (storage_overlaps(b, x)) {
      throw std::invalid_argument(where + ": x and b must not share storage (x is overwritten "
                                          "while b is still needed); solve into a separate View");
    }
    check_preconditioner_size(M, n_, where.c_str());
    check_solver_options(opts, where.c_str());
    lease_ = WorkspaceLease(opts.workspace, where);
    xw_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::solver::x", n_);
    tmp_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::solver::ax", n_);
  }

protected:
  /// y = A x, timed when asked.
  void apply_op(Vec const& in, Vec const& out) {
    if (opts_.time_spmv) {
      exec_.fence();
      spmv_timer_.reset();
    }
    op_.apply(exec_, in, out);
    if (opts_.time_spmv) {
      exec_.fence();
      spmv_seconds_ += spmv_timer_.seconds();
    }
  }

  /// z = M⁻¹ r.
  void apply_prec(Vec const& r, Vec const& z) {
    if constexpr (identity_prec) {
      Kokkos::parallel_for("SpMVKit::solver::copy", Range(exec_, 0, n_),
                           KrylovCopy<Vec, Vec>{z, r});
    } else {
      M_.apply(exec_, r, z);
    }
  }

  /// Sums `count` partial sums across the operator's processes (host array).
  void all_reduce(double* sums, int count) { reduction_.all_reduce_host(sums, count); }

  double dot(Vec const& a, Vec const& b) {
    double s = 0;
    reduce_rows<8>("SpMVKit::solver::dot", exec_, n_, RowDot<Vec, Vec>{a, b}, s);
    all_reduce(&s, 1);
    return s;
  }

  /// x_work = x (use_initial_guess) or 0.
  void start_x() {
    if (opts_.use_initial_guess) {
      Kokkos::parallel_for("SpMVKit::solver::copy_x", Range(exec_, 0, n_),
                           KrylovCopy<Vec, XView>{xw_, x_});
    } else {
      Kokkos::deep_copy(exec_, xw_, Scalar(0));
    }
  }

  /// r = b − A x_work; returns ‖r‖ and sets norm_b_ the first time.
  double residual(Vec const& r) {
    apply_op(xw_, tmp_);
    double sums[2] = {0, 0};
    reduce_rows<2>("SpMVKit::solver::residual", exec_, n_, KrylovResidual<Vec, BView>{b_, tmp_, r},
                   sums);
    all_reduce(sums, 2);
    if (norm_b_ < 0) norm_b_ = std::sqrt(sums[1]);
    return std::sqrt(sums[0]);
  }

  /// The start every solver shares: x_work = x0 (or 0) and r = b − A x_work;
  /// returns the finished result when there is nothing to iterate (a
  /// non-finite start, b = 0, x0 already meeting the tolerance), else nothing,
  /// with ‖r‖ in rnorm.
  std::optional<SolverResult> begin(Vec const& r, double& rnorm, Kokkos::Timer const& total) {
    start_x();
    rnorm = residual(r);
    std::string message;
    if (non_finite_start(rnorm, message)) {
      result_.relative_residual = result_.true_relative_residual = std::nan("");
      return finish(SolverStatus::non_finite, message, total, 0);
    }
    if (norm_b_ == 0) {
      Kokkos::deep_copy(exec_, xw_, Scalar(0));
      return finish(SolverStatus::converged, "", total, 0);
    }
    result_.relative_residual = result_.true_relative_residual = rnorm / norm_b_;
    if (rnorm <= tolerance() * norm_b_) return finish(SolverStatus::converged, "", total, 0);
    return std::nullopt;
  }

  /// The relative tolerance that also honours the absolute one.
  double tolerance() const {
    return norm_b_ > 0 ? std::max(opts_.relative_tolerance, opts_.absolute_tolerance / norm_b_)
                       : opts_.relative_tolerance;
  }

  void report(int k, double relative, double elapsed) {
    if (opts_.progress_every <= 0 || k % opts_.progress_every != 0) return;
    if (opts_.progress_stream) {
      *opts_.progress_stream << name_ << ": iteration " << std::setw(6) << k
                             << "  relative residual " << std::scientific << std::setprecision(3)
                             << relative << std::defaultfloat << "  " << std::fixed
                             << std::setprecision(3) << 1e3 * elapsed / k << " ms/iteration"
                             << std::defaultfloat << std::endl;
    }
    if (opts_.progress_callback) opts_.progress_callback(SolverProgress{k, relative, elapsed});
  }

  /// Writes x back, fills the timings and the final line; returns the result.
  SolverResult finish(SolverStatus status, std::string message, Kokkos::Timer const& total,
                      double loop_seconds) {
    Kokkos::parallel_for("SpMVKit::solver::copy_back", Range(exec_, 0, n_),
                         KrylovCopy<XView, Vec>{x_, xw_});
    exec_.fence();
    result_.status = status;
    result_.message = std::move(message);
    result_.iteration_seconds = loop_seconds;
    result_.seconds_per_iteration =
        result_.iterations > 0 ? loop_seconds / result_.iterations : 0.0;
    if (opts_.time_spmv) result_.spmv_seconds = spmv_seconds_;
    result_.total_seconds = total.seconds();
    if (opts_.progress_stream && opts_.progress_every > 0) {
      *opts_.progress_stream << name_ << ": " << name(status) << " after " << result_.iterations
                             << " iterations, relative residual " << std::scientific
                             << std::setprecision(3) << result_.relative_residual << " (true "
                             << result_.true_relative_residual << ")" << std::defaultfloat
                             << (result_.message.empty() ? "" : ": " + result_.message)
                             << std::endl;
    }
    return result_;
  }

  /// A non-finite b or start: the status and message, or nothing.
  bool non_finite_start(double rnorm, std::string& message) const {
    if (!std::isfinite(norm_b_)) {
      message = "non-finite value in the right-hand side b";
      return true;
    }
    if (!std::isfinite(rnorm)) {
      message = "non-finite value in the residual b − A x0 (is the initial guess or the matrix "
                "finite?)";
      return true;
    }
    return false;
  }

  char const* name_;
  ExecutionSpace exec_;
  Op& op_;
  Prec const& M_;
  BView b_;
  XView x_;
  SolverOptions const& opts_;
  std::int64_t n_;
  Reduction reduction_;
  WorkspaceLease lease_; // held from set-up to the end of the solve
  Vec xw_, tmp_;
  double norm_b_ = -1;
  SolverResult result_;
  Kokkos::Timer spmv_timer_;
  double spmv_seconds_ = 0;
};

/// Runs Solver<ExecutionSpace, Op, Prec, BView, XView> (BicgstabSolver,
/// GmresSolver, ...): what every public overload of a solver does once it has
/// an operator, taken by reference so that one with state keeps it.
template <template <class, class, class, class, class> class Solver, class ExecutionSpace, class Op,
          class Prec, class BView, class XView, class Options>
SolverResult run_krylov(ExecutionSpace const& exec, Op& op, Prec const& M, BView const& b,
                        XView const& x, Options const& opts) {
  Solver<ExecutionSpace, Op, Prec, BView, XView> solver(exec, op, M, b, x, opts);
  return solver.solve();
}

/// The same without a preconditioner (M = I).
template <template <class, class, class, class, class> class Solver, class ExecutionSpace, class Op,
          class BView, class XView, class Options>
SolverResult run_krylov_unpreconditioned(ExecutionSpace const& exec, Op& op, BView const& b,
                                         XView const& x, Options const& opts) {
  const IdentityPreconditioner<std::remove_const_t<Op>> I(op.num_rows());
  return run_krylov<Solver>(exec, op, I, b, x, opts);
}

} // namespace spmvkit::detail

#endif
