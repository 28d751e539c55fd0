// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DISTRIBUTED_MATRIX_HPP
#define SPMVKIT_DISTRIBUTED_DISTRIBUTED_MATRIX_HPP

/// \file
/// A square matrix distributed over MPI ranks by contiguous rows
/// (RowPartition). Rank r holds its rows as two matrices of any SpMVKit
/// formats: the diagonal block (the columns it owns, numbered locally) and
/// the off-process block (the other columns, compressed to the ghost entries
/// it needs, sorted by global column; its rows compressed to the local rows
/// that have such a column). y = A x is
///
/// \verbatim
///   halo.begin(x)                      pack, post MPI_Irecv / MPI_Isend
///   y  = A_diag x                      queued on exec, runs while messages fly
///   halo.end()                         wait (and unpack when staged)
///   y(rows) += A_off ghosts            the off-process rows only
/// \endverbatim
///
/// (the overlap of PETSc's MPIAIJ and Ginkgo's distributed::Matrix). Only
/// the rows with an off-process entry are stored in the off-process block
/// (PETSc's compressed rows): a slab of a 3D mesh has one or two boundary
/// planes of them, and an off-process SpMV over every local row read the
/// whole y and the row offsets again (15% of an apply,
/// docs/notes/2026-11-24-distributed-h200-scaling.md). Where those rows are one contiguous
/// range, the block's product is added into that range of y directly;
/// otherwise it goes to a buffer and a scatter adds it into y. The
/// matrix models the operator concept of solvers/operator.hpp with local
/// sizes, and its reduction policy (MpiReduction) makes CG's dot products
/// global, so spmvkit::cg solves the distributed system unchanged. Blocks of
/// k vectors (rank-2 Views) take the same path with one exchange of k entries
/// per ghost and the blocks' multi-vector products.
///
/// Built from a slab source: what a rank knows of its own rows, as device
/// functions `for_each_entry(local_row, f)` calling `f(global_column, value)`
/// (`std::int64_t` both) and a `value_type`. make_distributed_fem_poisson and
/// read_distributed_matrix_market (distributed_fem.hpp,
/// distributed_matrix_market.hpp) make one; a user brings their own to
/// make_distributed_matrix. Longer than ~300 lines because the build (column
/// scan, halo plan, both blocks) belongs with the class it fills.
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/distributed/detail/block_sources.hpp>
#include <spmvkit/distributed/detail/mpi_utils.hpp>
#include <spmvkit/distributed/halo_exchange.hpp>
#include <spmvkit/distributed/mpi_reduction.hpp>
#include <spmvkit/distributed/row_partition.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit {

namespace detail {

// The matrix's own duplicate of the user's communicator, so that halo
// messages never match a user's; freed with the last copy of the matrix
// unless MPI is already finalized (then there is nothing left to free).
inline std::shared_ptr<MPI_Comm> duplicate_comm(MPI_Comm comm) {
  auto dup = std::shared_ptr<MPI_Comm>(new MPI_Comm(MPI_COMM_NULL), [](MPI_Comm* c) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *c != MPI_COMM_NULL) MPI_Comm_free(c);
    delete c;
  });
  mpi_check(MPI_Comm_dup(comm, dup.get()), "MPI_Comm_dup");
  return dup;
}

} // namespace detail

/// A matrix distributed by contiguous rows over the ranks of a communicator;
/// each rank holds its diagonal block in DiagFormat and its off-process block
/// in OffFormat (any tags of formats/format_list.hpp).
///
/// An operator (solvers/operator.hpp) of the local rows: num_rows() and
/// num_cols() are this rank's row count, apply() and diagonal() take this
/// rank's entries of the vectors, reduction() sums over the ranks. Copies
/// share the blocks and the halo buffers. Made by make_distributed_matrix,
/// make_distributed_fem_poisson or read_distributed_matrix_market.
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat = DiagFormat,
          class Ordinal = int, class Offset = int>
