#ifndef SPMVKIT_PERF_BENCHMARKS_HPP
#define SPMVKIT_PERF_BENCHMARKS_HPP

#include "perf_common.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// Where a benchmark's matrix comes from.
struct MatrixSource {
  enum class Kind { fem, mtx, rmat };
  Kind kind = Kind::fem;
  std::string name; // fem_N64, 1138_bus, rmat_s18_e16: the third part of benchmark names
  std::string path; // mtx
  int fem_n = 0;
  int rmat_scale = 0;
  int rmat_edge_factor = 0;
  bool in_sweep = true; // spmv / spmv200 / transfer run on it
  bool in_cg = false;   // cg runs on it (FEM only)
};

/// An SpMV implementation: CRS kernels, SELL-C-sigma, or Kokkos Kernels.
struct FormatSpec {
  enum class Kind {
    crs_row_per_thread,
    crs_vector,
    crs_automatic,
    sell,
    sell16,
    kk_native,
    kk_default
  };
  Kind kind = Kind::crs_automatic;
  int chunk = 0;
  std::int64_t sigma = 1;
  std::string name() const; // crs_row_per_thread, sell_c32_s1024, kk_native, crs (automatic)
  bool is_sell() const { return kind == Kind::sell; }
  bool is_sell16() const { return kind == Kind::sell16; }
  bool is_kk() const { return kind == Kind::kk_native || kind == Kind::kk_default; }
};

/// The selected formats, in a fixed order: CRS kernels, SELL (C, then sigma), KK native, KK
/// default.
std::vector<FormatSpec> selected_formats();
/// "crs" (CRS, automatic kernel), "crs_vector", "sell_c32_s1", "kk_native", ...
FormatSpec parse_format(std::string const& name);

/// FEM sizes, real matrices, --mtx files and R-MAT graphs, in benchmark order.
std::vector<MatrixSource> matrix_sources();

/// The source's matrix on the default execution space. Cached: one matrix per Scalar is kept
/// (benchmarks are registered matrix by matrix, so each is built once per precision).
template <class Scalar>
Crs<Scalar> const& load_matrix(MatrixSource const& source);

/// Copy benchmark (bench_copy.cpp).
std::int64_t copy_elements();
void register_copy_benchmarks();

/// spmv, spmv200, transfer (bench_spmv.cpp) and cg (bench_cg.cpp) for one matrix.
template <class Scalar>
void register_matrix_benchmarks(MatrixSource const& source);
template <class Scalar>
void register_cg_benchmark(MatrixSource const& source, FormatSpec const& format);

} // namespace spmvkit::perf

#endif
