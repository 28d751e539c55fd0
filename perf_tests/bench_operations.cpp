// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ops benchmark family (operations/transpose.hpp, spadd.hpp, assembly.hpp), on every matrix
// of the SpMV sweep:
//   ops/<p>/<matrix>/transpose/<spmvkit|kk>       Aᵀ (Kokkos Kernels' transpose_matrix as kk)
//   ops/<p>/<matrix>/spadd/<spmvkit|kk>           C = A + Aᵀ, symbolic and numeric phases
//   ops/<p>/<matrix>/spadd_numeric/<spmvkit|kk>   the numeric phase alone, on a kept structure
//   ops/<p>/<matrix>/assembly/spmvkit             assemble_crs from triplets: each entry of A
//                                                 split in two halves, the triplets shuffled
//   ops/<p>/<matrix>/assembly/sort_reduce         the same with sort_by_key + reduce by key
//                                                 (sort_reduce_assembly.hpp; Kokkos >= 4.3)
//   ops/<p>/<matrix>/refill/spmvkit               refill() of the same triplets
//   ops/<p>/fem_N<n>/element_assembly/<spmvkit|sort_reduce>, element_refill/spmvkit: the same
//                                                 from the FEM element loop's triplets (64 per
//                                                 row, in element order)
//   ops/<p>/fem_N<n>/element_refill/slots         that element loop on the device computing its
//                                                 values and adding them through the pattern's
//                                                 slot map (AssemblyPattern::adder), zeroing
//                                                 included
//   ops/<p>/<matrix>/spmv/spmvkit                 one y = A x (CRS, automatic kernel): the unit
//                                                 of the ratios, in the same run
// and the modes family (operations/spmv.hpp's modes and multi-vector products):
//   modes/<p>/<matrix>/<crs|auto>/<N|T>/k<k>[r]/spmvkit   y = op(A) x, x and y of k columns
//                                                 (LayoutLeft, or LayoutRight with the r; k = 1:
//                                                 rank-1 Views), CRS with its automatic kernel
//                                                 or the automatic format chosen for k columns
//                                                 (AutoOptions::columns = k)
//   modes/<p>/<matrix>/kk/<N|T>/k<k>[r]/kk        Kokkos Kernels' spmv("N" or "T"), rank 2 for
//                                                 k > 1 (cuSPARSE SpMV / SpMM with its TPL)
// N for k = 1, 4, 8, 16, 32, 64 in both layouts; T for k = 1 and 8 (LayoutLeft) and 8
// (LayoutRight). Counters: time_s, vs_k1 (time over the same mode's k = 1), vs_N (a T time over
// the N time of the same k and layout), kk_over (kk's time over this one, above 1: SpMVKit
// faster), gbs (matrix bytes once + x and y per column).
// Every result is checked before timing through products: Aᵀ x against Kokkos Kernels'
// transposed SpMV, (A + Aᵀ) x against A x + Aᵀ x, the assembled matrix times x against A x
// (relative 1e-12 in double, 1e-4 in float, of ‖·‖∞ against |A| |x|). Counters: time_s (median),
// nnz, nnz_out (the result's entries), spmv_ratio (time over the same run's SpMV, where the
// spmv benchmark of the matrix ran first: it is registered first).

#include "benchmarks.hpp"
#include "options.hpp"
#include "perf_common.hpp"
#include "sort_reduce_assembly.hpp"

#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/operations/assembly.hpp>
#include <spmvkit/operations/spadd.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/operations/transpose.hpp>
#include <spmvkit/problems/fem_problem.hpp>
#include <spmvkit/select/auto_matrix.hpp>

