// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_CG_SOLVER_HPP
#define SPMVKIT_SOLVERS_DETAIL_CG_SOLVER_HPP

// The CG loop behind spmvkit::cg (solvers/cg.hpp says what it does and why).
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/solvers/cg_options.hpp>
#include <spmvkit/solvers/detail/cg_kernels.hpp>
#include <spmvkit/solvers/detail/cg_tuning.hpp>
#include <spmvkit/solvers/detail/krylov_base.hpp>
#include <spmvkit/solvers/workspace.hpp>

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

/// What a vector-operations policy works on: the solver's instance, vectors
/// and iteration scalars. The solver owns it; the policy's hooks (see
/// FusedCgVectorOps) read and write it.
template <class ExecutionSpace, class Vec, class BView, class XView, class Reduction>
struct CgWork {
  using Scalars = Kokkos::View<double*, typename Vec::memory_space>;
  CgWork(ExecutionSpace const& e, BView const& b_in, XView const& x_in, Reduction const& red)
      : exec(e), b(b_in), x(x_in), reduction(red) {}
  ExecutionSpace exec;
  BView b;
  XView x;
  Vec r, p, q, dinv, z; // dinv without Jacobi and z unless the policy asks for it stay empty
  Reduction reduction;
  std::int64_t n = 0;
  bool jacobi = false;
  CgScalarLayout layout;
  Scalars scalars; // pᵀq, then the ring of iteration records (CgScalarLayout)
  typename Scalars::HostMirror host_scalars;
  Kokkos::View<int, typename Vec::memory_space> stopped;
  double threshold_sq = 0, largest = std::numeric_limits<double>::max();
};

/// The fused vector operations (spmvkit::FusedVectors): SpMVKit's own kernels,
/// every scalar formed and tested on the device, so the host reads the scalars
/// back only every check interval.
///
/// A vector-operations policy provides, for a CgWork w:
///  - `host_scalars`: whether the records are formed on the host (then the
///    solver examines every iteration and never copies the ring back);
///  - `needs_z`: whether Jacobi needs w.z (z = D⁻¹r stored);
///  - `start(w, from_x, z_out, sums)`: r = b − q (q = A x) or b, z_out = D⁻¹r;
///    sums = {rᵀr, rᵀz, bᵀb} of this rank, on the host;
///  - `p_dot_q(w, k)`, `update(w, k)`, `direction(w, k)`: iteration k after
///    q = A p, writing record k; each returns false once the host knows the
///    iteration stopped (host scalars only);
///  - `residual_norm_sq(w)`: ‖b − q‖² of this rank on the host (q = A x).
struct FusedCgVectorOps {
  static constexpr bool host_scalars = false;
  static constexpr bool needs_z = false;

  template <class W, class V>
  static void start(W& w, bool from_x, V const& z_out, double* sums) {
    using Range = CgRange<decltype(w.exec)>;
    using HostSums = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    Kokkos::parallel_reduce(
        "SpMVKit::cg::start", Range(w.exec, 0, w.n),
        CgStart<decltype(w.b), V>{3, w.b, w.q, w.r, z_out, w.dinv, from_x, w.jacobi},
        HostSums(sums, 3));
    w.exec.fence();
  }

  template <class W>
  static bool p_dot_q(W& w, int) {
    using Vec = decltype(w.r);
    using DeviceSum = Kokkos::View<double, typename Vec::memory_space, Kokkos::MemoryUnmanaged>;
    constexpr std::int64_t block = cg_block<decltype(w.exec)>();
    // The shared blocked dot (8 lanes on host blocks, one row per GPU thread),
    // summed on the device so that the host does not wait for pᵀAp.
    using Dot = RowBlockSum<RowDot<Vec, Vec>, is_host_space_v<decltype(w.exec)>, 8>;
    Kokkos::parallel_reduce(
        "SpMVKit::cg::pAp", CgRange<decltype(w.exec)>(w.exec, 0, cg_blocks(w.n, block)),
        Dot{{w.p, w.q}, w.n, block}, DeviceSum(w.scalars.data() + CgScalarLayout::pq));
    w.reduction.all_reduce(w.exec, w.scalars.data() + CgScalarLayout::pq, 1);
    return true;
  }

