#ifndef SPMVKIT_SPMVKIT_HPP
#define SPMVKIT_SPMVKIT_HPP

// Everything public in one include. Each header also stands on its own.
// interop/kokkos_kernels.hpp is included only when Kokkos Kernels is found
// (SPMVKIT_HAS_KOKKOS_KERNELS, set by the CMake package).
#include <spmvkit/core/format_concept.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/solvers/operator.hpp>
#include <spmvkit/version.hpp>
#if defined(SPMVKIT_HAS_KOKKOS_KERNELS)
#include <spmvkit/interop/kokkos_kernels.hpp>
#endif

#endif
