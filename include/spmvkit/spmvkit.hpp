// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPMVKIT_HPP
#define SPMVKIT_SPMVKIT_HPP

/// \file
/// Everything public in one include: `#include <spmvkit/spmvkit.hpp>`.
///
/// Each header also stands on its own. interop/kokkos_kernels.hpp and interop/kokkos_blas.hpp
/// (KokkosBlasVectors for cg) are included only when Kokkos
/// Kernels is found: the macro `SPMVKIT_HAS_KOKKOS_KERNELS` is defined by the CMake target
/// `SpMVKit::kokkos_kernels`, which `SpMVKit::spmvkit` links when SpMVKit was built with Kokkos
/// Kernels.

/// \namespace spmvkit
/// Everything public in SpMVKit: sparse matrix formats, SpMV, CG, model problems, Matrix
/// Market I/O and Kokkos Kernels interop.
///
/// **Where to start**, by domain (folder of include/spmvkit/):
/// - core/: the format concept (format_concept.hpp, check_format(), type_list), memory and
///   errors (AllocationError, memory_limit()), row statistics, checked arithmetic.
/// - formats/: every format of format_list, each converted from and to CrsMatrix: CrsMatrix
///   (compressed rows; check_structure(), trust_structure()), SellMatrix (SELL-C-σ, make_sell()),
///   SellOffset16Matrix (SELL-C-σ with 16-bit column offsets, make_sell_offset16(),
///   can_use_sell_offset16()), EllMatrix and EllrMatrix (make_ell(), make_ellr()), CooMatrix
///   (make_coo()), HybMatrix (ELL + COO tail), CsrkMatrix (CSR-k super-rows).
/// - reorder/: orderings and permutations (reorder_rcm(), reorder_band_k(), reorder_degree(),
///   permute_symmetric(), permute(), unpermute()).
/// - select/: the automatic format choice, make_auto_matrix() and AutoMatrix, from
///   compute_features() and the format cost model.
/// - operations/: spmv() (y = beta y + alpha A x, any format), transpose() (CRS to CRS), spadd()
///   (C = alpha A + beta B, with SpaddHandle) and assemble_crs() (triplets with duplicates to CRS
///   on the device, with AssemblyPattern and refill() for new values).
/// - spgemm/: spgemm() (C = A B, with a handle for repeated numeric phases and a public strategy
///   choice, SpgemmOptions), triple_product() and galerkin_product() (R A P, Pᵀ A P).
/// - problems/: the FEM Poisson test problem (make_fem_poisson(), fem_poisson_rhs(),
///   fem_poisson_exact(), fem_poisson_l2_error()) and the nonsymmetric convection-diffusion one
///   (ConvectionDiffusion, make_convection_diffusion(), convection_diffusion_rhs(),
///   convection_diffusion_solution()).
/// - io/: read_matrix_market(), read_matrix_market_info(), write_matrix_market().
/// - solvers/: cg() (standard or pipelined, Jacobi-preconditioned, mixed precision) with
///   CgOptions and CgResult on any operator (MatrixOperator, ReorderedOperator, a user's);
///   pipelined_cg(), bicgstab() and gmres() (right-preconditioned) with SolverOptions,
///   SolverStatus and SolverResult shared by all (solvers/solver_options.hpp) and work vectors
///   kept between solves in a SolverWorkspace (solvers/workspace.hpp); the
///   preconditioner concept with make_jacobi() (solvers/preconditioner.hpp) and, in
///   solvers/preconditioners/, block-Jacobi (make_block_jacobi(): inverted diagonal blocks of a
///   CrsMatrix, up to 32 rows), Chebyshev (make_chebyshev(): a fixed polynomial in D⁻¹A of any
///   matrix or operator), ILU(0)/IC(0) (make_ilu0(), make_ic0(): fixed-point sweeps,
///   Jacobi-iterated or, on small hosts, exact triangular solves) and smoothed-aggregation AMG
///   (make_amg(): set up on the device, a V- or W-cycle, refresh() for new values).
///   docs/solvers.md says which when.
/// - interop/: Kokkos Kernels (to_kokkos_kernels(), from_kokkos_kernels(), KokkosKernelsSpmv,
///   KokkosBlasVectors for cg).
/// - distributed/: the same over MPI (SpMVKit::mpi; distributed/distributed.hpp, not included
///   here).
/// - New formats: the format concept (core/format_concept.hpp, check_format()) and format_list.
///
/// **Conventions.**
/// - Every class and function is templated on the scalar type (`float`, `double`, any
///   floating-point type) and a Kokkos execution space type; matrices live in that execution
///   space's default memory space. Index types default to `int` rows and columns (`Ordinal`) and
///   `int` entry offsets (`Offset`); a matrix with more than 2^31 - 1 entries needs
///   `Offset = std::int64_t`, and a size that does not fit its index type is rejected with
///   `std::length_error` at construction, never wrapped.
/// - Matrices are handles: copying one is cheap and shares its Views (Kokkos reference counting).
/// - Kernels run on the execution space instance passed as the `exec` argument and are
///   asynchronous with respect to the host unless the documentation says otherwise; fence `exec`
///   before reading results on the host. Overloads without `exec` use a default-constructed
///   instance of the matrix's execution space.
/// - Errors are exceptions: `std::invalid_argument` for arguments that do not fit together,
///   `std::length_error` for sizes beyond the index types, AllocationError for failed
///   allocations, MatrixMarketError for unreadable files. Numerical trouble in CG is reported in
///   CgResult, not thrown.
/// - Namespace `spmvkit::detail` (and every `detail/` directory) is implementation, not API.
///
/// \code
/// #include <spmvkit/spmvkit.hpp>
///
/// using ExecutionSpace = Kokkos::DefaultExecutionSpace;
/// ExecutionSpace exec;
/// auto A = spmvkit::make_fem_poisson_crs<double>(exec, 32); // 31^3 rows, 27-point stencil
/// auto S = spmvkit::make_sell(exec, A, 32, 256);            // C = 32 rows per chunk, sigma = 256
/// Kokkos::View<double*> x("x", A.num_cols()), y("y", A.num_rows());
/// Kokkos::deep_copy(exec, x, 1.0);
/// spmvkit::spmv(exec, 1.0, S, x, 0.0, y); // y = S x, asynchronous on exec
///
/// auto b = spmvkit::fem_poisson_rhs<double>(exec, 32);
/// Kokkos::View<double*> u("u", A.num_rows());
/// spmvkit::CgOptions options;
/// options.relative_tolerance = 1e-10;
/// spmvkit::CgResult result = spmvkit::cg(exec, S, b, u, options); // synchronous
/// if (!result.converged()) std::cerr << spmvkit::name(result.status) << ": " << result.message;
/// \endcode
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/assembly.hpp>
#include <spmvkit/operations/spadd.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/operations/transpose.hpp>
#include <spmvkit/problems/convection_diffusion.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/reorder/band_k.hpp>
#include <spmvkit/reorder/degree.hpp>
#include <spmvkit/reorder/rcm.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/solvers/bicgstab.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/gmres.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/solvers/pipelined_cg.hpp>
#include <spmvkit/solvers/preconditioner.hpp>
#include <spmvkit/solvers/preconditioners/amg.hpp>
#include <spmvkit/solvers/preconditioners/block_jacobi.hpp>
#include <spmvkit/solvers/preconditioners/chebyshev.hpp>
#include <spmvkit/solvers/preconditioners/ilu0.hpp>
#include <spmvkit/solvers/reordered_operator.hpp>
#include <spmvkit/solvers/workspace.hpp>
#include <spmvkit/spgemm/spgemm.hpp>
#include <spmvkit/version.hpp>
#if defined(SPMVKIT_HAS_KOKKOS_KERNELS)
#include <spmvkit/interop/kokkos_blas.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#endif

#endif
