// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_PIPELINED_CG_HPP
#define SPMVKIT_SOLVERS_PIPELINED_CG_HPP

/// \file
/// Pipelined CG (Ghysels and Vanroose 2014) as a solver of its own: one fused
/// reduction per iteration, for many ranks or small problems on GPUs, where
/// reductions rather than bandwidth bound an iteration (solvers/cg.hpp
/// documents the recurrence, its traffic and its residual replacement).
#include <spmvkit/solvers/cg.hpp>

namespace spmvkit {

/// Solves A x = b by pipelined CG: cg() with CgOptions::variant =
/// CgVariant::pipelined (whatever opts.variant says). Parameters, result,
/// exceptions and cost as for cg()'s pipelined variant.
template <class ExecutionSpace, class Matrix, class BView, class XView>
CgResult pipelined_cg(ExecutionSpace const& exec, Matrix const& A, BView const& b, XView const& x,
                      CgOptions opts = CgOptions()) {
  opts.variant = CgVariant::pipelined;
  return cg(exec, A, b, x, opts);
}

/// Pipelined CG with an element-wise preconditioner (JacobiPreconditioner);
/// a general preconditioner throws std::invalid_argument (see cg()).
template <class ExecutionSpace, class Matrix, class Prec, class BView, class XView,
          class = std::enable_if_t<is_preconditioner_v<Prec>>>
CgResult pipelined_cg(ExecutionSpace const& exec, Matrix const& A, Prec const& M, BView const& b,
                      XView const& x, CgOptions opts = CgOptions()) {
  opts.variant = CgVariant::pipelined;
  return cg(exec, A, M, b, x, opts);
}

} // namespace spmvkit

#endif
