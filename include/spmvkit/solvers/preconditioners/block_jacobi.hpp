// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PRECONDITIONERS_BLOCK_JACOBI_HPP
#define SPMVKIT_SOLVERS_PRECONDITIONERS_BLOCK_JACOBI_HPP

/// \file
/// Block-Jacobi: M = the block diagonal of A (blocks of at most 32 rows, the
/// last possibly smaller, or a block structure of the user's), applied as
/// z_B = A_BB⁻¹ r_B for every block B.
///
/// Set-up, on the device: each diagonal block is gathered from the CRS rows
/// (entries with row and column inside the block, missing entries 0, duplicates
/// summed as spmv() sums them) into a dense block in double and inverted by
/// Gauss-Jordan elimination with partial pivoting; the inverse is stored
/// rounded to Scalar. A pivot that is zero, not finite or below
/// m·eps·‖A_BB‖∞ (m rows, eps of Scalar), or an inverse that overflows Scalar,
/// makes the block singular: the constructor throws std::invalid_argument
/// naming the first such block and its rows.
///
/// The explicit inverse rather than LU factors: apply is then a dense mat-vec,
/// m independent dot products per block (one thread per row, coalesced reads of
/// the column-major inverse), where two triangular solves are m dependent steps.
/// The inverse of a block that passed the pivot test is as accurate as the LU
/// solve to within the block's condition number (Ginkgo's block-Jacobi makes
/// the same choice), and a preconditioner needs no more.
///
/// Memory: Σ m_B² Scalars (at most 32 n) and two arrays of num_blocks + 1
/// offsets (memory_bytes()). Apply reads the inverse once: m times the vector
/// traffic of point Jacobi.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/bsr/bsr_matrix.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/solvers/preconditioner.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

namespace detail {

/// Gathers, checks and inverts one diagonal block per team: the block and the
/// identity beside it ([A_BB | I], m x 2m doubles) live in team scratch, each
/// elimination step updates the m rows in parallel. One team per block rather
/// than one thread: on a GPU the block then sits in shared memory and the 2m³
/// flops of a block spread over m threads; on the host a team is one thread.
/// Reduces the first singular block (Kokkos::Min; every thread of a team
/// contributes the same verdict, which the minimum leaves unchanged).
template <class Scalar, class Ordinal, class Offset, class Device>
struct BlockJacobiInvert {
  using execution_space = typename Device::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  using Scratch = Kokkos::View<double*, typename execution_space::scratch_memory_space,
                               Kokkos::MemoryUnmanaged>;

  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> columns;
  Kokkos::View<const Scalar*, Device> values;
  Kokkos::View<const std::int64_t*, Device> starts, value_starts;
  Kokkos::View<Scalar*, Device> inverse;
  std::int64_t first_block; // of this launch (launches are split to keep the league an int)
  int max_rows;
  double eps, largest_scalar, largest_double;

  /// Doubles of scratch per team: the augmented block and one norm per row.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_doubles(int max_rows) {
    return static_cast<std::size_t>(2 * max_rows * max_rows + max_rows);
  }

