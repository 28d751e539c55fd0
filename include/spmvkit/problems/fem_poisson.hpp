#ifndef SPMVKIT_FEM_POISSON_HPP
#define SPMVKIT_FEM_POISSON_HPP

#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

/// The founding study's model problem: -Δu = f on the unit cube with
/// homogeneous Dirichlet conditions, trilinear (Q1) hexahedral elements on a
/// uniform mesh of N intervals per direction. The unknowns are the (N-1)^3
/// interior nodes, numbered x fastest: row = i + n*(j + n*k), n = N-1, node
/// (i, j, k) at ((i+1)h, (j+1)h, (k+1)h), h = 1/N.
///
/// Everything is assembled on the execution space. Because the mesh is
/// uniform, an interior row is a fixed 27-point stencil cut off at the
/// boundary, and every entry depends only on how many coordinates differ
/// between the two nodes (0: same node, 1: face, 2: edge, 3: corner
/// neighbour). The assembled Q1 stencils are tensor products of the 1D ones
/// (stiffness [-1 2 -1]/h, mass h[1 4 1]/6):
///
///   stiffness  h * ( 8/3,  0,    -1/6,  -1/12 )
///   mass     h^3 * ( 8/27, 2/27, 1/54,  1/216 )   (= h^3 (2/3)^(3-d) (1/6)^d)
///
/// The face couplings of the stiffness matrix are exactly zero but belong to
/// the element connectivity, so they are stored: a row has 8, 12, 18 or 27
/// entries and nnz = (3n - 2)^3, the pattern a general FEM code would produce.
///
/// With u = sin(πx)sin(πy)sin(πz), f = 3π²u and the consistent right-hand side
/// b = M f, the nodal samples of u are an eigenvector of both K and M, so the
/// discrete solution is exactly c_h * u at the nodes with
/// c_h = (πh)²(2 + cos πh) / (3 (2 - 2 cos πh)) = 1 - (πh)²/12 + O(h⁴):
/// second-order nodal error, known in closed form (FemPoisson::predicted_l2_error).
/// A consequence worth knowing: CG started from zero converges in one
/// iteration on this problem. To time CG realistically, start it from
/// fem_poisson_rough_guess(), which excites every mode.
namespace spmvkit {

/// Sizes of the FEM Poisson problem with N intervals per direction.
struct FemPoisson {
  std::int64_t N = 0;        ///< intervals per direction
  std::int64_t n = 0;        ///< interior nodes per direction, N - 1
  double h = 0;              ///< mesh width 1/N
  std::int64_t num_rows = 0; ///< (N-1)^3 unknowns
  std::int64_t nnz = 0;      ///< (3n-2)^3 stored entries, zero face couplings included

