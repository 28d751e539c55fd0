// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DISTRIBUTED_PRECONDITIONERS_HPP
#define SPMVKIT_DISTRIBUTED_DISTRIBUTED_PRECONDITIONERS_HPP

/// \file
/// Block-Jacobi, ILU(0), IC(0) and AMG of a DistributedMatrix, each local to a
/// rank's rows: M = blockdiag(M_0, ..., M_{p-1}), M_r built from rank r's
/// diagonal block (its rows and the columns it owns), so applying M needs no
/// message and the couplings between ranks are left to the Krylov method (an
/// additive Schwarz method without overlap). Iterations therefore grow with
/// the number of ranks where the couplings matter; block-Jacobi's blocks
/// never straddle two ranks.
///
/// Jacobi and Chebyshev need nothing here: make_jacobi() and make_chebyshev()
/// take the distributed operator itself (the diagonal is local; Chebyshev's
/// λmax estimate reduces over the ranks through the operator's policy).
///
/// Each factory is collective: when the set-up fails on any rank (a singular
/// block, a zero pivot), every rank throws the same
/// DistributedError naming the first failing rank and its message, with the
/// rank's first global row so that local row numbers can be placed.

#include <spmvkit/distributed/detail/mpi_utils.hpp>
#include <spmvkit/distributed/distributed_matrix.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/preconditioners/ilu0.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit {

namespace detail {

/// This rank's diagonal block as a CrsMatrix (the block itself when it is one).
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat, class Ordinal,
          class Offset>
auto local_crs(
    ExecutionSpace const& exec,
    DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset> const& A) {
  return DiagFormat::to_crs(exec, A.diagonal_block());
}

/// Builds this rank's part with make(local CRS) collectively (collective_step):
/// every rank returns it or every rank throws the same DistributedError.
template <class DistMatrix, class Make>
auto build_local_preconditioner(typename DistMatrix::execution_space const& exec,
                                DistMatrix const& A, char const* what, Make&& make) {
  auto const& part = A.partition();
  using Result = decltype(make(local_crs(exec, A)));
  std::optional<Result> result;
  collective_step(A.comm(), what, [&] {
    // A RowPartition gives every rank at least one row.
    try {
      result.emplace(make(local_crs(exec, A)));
    } catch (std::exception const& e) {
      throw std::runtime_error(std::string(e.what()) + " (local rows of rank " +
                               std::to_string(part.rank()) + ", whose first global row is " +
                               std::to_string(part.first_row()) + ")");
    }
  });
  return std::move(*result);
}

} // namespace detail

/// Block-Jacobi of a distributed matrix: blocks of `block_size` consecutive
/// rows (1 to 32) within each rank's rows, the last block of a rank smaller
/// when block_size does not divide its row count (so blocks never straddle
/// two ranks). Collective; throws DistributedError on every rank when any
/// rank fails (block_size outside 1..32, a singular block). The result
/// applies to this rank's entries of the vectors, as the distributed operator
/// does.
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat, class Ordinal,
          class Offset>
BlockJacobiPreconditioner<Scalar, ExecutionSpace> make_block_jacobi(
    ExecutionSpace const& exec,
    DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset> const& A,
    int block_size) {
  return detail::build_local_preconditioner(
      exec, A, "spmvkit::make_block_jacobi (distributed)", [&](auto const& local) {
        using Block = BlockJacobiPreconditioner<Scalar, ExecutionSpace>;
        const std::int64_t n = local.num_rows();
        if (block_size < 1 || block_size > Block::max_block_rows) {
          throw std::invalid_argument(
              "spmvkit::make_block_jacobi: block_size = " + std::to_string(block_size) +
              " must be in 1.." + std::to_string(Block::max_block_rows) +
              " (a rank with fewer rows takes them as one block)");
        }
        std::vector<std::int64_t> starts;
        for (std::int64_t s = 0; s < n; s += block_size) starts.push_back(s);
        starts.push_back(n);
        return Block(exec, local, starts);
      });
}

/// ILU(0) of each rank's diagonal block (make_ilu0 of that block as a
/// CrsMatrix, `options` as there). Collective; throws DistributedError on
/// every rank when any rank fails (a zero or non-finite pivot).
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat, class Ordinal,
          class Offset>
auto make_ilu0(
    ExecutionSpace const& exec,
    DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset> const& A,
    Ilu0Options const& options = Ilu0Options()) {
  return detail::build_local_preconditioner(
      exec, A, "spmvkit::make_ilu0 (distributed)",
      [&](auto const& local) { return make_ilu0(exec, local, options); });
}

/// IC(0) of each rank's diagonal block, for a symmetric positive definite A
/// (make_ic0 of that block; the diagonal block of an SPD matrix is SPD).
/// Collective, as make_ilu0.
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat, class Ordinal,
          class Offset>
auto make_ic0(
    ExecutionSpace const& exec,
    DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset> const& A,
    Ilu0Options const& options = Ilu0Options()) {
  return detail::build_local_preconditioner(
      exec, A, "spmvkit::make_ic0 (distributed)",
      [&](auto const& local) { return make_ic0(exec, local, options); });
}

/// An AMG hierarchy of each rank's diagonal block (make_amg of that block as a
/// CrsMatrix, `options` as there): additive across ranks, so the iterations
/// grow with the ranks as for the other rank-local preconditioners, while each
/// rank's hierarchy keeps them nearly independent of its own size. Every rank
/// sets up and cycles alone (no message). Collective; throws DistributedError
/// on every rank when any rank fails (options out of range, a zero diagonal
/// entry, a λmax estimate that is not positive, a singular coarsest operator,
/// a level beyond the memory limit). Each rank's report() describes its own
/// hierarchy.
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat, class Ordinal,
          class Offset>
AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_amg(ExecutionSpace const& exec,
         DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset> const& A,
         AmgOptions const& options = {}) {
  return detail::build_local_preconditioner(
      exec, A, "spmvkit::make_amg (distributed)",
      [&](auto const& local) { return make_amg(exec, local, options); });
}

/// As above with this rank's rows of a near-nullspace (local rows x k,
/// LayoutLeft; e.g. the rigid-body modes of its nodes): a View of another
/// length is refused on the rank that holds it, and so on every rank.
template <class DiagFormat, class Scalar, class ExecutionSpace, class OffFormat, class Ordinal,
          class Offset>
AmgPreconditioner<Scalar, ExecutionSpace, Ordinal, Offset>
make_amg(ExecutionSpace const& exec,
         DistributedMatrix<DiagFormat, Scalar, ExecutionSpace, OffFormat, Ordinal, Offset> const& A,
         typename AmgPreconditioner<Scalar, ExecutionSpace, Ordinal,
                                    Offset>::multi_vector_type const& near_nullspace,
         AmgOptions const& options = {}) {
  return detail::build_local_preconditioner(
      exec, A, "spmvkit::make_amg (distributed)",
      [&](auto const& local) { return make_amg(exec, local, near_nullspace, options); });
}

} // namespace spmvkit

#endif
