// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DETAIL_MEMORY_HPP
#define SPMVKIT_DETAIL_MEMORY_HPP

/// \file
/// Memory handling shared by every format: AllocationError, thrown by every
/// SpMVKit allocation that fails.

#include <spmvkit/core/checked_math.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace spmvkit {

/// Thrown when a device or host allocation fails; names the View and its size.
///
/// Every View SpMVKit allocates (matrix arrays, conversion buffers, CG work
/// vectors) goes through one checked allocation: a Kokkos allocation failure
/// becomes this exception, with a message such as
/// "SpMVKit: cannot allocate 'SpMVKit::CrsMatrix::values(A)' (1000000 entries,
/// 7.62939 MiB) in Cuda: ..." (label, entries, MiB, memory space, Kokkos' reason).
/// `what()` returns that message.
class AllocationError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Whether kernels launched on ExecutionSpace run on host threads (team size 1)
/// rather than on a GPU (teams of C threads). Accessibility of HostSpace is the
/// portable test: Serial, OpenMP and Threads can read it, Cuda/HIP/SYCL cannot.
template <class ExecutionSpace>
inline constexpr bool is_host_space_v =
    Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

/// Narrows a 64-bit count into an index type, or throws naming what overflowed,
/// so that a matrix too large for its Ordinal/Offset types is rejected at
/// construction instead of wrapping around inside a kernel.
template <class Index>
Index checked_index(std::int64_t value, char const* what, char const* where) {
  static_assert(std::is_integral_v<Index>, "index types must be integral");
  if (value < 0) {
    std::ostringstream os;
    os << where << ": " << what << " is negative (" << value << ")";
    throw std::invalid_argument(os.str());
  }
  if (static_cast<std::uint64_t>(value) >
      static_cast<std::uint64_t>(std::numeric_limits<Index>::max())) {
    std::ostringstream os;
    os << where << ": " << what << " = " << value << " does not fit the " << sizeof(Index) * 8
       << "-bit index type (max " << std::numeric_limits<Index>::max()
       << "); use a wider Ordinal/Offset template argument";
    throw std::length_error(os.str());
  }
  return static_cast<Index>(value);
}

/// Whether two Views' storage overlaps.
template <class A, class B>
bool storage_overlaps(A const& a, B const& b) {
  if (a.span() == 0 || b.span() == 0) return false;
  auto const* ab = reinterpret_cast<char const*>(a.data());
  auto const* bb = reinterpret_cast<char const*>(b.data());
  auto const* ae = ab + a.span() * sizeof(typename A::value_type);
  auto const* be = bb + b.span() * sizeof(typename B::value_type);
  return ab < be && bb < ae;
}

/// Host allocations of at least this many bytes are advised to take
/// transparent huge pages: glibc's default malloc maps each of them on its
/// own, so the advice stays with that allocation.
inline constexpr std::size_t huge_page_advice_min_bytes = std::size_t(32) << 20;

/// Whether huge-page advice is on: yes unless the environment variable
/// SPMVKIT_HUGE_PAGES is 0 (read once).
inline bool huge_page_advice_enabled() {
  static const bool enabled = [] {
    char const* v = std::getenv("SPMVKIT_HUGE_PAGES");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

/// Whether host kernels may prefetch the entries they stream: yes unless the environment
/// variable SPMVKIT_HOST_PREFETCH is 0 (read once; for hosts whose hardware prefetchers do better
/// alone, and for A/B runs of one binary).
inline bool host_prefetch_enabled() {
  static const bool enabled = [] {
    char const* v = std::getenv("SPMVKIT_HOST_PREFETCH");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

/// Advises Linux to back a large, still untouched host View with transparent
/// huge pages (MADV_HUGEPAGE on its 2 MiB-aligned interior), so that its first
/// touch faults once per 2 MiB, not per 4 KiB
/// (docs/notes/2026-12-06-host-huge-pages-assembly.md). Advice only.
template <class View>
void advise_huge_pages(View const& v) {
  (void)v;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if constexpr (std::is_same_v<typename View::memory_space, Kokkos::HostSpace>) {
    const std::size_t bytes = v.span() * sizeof(typename View::value_type);
    if (bytes < huge_page_advice_min_bytes || !huge_page_advice_enabled()) return;
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
    const std::uintptr_t last = (begin + bytes) & ~(huge - 1);
    if (last > first) {
      (void)madvise(reinterpret_cast<void*>(first), static_cast<std::size_t>(last - first),
                    MADV_HUGEPAGE);
    }
  }
#endif
}

/// Allocates a rank-1 View without initialisation and turns an allocation
/// failure into an AllocationError that names the View and the bytes asked for.
/// Large host Views are advised to take huge pages (advise_huge_pages).
template <class View, class ExecutionSpace>
View allocate_view(ExecutionSpace const& exec, std::string const& label, std::int64_t extent) {
  // The byte count must not wrap: a wrapped size allocates a few bytes and
  // the first fill writes past them.
  checked_bytes(extent, sizeof(typename View::value_type), label.c_str(),
                "SpMVKit: cannot allocate");
  try {
    View v(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label),
           static_cast<std::size_t>(extent));
    advise_huge_pages(v);
    return v;
  } catch (std::exception const& e) {
    std::ostringstream os;
    os << "SpMVKit: cannot allocate '" << label << "' (" << extent << " entries, "
       << static_cast<double>(extent) * sizeof(typename View::value_type) / (1024.0 * 1024.0)
       << " MiB) in " << View::memory_space::name() << ": " << e.what();
    throw AllocationError(os.str());
  }
}

/// Host memory that the device copies to or from on behalf of the host (MPI
/// buffers, solver sums read back): pinned where Kokkos has a pinned host space
/// (Kokkos 4: SharedHostPinnedSpace; Kokkos 3 with CUDA: CudaHostPinnedSpace),
/// so that such copies are asynchronous on an instance's stream.
#if defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
using StagingHostSpace = Kokkos::SharedHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_CUDA)
using StagingHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using StagingHostSpace = Kokkos::HostSpace;
#endif

} // namespace detail
} // namespace spmvkit

#endif