class DistributedMatrix {
public:
  /// The execution space of the blocks and vectors.
  using execution_space = ExecutionSpace;
  /// The value type.
  using scalar_type = Scalar;
  /// The local vectors of apply() and diagonal().
  using vector_type =
      Kokkos::View<Scalar*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  /// The diagonal block's matrix type.
  using diagonal_block_type = matrix_of_t<DiagFormat, Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The off-process block's matrix type (rows: off_process_rows()).
  using off_process_block_type = matrix_of_t<OffFormat, Scalar, ExecutionSpace, Ordinal, Offset>;
  /// The local row of each row of the off-process block.
  using row_index_type =
      Kokkos::View<Ordinal*, Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;
  /// The halo exchange type.
  using halo_type = HaloExchange<Scalar, ExecutionSpace, Ordinal>;

  /// An empty matrix; assign a made one before use.
  DistributedMatrix() = default;

  /// Assembles the parts (make_distributed_matrix does the work): off holds
  /// the rows off_rows (increasing local rows) of the off-process block.
  /// Allocates the scatter buffer where those rows are not one range.
  DistributedMatrix(std::shared_ptr<MPI_Comm> comm, RowPartition partition,
                    diagonal_block_type diag, off_process_block_type off, row_index_type off_rows,
                    halo_type halo)
      : comm_(std::move(comm)), reduction_(*comm_), partition_(std::move(partition)),
        diag_(std::move(diag)), off_(std::move(off)), off_rows_(std::move(off_rows)),
        halo_(std::move(halo)), diag_options_(DiagFormat::options(diag_)),
        off_options_(OffFormat::options(off_)) {
    const auto n = static_cast<std::int64_t>(off_rows_.extent(0));
    if (n == 0) return;
    Ordinal first = 0, last = 0;
    Kokkos::deep_copy(first, Kokkos::subview(off_rows_, 0));
    Kokkos::deep_copy(last, Kokkos::subview(off_rows_, n - 1));
    // Increasing and unique, so first..last holds n rows only when contiguous.
    if (static_cast<std::int64_t>(last) - first + 1 == n) {
      off_first_row_ = first;
    } else {
      off_product_ = detail::allocate_view<vector_type>(
          ExecutionSpace(), "SpMVKit::distributed::off_process_product", n);
    }
  }

  /// This rank's rows.
  std::int64_t num_rows() const { return partition_.local_rows(); }
  /// This rank's columns of the diagonal block: its rows (the matrix is square).
  std::int64_t num_cols() const { return partition_.local_rows(); }
  /// The number of global rows (and columns).
  std::int64_t global_rows() const { return partition_.global_rows(); }
  /// The row partition.
  RowPartition const& partition() const { return partition_; }
  /// The diagonal block (local rows x local rows).
  diagonal_block_type const& diagonal_block() const { return diag_; }
  /// The off-process block (off_process_rows() x ghosts); empty when
  /// num_ghosts() is 0.
  off_process_block_type const& off_process_block() const { return off_; }
  /// The local rows of the off-process block's rows, increasing.
  row_index_type const& off_process_rows() const { return off_rows_; }
  /// The number of ghost entries this rank receives per apply.
  std::int64_t num_ghosts() const { return halo_.received_entries(); }
  /// The halo exchange (plan, buffers, bytes).
  halo_type const& halo() const { return halo_; }
  /// The communicator of the halo messages and reductions (the matrix's own
  /// duplicate of the partition's).
  MPI_Comm comm() const { return *comm_; }

  /// y = A x for this rank's rows, with the exchange overlapped with the
  /// diagonal block (see this file's documentation). x and y hold num_rows()
  /// entries and must not alias. Collective: every rank must call it. Returns
  /// with the off-process product queued on exec.
  void apply(ExecutionSpace const& exec, vector_type const& x, vector_type const& y) const {
    halo_.begin(exec, x);
    spmv(exec, Scalar(1), diag_, x, Scalar(0), y, diag_options_);
    halo_.end(exec);
    apply_off_process_block(exec, y);
  }

  /// Blocks of k vectors of this rank's rows (the operator concept's optional
  /// multi-vector type; apply() takes any layout).
  using multi_vector_type =
      Kokkos::View<Scalar**, Kokkos::LayoutLeft,
                   Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>>;

