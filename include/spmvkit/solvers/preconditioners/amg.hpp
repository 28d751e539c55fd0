// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_AMG_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_AMG_HPP

/// \file
/// Smoothed-aggregation algebraic multigrid (Vaněk, Mandel and Brezina, 1996)
/// as a preconditioner of cg(), bicgstab() and gmres(), or as a solver of its
/// own (apply it in a loop, see docs/solvers.md). Every step of the set-up
/// runs on the execution space of the matrix:
///
/// 1. strength of connection: a_ij (j ≠ i) is strong when |a_ij| ≥ θ
///    sqrt(|a_ii a_jj|), θ = AmgOptions::strength_threshold (symmetric for a
///    symmetric A);
/// 2. aggregation: a distance-2 maximal independent set of the strength graph
///    (hashed priorities, ties by row: deterministic) gives the roots; each
///    root takes its strong neighbours, the rows left join the aggregate of
///    their most strongly connected aggregated neighbour. Rows without strong
///    connections (Dirichlet rows, a diagonal block) join none: the smoother
///    alone treats them;
/// 3. tentative prolongator: the near-nullspace (the constant vector unless
///    given: rigid-body modes for elasticity) orthonormalised on every
///    aggregate (QR); R gives the next level's near-nullspace;
/// 4. smoothing: P = (I − ω D⁻¹A) P_tent with ω = prolongator_damping / λmax(D⁻¹A),
///    λmax from Lanczos steps (symmetric A) or power iterations (eigen_estimate; the
///    Chebyshev smoother uses the same estimate), A P_tent by gather kernels or
///    spgemm() (prolongator_product);
/// 5. R = Pᵀ by transpose(), and the Galerkin operator A_c = Pᵀ (A P) by
///    triple_product() (spgemm/triple_product.hpp: A P first, its rows are as
///    many as A's and short, then Pᵀ times it), whose symbolic phases are kept
///    for refresh();
/// 6. the coarsening stops at coarse_size rows, at max_levels, or when a level
///    shrinks by less than min_coarsening_ratio (the report says which); the
///    coarsest operator is inverted densely up to direct_limit rows, else
///    coarse_sweeps smoother sweeps solve it approximately.
///
/// Every level's operator is stored in the format make_auto_matrix() chooses
/// for it (AmgOptions::format; a list of one candidate fixes it); P and R stay
/// CRS. The cycle (V, or W) applies pre_sweeps and post_sweeps of the smoother:
/// Chebyshev around Jacobi (degree chebyshev_degree, interval [λmax /
/// chebyshev_ratio, 1.1 λmax]) or l1-Jacobi. With the symmetric smoothers
/// and R = Pᵀ the V-cycle is a symmetric operator, so CG may use it for an SPD A.
///
/// The set-up report (report(), describe()) lists the levels, their rows,
/// nonzeros and formats, the operator and grid complexities, why coarsening
/// stopped and the time of every phase.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/core/memory_limit.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>
#include <spmvkit/solvers/preconditioners/detail/amg_aggregation.hpp>
#include <spmvkit/solvers/preconditioners/detail/amg_transfer.hpp>
#include <spmvkit/solvers/preconditioners/detail/lanczos.hpp>
#include <spmvkit/spgemm/spgemm.hpp>
#include <spmvkit/spgemm/triple_product.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit {

/// The smoother of every level.
enum class AmgSmoother {
  /// Chebyshev where the matrix passes a symmetry probe, else l1-Jacobi (default):
  /// a Chebyshev polynomial tuned to a real interval can amplify the complex
  /// modes of a nonsymmetric D⁻¹A (convection), where l1-Jacobi stays contractive.
  automatic,
  chebyshev, ///< Chebyshev polynomial around Jacobi
  l1_jacobi  ///< x += ω D_l1⁻¹ (b − A x), D_l1 the rows' sums of |a_ij|
};

/// The cycle.
enum class AmgCycle {
  v, ///< one coarse-grid correction per level (default)
  w  ///< two per level (the coarsest one once)
};

/// How the prolongator smoothing forms A P_tent.
enum class AmgProduct {
  /// gather on GPUs where every row fits the gather kernels (at most 127
  /// entries), spgemm on host spaces and otherwise (default; the measurements
  /// behind it: docs/notes/2026-11-29-amg-prolongator-product.md).
  automatic,
  /// Kernels of its own: P_tent has k entries per row, so A P_tent groups a
  /// row's entries by aggregate (no hash table, no SpGEMM plan kept).
  gather,
  spgemm ///< spgemm() symbolic and numeric, the plan kept for refresh()
};

/// How each level's λmax(D⁻¹A) is estimated (Chebyshev's interval, ω of the
/// prolongator smoothing).
enum class AmgEigenEstimate {
  /// Lanczos where the smoother is Chebyshev and the symmetry probe found the
  /// matrix symmetric and no diagonal entry is negative, else power iterations (default).
  automatic,
  lanczos, ///< lanczos_steps steps on D^{-1/2} A D^{-1/2} (symmetric A, diagonal >= 0)
  power    ///< power_iterations power iterations on D⁻¹A
};

/// "automatic", "lanczos", "power".
inline char const* name(AmgEigenEstimate e) {
  return e == AmgEigenEstimate::automatic ? "automatic"
         : e == AmgEigenEstimate::lanczos ? "lanczos"
                                          : "power";
}

/// "automatic", "gather", "spgemm".
inline char const* name(AmgProduct p) {
  return p == AmgProduct::automatic ? "automatic" : p == AmgProduct::gather ? "gather" : "spgemm";
}

/// "automatic", "chebyshev", "l1_jacobi".
inline char const* name(AmgSmoother s) {
  return s == AmgSmoother::automatic   ? "automatic"
         : s == AmgSmoother::chebyshev ? "chebyshev"
                                       : "l1_jacobi";
}
/// "V", "W".
inline char const* name(AmgCycle c) { return c == AmgCycle::v ? "V" : "W"; }

/// Options of the AMG preconditioner (the file comment says where each acts).
struct AmgOptions {
  /// θ >= 0 of the strength of connection (0: every nonzero connection is strong).
  double strength_threshold = 0;
  /// ω λmax(D⁻¹A) of the prolongator smoothing, in [0, 2); 0: unsmoothed aggregation.
  double prolongator_damping = 4.0 / 3.0;
  /// Levels at most, >= 1 (1: the smoother or coarse solve alone).
  int max_levels = 10;
  /// Coarsening stops at a level of at most this many rows, >= 1; 0: automatic
  /// (amg_coarse_size()).
  std::int64_t coarse_size = 0;
  /// The coarsest level is inverted densely up to this many rows, else
  /// smoothed coarse_sweeps times.
  std::int64_t direct_limit = 1000;
  /// Smoother sweeps of a coarsest level too large for the dense inverse, >= 1.
  int coarse_sweeps = 10;
  /// Coarsening stops when rows / next rows falls below this, > 1.
  double min_coarsening_ratio = 1.2;
  /// The smoother.
  AmgSmoother smoother = AmgSmoother::automatic;
  /// Smoother sweeps before and after the coarse correction, >= 0 (not both 0).
  int pre_sweeps = 1;
  /// Sweeps after it.
  int post_sweeps = 1;
  /// Chebyshev steps per sweep, >= 1 (degree − 1 operator applies from a zero
  /// start, degree from a nonzero one).
  int chebyshev_degree = 3;
  /// λmax / λmin of the interval the Chebyshev smoother damps, > 1.
  double chebyshev_ratio = 30;
  /// Power iterations of the λmax(D⁻¹A) estimate per level, >= 1. The estimate approaches
  /// λmax from below; an interval that ends below it makes the Chebyshev smoother amplify the
  /// top modes (why 30: docs/notes/2026-11-29-amg-power-iterations.md).
  int power_iterations = 30;
  /// How λmax(D⁻¹A) is estimated.
  AmgEigenEstimate eigen_estimate = AmgEigenEstimate::automatic;
  /// Lanczos steps of the λmax estimate per level, >= 1 (why 10:
  /// docs/notes/2026-11-29-amg-lanczos.md).
  int lanczos_steps = 10;
  /// ω of the l1-Jacobi smoother, in (0, 2).
  double jacobi_weight = 1;
  /// V or W.
  AmgCycle cycle = AmgCycle::v;
  /// How A P_tent is formed for the prolongator smoothing (gather: an error
  /// naming the row when a row is too long for it).
  AmgProduct prolongator_product = AmgProduct::automatic;
  /// How each level's format is chosen (make_auto_matrix(); candidates = {"crs"}
  /// keeps every level CRS).
  AutoOptions format;
  /// Bytes the set-up may allocate (checked before each level's set-up and by
  /// its products); 0: SPMVKIT_MEMORY_LIMIT, else the free memory.
  std::uint64_t memory_limit = 0;
  /// Keep the SpGEMM plans and A P so that refresh() can run (more memory).
  bool keep_for_refresh = true;
  /// The numeric strategy of the SpGEMMs of the set-up (the Galerkin products, and A P_tent
  /// where it is not gathered). automatic: on GPUs with keep_for_refresh, `positions` (each
  /// refresh repeats these numeric phases; 2 bytes a product, or `hash` where the memory does
  /// not hold them), else the SpGEMM's own automatic rule: on host backends finding the positions
  /// is a pass of its own that lengthens the set-up
  /// (docs/notes/2026-12-02-amg-refresh-refill-positions.md).
  SpgemmNumeric galerkin_numeric = SpgemmNumeric::automatic;
};

