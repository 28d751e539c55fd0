// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_DETAIL_GMRES_KERNELS_HPP
#define SPMVKIT_SOLVERS_DETAIL_GMRES_KERNELS_HPP

// GMRES's kernels over the Krylov basis V (column-major, leading dimension n).
// CGS2 reads V three times per Arnoldi step: h1 = Vᵀw; w −= V h1 fused with
// h2 = Vᵀw (one read of V for both, row by row, up to 32 columns); w −= V h2
// with ‖w‖². Host spaces walk blocks of rows column by column; on GPUs the
// projections stride rows over a league of teams and the subtraction over
// work items (docs/notes/2026-11-27-gmres-cgs2-three-reads.md,
// docs/notes/2026-11-29-gmres-host-blocks.md, docs/notes/2026-11-29-gmres-team-dots.md,
// docs/notes/2026-11-30-gmres-basis-kernels.md).

#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace spmvkit::detail {

/// Rows per work item of the host basis kernels: a contiguous block, long
/// enough that each column is a prefetched stream, short enough that every
/// thread gets about eight items (docs/notes/2026-11-29-gmres-host-blocks.md).
/// GPUs run the team kernel and strided rows.
inline std::int64_t gmres_host_block(std::int64_t n, std::int64_t threads) {
  const std::int64_t t = threads > 0 ? threads : 1;
  const std::int64_t per_item = (n + 8 * t - 1) / (8 * t);
  const std::int64_t rounded = (per_item + 255) / 256 * 256;
  return rounded < 1024 ? 1024 : (rounded > 16384 ? 16384 : rounded);
}

/// Threads per team of the GPU multi-dot: the team's sums of B columns take
/// B (T + 1) doubles of scratch (33 KB at B = 32), under the 48 KB every
/// CUDA device gives without opting in. Host spaces run teams of one.
template <class ExecutionSpace>
constexpr int gmres_team_size() {
  return is_host_space_v<ExecutionSpace> ? 1 : 128;
}

/// Fewest rows per thread of the GPU multi-dot: fewer teams, each team's sums
/// amortised over more rows; faster than one row per thread at moderate n
/// (docs/notes/2026-11-30-gmres-basis-kernels.md).
inline constexpr std::int64_t gmres_device_rows_per_thread = 4;

/// Widest projection one kernel computes: its sums are one fixed-size value.
inline constexpr int gmres_dot_width = 32;

/// Columns one host pass over a block handles: they share each load of w, and
/// with partial sums per column (gmres_host_dots) the add chain no longer
/// bounds the loop (the compiler may not reorder a floating-point sum).
inline constexpr int gmres_host_columns = 4;

/// How the basis kernels walk the rows: `automatic` is `blocks` on host spaces
/// and `teams` on GPUs (the projections' team kernel; for the subtraction,
/// rows strided over work items); the tests run both everywhere.
enum class GmresDotsKernel { automatic, blocks, teams };

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
/// x86-64 (docs/notes/2026-11-29-gmres-host-dots.md).
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

/// Host: optionally w −= V(:, 0:sub) h (sub > 0), then sums[c] = V(:, c0 +
/// c)ᵀ w for c < count <= B, over blocks of `block` rows. The subtraction of a
/// block finishes before its products, so the second read of the block's
/// basis comes from cache.
template <class Vec, class Basis, class Coefficients, int B>
struct GmresHostDots {
  using value_type = GmresSums<B>;
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n, block;
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
    const std::int64_t begin = item * block;
    const std::int64_t end = begin + block < n ? begin + block : n;
    if (sub > 0) gmres_host_subtract(V, w, h, n, sub, begin, end);
    for (int c = 0; c < count; c += gmres_host_columns) {
      const int m = count - c < gmres_host_columns ? count - c : gmres_host_columns;
      double out[gmres_host_columns];
      gmres_host_dots(V, w, n, c0 + c, m, begin, end, out);
      for (int k = 0; k < m; ++k) sums.v[c + k] += out[k];
    }
  }
};

