// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_ILU0_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_ILU0_HPP

/// \file
/// ILU(0) and IC(0) preconditioners for a CrsMatrix, built and applied without
/// level scheduling: make_ilu0() (any square matrix whose ILU(0) exists),
/// make_ic0() (symmetric positive definite matrices), both returning an
/// Ilu0Preconditioner that bicgstab() and gmres() accept.
///
/// **Factorisation: Chow and Patel's fixed-point ILU** (E. Chow, A. Patel,
/// "Fine-grained parallel incomplete LU factorization", SIAM J. Sci. Comput.
/// 37(2), 2015). ILU(0) is the L (unit lower) and U (upper) with A's pattern S
/// such that (LU)_ij = a_ij on S. Read entrywise, that is a fixed-point equation
/// for the unknowns themselves:
///
/// \verbatim
///   l_ij = (a_ij − Σ_{k<j} l_ik u_kj) / u_jj    (i > j)
///   u_ij =  a_ij − Σ_{k<i} l_ik u_kj            (i ≤ j)      sums over (i,k), (k,j) ∈ S
/// \endverbatim
///
/// Starting from L + U = A (after the symmetric scaling below), each sweep
/// updates every entry of S in parallel, one thread per nonzero. The sweeps are
/// Jacobi-style: an entry reads only the previous sweep's values, into a second
/// buffer. Chow and Patel run them in place (asynchronous, Gauss-Seidel-like),
/// which converges somewhat faster but makes the factors depend on the thread
/// schedule; Jacobi-style sweeps give the same factors on every backend and
/// thread count (hence reproducible iteration counts), for one more nnz-sized
/// buffer during set-up. Why this algorithm: no level scheduling (an exact
/// ILU(0) runs level by level, and an m x m grid in natural order has 2m − 1
/// levels of m or fewer rows), every sweep is fully parallel over the
/// nonzeros, and on PDE matrices a few sweeps already give a preconditioner
/// about as good as the exact ILU(0) (Chow and Patel's experiments, and the
/// measurements below). In exact arithmetic the sweeps reach the exact ILU(0)
/// after at most 2n − 1 of them (the unknowns' dependency depth), far sooner
/// on diagonally dominant matrices, where the iteration contracts.
///
/// IC(0) is Chow and Patel's symmetric variant: L lower with its diagonal,
/// (LLᵀ)_ij = a_ij on the lower triangle of S:
///
/// l_ij = (a_ij − Σ_{k<j} l_ik l_jk) / l_jj for i > j, and
/// l_jj = sqrt(a_jj − Σ_{k<j} l_jk²).
///
/// Scaling: A is scaled symmetrically to D^{-1/2} A D^{-1/2}, D = |diag(A)|
/// (unit diagonal), as Chow and Patel recommend: the starting guess is then
/// the identity plus the off-diagonal couplings, and the sweeps converge
/// faster. The factors are scaled back after the sweeps (L ← D^{1/2} L D^{-1/2},
/// U ← D^{1/2} U D^{1/2}; IC: L ← D^{1/2} L): the stored factors are those of A
/// itself and apply() needs no scaling. The exact sequential factorisation
/// (Ilu0Options::factorization) works on A itself: scaling changes nothing exact.
///
/// **Application: Jacobi-iterated triangular solves** (Chow and Patel, and
/// Anzt, Chow and Dongarra 2015). z = U⁻¹ L⁻¹ r is approximated by a fixed
/// number T of Jacobi sweeps per triangle: y ← D_L⁻¹ (r − (L − D_L) y) from
/// y = D_L⁻¹ r, then x ← D_U⁻¹ (y − (U − D_U) x) from x = D_U⁻¹ y (D_L = I for
/// ILU(0)'s unit L). Each sweep is one sparse product over one triangle,
/// parallel over the rows, so an apply is 2T kernels reading the factors about
/// T times, against the n-level sequence of an exact triangular solve. T
/// sweeps sum the first T + 1 terms of the Neumann series of the triangle's
/// inverse, so z is only approximately the exact ILU(0) solve (exact for
/// T ≥ n − 1): it is a fixed linear operator in r for fixed sweep counts, which
/// is what right-preconditioned GMRES and BiCGStab require; for IC(0) it is
/// also symmetric positive definite (the Lᵀ sweeps are the transposes of the L
/// sweeps). IC(0) applies L then Lᵀ: its factor array holds L in the lower
/// triangle and Lᵀ mirrored into the upper one, so both solves read rows.
///
/// On a host with few threads the sweeps lose to the exact solve: forward and
/// back substitution by one thread read each factor once where the sweeps read
/// them T times, and the exact solve needs fewer Krylov iterations.
/// Ilu0Options::triangular_solve chooses; its default (automatic) substitutes
/// on host execution spaces of at most ilu0_substitution_max_threads threads,
/// so the preconditioner, and the iteration counts, depend on the backend and
/// its thread count unless sweeps or substitution is named. Likewise
/// Ilu0Options::factorization: on those hosts the exact ILU(0)/IC(0), row by
/// row by one thread (as PETSc's sequential ILU), is cheaper than the sweeps.
///
/// **Measured effect of the sweeps** (unit_tests/solvers/test_ilu0.cpp, before
/// substitution existed; double, Serial and OpenMP alike, relative tolerance
/// 1e-10; 3 and 3 sweeps). 2D
/// convection-diffusion, N = 32 (961 rows): GMRES(30) needs 316 iterations with
/// point Jacobi and 31 with ILU(0) at Pe = 0.5, 340 and 21 at Pe = 5; BiCGStab
/// 58 and 19, 61 and 15. FEM Poisson, N = 16 (3375 rows, 27-point), GMRES(30)
/// from a rough start: 48 with Jacobi, 18 with IC(0). Factorisation sweeps
/// beyond 2 or 3 change little (30 of them: GMRES 30 and 21 iterations, IC(0)
/// 18); triangular sweeps matter more (1: 85 and 59; 10: 28 and 14; IC(0) 27
/// with 1, 18 with 3 or more). On a 2-core host (OpenMP, n = 261121) each
/// triangular sweep took about 1 to 1.5 times an SpMV, so an apply with T = 3
/// about 6 to 8 SpMVs, and the set-up with 3 sweeps about 30.
///
/// **Requirements**, checked at set-up (std::invalid_argument naming the row):
/// a square matrix; columns strictly increasing within each row (sorted, no
/// duplicates); every diagonal entry stored and nonzero (positive for IC(0));
/// for IC(0) a symmetric pattern (only the lower triangle's values are read: A
/// must be symmetric, which is not checked). After the sweeps a zero or
/// non-finite pivot (U's diagonal; L's for IC(0)) or a non-finite factor entry
/// starts the factorisation again with a diagonal shift
/// (Ilu0Options::shift_on_breakdown); past the largest shift, or with that
/// option off, it is an error naming the row: the matrix has no usable
/// ILU(0)/IC(0), or the sweeps have not converged (more factorization_sweeps
/// may help).
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/crs/detail/entry_rows.hpp>
#include <spmvkit/solvers/preconditioner.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// How Ilu0Preconditioner::apply() solves with the two triangular factors.
enum class Ilu0TriangularSolve {
  /// substitution on a host execution space of at most
  /// ilu0_substitution_max_threads threads, sweeps otherwise
  automatic,
  /// Ilu0Options::triangular_sweeps Jacobi sweeps per triangle, parallel over
  /// the rows: an approximate solve, any backend
  sweeps,
  /// exact forward and back substitution by one thread, reading each factor
  /// once (as PETSc's and hypre's sequential ILU do): host execution spaces only
  substitution
};

