#ifndef SPMVKIT_SELL16_MATRIX_HPP
#define SPMVKIT_SELL16_MATRIX_HPP

#include <spmvkit/crs_matrix.hpp>
#include <spmvkit/detail/launch_parameters.hpp>
#include <spmvkit/detail/memory.hpp>
#include <spmvkit/detail/spmv_common.hpp>
#include <spmvkit/sell_matrix.hpp>
#include <spmvkit/spmv.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

/// SELL-C-σ with 16-bit column offsets: the layout of SellMatrix (chunks of C
/// rows, column-major inside a chunk, optional σ-window sort, row_lengths for
/// exact round trips), but each entry stores col - row as std::int16_t, where
/// row is the entry's original row (row_permutation()(stored_row) when
/// permuted). SpMV is memory-bound and moves value + index per entry, so this
/// cuts the traffic from 12 to 10 bytes per entry in double (8 to 6 in float),
/// for matrices whose entries all lie within [-32768, 32767] of the diagonal:
/// banded and stencil matrices such as the 27-point FEM matrix (offsets up to
/// n^2 + n + 1, 25,761 for 160^3 unknowns).
///
/// Padding must address a valid x entry, because the kernel multiplies it
/// (value 0) like any other entry, and an x read out of bounds is a fault or
/// NaN * 0. A non-empty row pads with the offset of its first entry, as
/// SellMatrix does. An empty row pads with the valid column nearest to it,
/// min(row, num_cols - 1); the stored rows past num_rows that complete the
/// last chunk are treated as empty rows numbered 0. An empty row more than
/// 32768 rows below the last column cannot reach any x entry, so
/// make_sell16() rejects a matrix with such rows (num_rows > num_cols + 32768)
/// unless it has no entries at all (then every chunk has width 0 and nothing
/// is padded). Such rows can hold no entry anyway: any column would be out of
/// reach. As in SellMatrix, a NaN or Inf in an x entry that padding reads
/// makes the padded row NaN.
template <class Scalar, class ExecutionSpace, class Ordinal = int, class Offset = int>
class Sell16Matrix {
  static_assert(std::is_floating_point_v<Scalar>, "Sell16Matrix: Scalar must be floating-point");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>,
                "Sell16Matrix: Ordinal must be a signed integral type");
  static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= sizeof(Ordinal),
                "Sell16Matrix: Offset must be integral and at least as wide as Ordinal");