/// Any space (the GPUs' kernel; host spaces run it with teams of one in the
/// tests): the same, with the rows of the whole league strided over its
/// threads (consecutive threads, consecutive rows) and each thread's B sums in
/// registers. The team adds its threads' sums through scratch, transposed so
/// that neither the writes nor the column sums meet bank conflicts, and
/// writes them to partial(league_rank B + c); gmres_team_sums adds the teams.
/// (A Kokkos reduction with a value of B sums ran slower than cuBLAS gemv on
/// an H200; Kokkos keeps that value in shared memory, docs/notes/2026-11-29-gmres-team-dots.md.)
/// `General` subtracts sub columns other than the projected ones (a step of
/// more than gmres_dot_width columns); otherwise sub is 0 or `count` with
/// c0 = 0, and a row's basis entries, loaded once, serve both. Separate
/// instantiations, because both loop bodies in one kernel cost registers and
/// occupancy (docs/notes/2026-11-30-gmres-basis-kernels.md).
template <class ExecutionSpace, class Vec, class Basis, class Coefficients, class Partial, int B,
          bool General = false>
struct GmresTeamDots {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using Scratch =
      Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Basis V;
  Vec w;
  Coefficients h;
  Partial partial;
  std::int64_t n;
  int sub, c0, count;

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_doubles(int team_size) {
    return static_cast<std::size_t>(B) * (static_cast<std::size_t>(team_size) + 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const int T = team.team_size();
    const int t = team.team_rank();
    const std::int64_t stride = static_cast<std::int64_t>(team.league_size()) * T;
    double acc[B];
    for (int c = 0; c < B; ++c) acc[c] = 0;
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * T + t;
    if constexpr (General) {
      for (std::int64_t i = first; i < n; i += stride) {
        auto wi = w(i);
        for (int c = 0; c < sub; ++c) wi -= h(c) * V(c * n + i);
        w(i) = wi;
        const double wd = static_cast<double>(wi);
        // A fixed trip count with a guard keeps acc in registers.
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
        for (int c = 0; c < B; ++c) {
          if (c < count) acc[c] += static_cast<double>(V((c0 + c) * n + i)) * wd;
        }
      }
    } else {
      // All B loads of a row first, so that they are in flight together.
      for (std::int64_t i = first; i < n; i += stride) {
        typename Basis::non_const_value_type v[B];
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
        for (int c = 0; c < B; ++c) {
          v[c] = c < count ? V((c0 + c) * n + i) : 0;
        }
        auto wi = w(i);
        if (sub > 0) {
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
          for (int c = 0; c < B; ++c) {
            if (c < count) wi -= h(c) * v[c];
          }
          w(i) = wi;
        }
        const double wd = static_cast<double>(wi);
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
        for (int c = 0; c < B; ++c) acc[c] += static_cast<double>(v[c]) * wd;
      }
    }
    // Column c of the team's sums at c (T + 1): thread t writes word c (T + 1) + t
    // (consecutive threads, consecutive banks) and column c's thread reads
    // c (T + 1) + k (columns one bank apart).
    Scratch s(team.team_scratch(0), scratch_doubles(T));
    for (int c = 0; c < B; ++c) s(c * (T + 1) + t) = acc[c];
    team.team_barrier();
    for (int c = t; c < count; c += T) {
      double s0 = 0, s1 = 0;
      int k = 0;
      for (; k + 2 <= T; k += 2) {
        s0 += s(c * (T + 1) + k);
        s1 += s(c * (T + 1) + k + 1);
      }
      if (k < T) s0 += s(c * (T + 1) + k);
      partial(static_cast<std::int64_t>(team.league_rank()) * B + c) = s0 + s1;
    }
  }
};

/// sums(offset + c) = Σ_teams partial(team B + c) for c < count: a team per column.
template <class ExecutionSpace, class Partial, class Sums, int B>
struct GmresTeamSums {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Partial partial;
  Sums sums;
  int league;
  int offset = 0;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const int c = team.league_rank();
    double total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, league),
        [&](const int l, double& s) { s += partial(static_cast<std::int64_t>(l) * B + c); }, total);
    Kokkos::single(Kokkos::PerTeam(team), [&] { sums(offset + c) = total; });
  }
};

/// Host: w −= V(:, 0:count) h over blocks of `block` rows; sum ‖w‖².
template <class Vec, class Basis, class Coefficients>
struct GmresSubtract {
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n, block;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, double& ww) const {
    const std::int64_t begin = item * block;
    const std::int64_t end = begin + block < n ? begin + block : n;
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
};

