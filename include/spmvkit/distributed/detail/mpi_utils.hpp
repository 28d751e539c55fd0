// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DETAIL_MPI_UTILS_HPP
#define SPMVKIT_DISTRIBUTED_DETAIL_MPI_UTILS_HPP

// MPI helpers of the distributed module: datatypes, checked calls, large
// messages, and the agreement on errors that keeps every rank on the same path.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/distributed/distributed_error.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::detail {

template <class T>
MPI_Datatype mpi_datatype() {
  if constexpr (std::is_same_v<T, double>) {
    return MPI_DOUBLE;
  } else if constexpr (std::is_same_v<T, float>) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return MPI_INT64_T;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return MPI_INT32_T;
  } else {
    static_assert(std::is_same_v<T, double>, "spmvkit distributed: no MPI datatype for this type");
    return MPI_DATATYPE_NULL;
  }
}

/// Throws DistributedError naming the call when an MPI call did not succeed
/// (only reachable with an error handler other than MPI_ERRORS_ARE_FATAL).
inline void mpi_check(int rc, char const* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw DistributedError(std::string("spmvkit distributed: ") + call +
                         " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

inline int mpi_rank(MPI_Comm comm) {
  int rank = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

inline int mpi_size(MPI_Comm comm) {
  int size = 0;
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

// MPI counts are int: messages of more than 2^30 elements go in pieces.
inline constexpr std::int64_t mpi_max_piece = std::int64_t(1) << 30;

template <class T>
void mpi_send_large(T const* data, std::int64_t count, int dest, int tag, MPI_Comm comm) {
  for (std::int64_t at = 0; at < count; at += mpi_max_piece) {
    const int piece = static_cast<int>(std::min(mpi_max_piece, count - at));
    mpi_check(MPI_Send(data + at, piece, mpi_datatype<T>(), dest, tag, comm), "MPI_Send");
  }
}

template <class T>
void mpi_recv_large(T* data, std::int64_t count, int source, int tag, MPI_Comm comm) {
  for (std::int64_t at = 0; at < count; at += mpi_max_piece) {
    const int piece = static_cast<int>(std::min(mpi_max_piece, count - at));
    mpi_check(MPI_Recv(data + at, piece, mpi_datatype<T>(), source, tag, comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
  }
}

/// The agreement: every rank brings its error message (empty: none); when any
/// rank has one, every rank throws the same DistributedError with the message
/// of the lowest failing rank. Two collectives when something failed, one
/// otherwise; so every rank must call it at the same point (it is the step's
/// barrier), which is what keeps a failure on one rank from hanging the others
/// in the next collective.
inline void agree_on_errors(MPI_Comm comm, char const* step, std::string const& error) {
  const int size = mpi_size(comm);
  const int rank = mpi_rank(comm);
  int mine = error.empty() ? size : rank, first = size;
  mpi_check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return;
  int failing = error.empty() ? 0 : 1, failures = 0;
  mpi_check(MPI_Allreduce(&failing, &failures, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  int length = rank == first ? static_cast<int>(error.size()) : 0;
  mpi_check(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::string message = rank == first ? error : std::string(static_cast<std::size_t>(length), ' ');
  if (length > 0) {
    mpi_check(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast");
  }
  throw DistributedError(std::string(step) + " failed on rank " + std::to_string(first) + " of " +
                         std::to_string(size) +
                         (failures > 1 ? " (and " + std::to_string(failures - 1) + " more)" : "") +
                         ": " + message);
}

/// Runs step() on this rank: the message of what it threw, empty when it returned.
template <class Step>
std::string error_of(Step&& step) {
  try {
    step();
  } catch (std::exception const& e) {
    std::string error = e.what();
    return error.empty() ? "an exception without a message" : error;
  } catch (...) {
    return "an unknown exception";
  }
  return {};
}

/// Runs step() on this rank, then agrees on errors (agree_on_errors): either
/// every rank returns or every rank throws the same DistributedError.
template <class Step>
void collective_step(MPI_Comm comm, char const* what, Step&& step) {
  agree_on_errors(comm, what, error_of(std::forward<Step>(step)));
}

} // namespace spmvkit::detail

#endif
