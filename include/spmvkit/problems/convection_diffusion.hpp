// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_CONVECTION_DIFFUSION_HPP
#define SPMVKIT_PROBLEMS_CONVECTION_DIFFUSION_HPP

#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/problems/detail/convection_diffusion_kernels.hpp>
#include <spmvkit/problems/fem_problem.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

/// \file
/// A nonsymmetric test problem: -ε Δu + w·∇u = f on the unit square (2D) or
/// unit cube (3D) with homogeneous Dirichlet conditions, finite differences on
/// a uniform grid of N intervals per direction (h = 1/N), central second
/// differences for the diffusion and first-order upwind differences for the
/// convection. The unknowns are the n^d interior nodes, n = N-1, numbered x
/// fastest: row = i + n*(j + n*k), node (i, j, k) at ((i+1)h, (j+1)h, (k+1)h).
///
/// The wind w is constant. The mesh Peclet number Pe = |w| h / (2ε) is the
/// parameter: it fixes ε = |w| h / (2 Pe) (so only the direction of w matters,
/// ŵ = w/|w|), and each row is multiplied by h²/ε, which makes every entry
/// independent of N:
///
/// \verbatim
///   diagonal                2d + 2 Pe (|ŵ_1| + ... + |ŵ_d|)
///   neighbour at x - h e_a  -1 - 2 Pe max(ŵ_a, 0)     (upwind when ŵ_a > 0)
///   neighbour at x + h e_a  -1 - 2 Pe max(-ŵ_a, 0)    (upwind when ŵ_a < 0)
/// \endverbatim
///
/// Pe = 0 is pure diffusion: the 5-point (2D) or 7-point (3D) Laplacian
/// [2d, -1, ..., -1], symmetric. Pe of order 1 and above is convection
/// dominated and strongly nonsymmetric; the entries grow like Pe, the scale
/// of the convection term. To keep ε fixed while refining instead, pass
/// Pe = |w| / (2 ε N).
///
/// For every Pe >= 0 the matrix is an M-matrix thanks to the upwinding: a
/// positive diagonal, nonpositive off-diagonal entries, zero row sums in
/// interior rows and strict diagonal dominance in rows next to the boundary,
/// which with the connected grid makes it irreducibly diagonally dominant
/// (the stored entries, rounded to Scalar, keep this up to that rounding:
/// interior row sums are zero up to a few ulps of the diagonal).
/// Central differences for the convection would lose this at Pe > 1.
///
/// A row has 2d+1 entries in the interior, fewer at the boundary; nnz is
/// n^d + 2d (n-1) n^(d-1): 5n² - 4n in 2D, 7n³ - 6n² in 3D.
///
/// For solver tests, convection_diffusion_solution() is the manufactured
/// u* = prod_a sin(π x_a) at the nodes and convection_diffusion_rhs() is
/// b = A u*, computed from A's entries, so that u* solves A x = b up to the
/// rounding of b (not merely up to the discretisation error).
namespace spmvkit {

/// The convection-diffusion problem: dimension, grid, mesh Peclet number and
/// wind direction, with its sizes and stencil (the header's documentation says
/// what the problem is).
struct ConvectionDiffusion {
  int dimension = 2;            ///< 2 (unit square) or 3 (unit cube)
  std::int64_t N = 0;           ///< intervals per direction
  double peclet = 0;            ///< mesh Peclet number |w| h / (2ε), >= 0
  std::array<double, 3> wind{}; ///< wind direction w/|w| (unit length; wind[2] = 0 in 2D)
  std::int64_t n = 0;           ///< interior nodes per direction, N - 1
  double h = 0;                 ///< mesh width 1/N
  std::int64_t num_rows = 0;    ///< n^d unknowns
  std::int64_t nnz = 0;         ///< n^d + 2d (n-1) n^(d-1) stored entries

  /// The problem with the default wind (1, 1) / √2 in 2D, (1, 1, 1) / √3 in 3D.
  ///
  /// Throws what the constructor with a wind throws.
  ConvectionDiffusion(int dim, std::int64_t intervals, double mesh_peclet)
      : ConvectionDiffusion(dim, intervals, mesh_peclet, {1.0, 1.0, dim == 3 ? 1.0 : 0.0}) {}