/// How make_ilu0() and make_ic0() compute the factors.
enum class Ilu0Factorization {
  /// sequential on a host execution space of at most ilu0_substitution_max_threads
  /// threads, sweeps otherwise
  automatic,
  /// Ilu0Options::factorization_sweeps Chow-Patel sweeps, parallel over the
  /// nonzeros: approximate factors, any backend
  sweeps,
  /// the exact ILU(0)/IC(0) row by row (IKJ order) by one thread: host
  /// execution spaces only
  sequential
};

/// The most threads of a host execution space on which Ilu0TriangularSolve::automatic
/// substitutes and Ilu0Factorization::automatic factorises sequentially: one thread reading the
/// factors once beat the parallel sweeps at the thread counts measured, 1 and 2
/// (docs/notes/2026-11-29-ilu0-substitution.md,
/// docs/notes/2026-11-29-ilu0-sequential-factorization.md); more threads are left to the sweeps.
inline constexpr int ilu0_substitution_max_threads = 2;

/// Options of make_ilu0() and make_ic0(): the sweep counts, each in [1, 1000].
struct Ilu0Options {
  /// Fixed-point sweeps of the factorisation (Chow-Patel); 3 suffice on PDE
  /// matrices, more approach the exact ILU(0)/IC(0).
  int factorization_sweeps = 3;
  /// Jacobi sweeps per triangular solve in apply() when it sweeps
  /// (triangular_solve); each costs one sparse product with one triangle. More
  /// approach the exact triangular solves.
  int triangular_sweeps = 3;
  /// How apply() solves with the factors; sweeps use triangular_sweeps.
  Ilu0TriangularSolve triangular_solve = Ilu0TriangularSolve::automatic;
  /// How the factors are computed; sweeps use factorization_sweeps.
  Ilu0Factorization factorization = Ilu0Factorization::automatic;
  /// The factors are those of A + s diag(A); the first attempt takes s =
  /// diagonal_shift (in [0, 1e6]).
  double diagonal_shift = 0;
  /// After a breakdown (a zero or non-finite pivot; under IC(0) also a
  /// negative one), factorise again with s raised to 1e-3, then doubled,
  /// until the factors exist or s would pass 1, as PETSc's positive-definite
  /// shift does for ICC: an SPD matrix without an IC(0) (Kershaw's) still
  /// gets a preconditioner. Ilu0Preconditioner::diagonal_shift() tells the s
  /// used. false: a breakdown is an error at once.
  bool shift_on_breakdown = true;
};

/// Which incomplete factorisation an Ilu0Preconditioner holds.
enum class Ilu0Kind {
  ilu0, ///< L U, L unit lower, U upper (make_ilu0)
  ic0   ///< L Lᵀ, L lower (make_ic0; symmetric positive definite A)
};

namespace detail {

/// A number for an error message (6 significant digits).
inline std::string ilu0_number(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

/// The position of column c among cols[lo, hi) (sorted), or false.
template <class Columns, class Offset, class Ordinal>
KOKKOS_INLINE_FUNCTION bool ilu0_find(Columns const& cols, Offset lo, Offset hi, Ordinal c,
                                      Offset& at) {
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    const Ordinal m = cols(mid);
    if (m == c) {
      at = mid;
      return true;
    }
    if (m < c) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

// What the pattern check found wrong with a row, encoded as 4 row + kind so that one Min
// reduction names the first bad row (and, within it, the first kind).
enum : int {
  ilu0_unsorted = 0,
  ilu0_no_diagonal = 1,
  ilu0_bad_diagonal = 2, // zero or non-finite (or not positive for IC(0))
};

/// Per row: columns strictly increasing, the diagonal's position (diag), the
/// square root of its magnitude (root); the first bad row (4 row + kind).
template <class Starts, class Columns, class Values, class Diag, class Roots>
struct Ilu0CheckRows {
  Starts starts;
  Columns cols;
  Values vals;
  Diag diag;
  Roots root;
  double largest;
  bool positive;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    const auto begin = starts(i), end = starts(i + 1);
    bool found = false;
    for (auto p = begin; p < end; ++p) {
      if (p > begin && !(cols(p - 1) < cols(p))) {
        if (4 * i + ilu0_unsorted < bad) bad = 4 * i + ilu0_unsorted;
        return;
      }
      if (cols(p) == i) {
        found = true;
        diag(i) = p;
      }
    }
    if (!found) {
      if (4 * i + ilu0_no_diagonal < bad) bad = 4 * i + ilu0_no_diagonal;
      return;
    }
    const double v = static_cast<double>(vals(diag(i)));
    const double m = v < 0 ? -v : v;
    if (!(m > 0 && m <= largest) || (positive && !(v > 0))) { // also catches NaN
      if (4 * i + ilu0_bad_diagonal < bad) bad = 4 * i + ilu0_bad_diagonal;
      return;
    }
    root(i) = device_sqrt(m);
  }
};

/// IC(0): the first row with an entry above the diagonal whose mirror is not stored.
template <class Starts, class Columns, class Diag>
struct Ilu0CheckSymmetry {
  Starts starts;
  Columns cols;
  Diag diag;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    using Offset = typename Starts::non_const_value_type;
    for (auto p = diag(i) + 1; p < starts(i + 1); ++p) {
      const auto k = cols(p);
      Offset at = 0;
      if (!ilu0_find(cols, starts(k), diag(k), static_cast<decltype(k)>(i), at)) {
        if (i < bad) bad = i;
        return;
      }
    }
  }
};

/// â_ij = a_ij / (root_i root_j): the symmetrically scaled matrix, unit diagonal in magnitude.
template <class Rows, class Columns, class Values, class Roots, class Out>
struct Ilu0Scale {
  Rows rows;
  Columns cols;
  Values vals;
  Roots root;
  Out out;
  double shift; // the scaled diagonal is ±1: (1 + shift) scales it to that of A + shift diag(A)
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    const auto i = rows(p), j = cols(p);
    const double v = static_cast<double>(vals(p)) / (root(i) * root(j));
    out(p) = static_cast<typename Out::value_type>(i == j ? v * (1 + shift) : v);
  }
};

