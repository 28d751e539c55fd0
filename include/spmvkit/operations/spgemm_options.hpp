// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_SPGEMM_OPTIONS_HPP
#define SPMVKIT_OPERATIONS_SPGEMM_OPTIONS_HPP

/// \file
/// SpGEMM moved to its own domain, spgemm/spgemm_options.hpp; this header keeps existing includes
/// working.

#include <spmvkit/spgemm/spgemm_options.hpp>

#endif