  explicit FemPoisson(std::int64_t intervals) : N(intervals) {
    if (intervals < 2) {
      throw std::invalid_argument(
          "spmvkit::FemPoisson: N (intervals per direction) must be >= 2 so that there is an "
          "interior node, got " +
          std::to_string(intervals));
    }
    // Keeps (3n-2)^3 well inside int64; such a mesh would need terabytes anyway.
    if (intervals > 100000) {
      throw std::length_error("spmvkit::FemPoisson: N = " + std::to_string(intervals) +
                              " is too large (max 100000)");
    }
    n = N - 1;
    h = 1.0 / static_cast<double>(N);
    num_rows = n * n * n;
    nnz = (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
  }

  /// Stiffness entry between two nodes whose coordinates differ in `differing`
  /// (0..3) directions; multiply by h.
  // KOKKOS_INLINE_FUNCTION rather than constexpr: nvcc only calls constexpr
  // host functions from kernels with --expt-relaxed-constexpr.
  KOKKOS_INLINE_FUNCTION static double stiffness_weight(int differing) {
    return differing == 0   ? 8.0 / 3.0
           : differing == 1 ? 0.0
           : differing == 2 ? -1.0 / 6.0
                            : -1.0 / 12.0;
  }
  /// Consistent mass entry, likewise; multiply by h^3.
  KOKKOS_INLINE_FUNCTION static double mass_weight(int differing) {
    return differing == 0   ? 8.0 / 27.0
           : differing == 1 ? 2.0 / 27.0
           : differing == 2 ? 1.0 / 54.0
                            : 1.0 / 216.0;
  }

  /// The factor c_h with u_h = c_h * u(x_i) at every node (exact solve).
  double discrete_solution_factor() const {
    const double pi = 3.14159265358979323846;
    const double c = std::cos(pi * h);
    return (pi * h) * (pi * h) * (2.0 + c) / (3.0 * (2.0 - 2.0 * c));
  }
  /// Nodal L2 error of the exact discrete solution: |c_h - 1| * ||u||_h with
  /// ||u||_h = (1/2)^(3/2), since h * sum_i sin²(π i h) = 1/2 for any N.
  double predicted_l2_error() const {
    return std::fabs(discrete_solution_factor() - 1.0) * std::pow(0.5, 1.5);
  }
};

/// Vector type used for the right-hand side, the exact solution and the guess.
template <class Scalar, class ExecSpace>
using fem_vector_t =
    Kokkos::View<Scalar*, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>>;

namespace detail {

// sin(π t): Kokkos 3.4 keeps its math functions in Experimental; 3.7 moved them
// to Kokkos:: and 4.x dropped the old names.
KOKKOS_INLINE_FUNCTION double fem_sin_pi(double t) {
  constexpr double pi = 3.14159265358979323846;
#if KOKKOS_VERSION >= 30700
  return Kokkos::sin(pi * t);
#else
  return Kokkos::Experimental::sin(pi * t);
#endif
}

/// Calls f(column, differing_coordinates) for every stored coupling of `row`,
/// in increasing column order (z slowest, x fastest, like the numbering).
template <class F>
KOKKOS_INLINE_FUNCTION void for_each_fem_coupling(std::int64_t n, std::int64_t row, F&& f) {
  const std::int64_t i = row % n, j = (row / n) % n, k = row / (n * n);
  for (int dk = -1; dk <= 1; ++dk) {
    if (k + dk < 0 || k + dk >= n) continue;
    for (int dj = -1; dj <= 1; ++dj) {
      if (j + dj < 0 || j + dj >= n) continue;
      for (int di = -1; di <= 1; ++di) {
        if (i + di < 0 || i + di >= n) continue;
        f((i + di) + n * ((j + dj) + n * (k + dk)), (di != 0) + (dj != 0) + (dk != 0));
      }
    }
  }
}

KOKKOS_INLINE_FUNCTION std::int64_t fem_row_length(std::int64_t n, std::int64_t row) {
  const std::int64_t i = row % n, j = (row / n) % n, k = row / (n * n);
  auto per_direction = [n](std::int64_t a) -> std::int64_t {
    return 1 + (a > 0 ? 1 : 0) + (a < n - 1 ? 1 : 0);
  };
  return per_direction(i) * per_direction(j) * per_direction(k);
}

/// The FEM matrix as a row source (core/format_concept.hpp): row lengths in
/// closed form and each row's couplings in sorted column order, so that every
/// format assembles it directly (Format::from_rows), with no CRS copy.
template <class Scalar, class Ordinal, class Offset>
struct FemRowSource {
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  std::int64_t n;
  Scalar weight[4]; // h * stiffness_weight(d)
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    return static_cast<Ordinal>(fem_row_length(n, row));
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    for_each_fem_coupling(n, row, [&](std::int64_t col, int differing) {
      f(static_cast<Ordinal>(col), weight[differing]);
    });
  }
};

/// b = M f with f = 3π² sin(πx)sin(πy)sin(πz) at the nodes. Boundary nodes
/// would contribute M_ij f_j with f_j = 0 exactly (sin 0 = sin π = 0), so only
/// interior neighbours are summed; evaluating sin(π) in floating point would
/// only add rounding noise of 1e-16.
struct FemRhs {
  std::int64_t n;
  double h;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    constexpr double pi = 3.14159265358979323846;
    const std::int64_t i = row % n, j = (row / n) % n, k = row / (n * n);
    // Nodal sines of the 3 x 3 neighbourhood in each direction: 9 sin calls
    // instead of 27 x 3.
    double sx[3], sy[3], sz[3];
    for (int d = 0; d < 3; ++d) {
      sx[d] = fem_sin_pi(static_cast<double>(i + d) * h);
      sy[d] = fem_sin_pi(static_cast<double>(j + d) * h);
      sz[d] = fem_sin_pi(static_cast<double>(k + d) * h);
    }
    double sum = 0;
    for_each_fem_coupling(n, row, [&](std::int64_t col, int differing) {
      const std::int64_t ci = col % n, cj = (col / n) % n, ck = col / (n * n);
      sum += FemPoisson::mass_weight(differing) * sx[ci - i + 1] * sy[cj - j + 1] * sz[ck - k + 1];
    });
    return 3.0 * pi * pi * h * h * h * sum;
  }
};

/// u = sin(πx)sin(πy)sin(πz) at the node of `row`.
struct FemExact {
  std::int64_t n;
  double h;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    const std::int64_t i = row % n, j = (row / n) % n, k = row / (n * n);
    return fem_sin_pi(static_cast<double>(i + 1) * h) * fem_sin_pi(static_cast<double>(j + 1) * h) *
           fem_sin_pi(static_cast<double>(k + 1) * h);
  }
};

