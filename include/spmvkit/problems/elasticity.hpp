// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_ELASTICITY_HPP
#define SPMVKIT_PROBLEMS_ELASTICITY_HPP

/// \file
/// 3D linear elasticity: -div σ(u) = f on the unit cube, σ = λ tr(ε) I + 2 μ ε,
/// ε = (∇u + ∇uᵀ) / 2, for an isotropic material given by Young's modulus E
/// and Poisson's ratio ν (λ = E ν / ((1 + ν)(1 - 2ν)), μ = E / (2 (1 + ν))).
/// The face x = 0 is clamped (u = 0); the other five faces carry a traction.
/// Trilinear (Q1) hexahedra on a uniform mesh of N intervals per direction,
/// three unknowns per node in interleaved (node-major) numbering: node
/// (i, j, k), i = 1..N, j, k = 0..N, is node (i - 1) + N (j + (N + 1) k) and
/// its displacements are unknowns 3 node + 0, 1, 2. The matrix is SPD and made
/// of full 3 x 3 blocks (BsrFormat detects b = 3): 3 N (N + 1)^2 rows,
/// 9 (3N - 2)(3N + 1)^2 stored entries (a 27-node stencil, cut at the faces).
///
/// The body force and the tractions are those of a manufactured displacement
/// u*_a = Π_d sin(ω_ad x_d + θ_ad) (zero on the clamped face), integrated
/// against the basis functions by Gauss points, so that the discrete solution
/// approaches u* at the nodes with second order in h
/// (elasticity_relative_error). Everything is assembled on the execution
/// space from a row source, like the FEM Poisson problem.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/core/memory_limit.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/problems/detail/elasticity_kernels.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spmvkit {

/// The material: Young's modulus E > 0 and Poisson's ratio ν in (-1, 0.5).
struct ElasticityMaterial {
  double youngs_modulus = 1.0; ///< E
  double poisson_ratio = 0.3;  ///< ν
};

/// Sizes and Lamé parameters of the elasticity problem with N intervals per direction.
struct Elasticity {
  std::int64_t N = 0;        ///< intervals per direction
  double h = 0;              ///< mesh width 1/N
  double lambda = 0;         ///< Lamé's first parameter
  double mu = 0;             ///< shear modulus
  std::int64_t num_rows = 0; ///< 3 N (N + 1)^2 unknowns
  std::int64_t nnz = 0;      ///< 9 (3N - 2)(3N + 1)^2 stored entries

  /// Checks N (>= 2, <= 20000) and the material (E > 0 and finite, -1 < ν < 0.5:
  /// std::invalid_argument naming the value).
  Elasticity(std::int64_t intervals, ElasticityMaterial const& m) : N(intervals) {
    constexpr char const* where = "spmvkit::Elasticity: ";
    if (intervals < 2) {
      throw std::invalid_argument(std::string(where) +
                                  "N (intervals per direction) must be >= 2, got " +
                                  std::to_string(intervals));
    }
    if (intervals > 20000) { // 2.4e13 unknowns: far beyond any memory, and int64-safe below
      throw std::length_error(std::string(where) + "N = " + std::to_string(intervals) +
                              " is too large (max 20000)");
    }
    if (!(m.youngs_modulus > 0) || !std::isfinite(m.youngs_modulus)) {
      throw std::invalid_argument(std::string(where) +
                                  "Young's modulus must be positive and "
                                  "finite, got " +
                                  std::to_string(m.youngs_modulus));
    }
    if (!(m.poisson_ratio > -1.0 && m.poisson_ratio < 0.5)) {
      throw std::invalid_argument(std::string(where) +
                                  "Poisson's ratio must lie in (-1, 0.5) for a stable isotropic "
                                  "material, got " +
                                  std::to_string(m.poisson_ratio));
    }
    const double E = m.youngs_modulus, nu = m.poisson_ratio;
    lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    mu = E / (2 * (1 + nu));
    h = 1.0 / static_cast<double>(N);
    num_rows = 3 * N * (N + 1) * (N + 1);
    nnz = 9 * (3 * N - 2) * (3 * N + 1) * (3 * N + 1);
  }
  /// The node grid of the kernels.
  detail::ElasticityGrid grid() const { return {N}; }
};

/// Vector type of the right-hand side and the exact solution.
template <class Scalar, class ExecutionSpace>
using elasticity_vector_t =
    Kokkos::View<Scalar*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;