public:
  using value_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using chunk_starts_type = Kokkos::View<Offset*, device_type>;
  using ordinals_type = Kokkos::View<Ordinal*, device_type>;
  using column_offsets_type = Kokkos::View<std::int16_t*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;

  Sell16Matrix() = default;

  /// Takes ownership of already-built arrays; use make_sell16() to convert a
  /// CrsMatrix. The arguments are those of SellMatrix, with column offsets in
  /// place of column indices.
  Sell16Matrix(std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz, int chunk_size,
               std::int64_t sigma, chunk_starts_type chunk_starts, ordinals_type chunk_widths,
               column_offsets_type column_offsets, values_type values,
               ordinals_type row_permutation, ordinals_type row_lengths)
      : num_rows_(detail::checked_index<Ordinal>(num_rows, "num_rows", "spmvkit::Sell16Matrix")),
        num_cols_(detail::checked_index<Ordinal>(num_cols, "num_cols", "spmvkit::Sell16Matrix")),
        nnz_(detail::checked_index<Offset>(nnz, "nnz", "spmvkit::Sell16Matrix")),
        chunk_size_(chunk_size), sigma_(sigma), chunk_starts_(chunk_starts),
        chunk_widths_(chunk_widths), column_offsets_(column_offsets), values_(values),
        row_permutation_(row_permutation), row_lengths_(row_lengths) {
    const std::string where = "spmvkit::Sell16Matrix: ";
    if (chunk_size < 1 || sigma < 1) {
      throw std::invalid_argument(
          where + "chunk size C and sigma must be >= 1, got C = " + std::to_string(chunk_size) +
          ", sigma = " + std::to_string(sigma));
    }
    const std::int64_t chunks = (num_rows + chunk_size - 1) / chunk_size;
    if (static_cast<std::int64_t>(chunk_starts_.extent(0)) != chunks + 1 ||
        static_cast<std::int64_t>(chunk_widths_.extent(0)) != chunks) {
      throw std::invalid_argument(where + "chunk_starts/chunk_widths must have num_chunks + 1 = " +
                                  std::to_string(chunks + 1) + " / " + std::to_string(chunks) +
                                  " entries");
    }
    if (column_offsets_.extent(0) != values_.extent(0)) {
      throw std::invalid_argument(where + "column_offsets and values differ in length");
    }
    if (sigma > 1 && static_cast<std::int64_t>(row_permutation_.extent(0)) != num_rows) {
      throw std::invalid_argument(where + "sigma > 1 needs a row permutation of num_rows entries");
    }
  }

  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return num_rows_; }
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return num_cols_; }
  /// Nonzeros of the original matrix, padding excluded.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return nnz_; }
  /// Entries actually stored (nonzeros plus padding).
  KOKKOS_INLINE_FUNCTION Offset stored_entries() const {
    return static_cast<Offset>(values_.extent(0));
  }
  KOKKOS_INLINE_FUNCTION int chunk_size() const { return chunk_size_; }
  KOKKOS_INLINE_FUNCTION Ordinal num_chunks() const {
    return static_cast<Ordinal>(chunk_widths_.extent(0));
  }
  std::int64_t sigma() const { return sigma_; }
  /// stored_entries / nnz: 1 means no padding. 1 for an empty matrix.
  double padding_ratio() const {
    return nnz_ == 0 ? 1.0 : static_cast<double>(stored_entries()) / static_cast<double>(nnz_);
  }
  bool is_permuted() const { return row_permutation_.extent(0) != 0; }

  chunk_starts_type const& chunk_starts() const { return chunk_starts_; }
  ordinals_type const& chunk_widths() const { return chunk_widths_; }
  /// col - original row of each stored entry, in the layout of values().
  column_offsets_type const& column_offsets() const { return column_offsets_; }
  values_type const& values() const { return values_; }
  /// Stored row -> original row; empty when sigma == 1 (identity).
  ordinals_type const& row_permutation() const { return row_permutation_; }
  ordinals_type const& row_lengths() const { return row_lengths_; }

private:
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  Offset nnz_ = 0;
  int chunk_size_ = 1;
  std::int64_t sigma_ = 1;
  chunk_starts_type chunk_starts_;
  ordinals_type chunk_widths_;
  column_offsets_type column_offsets_;
  values_type values_;
  ordinals_type row_permutation_;
  ordinals_type row_lengths_;
};

template <class T>
struct is_sell16_matrix : std::false_type {};
template <class S, class E, class O, class F>
struct is_sell16_matrix<Sell16Matrix<S, E, O, F>> : std::true_type {};
template <class T>
inline constexpr bool is_sell16_matrix_v = is_sell16_matrix<T>::value;
template <class S, class E, class O, class F>
struct is_spmvkit_matrix<Sell16Matrix<S, E, O, F>> : std::true_type {};

namespace detail {

inline constexpr std::int64_t sell16_min_offset = -32768;
inline constexpr std::int64_t sell16_max_offset = 32767;

/// Finds the first row with an entry out of int16 reach (val = row, loc = its
/// column); rows are visited in increasing order per thread, so a thread
/// stops looking once it holds a lower row.
template <class Ordinal, class Offset, class Device>
struct Sell16OffsetCheck {
  using value_type = typename Kokkos::MinLoc<Ordinal, Ordinal>::value_type;
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> cols;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row, value_type& first) const {
    if (row >= first.val) return;
    for (Offset k = row_starts(row); k < row_starts(row + 1); ++k) {
      const std::int64_t offset = static_cast<std::int64_t>(cols(k)) - row;
      if (offset < sell16_min_offset || offset > sell16_max_offset) {
        first.val = row;
        first.loc = cols(k);
        return;
      }
    }
  }
};