  KOKKOS_INLINE_FUNCTION static double magnitude(double v) { return v < 0 ? -v : v; }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& t, std::int64_t& first_bad) const {
    const std::int64_t b = first_block + t.league_rank();
    const std::int64_t s = starts(b);
    const int m = static_cast<int>(starts(b + 1) - s);
    const int w = 2 * m;
    const int norms = 2 * max_rows * max_rows;
    Scratch W(t.team_scratch(0), scratch_doubles(max_rows));

    // [A_BB | I]; each thread owns rows, so the gather needs no atomics.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, m), [&](const int i) {
      for (int j = 0; j < w; ++j) W(i * w + j) = j == m + i ? 1.0 : 0.0;
      for (Offset k = row_starts(s + i); k < row_starts(s + i + 1); ++k) {
        const std::int64_t c = static_cast<std::int64_t>(columns(k)) - s;
        if (c >= 0 && c < m) W(i * w + c) += static_cast<double>(values(k));
      }
      double sum = 0;
      for (int j = 0; j < m; ++j) sum += magnitude(W(i * w + j));
      W(norms + i) = sum;
    });
    t.team_barrier();

    // ‖A_BB‖∞; a NaN or Inf entry makes a row sum fail `<= largest`.
    bool ok = true;
    double norm = 0;
    for (int i = 0; i < m; ++i) {
      const double v = W(norms + i);
      if (!(v <= largest_double)) ok = false;
      if (v > norm) norm = v;
    }
    const double tiny = m * eps * norm;

    // Every thread reads the same scratch after a barrier, so every thread
    // takes the same pivot and the same decision to stop (the barriers match).
    for (int k = 0; ok && k < m; ++k) {
      // Every thread searches (m reads of scratch) instead of one thread
      // broadcasting the pivot row: the same one barrier, no shared variable.
      int p = k;
      double amax = magnitude(W(k * w + k));
      for (int i = k + 1; i < m; ++i) {
        const double a = magnitude(W(i * w + k));
        if (a > amax) {
          amax = a;
          p = i;
        }
      }
      t.team_barrier(); // no thread swaps or eliminates column k while another still searches it
      if (!(amax > tiny) || !(amax <= largest_double)) {
        ok = false;
        break;
      }
      if (p != k) {
        // Columns left of k are zero in both rows (already eliminated).
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k, w), [&](const int j) {
          const double tmp = W(k * w + j);
          W(k * w + j) = W(p * w + j);
          W(p * w + j) = tmp;
        });
        t.team_barrier();
      }
      const double pivot = W(k * w + k);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, m), [&](const int i) {
        if (i == k) return;
        const double f = W(i * w + k) / pivot;
        if (f != 0) {
          for (int j = k + 1; j < w; ++j) W(i * w + j) -= f * W(k * w + j);
        }
        W(i * w + k) = 0;
      });
      t.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k, w),
                           [&](const int j) { W(k * w + j) /= pivot; });
      t.team_barrier();
    }

    if (ok) {
      // Column-major, so that apply's threads (one per row) read consecutive entries.
      const std::int64_t offset = value_starts(b);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, m), [&](const int i) {
        for (int j = 0; j < m; ++j) {
          const double v = W(i * w + m + j);
          if (!(magnitude(v) <= largest_scalar)) ok = false; // overflows Scalar, or NaN
          inverse(offset + static_cast<std::int64_t>(j) * m + i) = static_cast<Scalar>(v);
        }
      });
    }
    if (!ok && b < first_bad) first_bad = b;
  }
};

/// z_B = A_BB⁻¹ r_B, one thread per row (a row's block: arithmetic for
/// uniform blocks, else a binary search of the block starts).
template <class Scalar, class Device>
struct BlockJacobiApply {
  Kokkos::View<const Scalar*, Device> inverse;
  Kokkos::View<const std::int64_t*, Device> starts, value_starts;
  Kokkos::View<const Scalar*, Device> r;
  Kokkos::View<Scalar*, Device> z;
  std::int64_t uniform; // the block size, 0 for a user's block structure
  std::int64_t num_blocks;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    std::int64_t b = 0;
    if (uniform > 0) {
      b = i / uniform;
    } else {
      std::int64_t hi = num_blocks; // starts(b) <= i < starts(hi)
      while (hi - b > 1) {
        const std::int64_t mid = b + (hi - b) / 2;
        if (starts(mid) <= i) {
          b = mid;
        } else {
          hi = mid;
        }
      }
    }
    const std::int64_t s = starts(b);
    const std::int64_t m = starts(b + 1) - s;
    const std::int64_t row = value_starts(b) + (i - s);
    Scalar sum = 0;
    for (std::int64_t j = 0; j < m; ++j) sum += inverse(row + j * m) * r(s + j);
    z(i) = sum;
  }
};

} // namespace detail

/// Block-Jacobi preconditioner of a CrsMatrix: M⁻¹ = the inverses of A's
/// diagonal blocks (the file's documentation describes set-up and cost).
///
/// Models the preconditioner concept of solvers/preconditioner.hpp with the
/// vector_type of MatrixOperator<CrsMatrix<Scalar, ExecutionSpace, ...>>, so
/// that bicgstab() and gmres() take it with the matrix it was built from.
/// The inverse is its own: the matrix may change or go away after set-up.
///
/// \tparam Scalar         the matrix's and the vectors' value type
/// \tparam ExecutionSpace the matrix's execution space
template <class Scalar, class ExecutionSpace>
class BlockJacobiPreconditioner {
public:
  /// The matrix's execution space.
  using execution_space = ExecutionSpace;
  /// Its memory space.
  using memory_space = typename ExecutionSpace::memory_space;
  /// Execution and memory space together.
  using device_type = Kokkos::Device<ExecutionSpace, memory_space>;
  /// The matrix's and the vectors' scalar type.
  using scalar_type = Scalar;
  /// The vectors of apply(): MatrixOperator<CrsMatrix>::vector_type.
  using vector_type = Kokkos::View<Scalar*, device_type>;
  /// The largest block: 32 rows (a block's inverse is 32² entries, its set-up
  /// scratch 16 KiB, a warp's threads).
  static constexpr int max_block_rows = 32;

