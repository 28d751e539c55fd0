// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_MEMORY_LIMIT_HPP
#define SPMVKIT_CORE_MEMORY_LIMIT_HPP

/// \file
/// The one reader of SpMVKit's memory limit: an option, else the environment
/// variable SPMVKIT_MEMORY_LIMIT, else what the memory space has free. The
/// Matrix Market reader, SpGEMM and the examples all ask it, so a bad value
/// is rejected the same way everywhere.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(__unix__)
#include <unistd.h>
#endif

namespace spmvkit {

/// How many bytes an operation may allocate, and where that figure came from.
struct MemoryLimit {
  /// The limit in bytes; 0 when none is known (the allocator then decides).
  std::uint64_t bytes = 0;
  /// Where the limit came from: the option's name, "SPMVKIT_MEMORY_LIMIT",
  /// "MemAvailable", "free physical memory", "cgroup memory.max", "free device
  /// memory", or "none".
  std::string source = "none";
  /// Whether a limit is known.
  bool known() const { return bytes > 0; }
  /// Whether `need` bytes fit: always when no limit is known.
  bool admits(std::uint64_t need) const { return bytes == 0 || need <= bytes; }
};

namespace detail {

/// Parses a byte count: decimal digits, spaces around them allowed; false for
/// anything else (a sign, a unit, garbage) and for values beyond 64 bits.
inline bool parse_byte_count(char const* text, std::uint64_t& out) {
  while (*text == ' ' || *text == '\t') ++text;
  if (*text < '0' || *text > '9') return false;
  std::uint64_t value = 0;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  for (; *text >= '0' && *text <= '9'; ++text) {
    auto const digit = static_cast<std::uint64_t>(*text - '0');
    if (value > (max - digit) / 10) return false;
    value = value * 10 + digit;
  }
  while (*text == ' ' || *text == '\t' || *text == '\n') ++text;
  out = value;
  return *text == '\0';
}

inline std::string first_line_of(std::string const& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Host memory an allocation may take now: MemAvailable (else free pages),
/// lowered to the room left under a cgroup v2 limit, which in a container can
/// be far below the machine's memory.
inline MemoryLimit host_memory_available() {
  MemoryLimit limit;
  if (std::FILE* meminfo = std::fopen("/proc/meminfo", "r"); meminfo != nullptr) {
    char line[256];
    while (std::fgets(line, sizeof line, meminfo) != nullptr) {
      unsigned long long kib = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        limit = {static_cast<std::uint64_t>(kib) * 1024, "MemAvailable"};
        break;
      }
    }
    std::fclose(meminfo);
  }
#if defined(__unix__) && defined(_SC_AVPHYS_PAGES)
  if (limit.bytes == 0) {
    long const pages = ::sysconf(_SC_AVPHYS_PAGES);
    long const page_size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) {
      limit = {static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size),
               "free physical memory"};
    }
  }
#endif
  std::string const cgroup = first_line_of("/proc/self/cgroup");
  if (cgroup.rfind("0::", 0) == 0) {
    std::string const dir = "/sys/fs/cgroup" + cgroup.substr(3);
    std::uint64_t max = 0, current = 0;
    if (parse_byte_count(first_line_of(dir + "/memory.max").c_str(), max) &&
        parse_byte_count(first_line_of(dir + "/memory.current").c_str(), current)) {
      std::uint64_t const room = max > current ? max - current : 0;
      if (limit.bytes == 0 || room < limit.bytes) limit = {room, "cgroup memory.max"};
    }
  }
  return limit;
}

/// Free memory of MemorySpace where the backend tells it (host memory, CUDA
/// device memory); none known otherwise.
template <class MemorySpace>
MemoryLimit memory_space_available() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible &&
                !std::is_same_v<MemorySpace, Kokkos::HostSpace>) {
    return {}; // host-accessible device memory (UVM, pinned): neither figure is the limit
  } else if constexpr (std::is_same_v<MemorySpace, Kokkos::HostSpace>) {
    return host_memory_available();
  }
#if defined(KOKKOS_ENABLE_CUDA)
  else if constexpr (std::is_same_v<MemorySpace, Kokkos::CudaSpace>) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess && free > 0) {
      return {static_cast<std::uint64_t>(free), "free device memory"};
    }
    return {};
  }
#endif
  else {
    return {};
  }
}

} // namespace detail

/// The memory limit set by the caller: `option` when it is positive
/// (reported as `option_name`), else the environment variable
/// SPMVKIT_MEMORY_LIMIT, a positive decimal byte count, else none.
///
/// Throws std::invalid_argument, prefixed by `where` and naming the value,
/// when SPMVKIT_MEMORY_LIMIT is set but is not a positive byte count (garbage,
/// 0, a sign, a unit, a value beyond 64 bits).
inline MemoryLimit configured_memory_limit(std::uint64_t option = 0,
                                           char const* option_name = "option",
                                           std::string const& where = "") {
  if (option > 0) return {option, option_name};
  if (char const* env = std::getenv("SPMVKIT_MEMORY_LIMIT"); env != nullptr && *env != '\0') {
    std::uint64_t bytes = 0;
    if (!detail::parse_byte_count(env, bytes) || bytes == 0) {
      std::string const value = std::string(env).substr(0, 40);
      throw std::invalid_argument((where.empty() ? "" : where + ": ") + "SPMVKIT_MEMORY_LIMIT='" +
                                  value + "' is not a positive number of bytes");
    }
    return {bytes, "SPMVKIT_MEMORY_LIMIT"};
  }
  return {};
}

/// The memory limit an operation allocating in MemorySpace works under:
/// configured_memory_limit() when set, else the memory the space has free
/// (host: MemAvailable, lowered to the room under a cgroup v2 memory.max;
/// CUDA device memory: the free bytes the driver reports), else none.
/// Throws like configured_memory_limit().
template <class MemorySpace = Kokkos::HostSpace>
MemoryLimit memory_limit(std::uint64_t option = 0, char const* option_name = "option",
                         std::string const& where = "") {
  MemoryLimit const configured = configured_memory_limit(option, option_name, where);
  return configured.known() ? configured : detail::memory_space_available<MemorySpace>();
}

} // namespace spmvkit

#endif
