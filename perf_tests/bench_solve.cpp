// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The solve family: time to tolerance of every solver x preconditioner of --solve-methods on
// the FEM Poisson matrices (--solve-fem-n), the 3D convection-diffusion matrix (--solve-cd-n,
// --solve-peclet) and the real matrices, SpMVKit against the same method as a Kokkos user
// writes it (KokkosBlas + Kokkos Kernels' SpMV: kk), Kokkos Kernels' own GMRES (kk_gmres,
// Kokkos Kernels >= 4.0) and PETSc (petsc, when found at configure time).
//
// One benchmark is solve/<precision>/<matrix>/<solver>/<preconditioner>/<impl>: set-up (the
// preconditioner, fenced, reported as setup_s), one untimed solve that must converge on the
// true residual, then --cg-repetitions timed solves from the same start (median in time_s).

#include "benchmarks.hpp"
#include "kk_krylov.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "petsc_anchor.hpp"

#include <spmvkit/interop/kokkos_blas.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>
#include <spmvkit/solvers/preconditioners/ilu0.hpp>

#include <KokkosBlas1_reciprocal.hpp>
#include <KokkosKernels_config.h>

// Kokkos Kernels' GMRES (KokkosSparse::Experimental::gmres with a GMRES handle) came with 4.0;
// 3.x does not define KOKKOSKERNELS_VERSION.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
#if __has_include(<KokkosSparse_gmres.hpp>) && __has_include(<KokkosSparse_MatrixPrec.hpp>)
#define SPMVKIT_PERF_HAS_KK_GMRES 1
#include <KokkosSparse_MatrixPrec.hpp>
#include <KokkosSparse_gmres.hpp>
#endif
#endif
#ifndef SPMVKIT_PERF_HAS_KK_GMRES
#define SPMVKIT_PERF_HAS_KK_GMRES 0
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::perf {

namespace {

/// A matrix of the solve family.
struct SolveSource {
  enum class Kind { fem, cd, mtx };
  Kind kind = Kind::fem;
  std::string name; // fem_N64, cd3d_N48_Pe1, 1138_bus
  std::string path; // mtx
  int N = 0;
  double peclet = 0;
  bool maybe_spd = false; // symmetric by construction or by its banner: CG is registered
};

/// A number for a message, 4 significant digits ("1e-08", "0.000245").
std::string number(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

std::string peclet_text(double pe) {
  std::ostringstream os;
  os << pe;
  return os.str();
}

std::vector<SolveSource> solve_sources(Options const& o, std::vector<MatrixSource> const& all) {
  std::vector<SolveSource> out;
  for (int N : o.solve_fem_n) {
    SolveSource s;
    s.kind = SolveSource::Kind::fem;
    s.name = "fem_N" + std::to_string(N);
    s.N = N;
    s.maybe_spd = true;
    out.push_back(s);
  }
  for (int N : o.solve_cd_n) {
    SolveSource s;
    s.kind = SolveSource::Kind::cd;
    s.name = "cd3d_N" + std::to_string(N) + "_Pe" + peclet_text(o.solve_peclet);
    s.N = N;
    s.peclet = o.solve_peclet;
    s.maybe_spd = o.solve_peclet == 0; // the Laplacian; convection makes it nonsymmetric
    out.push_back(s);
  }
  for (auto const& m : all) {
    // A degree-ordered twin (--orderings) is an spmv sweep matrix only.
    if (m.kind != MatrixSource::Kind::mtx || m.degree_order) continue;
    const auto info = read_matrix_market_info(m.path);
    if (info.rows != info.cols) {
      note_skip("solve/" + m.name, "not square (" + std::to_string(info.rows) + " x " +
                                       std::to_string(info.cols) + "): no linear system");
      continue;
    }
    SolveSource s;
    s.kind = SolveSource::Kind::mtx;
    s.name = m.name;
    s.path = m.path;
    s.maybe_spd = info.symmetry == MatrixMarketInfo::Symmetry::symmetric;
    out.push_back(s);
  }
  return out;
}

template <class Scalar>
using AutoM = AutoMatrix<Scalar, Exec>;
template <class Scalar>
using AutoOp = MatrixOperator<AutoM<Scalar>>;

/// One matrix with its right-hand side, start and solution vector, as every implementation
/// of a benchmark sees it. FEM: b = M f and fem_poisson_rough_guess (from zero CG converges in
/// one iteration there); convection-diffusion: b = A u* from zero; real matrices: b = A 1 from
/// zero.
template <class Scalar>
struct SolveProblem {
  std::string key;
  Crs<Scalar> A;
  KKMatrix<Scalar> kk; // the same arrays
  Vector<Scalar> b, x0, x;
  bool spd = false;    // symmetric to rounding with a positive diagonal (host check, once)
  std::string not_spd; // why not
  // The automatic format of A, made by the first spmvkit benchmark and kept for the others.
  std::optional<AutoM<Scalar>> auto_matrix;
  double auto_seconds = 0;
};

/// Symmetric (|a_ij − a_ji| <= 64 eps max(|a_ij|, |a_ji|)) with a positive diagonal: what CG
/// needs of a matrix besides definiteness, which CG itself reports (indefinite). "" if so.
template <class Scalar>
std::string spd_obstacle(Crs<Scalar> const& A) {
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const Ordinal n = A.num_rows();
  if (A.num_cols() != n) return "not square";
  for (Ordinal i = 0; i < n; ++i) {
    double diagonal = 0;
    for (Offset k = rs(i); k < rs(i + 1); ++k) {
      const Ordinal j = ci(k);
      if (j == i) {
        diagonal += static_cast<double>(va(k));
        continue;
      }
      // (j, i) in row j: columns are sorted (CRS from the readers and generators).
      auto const* first = ci.data() + rs(j);
      auto const* last = ci.data() + rs(j + 1);
      auto const* at = std::lower_bound(first, last, i);
      const double a = static_cast<double>(va(k));
      const double t = at != last && *at == i ? static_cast<double>(va(at - ci.data())) : 0.0;
      if (std::abs(a - t) > 64 * eps * std::max(std::abs(a), std::abs(t))) {
        return "not symmetric: a(" + std::to_string(i) + ", " + std::to_string(j) +
               ") = " + number(a) + ", a(" + std::to_string(j) + ", " + std::to_string(i) +
               ") = " + number(t);
      }
    }
    if (!(diagonal > 0)) {
      return "diagonal entry " + std::to_string(i) + " is " + number(diagonal) + ", not positive";
    }
  }
  return "";
}

template <class Scalar>
Vector<Scalar> filled(std::string const& what, std::int64_t n, Scalar value) {
  Vector<Scalar> v(std::string("SpMVKit::perf::solve_") + what, static_cast<std::size_t>(n));
  Kokkos::deep_copy(v, value);
  return v;
}

template <class Scalar>
SolveProblem<Scalar>& solve_problem(SolveSource const& source) {
  static std::unique_ptr<SolveProblem<Scalar>> problem;
  static bool registered = false;
  if (!registered) {
    registered = true;
    register_cleanup([] { problem.reset(); });
  }
  const std::string key = source.name + "|" + source.path;
  if (problem && problem->key == key) return *problem;
  problem.reset(); // free the previous matrix first
  auto p = std::make_unique<SolveProblem<Scalar>>();
  const Exec exec;
  switch (source.kind) {
  case SolveSource::Kind::fem:
    p->A = make_fem_poisson_crs<Scalar, Exec>(exec, source.N);
    p->b = fem_poisson_rhs<Scalar, Exec>(exec, source.N);
    p->x0 = fem_poisson_rough_guess<Scalar, Exec>(exec, source.N);
    break;
  case SolveSource::Kind::cd: {
    const ConvectionDiffusion cd(3, source.N, source.peclet);
    p->A = make_convection_diffusion_crs<Scalar>(exec, cd);
    p->b = convection_diffusion_rhs<Scalar>(exec, cd);
    p->x0 = filled<Scalar>("x0", cd.num_rows, Scalar(0));
    break;
  }
  case SolveSource::Kind::mtx: {
    p->A = read_matrix_market<Scalar, Exec>(source.path, exec);
    const auto ones = filled<Scalar>("ones", p->A.num_cols(), Scalar(1));
    p->b = filled<Scalar>("b", p->A.num_rows(), Scalar(0));
    spmv(exec, Scalar(1), p->A, ones, Scalar(0), p->b);
    p->x0 = filled<Scalar>("x0", p->A.num_rows(), Scalar(0));
    break;
  }
  }
  p->kk = to_kokkos_kernels(p->A);
  p->x = filled<Scalar>("x", p->A.num_rows(), Scalar(0));
  exec.fence();
  p->not_spd = spd_obstacle(p->A);
  p->spd = p->not_spd.empty();
  p->key = key;
  problem = std::move(p);
  return *problem;
}

/// The automatic format (select/auto_matrix.hpp, model mode: the registry's "auto"), or CRS
/// with its automatic kernel should the choice fail.
template <class Scalar>
void ensure_auto_matrix(SolveProblem<Scalar>& p) {
  if (p.auto_matrix) return;
  const Exec exec;
  exec.fence();
  Kokkos::Timer timer;
  try {
    p.auto_matrix = make_auto_matrix(exec, p.A);
  } catch (std::exception const&) {
    AutoOptions crs;
    crs.candidates = {"crs"};
    p.auto_matrix = make_auto_matrix(exec, p.A, crs);
  }
  exec.fence();
  p.auto_seconds = timer.seconds();
}

// ---------------------------------------------------------------------------------------------
// The true residual, computed here the same way for every implementation.
// ---------------------------------------------------------------------------------------------

/// sums = {‖b − A x‖², ‖b‖², ‖|A| |x|‖²}, every product and sum in double.
template <class Scalar>
struct SolveResidual {
  using value_type = double[];
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> cols;
  Kokkos::View<const Scalar*, Device> vals;
  Kokkos::View<const Scalar*, Device> x, b;
  unsigned value_count = 3;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, value_type sums) const {
    double ax = 0, abs_ax = 0;
    for (Offset k = row_starts(i); k < row_starts(i + 1); ++k) {
      const double a = static_cast<double>(vals(k)) * static_cast<double>(x(cols(k)));
      ax += a;
      abs_ax += a < 0 ? -a : a;
    }
    const double bi = static_cast<double>(b(i));
    sums[0] += (bi - ax) * (bi - ax);
    sums[1] += bi * bi;
    sums[2] += abs_ax * abs_ax;
  }
};

struct ResidualCheck {
  double relative = 0; // ‖b − A x‖ / ‖b‖
  double limit = 0;    // tolerance + the rounding of the solver's own residual
  bool ok() const { return relative <= limit; }
};

/// ‖b − A x‖ / ‖b‖ against the tolerance. The solvers compute their residual in Scalar; it may
/// differ from this one (in double, from the stored values) by about eps ‖|A||x|‖ / ‖b‖, which
/// is allowed twice over (in double 1e-13 on these matrices, against tolerances of 1e-8).
template <class Scalar>
ResidualCheck check_residual(SolveProblem<Scalar> const& p, double tolerance) {
  double sums[3] = {0, 0, 0};
  Kokkos::parallel_reduce(
      "SpMVKit::perf::solve_residual",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(0, p.A.num_rows()),
      SolveResidual<Scalar>{p.A.row_starts(), p.A.column_indices(), p.A.values(), p.x, p.b},
      Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(sums, 3));
  ResidualCheck c;
  const double nb = std::sqrt(sums[1]);
  c.relative = nb > 0 ? std::sqrt(sums[0]) / nb : std::sqrt(sums[0]);
  c.limit = tolerance +
            2 * std::numeric_limits<Scalar>::epsilon() * (nb > 0 ? std::sqrt(sums[2]) / nb : 0.0);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The implementations
// ---------------------------------------------------------------------------------------------

struct SolveSettings {
  double tolerance = 1e-8;
  int max_iterations = 10000;
  int repetitions = 3; // timed solves
  int restart = 30;
  int block_size = 8;
  int chebyshev_degree = ChebyshevOptions().degree;
  double chebyshev_ratio = ChebyshevOptions().eigenvalue_ratio;
  Ilu0TriangularSolve ilu_solve = Ilu0TriangularSolve::automatic;
  AmgProduct amg_product = AmgProduct::automatic;
  AmgCycle amg_cycle = AmgOptions().cycle;
  std::int64_t amg_coarse_size = 0; // AmgOptions' automatic; the label has the resolved size
  bool amg_shared_fine = true;      // --solve-amg-fine=shared: the solver's AutoMatrix as level 0
  bool keep_workspace = true;       // --solve-workspace=kept
};

struct SetupTimes {
  SetupTimes() = default;
  SetupTimes(double preconditioner_s, double matrix_s)
      : preconditioner(preconditioner_s), matrix(matrix_s) {}
  double preconditioner = 0; // setup_s
  double matrix = 0;         // matrix_setup_s: the format choice and conversion, or assembly
  double refresh = -1;       // refresh_s: AMG's numeric re-set-up (same pattern), median of 3;
                             // -1: none
  double refresh_first = -1; // refresh_first_s: the first of them
  double spmv = 0;           // spmv_s: one SpMV of the solver's matrix, where AMG reports its
                             // set-up in SpMV-equivalents (setup_spmvs)
  std::vector<std::pair<std::string, double>> phases; // AMG: amg_<phase>_s of its report
};

struct Outcome {
  bool converged = false; // the implementation's own verdict
  int iterations = 0;
  std::string status; // "converged", "iteration_limit: ...", PETSc's reason
  double seconds = 0; // the solve alone
};

template <class Scalar>
class SolveRunner {
public:
  virtual ~SolveRunner() = default;
  /// Builds what every solve reuses (the preconditioner); throws std::invalid_argument when
  /// it cannot be built for this matrix.
  virtual SetupTimes setup() = 0;
  /// x = x0, then one solve (timed with the device fenced); the solution is left in p.x.
  virtual Outcome solve() = 0;
  /// Label keys of what runs ("format=crs_vector", "ksp=gmres;...").
  virtual std::string label() const = 0;
};

Outcome outcome_of(SolverResult const& r, double seconds) {
  Outcome o;
  o.converged = r.converged();
  o.iterations = r.iterations;
  o.status = std::string(spmvkit::name(r.status)) + (r.message.empty() ? "" : ": " + r.message);
  o.seconds = seconds;
  return o;
}

/// The settings as a solver's options; workspace: the runner's, used when --solve-workspace=kept.
template <class SolverOptionsType>
SolverOptionsType solver_options(SolveSettings const& s, SolverWorkspace& workspace) {
  SolverOptionsType o;
  o.relative_tolerance = s.tolerance;
  o.max_iterations = s.max_iterations;
  o.use_initial_guess = true;
  o.workspace = s.keep_workspace ? &workspace : nullptr;
  return o;
}

/// SpMVKit: the solver on the automatic format's operator. Jacobi, block-Jacobi, ILU(0), IC(0)
/// and AMG are built from the CRS matrix (the last four take CRS). Chebyshev is built on the
/// solver's operator, whose product it applies degree - 1 times per apply; chebyshev-float is
/// make_float_chebyshev of the solver's automatic matrix: the polynomial in float, on a float
/// copy of its values in its chosen format. The float copy is part of its set-up time.
template <class Scalar>
class SpmvkitRunner final : public SolveRunner<Scalar> {
  using Op = AutoOp<Scalar>;
  using Jacobi = decltype(make_jacobi(Exec(), std::declval<Crs<Scalar> const&>()));
  using Chebyshev = decltype(make_chebyshev(Exec(), std::declval<Op const&>()));
  using ChebyshevFloat = decltype(make_float_chebyshev(Exec(), std::declval<Crs<Scalar> const&>()));
  using BlockJacobi = BlockJacobiPreconditioner<Scalar, Exec>;
  using Ilu = Ilu0Preconditioner<Scalar, Exec, Ordinal, Offset>;
  using Amg = AmgPreconditioner<Scalar, Exec, Ordinal, Offset>;

public:
  SpmvkitRunner(SolveProblem<Scalar>& p, SolveMethod const& m, SolveSettings const& s)
      : p_(p), m_(m), s_(s) {}

  SetupTimes setup() override {
    ensure_auto_matrix(p_);
    const Exec exec;
    exec.fence();
    Kokkos::Timer timer;
    auto const& pc = m_.preconditioner;
    if (pc == "jacobi") jacobi_.emplace(make_jacobi(exec, p_.A));
    if (pc == "block-jacobi") block_jacobi_.emplace(make_block_jacobi(exec, p_.A, s_.block_size));
    ChebyshevOptions chebyshev_options;
    chebyshev_options.degree = s_.chebyshev_degree;
    chebyshev_options.eigenvalue_ratio = s_.chebyshev_ratio;
    if (pc == "chebyshev")
      chebyshev_.emplace(make_chebyshev(exec, Op(*p_.auto_matrix), chebyshev_options));
    if (pc == "chebyshev-float") {
      chebyshev_float_.emplace(make_float_chebyshev(exec, *p_.auto_matrix, chebyshev_options));
    }
    Ilu0Options ilu_options;
    ilu_options.triangular_solve = s_.ilu_solve;
    if (pc == "ilu0") ilu_.emplace(make_ilu0(exec, p_.A, ilu_options));
    if (pc == "ic0") ilu_.emplace(make_ic0(exec, p_.A, ilu_options));
    if (pc == "amg") {
      AmgOptions amg_options;
      amg_options.prolongator_product = s_.amg_product;
      amg_options.cycle = s_.amg_cycle;
      amg_options.coarse_size = s_.amg_coarse_size;
      if (s_.amg_shared_fine)
        amg_.emplace(make_amg(exec, p_.A, *p_.auto_matrix, amg_options));
      else
        amg_.emplace(make_amg(exec, p_.A, amg_options));
      auto const& r = amg_->report().times;
      amg_setup_phases_ = {
          {"amg_strength_s", r.strength},       {"amg_aggregation_s", r.aggregation},
          {"amg_tentative_s", r.tentative},     {"amg_smoothing_s", r.smoothing},
          {"amg_restriction_s", r.restriction}, {"amg_galerkin_s", r.galerkin},
          {"amg_formats_s", r.formats},         {"amg_smoothers_s", r.smoothers},
          {"amg_coarse_s", r.coarse_solve}};
    }
    exec.fence();
    SetupTimes t{timer.seconds(), p_.auto_seconds};
    if (amg_) {
      // The numeric re-set-up a time-stepping code runs per step (same pattern): the median of
      // three, the first apart; and the set-up in SpMV-equivalents: the median of 10 fenced
      // SpMVs of the solver's matrix.
      std::vector<double> refreshes;
      for (int k = 0; k < 3; ++k) {
        timer.reset();
        amg_->refresh(exec, p_.A);
        exec.fence();
        refreshes.push_back(timer.seconds());
      }
      t.refresh_first = refreshes.front();
      std::sort(refreshes.begin(), refreshes.end());
      t.refresh = refreshes[1];
      auto const& r = amg_->report().times; // of the last refresh; the set-up's were kept below
      t.phases = amg_setup_phases_;
      t.phases.emplace_back("amg_refresh_galerkin_s", r.galerkin);
      t.phases.emplace_back("amg_refresh_formats_s", r.formats);
      t.phases.emplace_back("amg_refresh_smoothing_s", r.smoothing);
      std::vector<double> spmvs;
      Op op(*p_.auto_matrix);
      for (int k = 0; k < 11; ++k) {
        exec.fence();
        timer.reset();
        op.apply(exec, p_.x0, p_.x);
        exec.fence();
        if (k > 0) spmvs.push_back(timer.seconds());
      }
      std::sort(spmvs.begin(), spmvs.end());
      t.spmv = spmvs[spmvs.size() / 2];
    }
    return t;
  }

  Outcome solve() override {
    const Exec exec;
    Kokkos::deep_copy(p_.x, p_.x0);
    exec.fence();
    Op op(*p_.auto_matrix);
    Kokkos::Timer timer;
    const SolverResult r = dispatch(op);
    exec.fence();
    return outcome_of(r, timer.seconds());
  }

  std::string label() const override {
    std::string ilu_solve;
    if (ilu_) {
      ilu_solve = ilu_->triangular_solve() == Ilu0TriangularSolve::substitution
                      ? ";ilu_solve=substitution"
                      : ";ilu_solve=sweeps";
      ilu_solve += ilu_->factorization() == Ilu0Factorization::sequential
                       ? ";ilu_factorization=sequential"
                       : ";ilu_factorization=sweeps";
    }
    std::ostringstream chebyshev;
    if (m_.preconditioner.rfind("chebyshev", 0) == 0) {
      chebyshev << ";chebyshev_degree=" << s_.chebyshev_degree
                << ";chebyshev_ratio=" << s_.chebyshev_ratio;
      if (chebyshev_float_) {
        chebyshev << ";chebyshev_format="
                  << chebyshev_float_->polynomial_operator().matrix().selection().format;
      }
    }
    return "format=" + p_.auto_matrix->selection().format +
           (m_.preconditioner == "block-jacobi" ? ";block_size=" + std::to_string(s_.block_size)
                                                : "") +
           chebyshev.str() + ilu_solve + amg_label() + (s_.keep_workspace ? "" : ";workspace=none");
  }

private:
  std::string amg_label() const {
    if (!amg_) return "";
    auto const& r = amg_->report();
    std::ostringstream os;
    os << ";amg_levels=" << r.levels.size() << ";operator_complexity=" << r.operator_complexity
       << ";amg_formats=";
    for (std::size_t l = 0; l < r.levels.size(); ++l) os << (l ? "/" : "") << r.levels[l].format;
    os << ";amg_product=" << (r.levels.empty() ? "" : r.levels[0].prolongator_product);
    os << ";amg_cycle=" << name(s_.amg_cycle) << ";amg_coarse_size=" << amg_->options().coarse_size
       << ";amg_fine=" << (s_.amg_shared_fine ? "shared" : "own");
    return os.str();
  }

  // Only the registered pairs are instantiated (solve_method_table()).
  SolverResult dispatch(Op& op) {
    auto const& pc = m_.preconditioner;
    const IdentityPreconditioner<Op> none(op.num_rows());
    if (m_.solver == "cg" || m_.solver == "pipelined_cg") {
      if (pc == "jacobi") return run_cg(op, *jacobi_);
      if (pc == "block-jacobi") return run_cg(op, *block_jacobi_);
      if (pc == "chebyshev") return run_cg(op, *chebyshev_);
      if (pc == "chebyshev-float") return run_cg(op, *chebyshev_float_);
      if (pc == "ic0") return run_cg(op, *ilu_);
      if (pc == "amg") return run_cg(op, *amg_);
      return run_cg(op, none);
    }
    if (m_.solver == "bicgstab") {
      auto o = solver_options<BicgstabOptions>(s_, workspace_);
      if (pc == "jacobi") return bicgstab(Exec(), op, *jacobi_, p_.b, p_.x, o);
      if (pc == "block-jacobi") return bicgstab(Exec(), op, *block_jacobi_, p_.b, p_.x, o);
      if (pc == "ilu0") return bicgstab(Exec(), op, *ilu_, p_.b, p_.x, o);
      if (pc == "amg") return bicgstab(Exec(), op, *amg_, p_.b, p_.x, o);
      return bicgstab(Exec(), op, none, p_.b, p_.x, o);
    }
    auto o = solver_options<GmresOptions>(s_, workspace_);
    o.restart = s_.restart;
    if (pc == "block-jacobi") return gmres(Exec(), op, *block_jacobi_, p_.b, p_.x, o);
    if (pc == "ilu0") return gmres(Exec(), op, *ilu_, p_.b, p_.x, o);
    if (pc == "amg") return gmres(Exec(), op, *amg_, p_.b, p_.x, o);
    return gmres(Exec(), op, *jacobi_, p_.b, p_.x, o);
  }

  template <class M>
  SolverResult run_cg(Op& op, M const& prec) {
    auto o = solver_options<CgOptions>(s_, workspace_);
    // What pipelined_cg() does (solvers/pipelined_cg.hpp), without a second instantiation.
    if (m_.solver == "pipelined_cg") o.variant = CgVariant::pipelined;
    return cg(Exec(), op, prec, p_.b, p_.x, o);
  }

  SolveProblem<Scalar>& p_;
  SolveMethod m_;
  SolveSettings s_;
  SolverWorkspace workspace_; // --solve-workspace=kept
  std::optional<Jacobi> jacobi_;
  std::optional<BlockJacobi> block_jacobi_;
  std::optional<Chebyshev> chebyshev_;
  std::optional<ChebyshevFloat> chebyshev_float_;
  std::optional<Ilu> ilu_;
  std::optional<Amg> amg_;
  std::vector<std::pair<std::string, double>> amg_setup_phases_;
};

/// The Kokkos user's code: KokkosBlas vector calls and Kokkos Kernels' SpMV with its default
/// algorithm (cuSPARSE on CUDA builds), scalars on the host. CG is cg() with the
/// KokkosBlasVectors policy (interop/kokkos_blas.hpp; with Jacobi it forms the inverted
/// diagonal inside each solve, one pass over the entries); BiCGStab and GMRES are
/// kk_krylov.hpp's, Jacobi there a KokkosBlas::mult by the inverted diagonal built here.
template <class Scalar>
class KkRunner final : public SolveRunner<Scalar> {
  using Op = KokkosKernelsOperator<KKMatrix<Scalar>>;

public:
  KkRunner(SolveProblem<Scalar>& p, SolveMethod const& m, SolveSettings const& s)
      : p_(p), m_(m), s_(s) {}

  SetupTimes setup() override {
    const Exec exec;
    exec.fence();
    Kokkos::Timer timer;
    // One operator (one SpMV handle) for every solve of the benchmark.
    op_ = std::make_unique<Op>(p_.kk, KokkosKernelsAlgorithm::vendor_default);
    if (m_.preconditioner == "jacobi" && m_.solver != "cg") {
      const auto n = static_cast<std::size_t>(p_.A.num_rows());
      Vector<Scalar> d("SpMVKit::perf::kk_solve::diagonal", n);
      dinv_ = Vector<Scalar>("SpMVKit::perf::kk_solve::inverse_diagonal", n);
      op_->diagonal(exec, d);
      exec.fence();
      KokkosBlas::reciprocal(dinv_, d);
    }
    exec.fence();
    return {timer.seconds(), 0.0};
  }

  Outcome solve() override {
    const Exec exec;
    Kokkos::deep_copy(p_.x, p_.x0);
    exec.fence();
    Kokkos::Timer timer;
    SolverResult r;
    if (m_.solver == "cg") {
      auto o = solver_options<CgOptions>(s_, workspace_);
      o.jacobi = m_.preconditioner == "jacobi";
      r = cg(exec, *op_, p_.b, p_.x, o, KokkosBlasVectors());
    } else {
      KkKrylovOptions o;
      o.relative_tolerance = s_.tolerance;
      o.max_iterations = s_.max_iterations;
      o.restart = s_.restart;
      o.workspace = s_.keep_workspace ? &workspace_ : nullptr;
      r = m_.solver == "bicgstab" ? kk_bicgstab(*op_, dinv_, p_.b, p_.x, o)
                                  : kk_gmres(*op_, dinv_, p_.b, p_.x, o);
    }
    exec.fence();
    return outcome_of(r, timer.seconds());
  }

  std::string label() const override {
    return std::string("algorithm=default;vectors=kokkos_blas") +
           (m_.solver == "gmres" ? ";orthogonalization=cgs2_gemv" : "") +
           (s_.keep_workspace ? "" : ";workspace=none");
  }

private:
  SolveProblem<Scalar>& p_;
  SolveMethod m_;
  SolveSettings s_;
  SolverWorkspace workspace_; // --solve-workspace=kept
  std::unique_ptr<Op> op_;
  Vector<Scalar> dinv_; // empty: no preconditioner
};

#if SPMVKIT_PERF_HAS_KK_GMRES
/// The pattern of a diagonal CRS matrix: row i holds column i.
struct DiagonalPattern {
  Kokkos::View<Offset*, Device> rows;
  Kokkos::View<Ordinal*, Device> cols;
  Ordinal n;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const {
    rows(i) = i;
    if (i < n) cols(i) = i;
  }
};

/// Kokkos Kernels' own GMRES(m) (KokkosSparse::Experimental::gmres: CGS2, right
/// preconditioning, convergence on the true residual against ‖b‖), Jacobi as a MatrixPrec of
/// the diagonal matrix D⁻¹.
template <class Scalar>
class KkGmresRunner final : public SolveRunner<Scalar> {
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec,
                                                                  MemSpace, MemSpace>;
  using Prec = KokkosSparse::Experimental::MatrixPrec<KKMatrix<Scalar>>;

public:
  KkGmresRunner(SolveProblem<Scalar>& p, SolveMethod const& m, SolveSettings const& s)
      : p_(p), m_(m), s_(s), A_(p.kk), b_(p.b), x_(p.x) {}

  SetupTimes setup() override {
    const Exec exec;
    exec.fence();
    Kokkos::Timer timer;
    const auto n = p_.A.num_rows();
    Kokkos::View<Offset*, Device> rows("SpMVKit::perf::kk_gmres::jacobi_rows",
                                       static_cast<std::size_t>(n) + 1);
    Kokkos::View<Ordinal*, Device> cols("SpMVKit::perf::kk_gmres::jacobi_cols",
                                        static_cast<std::size_t>(n));
    Vector<Scalar> d("SpMVKit::perf::kk_gmres::diagonal", static_cast<std::size_t>(n));
    Vector<Scalar> dinv("SpMVKit::perf::kk_gmres::inverse_diagonal", static_cast<std::size_t>(n));
    KokkosKernelsOperator<KKMatrix<Scalar>>(p_.kk).diagonal(exec, d);
    Kokkos::parallel_for("SpMVKit::perf::kk_gmres::jacobi_pattern",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(exec, 0, n + 1),
                         DiagonalPattern{rows, cols, n});
    exec.fence();
    KokkosBlas::reciprocal(dinv, d);
    prec_ = std::make_unique<Prec>(
        KKMatrix<Scalar>("SpMVKit::perf::kk_gmres::jacobi", n, n, n, dinv, rows, cols));
    exec.fence();
    return {timer.seconds(), 0.0};
  }

  Outcome solve() override {
    const Exec exec;
    Kokkos::deep_copy(p_.x, p_.x0);
    exec.fence();
    const int cycles = (s_.max_iterations + s_.restart - 1) / s_.restart;
    handle_.create_gmres_handle(s_.restart, s_.tolerance, cycles);
    Kokkos::Timer timer;
    KokkosSparse::Experimental::gmres(&handle_, A_, b_, x_, prec_.get());
    exec.fence();
    Outcome o;
    o.seconds = timer.seconds();
    auto* g = handle_.get_gmres_handle();
    using G = std::remove_pointer_t<decltype(g)>;
    o.converged = g->get_conv_flag_val() == G::Conv;
    o.iterations = g->get_num_iters();
    o.status = o.converged                        ? "converged"
               : g->get_conv_flag_val() == G::LOA ? "loss of accuracy"
                                                  : "not converged";
    return o;
  }

  std::string label() const override {
    return "algorithm=KokkosSparse::Experimental::gmres;orthogonalization=cgs2";
  }

private:
  SolveProblem<Scalar>& p_;
  SolveMethod m_;
  SolveSettings s_;
  KKMatrix<Scalar> A_;
  Vector<Scalar> b_, x_;
  Handle handle_;
  std::unique_ptr<Prec> prec_;
};
#endif

/// PETSc on the same matrix (MATSEQAIJ assembled from the host CRS), right-hand side and
/// start, in the helper process spmvkit_perf_petsc (petsc_anchor.hpp: one process, one thread).
/// The helper runs the set-up and every solve at once; solve() then hands its solves out in
/// order, each with its solution. Double only.
template <class Scalar>
class PetscRunner final : public SolveRunner<Scalar> {
public:
  PetscRunner(SolveProblem<Scalar>& p, SolveMethod const& m, SolveSettings const& s)
      : p_(p), m_(m), s_(s) {}

  SetupTimes setup() override {
    static_assert(std::is_same_v<Scalar, double> && std::is_same_v<Offset, int> &&
                      std::is_same_v<Ordinal, int>,
                  "the PETSc anchor takes double values and int indices");
    auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p_.A.row_starts());
    auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p_.A.column_indices());
    auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p_.A.values());
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p_.b);
    auto x0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p_.x0);
    PetscSystem system;
    system.n = p_.A.num_rows();
    system.row_starts = rs.data();
    system.columns = ci.data();
    system.values = va.data();
    system.b = b.data();
    system.x0 = x0.data();
    PetscRequest request;
    request.solver = m_.solver;
    request.preconditioner = m_.preconditioner;
    request.relative_tolerance = s_.tolerance;
    request.max_iterations = s_.max_iterations;
    request.restart = s_.restart;
    request.block_size = s_.block_size;
    request.solves = 1 + s_.repetitions; // the untimed first solve, then the timed ones
    run_ = run_petsc(system, request);
    // A factorisation PETSc refuses (a zero pivot) is a preconditioner that cannot be built.
    if (run_.setup_failed) throw std::invalid_argument("PETSc: " + run_.error);
    return {run_.setup_seconds, run_.matrix_seconds};
  }

  Outcome solve() override {
    if (next_ >= run_.solves.size()) {
      throw std::runtime_error("the PETSc helper stopped after " +
                               std::to_string(run_.solves.size()) + " solve(s)");
    }
    auto const& r = run_.solves[next_];
    const auto n = static_cast<std::size_t>(p_.A.num_rows());
    auto x = Kokkos::create_mirror_view(Kokkos::HostSpace(), p_.x);
    for (std::size_t i = 0; i < n; ++i) x(i) = run_.solutions[next_ * n + i];
    Kokkos::deep_copy(p_.x, x);
    ++next_;
    Outcome o;
    o.converged = r.converged;
    o.iterations = r.iterations;
    o.status = r.reason;
    o.seconds = r.seconds;
    return o;
  }

  std::string label() const override { return run_.description + ";threads=1"; }

