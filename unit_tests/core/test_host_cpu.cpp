// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// core/host_cpu.hpp: the vendor read from /proc/cpuinfo's text, and this host's.
#include <gtest/gtest.h>

#include <spmvkit/core/host_cpu.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(HostCpu, VendorFromCpuinfo) {
  using spmvkit::HostCpuVendor;
  using spmvkit::detail::host_cpu_vendor_from_cpuinfo;
  auto vendor = [](std::string const& text) {
    std::istringstream in(text);
    return host_cpu_vendor_from_cpuinfo(in);
  };
  EXPECT_EQ(vendor("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"),
            HostCpuVendor::amd);
  EXPECT_EQ(vendor("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R)\n"),
            HostCpuVendor::intel);
  // The first processor's line decides; other vendors, no line and no text read as any.
  EXPECT_EQ(vendor("vendor_id\t: GenuineIntel\nvendor_id\t: AuthenticAMD\n"), HostCpuVendor::intel);
  EXPECT_EQ(vendor("vendor_id\t: HygonGenuine\n"), HostCpuVendor::any);
  EXPECT_EQ(vendor("processor\t: 0\nCPU implementer\t: 0x41\n"), HostCpuVendor::any);
  EXPECT_EQ(vendor(""), HostCpuVendor::any);
  // A model name that mentions a vendor is not its vendor_id line.
  EXPECT_EQ(vendor("model name\t: AMD EPYC\n"), HostCpuVendor::any);
  EXPECT_STREQ(spmvkit::detail::host_cpu_vendor_name(HostCpuVendor::amd), "amd");
  EXPECT_STREQ(spmvkit::detail::host_cpu_vendor_name(HostCpuVendor::intel), "intel");
  EXPECT_STREQ(spmvkit::detail::host_cpu_vendor_name(HostCpuVendor::any), "any");
}

// This host's vendor is the first vendor_id line of its /proc/cpuinfo, read once.
TEST(HostCpu, ThisHostsVendorIsItsCpuinfos) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  const auto expected = spmvkit::detail::host_cpu_vendor_from_cpuinfo(cpuinfo);
  EXPECT_EQ(spmvkit::detail::host_cpu_vendor(), expected);
  EXPECT_EQ(spmvkit::detail::host_cpu_vendor(), expected);
}

} // namespace
