// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_EXAMPLES_EXAMPLE_UTILS_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_UTILS_HPP

// Small helpers shared by the examples (not part of the library): timing with
// median and spread, the last-level cache size, the OpenMP binding, result
// comparison and table printing.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::examples {

/// Math functions for kernels (kmath::sin, cos, exp, fabs): Kokkos 3.4 keeps
/// them in Kokkos::Experimental, 3.7 moved them to Kokkos:: and 4.x dropped
/// the old names.
#if KOKKOS_VERSION >= 30700
namespace kmath = ::Kokkos;
#else
namespace kmath = ::Kokkos::Experimental;
#endif

/// Median and range of repeated measurements.
struct Spread {
  double median = 0, min = 0, max = 0;
  int count = 0;
};

inline Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.count = static_cast<int>(v.size());
  s.min = v.front();
  s.max = v.back();
  const std::size_t m = v.size() / 2;
  s.median = v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  return s;
}

/// Seconds of `repetitions` calls of op() after one warm-up call, each timed
/// between fences so that asynchronous backends are measured too.
template <class ExecSpace, class Op>
Spread time_repeated(ExecSpace const& exec, Op&& op, int repetitions) {
  op();
  exec.fence();
  std::vector<double> t;
  Kokkos::Timer timer;
  for (int i = 0; i < std::max(1, repetitions); ++i) {
    timer.reset();
    op();
    exec.fence();
    t.push_back(timer.seconds());
  }
  return spread_of(std::move(t));
}

/// The last-level cache that the execution space's data may stay in.
struct CacheInfo {
  double bytes = 0;        ///< 0: unknown
  std::string description; ///< e.g. "L3, 1 x 260 MB (/sys)"
};

namespace detail {

inline double parse_cache_size(std::string const& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return 0;
  switch (*end) {
  case 'K':
  case 'k': return v * 1024;
  case 'M':
  case 'm': return v * 1024 * 1024;
  case 'G':
  case 'g': return v * 1024 * 1024 * 1024;
  default: return v;
  }
}

/// The host's highest cache level from /sys, summed over its instances (one
/// per socket, say): a working set below that total can stay in cache.
inline CacheInfo host_last_level_cache() {
  CacheInfo info;
  int best_level = 0;
  double size_each = 0;
  std::set<std::string> instances;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/";
    bool any = false;
    for (int index = 0; index < 16; ++index) {
      const std::string dir = base + "index" + std::to_string(index) + "/";
      std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type"),
          shared_file(dir + "shared_cpu_list");
      int level = 0;
      std::string size, type, shared;
      if (!(level_file >> level) || !(size_file >> size)) continue;
      any = true;
      type_file >> type;
      shared_file >> shared;
      if (type == "Instruction") continue;
      if (level > best_level) {
        best_level = level;
        size_each = parse_cache_size(size);
        instances.clear();
      }
      if (level == best_level) instances.insert(shared.empty() ? std::to_string(cpu) : shared);
    }
    if (!any && cpu > 0) break;
  }
  if (best_level == 0 || size_each <= 0) return info;
  info.bytes = size_each * static_cast<double>(instances.size());
  std::ostringstream os;
  os << "L" << best_level << ", " << instances.size() << " x " << size_each / 1e6
     << " MB (/sys/devices/system/cpu)";
  info.description = os.str();
  return info;
}

} // namespace detail

/// The last-level cache seen by ExecSpace: /sys on host backends, the L2 of
/// the device on CUDA; unknown (bytes = 0) elsewhere.
template <class ExecSpace>
CacheInfo last_level_cache() {
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    return detail::host_last_level_cache();
  }
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    CacheInfo info;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, Kokkos::Cuda().cuda_device()) == cudaSuccess &&
        prop.l2CacheSize > 0) {
      info.bytes = prop.l2CacheSize;
      info.description = "L2 " + std::to_string(prop.l2CacheSize / 1000000) + " MB of " +
                         prop.name + " (cudaGetDeviceProperties)";
    }
    return info;
  }
#endif
  return CacheInfo{};
}

/// The OpenMP thread binding in force, as the OpenMP runtime reports it, and
/// the environment that chose it (one line; empty on other backends).
template <class ExecSpace>
std::string openmp_binding() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
    char const* names[] = {"false", "true", "master (primary)", "close", "spread"};
    const int bind = static_cast<int>(omp_get_proc_bind());
    char const* env_bind = std::getenv("OMP_PROC_BIND");
    char const* env_places = std::getenv("OMP_PLACES");
    std::string s = "OpenMP binding: ";
    s += bind >= 0 && bind <= 4 ? names[bind] : "unknown";
    s += " (OMP_PROC_BIND=" + std::string(env_bind ? env_bind : "<unset>") +
         ", OMP_PLACES=" + std::string(env_places ? env_places : "<unset>") + ")";
    if (bind == 0) s += "; threads may migrate, so timings vary more";
    return s;
  }
#endif
  return "";
}

/// Largest |a(i) - b(i)| over max |b(i)| (1 if b is all zero), on the host.
template <class A, class B>
double relative_difference(A const& a, B const& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < ha.extent(0); ++i) {
    const double d = std::abs(static_cast<double>(ha(i)) - static_cast<double>(hb(i)));
    diff = d > diff || d != d ? d : diff; // NaN wins
    scale = std::max(scale, std::abs(static_cast<double>(hb(i))));
  }
  return diff / (scale > 0 ? scale : 1.0);
}

/// The items separated by `separator`. (Built by appending: GCC 12 in C++20
/// mode warns -Wrestrict, wrongly, about "literal" + std::string.)
inline std::string join(std::vector<std::string> const& items, char const* separator) {
  std::string out;
  for (auto const& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

/// Characters, not bytes, of UTF-8 text such as "‖b − A x‖" or "µs".
inline std::size_t display_width(std::string const& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

/// Left-aligned first column, right-aligned others, widths from the content.
class Table {
public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& os) const {
    std::vector<std::size_t> w;
    for (auto const& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (w.size() <= c) w.push_back(0);
        w[c] = std::max(w[c], display_width(r[c]));
      }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      for (std::size_t c = 0; c < rows_[i].size(); ++c) {
        const auto pad = std::string(w[c] - display_width(rows_[i][c]), ' ');
        os << (c == 0 ? rows_[i][c] + pad : "  " + pad + rows_[i][c]);
      }
      os << "\n";
      if (i == 0) {
        std::size_t total = 0;
        for (auto x : w) total += x + 2;
        os << std::string(total - 2, '-') << "\n";
      }
    }
  }

private:
  std::vector<std::vector<std::string>> rows_;
};

inline std::string fixed(double v, int digits) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(digits);
  os << v;
  return os.str();
}
inline std::string sci(double v, int digits = 3) {
  std::ostringstream os;
  os.setf(std::ios::scientific);
  os.precision(digits);
  os << v;
  return os.str();
}
/// Bytes in MB (10^6), like the GB/s (10^9 B/s) columns.
inline std::string megabytes(double bytes) {
  return fixed(bytes / 1e6, bytes < 1e7 ? 2 : 1) + " MB";
}

} // namespace spmvkit::examples

#endif
