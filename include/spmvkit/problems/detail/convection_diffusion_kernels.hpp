// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_DETAIL_CONVECTION_DIFFUSION_KERNELS_HPP
#define SPMVKIT_PROBLEMS_DETAIL_CONVECTION_DIFFUSION_KERNELS_HPP

// Device functors of the convection-diffusion problem: its stencil, row
// source, manufactured solution and right-hand side.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/problems/detail/fem_poisson_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace spmvkit {

namespace detail {

/// Which stencil weight a coupling takes: 0 the diagonal, 1 + 2a the
/// neighbour at x - h e_a, 2 + 2a the neighbour at x + h e_a (axis a).
KOKKOS_INLINE_FUNCTION constexpr int cd_minus(int axis) { return 1 + 2 * axis; }
KOKKOS_INLINE_FUNCTION constexpr int cd_plus(int axis) { return 2 + 2 * axis; }

/// Calls f(column, which) for every coupling of `row` of the 5-point (2D) or
/// 7-point (3D) stencil cut at the boundary, in increasing column order: the
/// minus neighbours from the slowest axis down, the diagonal, then the plus
/// neighbours from the fastest axis up (numbering x fastest).
template <class F>
KOKKOS_INLINE_FUNCTION void for_each_cd_coupling(std::int64_t n, int dimension, std::int64_t row,
                                                 F&& f) {
  const std::int64_t stride[3] = {1, n, n * n};
  std::int64_t coordinate[3] = {0, 0, 0};
  for (int a = 0; a < dimension; ++a) coordinate[a] = (row / stride[a]) % n;
  for (int a = dimension - 1; a >= 0; --a) {
    if (coordinate[a] > 0) f(row - stride[a], cd_minus(a));
  }
  f(row, 0);
  for (int a = 0; a < dimension; ++a) {
    if (coordinate[a] < n - 1) f(row + stride[a], cd_plus(a));
  }
}

KOKKOS_INLINE_FUNCTION std::int64_t cd_row_length(std::int64_t n, int dimension, std::int64_t row) {
  std::int64_t length = 1, stride = 1;
  for (int a = 0; a < dimension; ++a, stride *= n) {
    const std::int64_t c = (row / stride) % n;
    length += (c > 0 ? 1 : 0) + (c < n - 1 ? 1 : 0);
  }
  return length;
}

/// The convection-diffusion matrix as a row source (core/format_concept.hpp):
/// row lengths in closed form and each row's couplings in sorted column
/// order, so that every format assembles it directly (Format::from_rows).
template <class Scalar, class Ordinal, class Offset>
struct ConvectionDiffusionRowSource {
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  std::int64_t n;
  int dimension;
  Scalar weight[7]; // indexed by `which` of for_each_cd_coupling
  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    return static_cast<Ordinal>(cd_row_length(n, dimension, row));
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    for_each_cd_coupling(n, dimension, row, [&](std::int64_t col, int which) {
      f(static_cast<Ordinal>(col), weight[which]);
    });
  }
};

/// sin(π x_a) at grid position m of an axis, x_a = (m + 1) h: the 1D factor
/// of the manufactured solution. One function for the solution and the
/// right-hand side, so that both see bit-identical values.
KOKKOS_INLINE_FUNCTION double cd_sine(std::int64_t m, double h) {
  return fem_sin_pi(static_cast<double>(m + 1) * h);
}

/// u* = prod_a sin(π x_a) at the node of `row`, rounded to Scalar and returned
/// in double (FemSample stores it in the vector).
template <class Scalar>
struct CdExact {
  std::int64_t n;
  int dimension;
  double h;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    double u = 1;
    for (int a = 0; a < dimension; ++a, row /= n) u *= cd_sine(row % n, h);
    return static_cast<double>(static_cast<Scalar>(u));
  }
};

/// b = A u* row by row from the Scalar-rounded weights of A and the
/// Scalar-rounded entries of u* (the values CdExact stores), accumulated in
/// double: b is the exact product up to its final rounding to Scalar.
template <class Scalar>
struct CdRhs {
  std::int64_t n;
  int dimension;
  double h;
  double weight[7]; // the row source's Scalar weights, widened
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    // The sines at positions c-1, c, c+1 of each axis: 3 per axis instead of
    // `dimension` per coupling.
    double s[3][3] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    std::int64_t r = row;
    for (int a = 0; a < dimension; ++a, r /= n) {
      const std::int64_t c = r % n;
      for (int d = 0; d < 3; ++d) s[a][d] = cd_sine(c + d - 1, h);
    }
    double sum = 0;
    for_each_cd_coupling(n, dimension, row, [&](std::int64_t, int which) {
      const int axis = which == 0 ? -1 : (which - 1) / 2;
      const int shift = which == 0 ? 0 : (which % 2 == 1 ? -1 : 1);
      // Multiplied in the order CdExact multiplies, so the neighbour's value
      // is bit-identical to its entry of the solution vector.
      double u = 1;
      for (int a = 0; a < dimension; ++a) u *= s[a][1 + (a == axis ? shift : 0)];
      sum += weight[which] * static_cast<double>(static_cast<Scalar>(u));
    });
    return sum;
  }
};

/// A vector of `num_rows` entries holding f(row), filled on exec; `label` names both
/// the View and the kernel.
template <class Vector, class ExecutionSpace, class NodalFunction>
Vector cd_sample(ExecutionSpace const& exec, std::int64_t num_rows, std::string const& label,
                 NodalFunction const& f) {
  auto v = allocate_view<Vector>(exec, label, num_rows);
  Kokkos::parallel_for(label, FemRange64<ExecutionSpace>(exec, 0, num_rows),
                       FemSample<Vector, NodalFunction>{v, f});
  return v;
}

} // namespace detail

} // namespace spmvkit

#endif