/// One Jacobi-style Chow-Patel sweep of ILU(0): next from old, for every entry.
template <class Starts, class Columns, class Diag, class Rows, class CValues, class Values>
struct Ilu0FactorSweep {
  Starts starts;
  Columns cols;
  Diag diag;
  Rows rows;
  CValues a, old;
  Values next;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    using Scalar = typename Values::value_type;
    using Offset = typename Starts::non_const_value_type;
    const auto i = rows(p);
    const auto j = cols(p);
    const auto m = i < j ? i : j;
    Scalar sum = 0;
    // Σ l_ik u_kj over k < min(i, j): row i's L entries, each looked up in row k's U part.
    for (auto q = starts(i); q < diag(i) && cols(q) < m; ++q) {
      const auto k = cols(q);
      Offset at = 0;
      if (ilu0_find(cols, static_cast<Offset>(diag(k) + 1), starts(k + 1), j, at))
        sum += old(q) * old(at);
    }
    next(p) = i > j ? (a(p) - sum) / old(diag(j)) : a(p) - sum;
  }
};

/// One Jacobi-style sweep of IC(0) on the lower triangle (the upper one is left alone).
template <class Starts, class Columns, class Diag, class Rows, class CValues, class Values>
struct Ic0FactorSweep {
  Starts starts;
  Columns cols;
  Diag diag;
  Rows rows;
  CValues a, old;
  Values next;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    using Scalar = typename Values::value_type;
    const auto i = rows(p);
    const auto j = cols(p);
    if (j > i) return;
    Scalar sum = 0;
    // Σ l_ik l_jk over k < j: a merge of rows i and j, both sorted.
    auto q = starts(i);
    auto r = starts(j);
    while (q < diag(i) && r < diag(j)) {
      const auto cq = cols(q), cr = cols(r);
      if (cq >= j || cr >= j) break;
      if (cq == cr) {
        sum += old(q) * old(r);
        ++q;
        ++r;
      } else if (cq < cr) {
        ++q;
      } else {
        ++r;
      }
    }
    if (i > j) {
      next(p) = (a(p) - sum) / old(diag(j));
    } else {
      // A non-positive argument: IC(0) breaks down here; 0 makes the pivot check name the row.
      const double v = static_cast<double>(a(p) - sum);
      next(p) = v > 0 ? static_cast<Scalar>(device_sqrt(v)) : Scalar(0);
    }
  }
};

/// The factors of A from those of the scaled matrix (out of place: IC(0)'s
/// upper triangle reads its mirror below the diagonal).
template <class Starts, class Columns, class Diag, class Rows, class Roots, class CValues,
          class Values>
struct Ilu0Unscale {
  Starts starts;
  Columns cols;
  Diag diag;
  Rows rows;
  Roots root;
  CValues scaled;
  Values out;
  bool ic;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    using Scalar = typename Values::value_type;
    using Offset = typename Starts::non_const_value_type;
    const auto i = rows(p);
    const auto j = cols(p);
    double v = 0;
    if (!ic) {
      v = static_cast<double>(scaled(p)) * root(i) * (i > j ? 1.0 / root(j) : root(j));
    } else if (j <= i) {
      v = static_cast<double>(scaled(p)) * root(i); // L = D^{1/2} L̂
    } else {
      Offset at = 0; // present: the pattern was checked symmetric
      if (ilu0_find(cols, starts(j), diag(j), static_cast<decltype(j)>(i), at))
        v = static_cast<double>(scaled(at)) * root(j); // (Lᵀ)_ij = l_ji
    }
    out(p) = static_cast<Scalar>(v);
  }
};

/// inv(i) = 1 / pivot of row i; the first row with a zero or non-finite pivot
/// or a non-finite factor entry.
template <class Starts, class Diag, class CValues, class Values>
struct Ilu0CheckPivots {
  Starts starts;
  Diag diag;
  CValues factors;
  Values inv;
  double largest;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    using Scalar = typename Values::value_type;
    bool ok = true;
    for (auto p = starts(i); p < starts(i + 1); ++p) {
      const double v = static_cast<double>(factors(p));
      const double m = v < 0 ? -v : v;
      ok = ok && m <= largest; // false for NaN and Inf
    }
    const double d = static_cast<double>(factors(diag(i)));
    ok = ok && d != 0;
    inv(i) = ok ? static_cast<Scalar>(1.0 / d) : Scalar(0);
    if (!ok && i < bad) bad = i;
  }
};

/// One Jacobi sweep of a triangular solve with the factors' lower (Lower) or
/// upper part: x_new = D⁻¹ (b − (T − D) x_old), D = I when Unit. The first
/// sweep reads x_old = D⁻¹ b from b itself, saving a kernel.
template <bool Lower, bool Unit, bool First, class Starts, class Columns, class Diag, class CValues,
          class Vec>
struct Ilu0TriangularSweep {
  Starts starts;
  Columns cols;
  Diag diag;
  CValues factors;
  Vec inv; // 1 / pivots
  Vec b, x_old, x_new;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    auto sum = b(i);
    const auto begin = Lower ? starts(i) : diag(i) + 1;
    const auto end = Lower ? diag(i) : starts(i + 1);
    for (auto p = begin; p < end; ++p) {
      const auto c = cols(p);
      if constexpr (First) {
        sum -= factors(p) * (Unit ? b(c) : b(c) * inv(c));
      } else {
        sum -= factors(p) * x_old(c);
      }
    }
    x_new(i) = Unit ? sum : sum * inv(i);
  }
};

/// f = A's values with the diagonal times (1 + shift), per row: what the
/// sequential factorisation overwrites (it needs no scaling, being exact).
template <class Starts, class Diag, class CValues, class Values>
struct Ilu0ShiftedCopy {
  Starts starts;
  Diag diag;
  CValues a;
  Values f;
  double shift;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    for (auto p = starts(i); p < starts(i + 1); ++p) f(p) = a(p);
    f(diag(i)) =
        static_cast<typename Values::value_type>(static_cast<double>(a(diag(i))) * (1 + shift));
  }
};

