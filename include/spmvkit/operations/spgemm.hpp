// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_SPGEMM_HPP
#define SPMVKIT_OPERATIONS_SPGEMM_HPP

/// \file
/// SpGEMM moved to its own domain, spgemm/spgemm.hpp; this header keeps existing includes working.

#include <spmvkit/spgemm/spgemm.hpp>

#endif