/// GPUs: the same for rows item, item + items, ... (items: as many as the
/// device has thread slots; Kokkos 4.6's reduction runs one per thread, older
/// ones a few per thread), each row's basis entries loaded B at a time in one
/// unrolled batch, so that a thread has B loads in flight; fewer, longer items
/// leave SMs idle at moderate n (docs/notes/2026-11-30-gmres-basis-kernels.md).
template <class Vec, class Basis, class Coefficients, int B>
struct GmresSubtractRows {
  Basis V;
  Vec w;
  Coefficients h;
  std::int64_t n, items;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, double& ww) const {
    double acc = 0;
    for (std::int64_t i = item; i < n; i += items) {
      auto wi = w(i);
      for (int c0 = 0; c0 < count; c0 += B) {
        typename Basis::non_const_value_type v[B];
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
        for (int c = 0; c < B; ++c) {
          v[c] = c0 + c < count ? V(static_cast<std::int64_t>(c0 + c) * n + i) : 0;
        }
#ifdef KOKKOS_ENABLE_PRAGMA_UNROLL
#pragma unroll
#endif
        for (int c = 0; c < B; ++c) {
          if (c0 + c < count) wi -= h(c0 + c) * v[c];
        }
      }
      w(i) = wi;
      acc += static_cast<double>(wi) * static_cast<double>(wi);
    }
    ww += acc;
  }
};

/// w −= V(:, 0:count) h on `exec`, ‖w‖² reduced into `result` (a double or a
/// rank-0 View): by blocks (host spaces) or by rows with the width's registers
/// (GPUs).
template <class ExecutionSpace, class Vec, class Basis, class Coefficients, class Result>
void gmres_subtract_into(ExecutionSpace const& exec, Basis const& V, Vec const& w,
                         Coefficients const& h, std::int64_t n, int count, Result& result,
                         GmresDotsKernel kernel = GmresDotsKernel::automatic) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  if (kernel == GmresDotsKernel::automatic) {
    kernel = is_host_space_v<ExecutionSpace> ? GmresDotsKernel::blocks : GmresDotsKernel::teams;
  }
  if (kernel == GmresDotsKernel::blocks) {
    const std::int64_t block = gmres_host_block(n, exec.concurrency());
    Kokkos::parallel_reduce("SpMVKit::gmres::orthogonalise", Range(exec, 0, gmres_items(n, block)),
                            GmresSubtract<Vec, Basis, Coefficients>{V, w, h, n, block, count},
                            result);
    return;
  }
  const std::int64_t slots = exec.concurrency() > 0 ? exec.concurrency() : 1;
  const std::int64_t items = std::max<std::int64_t>(1, std::min(n, slots));
  auto run = [&](auto width_tag) {
    constexpr int B = decltype(width_tag)::value;
    Kokkos::parallel_reduce(
        "SpMVKit::gmres::orthogonalise", Range(exec, 0, items),
        GmresSubtractRows<Vec, Basis, Coefficients, B>{V, w, h, n, items, count}, result);
  };
  if (count <= 8) {
    run(std::integral_constant<int, 8>{});
  } else if (count <= 16) {
    run(std::integral_constant<int, 16>{});
  } else {
    run(std::integral_constant<int, gmres_dot_width>{});
  }
}

/// V(:, column) = w * scale.
template <class Vec, class Basis>
struct GmresStore {
  Basis V;
  Vec w;
  std::int64_t n, column;
  typename Vec::non_const_value_type scale;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { V(column * n + i) = scale * w(i); }
};

/// V(:, column) = w / sqrt(*ww), the norm's square read on the device.
template <class Vec, class Basis, class Norm>
struct GmresStoreNormalised {
  Basis V;
  Vec w;
  Norm ww;
  std::int64_t n, column;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    using Scalar = typename Vec::non_const_value_type;
    V(column * n + i) = static_cast<Scalar>(1.0 / device_sqrt(ww())) * w(i);
  }
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

/// The device buffers of the team multi-dot (gmres_dots, gmres_cgs2_step_on_device),
/// made once per solve.
template <class ExecutionSpace>
struct GmresDotsWorkspace {
  using Buffer = Kokkos::View<double*, typename ExecutionSpace::memory_space>;
  Buffer partial; ///< league x gmres_dot_width
  Buffer sums;    ///< gmres_dot_width
  typename Buffer::HostMirror sums_host;
  int league = 0;
  int team = 1;
};

