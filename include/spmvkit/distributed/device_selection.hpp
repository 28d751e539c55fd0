// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DEVICE_SELECTION_HPP
#define SPMVKIT_DISTRIBUTED_DEVICE_SELECTION_HPP

/// \file
/// One rank per GPU: the device a rank should give Kokkos::initialize, from
/// its rank among the ranks of its node. Call after MPI_Init and before
/// Kokkos::initialize (Kokkos binds its device at initialisation).
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdlib>
#include <string>

namespace spmvkit {

/// This process's rank among the ranks on its node: OMPI_COMM_WORLD_LOCAL_RANK
/// (Open MPI's mpirun), MPI_LOCALRANKID (MPICH's Hydra) or SLURM_LOCALID when
/// set, else computed with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) on comm
/// (then collective).
inline int node_local_rank(MPI_Comm comm) {
  for (char const* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    if (char const* value = std::getenv(name)) {
      char* end = nullptr;
      const long rank = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && rank >= 0) return static_cast<int>(rank);
    }
  }
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

/// The GPU this rank should use, node_local_rank() modulo the GPUs visible
/// to it, or -1 on builds without a GPU backend (nothing to select). With
/// CUDA, 0 GPUs visible gives -1 as well.
inline int device_for_rank(MPI_Comm comm) {
  const int local = node_local_rank(comm);
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) return -1;
  return local % count;
#else
  (void)local;
  return -1;
#endif
}

/// Kokkos::initialize with this rank's device (device_for_rank) and
/// `threads` host threads (<= 0: Kokkos' default); Kokkos 3 and 4 spellings.
inline void initialize_kokkos_for_rank(MPI_Comm comm, int threads = -1) {
  const int device = device_for_rank(comm);
#if KOKKOS_VERSION >= 30700
  Kokkos::InitializationSettings settings;
  if (device >= 0) settings.set_device_id(device);
  if (threads > 0) settings.set_num_threads(threads);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments args;
  if (device >= 0) args.device_id = device;
  if (threads > 0) args.num_threads = threads;
  Kokkos::initialize(args);
#endif
}

} // namespace spmvkit

#endif