template <class Vector>
struct FemSquaredError {
  Vector u_h;
  FemExact exact;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row, double& sum) const {
    const double e = static_cast<double>(u_h(row)) - exact(row);
    sum += e * e;
  }
};

/// Deterministic values in [0, 1) from the row index (SplitMix64), the same on
/// every backend and thread count.
struct FemRoughGuess {
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(row + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
  }
};

template <class ExecSpace>
using FemRange64 = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;

/// v(row) = f(row). The nodal functions work in double and the result is
/// rounded to Scalar only when stored, so float and double vectors agree to
/// rounding.
template <class Vector, class NodalFunction>
struct FemSample {
  Vector v;
  NodalFunction f;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    v(row) = static_cast<typename Vector::value_type>(f(row));
  }
};

/// A vector over the unknowns of p holding f at every node; `label` names both
/// the View and the kernel.
template <class Scalar, class ExecSpace, class NodalFunction>
fem_vector_t<Scalar, ExecSpace> fem_sample(ExecSpace const& exec, FemPoisson const& p,
                                           std::string const& label, NodalFunction const& f) {
  using Vector = fem_vector_t<Scalar, ExecSpace>;
  auto v = allocate_view<Vector>(exec, label, p.num_rows);
  Kokkos::parallel_for(label, FemRange64<ExecSpace>(exec, 0, p.num_rows),
                       FemSample<Vector, NodalFunction>{v, f});
  return v;
}

template <class Scalar>
void fem_stiffness_weights(double h, Scalar (&weight)[4]) {
  for (int d = 0; d < 4; ++d) weight[d] = static_cast<Scalar>(h * FemPoisson::stiffness_weight(d));
}

} // namespace detail

/// Assembles the FEM stiffness matrix in any format on `exec`, straight from
/// its row source (Format::from_rows): nothing is built on the host and no
/// CRS copy is made for other formats. Throws std::invalid_argument for N < 2,
/// std::length_error when the problem does not fit Ordinal (rows) or Offset
/// (nonzeros), and what Format::from_rows throws (e.g. a format that cannot
/// represent the matrix).
template <class Format, class Scalar, class ExecSpace, class Ordinal = int, class Offset = int>
matrix_of_t<Format, Scalar, ExecSpace, Ordinal, Offset>
make_fem_poisson(ExecSpace const& exec, std::int64_t N,
                 typename Format::options_type const& options = {}) {
  constexpr char const* where = "spmvkit::make_fem_poisson";
  const FemPoisson p(N);
  detail::checked_index<Ordinal>(p.num_rows, "number of unknowns (N-1)^3", where);
  detail::checked_index<Offset>(p.nnz, "nonzeros (3N-5)^3", where);
  detail::FemRowSource<Scalar, Ordinal, Offset> source{p.n, {}};
  detail::fem_stiffness_weights(p.h, source.weight);
  return Format::from_rows(exec, p.num_rows, p.num_rows, source, options);
}