/// Why A cannot be stored as Sell16Matrix, or "" if it can (see the padding
/// rule on Sell16Matrix). Costs one pass over the column indices.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
std::string sell16_obstacle(ExecutionSpace const& exec,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using Device = typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::device_type;
  using Reducer = Kokkos::MinLoc<Ordinal, Ordinal>;
  typename Reducer::value_type first;
  Kokkos::parallel_reduce(
      "SpMVKit::Sell16::check_offsets",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>(exec, 0, A.num_rows()),
      Sell16OffsetCheck<Ordinal, Offset, Device>{A.row_starts(), A.column_indices()},
      Reducer(first));
  if (first.val < A.num_rows()) { // MinLoc starts at the largest Ordinal
    const std::int64_t row = first.val, col = first.loc;
    return "row " + std::to_string(row) + " has column " + std::to_string(col) + ", offset " +
           std::to_string(col - row) + " outside int16";
  }
  const std::int64_t reachable_rows = static_cast<std::int64_t>(A.num_cols()) - sell16_min_offset;
  if (A.nnz() > 0 && A.num_rows() > reachable_rows) {
    return "row " + std::to_string(reachable_rows) +
           " has no entries and lies more than 32768 rows past the last column, so its "
           "padding could not address x";
  }
  return "";
}

/// One thread per stored row, like FillSell, writing col - row offsets.
template <class Scalar, class Ordinal, class Offset, class Device>
struct FillSell16 {
  Kokkos::View<const Offset*, Device> crs_starts;
  Kokkos::View<const Ordinal*, Device> crs_cols;
  Kokkos::View<const Scalar*, Device> crs_vals;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const Ordinal*, Device> widths;
  Kokkos::View<std::int16_t*, Device> offsets;
  Kokkos::View<Scalar*, Device> vals;
  Ordinal num_rows;
  Ordinal num_cols;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    const Ordinal chunk = static_cast<Ordinal>(stored_row / chunk_size);
    const Ordinal width = widths(chunk);
    // A chunk of width 0 stores nothing; otherwise num_cols > 0.
    if (width == 0) return;
    const Offset base = chunk_starts(chunk) + static_cast<Offset>(stored_row % chunk_size);
    // Must agree with Sell16Spmv: rows past num_rows count as empty row 0.
    Ordinal row = 0;
    Offset begin = 0, length = 0;
    if (stored_row < num_rows) {
      row = perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row);
      begin = crs_starts(row);
      length = crs_starts(row + 1) - begin;
    }
    const Ordinal pad_col = length > 0 ? crs_cols(begin) : (row < num_cols ? row : num_cols - 1);
    for (Ordinal j = 0; j < width; ++j) {
      const Offset slot = base + static_cast<Offset>(j) * chunk_size;
      const bool entry = j < length;
      offsets(slot) = static_cast<std::int16_t>((entry ? crs_cols(begin + j) : pad_col) - row);
      vals(slot) = entry ? crs_vals(begin + j) : Scalar(0);
    }
  }
};

template <class Scalar, class Ordinal, class Offset, class Device>
struct Sell16ToCrs {
  Kokkos::View<const Offset*, Device> chunk_starts;
  Kokkos::View<const std::int16_t*, Device> offsets;
  Kokkos::View<const Scalar*, Device> sell_vals;
  Kokkos::View<const Ordinal*, Device> perm;
  Kokkos::View<const Ordinal*, Device> lengths;
  Kokkos::View<const Offset*, Device> crs_starts;
  Kokkos::View<Ordinal*, Device> crs_cols;
  Kokkos::View<Scalar*, Device> crs_vals;
  int chunk_size;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t stored_row) const {
    const Ordinal chunk = static_cast<Ordinal>(stored_row / chunk_size);
    const Offset base = chunk_starts(chunk) + static_cast<Offset>(stored_row % chunk_size);
    const Ordinal row = perm.extent(0) ? perm(stored_row) : static_cast<Ordinal>(stored_row);
    const Offset out = crs_starts(row);
    for (Ordinal j = 0; j < lengths(row); ++j) {
      const Offset slot = base + static_cast<Offset>(j) * chunk_size;
      crs_cols(out + j) = static_cast<Ordinal>(row + offsets(slot));
      crs_vals(out + j) = sell_vals(slot);
    }
  }
};

