// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_CUSPARSE_SPMV_HPP
#define SPMVKIT_PERF_CUSPARSE_SPMV_HPP

// cuSPARSE's generic SpMV called directly, for the cusparse_best reference of the spmv family:
// CSR ALG1, CSR ALG2, COO ALG1 and COO ALG2, each prepared (buffer, preprocess) and timed, the
// fastest kept. Only in CUDA builds where CMake finds the CUDA toolkit's cuSPARSE
// (SPMVKIT_PERF_HAS_CUSPARSE). This header names no cuSPARSE or CUDA type, so that the
// Kokkos-side code does not include cusparse.h; cusparse_spmv.cpp holds the calls.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// One algorithm's trial: its median time (seconds, CUDA events around each call), or why it
/// could not run (a cuSPARSE status name; "" when it ran).
struct CusparseTrial {
  std::string algorithm; // csr_alg1, csr_alg2, coo_alg1, coo_alg2
  double seconds = 0;
  std::string failure;
};

/// y = A x with cuSPARSE for one device matrix in CRS (32-bit row starts and column indices)
/// plus the COO row index of each entry; values float (value_bytes 4) or double (8). The arrays
/// stay owned by the caller and must outlive this object. stream: the cudaStream_t to run on.
class CusparseSpmv {
public:
  CusparseSpmv(std::int64_t rows, std::int64_t cols, std::int64_t nnz, int const* row_starts,
               int const* coo_rows, int const* col_indices, void const* values, int value_bytes,
               void* stream);
  ~CusparseSpmv();
  CusparseSpmv(CusparseSpmv const&) = delete;
  CusparseSpmv& operator=(CusparseSpmv const&) = delete;

  /// Prepares and times every algorithm on x -> y (warm-up, then the median of `repetitions`
  /// calls), keeps the fastest and returns every trial. Throws std::runtime_error when none
  /// runs.
  std::vector<CusparseTrial> choose(void const* x, void* y, int repetitions);
  /// Prepares `algorithm` (a name of CusparseTrial) without timing: the rotated copies take
  /// what copy 0 chose.
  void use(std::string const& algorithm, void const* x, void* y);
  /// y = A x (alpha 1, beta 0) with the chosen algorithm, asynchronous on the stream.
  void apply(void const* x, void* y);
  std::string const& algorithm() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace spmvkit::perf

#endif