  template <class W>
  static bool update(W& w, int k) {
    using Vec = decltype(w.r);
    using Scalars = decltype(w.scalars);
    using Flag = decltype(w.stopped);
    using DeviceRecord =
        Kokkos::View<CgRecord, typename Vec::memory_space, Kokkos::MemoryUnmanaged>;
    const int current = w.layout.record(k), previous = w.layout.record(k - 1);
    constexpr std::int64_t block = cg_block<decltype(w.exec)>();
    Kokkos::parallel_reduce(
        "SpMVKit::cg::update", CgRange<decltype(w.exec)>(w.exec, 0, cg_blocks(w.n, block)),
        CgUpdate<Vec, Scalars, Flag, block>{w.q, w.r, w.dinv, w.scalars, w.stopped, previous,
                                            w.largest, w.jacobi, w.n},
        DeviceRecord(reinterpret_cast<CgRecord*>(w.scalars.data() + current)));
    // rᵀr and rᵀz only: pᵀAp rides along from index 0 and is global already.
    w.reduction.all_reduce(w.exec, w.scalars.data() + current, 2);
    return true;
  }

  template <class W>
  static void direction(W& w, int k) {
    using Vec = decltype(w.r);
    const int current = w.layout.record(k), previous = w.layout.record(k - 1);
    constexpr std::int64_t block = cg_block<decltype(w.exec)>();
    Kokkos::parallel_for(
        "SpMVKit::cg::direction", CgRange<decltype(w.exec)>(w.exec, 0, cg_blocks(w.n, block)),
        CgDirection<decltype(w.x), Vec, decltype(w.scalars), decltype(w.stopped), block>{
            w.x, w.r, w.p, w.dinv, w.scalars, w.stopped, current, previous, w.threshold_sq,
            w.largest, w.jacobi, w.n});
  }

  template <class W>
  static double residual_norm_sq(W& w) {
    double sum = 0;
    Kokkos::parallel_reduce("SpMVKit::cg::true_residual", CgRange<decltype(w.exec)>(w.exec, 0, w.n),
                            CgResidualNorm<decltype(w.b), decltype(w.q)>{w.b, w.q}, sum);
    w.exec.fence();
    return sum;
  }
};

// A reduction policy may split its all-reduce in two, all_reduce_begin(exec,
// sums, count) and all_reduce_end(exec), so that the pipelined CG posts it and
// runs the next apply before waiting (MpiReduction: one MPI_Iallreduce per
// iteration). Policies without the pair (LocalReduction) reduce at once.
template <class Reduction, class ExecutionSpace, class = void>
struct has_split_all_reduce : std::false_type {};
template <class Reduction, class ExecutionSpace>
struct has_split_all_reduce<
    Reduction, ExecutionSpace,
    std::void_t<decltype(std::declval<Reduction&>().all_reduce_begin(
                    std::declval<ExecutionSpace const&>(), std::declval<double*>(), 0)),
                decltype(std::declval<Reduction&>().all_reduce_end(
                    std::declval<ExecutionSpace const&>()))>> : std::true_type {};

// A reduction policy of several processes may also agree on set-up errors:
// agree_on_errors(step, message) returns when no process failed and
// otherwise throws the same exception on every process (MpiReduction).
/// One CG solve: the arguments are checked and the work vectors allocated at
/// construction; solve() runs start, iterations, the true-residual check and
/// any residual replacement. Op may be const (applies are then const calls).
/// VectorOps is the vector-operations policy of the standard variant
/// (FusedCgVectorOps or a policy with the same hooks); the pipelined variant
/// has its own fused kernels and needs the fused policy.
template <class ExecutionSpace, class Op, class BView, class XView,
          class VectorOps = FusedCgVectorOps>
