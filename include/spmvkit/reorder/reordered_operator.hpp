// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_REORDER_REORDERED_OPERATOR_HPP
#define SPMVKIT_REORDER_REORDERED_OPERATOR_HPP

/// \file
/// Deprecated path: ReorderedOperator moved to solvers/reordered_operator.hpp
/// (it is a solver-side wrapper; reorder/ sits below solvers/). This header
/// forwards there and goes away in 0.4.
#include <spmvkit/solvers/reordered_operator.hpp>

#endif
