#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The whole test suite: sets up the dependencies (scripts/setup_deps.sh), configures and builds
# every target of SpMVKit (scripts/build.sh --tests; build dir ${SPMVKIT_BUILD_DIR:-build}):
# library, unit tests, header check, examples, benchmarks (spmvkit_perf at -O1: its tests check
# results; scripts/build.sh rebuilds it for measurements); then runs ctest. The API reference is
# built separately by scripts/build_docs.sh.
# ctest runs as many tests at once as there are cores (SPMVKIT_CTEST_JOBS overrides): each test's
# PROCESSORS property says how many cores it takes, so multi-threaded tests and MPI ranks do not
# share cores, while single-threaded ones (the install test's builds) run beside each other.
# Extra arguments go to ctest (e.g. -R crs, -L install, -j1).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$(bash "$repo/scripts/build.sh" --tests | tail -n 1)
cd "$build_dir"
jobs=${SPMVKIT_CTEST_JOBS:-$(nproc)}
case "$jobs" in
  '' | *[!0-9]* | 0) echo "run_tests.sh: SPMVKIT_CTEST_JOBS must be a positive integer, got '$jobs'" >&2; exit 2 ;;
esac
ctest --output-on-failure -j "$jobs" "$@"