#include <KokkosKernels_Handle.hpp>
#include <KokkosKernels_config.h>
#include <KokkosSparse_spadd.hpp>
#include <KokkosSparse_spmv.hpp>
#if defined(KOKKOSKERNELS_VERSION)
#include <KokkosSparse_Utils.hpp>
#else
#include <KokkosKernels_SparseUtils.hpp>
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace spmvkit::perf {

namespace {

template <class KK>
KK kk_transpose(KK const& A) {
#if defined(KOKKOSKERNELS_VERSION)
  return KokkosSparse::Impl::transpose_matrix(A);
#else
  return KokkosKernels::Impl::transpose_matrix(A);
#endif
}

template <class Scalar>
using KKHandle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec,
                                                                  MemSpace, MemSpace>;

/// The times of the family's SpMV per matrix and precision, for spmv_ratio.
std::map<std::string, double>& spmv_times() {
  static std::map<std::string, double> times;
  return times;
}

/// max_i |y1_i − y2_i| / max_i (|A| |x|)_i over two results of one product.
template <class Scalar>
double relative_gap(Vector<Scalar> const& y1, Vector<Scalar> const& y2, Vector<Scalar> const& s) {
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y1);
  auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s);
  double gap = 0, scale = 0;
  for (std::size_t i = 0; i < h1.extent(0); ++i) {
    gap = std::max(gap, std::abs(static_cast<double>(h1(i)) - static_cast<double>(h2(i))));
    scale = std::max(scale, std::abs(static_cast<double>(hs(i))));
  }
  return scale > 0 ? gap / scale : gap;
}

template <class Scalar>
struct AbsValues {
  Kokkos::View<Scalar*, Device> v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const { v(k) = v(k) < 0 ? -v(k) : v(k); }
};

template <class Scalar>
struct AddInto {
  Kokkos::View<Scalar*, Device> from, to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) += from(i); }
};

/// |A| x for the checks' scale (x >= 0).
template <class Scalar>
Vector<Scalar> abs_product(Crs<Scalar> const& A, Vector<Scalar> const& x, bool transposed) {
  Crs<Scalar> B = clone(A);
  Kokkos::parallel_for("SpMVKit::perf::ops::abs",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, B.nnz()),
                       AbsValues<Scalar>{B.values()});
  Vector<Scalar> y("SpMVKit::perf::ops::scale", transposed ? A.num_cols() : A.num_rows());
  if (transposed) {
    KokkosSparse::spmv("T", Scalar(1), to_kokkos_kernels(B), x, Scalar(0), y);
  } else {
    spmv(Exec(), Scalar(1), B, x, Scalar(0), y);
  }
  Exec().fence();
  return y;
}

enum class Op {
  spmv,
  transpose,
  spadd,
  spadd_numeric,
  assembly,
  refill,
  element_assembly,
  element_refill
};
char const* op_name(Op op) {
  switch (op) {
  case Op::spmv: return "spmv";
  case Op::transpose: return "transpose";
  case Op::spadd: return "spadd";
  case Op::spadd_numeric: return "spadd_numeric";
  case Op::assembly: return "assembly";
  case Op::refill: return "refill";
  case Op::element_assembly: return "element_assembly";
  case Op::element_refill: return "element_refill";
  }
  return "?";
}

/// The triplets of A with each entry split into two halves, in a random order (fixed seed).
template <class Scalar>
struct Triplets {
  Kokkos::View<Ordinal*, Device> rows, cols;
  Kokkos::View<Scalar*, Device> values;
};

template <class Scalar>
Triplets<Scalar> split_triplets(Crs<Scalar> const& A) {
  auto rs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_starts());
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.column_indices());
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const std::int64_t n = 2 * static_cast<std::int64_t>(A.nnz());
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(42));
  Triplets<Scalar> t{Kokkos::View<Ordinal*, Device>("SpMVKit::perf::ops::rows", n),
                     Kokkos::View<Ordinal*, Device>("SpMVKit::perf::ops::cols", n),
                     Kokkos::View<Scalar*, Device>("SpMVKit::perf::ops::values", n)};
  auto hr = Kokkos::create_mirror_view(t.rows);
  auto hc = Kokkos::create_mirror_view(t.cols);
  auto hv = Kokkos::create_mirror_view(t.values);
  for (Ordinal i = 0; i < A.num_rows(); ++i) {
    for (auto k = rs(i); k < rs(i + 1); ++k) {
      for (int half = 0; half < 2; ++half) {
        const auto p = static_cast<std::size_t>(perm[static_cast<std::size_t>(2 * k + half)]);
        hr(p) = i;
        hc(p) = ci(k);
        hv(p) = va(k) / 2; // exact: halving a binary floating-point number
      }
    }
  }
  Kokkos::deep_copy(t.rows, hr);
  Kokkos::deep_copy(t.cols, hc);
  Kokkos::deep_copy(t.values, hv);
  return t;
}

/// The anchor of assembly is the sort-by-key + reduce-by-key baseline, of the others Kokkos
/// Kernels.
std::string impl_name(Op op, bool ours) {
  if (op == Op::element_refill) return ours ? "spmvkit" : "slots";
  return ours ? "spmvkit" : op == Op::assembly || op == Op::element_assembly ? "sort_reduce" : "kk";
}