class CgSolver {
  using Scalar = typename Op::scalar_type;
  using Vec = typename Op::vector_type;
  using Range = CgRange<ExecutionSpace>;
  using MemorySpace = typename Vec::memory_space;
  using Reduction = std::decay_t<decltype(std::declval<Op const&>().reduction())>;
  using Work = CgWork<ExecutionSpace, Vec, BView, XView, Reduction>;
  using Scalars = typename Work::Scalars;
  using Flag = Kokkos::View<int, MemorySpace>;
  using DeviceSum = Kokkos::View<double, MemorySpace, Kokkos::MemoryUnmanaged>;
  using DeviceSums = Kokkos::View<PipeCgSums, MemorySpace, Kokkos::MemoryUnmanaged>;
  using DevicePipeRecord = Kokkos::View<PipeCgRecord, MemorySpace, Kokkos::MemoryUnmanaged>;
  static_assert(std::is_same_v<ExecutionSpace, typename Op::execution_space>,
                "spmvkit::cg: exec must be the operator's (matrix's) execution space");
  static_assert(Kokkos::is_view<BView>::value && Kokkos::is_view<XView>::value,
                "spmvkit::cg: b and x must be Kokkos::Views");
  static_assert(static_cast<int>(BView::rank) == 1 && static_cast<int>(XView::rank) == 1,
                "spmvkit::cg: b and x must have rank 1");
  static_assert(std::is_same_v<typename BView::non_const_value_type, Scalar> &&
                    std::is_same_v<typename XView::value_type, Scalar>,
                "spmvkit::cg: b and x must hold the operator's scalar_type (for an SpMVKit "
                "matrix its value_type, or mixed precision: double for a float matrix, float "
                "for a double matrix), x non-const");
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace, typename BView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace, typename XView::memory_space>::accessible,
      "spmvkit::cg: b and x must be accessible from the execution space");
  static_assert(sizeof(CgRecord) == 3 * sizeof(double), "a record is three ring doubles");
  static_assert(sizeof(PipeCgRecord) == 4 * sizeof(double), "a pipelined record is four doubles");
  static constexpr double largest = std::numeric_limits<double>::max();
  // Pipelined CG's recurrences drift faster in float (measured on FEM N = 32:
  // without replacement its pᵀAp turns negative at iteration 57 where standard
  // CG converges at 56).
  static constexpr int automatic_replacement_interval = sizeof(Scalar) >= 8 ? 100 : 20;

public:
  /// `preset_inverse_diagonal`: an element-wise preconditioner's D⁻¹ (solvers/preconditioner.hpp),
  /// used by the fused kernels as Jacobi's; empty: CgOptions::jacobi decides.
  CgSolver(ExecutionSpace const& exec, Op& op, BView const& b, XView const& x,
           CgOptions const& opts, Vec const& preset_inverse_diagonal = Vec(),
           bool has_preset = false)
      : op_(op), opts_(opts), n_(op.num_rows()), pipelined_(opts.variant == CgVariant::pipelined),
        preset_(has_preset), jacobi_(opts.jacobi || has_preset), w_(exec, b, x, op.reduction()) {
    w_.dinv = preset_inverse_diagonal;
    if constexpr (has_error_agreement<Reduction>::value) {
      // A distributed solve: a rank whose checks or allocations fail must not
      // leave the others waiting in the first all-reduce.
      std::string error;
      try {
        set_up(exec, op, b, x, opts);
      } catch (std::exception const& e) {
        error = e.what();
      }
      w_.reduction.agree_on_errors("spmvkit::cg", error);
    } else {
      set_up(exec, op, b, x, opts);
    }
  }

