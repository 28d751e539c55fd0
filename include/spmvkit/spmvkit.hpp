#ifndef SPMVKIT_SPMVKIT_HPP
#define SPMVKIT_SPMVKIT_HPP

// Everything public in one include. Each header also stands on its own.
#include <spmvkit/cg.hpp>
#include <spmvkit/crs_matrix.hpp>
#include <spmvkit/fem_poisson.hpp>
#include <spmvkit/kokkos_kernels.hpp>
#include <spmvkit/matrix_market.hpp>
#include <spmvkit/sell16_matrix.hpp>
#include <spmvkit/sell_matrix.hpp>
#include <spmvkit/spmv.hpp>
#include <spmvkit/version.hpp>

#endif
