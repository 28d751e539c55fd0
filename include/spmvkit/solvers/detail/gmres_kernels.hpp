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

/// Rows per work item of the basis kernels. Host backends take a contiguous
/// block, so that each column is streamed and the block of w stays in L1.
/// GPUs take rows item, item + items, ... (consecutive threads read
/// consecutive rows) and keep the item's sums in registers: Kokkos keeps a
/// reduction value in shared memory, where B sums per thread at a stride of B
/// doubles meet B-way bank conflicts at every row.
template <class ExecutionSpace>
constexpr std::int64_t gmres_block() {
  return is_host_space_v<ExecutionSpace> ? 1024 : 16;
}

/// Widest projection one kernel computes: its sums are one fixed-size value.
inline constexpr int gmres_dot_width = 32;

/// Columns one host pass over a block handles: they share each load of w, and
/// with partial sums per column (gmres_host_dots) the add chain no longer
/// bounds the loop (the compiler may not reorder a floating-point sum).
inline constexpr int gmres_host_columns = 4;

/// B sums of a multi-dot.
template <int B>
struct GmresSums {
  double v[B];
};

/// Work items of a basis kernel over n rows.
KOKKOS_INLINE_FUNCTION std::int64_t gmres_items(std::int64_t n, std::int64_t block) {
  return (n + block - 1) / block;
}

/// w(i) −= Σ_{c < count} h(c) V(c n + i) for rows [begin, end), in the order
/// of the GPU path per row, four columns per pass over w.
template <class Vec, class Basis, class Coefficients>
KOKKOS_INLINE_FUNCTION void gmres_host_subtract(Basis const& V, Vec const& w, Coefficients const& h,
                                                std::int64_t n, int count, std::int64_t begin,
                                                std::int64_t end) {
  int c = 0;
  for (; c + gmres_host_columns <= count; c += gmres_host_columns) {
    const auto h0 = h(c), h1 = h(c + 1), h2 = h(c + 2), h3 = h(c + 3);
    const auto* v0 = &V(c * n);
    const auto* v1 = v0 + n;
    const auto* v2 = v1 + n;
    const auto* v3 = v2 + n;
    for (std::int64_t i = begin; i < end; ++i) {
      auto wi = w(i);
      wi -= h0 * v0[i];
      wi -= h1 * v1[i];
      wi -= h2 * v2[i];
      wi -= h3 * v3[i];
      w(i) = wi;
    }
  }
  for (; c < count; ++c) {
    const auto hc = h(c);
    const auto* v = &V(c * n);
    for (std::int64_t i = begin; i < end; ++i) w(i) -= hc * v[i];
  }
}

/// out[k] = V(:, c + k)ᵀ w over rows [begin, end) for k < m <= 4, two partial
/// sums per column (even and odd rows) in named scalars: eight accumulators
/// stay in registers, where GCC spilled a 4 x 4 array of them for generic
/// x86-64 (docs/notes/2026-11-29-solvers-host.md).
template <class Vec, class Basis>
KOKKOS_INLINE_FUNCTION void gmres_host_dots(Basis const& V, Vec const& w, std::int64_t n, int c,
                                            int m, std::int64_t begin, std::int64_t end,
                                            double* out) {
  const auto* v0 = &V(c * n);
  // Missing columns read column c again and are dropped: one loop body.
  const auto* v1 = m > 1 ? v0 + n : v0;
  const auto* v2 = m > 2 ? v0 + 2 * n : v0;
  const auto* v3 = m > 3 ? v0 + 3 * n : v0;
  double a0 = 0, a1 = 0, b0 = 0, b1 = 0, c0 = 0, c1 = 0, d0 = 0, d1 = 0;
  std::int64_t i = begin;
  for (; i + 2 <= end; i += 2) {
    const double w0 = static_cast<double>(w(i)), w1 = static_cast<double>(w(i + 1));
    a0 += static_cast<double>(v0[i]) * w0;
    a1 += static_cast<double>(v0[i + 1]) * w1;
    b0 += static_cast<double>(v1[i]) * w0;
    b1 += static_cast<double>(v1[i + 1]) * w1;
    c0 += static_cast<double>(v2[i]) * w0;
    c1 += static_cast<double>(v2[i + 1]) * w1;
    d0 += static_cast<double>(v3[i]) * w0;
    d1 += static_cast<double>(v3[i + 1]) * w1;
  }
  if (i < end) {
    const double wi = static_cast<double>(w(i));
    a0 += static_cast<double>(v0[i]) * wi;
    b0 += static_cast<double>(v1[i]) * wi;
    c0 += static_cast<double>(v2[i]) * wi;
    d0 += static_cast<double>(v3[i]) * wi;
  }
  const double sums[gmres_host_columns] = {a0 + a1, b0 + b1, c0 + c1, d0 + d1};
  for (int k = 0; k < m; ++k) out[k] = sums[k];
}

