// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SPGEMM_DETAIL_SPGEMM_MEMORY_BUDGET_HPP
#define SPMVKIT_SPGEMM_DETAIL_SPGEMM_MEMORY_BUDGET_HPP

/// \file
/// SpGEMM's memory: the limit a product is checked against, the bytes of C,
/// the errors that name what did not fit, and allocations that skip empty arrays.

#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/detail/launch_parameters.hpp>
#include <spmvkit/core/memory.hpp>
#include <spmvkit/core/memory_limit.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit::detail {

/// allocate_view, but an empty View without an allocation for no entries:
/// on CUDA every allocation is a cudaMalloc and every release a cudaFree,
/// which waits for the device, even for none (the global pools of a product
/// without long rows).
template <class View, class ExecutionSpace>
View spgemm_allocate(ExecutionSpace const& exec, std::string const& label, std::int64_t extent) {
  return extent > 0 ? allocate_view<View>(exec, label, extent) : View();
}

/// The memory limit of a product and where it came from.
using SpgemmLimit = MemoryLimit;

/// The option, SPMVKIT_MEMORY_LIMIT (core/memory_limit.hpp), or on host
/// backends the memory available. Device memory is not queried: the
/// estimates bound the peak from above and would refuse products that fit.
template <class ExecutionSpace>
SpgemmLimit spgemm_memory_limit(std::uint64_t option) {
  if constexpr (is_host_space_v<ExecutionSpace>) {
    return memory_limit<Kokkos::HostSpace>(option, "SpgemmOptions::memory_limit",
                                           "spmvkit::spgemm");
  } else {
    return configured_memory_limit(option, "SpgemmOptions::memory_limit", "spmvkit::spgemm");
  }
}

/// Whether an optional structure of the numeric phase (positions, product lists, entry starts)
/// may be kept: the handle's `peak` with it within the limit where one is known. Where none is
/// (devices without a configured limit), its `extra` bytes within half the memory the device has
/// free now, the other half left to what follows (the caller's next products, a multigrid's
/// coarser levels): hashing, the fallback, needs none of it, and a failed allocation would end
/// the product (R-MAT A A, docs/notes/2026-12-02-spgemm-large-products.md). Where the free
/// memory is not known either (UVM, backends without a query) the structure is kept.
template <class MemorySpace>
bool spgemm_optional_fits(SpgemmLimit const& limit, std::uint64_t peak, std::uint64_t extra) {
  if (limit.known()) return peak <= limit.bytes;
  const MemoryLimit room = memory_space_available<MemorySpace>();
  return !room.known() || extra <= room.bytes / 2;
}

/// Bytes of a CRS matrix with m rows and nnz entries, checked against overflow.
template <class Scalar, class Ordinal, class Offset>
byte_count spgemm_crs_bytes(std::int64_t m, std::int64_t nnz) {
  constexpr char const* where = "spmvkit::spgemm";
  return checked_add(checked_bytes(m + 1, sizeof(Offset), "C row_starts", where),
                     checked_bytes(nnz, sizeof(Ordinal) + sizeof(Scalar), "C entries", where), "C",
                     where);
}

inline std::string spgemm_shapes(std::int64_t m, std::int64_t k, std::int64_t k2, std::int64_t n,
                                 std::int64_t a_nnz, std::int64_t b_nnz) {
  std::ostringstream os;
  os << "A is " << m << " x " << k << " (nnz " << a_nnz << "), B is " << k2 << " x " << n
     << " (nnz " << b_nnz << ")";
  return os.str();
}

inline void spgemm_check_limit(SpgemmLimit const& limit, byte_count need, std::string const& what,
                               std::string const& shapes) {
  if (limit.bytes == 0 || need <= limit.bytes) return;
  std::ostringstream os;
  os << "spmvkit::spgemm: " << what << " needs an estimated " << need << " bytes ("
     << static_cast<double>(need) / (1024.0 * 1024.0) << " MiB), more than the limit of "
     << limit.bytes << " bytes (" << limit.source << "); " << shapes
     << ". Set SpgemmOptions::memory_limit or SPMVKIT_MEMORY_LIMIT (bytes) to change the limit";
  throw AllocationError(os.str());
}

template <class Offset>
[[noreturn]] void spgemm_offset_overflow(std::int64_t nnz, bool at_least,
                                         std::string const& shapes) {
  std::ostringstream os;
  os << "spmvkit::spgemm: C = A B has " << (at_least ? "at least " : "") << nnz
     << " nonzeros, more than the " << sizeof(Offset) * 8 << "-bit Offset type holds (max "
     << std::numeric_limits<Offset>::max() << "); " << shapes
     << ". Use CrsMatrix with Offset = std::int64_t";
  throw std::length_error(os.str());
}

} // namespace spmvkit::detail

#endif
