// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_GMRES_KERNELS_HPP
#define SPMVKIT_SOLVERS_DETAIL_GMRES_KERNELS_HPP

// GMRES's kernels over the Krylov basis V (column-major, leading dimension n).
// CGS2 reads V three times per Arnoldi step: h1 = Vᵀw; w −= V h1 fused with
// h2 = Vᵀw (one read of V for both, row by row); w −= V h2 with ‖w‖².

#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace spmvkit::detail {

/// Rows per work item of the basis kernels. GPUs take one row per thread
/// (coalesced across the basis columns); host backends take a block, so that
/// each column is streamed contiguously and the block of w stays in L1.
template <class ExecutionSpace>
constexpr std::int64_t gmres_block() {
  return is_host_space_v<ExecutionSpace> ? 1024 : 1;
}

/// Widest projection one kernel computes: its sums are one fixed-size value,
/// held in registers on GPUs (a runtime-sized array reduction is kept in
/// per-thread shared memory there, several times slower).
inline constexpr int gmres_dot_width = 32;

/// B sums of a multi-dot.
template <int B>
struct GmresSums {
  double v[B];
};

/// Optionally w −= V(:, 0:sub) h (sub > 0), then sums[c] = V(:, c0 + c)ᵀ w for
/// c < count <= B. The subtraction of a row finishes before its products, so
/// one read of V serves CGS2's subtraction and its second projection.
template <class Vec, class Basis, class Coefficients, int B, std::int64_t Block>
struct GmresDots {
  using value_type = GmresSums<B>;
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n;
  int sub, c0, count;

  KOKKOS_INLINE_FUNCTION void init(value_type& a) const {
    for (int c = 0; c < B; ++c) a.v[c] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, value_type const& b) const {
    for (int c = 0; c < B; ++c) a.v[c] += b.v[c];
  }
#if KOKKOS_VERSION < 30700 // older Kokkos joins through volatile references only
  KOKKOS_INLINE_FUNCTION void join(value_type volatile& a, value_type const volatile& b) const {
    for (int c = 0; c < B; ++c) a.v[c] = a.v[c] + b.v[c];
  }
#endif

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, value_type& sums) const {
    if constexpr (Block == 1) {
      const std::int64_t i = item;
      auto wi = w(i);
      if (sub > 0) {
        for (int c = 0; c < sub; ++c) wi -= h(c) * V(c * n + i);
        w(i) = wi;
      }
      const double wd = static_cast<double>(wi);
      // A fixed trip count with a guard keeps sums.v in registers.
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
      for (int c = 0; c < B; ++c) {
        if (c < count) sums.v[c] += static_cast<double>(V((c0 + c) * n + i)) * wd;
      }
    } else {
      const std::int64_t begin = item * Block;
      const std::int64_t end = begin + Block < n ? begin + Block : n;
      // Column by column: each column streams contiguously; per row the
      // subtraction order is the one of the GPU path.
      for (int c = 0; c < sub; ++c) {
        const auto hc = h(c);
        for (std::int64_t i = begin; i < end; ++i) w(i) -= hc * V(c * n + i);
      }
      for (int c = 0; c < count; ++c) {
        double s = 0;
        for (std::int64_t i = begin; i < end; ++i) {
          s += static_cast<double>(V((c0 + c) * n + i)) * static_cast<double>(w(i));
        }
        sums.v[c] += s;
      }
    }
  }
};

/// w −= V(:, 0:count) h; sum ‖w‖².
template <class Vec, class Basis, class Coefficients, std::int64_t Block>
struct GmresSubtract {
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, double& ww) const {
    if constexpr (Block == 1) {
      const std::int64_t i = item;
      auto wi = w(i);
      for (int c = 0; c < count; ++c) wi -= h(c) * V(c * n + i);
      w(i) = wi;
      ww += static_cast<double>(wi) * static_cast<double>(wi);
    } else {
      const std::int64_t begin = item * Block;
      const std::int64_t end = begin + Block < n ? begin + Block : n;
      for (int c = 0; c < count; ++c) {
        const auto hc = h(c);
        for (std::int64_t i = begin; i < end; ++i) w(i) -= hc * V(c * n + i);
      }
      double s = 0;
      for (std::int64_t i = begin; i < end; ++i) {
        s += static_cast<double>(w(i)) * static_cast<double>(w(i));
      }
      ww += s;
    }
  }
};

/// V(:, column) = w * scale.
template <class Vec, class Basis>
struct GmresStore {
  Basis V;
  Vec w;
  std::int64_t n, column;
  typename Vec::non_const_value_type scale;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { V(column * n + i) = scale * w(i); }
};

/// u = V(:, 0:count) y (y on the device).
template <class Vec, class Basis, class Coefficients>
struct GmresCombine {
  Basis V;
  Vec u;
  Coefficients y;
  std::int64_t n;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    typename Vec::non_const_value_type s = 0;
    for (int c = 0; c < count; ++c) s += y(c) * V(c * n + i);
    u(i) = s;
  }
};

template <class Vec>
struct GmresAdd {
  Vec x, z;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { x(i) += z(i); }
};

/// Work items of a basis kernel over n rows.
inline std::int64_t gmres_items(std::int64_t n, std::int64_t block) {
  return (n + block - 1) / block;
}

/// sums[0:count) = V(:, c0:c0+count)ᵀ w on `exec`, after w −= V(:, 0:sub) h
/// when sub > 0; one kernel per gmres_dot_width columns (the first one also
/// subtracts), each finished before the host reads its sums.
template <class ExecutionSpace, class Vec, class Basis, class Coefficients>
void gmres_dots(ExecutionSpace const& exec, Basis const& V, Vec const& w, Coefficients const& h,
                std::int64_t n, int sub, int count, double* sums) {
  constexpr std::int64_t block = gmres_block<ExecutionSpace>();
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>> range(
      exec, 0, gmres_items(n, block));
  for (int c0 = 0; c0 < count; c0 += gmres_dot_width) {
    const int width = count - c0 < gmres_dot_width ? count - c0 : gmres_dot_width;
    const int first_sub = c0 == 0 ? sub : 0;
    auto run = [&](auto width_tag) {
      constexpr int B = decltype(width_tag)::value;
      GmresSums<B> result;
      Kokkos::parallel_reduce(
          "SpMVKit::gmres::project", range,
          GmresDots<Vec, Basis, Coefficients, B, block>{V, w, h, n, first_sub, c0, width}, result);
      for (int c = 0; c < width; ++c) sums[c0 + c] = result.v[c];
    };
    // Instantiations by width: the registers a thread holds grow with B.
    if (width <= 8) {
      run(std::integral_constant<int, 8>{});
    } else if (width <= 16) {
      run(std::integral_constant<int, 16>{});
    } else {
      run(std::integral_constant<int, gmres_dot_width>{});
    }
  }
}

} // namespace spmvkit::detail

#endif