/// Optionally w −= V(:, 0:sub) h (sub > 0), then sums[c] = V(:, c0 + c)ᵀ w for
/// c < count <= B. The subtraction of a row finishes before its products, so
/// one read of V serves CGS2's subtraction and its second projection.
template <class Vec, class Basis, class Coefficients, int B, std::int64_t Block, bool Host>
struct GmresDots {
  using value_type = GmresSums<B>;
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n, items;
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
    if constexpr (!Host) {
      double acc[B];
      for (int c = 0; c < B; ++c) acc[c] = 0;
      for (std::int64_t i = item; i < n; i += items) {
        auto wi = w(i);
        if (sub > 0) {
          for (int c = 0; c < sub; ++c) wi -= h(c) * V(c * n + i);
          w(i) = wi;
        }
        const double wd = static_cast<double>(wi);
        // A fixed trip count with a guard keeps acc in registers.
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
        for (int c = 0; c < B; ++c) {
          if (c < count) acc[c] += static_cast<double>(V((c0 + c) * n + i)) * wd;
        }
      }
      for (int c = 0; c < B; ++c) sums.v[c] += acc[c];
    } else {
      const std::int64_t begin = item * Block;
      const std::int64_t end = begin + Block < n ? begin + Block : n;
      if (sub > 0) gmres_host_subtract(V, w, h, n, sub, begin, end);
      for (int c = 0; c < count; c += gmres_host_columns) {
        const int m = count - c < gmres_host_columns ? count - c : gmres_host_columns;
        double out[gmres_host_columns];
        gmres_host_dots(V, w, n, c0 + c, m, begin, end, out);
        for (int k = 0; k < m; ++k) sums.v[c + k] += out[k];
      }
    }
  }
};

/// w −= V(:, 0:count) h; sum ‖w‖².
template <class Vec, class Basis, class Coefficients, std::int64_t Block, bool Host>
struct GmresSubtract {
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n, items;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, double& ww) const {
    if constexpr (!Host) {
      double acc = 0;
      for (std::int64_t i = item; i < n; i += items) {
        auto wi = w(i);
        for (int c = 0; c < count; ++c) wi -= h(c) * V(c * n + i);
        w(i) = wi;
        acc += static_cast<double>(wi) * static_cast<double>(wi);
      }
      ww += acc;
    } else {
      const std::int64_t begin = item * Block;
      const std::int64_t end = begin + Block < n ? begin + Block : n;
      gmres_host_subtract(V, w, h, n, count, begin, end);
      double s[4] = {0, 0, 0, 0};
      std::int64_t i = begin;
      for (; i + 4 <= end; i += 4) {
        for (int l = 0; l < 4; ++l)
          s[l] += static_cast<double>(w(i + l)) * static_cast<double>(w(i + l));
      }
      for (; i < end; ++i) s[0] += static_cast<double>(w(i)) * static_cast<double>(w(i));
      ww += (s[0] + s[1]) + (s[2] + s[3]);
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

/// sums[0:count) = V(:, c0:c0+count)ᵀ w on `exec`, after w −= V(:, 0:sub) h
/// when sub > 0; one kernel per gmres_dot_width columns (the first one also
/// subtracts), each finished before the host reads its sums.
template <class ExecutionSpace, class Vec, class Basis, class Coefficients>
void gmres_dots(ExecutionSpace const& exec, Basis const& V, Vec const& w, Coefficients const& h,
                std::int64_t n, int sub, int count, double* sums) {
  constexpr std::int64_t block = gmres_block<ExecutionSpace>();
  constexpr bool host = is_host_space_v<ExecutionSpace>;
  const std::int64_t items = gmres_items(n, block);
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>> range(exec, 0, items);
  for (int c0 = 0; c0 < count; c0 += gmres_dot_width) {
    const int width = count - c0 < gmres_dot_width ? count - c0 : gmres_dot_width;
    const int first_sub = c0 == 0 ? sub : 0;
    auto run = [&](auto width_tag) {
      constexpr int B = decltype(width_tag)::value;
      GmresSums<B> result;
      Kokkos::parallel_reduce("SpMVKit::gmres::project", range,
                              GmresDots<Vec, Basis, Coefficients, B, block, host>{
                                  V, w, h, n, items, first_sub, c0, width},
                              result);
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