/// IC(0)'s upper triangle from its lower one: f_ij = l_ji, per row.
template <class Starts, class Columns, class Diag, class Values>
struct Ic0Mirror {
  Starts starts;
  Columns cols;
  Diag diag;
  Values f;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using Offset = typename Starts::non_const_value_type;
    for (auto p = diag(i) + 1; p < starts(i + 1); ++p) {
      const auto j = cols(p);
      Offset at = 0; // present: the pattern was checked symmetric
      if (ilu0_find(cols, starts(j), diag(j), static_cast<decltype(j)>(i), at)) f(p) = f(at);
    }
  }
};

/// The exact ILU(0) (or IC(0): the lower triangle of L) of the values f in
/// place, row by row by one thread. mark(c) holds 1 + the position of column c
/// in the current row, 0 elsewhere (all 0 before and after).
template <class Starts, class Columns, class Diag, class Values, class Marks>
struct Ilu0SequentialFactor {
  Starts starts;
  Columns cols;
  Diag diag;
  Values f;
  Marks mark;
  std::int64_t n;
  bool ic;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const {
    using Scalar = typename Values::value_type;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto begin = starts(i);
      const auto end = starts(i + 1);
      for (auto p = begin; p < end; ++p) mark(cols(p)) = p + 1;
      if (!ic) {
        // l_ik = a_ik / u_kk, then row i −= l_ik (row k of U), on row i's pattern.
        for (auto p = begin; p < diag(i); ++p) {
          const auto k = cols(p);
          const Scalar l = f(p) / f(diag(k));
          f(p) = l;
          for (auto q = diag(k) + 1; q < starts(k + 1); ++q) {
            const auto at = mark(cols(q));
            if (at != 0) f(at - 1) -= l * f(q);
          }
        }
      } else {
        // l_ik = (a_ik − Σ_{m<k} l_im l_km) / l_kk; l_ii = sqrt(a_ii − Σ_{m<i} l_im²).
        for (auto p = begin; p <= diag(i); ++p) {
          const auto k = cols(p);
          Scalar sum = f(p);
          for (auto q = starts(k); q < diag(k); ++q) {
            const auto at = mark(cols(q));
            if (at != 0) sum -= f(at - 1) * f(q);
          }
          f(p) = p == diag(i) ? static_cast<Scalar>(device_sqrt(static_cast<double>(sum)))
                              : sum / f(diag(k));
        }
      }
      for (auto p = begin; p < end; ++p) mark(cols(p)) = 0;
    }
  }
};

/// Row starts of the factors split by triangle: lower(i + 1) = the strictly
/// lower entries of rows 0..i, upper(i + 1) = the strictly upper ones (one
/// diagonal entry per row, checked at set-up). A scan over the rows.
template <class Starts, class Diag, class Split>
struct Ilu0SplitStarts {
  Starts starts;
  Diag diag;
  Split lower, upper;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& done, bool final) const {
    done += diag(i) - starts(i);
    if (final) {
      using Offset = typename Split::non_const_value_type;
      lower(i + 1) = static_cast<Offset>(done);
      upper(i + 1) = static_cast<Offset>(starts(i + 1) - (i + 1) - done);
    }
  }
};

/// Row i's strictly lower and strictly upper factor entries into their own
/// arrays, in the form Ilu0Substitution reads: each row's entries divided by
/// its pivot (L's only when it is not unit), and U's rows stored from the last
/// row to the first (row i at [upper(n) − upper(i + 1), upper(n) − upper(i))),
/// so that the back substitution reads its arrays forwards, as PETSc's
/// sequential MatSolve does (docs/notes/2026-12-01-ilu0-substitution-chain.md).
template <class Starts, class Columns, class Diag, class CValues, class Split, class SplitColumns,
          class Values, class Inverse>
struct Ilu0SplitRows {
  Starts starts;
  Columns cols;
  Diag diag;
  CValues factors;
  Split lower, upper;
  SplitColumns lower_cols, upper_cols;
  Values lower_vals, upper_vals;
  Inverse inv;
  typename Split::non_const_value_type upper_total;
  bool unit_lower;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto scale = inv(i);
    auto q = lower(i);
    for (auto p = starts(i); p < diag(i); ++p, ++q) {
      lower_cols(q) = cols(p);
      lower_vals(q) = unit_lower ? factors(p) : factors(p) * scale;
    }
    q = upper_total - upper(i + 1);
    for (auto p = diag(i) + 1; p < starts(i + 1); ++p, ++q) {
      upper_cols(q) = cols(p);
      upper_vals(q) = factors(p) * scale;
    }
  }
};

/// z = U⁻¹ L⁻¹ r by forward then back substitution, in place in z, by one
/// thread (one work item): exact, each triangle read once from its own arrays
/// (a sweep over A's pattern would read the other triangle's cache lines too),
/// in Ilu0SplitRows' form (rows divided by their pivots, U's rows last first).
/// D = I for a unit L.
template <bool UnitLower, class Split, class SplitColumns, class CValues, class Vec>
struct Ilu0Substitution {
  Split lower, upper;
  SplitColumns lower_cols, upper_cols;
  CValues lower_vals, upper_vals;
  Vec inv; // 1 / pivots
  Vec r, z;
  std::int64_t n;
  /// Σ vals(p) z(cols(p)) over [begin, end) in two partial sums: one chain
  /// of dependent adds per row was the solve's bound, not its reads.
  KOKKOS_INLINE_FUNCTION auto row_sum(CValues const& vals, SplitColumns const& cols,
                                      std::int64_t begin, std::int64_t end) const {
    typename Vec::non_const_value_type s0 = 0, s1 = 0;
    auto p = begin;
    for (; p + 2 <= end; p += 2) {
      s0 += vals(p) * z(cols(p));
      s1 += vals(p + 1) * z(cols(p + 1));
    }
    if (p < end) s0 += vals(p) * z(cols(p));
    return s0 + s1;
  }

  // Each row's entry in the column solved last (L's last, U's first) is
  // subtracted on its own, after the rest: only that one product waits for the
  // previous row, so the chain from row to row is one multiply-add.
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const {
    // Positions compared in int64: Offset may be unsigned, where lower(1) − 1 wraps.
    for (std::int64_t i = 0; i < n; ++i) {
      const auto begin = static_cast<std::int64_t>(lower(i));
      const auto end = static_cast<std::int64_t>(lower(i + 1));
      auto t = UnitLower ? r(i) : r(i) * inv(i);
      if (end > begin) {
        t -= row_sum(lower_vals, lower_cols, begin, end - 1);
        t -= lower_vals(end - 1) * z(lower_cols(end - 1));
      }
      z(i) = t;
    }
    const auto total = static_cast<std::int64_t>(upper(n));
    for (std::int64_t i = n - 1; i >= 0; --i) {
      const std::int64_t first = total - static_cast<std::int64_t>(upper(i + 1));
      const std::int64_t end = total - static_cast<std::int64_t>(upper(i));
      auto t = z(i) * inv(i);
      if (end > first) {
        t -= row_sum(upper_vals, upper_cols, first + 1, end);
        t -= upper_vals(first) * z(upper_cols(first));
      }
      z(i) = t;
    }
  }
};

} // namespace detail