  /// Blocks of `block_size` consecutive rows (1 to 32, at most n), the last
  /// one smaller when block_size does not divide n.
  ///
  /// Throws std::invalid_argument naming the value for a block_size outside
  /// [1, min(32, n)], for a non-square A, and naming the block and its rows
  /// for a singular block; what the matrix's structure check throws;
  /// AllocationError. Synchronous (the verdict is read back).
  template <class Ordinal, class Offset>
  BlockJacobiPreconditioner(ExecutionSpace const& exec,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                            int block_size) {
    check_square(A);
    const std::int64_t n = A.num_rows();
    if (block_size < 1 || block_size > max_block_rows || block_size > n) {
      throw std::invalid_argument(
          std::string(where) + ": block_size = " + std::to_string(block_size) + " must be in 1.." +
          std::to_string(std::min<std::int64_t>(max_block_rows, n)) + " (at most " +
          std::to_string(max_block_rows) + " and at most the " + std::to_string(n) +
          " rows of the matrix)");
    }
    std::vector<std::int64_t> starts;
    starts.reserve(static_cast<std::size_t>((n + block_size - 1) / block_size + 1));
    for (std::int64_t s = 0; s < n; s += block_size) starts.push_back(s);
    starts.push_back(n);
    build(exec, A, starts, block_size);
  }

  /// Blocks [block_starts[k], block_starts[k + 1]): the starts go from 0 to n,
  /// strictly increasing, each block at most 32 rows (for instance the grid
  /// lines of a structured problem, or the aggregates of a mesh partitioner).
  ///
  /// Throws std::invalid_argument naming the offending position or block for a
  /// structure that breaks these rules, and as the other constructor.
  template <class Ordinal, class Offset>
  BlockJacobiPreconditioner(ExecutionSpace const& exec,
                            CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                            std::vector<std::int64_t> const& block_starts) {
    check_square(A);
    check_structure(block_starts, A.num_rows());
    build(exec, A, block_starts, 0);
  }

  /// Number of rows n.
  std::int64_t num_rows() const { return n_; }
  /// Number of diagonal blocks.
  std::int64_t num_blocks() const { return num_blocks_; }
  /// The rows of the largest block.
  int largest_block() const { return largest_; }
  /// Device memory held: the inverses and the two offset arrays, in bytes.
  std::size_t memory_bytes() const {
    return inverse_.span() * sizeof(Scalar) +
           (starts_.span() + value_starts_.span()) * sizeof(std::int64_t);
  }
  /// The num_blocks + 1 block starts (device).
  Kokkos::View<const std::int64_t*, device_type> block_starts() const { return starts_; }

  /// z = M⁻¹ r: z_B = A_BB⁻¹ r_B for every block; asynchronous on exec; r and
  /// z distinct (apply reads r across a block while writing z).
  void apply(execution_space const& exec, vector_type const& r, vector_type const& z) const {
    Kokkos::parallel_for(
        "SpMVKit::preconditioner::block_jacobi_apply",
        Kokkos::RangePolicy<execution_space, Kokkos::IndexType<std::int64_t>>(exec, 0, n_),
        detail::BlockJacobiApply<Scalar, device_type>{inverse_, starts_, value_starts_, r, z,
                                                      uniform_, num_blocks_});
  }

private:
  static constexpr char const* where = "spmvkit::BlockJacobiPreconditioner";

  template <class Matrix>
  static void check_square(Matrix const& A) {
    if (A.num_rows() != A.num_cols()) {
      throw std::invalid_argument(std::string(where) + ": the matrix is " +
                                  std::to_string(A.num_rows()) + " x " +
                                  std::to_string(A.num_cols()) + ", not square");
    }
  }

  static std::string rows_of(std::int64_t first, std::int64_t end) {
    return "rows " + std::to_string(first) + ".." + std::to_string(end - 1);
  }

