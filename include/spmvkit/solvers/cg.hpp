#ifndef SPMVKIT_CG_HPP
#define SPMVKIT_CG_HPP

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/formats/sell16/sell16_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <KokkosSparse_CrsMatrix.hpp>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

/// Conjugate Gradient (optionally Jacobi-preconditioned) for symmetric
/// positive definite systems, running entirely on one execution space
/// instance.
///
/// Per iteration: one SpMV, the pᵀAp reduction, one update kernel (x, r and
/// the reductions rᵀr, rᵀz) and one direction kernel. All scalars (α, β, the
/// stopping test) are formed on the device, so the host only queues kernels
/// and reads the scalars back every CgOptions::check_interval iterations: on a
/// GPU the device never waits for the host. The device applies the stopping
/// test itself and leaves x untouched after the iteration that meets it, so
/// the result does not depend on the interval.
///
/// The vector kernels are SpMVKit's own rather than KokkosBlas calls, for two
/// reasons: KokkosBlas 3.x has no execution-space-instance overloads (its calls
/// would run on the default instance, out of order with `exec`), and fusing
/// saves memory traffic. With s = sizeof(Scalar) and n rows, the vector
/// traffic per iteration is
///
///   SpMV        read p, write q                          2 n s
///   pᵀq         read p, q                                2 n s
///   update      read r, q (+ D⁻¹); write r               3 n s (4 n s)
///   direction   read x, r, p (+ D⁻¹); write x, p         5 n s (6 n s)
///                                                        -------------
///                                                        12 n s (14 n s)
///
/// plus the matrix once (unfused KokkosBlas dot/axpy/dot/axpby: 14 n s). The
/// x update waits for the direction kernel, which reads p anyway: the update
/// kernel then reads only r and q.
/// z = D⁻¹r is recomputed where needed rather than stored: same traffic, one
/// vector less. Nothing is allocated inside the loop.
namespace spmvkit {

enum class CgStatus {
  converged,       ///< ‖r‖/‖b‖ <= relative_tolerance
  iteration_limit, ///< max_iterations reached first
  breakdown        ///< pᵀAp <= 0, a non-finite reduction, or an unusable diagonal; see message
};

inline char const* name(CgStatus s) {
  switch (s) {
  case CgStatus::converged: return "converged";
  case CgStatus::iteration_limit: return "iteration_limit";
  case CgStatus::breakdown: return "breakdown";
  }
  return "unknown";
}

/// Handed to CgOptions::progress_callback every progress_every iterations.
struct CgProgress {
  int iteration = 0;
  double relative_residual = 0; ///< recurrence ‖r_k‖/‖b‖
  double elapsed_seconds = 0;   ///< since the iteration loop started
};

struct CgOptions {
  /// Stop when the recurrence residual satisfies ‖r‖/‖b‖ <= relative_tolerance.
  double relative_tolerance = 1e-8;
  int max_iterations = 1000;
  /// Jacobi (diagonal) preconditioning. The diagonal is extracted on the device;
  /// a zero, negative or non-finite diagonal entry ends the solve with a breakdown.
  bool jacobi = false;
  /// false: x is overwritten and the solve starts from 0. true: x is the start.
  bool use_initial_guess = false;
  /// Report every progress_every iterations (0: never) to progress_stream
  /// (one line; nullptr: silent) and to progress_callback (if set).
  int progress_every = 0;
  std::ostream* progress_stream = nullptr;
  std::function<void(CgProgress const&)> progress_callback;
  /// Time the SpMVs separately (CgResult::spmv_seconds). Costs two extra
  /// fences per iteration, so it is off unless asked for.
  bool time_spmv = false;
  /// Iterations between two reads of the iteration scalars by the host (the
  /// only synchronisation in the loop). The device stops updating x at the
  /// exact iteration that meets the tolerance or breaks down, so iterations,
  /// residuals, status and x do not depend on it; a longer interval saves a
  /// device-to-host round trip per iteration and costs up to interval - 1
  /// SpMVs run after the stop. Progress reports read back at their own
  /// iterations. 0: automatic (detail::cg_check_interval).
  int check_interval = 0;
  /// Which SpMVKit kernel a spmvkit::CrsMatrix is applied with.
  CrsKernel crs_kernel = CrsKernel::automatic;
  /// Which Kokkos Kernels SpMV a KokkosSparse::CrsMatrix is applied with.
  KokkosKernelsAlgorithm kokkos_kernels_algorithm = KokkosKernelsAlgorithm::vendor_default;
};

struct CgResult {
  CgStatus status = CgStatus::iteration_limit;
  /// Why the solve broke down; empty otherwise.
  std::string message;
  /// Completed iterations (one SpMV each); a breakdown in iteration k leaves k - 1.
  int iterations = 0;
  /// ‖r_k‖/‖b‖ from the CG recurrence (what the stopping test saw).
  double relative_residual = 0;
  /// ‖b − A x‖/‖b‖ recomputed at the end; drifts from the recurrence value when
  /// rounding accumulates (notably in single precision).
  double true_relative_residual = 0;
  double total_seconds = 0;         ///< whole call, set-up and final residual included
  double iteration_seconds = 0;     ///< the iteration loop only
  double seconds_per_iteration = 0; ///< iteration_seconds / iterations (0 if none)
  double spmv_seconds = -1;         ///< SpMV share of the loop; -1 unless options.time_spmv
  bool converged() const { return status == CgStatus::converged; }
};

namespace detail {

template <class T>
struct is_kokkos_kernels_crs : std::false_type {};
template <class S, class O, class D, class M, class Sz>
struct is_kokkos_kernels_crs<KokkosSparse::CrsMatrix<S, O, D, M, Sz>> : std::true_type {};

template <class ExecSpace>
using CgRange = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;

/// Sums the entries of row `row` whose column is `row` (duplicates add up, as
/// they do in SpMV); rows without a stored diagonal get 0.
template <class RowMap, class Entries, class Values, class Diag>
struct CrsDiagonal {
  RowMap row_map;
  Entries entries;
  Values values;
  Diag diag;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    double d = 0;
    for (auto k = row_map(row); k < row_map(row + 1); ++k)
      if (static_cast<std::int64_t>(entries(k)) == row) d += static_cast<double>(values(k));
    diag(row) = static_cast<typename Diag::value_type>(d);
  }
};

/// Same for every SELL format, one thread per stored row; padding holds 0 so
/// walking the full chunk width is harmless.
template <class Sell, class Diag>
struct SellDiagonal {
  using Ordinal = typename Sell::ordinal_type;
  using Columns = typename Sell::column_encoding;
  typename Sell::chunk_starts_type chunk_starts;
  typename Sell::ordinals_type widths;
  typename Sell::columns_type cols;
  typename Sell::ordinals_type perm;
  typename Sell::values_type values;
  Diag diag;
  std::int64_t num_rows;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    if (stored_row >= num_rows) return;
    const std::int64_t chunk = stored_row / chunk_size;
    const auto base = chunk_starts(chunk) + stored_row % chunk_size;
    const auto row =
        static_cast<Ordinal>(perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row));
    double d = 0;
    for (std::int64_t j = 0; j < widths(chunk); ++j)
      if (Columns::decode(cols(base + j * chunk_size), row) == row)
        d += static_cast<double>(values(base + j * chunk_size));
    diag(row) = static_cast<typename Diag::value_type>(d);
  }
};

