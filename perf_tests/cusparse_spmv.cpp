// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// cuSPARSE's generic SpMV for the cusparse_best reference (cusparse_spmv.hpp). Built only where
// CMake finds cuSPARSE 12 or newer in a CUDA build (perf_tests/CMakeLists.txt).

#include "cusparse_spmv.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit::perf {

namespace {

void check(cusparseStatus_t s, char const* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cusparse_best: ") + what + ": " +
                             cusparseGetErrorName(s));
}

void check(cudaError_t s, char const* what) {
  if (s != cudaSuccess)
    throw std::runtime_error(std::string("cusparse_best: ") + what + ": " + cudaGetErrorName(s));
}

struct Algorithm {
  char const* name;
  cusparseSpMVAlg_t alg;
  bool coo;
};

constexpr Algorithm algorithms[] = {{"csr_alg1", CUSPARSE_SPMV_CSR_ALG1, false},
                                    {"csr_alg2", CUSPARSE_SPMV_CSR_ALG2, false},
                                    {"coo_alg1", CUSPARSE_SPMV_COO_ALG1, true},
                                    {"coo_alg2", CUSPARSE_SPMV_COO_ALG2, true}};

Algorithm const& algorithm_named(std::string const& name) {
  for (auto const& a : algorithms)
    if (name == a.name) return a;
  throw std::invalid_argument("cusparse_best: no algorithm " + name);
}

} // namespace

struct CusparseSpmv::Impl {
  cudaStream_t stream = nullptr;
  cudaDataType type = CUDA_R_64F;
  int value_bytes = 8;
  cusparseHandle_t handle = nullptr;
  cusparseConstSpMatDescr_t csr = nullptr, coo = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  Algorithm chosen{"", CUSPARSE_SPMV_ALG_DEFAULT, false};
  std::string chosen_name;
  void* buffer = nullptr;

  ~Impl() {
    if (buffer) cudaFree(buffer);
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
    if (csr) cusparseDestroySpMat(csr);
    if (coo) cusparseDestroySpMat(coo);
    if (handle) cusparseDestroy(handle);
  }

  // alpha and beta in the value type: the compute type is the value type.
  template <class F>
  cusparseStatus_t with_scalars(F&& f) const {
    if (value_bytes == 8) {
      const double one = 1, zero = 0;
      return f(static_cast<void const*>(&one), static_cast<void const*>(&zero));
    }
    const float one = 1, zero = 0;
    return f(static_cast<void const*>(&one), static_cast<void const*>(&zero));
  }

  cusparseStatus_t spmv(Algorithm const& a, void* buf) const {
    return with_scalars([&](void const* one, void const* zero) {
      return cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, a.coo ? coo : csr, x, zero,
                          y, type, a.alg, buf);
    });
  }

  void set_vectors(void const* xv, void* yv) {
    // cuSPARSE has no setter for a const dense vector; x is only read.
    check(cusparseDnVecSetValues(x, const_cast<void*>(xv)), "cusparseDnVecSetValues(x)");
    check(cusparseDnVecSetValues(y, yv), "cusparseDnVecSetValues(y)");
  }

  /// Buffer and preprocess of `a`; the status of the first call that fails.
  cusparseStatus_t prepare(Algorithm const& a, void** buf) const {
    std::size_t size = 0;
    cusparseStatus_t s = with_scalars([&](void const* one, void const* zero) {
      return cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one,
                                     a.coo ? coo : csr, x, zero, y, type, a.alg, &size);
    });
    if (s != CUSPARSE_STATUS_SUCCESS) return s;
    *buf = nullptr;
    if (size > 0 && cudaMalloc(buf, size) != cudaSuccess) return CUSPARSE_STATUS_ALLOC_FAILED;
#if CUSPARSE_VERSION >= 12300
    s = with_scalars([&](void const* one, void const* zero) {
      return cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one,
                                     a.coo ? coo : csr, x, zero, y, type, a.alg, *buf);
    });
    // Algorithms without a preprocess step say so; they run without one.
    if (s == CUSPARSE_STATUS_NOT_SUPPORTED) s = CUSPARSE_STATUS_SUCCESS;
    if (s != CUSPARSE_STATUS_SUCCESS && *buf) {
      cudaFree(*buf);
      *buf = nullptr;
    }