  static void check_structure(std::vector<std::int64_t> const& s, std::int64_t n) {
    const std::string w = std::string(where) + ": block_starts";
    if (s.size() < 2) {
      throw std::invalid_argument(w + " has " + std::to_string(s.size()) +
                                  " entries; it needs at least 2 (0 and n = " + std::to_string(n) +
                                  ")");
    }
    if (s.front() != 0) {
      throw std::invalid_argument(w + "[0] = " + std::to_string(s.front()) + ", must be 0");
    }
    for (std::size_t k = 0; k + 1 < s.size(); ++k) {
      if (s[k + 1] <= s[k]) {
        throw std::invalid_argument(
            w + "[" + std::to_string(k + 1) + "] = " + std::to_string(s[k + 1]) +
            " is not greater than block_starts[" + std::to_string(k) +
            "] = " + std::to_string(s[k]) + " (block " + std::to_string(k) + " would be empty)");
      }
      if (s[k + 1] - s[k] > max_block_rows) {
        throw std::invalid_argument(std::string(where) + ": block " + std::to_string(k) + " (" +
                                    rows_of(s[k], s[k + 1]) + ") has " +
                                    std::to_string(s[k + 1] - s[k]) + " rows, more than " +
                                    std::to_string(max_block_rows));
      }
    }
    if (s.back() != n) {
      throw std::invalid_argument(
          w + "[" + std::to_string(s.size() - 1) + "] = " + std::to_string(s.back()) +
          " (the last) must be the number of rows n = " + std::to_string(n));
    }
  }

  template <class Ordinal, class Offset>
  void build(ExecutionSpace const& exec,
             CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
             std::vector<std::int64_t> const& starts, std::int64_t uniform) {
    detail::ensure_structure(exec, A); // the gather trusts row starts and columns
    n_ = A.num_rows();
    uniform_ = uniform;
    num_blocks_ = static_cast<std::int64_t>(starts.size()) - 1;
    std::vector<std::int64_t> value_starts(starts.size());
    value_starts[0] = 0;
    largest_ = 0;
    for (std::int64_t b = 0; b < num_blocks_; ++b) {
      const std::int64_t m = starts[b + 1] - starts[b];
      largest_ = std::max(largest_, static_cast<int>(m));
      value_starts[b + 1] = value_starts[b] + m * m;
    }
    using Offsets = Kokkos::View<std::int64_t*, device_type>;
    using HostOffsets =
        Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    starts_ = detail::allocate_view<Offsets>(exec, "SpMVKit::preconditioner::block_jacobi_starts",
                                             num_blocks_ + 1);
    value_starts_ = detail::allocate_view<Offsets>(
        exec, "SpMVKit::preconditioner::block_jacobi_value_starts", num_blocks_ + 1);
    inverse_ = detail::allocate_view<vector_type>(
        exec, "SpMVKit::preconditioner::block_jacobi_inverse", value_starts.back());
    Kokkos::deep_copy(exec, starts_, HostOffsets(starts.data(), starts.size()));
    Kokkos::deep_copy(exec, value_starts_, HostOffsets(value_starts.data(), value_starts.size()));

    using Functor = detail::BlockJacobiInvert<Scalar, Ordinal, Offset, device_type>;
    using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
    // A power of two: some backends' team reductions require one; the spare
    // threads of a smaller block idle through its few steps.
    int team = 1;
    while (!detail::is_host_space_v<ExecutionSpace> && team < largest_) team *= 2;
    const std::size_t scratch = Functor::Scratch::shmem_size(Functor::scratch_doubles(largest_));
    // The league size is an int: launch at most 2^30 blocks at a time.
    constexpr std::int64_t chunk = std::int64_t(1) << 30;
    std::int64_t first_bad = num_blocks_;
    for (std::int64_t first = 0; first < num_blocks_; first += chunk) {
      const int league = static_cast<int>(std::min(chunk, num_blocks_ - first));
      std::int64_t bad = num_blocks_;
      Kokkos::parallel_reduce(
          "SpMVKit::preconditioner::block_jacobi_invert",
          Policy(exec, league, team).set_scratch_size(0, Kokkos::PerTeam(scratch)),
          Functor{A.row_starts(), A.column_indices(), A.values(), starts_, value_starts_, inverse_,
                  first, largest_, static_cast<double>(std::numeric_limits<Scalar>::epsilon()),
                  static_cast<double>(std::numeric_limits<Scalar>::max()),
                  std::numeric_limits<double>::max()},
          Kokkos::Min<std::int64_t>(bad));
      first_bad = std::min(first_bad, bad);
    }
    exec.fence(); // the host offsets above are copied asynchronously
    if (first_bad < num_blocks_) {
      const std::int64_t s = starts[first_bad], e = starts[first_bad + 1];
      throw std::invalid_argument(
          std::string(where) + ": block " + std::to_string(first_bad) + " (" + rows_of(s, e) +
          ") is singular: with partial pivoting a pivot is zero, not finite or below " +
          std::to_string(e - s) +
          "·eps·‖block‖∞, or the inverse overflows the scalar type (the first such block of " +
          std::to_string(num_blocks_) + ")");
    }
  }