/// Assembles the stiffness matrix in any format on `exec` from its row
/// source (Format::from_rows). Throws what Elasticity throws,
/// std::length_error when the problem does not fit Ordinal (rows) or Offset
/// (nonzeros) or when its values alone exceed the memory limit of exec's space
/// (memory_limit: SPMVKIT_MEMORY_LIMIT, else the free memory), all before
/// anything large is allocated, std::invalid_argument when SPMVKIT_MEMORY_LIMIT
/// is not a positive byte count, and what Format::from_rows throws.
///
/// Usage: `make_elasticity<BsrFormat, double>(exec, 32)`.
template <class Format, class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
matrix_of_t<Format, Scalar, ExecutionSpace, Ordinal, Offset>
make_elasticity(ExecutionSpace const& exec, std::int64_t N, ElasticityMaterial const& material = {},
                typename Format::options_type const& options = {}) {
  constexpr char const* where = "spmvkit::make_elasticity";
  const Elasticity p(N, material);
  detail::checked_index<Ordinal>(p.num_rows, "unknowns 3N(N+1)^2", where);
  detail::checked_index<Offset>(p.nnz, "nonzeros 9(3N-2)(3N+1)^2", where);
  // Every format stores each value at least once; a host allocation beyond memory would
  // only fail at first touch, under the kernel's OOM killer.
  const auto values_bytes =
      static_cast<std::uint64_t>(p.nnz) * static_cast<std::uint64_t>(sizeof(Scalar));
  const MemoryLimit limit = memory_limit<typename ExecutionSpace::memory_space>(0, "option", where);
  if (!limit.admits(values_bytes)) {
    throw std::length_error(std::string(where) + ": N = " + std::to_string(N) + " needs " +
                            std::to_string(values_bytes) + " bytes for its " +
                            std::to_string(p.nnz) + " values alone, more than the limit of " +
                            std::to_string(limit.bytes) + " bytes (" + limit.source + ")");
  }
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  Kokkos::View<double*, Device> element("SpMVKit::elasticity::element_stiffness", 24 * 24);
  auto host = Kokkos::create_mirror_view(element);
  detail::elasticity_element_stiffness(p.h, p.lambda, p.mu, host.data());
  Kokkos::deep_copy(exec, element, host);
  const detail::ElasticityRowSource<Scalar, Ordinal, Offset, Device> source{p.grid(), element};
  auto A = Format::from_rows(exec, p.num_rows, p.num_rows, source, options);
  exec.fence(); // the host mirror goes out of scope
  return A;
}

namespace detail {
template <class Scalar, class ExecutionSpace, class F>
elasticity_vector_t<Scalar, ExecutionSpace>
elasticity_sample(ExecutionSpace const& exec, Elasticity const& p, std::string const& label, F f) {
  using V = elasticity_vector_t<Scalar, ExecutionSpace>;
  auto v = allocate_view<V>(exec, label, p.num_rows);
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.num_rows),
      KOKKOS_LAMBDA(std::int64_t row) { v(row) = static_cast<Scalar>(f(row)); });
  return v;
}
} // namespace detail

/// The load vector: the body force f = -div σ(u*) and the tractions σ(u*) n of
/// the free faces, integrated against each basis function (computed in
/// double, rounded to Scalar). A new View, filled asynchronously on exec.
template <class Scalar, class ExecutionSpace>
elasticity_vector_t<Scalar, ExecutionSpace>
elasticity_rhs(ExecutionSpace const& exec, std::int64_t N,
               ElasticityMaterial const& material = {}) {
  const Elasticity p(N, material);
  return detail::elasticity_sample<Scalar>(
      exec, p, "SpMVKit::elasticity::rhs",
      detail::ElasticityLoad{p.grid(), detail::ElasticityManufactured{p.lambda, p.mu}, p.h});
}

/// The manufactured displacement u* at every unknown (a new View, filled
/// asynchronously on exec).
template <class Scalar, class ExecutionSpace>
elasticity_vector_t<Scalar, ExecutionSpace> elasticity_exact(ExecutionSpace const& exec,
                                                             std::int64_t N) {
  const Elasticity p(N, ElasticityMaterial{});
  return detail::elasticity_sample<Scalar>(exec, p, "SpMVKit::elasticity::exact",
                                           detail::ElasticityExact{p.grid(), p.h});
}

/// The six rigid-body modes (three translations, three rotations) as the
/// columns of a num_rows x 6 View: the near-nullspace AMG needs for elasticity
/// (make_amg's near_nullspace argument).
template <class Scalar, class ExecutionSpace>
Kokkos::View<Scalar**, Kokkos::LayoutLeft,
             Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>
elasticity_rigid_body_modes(ExecutionSpace const& exec, std::int64_t N) {
  const Elasticity p(N, ElasticityMaterial{});
  using Modes = Kokkos::View<Scalar**, Kokkos::LayoutLeft,
                             Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  detail::checked_bytes(p.num_rows * 6, sizeof(Scalar), "rigid-body modes",
                        "spmvkit::elasticity_rigid_body_modes");
  Modes modes(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing,
                                 "SpMVKit::elasticity::rigid_body_modes"),
              static_cast<std::size_t>(p.num_rows), 6);
  Kokkos::parallel_for(
      "SpMVKit::elasticity::rigid_body_modes",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.num_rows),
      detail::ElasticityRigidBodyModes<Modes>{modes, p.grid(), p.h});
  return modes;
}

/// ||u_h - u*|| / ||u*|| over the unknowns (nodal, discrete 2-norms): the
/// discretisation error when u_h solves the system; second order in h.
/// Synchronous (two reductions read back).
template <class ExecutionSpace, class Vector>
double elasticity_relative_error(ExecutionSpace const& exec, std::int64_t N, Vector const& u_h) {
  const Elasticity p(N, ElasticityMaterial{});
  if (static_cast<std::int64_t>(u_h.extent(0)) != p.num_rows) {
    throw std::invalid_argument("spmvkit::elasticity_relative_error: u_h has " +
                                std::to_string(u_h.extent(0)) + " entries, the problem " +
                                std::to_string(p.num_rows));
  }
  const detail::ElasticityExact exact{p.grid(), p.h};
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  double err = 0, ref = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::elasticity::error", Range(exec, 0, p.num_rows),
      KOKKOS_LAMBDA(std::int64_t row, double& e) {
        const double d = static_cast<double>(u_h(row)) - exact(row);
        e += d * d;
      },
      err);
  Kokkos::parallel_reduce(
      "SpMVKit::elasticity::norm", Range(exec, 0, p.num_rows),
      KOKKOS_LAMBDA(std::int64_t row, double& r) {
        const double u = exact(row);
        r += u * u;
      },
      ref);
  return std::sqrt(err / ref);
}

} // namespace spmvkit

#endif