/// The FEM matrix's element triplets in the order an element loop emits them: for each of the
/// N^3 cells (x fastest), the couplings of its interior corners (up to 8 x 8), the Q1 element
/// stiffness h e(d) with d the corners' differing coordinates. Summed they give the matrix's
/// weights h w(d): 8 cells share a node (e(0) = w(0) / 8), none share a face coupling (w(1) = 0),
/// 2 an edge (e(2) = w(2) / 2), 1 a diagonal (e(3) = w(3)).
template <class Scalar>
Triplets<Scalar> fem_element_triplets(std::int64_t N) {
  const FemPoisson p(N);
  const std::int64_t n = p.n;
  const double e[4] = {p.h * FemPoisson::stiffness_weight(0) / 8, 0.0,
                       p.h * FemPoisson::stiffness_weight(2) / 2,
                       p.h * FemPoisson::stiffness_weight(3)};
  // Per direction, cell c has corners c - 1 and c, interior when in [0, n).
  auto interior = [n](std::int64_t c) { return (c - 1 >= 0 ? 1 : 0) + (c < n ? 1 : 0); };
  std::int64_t per_direction = 0;
  for (std::int64_t c = 0; c < N; ++c) per_direction += interior(c) * interior(c);
  const std::int64_t count = per_direction * per_direction * per_direction;
  Triplets<Scalar> t{Kokkos::View<Ordinal*, Device>("SpMVKit::perf::ops::rows", count),
                     Kokkos::View<Ordinal*, Device>("SpMVKit::perf::ops::cols", count),
                     Kokkos::View<Scalar*, Device>("SpMVKit::perf::ops::values", count)};
  auto hr = Kokkos::create_mirror_view(t.rows);
  auto hc = Kokkos::create_mirror_view(t.cols);
  auto hv = Kokkos::create_mirror_view(t.values);
  std::int64_t k = 0;
  std::int64_t node[8][3];
  for (std::int64_t cz = 0; cz < N; ++cz) {
    for (std::int64_t cy = 0; cy < N; ++cy) {
      for (std::int64_t cx = 0; cx < N; ++cx) {
        int corners = 0;
        for (int c = 0; c < 8; ++c) {
          const std::int64_t x = cx - 1 + (c & 1), y = cy - 1 + ((c >> 1) & 1),
                             z = cz - 1 + (c >> 2);
          if (x < 0 || x >= n || y < 0 || y >= n || z < 0 || z >= n) continue;
          node[corners][0] = x;
          node[corners][1] = y;
          node[corners++][2] = z;
        }
        for (int a = 0; a < corners; ++a) {
          for (int b = 0; b < corners; ++b) {
            const int d = (node[a][0] != node[b][0]) + (node[a][1] != node[b][1]) +
                          (node[a][2] != node[b][2]);
            hr(k) = static_cast<Ordinal>(node[a][0] + n * (node[a][1] + n * node[a][2]));
            hc(k) = static_cast<Ordinal>(node[b][0] + n * (node[b][1] + n * node[b][2]));
            hv(k++) = static_cast<Scalar>(e[d]);
          }
        }
      }
    }
  }
  Kokkos::deep_copy(t.rows, hr);
  Kokkos::deep_copy(t.cols, hc);
  Kokkos::deep_copy(t.values, hv);
  return t;
}

/// The element loop of fem_element_triplets() on the device, adding through an assembly
/// pattern's slot map: one thread per (cell, corner pair), the value computed in the loop (as an
/// element loop computes its element matrix), the triplet index found from the cell's place.
template <class Adder, class Scalar>
struct FemElementLoop {
  Adder add;
  Kokkos::View<std::int64_t*, Device> before; ///< per direction: triplets of the cells before c
  std::int64_t N = 0, n = 0, S = 0;           ///< cells, interior nodes, before(N)
  Scalar e[4] = {};
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t q) const {
    const std::int64_t cell = q >> 6;
    const int a = static_cast<int>((q >> 3) & 7), b = static_cast<int>(q & 7);
    const std::int64_t c[3] = {cell % N, (cell / N) % N, cell / (N * N)};
    int corner[8], corners = 0;
    for (int k = 0; k < 8; ++k) {
      bool inside = true;
      for (int d = 0; d < 3; ++d) {
        const std::int64_t x = c[d] - 1 + ((k >> d) & 1);
        inside = inside && x >= 0 && x < n;
      }
      if (inside) corner[corners++] = k;
    }
    if (a >= corners || b >= corners) return;
    const int differing = ((corner[a] ^ corner[b]) & 1) + (((corner[a] ^ corner[b]) >> 1) & 1) +
                          ((corner[a] ^ corner[b]) >> 2);
    // Cells come z-major; a cell's triplet count is the product of its per-direction squares.
    const std::int64_t square_y = before(c[1] + 1) - before(c[1]),
                       square_z = before(c[2] + 1) - before(c[2]);
    const std::int64_t first =
        before(c[2]) * S * S + square_z * (before(c[1]) * S + square_y * before(c[0]));
    add(first + a * corners + b, e[differing]);
  }
};