#endif
    return s;
  }

  void keep(Algorithm const& a, void* buf) {
    if (buffer) cudaFree(buffer);
    buffer = buf;
    chosen = a;
    chosen_name = a.name;
  }
};

CusparseSpmv::CusparseSpmv(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                           int const* row_starts, int const* coo_rows, int const* col_indices,
                           void const* values, int value_bytes, void* stream)
    : impl_(std::make_unique<Impl>()) {
  if (value_bytes != 4 && value_bytes != 8)
    throw std::invalid_argument("cusparse_best: values must be float or double");
  auto& m = *impl_;
  m.stream = static_cast<cudaStream_t>(stream);
  m.value_bytes = value_bytes;
  m.type = value_bytes == 8 ? CUDA_R_64F : CUDA_R_32F;
  check(cusparseCreate(&m.handle), "cusparseCreate");
  check(cusparseSetStream(m.handle, m.stream), "cusparseSetStream");
  check(cusparseCreateConstCsr(&m.csr, rows, cols, nnz, row_starts, col_indices, values,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                               m.type),
        "cusparseCreateConstCsr");
  check(cusparseCreateConstCoo(&m.coo, rows, cols, nnz, coo_rows, col_indices, values,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, m.type),
        "cusparseCreateConstCoo");
  // Placeholders until choose/use/apply set the values.
  check(cusparseCreateDnVec(&m.x, cols, nullptr, m.type), "cusparseCreateDnVec(x)");
  check(cusparseCreateDnVec(&m.y, rows, nullptr, m.type), "cusparseCreateDnVec(y)");
}

CusparseSpmv::~CusparseSpmv() = default;

std::vector<CusparseTrial> CusparseSpmv::choose(void const* x, void* y, int repetitions) {
  auto& m = *impl_;
  m.set_vectors(x, y);
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<CusparseTrial> trials;
  double best = 0;
  for (auto const& a : algorithms) {
    CusparseTrial t;
    t.algorithm = a.name;
    void* buf = nullptr;
    cusparseStatus_t s = m.prepare(a, &buf);
    for (int i = 0; i < 3 && s == CUSPARSE_STATUS_SUCCESS; ++i) s = m.spmv(a, buf);
    std::vector<double> times;
    for (int i = 0; i < repetitions && s == CUSPARSE_STATUS_SUCCESS; ++i) {
      check(cudaEventRecord(start, m.stream), "cudaEventRecord");
      s = m.spmv(a, buf);
      check(cudaEventRecord(stop, m.stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      times.push_back(1e-3 * ms);
    }
    if (s != CUSPARSE_STATUS_SUCCESS || times.empty()) {
      t.failure = s != CUSPARSE_STATUS_SUCCESS ? cusparseGetErrorName(s) : "no repetitions";
      if (buf) cudaFree(buf);
    } else {
      std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
      t.seconds = times[times.size() / 2];
      if (m.chosen_name.empty() || t.seconds < best) {
        best = t.seconds;
        m.keep(a, buf);
      } else if (buf) {
        cudaFree(buf);
      }
    }
    trials.push_back(std::move(t));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!m.chosen_name.empty()) {
    // The later trials preprocessed the same descriptor with other algorithms: prepare the
    // chosen one again, so that its preprocessed state is the last.
    void* buf = nullptr;
    check(m.prepare(m.chosen, &buf), "prepare the chosen algorithm again");
    m.keep(m.chosen, buf);
  }
  if (m.chosen_name.empty()) {
    std::string why;
    for (auto const& t : trials) why += (why.empty() ? "" : ", ") + t.algorithm + " " + t.failure;
    throw std::runtime_error("cusparse_best: no algorithm ran (" + why + ")");
  }
  return trials;
}

void CusparseSpmv::use(std::string const& algorithm, void const* x, void* y) {
  auto& m = *impl_;
  Algorithm const& a = algorithm_named(algorithm);
  m.set_vectors(x, y);
  void* buf = nullptr;
  check(m.prepare(a, &buf), a.name);
  m.keep(a, buf);
}

void CusparseSpmv::apply(void const* x, void* y) {
  auto& m = *impl_;
  if (m.chosen_name.empty()) throw std::logic_error("cusparse_best: apply before choose or use");
  m.set_vectors(x, y);
  check(m.spmv(m.chosen, m.buffer), "cusparseSpMV");
}

std::string const& CusparseSpmv::algorithm() const { return impl_->chosen_name; }

} // namespace spmvkit::perf
