// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PROBLEMS_DETAIL_ELASTICITY_KERNELS_HPP
#define SPMVKIT_PROBLEMS_DETAIL_ELASTICITY_KERNELS_HPP

// Device functors of the linear elasticity problem: the element stiffness,
// the row source, the manufactured solution and its loads, the rigid-body
// modes. problems/elasticity.hpp says what the problem is.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace spmvkit::detail {

KOKKOS_INLINE_FUNCTION double elasticity_sin(double t) {
#if KOKKOS_VERSION >= 30700
  return Kokkos::sin(t);
#else
  return Kokkos::Experimental::sin(t);
#endif
}
KOKKOS_INLINE_FUNCTION double elasticity_cos(double t) {
#if KOKKOS_VERSION >= 30700
  return Kokkos::cos(t);
#else
  return Kokkos::Experimental::cos(t);
#endif
}

/// The 24 x 24 stiffness of one h x h x h Q1 element (corner L = cx + 2 cy +
/// 4 cz, unknown 3 L + a), by 2 x 2 x 2 Gauss points, exact for this
/// integrand (degree 2 per direction):
/// K(La, Mb) = h ∫ λ ∂a N_L ∂b N_M + μ ∂b N_L ∂a N_M + μ δab ∇N_L·∇N_M dξ.
inline void elasticity_element_stiffness(double h, double lambda, double mu, double* K) {
  const double g[2] = {0.5 - 0.5 / 1.7320508075688772, 0.5 + 0.5 / 1.7320508075688772};
  for (int e = 0; e < 24 * 24; ++e) K[e] = 0;
  for (int qz = 0; qz < 2; ++qz)
    for (int qy = 0; qy < 2; ++qy)
      for (int qx = 0; qx < 2; ++qx) {
        const double xi[3] = {g[qx], g[qy], g[qz]};
        double grad[8][3];
        for (int L = 0; L < 8; ++L) {
          const int c[3] = {L & 1, (L >> 1) & 1, (L >> 2) & 1};
          double f[3], d[3];
          for (int k = 0; k < 3; ++k) {
            f[k] = c[k] ? xi[k] : 1 - xi[k];
            d[k] = c[k] ? 1.0 : -1.0;
          }
          grad[L][0] = d[0] * f[1] * f[2];
          grad[L][1] = f[0] * d[1] * f[2];
          grad[L][2] = f[0] * f[1] * d[2];
        }
        const double w = 0.125 * h; // weight 1/8 per point; h^3 volume / h^2 gradients
        for (int L = 0; L < 8; ++L)
          for (int M = 0; M < 8; ++M) {
            const double dot =
                grad[L][0] * grad[M][0] + grad[L][1] * grad[M][1] + grad[L][2] * grad[M][2];
            for (int a = 0; a < 3; ++a)
              for (int b = 0; b < 3; ++b)
                K[(3 * L + a) * 24 + 3 * M + b] +=
                    w * (lambda * grad[L][a] * grad[M][b] + mu * grad[L][b] * grad[M][a] +
                         (a == b ? mu * dot : 0.0));
          }
      }
}

/// Node numbering of the free nodes: x index i = 1..N (the face x = 0 is
/// clamped), y and z indices 0..N; node = (i - 1) + N (j + (N + 1) k), unknown
/// 3 node + component.
struct ElasticityGrid {
  std::int64_t N;
  KOKKOS_INLINE_FUNCTION std::int64_t nodes() const { return N * (N + 1) * (N + 1); }
  KOKKOS_INLINE_FUNCTION void coordinates(std::int64_t node, std::int64_t& i, std::int64_t& j,
                                          std::int64_t& k) const {
    i = node % N + 1;
    j = (node / N) % (N + 1);
    k = node / (N * (N + 1));
  }
  KOKKOS_INLINE_FUNCTION std::int64_t node(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return (i - 1) + N * (j + (N + 1) * k);
  }
  /// Neighbour offsets of index a along one direction: [lo, hi] of -1..1 within [first, N].
  KOKKOS_INLINE_FUNCTION static int lo(std::int64_t a, std::int64_t first) {
    return a > first ? -1 : 0;
  }
  KOKKOS_INLINE_FUNCTION int hi(std::int64_t a) const { return a < N ? 1 : 0; }
};

/// The stiffness matrix as a row source: row 3 p + a couples to the three
/// unknowns of each neighbouring free node m (27-point stencil), in
/// increasing column order; each value sums the element stiffness over the
/// elements shared by p and m.
template <class Scalar, class Ordinal, class Offset, class Device>
struct ElasticityRowSource {
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  ElasticityGrid grid;
  Kokkos::View<const double*, Device> element; // 24 x 24