/// Turns the diagonal into its inverse in place and counts the rows whose
/// diagonal is not a positive finite number (their inverse is set to 0).
/// `largest` comes from the host: std::numeric_limits is not device code.
template <class Vec>
struct InvertDiagonal {
  Vec d;
  double largest;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    const double v = static_cast<double>(d(i));
    const bool ok = v > 0 && v <= largest; // false for NaN and Inf
    d(i) = ok ? static_cast<typename Vec::value_type>(1.0 / v) : typename Vec::value_type(0);
    bad += ok ? 0 : 1;
  }
};

template <class Vec>
struct FirstZero {
  Vec d;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& first) const {
    if (d(i) == typename Vec::value_type(0) && i < first) first = i;
  }
};

template <class From, class To>
struct CgCopy {
  From from;
  To to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) = from(i); }
};

template <class X>
struct CgZero {
  X x;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { x(i) = 0; }
};

/// Start: r = b − q (q = A x0, or nothing for x0 = 0), p = z = D⁻¹r;
/// sums = {rᵀr, rᵀz, bᵀb}.
template <class B, class Vec>
struct CgStart {
  using value_type = double[];
  unsigned value_count = 3;
  B b;
  Vec q, r, p, dinv;
  bool subtract_q, jacobi;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const auto ri = subtract_q ? b(i) - q(i) : b(i);
    const auto zi = jacobi ? dinv(i) * ri : ri;
    r(i) = ri;
    p(i) = zi;
    sums[0] += static_cast<double>(ri) * static_cast<double>(ri);
    sums[1] += static_cast<double>(ri) * static_cast<double>(zi);
    sums[2] += static_cast<double>(b(i)) * static_cast<double>(b(i));
  }
};