private:
  void set_up(ExecutionSpace const& exec, Op& op, BView const& b, XView const& x,
              CgOptions const& opts) {
    if (op.num_cols() != n_ || static_cast<std::int64_t>(b.extent(0)) != n_ ||
        static_cast<std::int64_t>(x.extent(0)) != n_) {
      throw std::invalid_argument(
          "spmvkit::cg: A must be square with b and x of matching size; A is " +
          std::to_string(n_) + " x " + std::to_string(op.num_cols()) + ", b has " +
          std::to_string(b.extent(0)) + " entries, x has " + std::to_string(x.extent(0)));
    }
    if (storage_overlaps(b, x)) {
      throw std::invalid_argument("spmvkit::cg: x and b must not share storage (x is overwritten "
                                  "while b is still needed); solve into a separate View");
    }
    check_solver_options(opts, "spmvkit::cg");
    if (!(opts.relative_tolerance >= 0) || opts.max_iterations < 0 || opts.check_interval < 0 ||
        opts.progress_every < 0 || opts.replacement_interval < 0) {
      throw std::invalid_argument(
          "spmvkit::cg: relative_tolerance (" + solver_number(opts.relative_tolerance) +
          "), max_iterations (" + std::to_string(opts.max_iterations) + "), check_interval (" +
          std::to_string(opts.check_interval) + "), progress_every (" +
          std::to_string(opts.progress_every) + ") and replacement_interval (" +
          std::to_string(opts.replacement_interval) + ") must be >= 0");
    }
    if (opts.variant != CgVariant::standard && opts.variant != CgVariant::pipelined) {
      throw std::invalid_argument("spmvkit::cg: unknown CgOptions::variant");
    }
    if (pipelined_ && VectorOps::host_scalars) {
      throw std::invalid_argument(
          "spmvkit::cg: CgVariant::pipelined needs the fused vector kernels (its one reduction "
          "is fused with the vector updates); use it with spmvkit::FusedVectors");
    }
    replacement_interval_ =
        opts.replacement_interval > 0 ? opts.replacement_interval : automatic_replacement_interval;
    // A longer interval than the solve reads nothing more often, and the
    // scalar ring must stay a small allocation. Host-formed scalars are
    // examined as they come.
    const int interval =
        opts.check_interval > 0 ? opts.check_interval : cg_check_interval<ExecutionSpace>();
    check_interval_ = VectorOps::host_scalars
                          ? 1
                          : std::max(1, std::min(interval, std::max(1, opts.max_iterations)));
    // The ring keeps every record until the host reads it; a pipelined
    // iteration also reads the record before the previous one.
    w_.layout = pipelined_ ? CgScalarLayout{check_interval_ + 2, 4, 3}
                           : CgScalarLayout{check_interval_ + 1, 3, 2};
    w_.n = n_;
    w_.jacobi = jacobi_;
    w_.largest = largest;
    lease_ = WorkspaceLease(opts.workspace, "spmvkit::cg");
    w_.r = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::r", n_);
    w_.p = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::p", n_);
    w_.q = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::q", n_);
    if (VectorOps::needs_z && jacobi_)
      w_.z = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::z", n_);
    if (pipelined_) {
      // q doubles as the pipelined q (D⁻¹s) with Jacobi and is unused without.
      w_.z = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::pipelined_z", n_);
      pw_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::pipelined_w", n_);
      pn_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::pipelined_n", n_);
      ps_ = work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::pipelined_s", n_);
      pu_ = jacobi_ ? work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::pipelined_u", n_) : w_.r;
      pm_ = jacobi_ ? work_view<Vec>(opts.workspace, exec, "SpMVKit::cg::pipelined_m", n_) : pw_;
      pq_ = jacobi_ ? w_.q : ps_;
    }
    // Pipelined: three scratch doubles after the ring for a replacement's sums.
    w_.scalars = work_view<Scalars>(opts.workspace, exec, "SpMVKit::cg::scalars",
                                    w_.layout.size() + (pipelined_ ? 3 : 0));
    w_.host_scalars = Kokkos::create_mirror_view(w_.scalars);
    w_.stopped = Flag("SpMVKit::cg::stopped");
  }

