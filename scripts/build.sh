#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Set-up, configure and build shared by run_tests.sh, run_main.sh and build_docs.sh:
#  - scripts/setup_deps.sh (Debian packages; Kokkos + Kokkos Kernels 3.4.01 into the cache),
#  - cmake configure (Release) of the repository in ${SPMVKIT_BUILD_DIR:-<repo>/build} against
#    that Kokkos, unless Kokkos_ROOT and KokkosKernels_ROOT are set in the environment,
#  - cmake --build -j$(nproc), of everything or of the targets given with --target.
#
# Usage: build.sh [--target NAME]... [--docs] [--main] [--tests]
#   --target NAME  build only NAME (repeatable); everything is still configured
#   --docs         also install doxygen and configure with -DSPMVKIT_ENABLE_DOCS=ON
#   --tests        the test suite's build (run_tests.sh): spmvkit_perf's and the examples'
#                  sources at -O1 (SPMVKIT_PERF_OPTIMIZATION, SPMVKIT_EXAMPLE_OPTIMIZATION),
#                  since their tests check results, not timings; without it both build at the
#                  build type's optimisation
#   --main         the main job's build: only its Debian packages, and a configuration without
#                  tests, benchmarks, fuzzing or MPI in ${SPMVKIT_BUILD_DIR:-<repo>/build-main}
# Extra configure arguments: SPMVKIT_CMAKE_ARGS (split on spaces), e.g. -DCMAKE_CXX_STANDARD=20.
# All output goes to stderr; the only line on stdout is the build directory.
set -euo pipefail

die() {
  printf '[build] ERROR: %s\n' "$*" >&2
  exit 2
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
default_build_dir=$repo/build

targets=()
perf_optimization=""
example_optimization=""
setup_args=()
config_args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --main)
      setup_args+=(--main)
      config_args+=(-DSPMVKIT_ENABLE_TESTS=OFF -DSPMVKIT_ENABLE_BENCHMARKS=OFF
        -DSPMVKIT_ENABLE_FUZZING=OFF -DSPMVKIT_ENABLE_MPI=OFF -DSPMVKIT_ENABLE_EXAMPLES=ON)
      default_build_dir=$repo/build-main
      shift
      ;;
    --target)
      [ "$#" -ge 2 ] || die "--target needs a target name"
      targets+=("$2")
      shift 2
      ;;
    --target=*)
      targets+=("${1#--target=}")
      shift
      ;;
    --tests)
      perf_optimization=-O1
      example_optimization=-O1
      shift
      ;;
    --docs)
      setup_args+=(--docs)
      config_args+=(-DSPMVKIT_ENABLE_DOCS=ON)
      shift
      ;;
    -h | --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 && !/SPDX-/ { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}" >&2
      exit 0
      ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

build_dir=${SPMVKIT_BUILD_DIR:-$default_build_dir}
kokkos_args=()
if [ -n "${Kokkos_ROOT:-}" ] && [ -n "${KokkosKernels_ROOT:-}" ]; then
  echo "[build] using Kokkos_ROOT=$Kokkos_ROOT and KokkosKernels_ROOT=$KokkosKernels_ROOT from the environment" >&2
  bash "$repo/scripts/setup_deps.sh" --packages-only "${setup_args[@]}" >/dev/null
else
  prefix=$(bash "$repo/scripts/setup_deps.sh" "${setup_args[@]}" | tail -n 1)
  [ -d "$prefix" ] || die "setup_deps.sh gave no Kokkos prefix"
  [ -n "${Kokkos_ROOT:-}" ] || kokkos_args+=("-DKokkos_ROOT=$prefix")
  [ -n "${KokkosKernels_ROOT:-}" ] || kokkos_args+=("-DKokkosKernels_ROOT=$prefix")
fi

read -r -a extra_args <<<"${SPMVKIT_CMAKE_ARGS:-}"
echo "[build] configuring $build_dir" >&2
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${kokkos_args[@]}" \
  "-DSPMVKIT_PERF_OPTIMIZATION=$perf_optimization" \
  "-DSPMVKIT_EXAMPLE_OPTIMIZATION=$example_optimization" "${config_args[@]}" "${extra_args[@]}" >&2

target_args=()
if [ "${#targets[@]}" -gt 0 ]; then
  target_args=(--target "${targets[@]}")
  echo "[build] building ${targets[*]} with $(nproc) jobs" >&2
else
  echo "[build] building everything with $(nproc) jobs" >&2
fi
cmake --build "$build_dir" -j "$(nproc)" "${target_args[@]}" >&2
printf '%s\n' "$build_dir"