template <class Vec>
struct CgDot {
  Vec p, q;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    sum += static_cast<double>(p(i)) * static_cast<double>(q(i));
  }
};

/// Where the iteration scalars live on the device: pᵀAp of the current
/// iteration, then a ring of `slots` records {rᵀr, rᵀz, pᵀAp}, one per
/// iteration, slot 0 first holding the start. The host reads the ring every
/// check interval, so `slots` = interval + 1 keeps every record until it is
/// read and the previous iteration's rᵀz until it is used.
struct CgScalarLayout {
  static constexpr int pq = 0;
  int slots = 2;
  KOKKOS_INLINE_FUNCTION int record(int k) const { return 1 + 3 * (k % slots); }
  int size() const { return 1 + 3 * slots; }
};

/// The device's stopping test (the host's examine() in cg() applies the same
/// one, branch by branch, to name the reason): pᵀAp must be a positive finite
/// number, rᵀr and rᵀz finite, and rᵀr <= (tol ‖b‖)² means converged. `largest` is the largest
/// double (std::numeric_limits is not device code); the comparisons are false
/// for NaN.
KOKKOS_INLINE_FUNCTION bool cg_stops(double rr, double rz, double pAp, double threshold_sq,
                                     double largest) {
  const bool pAp_ok = pAp > 0 && pAp <= largest;
  const bool finite = rr <= largest && rz >= -largest && rz <= largest;
  return !pAp_ok || !finite || rr <= threshold_sq;
}

/// An iteration's record; laid out as three doubles of the scalar ring.
struct CgRecord {
  double rr, rz, pAp;
};

/// r −= αq with α = rᵀz / pᵀAp read from the device scalars; sums =
/// {rᵀr, rᵀz, pᵀAp}, the last passed through (added by one index only) so
/// that the iteration's record holds all three. Nothing is updated when pᵀAp
/// is not a positive finite number or when an earlier iteration stopped; the
/// record then carries pᵀAp = 0, which stops the direction kernel too.
template <class Vec, class Scalars, class Flag>
struct CgUpdate {
  // A fixed-size struct rather than a double[] array reduction: GPU backends
  // keep it in registers instead of per-thread shared memory.
  using value_type = CgRecord;
  Vec q, r, dinv;
  Scalars scalars;
  Flag stopped;
  int previous;
  double largest;
  bool jacobi;
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    a.rr += b.rr;
    a.rz += b.rz;
    a.pAp += b.pAp;
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    a.rr += b.rr;
    a.rz += b.rz;
    a.pAp += b.pAp;
  }
#endif
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type& sums) const {
    const double pAp = stopped() ? 0.0 : scalars(CgScalarLayout::pq);
    auto ri = r(i);
    if (pAp > 0 && pAp <= largest) {
      const auto alpha = static_cast<typename Vec::value_type>(scalars(previous + 1) / pAp);
      ri -= alpha * q(i);
      r(i) = ri;
    }
    const double rd = static_cast<double>(ri);
    sums.rr += rd * rd;
    sums.rz += jacobi ? rd * static_cast<double>(dinv(i) * ri) : rd * rd;
    if (i == 0) sums.pAp += pAp;
  }
};