template <class Scalar>
void bm_ops(benchmark::State& state, Options const& o, std::string const& name,
            MatrixSource const& source, Op op, bool ours) {
  try {
    Exec exec;
    Crs<Scalar> const& A = load_matrix<Scalar>(o, source);
    const double tol = sizeof(Scalar) == 8 ? 1e-12 : 1e-4;
    auto fail = [&](std::string const& why) {
      record_failure(name + ": " + why);
      state.SkipWithError((name + ": " + why).c_str());
    };
    // Non-negative x: |A| x is then the scale of the checks.
    Vector<Scalar> x = random_vector<Scalar>("ops::x", A.num_cols(), 7);
    Vector<Scalar> xt = random_vector<Scalar>("ops::xt", A.num_rows(), 8);
    for (auto const& v : {x, xt}) {
      Kokkos::parallel_for("SpMVKit::perf::ops::abs_x",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               0, static_cast<std::int64_t>(v.extent(0))),
                           AbsValues<Scalar>{v});
    }
    std::function<void()> run;
    std::int64_t nnz_out = A.nnz();

    // State kept between timed calls of one benchmark.
    Crs<Scalar> T;
    KKMatrix<Scalar> kkA = to_kokkos_kernels(A), kkT, kkC;
    SpaddHandle<Scalar, Exec> add;
    KKHandle<Scalar> kkh;
    AssemblyPattern<Exec> pattern;
    Triplets<Scalar> trip;
    Crs<Scalar> assembled;

    if (op == Op::spmv) {
      Vector<Scalar> y("SpMVKit::perf::ops::y", A.num_rows());
      run = [=] { spmv(exec, Scalar(1), A, x, Scalar(0), y); };
    } else if (op == Op::transpose) {
      // Check: Aᵀ x' by the transpose against Kokkos Kernels' transposed SpMV of A.
      Vector<Scalar> y1("SpMVKit::perf::ops::y1", A.num_cols()), y2("y2", A.num_cols());
      if (ours) {
        T = transpose(exec, A);
        spmv(exec, Scalar(1), T, xt, Scalar(0), y1);
        run = [&] { T = transpose(exec, A); };
      } else {
        kkT = kk_transpose(kkA);
        KokkosSparse::spmv("N", Scalar(1), kkT, xt, Scalar(0), y1);
        run = [&] { kkT = kk_transpose(kkA); };
      }
      KokkosSparse::spmv("T", Scalar(1), kkA, xt, Scalar(0), y2);
      exec.fence();
      const double gap = relative_gap(y1, y2, abs_product(A, xt, true));
      if (!(gap <= tol)) return fail("Aᵀ x differs from Kokkos Kernels' by " + std::to_string(gap));
    } else if (op == Op::spadd || op == Op::spadd_numeric) {
      if (A.num_rows() != A.num_cols()) { // not a failure: the pair has no sum
        state.SkipWithError((name + ": not square, no A + Aᵀ").c_str());
        return;
      }
      T = transpose(exec, A);
      kkT = to_kokkos_kernels(T);
      Vector<Scalar> y1("SpMVKit::perf::ops::y1", A.num_rows()), y2("y2", A.num_rows());
      if (ours) {
        spadd_symbolic(exec, A, T, add);
        spadd_numeric(exec, Scalar(1), A, Scalar(1), T, add);
        spmv(exec, Scalar(1), add.matrix(), x, Scalar(0), y1);
        nnz_out = add.nnz();
        run = op == Op::spadd ? std::function<void()>([&] {
          add = SpaddHandle<Scalar, Exec>();
          spadd_symbolic(exec, A, T, add);
          spadd_numeric(exec, Scalar(1), A, Scalar(1), T, add);
        })
                              : std::function<void()>(
                                    [&] { spadd_numeric(exec, Scalar(1), A, Scalar(1), T, add); });
      } else {
        // Unsorted input allowed: the real matrices' rows need not be sorted.
        kkh.create_spadd_handle(false);
        KokkosSparse::spadd_symbolic(&kkh, kkA, kkT, kkC);
        KokkosSparse::spadd_numeric(&kkh, Scalar(1), kkA, Scalar(1), kkT, kkC);
        // Kokkos Kernels 3.4's spadd_symbolic leaves C's column count unset.
        kkC = KKMatrix<Scalar>("SpMVKit::perf::ops::kk_C", A.num_cols(), kkC.values, kkC.graph);
        KokkosSparse::spmv("N", Scalar(1), kkC, x, Scalar(0), y1);
        nnz_out = kkC.nnz();
        run = op == Op::spadd
                  ? std::function<void()>([&] {
                      kkh.destroy_spadd_handle();
                      kkh.create_spadd_handle(false);
                      KokkosSparse::spadd_symbolic(&kkh, kkA, kkT, kkC);
                      KokkosSparse::spadd_numeric(&kkh, Scalar(1), kkA, Scalar(1), kkT, kkC);
                    })
                  : std::function<void()>([&] {
                      KokkosSparse::spadd_numeric(&kkh, Scalar(1), kkA, Scalar(1), kkT, kkC);
                    });
      }
      // (A + Aᵀ) x = A x + Aᵀ x
      spmv(exec, Scalar(1), A, x, Scalar(0), y2);
      spmv(exec, Scalar(1), T, x, Scalar(1), y2);
      exec.fence();
      Vector<Scalar> scale = abs_product(A, x, false);
      Kokkos::parallel_for("SpMVKit::perf::ops::scale",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               0, static_cast<std::int64_t>(scale.extent(0))),
                           AddInto<Scalar>{abs_product(A, x, true), scale});
      const double gap = relative_gap(y1, y2, scale);
      if (!(gap <= tol)) return fail("(A + Aᵀ) x differs by " + std::to_string(gap));
    } else {
      const bool elements = op == Op::element_assembly || op == Op::element_refill;
      if (elements && source.kind != MatrixSource::Kind::fem) {
        return fail("element triplets exist for the FEM Poisson matrices only");
      }
      trip = elements ? fem_element_triplets<Scalar>(source.fem_n) : split_triplets(A);
      if (ours || op == Op::element_refill) {
        assembled = assemble_crs(exec, A.num_rows(), A.num_cols(), trip.rows, trip.cols,
                                 trip.values, &pattern);
      } else {
#if SPMVKIT_PERF_HAS_SORT_BY_KEY
        assembled = sort_reduce_assembly<Scalar>(exec, A.num_rows(), A.num_cols(), trip.rows,
                                                 trip.cols, trip.values);
#endif
      }
      nnz_out = assembled.nnz();
      Vector<Scalar> y1("SpMVKit::perf::ops::y1", A.num_rows()), y2("y2", A.num_rows());
      spmv(exec, Scalar(1), assembled, x, Scalar(0), y1);
      spmv(exec, Scalar(1), A, x, Scalar(0), y2);
      exec.fence();
      const double gap = relative_gap(y1, y2, abs_product(A, x, false));
      if (!(gap <= tol)) return fail("the assembled A x differs by " + std::to_string(gap));
      if (op == Op::element_refill && !ours) {
        const FemPoisson p(source.fem_n);
        Kokkos::View<std::int64_t*, Device> before("SpMVKit::perf::ops::before", p.N + 1);
        auto hb = Kokkos::create_mirror_view(before);
        hb(0) = 0;
        for (std::int64_t c = 0; c < p.N; ++c) {
          const std::int64_t inside = (c - 1 >= 0 ? 1 : 0) + (c < p.n ? 1 : 0);
          hb(c + 1) = hb(c) + inside * inside;
        }
        Kokkos::deep_copy(before, hb);
        using Loop = FemElementLoop<decltype(pattern.adder(exec, assembled)), Scalar>;
        Loop loop{pattern.adder(exec, assembled), before, p.N, p.n, hb(p.N), {}};
        for (int d = 0; d < 4; ++d) { // as fem_element_triplets()
          const double sharing = d == 0 ? 8 : d == 2 ? 2 : 1;
          loop.e[d] = static_cast<Scalar>(p.h * FemPoisson::stiffness_weight(d) / sharing);
        }
        const std::int64_t pairs = 64 * p.N * p.N * p.N;
        run = [=, &pattern, &assembled] {
          Loop l = loop;
          l.add = pattern.adder(exec, assembled);
          Kokkos::parallel_for(
              "SpMVKit::perf::ops::element_loop",
              Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, pairs), l);
        };
        // The loop's sums against A x, as for the assembly.
        run();
        spmv(exec, Scalar(1), assembled, x, Scalar(0), y1);
        exec.fence();
        const double gap2 = relative_gap(y1, y2, abs_product(A, x, false));
        if (!(gap2 <= tol))
          return fail("the element loop's A x differs by " + std::to_string(gap2));
      } else if (op == Op::refill || op == Op::element_refill) {
        run = [&] { refill(exec, pattern, trip.values, assembled); };
      } else if (ours) {
        run = [&] {
          assembled = assemble_crs(exec, A.num_rows(), A.num_cols(), trip.rows, trip.cols,
                                   trip.values, &pattern);
        };
      } else {
#if SPMVKIT_PERF_HAS_SORT_BY_KEY
        run = [&] {
          assembled = sort_reduce_assembly<Scalar>(exec, A.num_rows(), A.num_cols(), trip.rows,
                                                   trip.cols, trip.values);
        };
#endif
      }
    }

    for (int i = 0; i < std::max(1, o.warmup); ++i) run();
    exec.fence();
    std::vector<double> times;
    for (auto _ : state) {
      exec.fence();
      Kokkos::Timer timer;
      run();
      exec.fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    const std::string key = name.substr(0, name.find("/" + std::string(op_name(op)) + "/"));
    if (op == Op::spmv) spmv_times()[key] = t;
    state.SetLabel(std::string("family=ops;op=") + op_name(op) + ";impl=" + impl_name(op, ours));
    state.counters["time_s"] = t;
    state.counters["rows"] = static_cast<double>(A.num_rows());
    state.counters["nnz"] = static_cast<double>(A.nnz());
    state.counters["nnz_out"] = static_cast<double>(nnz_out);
    state.counters["fem_N"] = source.fem_n;
    state.counters["sizeof_scalar"] = sizeof(Scalar);
    auto it = spmv_times().find(key);
    if (op != Op::spmv && it != spmv_times().end() && it->second > 0) {
      state.counters["spmv_ratio"] = t / it->second;
    }
  } catch (std::exception const& e) {
    record_failure(name + ": " + e.what());
    state.SkipWithError((name + ": " + e.what()).c_str());
  }
}