/// The coarse size a hierarchy on ExecutionSpace stops at: o.coarse_size, or where it is 0
/// (automatic) 300 rows on hosts, whose dense inverse is a serial n³ loop, and on GPUs 1000 up to
/// direct_limit: the device inverts 1000 rows in a few ms and the flatter hierarchy takes fewer
/// iterations as the grid grows (docs/notes/2026-12-03-amg-register-inverse-coarse-size.md).
template <class ExecutionSpace>
std::int64_t amg_coarse_size(AmgOptions const& o) {
  if (o.coarse_size > 0) return o.coarse_size;
  return detail::is_host_space_v<ExecutionSpace> || o.direct_limit < 1000 ? 300 : 1000;
}

/// One level of the hierarchy, in AmgReport.
struct AmgLevelInfo {
  std::int64_t rows = 0;               ///< rows of the level's operator
  std::int64_t nnz = 0;                ///< its nonzeros
  std::string format;                  ///< the format it is stored in
  double lambda_max = 0;               ///< estimate of λmax(D⁻¹A) (0: not needed)
  std::int64_t isolated_rows = 0;      ///< rows without strong connections, in no aggregate
  std::int64_t aggregates = 0;         ///< aggregates (0 on the coarsest level)
  std::int64_t dependent_columns = 0;  ///< near-nullspace columns dropped on aggregates
  std::int64_t prolongator_nnz = 0;    ///< nonzeros of P to the next level
  std::int64_t zero_diagonal_rows = 0; ///< rows the smoother leaves alone (coarse levels)
  int mis_rounds = 0;                  ///< rounds of the independent-set algorithm
  std::string prolongator_product;     ///< "gather" or "spgemm" (smoothed P), else empty
  std::string galerkin_numeric;        ///< the numeric strategy R (A P) ran with, else empty
  std::string eigen_estimate;          ///< "lanczos" or "power" (empty: no λmax needed)
  int eigen_steps = 0;                 ///< its steps or iterations (the last set-up or refresh)
};

/// Set-up time by phase, in seconds (each phase fenced).
struct AmgSetupTimes {
  double strength = 0;     ///< strength graphs
  double aggregation = 0;  ///< independent sets and aggregates
  double tentative = 0;    ///< tentative prolongators (QR)
  double smoothing = 0;    ///< λmax estimates, A P_tent and P
  double restriction = 0;  ///< R = Pᵀ
  double galerkin = 0;     ///< A P and Pᵀ (A P)
  double formats = 0;      ///< make_auto_matrix() per level
  double smoothers = 0;    ///< smoothers' diagonals
  double coarse_solve = 0; ///< the dense inverse
  double total = 0;        ///< the whole set-up (or refresh)
};

/// What the set-up built (AmgPreconditioner::report(), describe()).
struct AmgReport {
  std::vector<AmgLevelInfo> levels; ///< finest first
  std::string stop_reason;          ///< why coarsening stopped
  std::string coarse_solve;         ///< how the coarsest level is solved
  std::string smoother;             ///< the smoother used, and why (automatic: the probe)
  double operator_complexity = 0;   ///< sum of the levels' nnz / the finest's
  double grid_complexity = 0;       ///< sum of the levels' rows / the finest's
  AmgSetupTimes times;              ///< of the last set-up or refresh
  bool refreshed = false;           ///< times are those of refresh()
  std::size_t memory_bytes = 0;     ///< device memory held besides the finest matrix and formats
};

/// A readable table of the report.
inline std::string describe(AmgReport const& r) {
  std::ostringstream os;
  os << "AMG: " << r.levels.size() << " levels, operator complexity " << std::setprecision(4)
     << r.operator_complexity << ", grid complexity " << r.grid_complexity << "\n";
  os << "  level       rows         nnz  nnz/row  format                 λmax(D⁻¹A)  isolated  A "
        "P_tent\n";
  for (std::size_t l = 0; l < r.levels.size(); ++l) {
    auto const& v = r.levels[l];
    os << "  " << std::setw(5) << l << std::setw(11) << v.rows << std::setw(12) << v.nnz
       << std::setw(9) << std::setprecision(3) << std::fixed
       << (v.rows > 0 ? static_cast<double>(v.nnz) / static_cast<double>(v.rows) : 0.0)
       << std::defaultfloat << "  " << std::left << std::setw(22) << v.format << std::right
       << std::setw(11) << std::setprecision(4) << v.lambda_max << std::setw(10) << v.isolated_rows
       << "  " << v.prolongator_product
       << (v.galerkin_numeric.empty() ? "" : " Galerkin " + v.galerkin_numeric) << "\n";
  }
  os << "  smoother: " << r.smoother << "\n";
  os << "  λmax estimates:";
  for (std::size_t l = 0; l < r.levels.size(); ++l) {
    auto const& v = r.levels[l];
    if (!v.eigen_estimate.empty())
      os << " level " << l << " " << v.eigen_estimate << " " << v.eigen_steps << ";";
  }
  os << "\n";
  os << "  stopped: " << r.stop_reason << "; coarsest: " << r.coarse_solve << "\n";
  auto const& t = r.times;
  os << std::setprecision(3) << "  " << (r.refreshed ? "refresh" : "set-up") << " " << t.total * 1e3
     << " ms: strength " << t.strength * 1e3 << ", aggregation " << t.aggregation * 1e3
     << ", tentative " << t.tentative * 1e3 << ", smoothing " << t.smoothing * 1e3
     << ", restriction " << t.restriction * 1e3 << ", Galerkin " << t.galerkin * 1e3 << ", formats "
     << t.formats * 1e3 << ", smoothers " << t.smoothers * 1e3 << ", coarse "
     << t.coarse_solve * 1e3 << " ms; memory " << static_cast<double>(r.memory_bytes) / 1048576.0
     << " MiB\n";
  return os.str();
}

namespace detail {

/// dinv(i) = 1 / (sum of row i's diagonal entries), l1: 1 / sum |a_ij|; 0
/// where that is zero or not finite, counted (first: the smallest such row).
template <class Crs, class Vec>
struct AmgSmootherDiagonal {
  typename Crs::row_starts_type rs;
  typename Crs::column_indices_type col;
  typename Crs::values_type val;
  Vec dinv;
  bool l1;
  // A row's entries over the vector lanes (amg_count_rows): a thread per row
  // read the rows of a 27-point matrix uncoalesced.
  template <class Member>
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(Member const& team, std::int64_t i) const {
    double d = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, rs(i), rs(i + 1)),
        [&](auto e, double& t) {
          const double v = static_cast<double>(val(e));
          if (l1)
            t += v < 0 ? -v : v;
          else if (static_cast<std::int64_t>(col(e)) == i)
            t += v;
        },
        d);
    const double m = d < 0 ? -d : d;
    const bool ok = m > 0 && m <= 1.7e308; // false for NaN and Inf
    Kokkos::single(Kokkos::PerThread(team), [&] {
      dinv(i) = ok ? static_cast<typename Vec::value_type>(1 / d) : typename Vec::value_type(0);
    });
    return ok ? 0 : 1;
  }
};

/// Counts the entries that are NaN or infinite.
template <class Vec>
struct AmgCountNonFinite {
  Vec v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    const double x = static_cast<double>(v(i));
    bad += (x - x == 0) ? 0 : 1;
  }
};

template <class Vec>
struct AmgCountNegative {
  Vec v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    bad += v(i) < 0 ? 1 : 0;
  }
};

/// B(c n + i) = V(i, c): the near-nullspace column-major in a rank-1 View.
template <class Vec, class Multi>
struct AmgCopyColumns {
  Multi v;
  Vec b;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t n = static_cast<std::int64_t>(v.extent(0));
    for (std::size_t c = 0; c < v.extent(1); ++c) b(static_cast<std::int64_t>(c) * n + i) = v(i, c);
  }
};

/// Nonzero start of a Chebyshev sweep after w = A x: d = D⁻¹ (b − w) / θ, x += d.
template <class Vec>
struct AmgChebyshevRestart {
  Vec dinv, b, w, d, x;
  typename Vec::non_const_value_type inv_theta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto di = inv_theta * dinv(i) * (b(i) - w(i));
    d(i) = di;
    x(i) += di;
  }
};

