#!/usr/bin/env bash
# Set-up, configure and build shared by run_tests.sh and run_main.sh:
#  - scripts/setup_deps.sh (Debian packages; Kokkos + Kokkos Kernels 3.4.01 into the cache),
#  - cmake configure (Release) of the repository in ${SPMVKIT_BUILD_DIR:-<repo>/build} against
#    that Kokkos, unless Kokkos_ROOT and KokkosKernels_ROOT are set in the environment,
#  - cmake --build -j$(nproc).
# Extra configure arguments: SPMVKIT_CMAKE_ARGS (split on spaces), e.g. -DCMAKE_CXX_STANDARD=20.
# All output goes to stderr; the only line on stdout is the build directory.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SPMVKIT_BUILD_DIR:-$repo/build}

kokkos_args=()
if [ -n "${Kokkos_ROOT:-}" ] && [ -n "${KokkosKernels_ROOT:-}" ]; then
  echo "[build] using Kokkos_ROOT=$Kokkos_ROOT and KokkosKernels_ROOT=$KokkosKernels_ROOT from the environment" >&2
  bash "$repo/scripts/setup_deps.sh" --packages-only >/dev/null
else
  prefix=$(bash "$repo/scripts/setup_deps.sh" | tail -n 1)
  [ -d "$prefix" ] || { echo "[build] ERROR: setup_deps.sh gave no Kokkos prefix" >&2; exit 1; }
  [ -n "${Kokkos_ROOT:-}" ] || kokkos_args+=("-DKokkos_ROOT=$prefix")
  [ -n "${KokkosKernels_ROOT:-}" ] || kokkos_args+=("-DKokkosKernels_ROOT=$prefix")
fi

read -r -a extra_args <<<"${SPMVKIT_CMAKE_ARGS:-}"
echo "[build] configuring $build_dir" >&2
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${kokkos_args[@]}" \
  "${extra_args[@]}" >&2
echo "[build] building with $(nproc) jobs" >&2
cmake --build "$build_dir" -j "$(nproc)" >&2
printf '%s\n' "$build_dir"
