// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_FEM_PROBLEM_HPP
#define SPMVKIT_PROBLEMS_FEM_PROBLEM_HPP

/// \file
/// The sizes and closed forms of the FEM Poisson problem (the assembly and
/// vectors are in problems/fem_poisson.hpp, which says what the problem is).
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// Sizes of the FEM Poisson problem with N intervals per direction.
struct FemPoisson {
  std::int64_t N = 0;        ///< intervals per direction
  std::int64_t n = 0;        ///< interior nodes per direction, N - 1
  double h = 0;              ///< mesh width 1/N
  std::int64_t num_rows = 0; ///< (N-1)^3 unknowns
  std::int64_t nnz = 0;      ///< (3n-2)^3 stored entries, zero face couplings included

  /// The problem with `intervals` = N intervals per direction.
  ///
  /// Throws std::invalid_argument for N < 2 (no interior node) and
  /// std::length_error for N > 100000.
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
template <class Scalar, class ExecutionSpace>
using fem_vector_t =
    Kokkos::View<Scalar*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;

} // namespace spmvkit

#endif