/// l1-Jacobi: x = ω D⁻¹ b (zero start), or x += ω D⁻¹ (b − w) after w = A x.
template <class Vec>
struct AmgJacobiSweep {
  Vec dinv, b, w, x;
  typename Vec::non_const_value_type omega;
  bool zero;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    if (zero)
      x(i) = omega * dinv(i) * b(i);
    else
      x(i) += omega * dinv(i) * (b(i) - w(i));
  }
};

/// r = b − r (r held A x).
template <class Vec>
struct AmgResidual {
  Vec b, r;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { r(i) = b(i) - r(i); }
};

/// x = A⁻¹ b with the dense inverse (row-major), a team per row.
template <class Vec>
struct AmgDenseApply {
  Vec inv, b, x;
  std::int64_t n;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& t) const {
    const std::int64_t i = t.league_rank();
    double s = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(t, n),
        [&](std::int64_t j, double& acc) {
          acc += static_cast<double>(inv(i * n + j)) * static_cast<double>(b(j));
        },
        s);
    Kokkos::single(Kokkos::PerTeam(t),
                   [&]() { x(i) = static_cast<typename Vec::non_const_value_type>(s); });
  }
};

/// The symmetry probe's vectors: u_i = hash(i, seed) in [-1, 1).
KOKKOS_INLINE_FUNCTION double amg_probe_value(std::int64_t i, std::uint64_t seed) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(i) + seed);
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0) * 2 - 1;
}

template <class Vec>
struct AmgProbeStart {
  Vec u;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    u(i) = static_cast<typename Vec::value_type>(amg_probe_value(i, seed));
  }
};

/// sums = {vᵀ(A u), ‖v‖², ‖A u‖²} with v generated from `seed`.
template <class Vec>
struct AmgProbeDot {
  using value_type = double[];
  Vec au;
  std::uint64_t seed;
  unsigned value_count = 3;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type sums) const {
    const double v = amg_probe_value(i, seed), a = static_cast<double>(au(i));
    sums[0] += v * a;
    sums[1] += v * v;
    sums[2] += a * a;
  }
};

/// Rows where the given operator's y = op u differs from A u by more than
/// rounding: |y_i − (A u)_i| <= 4 (len + 2) eps Σ_j |a_ij u_j| + (len + 1) tiny
/// (summation order, the format's precision, subnormal products); a row whose
/// reference is not finite matches only a y_i that is not finite either.
/// operator() returns 1 for such a row (amg_count_rows), first() whether it is
/// one (amg_first_row: the same lanes, so the same sums).
template <class Crs, class Vec>
struct AmgOperatorCheck {
  typename Crs::row_starts_type rs;
  typename Crs::column_indices_type col;
  typename Crs::values_type val;
  Vec u, y;
  double eps, tiny;
  template <class Member>
  KOKKOS_INLINE_FUNCTION bool first(Member const& team, std::int64_t i) const {
    double sum = 0, mag = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, rs(i), rs(i + 1)),
        [&](auto e, double& t) {
          t += static_cast<double>(val(e)) * static_cast<double>(u(col(e)));
        },
        sum);
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, rs(i), rs(i + 1)),
        [&](auto e, double& t) {
          const double p = static_cast<double>(val(e)) * static_cast<double>(u(col(e)));
          t += p < 0 ? -p : p;
        },
        mag);
    const double yi = static_cast<double>(y(i));
    const bool y_finite = yi - yi == 0;
    if (!(sum - sum == 0) || !(mag - mag == 0)) return y_finite;
    const double len = static_cast<double>(rs(i + 1) - rs(i));
    const double d = yi - sum;
    return !((d < 0 ? -d : d) <= 4 * (len + 2) * eps * mag + (len + 1) * tiny);
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(Member const& team, std::int64_t i) const {
    return first(team, i) ? 1 : 0;
  }
};

/// Whether two CRS patterns are equal (counted differences).
template <class Crs>
struct AmgPatternDiff {
  typename Crs::row_starts_type ra, rb;
  typename Crs::column_indices_type ca, cb;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& diff) const {
    if (ra(i + 1) != rb(i + 1)) {
      ++diff;
      return;
    }
    for (auto e = ra(i); e < ra(i + 1); ++e) diff += ca(e) != cb(e) ? 1 : 0;
  }
};

} // namespace detail