/// The SELL kernel (detail/spmv_sell.hpp: team and thread layout, unrolling,
/// streaming loads, 32-bit index math) reading 16-bit offsets. Each thread
/// loads the original rows of its RowsPerThread rows once, before the width
/// loop, so that a column costs one integer add.
template <int RowsPerThread, int Unroll, class Matrix, class X, class Y>
struct Sell16Spmv {
  using Scalar = typename Matrix::value_type;
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  using Device = typename Matrix::device_type;
  using member_type = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  template <class T>
  using ro_view = Kokkos::View<const T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  ro_view<Offset> chunk_starts;
  ro_view<Ordinal> chunk_widths;
  ro_view<std::int16_t> offsets;
  ro_view<Scalar> vals;
  ro_view<Ordinal> perm; // empty when rows are not permuted
  X x;
  Y y;
  Scalar alpha, beta;
  Ordinal num_rows;
  Ordinal num_chunks;
  int chunk_size;
  int chunks_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const int threads_per_chunk = chunk_size / RowsPerThread;
    const Ordinal first_chunk = static_cast<Ordinal>(team.league_rank()) * chunks_per_team;
    const bool permuted = perm.extent(0) != 0;
    std::int16_t const* const off_ptr = offsets.data();
    Scalar const* const val_ptr = vals.data();
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, chunks_per_team * threads_per_chunk), [&](int t) {
          const Ordinal chunk = first_chunk + t / threads_per_chunk;
          if (chunk >= num_chunks) return;
          const int lane = t % threads_per_chunk;
          const Offset base = chunk_starts(chunk) + lane;
          const Ordinal width = chunk_widths(chunk);
          // Rows past num_rows (tail of the last chunk) were padded as row 0.
          Ordinal row[RowsPerThread];
          for (int r = 0; r < RowsPerThread; ++r) {
            const Ordinal stored_row = chunk * chunk_size + lane + r * threads_per_chunk;
            row[r] = stored_row >= num_rows ? Ordinal(0) : permuted ? perm(stored_row) : stored_row;
          }
          Scalar sum[RowsPerThread];
          for (int r = 0; r < RowsPerThread; ++r) sum[r] = 0;
          Ordinal j = 0;
          for (; j + Unroll <= width; j += Unroll) {
            Ordinal c[Unroll][RowsPerThread];
            Scalar v[Unroll][RowsPerThread];
            for (int u = 0; u < Unroll; ++u) {
              const Offset slot = base + static_cast<Offset>(j + u) * chunk_size;
              for (int r = 0; r < RowsPerThread; ++r) {
                c[u][r] = row[r] + load_streaming(off_ptr + slot + r * threads_per_chunk);
                v[u][r] = load_streaming(val_ptr + slot + r * threads_per_chunk);
              }
            }
            for (int u = 0; u < Unroll; ++u)
              for (int r = 0; r < RowsPerThread; ++r) sum[r] += v[u][r] * x(c[u][r]);
          }
          for (; j < width; ++j) {
            const Offset slot = base + static_cast<Offset>(j) * chunk_size;
            for (int r = 0; r < RowsPerThread; ++r) {
              sum[r] += load_streaming(val_ptr + slot + r * threads_per_chunk) *
                        x(row[r] + load_streaming(off_ptr + slot + r * threads_per_chunk));
            }
          }
          for (int r = 0; r < RowsPerThread; ++r) {
            if (chunk * chunk_size + lane + r * threads_per_chunk < num_rows) {
              store_row(y, row[r], alpha, beta, sum[r]);
            }
          }
        });
  }
};

template <int RowsPerThread, int Unroll, class ExecutionSpace, class Matrix, class X, class Y>
void launch_sell16(ExecutionSpace const& exec, LaunchParameters const& p,
                   typename Matrix::value_type alpha, Matrix const& A, X const& x,
                   typename Matrix::value_type beta, Y const& y) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  Kokkos::parallel_for("SpMVKit::spmv::sell16", Policy(exec, p.league_size, p.team_size, 1),
                       Sell16Spmv<RowsPerThread, Unroll, Matrix, X, Y>{
                           A.chunk_starts(), A.chunk_widths(), A.column_offsets(), A.values(),
                           A.row_permutation(), x, y, alpha, beta, A.num_rows(), A.num_chunks(),
                           A.chunk_size(), static_cast<int>(p.work_per_team)});
}