/// Times of the modes family, keyed <matrix>/<impl>/<mode>/<k>[r], for its ratios.
std::map<std::string, double>& mode_times() {
  static std::map<std::string, double> times;
  return times;
}

template <class Scalar, class Layout>
using Columns = Kokkos::View<Scalar**, Layout, Device>;

/// One column of a block as a contiguous Vector (a copy).
template <class Scalar, class Layout>
Vector<Scalar> column_of(Columns<Scalar, Layout> const& v, int c) {
  Vector<Scalar> out("SpMVKit::perf::modes::column", v.extent(0));
  Kokkos::deep_copy(out, Kokkos::subview(v, Kokkos::ALL, c));
  return out;
}

/// impl: "crs", "auto" (ours) or "kk".
template <class Scalar, class Layout>
void bm_modes(benchmark::State& state, Options const& o, std::string const& name,
              MatrixSource const& source, std::string const& impl, bool transposed, int k) {
  try {
    Exec exec;
    Crs<Scalar> const& A = load_matrix<Scalar>(o, source);
    const SpmvMode mode = transposed ? SpmvMode::transpose : SpmvMode::none;
    const std::int64_t xr = transposed ? A.num_rows() : A.num_cols();
    const std::int64_t yr = transposed ? A.num_cols() : A.num_rows();
    using Block = Columns<Scalar, Layout>;
    Block X(Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::perf::modes::x"), xr, k);
    Block Y("SpMVKit::perf::modes::y", yr, k);
    // Non-negative x: |A| |x| is then the scale of the check.
    Vector<Scalar> flat(X.data(), X.span());
    fill_random(flat, 11);
    Kokkos::parallel_for("SpMVKit::perf::modes::abs_x",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                             0, static_cast<std::int64_t>(flat.extent(0))),
                         AbsValues<Scalar>{flat});
    constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
    const char* kk_mode = transposed ? "T" : "N";
    KKMatrix<Scalar> kkA = to_kokkos_kernels(A);
    using AutoM = AutoMatrix<Scalar, Exec>;
    AutoM M;
    if (impl == "auto") {
      AutoOptions chosen_for;
      chosen_for.columns = k;
      M = make_auto_matrix(exec, A, chosen_for);
    }
    std::function<void()> run;
    if (impl == "kk") {
      run = [&] { KokkosSparse::spmv(kk_mode, Scalar(1), kkA, X, Scalar(0), Y); };
    } else if (impl == "auto") {
      run = [&] { spmv(exec, mode, Scalar(1), M, X, Scalar(0), Y); };
    } else {
      run = [&] { spmv(exec, mode, Scalar(1), A, X, Scalar(0), Y); };
    }
    // k = 1 (LayoutLeft only): rank-1 Views, the product users of one vector call.
    if constexpr (!right) {
      auto x1 = Kokkos::subview(X, Kokkos::ALL, 0);
      auto y1 = Kokkos::subview(Y, Kokkos::ALL, 0);
      if (k == 1 && impl == "kk") {
        run = [&, x1, y1] { KokkosSparse::spmv(kk_mode, Scalar(1), kkA, x1, Scalar(0), y1); };
      } else if (k == 1 && impl == "auto") {
        run = [&, x1, y1] { spmv(exec, mode, Scalar(1), M, x1, Scalar(0), y1); };
      } else if (k == 1) {
        run = [&, x1, y1] { spmv(exec, mode, Scalar(1), A, x1, Scalar(0), y1); };
      }
    }
    // Check: the first and last columns against Kokkos Kernels' rank-1 product.
    run();
    const double tol = sizeof(Scalar) == 8 ? 1e-12 : 1e-4;
    for (int c : {0, k - 1}) {
      Vector<Scalar> xc = column_of(X, c), want("SpMVKit::perf::modes::want", yr);
      KokkosSparse::spmv(kk_mode, Scalar(1), kkA, xc, Scalar(0), want);
      exec.fence();
      const double gap = relative_gap(column_of(Y, c), want, abs_product(A, xc, transposed));
      if (!(gap <= tol)) {
        const std::string why =
            name + ": column " + std::to_string(c) + " differs by " + std::to_string(gap);
        record_failure(why);
        state.SkipWithError(why.c_str());
        return;
      }
    }
    for (int i = 0; i < std::max(1, o.warmup); ++i) run();
    exec.fence();
    std::vector<double> times;
    for (auto _ : state) {
      exec.fence();
      Kokkos::Timer timer;
      run();
      exec.fence();
      const double t = timer.seconds();
      state.SetIterationTime(t);
      times.push_back(t);
    }
    const double t = median(times);
    const std::string key = source.name + "/" + impl + "/" + kk_mode;
    const std::string columns = std::to_string(k) + (right ? "r" : "");
    mode_times()[key + "/" + columns] = t;
    // The kernel that ran: CRS's automatic kernel, or the automatic format's variant (Aᵀ x
    // runs the kept transposed twin's, which may differ: "transposed_twin"); "kk" for Kokkos
    // Kernels in both modes.
    std::string kernel = transposed && impl != "kk" ? "transposed_twin" : "kk";
    if (impl == "crs" && !transposed)
      kernel = CrsFormat::name(detail::automatic_crs_kernel(exec, A.statistics(exec)));
    if (impl == "auto" && !transposed) kernel = M.selection().format;
    state.SetLabel(std::string("family=modes;impl=") + impl + ";mode=" + kk_mode +
                   ";k=" + std::to_string(k) + ";layout=" + (right ? "right" : "left") +
                   ";kernel=" + kernel);
    state.counters["time_s"] = t;
    state.counters["k"] = k;
    state.counters["rows"] = static_cast<double>(A.num_rows());
    state.counters["nnz"] = static_cast<double>(A.nnz());
    state.counters["fem_N"] = source.fem_n;
    const double bytes = static_cast<double>(A.nnz()) * (sizeof(Scalar) + sizeof(Ordinal)) +
                         static_cast<double>(A.num_rows() + 1) * sizeof(Offset) +
                         static_cast<double>(k) * static_cast<double>(xr + yr) * sizeof(Scalar);
    state.counters["gbs"] = bytes / t * 1e-9;
    auto find = [&](std::string const& which) {
      auto it = mode_times().find(which);
      return it == mode_times().end() ? 0.0 : it->second;
    };
    if (const double t1 = find(key + "/1"); k > 1 && t1 > 0) state.counters["vs_k1"] = t / t1;
    if (const double tn = find(source.name + "/" + impl + "/N/" + columns); transposed && tn > 0)
      state.counters["vs_N"] = t / tn;
    if (const double tk = find(source.name + "/kk/" + kk_mode + "/" + columns);
        impl != "kk" && tk > 0)
      state.counters["kk_over"] = tk / t;
  } catch (std::exception const& e) {
    record_failure(name + ": " + e.what());
    state.SkipWithError((name + ": " + e.what()).c_str());
  }
}

} // namespace