/// Smoothed-aggregation AMG (see the file comment) of a CrsMatrix, a
/// preconditioner for cg(), bicgstab() and gmres() (the preconditioner concept
/// of solvers/preconditioner.hpp).
///
/// Copies share the hierarchy and its work vectors: one apply at a time. The
/// matrix given is held (shared arrays), not copied.
///
/// \tparam Scalar, ExecutionSpace, Ordinal, Offset those of the CrsMatrix
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class AmgPreconditioner {
public:
  /// The execution space of the matrix and of every kernel of the set-up and the cycle.
  using execution_space = ExecutionSpace;
  /// The vectors' scalar type.
  using scalar_type = Scalar;
  /// The matrix type it is built from, and every level's CRS.
  using matrix_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The Kokkos device of every View.
  using device_type = typename matrix_type::device_type;
  /// The vectors of apply(), those of the matrix's operator.
  using vector_type = Kokkos::View<Scalar*, device_type>;
  /// The near-nullspace: rows x k, column-major.
  using multi_vector_type = Kokkos::View<Scalar**, Kokkos::LayoutLeft, device_type>;
  /// Every level's operator in its chosen format.
  using level_matrix_type = AutoMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;

  /// The hierarchy of A with the constant near-nullspace.
  ///
  /// Throws std::invalid_argument for options out of range (naming the
  /// option), a non-square or broken A, a zero or non-finite diagonal entry of
  /// A (naming the row: Jacobi smoothing divides by it), a λmax estimate that
  /// is not positive (A far from SPD), a singular coarsest operator; AllocationError
  /// (naming the level) when a level does not fit the memory limit;
  /// std::length_error where a level's sizes overflow Ordinal or Offset.
  /// Synchronous.
  AmgPreconditioner(ExecutionSpace const& exec, matrix_type const& A,
                    AmgOptions const& options = {})
      : AmgPreconditioner(exec, A, multi_vector_type(), options) {}

  /// The hierarchy of A with the given near-nullspace (rows of A x k, k in
  /// [1, 64], finite; an empty View: the constant vector). Throws as above,
  /// and std::invalid_argument for a near-nullspace of the wrong size.
  AmgPreconditioner(ExecutionSpace const& exec, matrix_type const& A,
                    multi_vector_type const& near_nullspace, AmgOptions const& options)
      : options_(checked(options)), s_(std::make_shared<State>()) {
    setup(exec, A, near_nullspace);
  }

  /// The hierarchy of A whose finest level is applied through `fine_operator`, an AutoMatrix of
  /// A's values such as the one the solver already applies (make_auto_matrix(exec, A)): the
  /// set-up neither converts A again nor holds a second copy of it in another format. It is
  /// shared, not copied: refresh() refills it (AutoMatrix::refill), so every copy of that handle,
  /// the solver's included, sees the new values, also when the refresh then fails (a zero
  /// diagonal entry); a refill of the handle alone leaves the coarser levels as they were. Its
  /// product with a pseudo-random vector is compared with A's, row by row, before anything is
  /// built (std::invalid_argument naming the first row that differs by more than rounding, or
  /// another shape). The values are checked, not the stored pattern: a handle made from another
  /// pattern with the same product is refused by a refresh where its format refills in place
  /// and converted again otherwise. AmgOptions::format does not apply to level 0. Otherwise as
  /// the constructors above.
  AmgPreconditioner(ExecutionSpace const& exec, matrix_type const& A,
                    level_matrix_type const& fine_operator, multi_vector_type const& near_nullspace,
                    AmgOptions const& options)
      : options_(checked(options)), s_(std::make_shared<State>()) {
    given_fine_ = &fine_operator;
    try {
      setup(exec, A, near_nullspace);
    } catch (...) {
      given_fine_ = nullptr;
      throw;
    }
    given_fine_ = nullptr;
  }

  /// Rows of the finest level.
  std::int64_t num_rows() const { return s_->levels.empty() ? 0 : s_->levels[0]->A.num_rows(); }
  /// Levels, finest included.
  int num_levels() const { return static_cast<int>(s_->levels.size()); }
  /// The options it was built with.
  /// The options, coarse_size resolved (amg_coarse_size()).
  AmgOptions const& options() const { return options_; }
  /// What the set-up built and what it cost.
  AmgReport const& report() const { return s_->report; }
  /// describe(report()).
  std::string describe() const { return spmvkit::describe(s_->report); }
  /// Level l's operator as CRS (0: the matrix given).
  matrix_type const& matrix(int l) const { return level(l).A; }
  /// Level l's operator in its chosen format.
  level_matrix_type const& level_matrix(int l) const { return level(l).op; }
  /// The prolongator from level l + 1 to level l (l < num_levels() − 1).
  matrix_type const& prolongator(int l) const { return transfer(l).P; }
  /// The restriction Pᵀ from level l to level l + 1.
  matrix_type const& restriction(int l) const { return transfer(l).R; }
  /// The tentative prolongator from level l + 1 to level l (its columns
  /// orthonormal on every aggregate); empty unless keep_for_refresh.
  matrix_type const& tentative_prolongator(int l) const { return transfer(l).Pt; }

  /// z = M⁻¹ r: one cycle from z = 0. Asynchronous on exec; r and z distinct,
  /// of num_rows() entries (std::invalid_argument otherwise).
  void apply(ExecutionSpace const& exec, vector_type const& r, vector_type const& z) const {
    if (static_cast<std::int64_t>(r.extent(0)) != num_rows() ||
        static_cast<std::int64_t>(z.extent(0)) != num_rows()) {
      throw std::invalid_argument(
          std::string(where) + "::apply: r has " + std::to_string(r.extent(0)) + " entries, z " +
          std::to_string(z.extent(0)) + ", the hierarchy " + std::to_string(num_rows()) + " rows");
    }
    if (num_rows() == 0) return;
    cycle(exec, 0, r, z, true);
  }

  /// New values of the finest matrix, same pattern (time steps, nonlinear
  /// iterations): recomputes every level's values, reusing the aggregates,
  /// the tentative prolongators and the SpGEMM plans. Throws
  /// std::invalid_argument when A's pattern differs from the one set up,
  /// std::logic_error when the options did not keep_for_refresh; as the
  /// constructor for the values (zero diagonal, singular coarsest operator).
  /// Synchronous.
  void refresh(ExecutionSpace const& exec, matrix_type const& A) {
    if (!options_.keep_for_refresh) {
      throw std::logic_error(std::string(where) +
                             "::refresh: set up without keep_for_refresh; build it again");
    }
    Level& L0 = *s_->levels.at(0);
    if (A.num_rows() != L0.A.num_rows() || A.num_cols() != L0.A.num_cols() ||
        A.nnz() != L0.A.nnz()) {
      throw std::invalid_argument(
          std::string(where) + "::refresh: the matrix is " + std::to_string(A.num_rows()) + " x " +
          std::to_string(A.num_cols()) + " with " + std::to_string(A.nnz()) +
          " nonzeros, the hierarchy's " + std::to_string(L0.A.num_rows()) + " x " +
          std::to_string(L0.A.num_cols()) + " with " + std::to_string(L0.A.nnz()));
    }
    if (A.row_starts().data() != L0.A.row_starts().data() ||
        A.column_indices().data() != L0.A.column_indices().data()) {
      std::int64_t diff = 0;
      Kokkos::parallel_reduce("SpMVKit::amg::pattern_check", Range(exec, 0, A.num_rows()),
                              detail::AmgPatternDiff<matrix_type>{A.row_starts(), L0.A.row_starts(),
                                                                  A.column_indices(),
                                                                  L0.A.column_indices()},
                              diff);
      if (diff > 0) {
        throw std::invalid_argument(std::string(where) + "::refresh: the pattern differs from " +
                                    "the one set up (" + std::to_string(diff) +
                                    " rows or entries): build a new hierarchy");
      }
    }
    AmgSetupTimes& t = s_->report.times;
    t = AmgSetupTimes();
    Kokkos::Timer total;
    s_->report.refreshed = true; // from here on the levels keep their formats
    L0.A = A;
    const int last = num_levels() - 1;
    for (int l = 0; l <= last; ++l) {
      Level& L = *s_->levels[l];
      prepare_level(exec, l, L);
      if (l == last) break;
      Level& N = *s_->levels[l + 1];
      if (options_.prolongator_damping > 0) {
        phase(exec, t.smoothing, [&] {
          if (!L.gather) L.ap = spgemm_numeric(exec, *L.h_apt, L.A, L.Pt);
          smooth_prolongator(exec, L);
          L.ap = matrix_type();
        });
      }
      phase(exec, t.restriction, [&] {
        Kokkos::parallel_for("SpMVKit::amg::restriction_values", Range(exec, 0, L.R.nnz()),
                             detail::AmgGather<typename matrix_type::values_type, Map>{
                                 L.P.values(), L.R.values(), L.rmap});
      });
      phase(exec, t.galerkin,
            [&] { N.A = triple_product_numeric(exec, *L.h_galerkin, L.R, L.A, L.P); });
      s_->report.levels[l + 1].nnz = N.A.nnz();
    }
    finish_coarsest(exec);
    t.total = total.seconds();
  }

private:
  static constexpr char const* where = "spmvkit::AmgPreconditioner";
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using Handle = SpgemmHandle<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Triple = TripleProductHandle<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Map = Kokkos::View<double*, device_type>;
  using Agg = Kokkos::View<Ordinal*, device_type>;

  struct Level {
    matrix_type A;               // this level's operator, CRS
    level_matrix_type op;        // and in its chosen format
    vector_type dinv;            // the smoother's inverse diagonal (l1 or plain)
    double lower = 0, upper = 0; // the Chebyshev interval
    double lambda = 0;
    // To the next level (empty on the coarsest):
    matrix_type Pt, P, R;
    Map rmap;
    std::unique_ptr<Handle> h_apt;
    std::unique_ptr<Triple> h_galerkin; // Pᵀ (A P), A P kept inside
    bool gather = false;                // P from A P_tent by the gather kernels, not spgemm (h_apt)
    matrix_type ap;                     // A P_tent from spgemm while P's values are formed
    Agg agg;
    // Work vectors: b and x of levels below the finest, r (= w) and d everywhere.
    vector_type b, x, r, d;
    vector_type eigen;      // the power iteration's last vector: a refresh starts from it
    vector_type plain_dinv; // l1 smoother: 1 / diag(A) of the λmax estimate and of P's smoothing
  };

  struct State {
    std::vector<std::unique_ptr<Level>> levels;
    AmgReport report;
    vector_type coarse_inverse;
    bool direct = false;
    int k = 1;
  };

  Level const& level(int l) const {
    if (l < 0 || l >= num_levels()) {
      throw std::out_of_range(std::string(where) + ": level " + std::to_string(l) + " of " +
                              std::to_string(num_levels()));
    }
    return *s_->levels[static_cast<std::size_t>(l)];
  }
  Level const& transfer(int l) const {
    if (l < 0 || l + 1 >= num_levels()) {
      throw std::out_of_range(std::string(where) + ": no transfer from level " + std::to_string(l) +
                              " (" + std::to_string(num_levels()) + " levels)");
    }
    return *s_->levels[static_cast<std::size_t>(l)];
  }

  static std::string text(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }

  static AmgOptions checked(AmgOptions o) {
    auto fail = [](std::string const& what) { throw std::invalid_argument(where + (": " + what)); };
    auto finite = [](double v) { return std::isfinite(v); };
    if (!(o.strength_threshold >= 0) || !finite(o.strength_threshold))
      fail("strength_threshold = " + text(o.strength_threshold) + " must be finite and >= 0");
    if (!(o.prolongator_damping >= 0 && o.prolongator_damping < 2))
      fail("prolongator_damping = " + text(o.prolongator_damping) + " must be in [0, 2)");
    if (o.max_levels < 1) fail("max_levels = " + std::to_string(o.max_levels) + " must be >= 1");
    if (o.coarse_size < 0)
      fail("coarse_size = " + std::to_string(o.coarse_size) + " must be >= 1, or 0 (automatic)");
    if (o.direct_limit < 0 || o.direct_limit > 20000)
      fail("direct_limit = " + std::to_string(o.direct_limit) +
           " must be in [0, 20000] (a dense inverse of that many rows)");
    if (o.coarse_sweeps < 1)
      fail("coarse_sweeps = " + std::to_string(o.coarse_sweeps) + " must be >= 1");
    if (!(o.min_coarsening_ratio > 1) || !finite(o.min_coarsening_ratio))
      fail("min_coarsening_ratio = " + text(o.min_coarsening_ratio) + " must be finite and > 1");
    if (o.pre_sweeps < 0 || o.post_sweeps < 0 || o.pre_sweeps + o.post_sweeps == 0)
      fail("pre_sweeps = " + std::to_string(o.pre_sweeps) +
           " and post_sweeps = " + std::to_string(o.post_sweeps) + " must be >= 0 and not both 0");
    if (o.chebyshev_degree < 1)
      fail("chebyshev_degree = " + std::to_string(o.chebyshev_degree) + " must be >= 1");
    if (!(o.chebyshev_ratio > 1) || !finite(o.chebyshev_ratio))
      fail("chebyshev_ratio = " + text(o.chebyshev_ratio) + " must be finite and > 1");
    if (o.power_iterations < 1)
      fail("power_iterations = " + std::to_string(o.power_iterations) + " must be >= 1");
    if (o.lanczos_steps < 1)
      fail("lanczos_steps = " + std::to_string(o.lanczos_steps) + " must be >= 1");
    if (!(o.jacobi_weight > 0 && o.jacobi_weight < 2))
      fail("jacobi_weight = " + text(o.jacobi_weight) + " must be in (0, 2)");
    o.coarse_size = amg_coarse_size<ExecutionSpace>(o);
    return o;
  }

  /// Runs f and adds its fenced time to `slot`.
  template <class F>
  static void phase(ExecutionSpace const& exec, double& slot, F&& f) {
    Kokkos::Timer timer;
    f();
    exec.fence();
    slot += timer.seconds();
  }

  /// dinv = 1 / diag(A) (l1: 1 / the rows' sums of |a_ij|), 0 where that is
  /// zero or not finite; returns how many such rows, `first` the first of them.
  static std::int64_t inverse_diagonal(ExecutionSpace const& exec, matrix_type const& A,
                                       vector_type const& dinv, bool l1, std::int64_t& first) {
    const Range range(exec, 0, A.num_rows());
    const std::int64_t bad =
        detail::amg_count_rows(exec, "SpMVKit::amg::smoother_diagonal", A.num_rows(), A.nnz(),
                               detail::AmgSmootherDiagonal<matrix_type, vector_type>{
                                   A.row_starts(), A.column_indices(), A.values(), dinv, l1});
    if (bad > 0) {
      Kokkos::parallel_reduce("SpMVKit::amg::first_zero_diagonal", range,
                              detail::JacobiFirstBad<vector_type>{dinv},
                              Kokkos::Min<std::int64_t>(first));
    }
    exec.fence();
    return bad;
  }

  /// Format, smoother diagonal and λmax of level l (set-up and refresh).
  void prepare_level(ExecutionSpace const& exec, int l, Level& L) {
    AmgSetupTimes& t = s_->report.times;
    AmgLevelInfo& info = s_->report.levels[static_cast<std::size_t>(l)];
    const std::int64_t n = L.A.num_rows();
    if (static_cast<std::int64_t>(L.r.extent(0)) != n || !L.r.data()) {
      L.r = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::r", n);
      L.d = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::d", n);
      if (l > 0) {
        L.b = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::b", n);
        L.x = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::x", n);
      }
    }
    phase(exec, t.formats, [&] {
      // A refresh keeps each level's format and, where the format can, its arrays: the new
      // values alone (AutoMatrix::refill).
      if (s_->report.refreshed)
        L.op.refill(exec, L.A);
      else if (l == 0 && given_fine_ != nullptr)
        L.op = checked_fine_operator(exec, L);
      else
        L.op = make_auto_matrix(exec, L.A, options_.format);
      info.format = L.op.selection().format;
    });
    if (l == 0 && s_->report.smoother.empty())
      phase(exec, t.smoothers, [&] { choose_smoother(exec, L); });
    phase(exec, t.smoothers, [&] {
      if (!L.dinv.data() || static_cast<std::int64_t>(L.dinv.extent(0)) != n)
        L.dinv = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::smoother_dinv", n);
      const bool l1 = smoother_ == AmgSmoother::l1_jacobi;
      std::int64_t first = n;
      const std::int64_t bad = inverse_diagonal(exec, L.A, L.dinv, l1, first);
      info.zero_diagonal_rows = bad;
      // Coarse rows of dropped near-nullspace columns are empty; on the finest
      // level a zero diagonal is the user's matrix, which Jacobi cannot scale.
      if (l == 0 && bad > 0) {
        throw std::invalid_argument(std::string(where) + ": " + std::to_string(bad) + " of " +
                                    std::to_string(n) + " rows have a zero or non-finite " +
                                    (l1 ? "row sum" : "diagonal entry") + " (first: row " +
                                    std::to_string(first) + "); the smoother divides by it");
      }
    });
    const bool need_lambda = smoother_ == AmgSmoother::chebyshev ||
                             (options_.prolongator_damping > 0 && l + 1 < num_levels_planned_);
    if (need_lambda && n > 0) {
      phase(exec, t.smoothing, [&] { L.lambda = estimate_lambda_max(exec, l, L, info); });
      info.lambda_max = L.lambda;
      L.upper = 1.1 * L.lambda;
      L.lower = L.lambda / options_.chebyshev_ratio;
    }
  }

  /// Resolves AmgSmoother::automatic with a probe: for a symmetric A, vᵀ(A u)
  /// equals uᵀ(A v) for any u and v up to rounding (of relative size about
  /// eps / sqrt(n) with the sums in double); two pseudo-random vectors whose
  /// difference exceeds 1e-10 (float: 1e-5) relative to ‖u‖‖A v‖ + ‖v‖‖A u‖
  /// show a nonsymmetric A (two operator applies). The probe also runs for a
  /// chosen Chebyshev smoother under eigen_estimate = automatic: Lanczos needs symmetry.
  void choose_smoother(ExecutionSpace const& exec, Level& L) {
    using S = Scalar;
    smoother_ = options_.smoother;
    symmetric_ = false;
    const bool probe = smoother_ == AmgSmoother::automatic ||
                       (smoother_ == AmgSmoother::chebyshev &&
                        options_.eigen_estimate == AmgEigenEstimate::automatic);
    if (!probe) {
      s_->report.smoother = std::string(name(smoother_)) + " (chosen)";
      return;
    }
    const std::int64_t n = L.A.num_rows();
    const Range range(exec, 0, n);
    constexpr std::uint64_t su = 1, sv = 0x5DEECE66Dull;
    double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    Kokkos::parallel_for("SpMVKit::amg::probe_start", range,
                         detail::AmgProbeStart<vector_type>{L.d, su});
    spmv(exec, S(1), L.op, L.d, S(0), L.r);
    Kokkos::parallel_reduce("SpMVKit::amg::probe_dot", range,
                            detail::AmgProbeDot<vector_type>{L.r, sv}, a); // vᵀ(A u)
    Kokkos::parallel_for("SpMVKit::amg::probe_start", range,
                         detail::AmgProbeStart<vector_type>{L.d, sv});
    spmv(exec, S(1), L.op, L.d, S(0), L.r);
    Kokkos::parallel_reduce("SpMVKit::amg::probe_dot", range,
                            detail::AmgProbeDot<vector_type>{L.r, su}, b); // uᵀ(A v)
    exec.fence();
    // a[1] = ‖v‖², a[2] = ‖A u‖², b[1] = ‖u‖², b[2] = ‖A v‖².
    const double scale = std::sqrt(a[1] * a[2]) + std::sqrt(b[1] * b[2]);
    const double asymmetry = scale > 0 ? std::abs(a[0] - b[0]) / scale : 0;
    const double bound = sizeof(Scalar) < sizeof(double) ? 1e-5 : 1e-10;
    const bool symmetric = !(asymmetry > bound); // NaN: leave it to the λmax check
    symmetric_ = symmetric;
    const bool chosen = smoother_ != AmgSmoother::automatic;
    if (!chosen) smoother_ = symmetric ? AmgSmoother::chebyshev : AmgSmoother::l1_jacobi;
    s_->report.smoother = std::string(name(smoother_)) + (chosen ? " (chosen" : " (automatic") +
                          ": symmetry probe " + text(asymmetry) + (symmetric ? " <= " : " > ") +
                          text(bound) + (symmetric ? ", symmetric" : ", nonsymmetric") + ")";
  }

  /// λmax of D⁻¹A by power iterations from Chebyshev's deterministic start
  /// (the plain diagonal: the l1 smoother keeps another one, so it is formed here).
  double estimate_lambda_max(ExecutionSpace const& exec, int l, Level& L, AmgLevelInfo& info) {
    using S = Scalar;
    const std::int64_t n = L.A.num_rows();
    const Range range(exec, 0, n);
    vector_type dinv = L.dinv;
    if (smoother_ == AmgSmoother::l1_jacobi) {
      // Kept for the prolongator smoothing, which divides by the same diagonal.
      if (static_cast<std::int64_t>(L.plain_dinv.extent(0)) != n)
        L.plain_dinv = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::plain_dinv", n);
      dinv = L.plain_dinv;
      std::int64_t first = n;
      const std::int64_t bad = inverse_diagonal(exec, L.A, dinv, false, first);
      if (l == 0 && bad > 0) {
        throw std::invalid_argument(std::string(where) + ": " + std::to_string(bad) +
                                    " rows have a zero or non-finite diagonal entry (first: row " +
                                    std::to_string(first) +
                                    "); the prolongator smoothing divides by it");
      }
    }
    if (use_lanczos(exec, l, dinv)) {
      info.eigen_estimate = "lanczos";
      const auto u = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::lanczos_u", n);
      const auto t = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::lanczos_t", n);
      Kokkos::parallel_for("SpMVKit::amg::lanczos_start", range,
                           detail::ChebyshevStart<vector_type>{L.d});
      const auto e = detail::lanczos_lambda_max(exec, dinv, L.d, u, L.r, t, options_.lanczos_steps,
                                                [&](vector_type const& in, vector_type const& out) {
                                                  spmv(exec, S(1), L.op, in, S(0), out);
                                                });
      info.eigen_steps = e.steps;
      if (!(e.lambda > 0) || !std::isfinite(e.lambda)) {
        throw std::invalid_argument(
            std::string(where) + ": level " + std::to_string(l) + " (" + std::to_string(n) +
            " rows): the Lanczos estimate of λmax(D⁻¹A) is " + text(e.lambda) + " after " +
            std::to_string(e.steps) +
            " steps (not finite or not positive: is the matrix finite and symmetric positive "
            "definite?)");
      }
      return e.lambda;
    }
    info.eigen_estimate = "power";
    // A refresh starts from the vector the last estimate ended with: a third of the
    // iterations (at least 5) then reach what the set-up's reached from a pseudo-random start.
    const bool warm = static_cast<std::int64_t>(L.eigen.extent(0)) == n;
    const int iterations =
        warm ? std::min(options_.power_iterations, std::max(5, options_.power_iterations / 3))
             : options_.power_iterations;
    info.eigen_steps = iterations;
    if (warm) {
      Kokkos::deep_copy(exec, L.d, L.eigen);
    } else {
      Kokkos::parallel_for("SpMVKit::amg::power_start", range,
                           detail::ChebyshevStart<vector_type>{L.d});
    }
    double lambda = 0;
    for (int k = 1; k <= iterations; ++k) {
      spmv(exec, S(1), L.op, L.d, S(0), L.r);
      double sums[3] = {0, 0, 0};
      detail::reduce_rows("SpMVKit::amg::power", exec, n,
                          detail::ChebyshevPower<vector_type>{dinv, L.d, L.r}, sums);
      lambda = std::sqrt(sums[2] / sums[1]);
      if (!std::isfinite(lambda) || !(lambda > 0) || !(sums[2] > 0) || !std::isfinite(sums[2])) {
        throw std::invalid_argument(
            std::string(where) + ": level " + std::to_string(l) + " (" + std::to_string(n) +
            " rows): the power iteration's estimate of λmax(D⁻¹A) is " + text(lambda) +
            " at iteration " + std::to_string(k) +
            " (not finite or not positive: is the matrix finite, with D⁻¹A's eigenvalues on the "
            "positive side, as for a symmetric positive definite matrix?)");
      }
      if (k < iterations) {
        Kokkos::parallel_for(
            "SpMVKit::amg::power_normalise", range,
            detail::ChebyshevScale<vector_type>{L.d, L.r, S(1 / std::sqrt(sums[2]))});
      }
    }
    if (options_.keep_for_refresh) {
      if (!warm) L.eigen = detail::allocate_view<vector_type>(exec, "SpMVKit::amg::eigenvector", n);
      Kokkos::deep_copy(exec, L.eigen, L.d);
    }
    return lambda;
  }

  /// Whether level l estimates λmax by Lanczos (AmgOptions::eigen_estimate).
  bool use_lanczos(ExecutionSpace const& exec, int l, vector_type const& dinv) const {
    const AmgEigenEstimate e = options_.eigen_estimate;
    if (e == AmgEigenEstimate::power) return false;
    // automatic: a Chebyshev smoother on a matrix the probe found symmetric.
    if (e == AmgEigenEstimate::automatic && (smoother_ != AmgSmoother::chebyshev || !symmetric_))
      return false;
    std::int64_t negative = 0;
    Kokkos::parallel_reduce("SpMVKit::amg::negative_diagonal",
                            Range(exec, 0, static_cast<std::int64_t>(dinv.extent(0))),
                            detail::AmgCountNegative<vector_type>{dinv}, negative);
    exec.fence();
    if (negative == 0) return true;
    if (e == AmgEigenEstimate::automatic) return false;
    throw std::invalid_argument(std::string(where) + ": eigen_estimate = lanczos, but level " +
                                std::to_string(l) + " has " + std::to_string(negative) +
                                " negative diagonal entries (Lanczos needs D^{-1/2}; choose power "
                                "or automatic)");
  }

  /// Whether level l forms A P_tent by the gather kernels (AmgOptions::prolongator_product).
  bool use_gather(ExecutionSpace const& exec, int l, matrix_type const& A) const {
    const AmgProduct p = options_.prolongator_product;
    if (p == AmgProduct::spgemm) return false;
    if (p == AmgProduct::automatic && detail::is_host_space_v<ExecutionSpace>) return false;
    const std::int64_t longest = detail::amg_longest_row(exec, A);
    if (longest < detail::amg_gather_row_cap) return true;
    if (p == AmgProduct::automatic) return false;
    throw std::invalid_argument(std::string(where) + ": prolongator_product = gather, but level " +
                                std::to_string(l) + " has a row of " + std::to_string(longest) +
                                " entries; the gather kernels take rows of at most " +
                                std::to_string(detail::amg_gather_row_cap - 1) +
                                " (choose spgemm or automatic)");
  }

  /// P's values: by the gather kernel, else from A P_tent in L.ap (on its pattern).
  void smooth_prolongator(ExecutionSpace const& exec, Level& L) {
    // λmax was estimated just before (set-up and refresh alike), with this diagonal.
    vector_type const& dinv = smoother_ == AmgSmoother::l1_jacobi ? L.plain_dinv : L.dinv;
    const double omega = options_.prolongator_damping / L.lambda;
    if (L.gather) {
      detail::amg_gather_values(exec, L.A, L.agg, L.Pt, dinv, omega, s_->k, L.P);
      return;
    }
    matrix_type const& ap = L.ap;
    Kokkos::parallel_for("SpMVKit::amg::smooth_prolongator", Range(exec, 0, L.A.num_rows()),
                         detail::AmgSmoothProlongator<matrix_type, Agg, vector_type>{
                             ap.row_starts(), ap.column_indices(), ap.values(), L.P.values(),
                             L.Pt.row_starts(), L.Pt.values(), L.agg, dinv, omega, s_->k});
  }

  /// Throws AllocationError naming level l when `bytes` do not fit the limit.
  void check_memory(int l, std::int64_t n, std::int64_t nnz, std::uint64_t bytes) const {
    const MemoryLimit limit = memory_limit<typename ExecutionSpace::memory_space>(
        options_.memory_limit, "AmgOptions::memory_limit", where);
    if (!limit.admits(bytes)) {
      throw AllocationError(std::string(where) + ": level " + std::to_string(l) + " (" +
                            std::to_string(n) + " rows, " + std::to_string(nnz) +
                            " nonzeros) needs about " + std::to_string(bytes) +
                            " bytes for its strength graph, aggregates and prolongator, more "
                            "than the memory limit of " +
                            std::to_string(limit.bytes) + " bytes (" + limit.source + ")");
    }
  }

  void setup(ExecutionSpace const& exec, matrix_type const& A,
             multi_vector_type const& near_nullspace) {
    Kokkos::Timer total;
    if (A.num_rows() != A.num_cols()) {
      throw std::invalid_argument(std::string(where) + ": the matrix is " +
                                  std::to_string(A.num_rows()) + " x " +
                                  std::to_string(A.num_cols()) + ", not square");
    }
    detail::ensure_structure(exec, A);
    const std::int64_t n0 = A.num_rows();
    // The near-nullspace, column-major in a rank-1 View.
    int k = 1;
    typename matrix_type::values_type B;
    if (near_nullspace.extent(0) > 0 || near_nullspace.extent(1) > 0) {
      if (static_cast<std::int64_t>(near_nullspace.extent(0)) != n0 ||
          near_nullspace.extent(1) < 1 || near_nullspace.extent(1) > 64) {
        throw std::invalid_argument(std::string(where) + ": the near-nullspace is " +
                                    std::to_string(near_nullspace.extent(0)) + " x " +
                                    std::to_string(near_nullspace.extent(1)) +
                                    "; it must have the matrix's " + std::to_string(n0) +
                                    " rows and 1 to 64 columns");
      }
      k = static_cast<int>(near_nullspace.extent(1));
      B = detail::allocate_view<decltype(B)>(exec, "SpMVKit::amg::near_nullspace", n0 * k);
      Kokkos::parallel_for(
          "SpMVKit::amg::near_nullspace_copy", Range(exec, 0, n0),
          detail::AmgCopyColumns<decltype(B), multi_vector_type>{near_nullspace, B});
      std::int64_t bad = 0;
      Kokkos::parallel_reduce("SpMVKit::amg::near_nullspace_check", Range(exec, 0, n0 * k),
                              detail::AmgCountNonFinite<decltype(B)>{B}, bad);
      if (bad > 0) {
        throw std::invalid_argument(std::string(where) + ": the near-nullspace has " +
                                    std::to_string(bad) + " entries that are not finite");
      }
    } else {
      B = detail::allocate_view<decltype(B)>(exec, "SpMVKit::amg::near_nullspace", n0);
      Kokkos::deep_copy(exec, B, Scalar(1));
    }
    s_->k = k;
    AmgReport& rep = s_->report;
    AmgSetupTimes& t = rep.times;
    matrix_type current = A;
    num_levels_planned_ = options_.max_levels;
    for (int l = 0;; ++l) {
      const std::int64_t n = current.num_rows();
      s_->levels.push_back(std::make_unique<Level>());
      Level& L = *s_->levels.back();
      L.A = current;
      rep.levels.emplace_back();
      rep.levels.back().rows = n;
      rep.levels.back().nnz = current.nnz();
      // Whether this level is the coarsest, decided before its smoother's λmax.
      std::string stop;
      if (n <= options_.coarse_size) {
        stop = "coarse_size reached (" + std::to_string(n) +
               " <= " + std::to_string(options_.coarse_size) + " rows)";
      } else if (l + 1 >= options_.max_levels) {
        stop = "max_levels = " + std::to_string(options_.max_levels) + " reached";
      }
      num_levels_planned_ = stop.empty() ? l + 2 : l + 1;
      try {
        prepare_level(exec, l, L);
        if (stop.empty()) stop = coarsen(exec, l, L, B, current);
      } catch (AllocationError const& e) {
        throw AllocationError(std::string(where) + ": level " + std::to_string(l) + " (" +
                              std::to_string(n) + " rows): " + e.what());
      } catch (std::length_error const& e) {
        throw std::length_error(std::string(where) + ": level " + std::to_string(l) + " (" +
                                std::to_string(n) + " rows): " + e.what());
      }
      if (!stop.empty()) {
        rep.stop_reason = stop;
        break;
      }
    }
    num_levels_planned_ = num_levels();
    finish_coarsest(exec);
    double rows = 0, nnz = 0;
    for (auto const& v : rep.levels) {
      rows += static_cast<double>(v.rows);
      nnz += static_cast<double>(v.nnz);
    }
    rep.grid_complexity = n0 > 0 ? rows / static_cast<double>(n0) : 1;
    rep.operator_complexity = A.nnz() > 0 ? nnz / static_cast<double>(A.nnz()) : 1;
    rep.memory_bytes = memory_held();
    t.total = total.seconds();
  }

  /// Builds the transfer from level l and the next level's matrix (into
  /// `current`) and near-nullspace (into B); "" when it did, else why not.
  std::string coarsen(ExecutionSpace const& exec, int l, Level& L,
                      typename matrix_type::values_type& B, matrix_type& current) {
    AmgSetupTimes& t = s_->report.times;
    AmgLevelInfo& info = s_->report.levels[static_cast<std::size_t>(l)];
    const int k = s_->k;
    const std::int64_t n = L.A.num_rows(), nnz = L.A.nnz();
    check_memory(l, n, nnz,
                 static_cast<std::uint64_t>(nnz) * (sizeof(Ordinal) + sizeof(float)) +
                     static_cast<std::uint64_t>(n) *
                         (3 * 8 + 2 * sizeof(Ordinal) + 2 * sizeof(Offset) + 16 +
                          static_cast<std::uint64_t>(k) * (sizeof(Ordinal) + sizeof(Scalar))));
    detail::AmgStrength<Offset, Ordinal, device_type> S;
    phase(exec, t.strength,
          [&] { S = detail::amg_strength(exec, L.A, options_.strength_threshold); });
    detail::AmgAggregates<Agg> ag;
    phase(exec, t.aggregation,
          [&] { ag = detail::amg_aggregate<ExecutionSpace, Ordinal>(exec, S, n); });
    info.isolated_rows = ag.isolated;
    info.mis_rounds = ag.mis_rounds;
    info.aggregates = ag.count;
    if (ag.count == 0) {
      num_levels_planned_ = l + 1;
      return "no aggregates at level " + std::to_string(l) +
             " (no row has a strong connection: the smoother alone)";
    }
    const std::int64_t nc = ag.count * k;
    if (static_cast<double>(n) / static_cast<double>(nc) < options_.min_coarsening_ratio) {
      num_levels_planned_ = l + 1;
      return "coarsening stagnated at level " + std::to_string(l) + " (" + std::to_string(n) +
             " rows to " + std::to_string(nc) +
             ", ratio below min_coarsening_ratio = " + text(options_.min_coarsening_ratio) + ")";
    }
    detail::checked_index<Ordinal>(nc, "coarse rows", where);
    L.agg = ag.agg;
    S = {};
    detail::AmgTentative<matrix_type> tent;
    phase(exec, t.tentative, [&] {
      const auto members = detail::amg_members(exec, ag.agg, ag.count);
      tent = detail::amg_tentative<matrix_type>(exec, ag.agg, ag.count, members, B, k);
    });
    info.dependent_columns = tent.dependent;
    L.Pt = tent.P;
    SpgemmOptions so;
    so.memory_limit = options_.memory_limit;
    so.numeric = options_.galerkin_numeric;
    if (so.numeric == SpgemmNumeric::automatic && options_.keep_for_refresh &&
        !detail::is_host_space_v<ExecutionSpace>)
      so.numeric = SpgemmNumeric::positions;
    if (options_.prolongator_damping > 0) {
      phase(exec, t.smoothing, [&] {
        L.gather = use_gather(exec, l, L.A);
        info.prolongator_product = L.gather ? "gather" : "spgemm";
        if (L.gather) {
          // P_tent has k entries a row: A P_tent groups A's entries by aggregate.
          auto starts = detail::allocate_view<typename matrix_type::row_starts_type>(
              exec, "SpMVKit::amg::prolongator_row_starts", n + 1);
          const std::int64_t pnnz = detail::amg_gather_count(exec, L.A, L.agg, k, starts);
          detail::checked_index<Offset>(pnnz, "prolongator entries", where);
          check_memory(l, n, pnnz,
                       static_cast<std::uint64_t>(pnnz) * (sizeof(Ordinal) + sizeof(Scalar)));
          L.P = matrix_type(n, nc, starts,
                            detail::allocate_view<typename matrix_type::column_indices_type>(
                                exec, "SpMVKit::amg::prolongator_columns", pnnz),
                            detail::allocate_view<typename matrix_type::values_type>(
                                exec, "SpMVKit::amg::prolongator_values", pnnz));
          detail::amg_gather_pattern(exec, L.A, L.agg, k, L.P);
        } else {
          L.h_apt = std::make_unique<Handle>(so);
          spgemm_symbolic(exec, *L.h_apt, L.A, L.Pt);
          const matrix_type ap = spgemm_numeric(exec, *L.h_apt, L.A, L.Pt);
          L.P = matrix_type(ap.num_rows(), ap.num_cols(), ap.row_starts(), ap.column_indices(),
                            detail::allocate_view<typename matrix_type::values_type>(
                                exec, "SpMVKit::amg::prolongator_values", ap.nnz()));
          L.ap = ap;
        }
        smooth_prolongator(exec, L);
        L.ap = matrix_type();
        L.P.trust_structure();
      });
    } else {
      L.P = L.Pt;
    }
    info.prolongator_nnz = L.P.nnz();
    phase(exec, t.restriction, [&] {
      auto r = detail::amg_restriction(exec, L.P);
      L.R = r.R;
      L.rmap = r.map;
    });
    phase(exec, t.galerkin, [&] {
      L.h_galerkin = std::make_unique<Triple>(so);
      triple_product_symbolic(exec, *L.h_galerkin, L.R, L.A, L.P);
      current = triple_product_numeric(exec, *L.h_galerkin, L.R, L.A, L.P);
      info.galerkin_numeric = to_string(L.h_galerkin->outer_product().numeric_algorithm());
    });
    if (!options_.keep_for_refresh) {
      // The coarse matrix shares the handle's arrays; the handles' plans go.
      L.h_apt.reset();
      L.h_galerkin.reset();
      L.Pt = matrix_type();
      L.rmap = Map();
      L.agg = Agg();
    }
    B = tent.Bc;
    return "";
  }

  /// The coarsest level's solve: the dense inverse, or sweeps.
  void finish_coarsest(ExecutionSpace const& exec) {
    Level& C = *s_->levels.back();
    const std::int64_t n = C.A.num_rows();
    const int l = num_levels() - 1;
    s_->direct = n <= options_.direct_limit;
    if (s_->direct) {
      phase(exec, s_->report.times.coarse_solve, [&] {
        s_->coarse_inverse =
            detail::amg_coarse_inverse(exec, C.A,
                                       std::string(where) + ": the coarsest operator (level " +
                                           std::to_string(l) + ", " + std::to_string(n) + " rows)");
      });
      s_->report.coarse_solve =
          "dense inverse of " + std::to_string(n) + " rows" +
          (!detail::is_host_space_v<ExecutionSpace> && n >= detail::amg_device_inverse_min_rows
               ? " (on the device)"
               : "");
    } else {
      s_->report.coarse_solve = std::to_string(options_.coarse_sweeps) + " " + name(smoother_) +
                                " sweeps on " + std::to_string(n) + " rows (above direct_limit)";
    }
  }

  std::size_t memory_held() const {
    auto crs = [](matrix_type const& M) {
      return M.row_starts().span() * sizeof(Offset) + M.column_indices().span() * sizeof(Ordinal) +
             M.values().span() * sizeof(Scalar);
    };
    std::size_t bytes = s_->coarse_inverse.span() * sizeof(Scalar);
    for (std::size_t l = 0; l < s_->levels.size(); ++l) {
      Level const& L = *s_->levels[l];
      if (l > 0) bytes += crs(L.A);
      bytes += L.P.values().span() * sizeof(Scalar) + crs(L.R) + L.rmap.span() * sizeof(double) +
               L.agg.span() * sizeof(Ordinal);
      if (L.P.values().data() != L.Pt.values().data()) bytes += crs(L.Pt);
      if (L.h_apt) bytes += L.h_apt->memory().output_bytes + L.h_apt->memory().positions_bytes;
      if (L.gather) { // P's structure is its own (spgemm: in h_apt's output)
        bytes += L.P.row_starts().span() * sizeof(Offset) +
                 L.P.column_indices().span() * sizeof(Ordinal);
      }
      if (L.h_galerkin) { // its output is the next A
        auto const& ap = L.h_galerkin->intermediate_product().memory();
        bytes += ap.output_bytes + ap.positions_bytes +
                 L.h_galerkin->outer_product().memory().positions_bytes;
      }
      bytes += (L.dinv.span() + L.b.span() + L.x.span() + L.r.span() + L.d.span() + L.eigen.span() +
                L.plain_dinv.span()) *
               sizeof(Scalar);
    }
    return bytes;
  }

  // ------------------------------------------------------------------ cycle

  void smooth(ExecutionSpace const& exec, Level const& L, vector_type const& b,
              vector_type const& x, bool zero, int sweeps) const {
    using S = Scalar;
    const Range range(exec, 0, L.A.num_rows());
    for (int s = 0; s < sweeps; ++s) {
      const bool from_zero = zero && s == 0;
      if (smoother_ == AmgSmoother::l1_jacobi) {
        if (!from_zero) spmv(exec, S(1), L.op, x, S(0), L.r);
        Kokkos::parallel_for("SpMVKit::amg::jacobi_sweep", range,
                             detail::AmgJacobiSweep<vector_type>{
                                 L.dinv, b, L.r, x, S(options_.jacobi_weight), from_zero});
        continue;
      }
      const double theta = (L.upper + L.lower) / 2, delta = (L.upper - L.lower) / 2;
      const double sigma = theta / delta;
      if (from_zero) {
        Kokkos::parallel_for("SpMVKit::amg::chebyshev_first", range,
                             detail::ChebyshevFirst<vector_type>{L.dinv, b, L.d, x, S(1 / theta)});
      } else {
        spmv(exec, S(1), L.op, x, S(0), L.r);
        Kokkos::parallel_for(
            "SpMVKit::amg::chebyshev_restart", range,
            detail::AmgChebyshevRestart<vector_type>{L.dinv, b, L.r, L.d, x, S(1 / theta)});
      }
      double rho = 1 / sigma;
      for (int k = 1; k < options_.chebyshev_degree; ++k) {
        spmv(exec, S(1), L.op, x, S(0), L.r);
        const double next = 1 / (2 * sigma - rho);
        Kokkos::parallel_for("SpMVKit::amg::chebyshev_step", range,
                             detail::ChebyshevStep<vector_type>{
                                 L.dinv, b, L.r, L.d, x, S(next * rho), S(2 * next / delta)});
        rho = next;
      }
    }
  }

  void cycle(ExecutionSpace const& exec, int l, vector_type const& b, vector_type const& x,
             bool zero) const {
    using S = Scalar;
    Level const& L = *s_->levels[static_cast<std::size_t>(l)];
    const std::int64_t n = L.A.num_rows();
    const int last = num_levels() - 1;
    if (l == last) {
      if (s_->direct) {
        using Team = Kokkos::TeamPolicy<ExecutionSpace>;
        const int team = detail::is_host_space_v<ExecutionSpace> ? 1 : 128;
        Kokkos::parallel_for("SpMVKit::amg::coarse_solve", Team(exec, n, team),
                             detail::AmgDenseApply<vector_type>{s_->coarse_inverse, b, x, n});
      } else {
        smooth(exec, L, b, x, zero, options_.coarse_sweeps);
      }
      return;
    }
    if (options_.pre_sweeps > 0) {
      smooth(exec, L, b, x, zero, options_.pre_sweeps);
    } else if (zero) {
      Kokkos::deep_copy(exec, x, S(0));
    }
    Level const& N = *s_->levels[static_cast<std::size_t>(l + 1)];
    // r = b − A x, restricted.
    spmv(exec, S(1), L.op, x, S(0), L.r);
    Kokkos::parallel_for("SpMVKit::amg::residual", Range(exec, 0, n),
                         detail::AmgResidual<vector_type>{b, L.r});
    spmv(exec, S(1), L.R, L.r, S(0), N.b);
    const int gamma = options_.cycle == AmgCycle::w && l + 1 < last ? 2 : 1;
    for (int g = 0; g < gamma; ++g) cycle(exec, l + 1, N.b, N.x, g == 0);
    spmv(exec, S(1), L.P, N.x, S(1), x);
    smooth(exec, L, b, x, false, options_.post_sweeps);
  }

  /// The constructor's fine_operator after the check that it applies L.A (level 0).
  level_matrix_type const& checked_fine_operator(ExecutionSpace const& exec, Level& L) const {
    level_matrix_type const& op = *given_fine_;
    const std::int64_t n = L.A.num_rows();
    if (op.num_rows() != n || op.num_cols() != L.A.num_cols() || op.nnz() != L.A.nnz()) {
      throw std::invalid_argument(
          std::string(where) + ": the fine operator is " + std::to_string(op.num_rows()) + " x " +
          std::to_string(op.num_cols()) + " with " + std::to_string(op.nnz()) +
          " entries, the matrix " + std::to_string(n) + " x " + std::to_string(L.A.num_cols()) +
          " with " + std::to_string(L.A.nnz()));
    }
    if (n == 0) return op;
    Kokkos::parallel_for("SpMVKit::amg::probe_start", Range(exec, 0, n),
                         detail::AmgProbeStart<vector_type>{L.d, 1});
    spmv(exec, Scalar(1), op, L.d, Scalar(0), L.r);
    detail::AmgOperatorCheck<matrix_type, vector_type> check{
        L.A.row_starts(),
        L.A.column_indices(),
        L.A.values(),
        L.d,
        L.r,
        static_cast<double>(std::numeric_limits<Scalar>::epsilon()),
        static_cast<double>(std::numeric_limits<Scalar>::min())};
    const std::int64_t bad =
        detail::amg_count_rows(exec, "SpMVKit::amg::fine_operator_check", n, L.A.nnz(), check);
    if (bad > 0) {
      const std::int64_t first =
          detail::amg_first_row(exec, "SpMVKit::amg::fine_operator_first", n, L.A.nnz(), check);
      throw std::invalid_argument(std::string(where) + ": the fine operator's product differs " +
                                  "from the matrix's in " + std::to_string(bad) + " of " +
                                  std::to_string(n) + " rows (first: row " + std::to_string(first) +
                                  "); it must hold the matrix's values");
    }
    return op;
  }

  AmgOptions options_;
  std::shared_ptr<State> s_;
  level_matrix_type const* given_fine_ = nullptr; // during the constructor only
  int num_levels_planned_ = 0;
  AmgSmoother smoother_ = AmgSmoother::chebyshev; // automatic resolved
  bool symmetric_ = false;                        // the symmetry probe's verdict (if it ran)
};

/// The AMG hierarchy of the CrsMatrix A (constant near-nullspace).
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_amg(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
         AmgOptions const& options = {}) {
  return AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>(exec, A, options);
}

/// The AMG hierarchy of A whose finest level is applied through fine_operator, an AutoMatrix of
/// A's values (the solver's own; the set-up does not convert A again). See the constructor.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_amg(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
         AutoMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& fine_operator,
         AmgOptions const& options) {
  using Amg = AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>;
  return Amg(exec, A, fine_operator, typename Amg::multi_vector_type(), options);
}

/// The AMG hierarchy of A with the given near-nullspace (rows x k, LayoutLeft).
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset, class NearNullspace>
AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_amg(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
         NearNullspace const& near_nullspace, AmgOptions const& options = {}) {
  static_assert(Kokkos::is_view<NearNullspace>::value,
                "spmvkit::make_amg: the third argument is a near-nullspace View (rows x k), or an "
                "AutoMatrix of the matrix's Scalar, ExecutionSpace, Ordinal and Offset followed by "
                "the options");
  using Amg = AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>;
  return Amg(exec, A, typename Amg::multi_vector_type(near_nullspace), options);
}

} // namespace spmvkit

#endif
