// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_ELL_DETAIL_ELL_KERNELS_HPP
#define SPMVKIT_FORMATS_ELL_DETAIL_ELL_KERNELS_HPP

// Kernels of ELL and ELL-R: SpMV and diagonal. Templated on the matrix type,
// so this header does not need ell_matrix.hpp.
#include <spmvkit/core/detail/kernel_common.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace spmvkit::detail {

/// How many strips ahead a host ELL strip prefetches its column streams.
inline constexpr std::uintptr_t host_ell_prefetch_strips = 8;

/// SpMV on an n x w column-major block (entry j of row i at j * n + i) for
/// every width policy. A team covers strips_per_team strips of RowsPerThread
/// consecutive rows, one strip per thread:
/// - on a GPU RowsPerThread = 1, so the threads of a warp take 32
///   consecutive rows and each column step is one coalesced 32-entry read
///   (the reason ELL is column-major);
/// - on the host a team is one thread and RowsPerThread > 1: it walks its
///   strip column by column, so that each step reads RowsPerThread
///   contiguous values and columns (a cache line of doubles for 8 rows) into
///   as many register accumulators, instead of one entry n slots away from
///   the last. ELL-R (Width::stops_at_row_length) walks to the strip's
///   longest row and skips each row's terms past its length: padding never
///   enters a sum, though the cache lines it shares with longer rows of the
///   strip are read, as in SELL-8. Walking each row of the strip on its own
///   instead (no padding read at all) ran several times slower on host: every step jumps
///   n entries and the prefetchers lose track
///   (docs/notes/2026-11-23-host-strips.md).
/// The width loop is unrolled Unroll times (loads first, then the multiplies)
/// so that a GPU thread has that many independent loads in flight; matrix
/// entries are read once and loaded as streaming data so that x keeps the
/// cache. The last strip, when n is not a multiple of RowsPerThread, runs row
/// by row.
template <int RowsPerThread, int Unroll, class Matrix, class X, class Y>
struct EllSpmv {
  using Scalar = typename Matrix::value_type;
  using Acc = spmv_scalar_t<Matrix, Y>; // sums, alpha and beta (kernel_common.hpp)
  using Sum = spmv_sum_t<Acc, Y>;       // Lanes<Acc, K> for a block of K columns
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using Width = typename Matrix::width_policy;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Ordinal> cols;
  ro_view<Scalar> vals;
  ro_view<Ordinal> lengths;
  X x;
  Y y;
  Acc alpha, beta;
  Ordinal num_rows;
  Ordinal width;
  int strips_per_team;
  bool prefetch = false; ///< host: prefetch the strips' column runs ahead (LaunchParameters)

  // Rows first_row .. first_row + Rows - 1 (all below num_rows), column by
  // column: ELL to the full width; ELL-R to the longest of these rows, each
  // row's terms past its own length skipped. Every row is long enough up to
  // the shortest, so only the columns between shortest and longest test the
  // lengths (none on a GPU, Rows = 1, nor in a strip of equal rows).
  template <int Rows, bool Prefetch = false>
  KOKKOS_FORCEINLINE_FUNCTION void walk(Ordinal first_row) const {
    Ordinal length[Rows];
    Ordinal shortest = width, longest = width;
    int widest = 0; // a row as long as the strip's longest: a real column at every j < longest
    if constexpr (Width::stops_at_row_length) {
      for (int r = 0; r < Rows; ++r) {
        length[r] = lengths(first_row + r);
        shortest = r == 0 || length[r] < shortest ? length[r] : shortest;
        if (r == 0 || length[r] > longest) {
          longest = length[r];
          widest = r;
        }
      }
    }
    Ordinal const* const col_ptr = cols.data() + first_row;
    Scalar const* const val_ptr = vals.data() + first_row;
    if constexpr (Prefetch) {
      // A host strip reads one short run in each of `longest` column streams, more than the
      // hardware prefetchers follow at once: the same runs host_ell_prefetch_strips strips
      // ahead (the whole distance of the other kernels would leave the thread's strips).
      for (Ordinal j = 0; j < longest; ++j) {
        const Offset slot = static_cast<Offset>(j) * num_rows;
        host_prefetch_ahead(val_ptr + slot, val_ptr + slot + Rows,
                            host_ell_prefetch_strips * Rows * sizeof(Scalar));
        host_prefetch_ahead(col_ptr + slot, col_ptr + slot + Rows,
                            host_ell_prefetch_strips * Rows * sizeof(Ordinal));
      }
    }
    const auto xs = host_columns_on<typename Matrix::execution_space>(x);
    Sum sum[Rows];
    for (int r = 0; r < Rows; ++r) sum[r] = 0;
    Ordinal j = 0;
    for (; j + Unroll <= shortest; j += Unroll) {
      Ordinal c[Unroll][Rows];
      Scalar v[Unroll][Rows];
      for (int u = 0; u < Unroll; ++u) {
        const Offset slot = static_cast<Offset>(j + u) * num_rows;
        for (int r = 0; r < Rows; ++r) {
          c[u][r] = load_streaming(col_ptr + slot + r);
          v[u][r] = load_streaming(val_ptr + slot + r);
        }
      }
      for (int u = 0; u < Unroll; ++u)
        for (int r = 0; r < Rows; ++r) sum[r] += widened_product<Sum>(v[u][r], xs(c[u][r]));
    }
    for (; j < shortest; ++j) {
      const Offset slot = static_cast<Offset>(j) * num_rows;
      for (int r = 0; r < Rows; ++r)
        sum[r] += widened_product<Sum>(load_streaming(val_ptr + slot + r),
                                       xs(load_streaming(col_ptr + slot + r)));
    }
    if constexpr (Width::stops_at_row_length && Rows > 1) {
      // Every term is computed and a padded one dropped by a select: a branch per entry
      // mispredicted on rows of mixed lengths. A padded slot reads x at the widest row's column,
      // so padding that a caller's arrays leave invalid is never used as an index.
      for (; j < longest; ++j) {
        const Offset slot = static_cast<Offset>(j) * num_rows;
        const Ordinal real = load_streaming(col_ptr + slot + widest);
        for (int r = 0; r < Rows; ++r) {
          const bool stored = j < length[r];
          const Ordinal c = load_streaming(col_ptr + slot + r);
          const Sum term =
              widened_product<Sum>(load_streaming(val_ptr + slot + r), xs(stored ? c : real));
          sum[r] = stored ? sum[r] + term : sum[r];
        }
      }
    }
    for (int r = 0; r < Rows; ++r) store_row(y, first_row + r, alpha, beta, sum[r]);
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t first_strip =
        static_cast<std::int64_t>(team.league_rank()) * strips_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, strips_per_team), [&](int s) {
      const std::int64_t first_row = (first_strip + s) * RowsPerThread;
      if (first_row >= num_rows) return;
      if (first_row + RowsPerThread <= num_rows) {
        // Compiled apart: the prefetch loop in the walk slowed strips that skip it. GPU builds
        // and one-row strips never prefetch, so they compile the plain walk alone.
        if constexpr (RowsPerThread > 1 && is_host_space_v<typename Matrix::execution_space>) {
          if (prefetch) {
            walk<RowsPerThread, true>(static_cast<Ordinal>(first_row));
            return;
          }
        }
        walk<RowsPerThread>(static_cast<Ordinal>(first_row));
      } else {
        for (auto row = static_cast<Ordinal>(first_row); row < num_rows; ++row) walk<1>(row);
      }
    });
  }
};