template <class ExecutionSpace, class Matrix, class X, class Y>
void spmv_sell16(ExecutionSpace const& exec, typename Matrix::value_type alpha, Matrix const& A,
                 X const& x, typename Matrix::value_type beta, Y const& y) {
  const LaunchParameters p =
      launch_parameters(exec, KernelKind::sell, A.num_rows(), A.nnz(), A.chunk_size());
  // The instantiations of spmv_sell(): whole chunks per host thread, one row
  // per GPU thread with the width loop unrolled.
  if constexpr (is_host_space_v<ExecutionSpace>) {
    switch (p.rows_per_thread) {
    case 2: launch_sell16<2, 1>(exec, p, alpha, A, x, beta, y); return;
    case 4: launch_sell16<4, 1>(exec, p, alpha, A, x, beta, y); return;
    case 8: launch_sell16<8, 1>(exec, p, alpha, A, x, beta, y); return;
    case 16: launch_sell16<16, 1>(exec, p, alpha, A, x, beta, y); return;
    case 32: launch_sell16<32, 1>(exec, p, alpha, A, x, beta, y); return;
    case 64: launch_sell16<64, 1>(exec, p, alpha, A, x, beta, y); return;
    default: launch_sell16<1, 1>(exec, p, alpha, A, x, beta, y); return;
    }
  } else {
    launch_sell16<1, sell_gpu_unroll>(exec, p, alpha, A, x, beta, y);
  }
}

} // namespace detail

/// Whether make_sell16() accepts A: every column within int16 reach of its
/// row, and no empty row whose padding could not reach x (see Sell16Matrix).
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
bool can_use_sell16(ExecutionSpace const& exec,
                    CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  return detail::sell16_obstacle(exec, A).empty();
}