private:
  SolveProblem<Scalar>& p_;
  SolveMethod m_;
  SolveSettings s_;
  PetscRun run_;
  std::size_t next_ = 0;
};

template <class Scalar>
std::unique_ptr<SolveRunner<Scalar>> make_runner(std::string const& impl, SolveProblem<Scalar>& p,
                                                 SolveMethod const& m, SolveSettings const& s) {
  if (impl == "spmvkit") return std::make_unique<SpmvkitRunner<Scalar>>(p, m, s);
  if (impl == "kk") return std::make_unique<KkRunner<Scalar>>(p, m, s);
#if SPMVKIT_PERF_HAS_KK_GMRES
  if (impl == "kk_gmres") return std::make_unique<KkGmresRunner<Scalar>>(p, m, s);
#endif
  if constexpr (std::is_same_v<Scalar, double>) {
    if (impl == "petsc") return std::make_unique<PetscRunner<Scalar>>(p, m, s);
    if (impl == "petsc_hypre") {
      SolveMethod hypre = m;
      hypre.preconditioner = "hypre"; // the same pair with BoomerAMG in place of GAMG
      return std::make_unique<PetscRunner<Scalar>>(p, hypre, s);
    }
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------

/// Whether SpMVKit's solve of a (precision, matrix, solver, preconditioner) converged, for the
/// baselines that run after it: a baseline that fails where SpMVKit converged is a failure,
/// where SpMVKit failed too the method does not solve this system (a note, not a failure).
std::map<std::string, bool>& spmvkit_verdicts() {
  static std::map<std::string, bool> verdicts;
  return verdicts;
}

void skip(benchmark::State& state, std::string const& name, std::string const& why) {
  note_skip(name, why);
  state.SkipWithError((name + ": skipped: " + why).c_str());
}

void fail(benchmark::State& state, std::string const& name, std::string const& why) {
  record_failure(name + ": " + why);
  state.SkipWithError((name + ": " + why).c_str());
}

template <class Scalar>
void bm_solve(benchmark::State& state, Options const& o, std::string const& name,
              SolveSource const& source, SolveMethod const& method, std::string const& impl) {
  const std::string pair_key = std::string(precision_name<Scalar>()) + "/" + source.name + "/" +
                               method.solver + "/" + method.preconditioner;
  try {
    if (impl == "kk_gmres" && !SPMVKIT_PERF_HAS_KK_GMRES) {
      skip(state, name,
           "this Kokkos Kernels has no KokkosSparse::Experimental::gmres (Kokkos Kernels >= 4.0)");
      return;
    }
    auto& p = solve_problem<Scalar>(source);
    if (method.spd_only && !p.spd) {
      skip(state, name, method.solver + " needs an SPD matrix: " + p.not_spd);
      return;
    }
    SolveSettings s;
    s.tolerance = sizeof(Scalar) == 8 ? o.cg_tolerance_double : o.cg_tolerance_float;
    s.max_iterations = o.cg_max_iterations;
    s.repetitions = o.cg_repetitions;
    s.block_size = std::min<int>(o.solve_block_size, static_cast<int>(p.A.num_rows()));
    s.chebyshev_degree = o.solve_chebyshev_degree;
    s.chebyshev_ratio = o.solve_chebyshev_ratio;
    s.ilu_solve = o.solve_ilu_solve == "sweeps"         ? Ilu0TriangularSolve::sweeps
                  : o.solve_ilu_solve == "substitution" ? Ilu0TriangularSolve::substitution
                                                        : Ilu0TriangularSolve::automatic;
    s.keep_workspace = o.solve_workspace != "none";
    s.amg_product = o.solve_amg_product == "gather"   ? AmgProduct::gather
                    : o.solve_amg_product == "spgemm" ? AmgProduct::spgemm
                                                      : AmgProduct::automatic;
    if (!o.solve_amg_cycle.empty())
      s.amg_cycle = o.solve_amg_cycle == "w" ? AmgCycle::w : AmgCycle::v;
    if (o.solve_amg_coarse_size > 0) s.amg_coarse_size = o.solve_amg_coarse_size;
    s.amg_shared_fine = o.solve_amg_fine != "own";
    auto runner = make_runner<Scalar>(impl, p, method, s);
    if (!runner) {
      skip(state, name, "no " + impl + " in this build");
      return;
    }
    SetupTimes setup;
    try {
      setup = runner->setup();
    } catch (std::invalid_argument const& e) {
      if (impl == "spmvkit") spmvkit_verdicts()[pair_key] = false;
      skip(state, name, std::string("the preconditioner cannot be built: ") + e.what());
      return;
    }

    // The untimed first solve: warm-up, and the convergence check before anything is timed.
    const Outcome first = runner->solve();
    const ResidualCheck checked = check_residual(p, s.tolerance);
    auto& verdicts = spmvkit_verdicts();
    const bool converged = first.converged && checked.ok();
    if (impl == "spmvkit") verdicts[pair_key] = converged;
    const auto ours = verdicts.find(pair_key);
    // kk and kk_gmres are SpMVKit's method written otherwise: where only one of the two
    // converges, something is wrong. PETSc's preconditioners are its own (exact ILU(0) and
    // IC(0), one block for block-Jacobi), so where it converges or not is reported, not judged.
    const bool same_method = impl == "kk" || impl == "kk_gmres";
    const bool ours_failed = ours != verdicts.end() && !ours->second;
    if (!converged) {
      const std::string why = "did not converge: " + first.status + " after " +
                              std::to_string(first.iterations) +
                              " iterations, true relative residual " + number(checked.relative) +
                              " (limit " + number(checked.limit) + ")";
      if (same_method && !ours_failed) {
        fail(state, name, why);
      } else {
        skip(state, name,
             why + (impl != "spmvkit" && ours_failed ? "; SpMVKit's did not either" : ""));
      }
      return;
    }
    if (same_method && ours_failed) {
      record_failure("solve/" + pair_key + "/spmvkit: did not converge where " + impl + " did");
    }

    std::vector<double> seconds, per_iteration, iterations;
    Outcome last;
    for (auto _ : state) {
      last = runner->solve();
      state.SetIterationTime(last.seconds);
      seconds.push_back(last.seconds);
      iterations.push_back(last.iterations);
      per_iteration.push_back(last.iterations > 0 ? last.seconds / last.iterations : 0.0);
    }
    const ResidualCheck final_check = check_residual(p, s.tolerance);
    if (!last.converged || !final_check.ok()) {
      fail(state, name,
           "a timed solve did not converge (" + last.status + ", true relative residual " +
               number(final_check.relative) + ") after the first one did");
      return;
    }
    std::ostringstream tol;
    tol << s.tolerance;
    state.SetLabel("solver=" + method.solver +
                   (method.solver == "gmres" ? ";restart=" + std::to_string(s.restart) : "") +
                   ";preconditioner=" + method.preconditioner + ";impl=" + impl +
                   ";tolerance=" + tol.str() + ";" + runner->label());
    // "solver_iterations", not "iterations": Google Benchmark's JSON already has that key.
    state.counters["solver_iterations"] = median(iterations);
    state.counters["converged"] = 1;
    state.counters["time_s"] = median(seconds);
    state.counters["time_per_iteration_s"] = median(per_iteration);
    state.counters["setup_s"] = setup.preconditioner;
    state.counters["matrix_setup_s"] = setup.matrix;
    if (setup.refresh >= 0) state.counters["refresh_s"] = setup.refresh;
    if (setup.refresh_first >= 0) state.counters["refresh_first_s"] = setup.refresh_first;
    for (auto const& [key, seconds] : setup.phases) state.counters[key] = seconds;
    if (setup.spmv > 0) {
      state.counters["spmv_s"] = setup.spmv;
      state.counters["setup_spmvs"] = setup.preconditioner / setup.spmv;
    }
    state.counters["true_relative_residual"] = final_check.relative;
    state.counters["rows"] = static_cast<double>(p.A.num_rows());
    state.counters["nnz"] = static_cast<double>(p.A.nnz());
    state.counters["sizeof_scalar"] = sizeof(Scalar);
  } catch (std::exception const& e) {
    fail(state, name, e.what());
  }
}

/// The implementations of a pair: SpMVKit always; kk with none or Jacobi (not pipelined CG,
/// whose one fused reduction KokkosBlas calls cannot express: compare it with cg/jacobi/kk);
/// kk_gmres with Jacobi; PETSc where it has the KSP and PC, in double.
template <class Scalar>
std::vector<std::string> implementations(SolveMethod const& m) {
  std::vector<std::string> out{"spmvkit"};
  const bool simple = m.preconditioner == "none" || m.preconditioner == "jacobi";
  if (simple && m.solver != "pipelined_cg") out.push_back("kk");
  if (m.solver == "gmres" && m.preconditioner == "jacobi") out.push_back("kk_gmres");
  if (std::is_same_v<Scalar, double> && petsc_available() &&
      petsc_supports(m.solver, m.preconditioner)) {
    out.push_back("petsc");
    if (m.preconditioner == "amg" && petsc_supports(m.solver, "hypre"))
      out.push_back("petsc_hypre");
  }
  return out;
}

} // namespace

template <class Scalar>
void register_solve_benchmarks(std::shared_ptr<const Options> const& options,
                               std::vector<MatrixSource> const& sources) {
  Options const& o = *options;
  if (o.wants_solve_impl("petsc") && !petsc_available()) {
    note_skip("solve/petsc", "this build has no PETSc (pkg-config PETSc at configure time)");
  }
  for (auto const& source : solve_sources(o, sources)) {
    for (auto const& method : solve_method_table()) {
      if (!o.wants_solve_method(method.solver, method.preconditioner)) continue;
      if (method.spd_only && !source.maybe_spd) continue;
      // A float copy of a float matrix is the matrix itself: cg/chebyshev.
      if (method.preconditioner == "chebyshev-float" && sizeof(Scalar) == sizeof(float)) continue;
      for (auto const& impl : implementations<Scalar>(method)) {
        if (!o.wants_solve_impl(impl)) continue;
        const std::string name = std::string("solve/") + precision_name<Scalar>() + "/" +
                                 source.name + "/" + method.solver + "/" + method.preconditioner +
                                 "/" + impl;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [options, name, source, method, impl](benchmark::State& st) {
                                       bm_solve<Scalar>(st, *options, name, source, method, impl);
                                     })
            ->UseManualTime()
            ->Iterations(o.cg_repetitions)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

template void register_solve_benchmarks<double>(std::shared_ptr<const Options> const&,
                                                std::vector<MatrixSource> const&);
template void register_solve_benchmarks<float>(std::shared_ptr<const Options> const&,
                                               std::vector<MatrixSource> const&);

} // namespace spmvkit::perf