  /// The problem with wind direction `wind_direction`, any nonzero length (it
  /// is normalised: Pe sets |w|/ε).
  ///
  /// Throws std::invalid_argument, naming the parameter and its value, for a
  /// dimension other than 2 or 3, N < 2 (no interior node), a peclet that is
  /// negative or not finite, and a wind that is not finite, all zero, or has
  /// a nonzero third component in 2D. Throws std::length_error when n^d or
  /// nnz does not fit a 64-bit count (the matrix assembly then checks them
  /// against its Ordinal and Offset).
  ConvectionDiffusion(int dim, std::int64_t intervals, double mesh_peclet,
                      std::array<double, 3> const& wind_direction)
      : dimension(dim), N(intervals), peclet(mesh_peclet) {
    constexpr char const* where = "spmvkit::ConvectionDiffusion: ";
    if (dim != 2 && dim != 3) {
      throw std::invalid_argument(std::string(where) + "dimension must be 2 or 3, got " +
                                  std::to_string(dim));
    }
    if (intervals < 2) {
      throw std::invalid_argument(std::string(where) +
                                  "N (intervals per direction) must be >= 2 so that there is an "
                                  "interior node, got " +
                                  std::to_string(intervals));
    }
    if (!std::isfinite(mesh_peclet) || mesh_peclet < 0) {
      throw std::invalid_argument(std::string(where) +
                                  "peclet (mesh Peclet number) must be finite and >= 0, got " +
                                  text(mesh_peclet));
    }
    const std::string given = "(" + text(wind_direction[0]) + ", " + text(wind_direction[1]) +
                              ", " + text(wind_direction[2]) + ")";
    double largest = 0;
    for (double c : wind_direction) {
      if (!std::isfinite(c)) {
        throw std::invalid_argument(std::string(where) + "wind must be finite, got " + given);
      }
      largest = std::fmax(largest, std::fabs(c));
    }
    if (dim == 2 && wind_direction[2] != 0) {
      throw std::invalid_argument(std::string(where) + "wind[2] must be 0 in 2D, got " + given);
    }
    if (largest == 0) {
      throw std::invalid_argument(std::string(where) + "wind must not be all zero, got " + given);
    }
    // Scaled by the largest component first: squaring 1e200 or 1e-200 would
    // overflow or underflow.
    double norm = 0;
    for (double c : wind_direction) norm += (c / largest) * (c / largest);
    norm = std::sqrt(norm);
    for (int a = 0; a < 3; ++a) wind[a] = wind_direction[a] / largest / norm;

    n = N - 1;
    h = 1.0 / static_cast<double>(N);
    // nnz < (2d + 1) n^d: bounding n^d by max / 7 keeps both in 64 bits.
    constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 7;
    std::int64_t rows = 1;
    for (int a = 0; a < dim; ++a) {
      if (rows > limit / n) {
        throw std::length_error(std::string(where) + "N = " + std::to_string(intervals) + " in " +
                                std::to_string(dim) +
                                "D has more unknowns than a 64-bit count holds");
      }
      rows *= n;
    }
    num_rows = rows;
    nnz = num_rows + 2 * dim * (num_rows / n) * (n - 1);
  }

