// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Machine description for the benchmark context, and the few process-wide registries
// (cleanups, failures, skip notes) that the benchmark families share.

#include "perf_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace spmvkit::perf {

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown CPU";
}

/// Size in bytes of the highest-level CPU cache: /sys first (sysconf's L3 figure is wrong
/// on some virtual machines, e.g. 10x too large), then sysconf, then 32 MiB.
std::int64_t cpu_llc_bytes() {
  std::int64_t best = 0;
  int best_level = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    std::int64_t bytes = std::atoll(size.c_str());
    if (!size.empty() && (size.back() == 'K' || size.back() == 'k')) bytes *= 1024;
    if (!size.empty() && size.back() == 'M') bytes *= 1024 * 1024;
    if (level > best_level || (level == best_level && bytes > best)) {
      best_level = level;
      best = bytes;
    }
  }
  if (best > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return l3;
#endif
  return std::int64_t(32) << 20;
}

/// The one place that asks the GPU runtime about the device.
DeviceInfo query_device_info() {
  DeviceInfo info;
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (!device_is_host) {
    cudaDeviceProp prop{};
    const int device = Kokkos::Cuda().cuda_device();
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      info.name = prop.name;
      info.llc_bytes = prop.l2CacheSize > 0 ? prop.l2CacheSize : std::int64_t(50) << 20;
      return info;
    }
    info.name = "unknown CUDA device";
    info.llc_bytes = std::int64_t(50) << 20;
    return info;
  }
#endif
  if constexpr (device_is_host) {
    info.name = cpu_model_name();
    info.llc_bytes = cpu_llc_bytes();
  } else {
    info.name = "unknown device";
    info.llc_bytes = std::int64_t(50) << 20; // H100 L2
  }
  return info;
}

std::vector<std::function<void()>>& cleanups() {
  static std::vector<std::function<void()>> c;
  return c;
}

std::vector<std::string>& failures() {
  static std::vector<std::string> f;
  return f;
}

} // namespace

DeviceInfo const& device_info() {
  static const DeviceInfo info = query_device_info();
  return info;
}

std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d.%02d", v / 10000, (v / 100) % 100, v % 100);
  return buf;
}

std::string enabled_backends() {
  std::string s;
  auto add = [&s](char const* name) {
    if (!s.empty()) s += ",";
    s += name;
  };
#ifdef KOKKOS_ENABLE_CUDA
  add("Cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  add("HIP");
#endif
#ifdef KOKKOS_ENABLE_SYCL
  add("SYCL");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  add("OpenMP");
#endif
#ifdef KOKKOS_ENABLE_THREADS
  add("Threads");
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  add("Serial");
#endif
  return s;
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void register_cleanup(std::function<void()> f) { cleanups().push_back(std::move(f)); }

void run_cleanups() {
  for (auto& f : cleanups()) f();
  cleanups().clear();
}

void record_failure(std::string const& what) {
  std::fprintf(stderr, "spmvkit_perf: FAILED %s\n", what.c_str());
  failures().push_back(what);
}
int failure_count() { return static_cast<int>(failures().size()); }

void note_skip(std::string const& name, std::string const& why) {
  static std::set<std::string> noted;
  if (noted.insert(name).second) {
    std::fprintf(stderr, "spmvkit_perf: skipped %s: %s\n", name.c_str(), why.c_str());
  }
}

} // namespace spmvkit::perf