/// An ILU(0) or IC(0) preconditioner of a CrsMatrix (this header's
/// documentation gives the algorithm): M = L U (or L Lᵀ), applied as T Jacobi
/// sweeps per triangle. Models the preconditioner concept of
/// solvers/preconditioner.hpp; vector_type is MatrixOperator<CrsMatrix<...>>'s,
/// so bicgstab(exec, A, M, b, x) and gmres(exec, A, M, b, x) take it.
///
/// Holds A's row_starts and column_indices (shared handles, not copies) and its
/// own factors (nnz values), pivot inverses and, when it sweeps, two work vectors (n each),
/// when it substitutes a copy of the factors split by triangle (nnz − n values and column
/// indices, 2 (n + 1) offsets): apply() allocates nothing. Copies share all of them, so one apply
/// at a time per preconditioner and its copies (the work vectors are shared). A's values may change
/// afterwards (the factors are a copy); its structure must not.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class Ilu0Preconditioner {
public:
  /// The matrix type it is built from.
  using matrix_type = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The matrix's execution space.
  using execution_space = ExecutionSpace;
  /// The matrix's and the vectors' scalar type.
  using scalar_type = Scalar;
  /// MatrixOperator<matrix_type>::vector_type: `Kokkos::View<Scalar*, device_type>`.
  using vector_type = Kokkos::View<Scalar*, typename matrix_type::device_type>;
  /// The factors' values, in A's pattern (factors()).
  using values_type = typename matrix_type::values_type;
  /// Positions of the diagonal entries (diagonal_positions()).
  using positions_type = Kokkos::View<Offset*, typename matrix_type::device_type>;

  /// Factorises A (make_ilu0() and make_ic0() call this). Synchronous: the
  /// checks are read back. Throws std::invalid_argument (starting with
  /// "spmvkit::make_ilu0" or "spmvkit::make_ic0") for sweep counts outside
  /// [1, 1000] (naming the option), a non-square A, a broken CRS structure, a
  /// row whose columns are not strictly increasing, a missing, zero or
  /// non-finite diagonal entry (non-positive for IC(0)), an IC(0) pattern that
  /// is not symmetric, and a zero or non-finite pivot or factor entry after the
  /// sweeps, each naming the row; AllocationError when an allocation fails.
  /// Memory during set-up: with the sweeps three nnz arrays of Scalar and one of
  /// Ordinal, sequentially one nnz array of Scalar and n marks; substitution
  /// then keeps the factors split by triangle (nnz − n values and indices).
  Ilu0Preconditioner(ExecutionSpace const& exec, matrix_type const& A,
                     Ilu0Options const& options = Ilu0Options(), Ilu0Kind kind = Ilu0Kind::ilu0)
      : kind_(kind), options_(options), starts_(A.row_starts()), cols_(A.column_indices()) {
    const std::string where =
        std::string("spmvkit::") + (kind == Ilu0Kind::ic0 ? "make_ic0" : "make_ilu0");
    check_sweeps(options.factorization_sweeps, "factorization_sweeps", where);
    check_sweeps(options.triangular_sweeps, "triangular_sweeps", where);
    substitution_ = one_thread(exec, options.triangular_solve, Ilu0TriangularSolve::substitution,
                               "triangular_solve", "substitution", where);
    sequential_ = one_thread(exec, options.factorization, Ilu0Factorization::sequential,
                             "factorization", "sequential", where);
    if (!(options.diagonal_shift >= 0 && options.diagonal_shift <= 1e6)) {
      throw std::invalid_argument(where +
                                  ": Ilu0Options::diagonal_shift must be in [0, 1e6], got " +
                                  detail::ilu0_number(options.diagonal_shift));
    }
    if (A.num_rows() != A.num_cols()) {
      throw std::invalid_argument(where + ": the matrix is " + std::to_string(A.num_rows()) +
                                  " x " + std::to_string(A.num_cols()) + ", not square");
    }
    detail::ensure_structure(exec, A);
    n_ = A.num_rows();
    const std::int64_t nnz = A.nnz();
    diag_ = detail::allocate_view<positions_type>(exec, "SpMVKit::ilu0::diagonal_positions", n_);
    inv_ = detail::allocate_view<vector_type>(exec, "SpMVKit::ilu0::inverse_pivots", n_);
    if (!substitution_) {
      work_[0] = detail::allocate_view<vector_type>(exec, "SpMVKit::ilu0::work_lower", n_);
      work_[1] = detail::allocate_view<vector_type>(exec, "SpMVKit::ilu0::work_upper", n_);
    }
    using Roots = Kokkos::View<double*, typename matrix_type::device_type>;
    const auto root = detail::allocate_view<Roots>(exec, "SpMVKit::ilu0::diagonal_roots", n_);
    check_pattern(exec, A, root, where);

    using Rows = Kokkos::View<Ordinal*, typename matrix_type::device_type>;
    using CValues = Kokkos::View<Scalar const*, typename matrix_type::device_type>;
    using Range = Kokkos::RangePolicy<ExecutionSpace>;
    factors_ = detail::allocate_view<values_type>(exec, "SpMVKit::ilu0::factors", nnz);
    // The sweeps run on the symmetrically scaled matrix and need each entry's
    // row and two value buffers; the exact sequential factorisation needs
    // neither (scaling changes nothing exact), only a column marker.
    Rows rows;
    values_type buffer[2];
    positions_type marks;
    if (sequential_) {
      marks = detail::allocate_view<positions_type>(exec, "SpMVKit::ilu0::marks", n_);
      Kokkos::deep_copy(exec, marks, Offset(0));
    } else {
      rows = detail::allocate_view<Rows>(exec, "SpMVKit::ilu0::entry_rows", nnz);
      Kokkos::parallel_for("SpMVKit::ilu0::entry_rows", Range(exec, 0, n_),
                           detail::CrsEntryRows<decltype(starts_), Rows>{starts_, rows});
      buffer[0] = detail::allocate_view<values_type>(exec, "SpMVKit::ilu0::sweep_a", nnz);
      buffer[1] = detail::allocate_view<values_type>(exec, "SpMVKit::ilu0::sweep_b", nnz);
    }
    for (shift_ = options.diagonal_shift;;) {
      if (sequential_) {
        Kokkos::parallel_for(
            "SpMVKit::ilu0::shifted_copy", Range(exec, 0, n_),
            detail::Ilu0ShiftedCopy<decltype(starts_), positions_type, CValues, values_type>{
                starts_, diag_, A.values(), factors_, shift_});
        Kokkos::parallel_for(
            "SpMVKit::ilu0::sequential_factor", Range(exec, 0, 1),
            detail::Ilu0SequentialFactor<decltype(starts_), decltype(cols_), positions_type,
                                         values_type, positions_type>{
                starts_, cols_, diag_, factors_, marks, n_, kind == Ilu0Kind::ic0});
        if (kind == Ilu0Kind::ic0) {
          Kokkos::parallel_for(
              "SpMVKit::ilu0::ic0_mirror", Range(exec, 0, n_),
              detail::Ic0Mirror<decltype(starts_), decltype(cols_), positions_type, values_type>{
                  starts_, cols_, diag_, factors_});
        }
      } else {
        // The scaled (and shifted) matrix: the start of the sweeps and their
        // right-hand side, its storage taking the factors of A at the end.
        Kokkos::parallel_for(
            "SpMVKit::ilu0::scale", Range(exec, 0, nnz),
            detail::Ilu0Scale<Rows, decltype(cols_), values_type, Roots, values_type>{
                rows, cols_, A.values(), root, factors_, shift_});
        CValues old = factors_;
        for (int s = 0; s < options.factorization_sweeps; ++s) {
          values_type const& next = buffer[s % 2];
          if (kind == Ilu0Kind::ic0) {
            Kokkos::parallel_for("SpMVKit::ilu0::ic0_sweep", Range(exec, 0, nnz),
                                 detail::Ic0FactorSweep<decltype(starts_), decltype(cols_),
                                                        positions_type, Rows, CValues, values_type>{
                                     starts_, cols_, diag_, rows, factors_, old, next});
          } else {
            Kokkos::parallel_for(
                "SpMVKit::ilu0::ilu0_sweep", Range(exec, 0, nnz),
                detail::Ilu0FactorSweep<decltype(starts_), decltype(cols_), positions_type, Rows,
                                        CValues, values_type>{starts_, cols_, diag_, rows, factors_,
                                                              old, next});
          }
          old = next;
        }
        Kokkos::parallel_for(
            "SpMVKit::ilu0::unscale", Range(exec, 0, nnz),
            detail::Ilu0Unscale<decltype(starts_), decltype(cols_), positions_type, Rows, Roots,
                                CValues, values_type>{starts_, cols_, diag_, rows, root, old,
                                                      factors_, kind == Ilu0Kind::ic0});
      }
      const std::int64_t bad = first_bad_pivot(exec);
      if (bad < 0) break;
      const double next_shift = shift_ < 1e-3 ? 1e-3 : 2 * shift_;
      if (!options.shift_on_breakdown || next_shift > 1) throw_pivot_error(bad, where);
      shift_ = next_shift;
    }
    if (substitution_) split_triangles(exec);
  }

  /// The s of the factors (of A + s diag(A)): Ilu0Options::diagonal_shift, or
  /// the one that a breakdown led to (Ilu0Options::shift_on_breakdown).
  double diagonal_shift() const { return shift_; }

  /// Number of rows (and columns) of the matrix it was built from.
  std::int64_t num_rows() const { return n_; }
  /// ILU(0) or IC(0).
  Ilu0Kind kind() const { return kind_; }
  /// The sweep counts it was built with.
  Ilu0Options const& options() const { return options_; }
  /// How the factors were computed: sweeps or sequential (automatic resolved at set-up).
  Ilu0Factorization factorization() const {
    return sequential_ ? Ilu0Factorization::sequential : Ilu0Factorization::sweeps;
  }
  /// How apply() solves: sweeps or substitution (automatic resolved at set-up).
  Ilu0TriangularSolve triangular_solve() const {
    return substitution_ ? Ilu0TriangularSolve::substitution : Ilu0TriangularSolve::sweeps;
  }

  /// z = U⁻¹ L⁻¹ r (IC(0): L⁻ᵀ L⁻¹ r): exactly by substitution (one kernel on
  /// one thread), or each triangle approximately by options().triangular_sweeps
  /// Jacobi sweeps (2 T kernels); a fixed linear operator either way
  /// (triangular_solve()). Asynchronous on exec; r and z distinct with
  /// num_rows() entries; no allocation.
  void apply(execution_space const& exec, vector_type const& r, vector_type const& z) const {
    if (substitution_) {
      substitute(exec, r, z);
      return;
    }
    const int T = options_.triangular_sweeps;
    // L: the sweeps alternate between the two work vectors and end in y.
    for (int s = 1; s <= T; ++s) {
      vector_type const& out = work_[(s - 1) % 2];
      vector_type const& in = s == 1 ? r : work_[s % 2];
      if (kind_ == Ilu0Kind::ic0) {
        sweep<true, false>(exec, s == 1, r, in, out);
      } else {
        sweep<true, true>(exec, s == 1, r, in, out);
      }
    }
    vector_type const& y = work_[(T - 1) % 2];
    vector_type const& other = work_[T % 2];
    // U (IC(0): Lᵀ): between z and the free work vector, the last sweep writing z.
    for (int s = 1; s <= T; ++s) {
      vector_type const& out = (T - s) % 2 == 0 ? z : other;
      vector_type const& in = s == 1 ? y : ((T - s) % 2 == 0 ? other : z);
      sweep<false, false>(exec, s == 1, y, in, out);
    }
  }

  /// The factors in A's pattern (row_starts() and column_indices()). ILU(0):
  /// L's entries below the diagonal (its unit diagonal is not stored), U's on
  /// and above it. IC(0): L below and on the diagonal, Lᵀ mirrored above it.
  values_type const& factors() const { return factors_; }
  /// A's row starts (shared with A).
  typename matrix_type::row_starts_type const& row_starts() const { return starts_; }
  /// A's column indices (shared with A).
  typename matrix_type::column_indices_type const& column_indices() const { return cols_; }
  /// Where each row's diagonal entry lies in factors().
  positions_type const& diagonal_positions() const { return diag_; }