  /// The diagonal entry: 2d + 2 Pe (|ŵ_1| + ... + |ŵ_d|).
  double diagonal_weight() const {
    double sum = 2.0 * dimension;
    for (int a = 0; a < dimension; ++a) sum += 2.0 * peclet * std::fabs(wind[a]);
    return sum;
  }
  /// The coupling to the neighbour at x - h e_axis: -1 - 2 Pe max(ŵ_axis, 0).
  double minus_weight(int axis) const { return -1.0 - 2.0 * peclet * std::fmax(wind[axis], 0.0); }
  /// The coupling to the neighbour at x + h e_axis: -1 - 2 Pe max(-ŵ_axis, 0).
  double plus_weight(int axis) const { return -1.0 - 2.0 * peclet * std::fmax(-wind[axis], 0.0); }

private:
  static std::string text(double value) {
    std::ostringstream os;
    os << value;
    return os.str();
  }
};

/// Vector type of the right-hand side and the manufactured solution.
template <class Scalar, class ExecutionSpace>
using convection_diffusion_vector_t = fem_vector_t<Scalar, ExecutionSpace>;

namespace detail {

/// ConvectionDiffusion's stencil in `which` order (for_each_cd_coupling),
/// rounded to Scalar.
template <class Scalar>
void cd_weights(ConvectionDiffusion const& p, Scalar (&weight)[7]) {
  for (Scalar& w : weight) w = Scalar(0);
  weight[0] = static_cast<Scalar>(p.diagonal_weight());
  for (int a = 0; a < p.dimension; ++a) {
    weight[cd_minus(a)] = static_cast<Scalar>(p.minus_weight(a));
    weight[cd_plus(a)] = static_cast<Scalar>(p.plus_weight(a));
  }
}

} // namespace detail

/// Assembles the convection-diffusion matrix (rows scaled by h²/ε, see the
/// file's documentation) in any format on `exec`, straight from its row
/// source (Format::from_rows): nothing is built on the host and no CRS copy is
/// made for other formats. Throws std::length_error when the problem does not
/// fit Ordinal (rows) or Offset (nonzeros), before anything is allocated, and
/// what Format::from_rows throws (e.g. a format that cannot represent the
/// matrix, AllocationError).
///
/// \tparam Format    a format tag: CrsFormat, SellFormat, ... (format_list);
///                   no default, since Scalar must be named after it
/// \tparam Scalar    value type of the matrix
/// \tparam ExecutionSpace execution space (deduced from exec)
/// \tparam Ordinal   row and column index type, default `int`
/// \tparam Offset    entry index type, default `int`
/// \param exec    execution space instance the assembly runs on
/// \param problem the problem (ConvectionDiffusion validates its parameters)
/// \param options the format's options (for SELL: C, σ; C = 0 picks the backend's default)
///
/// Usage: `make_convection_diffusion<SellFormat, double>(exec, ConvectionDiffusion(3, 64, 10.0))`.
/// Cost: O(nnz) work on the device, plus what the format's from_rows() does
/// (for CRS one count reduction read back to the host, then the fill).
template <class Format, class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
matrix_of_t<Format, Scalar, ExecutionSpace, Ordinal, Offset>
make_convection_diffusion(ExecutionSpace const& exec, ConvectionDiffusion const& problem,
                          typename Format::options_type const& options = {}) {
  constexpr char const* where = "spmvkit::make_convection_diffusion";
  detail::checked_index<Ordinal>(problem.num_rows, "number of unknowns (N-1)^d", where);
  detail::checked_index<Offset>(problem.nnz, "nonzeros", where);
  detail::ConvectionDiffusionRowSource<Scalar, Ordinal, Offset> source{
      problem.n, problem.dimension, {}};
  detail::cd_weights(problem, source.weight);
  return Format::from_rows(exec, problem.num_rows, problem.num_rows, source, options);
}

/// The convection-diffusion matrix in CRS (make_convection_diffusion<CrsFormat>).
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_convection_diffusion_crs(ExecutionSpace const& exec, ConvectionDiffusion const& problem) {
  return make_convection_diffusion<CrsFormat, Scalar, ExecutionSpace, Ordinal, Offset>(exec,
                                                                                       problem);
}

/// The manufactured solution u* = sin(πx)sin(πy) (2D) or sin(πx)sin(πy)sin(πz)
/// (3D) at the interior nodes, rounded to Scalar.
///
/// A new View of num_rows entries on exec's memory space, filled
/// asynchronously on exec. Throws AllocationError.
template <class Scalar, class ExecutionSpace>
convection_diffusion_vector_t<Scalar, ExecutionSpace>
convection_diffusion_solution(ExecutionSpace const& exec, ConvectionDiffusion const& problem) {
  return detail::cd_sample<convection_diffusion_vector_t<Scalar, ExecutionSpace>>(
      exec, problem.num_rows, "SpMVKit::convection_diffusion::solution",
      detail::CdExact<Scalar>{problem.n, problem.dimension, problem.h});
}

/// The right-hand side b = A u* for the matrix of make_convection_diffusion
/// with the same Scalar and u* = convection_diffusion_solution<Scalar>():
/// every product of A's entries with u*'s (both as stored in Scalar) is
/// summed in double and rounded once, so u* solves A x = b up to that last
/// rounding, whatever the precision. (A's scaling by h²/ε scales b alike.)
///
/// A new View of num_rows entries on exec's memory space, filled
/// asynchronously on exec. Throws AllocationError.
template <class Scalar, class ExecutionSpace>
convection_diffusion_vector_t<Scalar, ExecutionSpace>
convection_diffusion_rhs(ExecutionSpace const& exec, ConvectionDiffusion const& problem) {
  Scalar rounded[7];
  detail::cd_weights(problem, rounded);
  detail::CdRhs<Scalar> rhs{problem.n, problem.dimension, problem.h, {}};
  for (int w = 0; w < 7; ++w) rhs.weight[w] = static_cast<double>(rounded[w]);
  return detail::cd_sample<convection_diffusion_vector_t<Scalar, ExecutionSpace>>(
      exec, problem.num_rows, "SpMVKit::convection_diffusion::rhs", rhs);
}

} // namespace spmvkit

#endif