template <int RowsPerThread, int Unroll, class ExecutionSpace, class Matrix, class X, class Y>
void launch_ell(ExecutionSpace const& exec, LaunchParameters const& p,
                spmv_scalar_t<Matrix, Y> alpha, Matrix const& A, X const& x,
                spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  using Width = typename Matrix::width_policy;
  parallel_for_teams(std::string(Width::label) + "spmv", exec, p,
                     EllSpmv<RowsPerThread, Unroll, Matrix, X, Y>{
                         A.column_indices(), A.values(), A.row_lengths(), x, y, alpha, beta,
                         A.num_rows(), A.width(), static_cast<int>(p.work_per_team),
                         p.host_prefetch});
}

template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_ell(ExecutionSpace const& exec, spmv_scalar_t<Matrix, Y> alpha, Matrix const& A,
              X const& x, spmv_scalar_t<Matrix, Y> beta, Y const& y) {
  using Width = typename Matrix::width_policy;
  // The entries the kernel walks size the host's teams.
  const std::int64_t walked = Width::stops_at_row_length
                                  ? static_cast<std::int64_t>(A.nnz())
                                  : static_cast<std::int64_t>(A.stored_entries());
  const LaunchParameters p =
      padded_rows_launch_parameters(exec, KernelKind::column_major_rows, A.num_rows(), walked,
                                    A.nnz(), 1, [&] { return std::int64_t(A.width()); });
  if (p.league_size == 0) return; // no rows
  // GPU builds instantiate the one-row-per-thread kernel alone.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    // launch_parameters gives host strips of column_major_host_rows_per_thread
    // rows; their accumulators already give the host independent work: no
    // unrolling.
    if constexpr (is_multi_vector_v<Y>) {
      // Fewer rows per strip, as many more strips per team: the same rows.
      constexpr int rows = host_rows_per_thread(column_major_host_rows_per_thread, Y::lanes);
      LaunchParameters q = p;
      q.work_per_team *= column_major_host_rows_per_thread / rows;
      launch_ell<rows, 1>(exec, q, alpha, A, x, beta, y);
    } else {
      launch_ell<column_major_host_rows_per_thread, 1>(exec, p, alpha, A, x, beta, y);
    }
  } else {
    launch_ell<1, column_major_gpu_unroll>(exec, p, alpha, A, x, beta, y);
  }
}

/// d(row) = sum of the row's entries in column row, for any row source (ELL's
/// walks the row's own length: padding holds 0 anyway).
template <class Source, class Diag>
struct SourceDiagonal {
  using Ordinal = typename Source::ordinal_type;
  Source source;
  Diag diag;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row) const {
    double d = 0;
    source.for_each_entry(row, [&](Ordinal col, typename Source::value_type value) {
      if (col == row) d += static_cast<double>(value);
    });
    diag(row) = static_cast<typename Diag::value_type>(d);
  }
};

} // namespace spmvkit::detail

#endif