/// The FEM stiffness matrix in CRS (make_fem_poisson<CrsFormat>).
template <class Scalar, class ExecSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecSpace, Ordinal, Offset> make_fem_poisson_crs(ExecSpace const& exec,
                                                                   std::int64_t N) {
  return make_fem_poisson<CrsFormat, Scalar, ExecSpace, Ordinal, Offset>(exec, N);
}

/// The FEM stiffness matrix in SELL-C-σ (make_fem_poisson<SellFormat>): the
/// same chunking, σ-window sort and padding as make_sell() of the CRS assembly
/// (the result is identical entry for entry).
template <class Scalar, class ExecSpace, class Ordinal = int, class Offset = int>
SellMatrix<Scalar, ExecSpace, Ordinal, Offset> make_fem_poisson_sell(ExecSpace const& exec,
                                                                     std::int64_t N, int chunk_size,
                                                                     std::int64_t sigma = 1) {
  // SellOptions reads C = 0 as "the backend's default"; this function asks for an explicit C.
  if (chunk_size < 1) {
    throw std::invalid_argument("spmvkit::make_fem_poisson_sell: chunk size C must be >= 1, got " +
                                std::to_string(chunk_size));
  }
  return make_fem_poisson<SellFormat, Scalar, ExecSpace, Ordinal, Offset>(
      exec, N, SellOptions{chunk_size, sigma});
}

/// Right-hand side b = M f (consistent Q1 mass matrix times the nodal values
/// of f = 3π² sin(πx)sin(πy)sin(πz)), computed in double and rounded to Scalar.
template <class Scalar, class ExecSpace>
fem_vector_t<Scalar, ExecSpace> fem_poisson_rhs(ExecSpace const& exec, std::int64_t N) {
  const FemPoisson p(N);
  return detail::fem_sample<Scalar>(exec, p, "SpMVKit::fem_poisson::rhs", detail::FemRhs{p.n, p.h});
}

/// The exact solution u = sin(πx)sin(πy)sin(πz) at the interior nodes.
template <class Scalar, class ExecSpace>
fem_vector_t<Scalar, ExecSpace> fem_poisson_exact(ExecSpace const& exec, std::int64_t N) {
  const FemPoisson p(N);
  return detail::fem_sample<Scalar>(exec, p, "SpMVKit::fem_poisson::exact",
                                    detail::FemExact{p.n, p.h});
}

/// A reproducible rough start in [0, 1) for CG: the zero start converges in
/// one iteration on this problem (b is an eigenvector of K), a rough one needs
/// the O(N) iterations of a general right-hand side.
template <class Scalar, class ExecSpace>
fem_vector_t<Scalar, ExecSpace> fem_poisson_rough_guess(ExecSpace const& exec, std::int64_t N,
                                                        std::uint64_t seed = 1) {
  const FemPoisson p(N);
  return detail::fem_sample<Scalar>(exec, p, "SpMVKit::fem_poisson::rough_guess",
                                    detail::FemRoughGuess{seed});
}

/// Nodal L2 error sqrt(h^3 * sum_i (u_h,i - u(x_i))^2), accumulated in double
/// on `exec`. u_h is any rank-1 View of (N-1)^3 entries accessible from exec.
template <class ExecSpace, class UView>
double fem_poisson_l2_error(ExecSpace const& exec, std::int64_t N, UView const& u_h) {
  const FemPoisson p(N);
  if (static_cast<std::int64_t>(u_h.extent(0)) != p.num_rows) {
    throw std::invalid_argument("spmvkit::fem_poisson_l2_error: u_h has " +
                                std::to_string(u_h.extent(0)) + " entries, the problem has " +
                                std::to_string(p.num_rows));
  }
  using Const = Kokkos::View<typename UView::const_value_type*, typename UView::array_layout,
                             typename UView::device_type>;
  double sum = 0;
  Kokkos::parallel_reduce("SpMVKit::fem_poisson::l2_error",
                          detail::FemRange64<ExecSpace>(exec, 0, p.num_rows),
                          detail::FemSquaredError<Const>{u_h, {p.n, p.h}}, sum);
  return std::sqrt(p.h * p.h * p.h * sum);
}

} // namespace spmvkit

#endif