template <class Scalar>
void register_ops_benchmarks(std::shared_ptr<const Options> const& options,
                             MatrixSource const& source) {
  Options const& o = *options;
  if (!source.in_sweep) return;
  if (o.has_family("modes")) {
    // kk first, so that each of ours finds its anchor in the same run.
    for (std::string impl : {"kk", "crs", "auto"}) {
      for (bool transposed : {false, true}) {
        for (bool right : {false, true}) {
          std::vector<int> ks =
              transposed ? std::vector<int>{1, 8} : std::vector<int>{1, 4, 8, 16, 32, 64};
          if (right) ks.erase(ks.begin()); // k = 1 takes rank-1 Views
          for (int k : ks) {
            const std::string name = std::string("modes/") + precision_name<Scalar>() + "/" +
                                     source.name + "/" + impl + "/" + (transposed ? "T" : "N") +
                                     "/k" + std::to_string(k) + (right ? "r" : "") + "/" +
                                     (impl == "kk" ? "kk" : "spmvkit");
            benchmark::RegisterBenchmark(
                name.c_str(),
                [options, name, source, impl, transposed, right, k](benchmark::State& st) {
                  if (right) {
                    bm_modes<Scalar, Kokkos::LayoutRight>(st, *options, name, source, impl,
                                                          transposed, k);
                  } else {
                    bm_modes<Scalar, Kokkos::LayoutLeft>(st, *options, name, source, impl,
                                                         transposed, k);
                  }
                })
                ->UseManualTime()
                ->MinTime(o.min_time)
                ->Repetitions(std::min(o.repetitions, 3))
                ->ReportAggregatesOnly(true)
                ->Unit(benchmark::kMillisecond);
          }
        }
      }
    }
  }
  if (!o.has_family("ops")) return;
  std::vector<std::pair<Op, bool>> runs{
      {Op::spmv, true},           {Op::transpose, true}, {Op::transpose, false},
      {Op::spadd, true},          {Op::spadd, false},    {Op::spadd_numeric, true},
      {Op::spadd_numeric, false}, {Op::assembly, true},  {Op::refill, true}};
  if (SPMVKIT_PERF_HAS_SORT_BY_KEY) runs.emplace_back(Op::assembly, false);
  if (source.kind == MatrixSource::Kind::fem) { // not elasticity: its elements differ
    runs.emplace_back(Op::element_assembly, true);
    runs.emplace_back(Op::element_refill, true);
    runs.emplace_back(Op::element_refill, false);
    if (SPMVKIT_PERF_HAS_SORT_BY_KEY) runs.emplace_back(Op::element_assembly, false);
  }
  for (auto const& [op, ours] : runs) {
    const std::string name = std::string("ops/") + precision_name<Scalar>() + "/" + source.name +
                             "/" + op_name(op) + "/" + impl_name(op, ours);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [options, name, source, op = op, ours = ours](benchmark::State& st) {
          bm_ops<Scalar>(st, *options, name, source, op, ours);
        })
        ->UseManualTime()
        ->MinTime(o.min_time)
        ->Repetitions(std::min(o.repetitions, 3))
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  }
}

template void register_ops_benchmarks<double>(std::shared_ptr<const Options> const&,
                                              MatrixSource const&);
template void register_ops_benchmarks<float>(std::shared_ptr<const Options> const&,
                                             MatrixSource const&);

} // namespace spmvkit::perf