  KOKKOS_INLINE_FUNCTION Ordinal length(Ordinal row) const {
    std::int64_t i, j, k;
    grid.coordinates(row / 3, i, j, k);
    const std::int64_t nx = grid.hi(i) - ElasticityGrid::lo(i, 1) + 1;
    const std::int64_t ny = grid.hi(j) - ElasticityGrid::lo(j, 0) + 1;
    const std::int64_t nz = grid.hi(k) - ElasticityGrid::lo(k, 0) + 1;
    return static_cast<Ordinal>(3 * nx * ny * nz);
  }
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(Ordinal row, F&& f) const {
    const std::int64_t p = row / 3;
    const int a = static_cast<int>(row - 3 * p);
    std::int64_t i, j, k;
    grid.coordinates(p, i, j, k);
    const std::int64_t N = grid.N;
    for (int dk = ElasticityGrid::lo(k, 0); dk <= grid.hi(k); ++dk)
      for (int dj = ElasticityGrid::lo(j, 0); dj <= grid.hi(j); ++dj)
        for (int di = ElasticityGrid::lo(i, 1); di <= grid.hi(i); ++di) {
          double v[3] = {0, 0, 0};
          // Elements with p at corner c and m = p + d at corner c + d.
          for (int cz = 0; cz < 2; ++cz)
            for (int cy = 0; cy < 2; ++cy)
              for (int cx = 0; cx < 2; ++cx) {
                const int mx = cx + di, my = cy + dj, mz = cz + dk;
                if (mx < 0 || mx > 1 || my < 0 || my > 1 || mz < 0 || mz > 1) continue;
                const std::int64_t ex = i - cx, ey = j - cy, ez = k - cz;
                if (ex < 0 || ex >= N || ey < 0 || ey >= N || ez < 0 || ez >= N) continue;
                const int L = cx + 2 * cy + 4 * cz, M = mx + 2 * my + 4 * mz;
                for (int b = 0; b < 3; ++b) v[b] += element((3 * L + a) * 24 + 3 * M + b);
              }
          const std::int64_t m = grid.node(i + di, j + dj, k + dk);
          for (int b = 0; b < 3; ++b) f(static_cast<Ordinal>(3 * m + b), static_cast<Scalar>(v[b]));
        }
  }
};

/// The manufactured displacement u*_a = Π_d sin(ω_ad x_d + θ_ad) (θ_a0 = 0,
/// so u* = 0 on the clamped face), with its gradient and Hessian, the body
/// force f = -div σ(u*) and the traction σ(u*) n.
struct ElasticityManufactured {
  double lambda, mu;
  KOKKOS_INLINE_FUNCTION static double omega(int a, int d) {
    constexpr double pi = 3.14159265358979323846;
    constexpr double w[3][3] = {{0.5, 0.5, 1.0 / 3}, {0.6, 1.0 / 3, 0.5}, {0.4, 0.25, 1.0 / 3}};
    return pi * w[a][d];
  }
  KOKKOS_INLINE_FUNCTION static double theta(int a, int d) {
    constexpr double t[3][3] = {{0, 1.0472, 0.7854}, {0, 0.6283, 0.5236}, {0, 0.4488, 1.0472}};
    return t[a][d];
  }
  /// Value, first and second derivative of factor (a, d) at t.
  KOKKOS_INLINE_FUNCTION static void factor(int a, int d, double t, double& s, double& ds,
                                            double& dds) {
    const double w = omega(a, d), arg = w * t + theta(a, d);
    s = elasticity_sin(arg);
    ds = w * elasticity_cos(arg);
    dds = -w * w * s;
  }
  KOKKOS_INLINE_FUNCTION static double value(int a, double const* x) {
    double r = 1;
    for (int d = 0; d < 3; ++d) {
      double s, ds, dds;
      factor(a, d, x[d], s, ds, dds);
      r *= s;
    }
    return r;
  }
  /// g[a][j] = ∂j u_a, H[a][j][k] = ∂j ∂k u_a.
  KOKKOS_INLINE_FUNCTION static void derivatives(double const* x, double (*g)[3],
                                                 double (*H)[3][3]) {
    for (int a = 0; a < 3; ++a) {
      double s[3], ds[3], dds[3];
      for (int d = 0; d < 3; ++d) factor(a, d, x[d], s[d], ds[d], dds[d]);
      for (int j = 0; j < 3; ++j) {
        g[a][j] = 1;
        for (int d = 0; d < 3; ++d) g[a][j] *= d == j ? ds[d] : s[d];
        for (int k = 0; k < 3; ++k) {
          double h = 1;
          for (int d = 0; d < 3; ++d)
            h *= (d == j && d == k) ? dds[d] : (d == j || d == k) ? ds[d] : s[d];
          H[a][j][k] = h;
        }
      }
    }
  }
  /// f_i = -(λ ∂i div u + μ Σj (∂jj u_i + ∂ij u_j)).
  KOKKOS_INLINE_FUNCTION void body_force(double const* x, double* f) const {
    double g[3][3], H[3][3][3];
    derivatives(x, g, H);
    for (int i = 0; i < 3; ++i) {
      double div = 0, lap = 0;
      for (int k = 0; k < 3; ++k) div += H[k][i][k];
      for (int j = 0; j < 3; ++j) lap += H[i][j][j] + H[j][i][j];
      f[i] = -(lambda * div + mu * lap);
    }
  }
  /// t_i = σ_ij n_j for the unit normal n = e_dir * sign.
  KOKKOS_INLINE_FUNCTION void traction(double const* x, int dir, double sign, double* t) const {
    double g[3][3], H[3][3][3];
    derivatives(x, g, H);
    const double div = g[0][0] + g[1][1] + g[2][2];
    for (int i = 0; i < 3; ++i)
      t[i] = sign * ((i == dir ? lambda * div : 0.0) + mu * (g[i][dir] + g[dir][i]));
  }
};