/// x += αp (the update's α), then p = z + βp with z = D⁻¹r recomputed (or r)
/// and β = rᵀz / previous rᵀz. A record without a usable pᵀAp (a breakdown,
/// or an earlier stop) leaves x and p alone; one that meets the rest of the
/// stopping test still takes its x step (its r step is done) but keeps p. In
/// both cases the flag tells later iterations' updates to leave r alone.
/// Every thread evaluates the same test, so only index 0 writes the flag.
template <class X, class Vec, class Scalars, class Flag>
struct CgDirection {
  X x;
  Vec r, p, dinv;
  Scalars scalars;
  Flag stopped;
  int current, previous;
  double threshold_sq, largest;
  bool jacobi;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using Scalar = typename Vec::value_type;
    const double rr = scalars(current), rz = scalars(current + 1), pAp = scalars(current + 2);
    if (!(pAp > 0 && pAp <= largest)) {
      if (i == 0) stopped() = 1;
      return;
    }
    const auto pi = p(i);
    x(i) += static_cast<Scalar>(scalars(previous + 1) / pAp) * pi;
    if (cg_stops(rr, rz, pAp, threshold_sq, largest)) {
      if (i == 0) stopped() = 1;
      return;
    }
    p(i) = (jacobi ? dinv(i) * r(i) : r(i)) + static_cast<Scalar>(rz / scalars(previous + 1)) * pi;
  }
};

/// ‖b − q‖² for the true residual.
template <class B, class Vec>
struct CgResidualNorm {
  B b;
  Vec q;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    const double e = static_cast<double>(b(i)) - static_cast<double>(q(i));
    sum += e * e;
  }
};

/// What CG needs of a matrix: y = A x and its diagonal. Specialised for
/// SpMVKit's formats and for KokkosSparse::CrsMatrix.
template <class Matrix, class Enable = void>
class CgOperator {
  static_assert(sizeof(Matrix) == 0,
                "spmvkit::cg: the matrix must be a spmvkit::CrsMatrix, SellMatrix, Sell16Matrix "
                "or a KokkosSparse::CrsMatrix");
};

template <class Matrix>
class CgOperator<Matrix, std::enable_if_t<is_spmvkit_matrix_v<Matrix>>> {
public:
  using scalar_type = typename Matrix::value_type;
  using execution_space = typename Matrix::execution_space;
  using device_type = typename Matrix::device_type;
  using vector_type = Kokkos::View<scalar_type*, device_type>;

  CgOperator(Matrix const& A, CgOptions const& opts) : A_(A), crs_kernel_(opts.crs_kernel) {}
  std::int64_t num_rows() const { return A_.num_rows(); }
  std::int64_t num_cols() const { return A_.num_cols(); }
  void apply(execution_space const& exec, vector_type const& x, vector_type const& y) {
    if constexpr (is_crs_matrix_v<Matrix>) {
      spmv(exec, scalar_type(1), A_, x, scalar_type(0), y, crs_kernel_);
    } else {
      spmv(exec, scalar_type(1), A_, x, scalar_type(0), y);
    }
  }
  void diagonal(execution_space const& exec, vector_type const& d) const {
    if constexpr (is_crs_matrix_v<Matrix>) {
      Kokkos::parallel_for(
          "SpMVKit::cg::diagonal", CgRange<execution_space>(exec, 0, num_rows()),
          CrsDiagonal<typename Matrix::row_starts_type, typename Matrix::column_indices_type,
                      typename Matrix::values_type, vector_type>{
              A_.row_starts(), A_.column_indices(), A_.values(), d});
    } else {
      const std::int64_t stored_rows = static_cast<std::int64_t>(A_.num_chunks()) * A_.chunk_size();
      Kokkos::parallel_for("SpMVKit::cg::diagonal", CgRange<execution_space>(exec, 0, stored_rows),
                           SellDiagonal<Matrix, vector_type>{
                               A_.chunk_starts(), A_.chunk_widths(), A_.stored_columns(),
                               A_.row_permutation(), A_.values(), d, num_rows(), A_.chunk_size()});
    }
  }

private:
  Matrix const& A_;
  CrsKernel crs_kernel_;
};

/// KokkosSparse::CrsMatrix goes through one KokkosKernelsSpmv for the whole
/// solve, so that the algorithm choice and, from Kokkos Kernels 4.3 on, the
/// SPMVHandle (vendor descriptors, buffers) are set up once, not per iteration.
template <class Matrix>
class CgOperator<Matrix, std::enable_if_t<is_kokkos_kernels_crs<Matrix>::value>> {
public:
  using scalar_type = typename Matrix::non_const_value_type;
  using execution_space = typename Matrix::execution_space;
  using device_type = Kokkos::Device<execution_space, typename Matrix::memory_space>;
  using vector_type = Kokkos::View<scalar_type*, device_type>;

