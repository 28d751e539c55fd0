// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FUZZ_COMMON_HPP
#define SPMVKIT_FUZZ_COMMON_HPP

// Shared by the libFuzzer targets: Kokkos set up once per process on one host
// thread (the targets run on Kokkos::Serial), and a check that aborts with a
// message, so that libFuzzer records the input as a crash.

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>

namespace spmvkit_fuzz {

inline void initialize_kokkos() {
  // Quiet Kokkos' OpenMP binding advice; one thread: the targets use Serial.
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::InitArguments arguments;
  arguments.num_threads = 1;
  arguments.disable_warnings = true;
  Kokkos::initialize(arguments);
  std::atexit([] { Kokkos::finalize(); });
}

[[noreturn]] inline void fail(char const* file, int line, char const* what) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

} // namespace spmvkit_fuzz

/// Like assert, but also in optimised builds and with libFuzzer's crash handling.
#define SPMVKIT_FUZZ_CHECK(condition)                                                              \
  do {                                                                                             \
    if (!(condition)) ::spmvkit_fuzz::fail(__FILE__, __LINE__, #condition);                        \
  } while (false)

#endif
