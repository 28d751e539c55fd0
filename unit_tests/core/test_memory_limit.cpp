// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one reader of the memory limit (core/memory_limit.hpp): an option wins,
// then SPMVKIT_MEMORY_LIMIT, which must be a positive byte count, then the
// memory the space has free.
#include "env_guard.hpp"

#include <spmvkit/core/memory_limit.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

using spmvkit::configured_memory_limit;
using spmvkit::memory_limit;
using spmvkit::MemoryLimit;
using spmvkit::test::EnvGuard;

TEST(MemoryLimitTest, OptionThenEnvironmentThenAvailableMemory) {
  {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", "123456789");
    const MemoryLimit option = memory_limit<Kokkos::HostSpace>(1000, "Options::memory_limit");
    EXPECT_EQ(option.bytes, 1000u);
    EXPECT_EQ(option.source, "Options::memory_limit");
    const MemoryLimit env_limit = memory_limit<Kokkos::HostSpace>();
    EXPECT_EQ(env_limit.bytes, 123456789u);
    EXPECT_EQ(env_limit.source, "SPMVKIT_MEMORY_LIMIT");
    EXPECT_TRUE(env_limit.admits(123456789));
    EXPECT_FALSE(env_limit.admits(123456790));
  }
  {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", " 4096 \n"); // spaces around the digits are fine
    EXPECT_EQ(configured_memory_limit().bytes, 4096u);
  }
  EnvGuard unset("SPMVKIT_MEMORY_LIMIT", nullptr);
  EXPECT_FALSE(configured_memory_limit().known());
  EXPECT_TRUE(configured_memory_limit().admits(~std::uint64_t(0)));
  // Linux always reports MemAvailable (or a cgroup's room) for host memory.
  const MemoryLimit host = memory_limit<Kokkos::HostSpace>();
  EXPECT_TRUE(host.known()) << host.source;
  EXPECT_TRUE(host.source == "MemAvailable" || host.source == "cgroup memory.max" ||
              host.source == "free physical memory")
      << host.source;
}

// SpGEMM used to read "garbage" as no limit and "-5" as 18446744073709551611.
TEST(MemoryLimitTest, RejectsValuesThatAreNotPositiveByteCounts) {
  for (char const* bad : {"garbage", "-5", "0", "12x", "1e9", "99999999999999999999999", "+7"}) {
    EnvGuard env("SPMVKIT_MEMORY_LIMIT", bad);
    try {
      memory_limit<Kokkos::HostSpace>(0, "option", "spmvkit::something");
      ADD_FAILURE() << "SPMVKIT_MEMORY_LIMIT=" << bad << " accepted";
    } catch (std::invalid_argument const& e) {
      EXPECT_EQ(std::string(e.what()), std::string("spmvkit::something: SPMVKIT_MEMORY_LIMIT='") +
                                           bad + "' is not a positive number of bytes");
    }
    // An explicit option does not read the variable at all.
    EXPECT_EQ(configured_memory_limit(64, "option").bytes, 64u);
  }
}

} // namespace