  /// Y = A X for the k columns of X at once (rank-2 Views of num_rows() rows,
  /// LayoutLeft or LayoutRight, not aliased): one halo exchange carrying k
  /// entries per ghost, overlapped with the diagonal block's multi-vector
  /// product (the block read once per block of columns), then the
  /// off-process block's. Collective: every rank must pass the same k. One
  /// MPI_Allreduce per call checks that and each rank's arguments, so a
  /// mismatch anywhere (rows, columns, aliasing, k differing between ranks,
  /// exchange buffers that do not fit) throws the same DistributedError on
  /// every rank before any message. The first call with more columns than
  /// before allocates the exchange buffers (kept). Returns with the
  /// off-process product queued on exec.
  template <class XView, class YView,
            std::enable_if_t<Kokkos::is_view<XView>::value && XView::rank == 2, int> = 0>
  void apply(ExecutionSpace const& exec, XView const& X, YView const& Y) const {
    static_assert(Kokkos::is_view<YView>::value && YView::rank == 2,
                  "spmvkit::DistributedMatrix::apply: Y must be a rank-2 View, as X");
    const auto k = static_cast<std::int64_t>(X.extent(1));
    const auto n = static_cast<std::int64_t>(off_rows_.extent(0));
    agree_on_columns(k, [&] {
      const auto rows = num_rows();
      if (static_cast<std::int64_t>(X.extent(0)) != rows ||
          static_cast<std::int64_t>(Y.extent(0)) != rows || Y.extent(1) != X.extent(1) || k < 1) {
        throw std::invalid_argument(
            "X is " + std::to_string(X.extent(0)) + " x " + std::to_string(X.extent(1)) +
            " and Y " + std::to_string(Y.extent(0)) + " x " + std::to_string(Y.extent(1)) +
            "; both must have this rank's " + std::to_string(rows) +
            " rows and the same columns, at least 1");
      }
      if (detail::storage_overlaps(X, Y)) {
        throw std::invalid_argument("X and Y must not share storage");
      }
      halo_.reserve_columns(exec, k);
      if (n > 0 && off_first_row_ < 0 && columns_->capacity < k) {
        columns_->product = vector_type();
        columns_->capacity = 0;
        columns_->product = detail::allocate_view<vector_type>(
            exec, "SpMVKit::distributed::off_process_product_columns", n * k);
        columns_->capacity = k;
      }
    });
    halo_.begin(exec, X);
    spmv(exec, Scalar(1), diag_, X, Scalar(0), Y, diag_options_);
    halo_.end(exec);
    if (n == 0) return;
    const auto G = halo_.column_ghosts();
    if (off_first_row_ >= 0) {
      const auto rows =
          Kokkos::subview(Y, Kokkos::make_pair(off_first_row_, off_first_row_ + n), Kokkos::ALL());
      spmv(exec, Scalar(1), off_, G, Scalar(1), rows, off_options_);
      return;
    }
    using Product = typename halo_type::column_ghosts_type;
    const Product product(columns_->product.data(), static_cast<std::size_t>(n),
                          static_cast<std::size_t>(k));
    spmv(exec, Scalar(1), off_, G, Scalar(0), product, off_options_);
    Kokkos::parallel_for(
        "SpMVKit::distributed::off_process_add_columns",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n * k),
        detail::AddIntoRowsColumns<YView, Product, row_index_type>{Y, product, off_rows_, k});
  }

  /// y(off_process_rows()) += A_off ghosts: the off-process block's part of
  /// the product, with the ghosts of the last exchange (halo().end() must
  /// have returned). Asynchronous on exec; nothing when there are no ghosts.
  void apply_off_process_block(ExecutionSpace const& exec, vector_type const& y) const {
    const auto n = static_cast<std::int64_t>(off_rows_.extent(0));
    if (n == 0) return;
    if (off_first_row_ >= 0) {
      // An unmanaged view of y's range: the block adds into it in place.
      const vector_type rows(y.data() + off_first_row_, static_cast<std::size_t>(n));
      spmv(exec, Scalar(1), off_, halo_.ghosts(), Scalar(1), rows, off_options_);
      return;
    }
    spmv(exec, Scalar(1), off_, halo_.ghosts(), Scalar(0), off_product_, off_options_);
    Kokkos::parallel_for(
        "SpMVKit::distributed::off_process_add",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
        detail::AddIntoRows<vector_type, row_index_type>{y, off_product_, off_rows_});
  }

  /// y = A_diag x: the diagonal block alone (local, no message); for
  /// measuring what the overlap hides.
  void apply_diagonal_block(ExecutionSpace const& exec, vector_type const& x,
                            vector_type const& y) const {
    spmv(exec, Scalar(1), diag_, x, Scalar(0), y, diag_options_);
  }

  /// d = this rank's part of diag(A): every diagonal entry lies in the
  /// diagonal block. Asynchronous on exec.
  void diagonal(ExecutionSpace const& exec, vector_type const& d) const {
    DiagFormat::diagonal(exec, diag_, d);
  }

  /// The reduction policy: sums over the ranks (MpiReduction); copies of it
  /// share one staging buffer, made by the first reduction.
  MpiReduction reduction() const { return reduction_; }

  /// The byte model of one local apply: both blocks (their own byte models,
  /// the off-process block reading the ghosts as its x) plus the halo buffers
  /// packed and received, and the scatter where it is needed.
  SpmvBytes bytes() const {
    SpmvBytes b = DiagFormat::bytes(diag_);
    if (num_ghosts() > 0) {
      const SpmvBytes o = OffFormat::bytes(off_);
      b.matrix += o.matrix;
      b.x += o.x + halo_.bytes();
      b.y += 2 * o.y; // its rows of y read and written again
      if (off_first_row_ < 0) {
        // The scatter reads the buffer the block wrote, and the row indices.
        b.y += o.y;
        b.matrix += static_cast<double>(off_rows_.extent(0)) * sizeof(Ordinal);
      }
    }
    return b;
  }

