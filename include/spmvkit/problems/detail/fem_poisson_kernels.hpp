// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_DETAIL_FEM_POISSON_KERNELS_HPP
#define SPMVKIT_PROBLEMS_DETAIL_FEM_POISSON_KERNELS_HPP

// Device functors of the FEM Poisson problem: its stencil, row source,
// right-hand side, exact solution and error.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/problems/fem_problem.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace spmvkit {

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

template <class ExecutionSpace>
using FemRange64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

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
template <class Scalar, class ExecutionSpace, class NodalFunction>
fem_vector_t<Scalar, ExecutionSpace> fem_sample(ExecutionSpace const& exec, FemPoisson const& p,
                                                std::string const& label, NodalFunction const& f) {
  using Vector = fem_vector_t<Scalar, ExecutionSpace>;
  auto v = allocate_view<Vector>(exec, label, p.num_rows);
  Kokkos::parallel_for(label, FemRange64<ExecutionSpace>(exec, 0, p.num_rows),
                       FemSample<Vector, NodalFunction>{v, f});
  return v;
}

template <class Scalar>
void fem_stiffness_weights(double h, Scalar (&weight)[4]) {
  for (int d = 0; d < 4; ++d) weight[d] = static_cast<Scalar>(h * FemPoisson::stiffness_weight(d));
}

} // namespace detail

} // namespace spmvkit

#endif