  CgOperator(Matrix const& A, CgOptions const& opts)
      : A_(A), spmv_(opts.kokkos_kernels_algorithm) {}
  std::int64_t num_rows() const { return A_.numRows(); }
  std::int64_t num_cols() const { return A_.numCols(); }
  void apply(execution_space const& exec, vector_type const& x, vector_type const& y) {
    spmv_.apply(exec, scalar_type(1), A_, x, scalar_type(0), y);
  }
  void diagonal(execution_space const& exec, vector_type const& d) const {
    Kokkos::parallel_for(
        "SpMVKit::cg::diagonal", CgRange<execution_space>(exec, 0, num_rows()),
        CrsDiagonal<decltype(A_.graph.row_map), decltype(A_.graph.entries), decltype(A_.values),
                    vector_type>{A_.graph.row_map, A_.graph.entries, A_.values, d});
  }

private:
  Matrix const& A_;
  KokkosKernelsSpmv<Matrix, vector_type, vector_type> spmv_;
};

inline std::string cg_number(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

} // namespace detail

/// Solves A x = b by CG on `exec` (the matrix's execution space). A must be
/// square; b and x are rank-1 Views of A's scalar type accessible from exec.
/// Returns the status rather than throwing for numerical trouble; throws
/// std::invalid_argument for mismatched sizes. b = 0 gives x = 0, converged, 0
/// iterations. Synchronous: the result is ready when cg returns.
template <class ExecSpace, class Matrix, class BView, class XView>
CgResult cg(ExecSpace const& exec, Matrix const& A, BView const& b, XView const& x,
            CgOptions const& opts = CgOptions()) {
  using Op = detail::CgOperator<Matrix>;
  using Scalar = typename Op::scalar_type;
  using Vec = typename Op::vector_type;
  using Range = detail::CgRange<ExecSpace>;
  static_assert(std::is_same_v<ExecSpace, typename Op::execution_space>,
                "spmvkit::cg: exec must be the matrix's execution space");
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

  Kokkos::Timer total_timer;
  Op op(A, opts);
  const std::int64_t n = op.num_rows();
  if (op.num_cols() != n || static_cast<std::int64_t>(b.extent(0)) != n ||
      static_cast<std::int64_t>(x.extent(0)) != n) {
    throw std::invalid_argument("spmvkit::cg: A must be square with b and x of matching size; A "
                                "is " +
                                std::to_string(n) + " x " + std::to_string(op.num_cols()) +
                                ", b has " + std::to_string(b.extent(0)) + " entries, x has " +
                                std::to_string(x.extent(0)));
  }
  if (!(opts.relative_tolerance >= 0) || opts.max_iterations < 0) {
    throw std::invalid_argument("spmvkit::cg: relative_tolerance and max_iterations must be >= 0");
  }

  CgResult result;
  auto r = detail::allocate_view<Vec>(exec, "SpMVKit::cg::r", n);
  auto p = detail::allocate_view<Vec>(exec, "SpMVKit::cg::p", n);
  auto q = detail::allocate_view<Vec>(exec, "SpMVKit::cg::q", n);
  Vec dinv; // stays empty without Jacobi; the kernels then never read it
  double sums[3] = {0, 0, 0};
  using HostSums = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  const int check_interval =
      opts.check_interval > 0 ? opts.check_interval : detail::cg_check_interval<ExecSpace>();
  const detail::CgScalarLayout layout{check_interval + 1};
  using MemorySpace = typename Vec::memory_space;
  auto scalars = detail::allocate_view<Kokkos::View<double*, MemorySpace>>(
      exec, "SpMVKit::cg::scalars", layout.size());
  auto host_scalars = Kokkos::create_mirror_view(scalars);
  Kokkos::View<int, MemorySpace> stopped(std::string("SpMVKit::cg::stopped"));
  using DeviceSum = Kokkos::View<double, MemorySpace, Kokkos::MemoryUnmanaged>;
  using DeviceRecord = Kokkos::View<detail::CgRecord, MemorySpace, Kokkos::MemoryUnmanaged>;
  static_assert(sizeof(detail::CgRecord) == 3 * sizeof(double), "a record is three ring doubles");
  constexpr double largest = std::numeric_limits<double>::max();

  auto finish = [&](CgStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    return result;
  };

  if (!opts.use_initial_guess) {
    Kokkos::parallel_for("SpMVKit::cg::zero_x", Range(exec, 0, n), detail::CgZero<XView>{x});
  }
  if (opts.jacobi) {
    dinv = detail::allocate_view<Vec>(exec, "SpMVKit::cg::inverse_diagonal", n);
    op.diagonal(exec, dinv);
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "SpMVKit::cg::check_diagonal", Range(exec, 0, n),
        detail::InvertDiagonal<Vec>{dinv, static_cast<double>(std::numeric_limits<Scalar>::max())},
        bad);
    if (bad > 0) {
      std::int64_t first = n;
      Kokkos::parallel_reduce("SpMVKit::cg::first_bad_diagonal", Range(exec, 0, n),
                              detail::FirstZero<Vec>{dinv}, Kokkos::Min<std::int64_t>(first));
      exec.fence();
      result.relative_residual = result.true_relative_residual =
          std::numeric_limits<double>::quiet_NaN(); // not computed
      result.total_seconds = total_timer.seconds();
      return finish(CgStatus::breakdown,
                    "Jacobi preconditioner: " + std::to_string(bad) + " of " + std::to_string(n) +
                        " rows have a zero, negative or non-finite diagonal entry (first: row " +
                        std::to_string(first) + ")");
    }
  }

  // r = b − A x0 and the first direction, with ‖b‖ in the same pass.
  if (opts.use_initial_guess) {
    Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(exec, 0, n),
                         detail::CgCopy<XView, Vec>{x, p});
    op.apply(exec, p, q);
  }
  Kokkos::parallel_reduce(
      "SpMVKit::cg::start", Range(exec, 0, n),
      detail::CgStart<BView, Vec>{3, b, q, r, p, dinv, opts.use_initial_guess, opts.jacobi},
      HostSums(sums, 3));
  double rr = sums[0], rz = sums[1];
  const double norm_b = std::sqrt(sums[2]);

  auto true_residual = [&]() {
    if (!(norm_b > 0) || !std::isfinite(norm_b)) return;
    Kokkos::parallel_for("SpMVKit::cg::copy_x", Range(exec, 0, n),
                         detail::CgCopy<XView, Vec>{x, p});
    op.apply(exec, p, q);
    double sum = 0;
    Kokkos::parallel_reduce("SpMVKit::cg::true_residual", Range(exec, 0, n),
                            detail::CgResidualNorm<BView, Vec>{b, q}, sum);
    result.true_relative_residual = std::sqrt(sum) / norm_b;
  };

  if (!std::isfinite(norm_b)) {
    result.relative_residual = result.true_relative_residual = norm_b;
    result.total_seconds = total_timer.seconds();
    return finish(CgStatus::breakdown, "non-finite value in bᵀb (the right-hand side)");
  }
  if (norm_b == 0) {
    // The solution is 0 whatever the start.
    Kokkos::parallel_for("SpMVKit::cg::zero_x", Range(exec, 0, n), detail::CgZero<XView>{x});
    exec.fence();
    result.total_seconds = total_timer.seconds();
    return finish(CgStatus::converged, "");
  }
  if (!std::isfinite(rr) || !std::isfinite(rz)) {
    result.relative_residual = result.true_relative_residual = rr;
    result.total_seconds = total_timer.seconds();
    return finish(CgStatus::breakdown, "non-finite value in the initial residual rᵀr (is the "
                                       "initial guess or the matrix finite?)");
  }
  result.relative_residual = std::sqrt(rr) / norm_b;

  auto report = [&](int k, double elapsed) {
    if (opts.progress_every <= 0 || k % opts.progress_every != 0) return;
    if (opts.progress_stream) {
      *opts.progress_stream << "cg: iteration " << std::setw(6) << k << "  relative residual "
                            << std::scientific << std::setprecision(3) << result.relative_residual
                            << std::defaultfloat << "  " << std::fixed << std::setprecision(3)
                            << 1e3 * elapsed / k << " ms/iteration" << std::defaultfloat
                            << std::endl;
    }
    if (opts.progress_callback)
      opts.progress_callback(CgProgress{k, result.relative_residual, elapsed});
  };

  CgStatus status = CgStatus::iteration_limit;
  std::string message;
  // The device applies the same test (detail::cg_stops); comparing squares
  // keeps both sides free of a square root. A threshold that overflows to Inf
  // accepts every finite rᵀr, as ‖r‖ <= tol ‖b‖ would.
  const double threshold_sq =
      (opts.relative_tolerance * norm_b) * (opts.relative_tolerance * norm_b);
  if (rr <= threshold_sq) status = CgStatus::converged;

  // Iteration 0's record: the start.
  for (int i = 0; i < layout.size(); ++i) host_scalars(i) = 0;
  host_scalars(layout.record(0)) = rr;
  host_scalars(layout.record(0) + 1) = rz;
  Kokkos::deep_copy(exec, scalars, host_scalars);
  exec.fence();

  // What the host learns from iteration k's record; sets status when the solve ends there.
  auto examine = [&](int k, double elapsed) {
    const int at = layout.record(k);
    const double pq = host_scalars(at + 2);
    if (!std::isfinite(pq)) {
      status = CgStatus::breakdown;
      message = "non-finite value in pᵀAp at iteration " + std::to_string(k);
      return;
    }
    if (pq <= 0) {
      status = CgStatus::breakdown;
      message = "matrix is not positive definite (pᵀAp = " + detail::cg_number(pq) +
                " at iteration " + std::to_string(k) + ")";
      return;
    }
    sums[0] = host_scalars(at);
    sums[1] = host_scalars(at + 1);
    result.iterations = k;
    if (!std::isfinite(sums[0]) || !std::isfinite(sums[1])) {
      status = CgStatus::breakdown;
      message = std::string("non-finite value in ") + (std::isfinite(sums[0]) ? "rᵀz" : "rᵀr") +
                " at iteration " + std::to_string(k);
      return;
    }
    rr = sums[0];
    result.relative_residual = std::sqrt(rr) / norm_b;
    report(k, elapsed);
    if (rr <= threshold_sq) status = CgStatus::converged;
  };

  Kokkos::Timer loop_timer;
  Kokkos::Timer spmv_timer;
  double spmv_seconds = 0;
  int examined = 0;
  for (int k = 1; status == CgStatus::iteration_limit && k <= opts.max_iterations; ++k) {
    const int current = layout.record(k), previous = layout.record(k - 1);
    if (opts.time_spmv) {
      exec.fence();
      spmv_timer.reset();
    }
    op.apply(exec, p, q);
    if (opts.time_spmv) {
      exec.fence();
      spmv_seconds += spmv_timer.seconds();
    }
    Kokkos::parallel_reduce("SpMVKit::cg::pAp", Range(exec, 0, n), detail::CgDot<Vec>{p, q},
                            DeviceSum(scalars.data() + detail::CgScalarLayout::pq));
    Kokkos::parallel_reduce(
        "SpMVKit::cg::update", Range(exec, 0, n),
        detail::CgUpdate<Vec, decltype(scalars), decltype(stopped)>{q, r, dinv, scalars, stopped,
                                                                    previous, largest, opts.jacobi},
        DeviceRecord(reinterpret_cast<detail::CgRecord*>(scalars.data() + current)));
    Kokkos::parallel_for("SpMVKit::cg::direction", Range(exec, 0, n),
                         detail::CgDirection<XView, Vec, decltype(scalars), decltype(stopped)>{
                             x, r, p, dinv, scalars, stopped, current, previous, threshold_sq,
                             largest, opts.jacobi});
    const bool progress_due = opts.progress_every > 0 && k % opts.progress_every == 0;
    if (k % check_interval != 0 && k != opts.max_iterations && !progress_due) continue;
    Kokkos::deep_copy(exec, host_scalars, scalars);
    exec.fence();
    const double elapsed = loop_timer.seconds();
    while (examined < k && status == CgStatus::iteration_limit) examine(++examined, elapsed);
  }
  exec.fence();
  result.iteration_seconds = loop_timer.seconds();
  result.seconds_per_iteration =
      result.iterations > 0 ? result.iteration_seconds / result.iterations : 0.0;
  if (opts.time_spmv) result.spmv_seconds = spmv_seconds;

  true_residual();
  exec.fence();
  if (opts.progress_stream && opts.progress_every > 0) {
    *opts.progress_stream << "cg: " << name(status) << " after " << result.iterations
                          << " iterations, relative residual " << std::scientific
                          << std::setprecision(3) << result.relative_residual << " (true "
                          << result.true_relative_residual << ")" << std::defaultfloat
                          << (message.empty() ? "" : ": " + message) << std::endl;
  }
  result.total_seconds = total_timer.seconds();
  return finish(status, std::move(message));
}

} // namespace spmvkit

#endif