private:
  // The scatter buffer of multi-vector products (off-process rows x up to capacity columns),
  // shared by copies as the halo buffers are.
  struct Columns {
    vector_type product;
    std::int64_t capacity = 0;
  };

  /// Runs the local checks and allocations of a multi-vector apply, then one all-reduce of
  /// (lowest failing rank, k, -k): every rank throws the same DistributedError when a rank
  /// failed or the ranks' k differ.
  template <class Step>
  void agree_on_columns(std::int64_t k, Step&& step) const {
    constexpr char const* what = "spmvkit::DistributedMatrix::apply (multi-vector)";
    const std::string error = detail::error_of(std::forward<Step>(step));
    const int size = partition_.size(), rank = partition_.rank();
    const std::int64_t cap = std::numeric_limits<int>::max();
    long long v[3] = {error.empty() ? 0 : size - rank, std::min(k, cap), -std::min(k, cap)};
    detail::mpi_check(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_LONG_LONG, MPI_MAX, *comm_),
                      "MPI_Allreduce");
    if (v[0] > 0) detail::agree_on_errors(*comm_, what, error); // throws on every rank
    if (v[1] != -v[2]) {
      throw DistributedError(std::string(what) + ": the ranks pass " + std::to_string(-v[2]) +
                             " to " + std::to_string(v[1]) +
                             " columns; every rank must pass the same number");
    }
  }

  std::shared_ptr<MPI_Comm> comm_;
  MpiReduction reduction_{MPI_COMM_NULL};
  RowPartition partition_;
  diagonal_block_type diag_;
  off_process_block_type off_;
  row_index_type off_rows_;
  // The first local row of off_rows_ where they are one contiguous range,
  // else -1 and the block's product goes to off_product_ first.
  std::int64_t off_first_row_ = -1;
  vector_type off_product_;
  std::shared_ptr<Columns> columns_ = std::make_shared<Columns>();
  halo_type halo_;
  typename DiagFormat::options_type diag_options_;
  typename OffFormat::options_type off_options_;
};

