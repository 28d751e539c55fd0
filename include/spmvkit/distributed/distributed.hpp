// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DISTRIBUTED_HPP
#define SPMVKIT_DISTRIBUTED_DISTRIBUTED_HPP

/// \file
/// The distributed module (target SpMVKit::mpi, option SPMVKIT_ENABLE_MPI):
/// row partitions, the distributed matrix with its halo exchange, the MPI
/// reduction policy of CG, the FEM problem assembled in parallel and Matrix
/// Market files scattered from one rank. docs/distributed.md describes the
/// design and how to run it. Not part of spmvkit.hpp, which needs no MPI.
#include <spmvkit/distributed/device_selection.hpp>
#include <spmvkit/distributed/distributed_error.hpp>
#include <spmvkit/distributed/distributed_fem.hpp>
#include <spmvkit/distributed/distributed_matrix.hpp>
#include <spmvkit/distributed/distributed_matrix_market.hpp>
#include <spmvkit/distributed/distributed_preconditioners.hpp>
#include <spmvkit/distributed/halo_exchange.hpp>
#include <spmvkit/distributed/mpi_reduction.hpp>
#include <spmvkit/distributed/row_partition.hpp>

#endif
