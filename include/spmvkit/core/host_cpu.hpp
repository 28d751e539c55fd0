// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_HOST_CPU_HPP
#define SPMVKIT_CORE_HOST_CPU_HPP

/// \file
/// The host's CPU vendor: it picks among host cost tables fitted at the same thread count
/// (select/format_model.hpp) and decides where host kernels prefetch
/// (core/detail/launch_parameters.hpp's host_row_prefetch).
#include <fstream>
#include <istream>
#include <string>

namespace spmvkit {

/// A CPU vendor: of a host cost table's fitting run (HostCostTable::vendor), or of this host.
enum class HostCpuVendor {
  any,   ///< no vendor in particular, or not known
  intel, ///< GenuineIntel
  amd,   ///< AuthenticAMD
};

} // namespace spmvkit

namespace spmvkit::detail {

/// The vendor named by the first `vendor_id` line of a /proc/cpuinfo text; HostCpuVendor::any
/// where there is none or it names neither Intel nor AMD.
inline HostCpuVendor host_cpu_vendor_from_cpuinfo(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("vendor_id", 0) != 0) continue;
    if (line.find("GenuineIntel") != std::string::npos) return HostCpuVendor::intel;
    if (line.find("AuthenticAMD") != std::string::npos) return HostCpuVendor::amd;
    return HostCpuVendor::any;
  }
  return HostCpuVendor::any;
}

/// This host's CPU vendor, read once from /proc/cpuinfo; HostCpuVendor::any where that file is
/// missing (not Linux) or names another vendor.
inline HostCpuVendor host_cpu_vendor() {
  static const HostCpuVendor vendor = [] {
    std::ifstream cpuinfo("/proc/cpuinfo");
    return host_cpu_vendor_from_cpuinfo(cpuinfo);
  }();
  return vendor;
}

/// The name fit_format_model.py reads from a run's context and writes into table names.
inline char const* host_cpu_vendor_name(HostCpuVendor vendor) {
  switch (vendor) {
  case HostCpuVendor::intel: return "intel";
  case HostCpuVendor::amd: return "amd";
  case HostCpuVendor::any: break;
  }
  return "any";
}

} // namespace spmvkit::detail

#endif
