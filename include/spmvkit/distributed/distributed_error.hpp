// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_DISTRIBUTED_ERROR_HPP
#define SPMVKIT_DISTRIBUTED_DISTRIBUTED_ERROR_HPP

/// \file
/// The one exception of the distributed module. Every collective step (reading,
/// partitioning, assembling, building the halo plan) ends with an agreement on
/// errors: when one rank fails, every rank of the communicator throws the same
/// DistributedError, so no rank is left waiting in the next collective.
#include <stdexcept>

namespace spmvkit {

/// Thrown on every rank when a collective step of the distributed module
/// failed on at least one rank.
///
/// The message is "<step> failed on rank <r> of <p>: <what rank r threw>"
/// (with "(and k more)" when other ranks failed too): the same text on every
/// rank, so a log of any rank names the cause.
class DistributedError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace spmvkit

#endif
