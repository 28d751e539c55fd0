#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The whole test suite: sets up the dependencies (scripts/setup_deps.sh), configures and builds
# every target of SpMVKit (scripts/build.sh --tests; build dir ${SPMVKIT_BUILD_DIR:-build}):
# library, unit tests, header check, examples, benchmarks (spmvkit_perf at -O1: its tests check
# results; scripts/build.sh rebuilds it for measurements); then runs ctest. The API reference is
# built separately by scripts/build_docs.sh.
# Extra arguments go to ctest (e.g. -R crs, -L install, -j2).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$(bash "$repo/scripts/build.sh" --tests | tail -n 1)
cd "$build_dir"
ctest --output-on-failure "$@"