  std::int64_t n_ = 0;
  std::int64_t uniform_ = 0;
  std::int64_t num_blocks_ = 0;
  int largest_ = 0;
  Kokkos::View<std::int64_t*, device_type> starts_, value_starts_;
  vector_type inverse_;
};

/// Block-Jacobi of A with blocks of `block_size` rows (1 to 32, at most n):
/// BlockJacobiPreconditioner's first constructor.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
BlockJacobiPreconditioner<Scalar, ExecutionSpace>
make_block_jacobi(ExecutionSpace const& exec,
                  CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A, int block_size) {
  return BlockJacobiPreconditioner<Scalar, ExecutionSpace>(exec, A, block_size);
}

/// Block-Jacobi of A with the given block starts (0 to n, increasing, blocks
/// of at most 32 rows): BlockJacobiPreconditioner's second constructor.
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
BlockJacobiPreconditioner<Scalar, ExecutionSpace>
make_block_jacobi(ExecutionSpace const& exec,
                  CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A,
                  std::vector<std::int64_t> const& block_starts) {
  return BlockJacobiPreconditioner<Scalar, ExecutionSpace>(exec, A, block_starts);
}

namespace detail {

/// Row i of the block diagonal of a BSR matrix: the b entries of row i % b of
/// block (i / b, i / b), zeros without that block (the set-up then names the
/// block singular).
template <class Bsr, class Columns, class Values>
struct BsrDiagonalBlockRows {
  typename Bsr::row_source_type source;
  Columns cols;
  Values vals;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    const int b = source.b;
    const std::int64_t I = row / b;
    const int r = static_cast<int>(row - I * b);
    std::int64_t diagonal = -1;
    const auto at = source.at(I);
    for (std::int64_t j = 0; j < source.blocks(I); ++j)
      if (source.block_cols(at.slot(j)) == I) diagonal = j;
    for (int c = 0; c < b; ++c) {
      cols(row * b + c) = static_cast<typename Columns::value_type>(I * b + c);
      vals(row * b + c) = diagonal < 0 ? 0 : source.entry(I, diagonal, r, c);
    }
  }
};

} // namespace detail

/// Block-Jacobi of a BSR matrix with its own b x b diagonal blocks (the
/// unknowns of one node in a multi-DOF problem): the blocks are copied out of
/// the BSR storage (n b entries, not a conversion of the whole matrix) and
/// inverted as by the first constructor with block_size = b. A block row
/// without its diagonal block is a singular block (named).
template <class ExecutionSpace, class Scalar, class Ordinal, class Offset>
BlockJacobiPreconditioner<Scalar, ExecutionSpace>
make_block_jacobi(ExecutionSpace const& exec,
                  BsrMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using Crs = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  const std::int64_t n = A.num_rows(), b = A.block_size();
  if (A.num_rows() != A.num_cols()) {
    throw std::invalid_argument("spmvkit::make_block_jacobi: the BSR matrix is " +
                                std::to_string(A.num_rows()) + " x " +
                                std::to_string(A.num_cols()) + ", not square");
  }
  Crs D("SpMVKit::preconditioner::bsr_diagonal_blocks", n, n, n * b);
  const auto starts = D.row_starts();
  Kokkos::parallel_for(
      "SpMVKit::preconditioner::bsr_diagonal_starts",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n + 1),
      KOKKOS_LAMBDA(std::int64_t i) { starts(i) = static_cast<Offset>(i * b); });
  Kokkos::parallel_for(
      "SpMVKit::preconditioner::bsr_diagonal_blocks",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      detail::BsrDiagonalBlockRows<BsrMatrix<Scalar, ExecutionSpace, Ordinal, Offset>,
                                   typename Crs::column_indices_type, typename Crs::values_type>{
          A.row_source(), D.column_indices(), D.values()});
  D.trust_structure(); // built here: rows of b sorted columns inside the matrix
  return BlockJacobiPreconditioner<Scalar, ExecutionSpace>(
      exec, D, static_cast<int>(std::min<std::int64_t>(b, std::max<std::int64_t>(n, 1))));
}

} // namespace spmvkit

#endif
