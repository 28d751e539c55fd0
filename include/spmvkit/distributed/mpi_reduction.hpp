// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_MPI_REDUCTION_HPP
#define SPMVKIT_DISTRIBUTED_MPI_REDUCTION_HPP

/// \file
/// The reduction policy of distributed operators (solvers/operator.hpp): the
/// partial sums of CG's dot products summed over the ranks with MPI. The
/// blocking all_reduce serves the standard CG; the split all_reduce_begin /
/// all_reduce_end pair lets the pipelined CG post one MPI_Iallreduce per
/// iteration and run the next apply (halo exchange and SpMV) before waiting.
///
/// The sums are a few doubles, so where they live in device memory they are
/// staged through a host buffer whatever the MPI (one small copy each way):
/// the allreduce is latency-bound and a GPU-aware MPI would copy them as well.
/// The buffer is pinned (detail::StagingHostSpace), so the copy to the host
/// is queued on the caller's instance behind the kernels that made the sums
/// and one fence waits for both (before: a fence, then a synchronous copy
/// from pageable memory). On CUDA the copy back is not waited for: the next
/// reduction's copy to the host, on the same stream, is queued behind it (on
/// another instance that reduction fences the device first). Waiting for it
/// in end() made an all-reduce of two sums about 1.3x slower; no difference
/// per CG iteration stood out of the spread between builds and jobs
/// (docs/notes/2026-11-24-mpi-reduction-pinned.md).
#include <spmvkit/distributed/detail/mpi_utils.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

/// Sums CG's partial sums over the ranks of a communicator (MPI_SUM on
/// doubles); the reduction policy of DistributedMatrix.
///
/// Copies share their state (the non-blocking request), so a policy copied
/// into a solver and the operator's own copy stay consistent. The
/// communicator is not owned.
class MpiReduction {
public:
  /// The most sums one call combines (CG needs at most 3).
  static constexpr int max_count = 8;

  /// A policy summing over `comm`.
  explicit MpiReduction(MPI_Comm comm) : comm_(comm), state_(std::make_shared<State>()) {}

  /// Sums `count` doubles at `sums` (memory of ExecutionSpace's memory space) over the
  /// ranks, in place. Waits for exec first (the sums come from its kernels)
  /// and leaves the result ordered before exec's later work.
  template <class ExecutionSpace>
  void all_reduce(ExecutionSpace const& exec, double* sums, int count) const {
    all_reduce_begin(exec, sums, count);
    all_reduce_end(exec);
  }

  /// Sums `count` doubles in host memory over the ranks, in place (blocking).
  void all_reduce_host(double* sums, int count) const {
    detail::mpi_check(MPI_Allreduce(MPI_IN_PLACE, sums, count, MPI_DOUBLE, MPI_SUM, comm_),
                      "MPI_Allreduce");
  }

  /// Starts summing `count` doubles at `sums` (ExecutionSpace's memory) over the ranks
  /// with MPI_Iallreduce and returns: work queued on exec afterwards overlaps
  /// with it, but must not touch the sums until all_reduce_end(). Waits for
  /// exec (the sums come from its kernels). One reduction in flight at a time.
  template <class ExecutionSpace>
  void all_reduce_begin(ExecutionSpace const& exec, double* sums, int count) const {
    if (state_->pending) {
      throw std::logic_error("spmvkit::MpiReduction: all_reduce_begin while another reduction "
                             "is in flight (call all_reduce_end first)");
    }
    if (count < 0 || count > max_count) {
      throw std::invalid_argument("spmvkit::MpiReduction: count must be in [0, 8]");
    }
    double* buffer = sums;
    if constexpr (!host_accessible<ExecutionSpace>) {
      // The last copy back, still queued on another stream, reads the buffer.
      if (state_->copy_back_stream != 0 && state_->copy_back_stream != stream_key(exec)) {
        Kokkos::fence();
      }
      state_->copy_back_stream = 0;
      if (state_->host.extent(0) == 0) {
        state_->host = HostBuffer(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "SpMVKit::distributed::reduction_host"),
            max_count);
      }
      Kokkos::deep_copy(exec, HostSums(state_->host.data(), count),
                        DeviceSums<ExecutionSpace>(sums, count));
      buffer = state_->host.data();
    }
    exec.fence();
    state_->device = sums;
    state_->count = count;
    state_->pending = true;
    detail::mpi_check(
        MPI_Iallreduce(MPI_IN_PLACE, buffer, count, MPI_DOUBLE, MPI_SUM, comm_, &state_->request),
        "MPI_Iallreduce");
  }

  /// Waits for the reduction of the last all_reduce_begin (nothing when none is
  /// in flight); the summed values are then at its `sums`, the copy back to
  /// device memory queued on exec (on CUDA not waited for; see above).
  template <class ExecutionSpace>
  void all_reduce_end(ExecutionSpace const& exec) const {
    if (!state_->pending) return;
    state_->pending = false;
    detail::mpi_check(MPI_Wait(&state_->request, MPI_STATUS_IGNORE), "MPI_Wait");
    if constexpr (!host_accessible<ExecutionSpace>) {
      Kokkos::deep_copy(exec, DeviceSums<ExecutionSpace>(state_->device, state_->count),
                        HostSums(state_->host.data(), state_->count));
      state_->copy_back_stream = stream_key(exec);
      if (state_->copy_back_stream == 0) exec.fence();
    }
  }

  /// Returns when `error` is empty on every rank; otherwise every rank throws
  /// the same DistributedError naming `step` and the lowest failing rank's
  /// message. Collective. CG calls it after its argument checks and
  /// allocations, so that one rank's failure stops all of them.
  void agree_on_errors(char const* step, std::string const& error) const {
    detail::agree_on_errors(comm_, step, error);
  }

  /// The communicator summed over.
  MPI_Comm comm() const { return comm_; }

private:
  template <class ExecutionSpace>
  static constexpr bool host_accessible =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecutionSpace::memory_space>::accessible;
  using HostBuffer = Kokkos::View<double*, detail::StagingHostSpace>;
  using HostSums = Kokkos::View<double*, detail::StagingHostSpace, Kokkos::MemoryUnmanaged>;
  template <class ExecutionSpace>
  using DeviceSums =
      Kokkos::View<double*, typename ExecutionSpace::memory_space, Kokkos::MemoryUnmanaged>;

  /// exec's CUDA stream, which orders the copies of consecutive reductions;
  /// 0 on other backends (the copy back is then waited for in end()).
  template <class ExecutionSpace>
  static std::uintptr_t stream_key([[maybe_unused]] ExecutionSpace const& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
      return reinterpret_cast<std::uintptr_t>(exec.cuda_stream());
    }
#endif
    return 0;
  }

  struct State {
    MPI_Request request = MPI_REQUEST_NULL;
    HostBuffer host;                     // allocated by the first reduction of device sums
    std::uintptr_t copy_back_stream = 0; // the stream of a copy back not waited for
    double* device = nullptr;
    int count = 0;
    bool pending = false;
  };
  MPI_Comm comm_;
  std::shared_ptr<State> state_;
};

} // namespace spmvkit

#endif
