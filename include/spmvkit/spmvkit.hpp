#ifndef SPMVKIT_SPMVKIT_HPP
#define SPMVKIT_SPMVKIT_HPP

// Everything public in one include. Each header also stands on its own.
#include <spmvkit/solvers/cg.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/formats/sell16/sell16_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>
#include <spmvkit/operations/spmv.hpp>
#include <spmvkit/version.hpp>

#endif