/// Builds a DistributedMatrix from each rank's slab of rows. Collective.
///
/// \param partition the row partition (every rank passes its own copy of the same)
/// \param exec      execution space instance the build runs on
/// \param slab      this rank's rows: `value_type` and the device function
///                  `for_each_entry(std::int64_t local_row, f)` calling
///                  `f(std::int64_t global_column, value_type value)` per entry
/// \param diag_options, off_options the formats' options for the two blocks
/// \param halo_options GPU-aware MPI or staging (HaloOptions)
///
/// Throws DistributedError on every rank when any rank fails: a column
/// outside [0, global rows) (naming the global row), a block too large for
/// Ordinal/Offset, an allocation, or a format's from_rows. Cost: two passes
/// over the slab for the column scan, what the formats' from_rows cost, a sort
/// of the off-process columns on the host, and an all-to-all of p counts plus
/// one message per neighbour.
template <class DiagFormat, class OffFormat = DiagFormat, class Ordinal = int, class Offset = int,
          class ExecutionSpace, class Slab>
DistributedMatrix<DiagFormat, typename Slab::value_type, ExecutionSpace, OffFormat, Ordinal, Offset>
make_distributed_matrix(RowPartition const& partition, ExecutionSpace const& exec, Slab const& slab,
                        typename DiagFormat::options_type const& diag_options = {},
                        typename OffFormat::options_type const& off_options = {},
                        HaloOptions const& halo_options = {}) {
  using Scalar = typename Slab::value_type;
  using Result = DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset>;
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using Index64 = Kokkos::View<std::int64_t*, Device>;
  static_assert(check_format<DiagFormat, Scalar, ExecutionSpace>());
  static_assert(check_format<OffFormat, Scalar, ExecutionSpace>());
  constexpr char const* where = "spmvkit::make_distributed_matrix";
  MPI_Comm comm = partition.comm();
  const int p = partition.size(), rank = partition.rank();
  const std::int64_t m = partition.local_rows(), first = partition.first_row(), end = first + m,
                     cols = partition.global_rows();

  // 1. The off-process columns of this rank, sorted and unique: the ghosts;
  // and the rows that have one.
  using OffRows = typename Result::row_index_type;
  OffRows off_rows;
  std::vector<std::int64_t> ghosts;
  std::vector<int> receive_counts(static_cast<std::size_t>(p), 0);
  detail::collective_step(comm, "spmvkit::make_distributed_matrix (column scan)", [&] {
    detail::checked_index<Ordinal>(m, "local rows", where);
    detail::checked_index<Offset>(m, "local rows", where);
    // The first allocation before the first pass: a rank given more rows than
    // it can hold stops here, not after a pass over them.
    auto offsets = detail::allocate_view<Index64>(exec, "SpMVKit::distributed::off_offsets", m + 1);
    std::int64_t bad = m;
    Kokkos::parallel_reduce("SpMVKit::distributed::check_columns", Range(exec, 0, m),
                            detail::FindBadColumn<Slab>{slab, cols},
                            Kokkos::Min<std::int64_t>(bad));
    if (bad < m) {
      throw std::invalid_argument(std::string(where) + ": global row " +
                                  std::to_string(first + bad) + " has a column outside [0, " +
                                  std::to_string(cols) +
                                  ") (the matrix must be square, global rows x global rows)");
    }
    std::int64_t total = 0;
    Kokkos::parallel_scan("SpMVKit::distributed::count_off_process", Range(exec, 0, m + 1),
                          detail::CountOffProcess<Slab, Index64>{slab, first, end, cols, offsets},
                          total);
    std::int64_t num_off_rows = 0;
    Kokkos::parallel_scan("SpMVKit::distributed::count_off_process_rows", Range(exec, 0, m),
                          detail::ListOffProcessRows<Index64, OffRows>{offsets, OffRows()},
                          num_off_rows);
    off_rows = detail::allocate_view<OffRows>(exec, "SpMVKit::distributed::off_process_rows",
                                              num_off_rows);
    Kokkos::parallel_scan("SpMVKit::distributed::list_off_process_rows", Range(exec, 0, m),
                          detail::ListOffProcessRows<Index64, OffRows>{offsets, off_rows});
    auto columns = detail::allocate_view<Index64>(exec, "SpMVKit::distributed::off_columns", total);
    Kokkos::parallel_for(
        "SpMVKit::distributed::collect_off_process", Range(exec, 0, m),
        detail::CollectOffProcess<Slab, Index64, Index64>{slab, first, end, offsets, columns});
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), columns);
    ghosts.assign(host.data(), host.data() + host.extent(0));
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    detail::checked_index<Ordinal>(static_cast<std::int64_t>(ghosts.size()), "ghost entries",
                                   where);
    for (std::int64_t g : ghosts) ++receive_counts[static_cast<std::size_t>(partition.owner(g))];
  });

  // 2. Tell every owner what this rank needs; learn what to send.
  std::vector<int> send_counts(static_cast<std::size_t>(p), 0);
  detail::mpi_check(
      MPI_Alltoall(receive_counts.data(), 1, MPI_INT, send_counts.data(), 1, MPI_INT, comm),
      "MPI_Alltoall");
  std::vector<HaloNeighbour> sends, receives;
  std::int64_t sent = 0, received = 0;
  for (int r = 0; r < p; ++r) {
    if (send_counts[static_cast<std::size_t>(r)] > 0) {
      sends.push_back({r, sent, send_counts[static_cast<std::size_t>(r)]});
      sent += send_counts[static_cast<std::size_t>(r)];
    }
    if (receive_counts[static_cast<std::size_t>(r)] > 0) {
      receives.push_back({r, received, receive_counts[static_cast<std::size_t>(r)]});
      received += receive_counts[static_cast<std::size_t>(r)];
    }
  }
  std::vector<std::int64_t> requested(static_cast<std::size_t>(sent));
  {
    std::vector<MPI_Request> requests(sends.size() + receives.size());
    std::size_t i = 0;
    for (auto const& nb : sends) {
      detail::mpi_check(MPI_Irecv(requested.data() + nb.offset, static_cast<int>(nb.count),
                                  MPI_INT64_T, nb.rank, 0, comm, &requests[i++]),
                        "MPI_Irecv");
    }
    for (auto const& nb : receives) {
      detail::mpi_check(MPI_Isend(ghosts.data() + nb.offset, static_cast<int>(nb.count),
                                  MPI_INT64_T, nb.rank, 0, comm, &requests[i++]),
                        "MPI_Isend");
    }
    detail::mpi_check(
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  }

  // 3. Both blocks from the slab, and the halo buffers.
  auto comm_dup = detail::duplicate_comm(comm);
  Result result;
  detail::collective_step(comm, "spmvkit::make_distributed_matrix (blocks)", [&] {
    using SendIndices = typename Result::halo_type::index_type;
    auto send_indices =
        detail::allocate_view<SendIndices>(exec, "SpMVKit::distributed::halo_send_indices", sent);
    auto send_host = Kokkos::create_mirror_view(send_indices);
    for (std::int64_t k = 0; k < sent; ++k) {
      const std::int64_t g = requested[static_cast<std::size_t>(k)];
      if (g < first || g >= end) {
        throw std::logic_error(std::string(where) + ": a neighbour asked for global row " +
                               std::to_string(g) + ", which rank " + std::to_string(rank) +
                               " does not own");
      }
      send_host(k) = static_cast<Ordinal>(g - first);
    }
    Kokkos::deep_copy(exec, send_indices, send_host);
    auto ghost_host = Kokkos::View<std::int64_t const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
        ghosts.data(), ghosts.size());
    auto ghost_device =
        detail::allocate_view<Index64>(exec, "SpMVKit::distributed::ghost_columns", received);
    Kokkos::deep_copy(exec, ghost_device, ghost_host);
    using Ghosts = Kokkos::View<std::int64_t const*, Device>;
    auto diag = DiagFormat::from_rows(
        exec, m, m, detail::DiagonalBlockSource<Slab, Ordinal, Offset>{slab, first, end},
        diag_options);
    typename Result::off_process_block_type off;
    if (received > 0) {
      off = OffFormat::from_rows(
          exec, static_cast<std::int64_t>(off_rows.extent(0)), received,
          detail::OffProcessBlockSource<Slab, Ordinal, Offset, Ghosts, OffRows>{
              slab, first, end, ghost_device, off_rows},
          off_options);
    }
    typename Result::halo_type halo(*comm_dup, exec, send_indices, sends, receives, received,
                                    halo_options);
    exec.fence();
    result =
        Result(comm_dup, partition, std::move(diag), std::move(off), off_rows, std::move(halo));
  });
  return result;
}

} // namespace spmvkit

#endif