/// b(3 p + a): the body force and the tractions of the five free faces
/// (x = 1, y = 0, y = 1, z = 0, z = 1) integrated against the node's basis
/// function by 2 x 2 x 2 (2 x 2 on faces) Gauss points per element.
struct ElasticityLoad {
  ElasticityGrid grid;
  ElasticityManufactured u;
  double h;

  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    const std::int64_t p = row / 3;
    const int a = static_cast<int>(row - 3 * p);
    std::int64_t idx[3];
    grid.coordinates(p, idx[0], idx[1], idx[2]);
    const std::int64_t N = grid.N;
    const double g[2] = {0.5 - 0.5 / 1.7320508075688772, 0.5 + 0.5 / 1.7320508075688772};
    double sum = 0;
    // Elements with the node at corner c: basis N = Π (c ? ξ : 1 - ξ).
    for (int c = 0; c < 8; ++c) {
      const int cc[3] = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
      std::int64_t e[3];
      bool inside = true;
      for (int d = 0; d < 3; ++d) {
        e[d] = idx[d] - cc[d];
        inside = inside && e[d] >= 0 && e[d] < N;
      }
      if (!inside) continue;
      for (int q = 0; q < 8; ++q) {
        double x[3], basis = 1;
        for (int d = 0; d < 3; ++d) {
          const double xi = g[(q >> d) & 1];
          x[d] = (static_cast<double>(e[d]) + xi) * h;
          basis *= cc[d] ? xi : 1 - xi;
        }
        double f[3];
        u.body_force(x, f);
        sum += 0.125 * h * h * h * f[a] * basis;
      }
    }
    // Free faces through the node: direction dir at index 0 (outward -e) or N (+e).
    for (int dir = 0; dir < 3; ++dir) {
      for (int side = 0; side < 2; ++side) {
        if (dir == 0 && side == 0) continue; // clamped
        if (idx[dir] != (side == 0 ? 0 : N)) continue;
        const int t0 = dir == 0 ? 1 : 0, t1 = dir == 2 ? 1 : 2; // the face's directions
        for (int c = 0; c < 4; ++c) {
          const int c0 = c & 1, c1 = (c >> 1) & 1;
          const std::int64_t e0 = idx[t0] - c0, e1 = idx[t1] - c1;
          if (e0 < 0 || e0 >= N || e1 < 0 || e1 >= N) continue;
          for (int q = 0; q < 4; ++q) {
            const double xi0 = g[q & 1], xi1 = g[(q >> 1) & 1];
            double x[3];
            x[dir] = static_cast<double>(idx[dir]) * h;
            x[t0] = (static_cast<double>(e0) + xi0) * h;
            x[t1] = (static_cast<double>(e1) + xi1) * h;
            const double basis = (c0 ? xi0 : 1 - xi0) * (c1 ? xi1 : 1 - xi1);
            double t[3];
            u.traction(x, dir, side == 0 ? -1.0 : 1.0, t);
            sum += 0.25 * h * h * t[a] * basis;
          }
        }
      }
    }
    return sum;
  }
};

/// u*(node of row), component row % 3.
struct ElasticityExact {
  ElasticityGrid grid;
  double h;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t row) const {
    const std::int64_t p = row / 3;
    std::int64_t i, j, k;
    grid.coordinates(p, i, j, k);
    const double x[3] = {static_cast<double>(i) * h, static_cast<double>(j) * h,
                         static_cast<double>(k) * h};
    return ElasticityManufactured::value(static_cast<int>(row - 3 * p), x);
  }
};

/// The six rigid-body modes at every unknown: translations e_0, e_1, e_2 and
/// rotations about the axes through the origin, (-y, x, 0), (0, -z, y), (z, 0, -x).
template <class Modes>
struct ElasticityRigidBodyModes {
  Modes modes;
  ElasticityGrid grid;
  double h;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    const std::int64_t p = row / 3;
    const int a = static_cast<int>(row - 3 * p);
    std::int64_t i, j, k;
    grid.coordinates(p, i, j, k);
    const double x = static_cast<double>(i) * h, y = static_cast<double>(j) * h,
                 z = static_cast<double>(k) * h;
    using S = typename Modes::value_type;
    for (int t = 0; t < 3; ++t) modes(row, t) = S(a == t ? 1 : 0);
    modes(row, 3) = static_cast<S>(a == 0 ? -y : a == 1 ? x : 0.0);
    modes(row, 4) = static_cast<S>(a == 0 ? 0.0 : a == 1 ? -z : y);
    modes(row, 5) = static_cast<S>(a == 0 ? z : a == 1 ? 0.0 : -x);
  }
};

} // namespace spmvkit::detail

#endif