/// The team kernel's buffers for n rows: on GPUs one team per T thread slots of
/// the device (fewer are resident at once where registers and scratch limit
/// occupancy; the rest run in later waves), but no fewer than
/// gmres_device_rows_per_thread rows per thread; on host spaces a few teams
/// per thread, never more than the rows need.
template <class ExecutionSpace>
GmresDotsWorkspace<ExecutionSpace> make_gmres_dots_workspace(ExecutionSpace const& exec,
                                                             std::int64_t n) {
  GmresDotsWorkspace<ExecutionSpace> ws;
  ws.team = gmres_team_size<ExecutionSpace>();
  const std::int64_t threads = exec.concurrency() > 0 ? exec.concurrency() : 1;
  const std::int64_t resident = is_host_space_v<ExecutionSpace> ? 4 * threads : threads / ws.team;
  const std::int64_t rows = is_host_space_v<ExecutionSpace> ? 1 : gmres_device_rows_per_thread;
  const std::int64_t needed = (n + ws.team * rows - 1) / (ws.team * rows);
  ws.league = static_cast<int>(std::max<std::int64_t>(1, std::min(resident, needed)));
  using Buffer = typename GmresDotsWorkspace<ExecutionSpace>::Buffer;
  ws.partial = allocate_view<Buffer>(exec, "SpMVKit::gmres::partial_sums",
                                     static_cast<std::int64_t>(ws.league) * gmres_dot_width);
  ws.sums = allocate_view<Buffer>(exec, "SpMVKit::gmres::sums", gmres_dot_width);
  ws.sums_host = Kokkos::create_mirror_view(ws.sums);
  return ws;
}

/// Launches the team multi-dot of `width` <= gmres_dot_width columns from c0
/// (after w −= V(:, 0:sub) h) and the kernel adding its teams' sums into
/// sums(offset : offset + width): the widths' instantiations (a thread's
/// registers grow with B) and the general kernel where sub is neither 0 nor
/// the projected columns.
template <class ExecutionSpace, class Vec, class Basis, class Coefficients, class Sums>
void gmres_team_dots(ExecutionSpace const& exec, Basis const& V, Vec const& w,
                     Coefficients const& h, std::int64_t n, int sub, int c0, int width,
                     GmresDotsWorkspace<ExecutionSpace> const& ws, Sums const& sums, int offset) {
  using Buffer = typename GmresDotsWorkspace<ExecutionSpace>::Buffer;
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  const bool general = !(sub == 0 || (sub == width && c0 == 0));
  auto run = [&](auto width_tag, auto general_tag) {
    constexpr int B = decltype(width_tag)::value;
    using Dots = GmresTeamDots<ExecutionSpace, Vec, Basis, Coefficients, Buffer, B,
                               decltype(general_tag)::value>;
    Kokkos::parallel_for("SpMVKit::gmres::project",
                         Policy(exec, ws.league, ws.team)
                             .set_scratch_size(0, Kokkos::PerTeam(Dots::Scratch::shmem_size(
                                                      Dots::scratch_doubles(ws.team)))),
                         Dots{V, w, h, ws.partial, n, sub, c0, width});
    Kokkos::parallel_for(
        "SpMVKit::gmres::project_sums", Policy(exec, width, Kokkos::AUTO),
        GmresTeamSums<ExecutionSpace, Buffer, Sums, B>{ws.partial, sums, ws.league, offset});
  };
  if (general) {
    run(std::integral_constant<int, gmres_dot_width>{}, std::true_type{});
  } else if (width <= 8) {
    run(std::integral_constant<int, 8>{}, std::false_type{});
  } else if (width <= 16) {
    run(std::integral_constant<int, 16>{}, std::false_type{});
  } else {
    run(std::integral_constant<int, gmres_dot_width>{}, std::false_type{});
  }
}

