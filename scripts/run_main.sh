#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The main job: sets up, configures and builds SpMVKit (scripts/build.sh --main: only the
# packages and the configuration fem_cg needs, in build-main/, apart from the test build in
# build/), building only the fem_cg example, then runs it with the arguments given (try --help).
#
# OpenMP thread binding: OMP_PROC_BIND=spread and OMP_PLACES=threads unless already set in the
# environment (Kokkos warns when OMP_PROC_BIND is not set); OMP_WAIT_POLICY=active unless set
# (threads spin between kernels instead of sleeping: docs/notes/2026-12-01-omp-wait-policy.md).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$(bash "$repo/scripts/build.sh" --main --target fem_cg | tail -n 1)
main="$build_dir/examples/fem_cg"
[ -x "$main" ] || {
  echo "run_main.sh: $main was not built" >&2
  exit 1
}

export OMP_PROC_BIND=${OMP_PROC_BIND:-spread}
export OMP_PLACES=${OMP_PLACES:-threads}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-active}
exec "$main" "$@"