private:
  static void check_sweeps(int value, char const* option, std::string const& where) {
    if (value < 1 || value > 1000) {
      throw std::invalid_argument(where + ": Ilu0Options::" + option +
                                  " must be in [1, 1000], got " + std::to_string(value));
    }
  }

  template <class Roots>
  void check_pattern(ExecutionSpace const& exec, matrix_type const& A, Roots const& root,
                     std::string const& where) {
    using Range = Kokkos::RangePolicy<ExecutionSpace>;
    constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max(); // Min's start
    const bool ic = kind_ == Ilu0Kind::ic0;
    std::int64_t bad = none;
    Kokkos::parallel_reduce(
        "SpMVKit::ilu0::check_rows", Range(exec, 0, n_),
        detail::Ilu0CheckRows<decltype(starts_), decltype(cols_), values_type, positions_type,
                              Roots>{starts_, cols_, A.values(), diag_, root,
                                     static_cast<double>(std::numeric_limits<Scalar>::max()), ic},
        Kokkos::Min<std::int64_t>(bad));
    exec.fence();
    if (bad != none) {
      const std::string row = "row " + std::to_string(bad / 4);
      switch (static_cast<int>(bad % 4)) {
      case detail::ilu0_unsorted:
        throw std::invalid_argument(where + ": " + row +
                                    " has column indices that are not strictly increasing (the "
                                    "fixed-point sweeps search sorted rows; sort the columns "
                                    "and merge duplicates first)");
      case detail::ilu0_no_diagonal:
        throw std::invalid_argument(where + ": " + row + " has no stored diagonal entry (" +
                                    (ic ? "IC(0)" : "ILU(0)") +
                                    " keeps A's pattern, which must hold every diagonal entry)");
      default: {
        Offset at = 0;
        Scalar value = 0;
        Kokkos::deep_copy(at, Kokkos::subview(diag_, bad / 4));
        Kokkos::deep_copy(value, Kokkos::subview(A.values(), static_cast<std::int64_t>(at)));
        throw std::invalid_argument(
            where + ": " + row + " has the diagonal entry " + detail::ilu0_number(value) +
            (ic ? ", not positive and finite (IC(0) needs a symmetric positive definite matrix)"
                : ", zero or not finite (ILU(0) divides by it; the sweeps scale by its square "
                  "root)"));
      }
      }
    }
    if (ic) {
      Kokkos::parallel_reduce(
          "SpMVKit::ilu0::check_symmetry", Range(exec, 0, n_),
          detail::Ilu0CheckSymmetry<decltype(starts_), decltype(cols_), positions_type>{
              starts_, cols_, diag_},
          Kokkos::Min<std::int64_t>(bad));
      exec.fence();
      if (bad != none) {
        throw std::invalid_argument(where + ": row " + std::to_string(bad) +
                                    " has an entry above the diagonal whose mirror below it is "
                                    "not stored; IC(0) needs a symmetric pattern");
      }
    }
  }

  /// The first row whose pivot or factor entry is unusable (inv_ is set for
  /// the others), or -1.
  std::int64_t first_bad_pivot(ExecutionSpace const& exec) {
    using Range = Kokkos::RangePolicy<ExecutionSpace>;
    using CValues = Kokkos::View<Scalar const*, typename matrix_type::device_type>;
    constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
    std::int64_t bad = none;
    Kokkos::parallel_reduce(
        "SpMVKit::ilu0::check_pivots", Range(exec, 0, n_),
        detail::Ilu0CheckPivots<decltype(starts_), positions_type, CValues, vector_type>{
            starts_, diag_, factors_, inv_,
            static_cast<double>(std::numeric_limits<Scalar>::max())},
        Kokkos::Min<std::int64_t>(bad));
    exec.fence();
    return bad == none ? -1 : bad;
  }

  [[noreturn]] void throw_pivot_error(std::int64_t bad, std::string const& where) const {
    Offset at = 0;
    Scalar pivot = 0;
    Kokkos::deep_copy(at, Kokkos::subview(diag_, bad));
    Kokkos::deep_copy(pivot, Kokkos::subview(factors_, static_cast<std::int64_t>(at)));
    const double p = static_cast<double>(pivot);
    const double m = p < 0 ? -p : p;
    const bool ic = kind_ == Ilu0Kind::ic0;
    const std::string entry =
        std::string(ic ? "L(" : "U(") + std::to_string(bad) + ", " + std::to_string(bad) + ")";
    const bool finite = m <= static_cast<double>(std::numeric_limits<Scalar>::max());
    const std::string what =
        p != 0 && finite ? "a non-finite factor entry in row " + std::to_string(bad) +
                               " (its pivot " + entry + " = " + detail::ilu0_number(p) + ")"
                         : std::string(p == 0 ? "a zero" : "a non-finite") + " pivot " + entry +
                               " = " + detail::ilu0_number(p) + " in row " + std::to_string(bad);
    if (sequential_) {
      throw std::invalid_argument(where + ": " + what + " in the sequential factorization" +
                                  shift_text() + "; " + (ic ? "IC(0)" : "ILU(0)") +
                                  " of this matrix does not exist");
    }
    throw std::invalid_argument(
        where + ": " + what + " after " + std::to_string(options_.factorization_sweeps) +
        " factorization sweeps" + shift_text() + "; " + (ic ? "IC(0)" : "ILU(0)") +
        " of this matrix does not exist or the sweeps have not converged (more "
        "factorization_sweeps may help)");
  }

  /// The shift part of the error messages, "" without a shift.
  std::string shift_text() const {
    if (shift_ == 0) return "";
    return std::string(options_.shift_on_breakdown ? " and raising the diagonal shift to "
                                                   : " with the diagonal shift ") +
           detail::ilu0_number(shift_);
  }

  /// Whether a choice of Ilu0Options (triangular_solve or factorization: automatic,
  /// sweeps or a one-thread kind) takes its one-thread kind: named, or automatic on
  /// a host space of at most ilu0_substitution_max_threads threads. The kind named
  /// on a device space, or a value outside the enum, throws.
  template <class Choice>
  static bool one_thread(ExecutionSpace const& exec, Choice choice, Choice kind, char const* option,
                         char const* kind_name, std::string const& where) {
    const std::string named = std::string("Ilu0Options::") + option;
    if (choice == kind) {
      if (!detail::is_host_space_v<ExecutionSpace>) {
        throw std::invalid_argument(where + ": " + named + " = " + kind_name +
                                    " runs on one thread and needs a host execution space, not " +
                                    ExecutionSpace::name() + " (use sweeps or automatic)");
      }
      return true;
    }
    if (choice != Choice::automatic && choice != Choice::sweeps) {
      throw std::invalid_argument(where + ": " + named + " is not one of automatic, sweeps, " +
                                  kind_name);
    }
    return choice == Choice::automatic && detail::is_host_space_v<ExecutionSpace> &&
           exec.concurrency() <= ilu0_substitution_max_threads;
  }

  /// apply() by substitution: one work item runs both triangles.
  void substitute(ExecutionSpace const& exec, vector_type const& r, vector_type const& z) const {
    using CValues = Kokkos::View<Scalar const*, typename matrix_type::device_type>;
    using Range = Kokkos::RangePolicy<ExecutionSpace>;
    auto const& t = triangles_;
    if (kind_ == Ilu0Kind::ic0) {
      Kokkos::parallel_for(
          "SpMVKit::ilu0::substitution", Range(exec, 0, 1),
          detail::Ilu0Substitution<false, positions_type, typename matrix_type::column_indices_type,
                                   CValues, vector_type>{t.lower, t.upper, t.lower_cols,
                                                         t.upper_cols, t.lower_vals, t.upper_vals,
                                                         inv_, r, z, n_});
    } else {
      Kokkos::parallel_for(
          "SpMVKit::ilu0::substitution", Range(exec, 0, 1),
          detail::Ilu0Substitution<true, positions_type, typename matrix_type::column_indices_type,
                                   CValues, vector_type>{t.lower, t.upper, t.lower_cols,
                                                         t.upper_cols, t.lower_vals, t.upper_vals,
                                                         inv_, r, z, n_});
    }
  }

  /// The factors split by triangle for substitute() (set-up).
  void split_triangles(ExecutionSpace const& exec) {
    using Cols = typename matrix_type::column_indices_type;
    using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    auto& t = triangles_;
    t.lower = detail::allocate_view<positions_type>(exec, "SpMVKit::ilu0::lower_starts", n_ + 1);
    t.upper = detail::allocate_view<positions_type>(exec, "SpMVKit::ilu0::upper_starts", n_ + 1);
    Kokkos::deep_copy(exec, Kokkos::subview(t.lower, 0), Offset(0));
    Kokkos::deep_copy(exec, Kokkos::subview(t.upper, 0), Offset(0));
    Kokkos::parallel_scan(
        "SpMVKit::ilu0::split_starts", Range(exec, 0, n_),
        detail::Ilu0SplitStarts<decltype(starts_), positions_type, positions_type>{
            starts_, diag_, t.lower, t.upper});
    Offset lower = 0, upper = 0;
    Kokkos::deep_copy(exec, lower, Kokkos::subview(t.lower, n_));
    Kokkos::deep_copy(exec, upper, Kokkos::subview(t.upper, n_));
    exec.fence();
    t.lower_cols = detail::allocate_view<Cols>(exec, "SpMVKit::ilu0::lower_columns", lower);
    t.upper_cols = detail::allocate_view<Cols>(exec, "SpMVKit::ilu0::upper_columns", upper);
    t.lower_vals = detail::allocate_view<values_type>(exec, "SpMVKit::ilu0::lower_values", lower);
    t.upper_vals = detail::allocate_view<values_type>(exec, "SpMVKit::ilu0::upper_values", upper);
    Kokkos::parallel_for("SpMVKit::ilu0::split_rows", Range(exec, 0, n_),
                         detail::Ilu0SplitRows<decltype(starts_), Cols, positions_type, values_type,
                                               positions_type, Cols, values_type, vector_type>{
                             starts_, cols_, diag_, factors_, t.lower, t.upper, t.lower_cols,
                             t.upper_cols, t.lower_vals, t.upper_vals, inv_, upper,
                             kind_ == Ilu0Kind::ilu0});
    exec.fence();
  }

  /// One triangular sweep (Lower: L's part, else U's), x_new from x_old or, first, from b.
  template <bool Lower, bool Unit>
  void sweep(ExecutionSpace const& exec, bool first, vector_type const& b, vector_type const& x_old,
             vector_type const& x_new) const {
    using CValues = Kokkos::View<Scalar const*, typename matrix_type::device_type>;
    using Range = Kokkos::RangePolicy<ExecutionSpace>;
    char const* label = Lower ? "SpMVKit::ilu0::lower_sweep" : "SpMVKit::ilu0::upper_sweep";
    if (first) {
      Kokkos::parallel_for(
          label, Range(exec, 0, n_),
          detail::Ilu0TriangularSweep<Lower, Unit, true, decltype(starts_), decltype(cols_),
                                      positions_type, CValues, vector_type>{
              starts_, cols_, diag_, factors_, inv_, b, x_old, x_new});
    } else {
      Kokkos::parallel_for(
          label, Range(exec, 0, n_),
          detail::Ilu0TriangularSweep<Lower, Unit, false, decltype(starts_), decltype(cols_),
                                      positions_type, CValues, vector_type>{
              starts_, cols_, diag_, factors_, inv_, b, x_old, x_new});
    }
  }

  Ilu0Kind kind_;
  Ilu0Options options_;
  double shift_ = 0;
  bool substitution_ = false;
  bool sequential_ = false;
  std::int64_t n_ = 0;
  typename matrix_type::row_starts_type starts_;
  typename matrix_type::column_indices_type cols_;
  positions_type diag_;
  values_type factors_;
  vector_type inv_;
  vector_type work_[2];
  /// Substitution only: the factors by triangle (strictly lower, strictly
  /// upper), each with its own row starts (n + 1), columns and values.
  struct Triangles {
    positions_type lower, upper;
    typename matrix_type::column_indices_type lower_cols, upper_cols;
    values_type lower_vals, upper_vals;
  } triangles_;
};

/// ILU(0) of A by Chow and Patel's fixed-point sweeps, applied by Jacobi-iterated
/// triangular solves (this header's documentation). Throws what the
/// Ilu0Preconditioner constructor throws. Synchronous.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Ilu0Preconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_ilu0(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
          Ilu0Options const& options = Ilu0Options()) {
  return Ilu0Preconditioner<Scalar, ExecutionSpace, Ordinal, Offset>(exec, A, options,
                                                                     Ilu0Kind::ilu0);
}

/// IC(0) of a symmetric positive definite A (Chow and Patel's symmetric
/// variant; apply() solves with L, then Lᵀ). Only A's lower triangle's values
/// are read; A's symmetry is not checked, its pattern's is. Throws what the
/// Ilu0Preconditioner constructor throws. Synchronous.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Ilu0Preconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_ic0(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
         Ilu0Options const& options = Ilu0Options()) {
  return Ilu0Preconditioner<Scalar, ExecutionSpace, Ordinal, Offset>(exec, A, options,
                                                                     Ilu0Kind::ic0);
}

} // namespace spmvkit

#endif