/// Converts CRS to SELL-C-σ with 16-bit offsets on A's execution space, with
/// the chunking, σ-window sort and padding widths of make_sell(). Checks first
/// that the matrix fits (std::invalid_argument naming the first offending row
/// otherwise); the check and the stored size are the only values that travel
/// to the host.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell16(ExecutionSpace const& exec, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
            int chunk_size, std::int64_t sigma = 1) {
  using Sell = Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Sell::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  if (chunk_size < 1 || sigma < 1) {
    throw std::invalid_argument("spmvkit::make_sell16: chunk size C and sigma must be >= 1, got "
                                "C = " +
                                std::to_string(chunk_size) + ", sigma = " + std::to_string(sigma));
  }
  const std::string obstacle = detail::sell16_obstacle(exec, A);
  if (!obstacle.empty()) {
    throw std::invalid_argument("spmvkit::make_sell16: " + obstacle + "; use SellMatrix");
  }
  const Ordinal n = A.num_rows();
  const std::int64_t num_chunks = (static_cast<std::int64_t>(n) + chunk_size - 1) / chunk_size;
  detail::checked_index<Ordinal>(num_chunks * chunk_size, "rows padded to a multiple of C",
                                 "spmvkit::make_sell16");

  auto lengths =
      detail::allocate_view<typename Sell::ordinals_type>(exec, "SpMVKit::Sell16::row_lengths", n);
  Kokkos::parallel_for("SpMVKit::Sell16::row_lengths", Range(exec, 0, n),
                       detail::CrsRowLengths<Ordinal, Offset, Device>{A.row_starts(), lengths});

  typename Sell::ordinals_type perm;
  if (sigma > 1) {
    perm = detail::allocate_view<typename Sell::ordinals_type>(
        exec, "SpMVKit::Sell16::row_permutation", n);
    const std::int64_t windows = (static_cast<std::int64_t>(n) + sigma - 1) / sigma;
    Kokkos::parallel_for("SpMVKit::Sell16::sort_windows", Range64(exec, 0, windows),
                         detail::SortWindows<Ordinal, Device>{perm, lengths, sigma, n});
  }

  auto widths = detail::allocate_view<typename Sell::ordinals_type>(
      exec, "SpMVKit::Sell16::chunk_widths", num_chunks);
  std::int64_t stored = 0;
  Kokkos::parallel_reduce(
      "SpMVKit::Sell16::chunk_widths", Range(exec, 0, static_cast<Ordinal>(num_chunks)),
      detail::ChunkWidths<Ordinal, Offset, Device>{lengths, perm, widths, n, chunk_size}, stored);
  detail::checked_index<Offset>(stored, "stored entries (nonzeros + padding)",
                                "spmvkit::make_sell16");

  auto starts = detail::allocate_view<typename Sell::chunk_starts_type>(
      exec, "SpMVKit::Sell16::chunk_starts", num_chunks + 1);
  if (num_chunks == 0) {
    Kokkos::deep_copy(exec, starts, Offset(0));
  } else {
    Kokkos::parallel_scan(
        "SpMVKit::Sell16::chunk_starts", Range(exec, 0, static_cast<Ordinal>(num_chunks)),
        detail::ChunkStartsScan<Ordinal, Offset, Device>{widths, starts, chunk_size});
  }

  auto offsets = detail::allocate_view<typename Sell::column_offsets_type>(
      exec, "SpMVKit::Sell16::column_offsets", stored);
  auto vals =
      detail::allocate_view<typename Sell::values_type>(exec, "SpMVKit::Sell16::values", stored);
  Kokkos::parallel_for("SpMVKit::Sell16::fill", Range64(exec, 0, num_chunks * chunk_size),
                       detail::FillSell16<Scalar, Ordinal, Offset, Device>{
                           A.row_starts(), A.column_indices(), A.values(), perm, starts, widths,
                           offsets, vals, n, A.num_cols(), chunk_size});
  return Sell(n, A.num_cols(), A.nnz(), chunk_size, sigma, starts, widths, offsets, vals, perm,
              lengths);
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset>
make_sell16(CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int chunk_size,
            std::int64_t sigma = 1) {
  return make_sell16(ExecutionSpace(), A, chunk_size, sigma);
}

/// Converts back to CRS (original row order, padding dropped), on the device.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(ExecutionSpace const& exec, Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset> const& S) {
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  using Device = typename Crs::device_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Ordinal>>;
  using Range64 = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const Ordinal n = S.num_rows();
  Crs A("to_crs", n, S.num_cols(), S.nnz(), exec);
  if (n == 0) {
    Kokkos::deep_copy(exec, A.row_starts(), Offset(0));
    return A;
  }
  Kokkos::parallel_scan(
      "SpMVKit::Sell16::to_crs_row_starts", Range(exec, 0, n),
      detail::LengthsToStarts<Ordinal, Offset, Device>{S.row_lengths(), A.row_starts()});
  Kokkos::parallel_for("SpMVKit::Sell16::to_crs_entries", Range64(exec, 0, n),
                       detail::Sell16ToCrs<Scalar, Ordinal, Offset, Device>{
                           S.chunk_starts(), S.column_offsets(), S.values(), S.row_permutation(),
                           S.row_lengths(), A.row_starts(), A.column_indices(), A.values(),
                           S.chunk_size()});
  return A;
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>
to_crs(Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset> const& S) {
  return to_crs(ExecutionSpace(), S);
}

/// y = beta * y + alpha * A * x with the semantics of the other spmv()
/// overloads (spmv.hpp), by the SELL kernel structure: C threads per chunk on
/// GPUs, one thread per chunk on host backends.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset, class XView, class YView>
void spmv(ExecutionSpace const& exec, detail::non_deduced_t<Scalar> alpha,
          Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, XView const& x,
          detail::non_deduced_t<Scalar> beta, YView const& y) {
  detail::spmv_dispatch(exec, alpha, A, x, beta, y, [&](auto const& xk, auto const& yk) {
    detail::spmv_sell16(exec, alpha, A, xk, beta, yk);
  });
}

template <class Scalar, class ExecutionSpace, class Ordinal, class Offset, class XView, class YView>
void spmv(detail::non_deduced_t<Scalar> alpha,
          Sell16Matrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, XView const& x,
          detail::non_deduced_t<Scalar> beta, YView const& y) {
  spmv(ExecutionSpace(), alpha, A, x, beta, y);
}

} // namespace spmvkit

#endif
