#ifndef SPMVKIT_DETAIL_SPMV_SELL_HPP
#define SPMVKIT_DETAIL_SPMV_SELL_HPP

#include <spmvkit/detail/launch_parameters.hpp>
#include <spmvkit/detail/spmv_common.hpp>
#include <spmvkit/sell_matrix.hpp>

#include <Kokkos_Core.hpp>

namespace spmvkit::detail {

/// SELL-C-σ SpMV. A team covers `chunks_per_team` chunks; each of its threads
/// owns RowsPerThread rows of one chunk, lanes lane, lane + T, lane + 2T, ...
/// (T = C / RowsPerThread threads per chunk). On a GPU RowsPerThread = 1 and
/// T = C, so a warp reads one chunk column in one coalesced sweep. On the host
/// one thread owns the whole chunk (RowsPerThread = C) and reads it
/// contiguously, keeping C accumulators in registers.
template <int RowsPerThread, class Matrix, class X, class Y>
struct SellSpmv {
  using Scalar = typename Matrix::value_type;
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> chunk_starts;
  ro_view<Ordinal> chunk_widths;
  ro_view<Ordinal> cols;
  ro_view<Scalar> vals;
  ro_view<Ordinal> perm; // empty when rows are not permuted
  X x;
  Y y;
  Scalar alpha, beta;
  Ordinal num_rows;
  Ordinal num_chunks;
  int chunk_size;
  std::int64_t chunks_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const int threads_per_chunk = chunk_size / RowsPerThread;
    const std::int64_t first_chunk = team.league_rank() * chunks_per_team;
    const bool permuted = perm.extent(0) != 0;
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, chunks_per_team * threads_per_chunk), [&](std::int64_t t) {
          const std::int64_t chunk = first_chunk + t / threads_per_chunk;
          if (chunk >= num_chunks) return;
          const int lane = static_cast<int>(t % threads_per_chunk);
          const Offset base = chunk_starts(chunk) + lane;
          const Ordinal width = chunk_widths(chunk);
          Scalar sum[RowsPerThread];
          for (int r = 0; r < RowsPerThread; ++r) sum[r] = 0;
          for (Ordinal j = 0; j < width; ++j) {
            const Offset slot = base + static_cast<Offset>(j) * chunk_size;
            for (int r = 0; r < RowsPerThread; ++r) {
              sum[r] += vals(slot + r * threads_per_chunk) * x(cols(slot + r * threads_per_chunk));
            }
          }
          for (int r = 0; r < RowsPerThread; ++r) {
            const std::int64_t stored_row = chunk * chunk_size + lane + r * threads_per_chunk;
            if (stored_row < num_rows) {
              const Ordinal row = permuted ? perm(stored_row) : static_cast<Ordinal>(stored_row);
              store_row(y, row, alpha, beta, sum[r]);
            }
          }
        });
  }
};

template <int RowsPerThread, class ExecutionSpace, class Matrix, class X, class Y>
void launch_sell(ExecutionSpace const& exec, LaunchParameters const& p,
                 typename Matrix::value_type alpha, Matrix const& A, X const& x,
                 typename Matrix::value_type beta, Y const& y) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  Kokkos::parallel_for("SpMVKit::spmv::sell", Policy(exec, p.league_size, p.team_size, 1),
                       SellSpmv<RowsPerThread, Matrix, X, Y>{
                           A.chunk_starts(), A.chunk_widths(), A.column_indices(), A.values(),
                           A.row_permutation(), x, y, alpha, beta, A.num_rows(), A.num_chunks(),
                           A.chunk_size(), p.work_per_team});
}

template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_sell(ExecutionSpace const& exec, typename Matrix::value_type alpha, Matrix const& A,
               X const& x, typename Matrix::value_type beta, Y const& y) {
  const LaunchParameters p =
      launch_parameters(exec, KernelKind::sell, A.num_rows(), A.nnz(), A.chunk_size());
  // Only host backends walk whole chunks per thread; GPU builds instantiate
  // the one-row-per-thread kernel alone.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    switch (p.rows_per_thread) {
    case 2: launch_sell<2>(exec, p, alpha, A, x, beta, y); return;
    case 4: launch_sell<4>(exec, p, alpha, A, x, beta, y); return;
    case 8: launch_sell<8>(exec, p, alpha, A, x, beta, y); return;
    case 16: launch_sell<16>(exec, p, alpha, A, x, beta, y); return;
    case 32: launch_sell<32>(exec, p, alpha, A, x, beta, y); return;
    case 64: launch_sell<64>(exec, p, alpha, A, x, beta, y); return;
    default: break;
    }
  }
  launch_sell<1>(exec, p, alpha, A, x, beta, y);
}

} // namespace spmvkit::detail

#endif