public:
  CgResult solve() {
    Kokkos::Timer total_timer;
    auto done = [&](SolverStatus status, std::string message) {
      w_.exec.fence();
      result_.status = status;
      result_.message = std::move(message);
      result_.total_seconds = total_timer.seconds();
      return result_;
    };
    if (!opts_.use_initial_guess) zero_x();
    if (opts_.jacobi && !preset_) {
      std::string problem = invert_diagonal();
      if (!problem.empty()) {
        result_.relative_residual = result_.true_relative_residual =
            std::numeric_limits<double>::quiet_NaN(); // not computed
        return done(SolverStatus::breakdown, std::move(problem));
      }
    }
    std::string problem = start(opts_.use_initial_guess);
    if (!problem.empty()) return done(SolverStatus::non_finite, std::move(problem));
    if (norm_b_ == 0) {
      // The solution is 0 whatever the start.
      zero_x();
      return done(SolverStatus::converged, "");
    }

    Kokkos::Timer loop_timer;
    SolverStatus status = iterate(loop_timer);
    double previous_true = std::numeric_limits<double>::infinity();
    while (true) {
      compute_true_residual();
      const double true_rr = result_.true_relative_residual;
      if ((status == SolverStatus::indefinite || status == SolverStatus::non_finite) &&
          rounding_breakdown_) {
        // Pipelined pᵀAp comes from a recurrence; after iterations that went
        // well, a pᵀAp <= 0 is its rounding (more likely in float) rather than
        // the matrix: restart from the true residual while that still pays.
        rounding_breakdown_ = false;
        if (!(true_rr < 0.5 * previous_true) || result_.iterations >= opts_.max_iterations) break;
        previous_true = true_rr;
        ++result_.residual_replacements;
        message_.clear();
        problem = start(true);
        if (!problem.empty()) {
          message_ = problem;
          break;
        }
        status = iterate(loop_timer);
        continue;
      }
      if (status != SolverStatus::converged) break;
      if (true_rr <= effective_tolerance_) break;
      // The recurrence converged, the true residual did not: replace the
      // residual and go on while that still pays (halves the true residual).
      if (!(true_rr < 0.5 * previous_true) || result_.iterations >= opts_.max_iterations) {
        message_ = "the recurrence residual " + solver_number(result_.relative_residual) +
                   " met the tolerance " + solver_number(opts_.relative_tolerance) +
                   " but the true residual ‖b − A x‖/‖b‖ is " + solver_number(true_rr) + " after " +
                   std::to_string(result_.residual_replacements) +
                   " residual replacement(s); the tolerance is below what this precision "
                   "attains for this matrix";
        status = result_.iterations >= opts_.max_iterations && true_rr < 0.5 * previous_true
                     ? SolverStatus::iteration_limit
                     : SolverStatus::stagnated;
        break;
      }
      previous_true = true_rr;
      ++result_.residual_replacements;
      problem = start(true);
      if (!problem.empty()) {
        status = SolverStatus::non_finite;
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
  void zero_x() {
    Kokkos::parallel_for("SpMVKit::cg::zero_x", Range(w_.exec, 0, n_), CgZero<XView>{w_.x});
  }

  /// y = A x on the solver's instance, timed when CgOptions::time_spmv asks for it.
  void apply(Vec const& x, Vec const& y) {
    if (opts_.time_spmv) {
      w_.exec.fence();
      spmv_timer_.reset();
    }
    op_.apply(w_.exec, x, y);
    if (opts_.time_spmv) {
      w_.exec.fence();
      spmv_seconds_ += spmv_timer_.seconds();
    }
  }

  /// D⁻¹ into w_.dinv; the reason if a diagonal entry is unusable.
  std::string invert_diagonal() {
    w_.dinv = work_view<Vec>(opts_.workspace, w_.exec, "SpMVKit::cg::inverse_diagonal", n_);
    op_.diagonal(w_.exec, w_.dinv);
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "SpMVKit::cg::check_diagonal", Range(w_.exec, 0, n_),
        InvertDiagonal<Vec>{w_.dinv, static_cast<double>(std::numeric_limits<Scalar>::max())}, bad);
    double bad_sum = static_cast<double>(bad);
    w_.reduction.all_reduce_host(&bad_sum, 1);
    if (bad_sum == 0) return "";
    std::int64_t first = n_;
    Kokkos::parallel_reduce("SpMVKit::cg::first_bad_diagonal", Range(w_.exec, 0, n_),
                            FirstZero<Vec>{w_.dinv}, Kokkos::Min<std::int64_t>(first));
    w_.exec.fence();
    return "Jacobi preconditioner: " + std::to_string(static_cast<std::int64_t>(bad_sum)) + " of " +
           std::to_string(n_) +
           " rows have a zero, negative or non-finite diagonal "
           "entry" +
           (first < n_ ? " (first: row " + std::to_string(first) + ")" : "");
  }

  /// r = b − A x (from_x) or b, and z = D⁻¹r into p (standard) or u
  /// (pipelined, which then also forms w = A u, m = D⁻¹w and wᵀu); rᵀr, rᵀz and
  /// ‖b‖ to the host, and the start record of iteration result_.iterations.
  std::string start(bool from_x) {
    double sums[3] = {0, 0, 0};
    if (from_x) {
      Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(w_.exec, 0, n_),
                           CgCopy<XView, Vec>{w_.x, w_.p});
      op_.apply(w_.exec, w_.p, w_.q);
    }
    VectorOps::start(w_, from_x, pipelined_ ? pu_ : w_.p, sums);
    w_.reduction.all_reduce_host(sums, 3);
    rr_ = sums[0];
    const double rz = sums[1];
    if (result_.iterations == 0 && result_.residual_replacements == 0) {
      norm_b_ = std::sqrt(sums[2]);
      if (!std::isfinite(norm_b_)) {
        result_.relative_residual = result_.true_relative_residual = norm_b_;
        return "non-finite value in bᵀb (the right-hand side)";
      }
      if (norm_b_ == 0) return "";
      // An absolute tolerance is a relative one for this b.
      effective_tolerance_ = std::max(opts_.relative_tolerance, opts_.absolute_tolerance / norm_b_);
      w_.threshold_sq = (effective_tolerance_ * norm_b_) * (effective_tolerance_ * norm_b_);
    }
    if (!std::isfinite(rr_) || !std::isfinite(rz)) {
      result_.relative_residual = result_.true_relative_residual = rr_;
      return "non-finite value in the residual rᵀr at iteration " +
             std::to_string(result_.iterations) + " (is the initial guess or the matrix finite?)";
    }
    result_.relative_residual = std::sqrt(rr_) / norm_b_;
    auto& host = w_.host_scalars;
    for (std::size_t i = 0; i < host.extent(0); ++i) host(i) = 0;
    host(w_.layout.record(result_.iterations)) = rr_;
    host(w_.layout.record(result_.iterations) + 1) = rz;
    Kokkos::deep_copy(w_.exec, w_.scalars, host);
    Kokkos::deep_copy(w_.exec, w_.stopped, 0);
    if (pipelined_) {
      apply(pu_, pw_);
      double* wz = w_.scalars.data() + w_.layout.record(result_.iterations) + 2;
      Kokkos::parallel_reduce("SpMVKit::cg::pipelined_start", Range(w_.exec, 0, n_),
                              PipeCgPrime<Vec>{pw_, pu_, pm_, w_.dinv, w_.jacobi}, DeviceSum(wz));
      w_.reduction.all_reduce(w_.exec, wz, 1);
    }
    w_.exec.fence();
    return "";
  }

  /// Iterations from result_.iterations on, until the device's stopping test
  /// (cg_verdict) or the iteration limit ends them.
  SolverStatus iterate(Kokkos::Timer const& loop_timer) {
    const int first = result_.iterations;
    first_ = first;
    if (rr_ <= w_.threshold_sq) return SolverStatus::converged;
    SolverStatus status = SolverStatus::iteration_limit;
    int examined = first;
    for (int k = first + 1; status == SolverStatus::iteration_limit && k <= opts_.max_iterations;
         ++k) {
      bool going = true;
      if (pipelined_) {
        pipelined_iteration(k, first);
      } else {
        apply(w_.p, w_.q);
        going = VectorOps::p_dot_q(w_, k) && VectorOps::update(w_, k);
        if (going) VectorOps::direction(w_, k);
      }
      const bool progress_due = opts_.progress_every > 0 && k % opts_.progress_every == 0;
      if (going && (k - first) % check_interval_ != 0 && k != opts_.max_iterations && !progress_due)
        continue;
      finish_all_reduce();
      if constexpr (!VectorOps::host_scalars) {
        Kokkos::deep_copy(w_.exec, w_.host_scalars, w_.scalars);
      }
      w_.exec.fence();
      const double elapsed = loop_timer.seconds();
      while (examined < k && status == SolverStatus::iteration_limit)
        status = examine(++examined, elapsed);
    }
    finish_all_reduce();
    w_.exec.fence();
    return status;
  }

  /// Pipelined iteration k: n = A m, the fused update and reduction (record
  /// k), one all-reduce, and every replacement_interval iterations the
  /// recurrence vectors recomputed from x and p (PipeCgReplace*). Nothing here
  /// waits for the device.
  void pipelined_iteration(int k, int first) {
    apply(pm_, pn_); // overlaps the all-reduce of record k - 1 when the policy splits it
    finish_all_reduce();
    const int current = w_.layout.record(k);
    constexpr std::int64_t block = cg_block<ExecutionSpace>();
    Kokkos::parallel_reduce(
        "SpMVKit::cg::pipelined_update", Range(w_.exec, 0, cg_blocks(n_, block)),
        PipeCgUpdate<XView, Vec, Scalars, block>{
            w_.x, w_.r, pu_, pw_, pm_, pn_, w_.z, pq_, ps_, w_.p, w_.dinv, w_.scalars,
            w_.layout.record(k - 1), w_.layout.record(std::max(k - 2, 0)), k - 1 == first,
            w_.threshold_sq, largest, w_.jacobi, n_},
        DevicePipeRecord(reinterpret_cast<PipeCgRecord*>(w_.scalars.data() + current)));
    // The three sums; pᵀAp is formed from global values already.
    start_all_reduce(w_.scalars.data() + current, 3);
    if (k % replacement_interval_ != 0 || k == opts_.max_iterations) return;
    finish_all_reduce();
    // t = A x into z (rebuilt last), with n as the copy of x.
    Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(w_.exec, 0, n_),
                         CgCopy<XView, Vec>{w_.x, pn_});
    apply(pn_, w_.z);
    Kokkos::parallel_for(
        "SpMVKit::cg::pipelined_replace_residual", Range(w_.exec, 0, n_),
        PipeCgReplaceResidual<BView, Vec>{w_.b, w_.z, w_.r, pu_, w_.dinv, w_.jacobi});
    apply(pu_, pw_);
    apply(w_.p, ps_);
    if (w_.jacobi) {
      Kokkos::parallel_for("SpMVKit::cg::pipelined_replace_scaled", Range(w_.exec, 0, n_),
                           PipeCgReplaceScaled<Vec>{pw_, ps_, pm_, pq_, w_.dinv});
    }
    apply(pq_, w_.z);
    const int scratch = w_.layout.size();
    Kokkos::parallel_reduce("SpMVKit::cg::pipelined_replace_sums", Range(w_.exec, 0, n_),
                            PipeCgReplaceSums<Vec>{w_.r, pu_, pw_},
                            DeviceSums(reinterpret_cast<PipeCgSums*>(w_.scalars.data() + scratch)));
    w_.reduction.all_reduce(w_.exec, w_.scalars.data() + scratch, 3);
    Kokkos::parallel_for(
        "SpMVKit::cg::pipelined_replace_record", Range(w_.exec, 0, 1),
        PipeCgReplaceRecord<Scalars>{w_.scalars, current, scratch, w_.threshold_sq, largest});
  }

  /// Starts the all-reduce of `count` device sums: posted only, when the
  /// reduction policy splits it (has_split_all_reduce), else done at once.
  void start_all_reduce(double* sums, int count) {
    if constexpr (has_split_all_reduce<Reduction, ExecutionSpace>::value) {
      w_.reduction.all_reduce_begin(w_.exec, sums, count);
      reduction_pending_ = true;
    } else {
      w_.reduction.all_reduce(w_.exec, sums, count);
    }
  }

  /// Waits for the all-reduce start_all_reduce() posted, if any.
  void finish_all_reduce() {
    if constexpr (has_split_all_reduce<Reduction, ExecutionSpace>::value) {
      if (reduction_pending_) w_.reduction.all_reduce_end(w_.exec);
    }
    reduction_pending_ = false;
  }

  /// What the host learns from iteration k's record (the same cg_verdict the
  /// device applied, so both stop at the same iteration).
  SolverStatus examine(int k, double elapsed) {
    const int at = w_.layout.record(k);
    const double rr = w_.host_scalars(at), rz = w_.host_scalars(at + 1),
                 pAp = w_.host_scalars(at + w_.layout.pAp);
    const CgVerdict verdict = cg_verdict(rr, rz, pAp, w_.threshold_sq, largest);
    rounding_breakdown_ =
        pipelined_ && k - 1 > first_ &&
        (verdict == CgVerdict::nonfinite_pAp || verdict == CgVerdict::not_positive_definite);
    switch (verdict) {
    case CgVerdict::nonfinite_pAp:
      message_ = "non-finite value in pᵀAp at iteration " + std::to_string(k);
      return SolverStatus::non_finite;
    case CgVerdict::not_positive_definite:
      message_ = "matrix is not positive definite (pᵀAp = " + solver_number(pAp) +
                 " at iteration " + std::to_string(k) + ")";
      return SolverStatus::indefinite;
    case CgVerdict::nonfinite_r:
      result_.iterations = k;
      message_ = std::string("non-finite value in ") + (std::isfinite(rr) ? "rᵀz" : "rᵀr") +
                 " at iteration " + std::to_string(k);
      return SolverStatus::non_finite;
    case CgVerdict::converged:
    case CgVerdict::go: break;
    }
    result_.iterations = k;
    rr_ = rr;
    result_.relative_residual = std::sqrt(rr) / norm_b_;
    report(k, elapsed);
    if (rr <= w_.threshold_sq) return SolverStatus::converged;
    if (result_.relative_residual > opts_.divergence_factor) {
      message_ = "the residual ‖r‖/‖b‖ = " + solver_number(result_.relative_residual) +
                 " at iteration " + std::to_string(k) + " exceeds divergence_factor " +
                 solver_number(opts_.divergence_factor);
      return SolverStatus::diverged;
    }
    return SolverStatus::iteration_limit;
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
    Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(w_.exec, 0, n_),
                         CgCopy<XView, Vec>{w_.x, w_.p});
    op_.apply(w_.exec, w_.p, w_.q);
    double sum = VectorOps::residual_norm_sq(w_);
    w_.reduction.all_reduce_host(&sum, 1);
    result_.true_relative_residual = std::sqrt(sum) / norm_b_;
  }

  Op& op_;
  CgOptions const& opts_;
  std::int64_t n_;
  bool pipelined_;
  bool preset_;                     // the preconditioner's D⁻¹ is given (no diagonal to invert)
  bool jacobi_;                     // D⁻¹ in the fused kernels: CgOptions::jacobi or a preset
  bool rounding_breakdown_ = false; // pipelined pᵀAp failed after a good iteration
  bool reduction_pending_ = false;  // an all-reduce posted by start_all_reduce
  int first_ = 0;                   // the iteration the last start began at
  int check_interval_ = 1, replacement_interval_ = automatic_replacement_interval;
  WorkspaceLease lease_; // held from set-up to the end of the solve
  Work w_;
  Vec pu_, pw_, pm_, pn_, pq_, ps_; // pipelined only (u, m, q alias r, w, s without Jacobi)
  CgResult result_;
  std::string message_;
  Kokkos::Timer spmv_timer_;
  double norm_b_ = 0, rr_ = 0, spmv_seconds_ = 0;
  double effective_tolerance_ = 0; // max(relative, absolute / ‖b‖)
};

} // namespace spmvkit::detail

#endif
