// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_BENCHMARKS_HPP
#define SPMVKIT_PERF_BENCHMARKS_HPP

#include "options.hpp"
#include "perf_common.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spmvkit::perf {

template <class Scalar>
struct Implementation;

/// Where a benchmark's matrix comes from.
struct MatrixSource {
  enum class Kind { fem, mtx, rmat, elasticity };
  Kind kind = Kind::fem;
  std::string name; // fem_N64, 1138_bus, rmat_s18_e16: the third part of benchmark names
  std::string path; // mtx
  int fem_n = 0;    // also the elasticity problem's N
  int rmat_scale = 0;
  int rmat_edge_factor = 0;
  bool in_sweep = true;   // spmv / spmv200 / transfer run on it
  bool in_cg = false;     // cg runs on it (FEM only)
  bool in_spgemm = false; // spgemm runs on it (--spgemm-fem-n, --spgemm-rmat-scale, real matrices)
  bool degree_order = false; // reordered by reorder_degree (--orderings degree), name + "_degree"
};

/// FEM sizes, real matrices, --mtx files and R-MAT graphs, in benchmark order.
std::vector<MatrixSource> matrix_sources(Options const& options);

/// The source's matrix on the default execution space. Cached: one matrix per Scalar is kept
/// (benchmarks are registered matrix by matrix, so each is built once per precision).
template <class Scalar>
Crs<Scalar> const& load_matrix(Options const& options, MatrixSource const& source);

/// The bandwidth yardsticks (bench_yardsticks.cpp): a STREAM-style copy and a read-only sum.
enum class Yardstick { copy, read };
std::int64_t yardstick_elements(Options const& options);
void register_yardstick_benchmarks(std::shared_ptr<const Options> const& options);
/// The median GB/s of a yardstick, from its benchmark in this run, or measured on the spot
/// when that benchmark was filtered out.
double yardstick_gbs(Options const& options, Yardstick which);

/// spmv, spmv200, transfer (bench_spmv.cpp) and cg (bench_cg.cpp) for one matrix. Throws
/// std::invalid_argument when --formats or --transfer-formats selects nothing it names.
template <class Scalar>
void register_matrix_benchmarks(std::shared_ptr<const Options> const& options,
                                MatrixSource const& source);
template <class Scalar>
void register_cg_benchmark(std::shared_ptr<const Options> const& options,
                           MatrixSource const& source,
                           Implementation<Scalar> const& implementation);

/// convert and reorder (bench_convert.cpp) for one matrix: conversion and reordering cost in
/// SpMV-equivalents.
template <class Scalar>
void register_conversion_benchmarks(std::shared_ptr<const Options> const& options,
                                    MatrixSource const& source);

/// spgemm (bench_spgemm.cpp) for one matrix: C = A A in SpMVKit and Kokkos Kernels, symbolic,
/// numeric and both, after a check of SpMVKit's C against Kokkos Kernels'.
template <class Scalar>
void register_spgemm_benchmarks(std::shared_ptr<const Options> const& options,
                                MatrixSource const& source);
/// The ops family (bench_operations.cpp): transpose, spadd and assembly on the sweep matrices.
template <class Scalar>
void register_ops_benchmarks(std::shared_ptr<const Options> const& options,
                             MatrixSource const& source);

/// solve (bench_solve.cpp): every solver x preconditioner of --solve-methods on the FEM and
/// convection-diffusion matrices of --solve-fem-n and --solve-cd-n and the real matrices among
/// `sources`, SpMVKit against KokkosBlas + Kokkos Kernels (kk, kk_gmres) and PETSc.
template <class Scalar>
void register_solve_benchmarks(std::shared_ptr<const Options> const& options,
                               std::vector<MatrixSource> const& sources);

/// The format names of this build (--formats and --transfer-formats), for the usage text.
std::string format_names();

/// Checks that every item of --formats and --transfer-formats selects at least one benchmark
/// (std::invalid_argument naming the item otherwise).
void check_format_selection(Options const& options);

} // namespace spmvkit::perf

#endif