/// sums[0:count) = V(:, 0:count)ᵀ w on `exec`, after w −= V(:, 0:sub) h when
/// sub > 0; kernels of up to gmres_dot_width columns (the first one also
/// subtracts), each finished before the host reads its sums. `ws` is used by
/// the team kernel only.
template <class ExecutionSpace, class Vec, class Basis, class Coefficients>
void gmres_dots(ExecutionSpace const& exec, Basis const& V, Vec const& w, Coefficients const& h,
                std::int64_t n, int sub, int count, double* sums,
                GmresDotsWorkspace<ExecutionSpace> const& ws,
                GmresDotsKernel kernel = GmresDotsKernel::automatic) {
  constexpr bool host = is_host_space_v<ExecutionSpace>;
  if (kernel == GmresDotsKernel::automatic)
    kernel = host ? GmresDotsKernel::blocks : GmresDotsKernel::teams;
  if (kernel == GmresDotsKernel::teams && (ws.league < 1 || ws.team < 1)) {
    throw std::logic_error("spmvkit::detail::gmres_dots: the team kernel needs a workspace from "
                           "make_gmres_dots_workspace");
  }
  const std::int64_t block = gmres_host_block(n, exec.concurrency());
  const std::int64_t items = gmres_items(n, block);
  for (int c0 = 0; c0 < count; c0 += gmres_dot_width) {
    const int width = count - c0 < gmres_dot_width ? count - c0 : gmres_dot_width;
    const int first_sub = c0 == 0 ? sub : 0;
    if (kernel == GmresDotsKernel::teams) {
      gmres_team_dots(exec, V, w, h, n, first_sub, c0, width, ws, ws.sums, 0);
      Kokkos::deep_copy(exec, ws.sums_host, ws.sums);
      exec.fence();
      for (int c = 0; c < width; ++c) sums[c0 + c] = ws.sums_host(c);
      continue;
    }
    auto run = [&](auto width_tag) {
      constexpr int B = decltype(width_tag)::value;
      GmresSums<B> result;
      Kokkos::parallel_reduce(
          "SpMVKit::gmres::project",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, items),
          GmresHostDots<Vec, Basis, Coefficients, B>{V, w, h, n, block, first_sub, c0, width},
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

/// One CGS2 step of a single process with every sum left on the device, for
/// GPUs, where each host read of the sums is a fence and a copy, and the GPU
/// idles until the host launches again (docs/notes/2026-11-30-gmres-device-step.md).
/// Enqueues on `exec`, over the first `count` columns of V: step(0:count) = h1 = Vᵀw;
/// w −= V h1 and step(stride : stride + count) = h2 = Vᵀw; w −= V h2;
/// step(2 stride) = ‖w‖²; V(:, count) = w / ‖w‖. Nothing is read back: the caller
/// copies `step` (2 stride + 1 doubles, stride > count) once. The host's h is h1 + h2.
/// `subtraction` picks the last subtraction's kernel (as gmres_subtract; tests).
template <class ExecutionSpace, class Vec, class Basis, class Step>
void gmres_cgs2_step_on_device(ExecutionSpace const& exec, Basis const& V, Vec const& w,
                               std::int64_t n, int count, Step const& step, int stride,
                               GmresDotsWorkspace<ExecutionSpace> const& ws,
                               GmresDotsKernel subtraction = GmresDotsKernel::automatic) {
  if (ws.league < 1 || ws.team < 1 || stride <= count ||
      static_cast<std::int64_t>(step.extent(0)) < 2 * static_cast<std::int64_t>(stride) + 1) {
    throw std::logic_error("spmvkit::detail::gmres_cgs2_step_on_device: needs a workspace from "
                           "make_gmres_dots_workspace and a step buffer of 2 stride + 1 entries, "
                           "stride > count");
  }
  using Coefficients = Kokkos::View<const double*, typename ExecutionSpace::memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Coefficients h1(step.data(), stride);
  for (int pass = 0; pass < 2; ++pass) {
    for (int c0 = 0; c0 < count; c0 += gmres_dot_width) {
      const int width = count - c0 < gmres_dot_width ? count - c0 : gmres_dot_width;
      const int sub = pass == 1 && c0 == 0 ? count : 0;
      gmres_team_dots(exec, V, w, h1, n, sub, c0, width, ws, step, pass * stride + c0);
    }
  }
  const Coefficients h2(step.data() + stride, stride);
  const Kokkos::View<double, typename ExecutionSpace::memory_space,
                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      ww(step.data() + 2 * static_cast<std::int64_t>(stride));
  gmres_subtract_into(exec, V, w, h2, n, count, ww, subtraction);
  Kokkos::parallel_for(
      "SpMVKit::gmres::next_vector",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      GmresStoreNormalised<Vec, Basis, std::decay_t<decltype(ww)>>{V, w, ww, n, count});
}

/// w −= V(:, 0:count) h on `exec`; returns ‖w‖² (this process's rows).
template <class ExecutionSpace, class Vec, class Basis, class Coefficients>
double gmres_subtract(ExecutionSpace const& exec, Basis const& V, Vec const& w,
                      Coefficients const& h, std::int64_t n, int count,
                      GmresDotsKernel kernel = GmresDotsKernel::automatic) {
  double ww = 0;
  gmres_subtract_into(exec, V, w, h, n, count, ww, kernel);
  return ww;
}

} // namespace spmvkit::detail

#endif
