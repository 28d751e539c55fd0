#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The unit tests and the examples' tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (GCC), in their own build directory ${SPMVKIT_SANITIZE_BUILD_DIR:-<repo>/build-sanitize}.
# Any sanitizer report fails the run (-fno-sanitize-recover=all, halt_on_error). Kokkos itself
# is the cached, uninstrumented build: ASan still sees every access SpMVKit's kernels make,
# since they are templates compiled here.
#
# Usage: run_sanitizers.sh [--domains LIST] [--examples LIST] [ctest arguments]
#   --domains LIST   build and run only these folders of unit_tests/ (comma-separated, e.g.
#                    core,io,formats,distributed). Default: all.
#   --examples LIST  build and run only these examples' tests (comma-separated program names,
#                    e.g. matrix_market_spmv,solve_mtx). Default: every example.
# Environment: SPMVKIT_SANITIZE_OPTIMIZATION (-O0, -O1, -O2 or -Og; default -O1; CI takes -O0).
# -O1 -g1 (by default) rather than -O2 -g: half the compile time (the full suite still takes
# ~25 min to build on two cores), the same findings, and line numbers in every report. CI runs
# the input-facing domains (.ci/run); run the whole suite before merging a change to kernels or
# solvers.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SPMVKIT_SANITIZE_BUILD_DIR:-$repo/build-sanitize}
die() {
  printf '[sanitizers] ERROR: %s\n' "$*" >&2
  exit 2
}

domains=""
examples=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --domains)
      [ "$#" -ge 2 ] || die "--domains needs a comma-separated list of unit_tests/ folders"
      domains=$2
      shift 2
      ;;
    --domains=*)
      domains=${1#--domains=}
      shift
      ;;
    --examples)
      [ "$#" -ge 2 ] || die "--examples needs a comma-separated list of example programs"
      examples=$2
      shift 2
      ;;
    --examples=*)
      examples=${1#--examples=}
      shift
      ;;
    *) break ;;
  esac
done
case "$domains" in
  *[!a-z,]*) die "--domains '$domains': folder names of unit_tests/, comma-separated" ;;
esac
case "$examples" in
  *[!a-z0-9_,]*) die "--examples '$examples': example program names, comma-separated" ;;
esac
# The example programs: one per examples/*.cpp (fem_cg_float.cpp is part of fem_cg), read from
# the tree so that a new example cannot be missed (its tests would run unbuilt).
all_examples=" "
for source in "$repo"/examples/*.cpp; do
  name=$(basename "$source" .cpp)
  [ "$name" = fem_cg_float ] || all_examples+="$name "
done
readonly all_examples
names=()
others=()
if [ -n "$examples" ]; then
  for name in ${examples//,/ }; do
    case "$all_examples" in
      *" $name "*) names+=("$name") ;;
      *) die "--examples: no example program '$name' (one of:$all_examples)" ;;
    esac
  done
  [ "${#names[@]}" -gt 0 ] || die "--examples '$examples': no example program named"
  for name in $all_examples; do
    case " ${names[*]} " in
      *" $name "*) ;;
      *) others+=("$name") ;;
    esac
  done
fi

kokkos_args=()
if [ -n "${Kokkos_ROOT:-}" ] && [ -n "${KokkosKernels_ROOT:-}" ]; then
  bash "$repo/scripts/setup_deps.sh" --packages-only >/dev/null
else
  prefix=$(bash "$repo/scripts/setup_deps.sh" | tail -n 1)
  kokkos_args+=("-DKokkos_ROOT=$prefix" "-DKokkosKernels_ROOT=$prefix")
fi

# SPMVKIT_SANITIZE_OPTIMIZATION: -O1 by default; CI's input-facing run takes -O0, which compiles
# its heaviest example in 60% of -O1's time, and its small inputs run in seconds either way.
optimization=${SPMVKIT_SANITIZE_OPTIMIZATION:--O1}
case "$optimization" in
  -O0 | -O1 | -O2 | -Og) ;;
  *) die "SPMVKIT_SANITIZE_OPTIMIZATION='$optimization': one of -O0, -O1, -O2, -Og" ;;
esac
flags="$optimization -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo "[sanitizers] configuring $build_dir ($flags; unit tests: ${domains:-all}; examples: ${examples:-all})" >&2
# CMAKE_BUILD_TYPE=None: the optimisation level is the one in $flags, not a build type's.
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=None "${kokkos_args[@]}" \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  "-DSPMVKIT_UNIT_TEST_DOMAINS=${domains//,/;}" "-DSPMVKIT_TEST_OPTIMIZATION=$optimization" -DSPMVKIT_ENABLE_HEADER_CHECK=OFF \
  -DSPMVKIT_ENABLE_BENCHMARKS=OFF -DSPMVKIT_ENABLE_FUZZING=OFF >&2
echo "[sanitizers] building with $(nproc) jobs" >&2
start=$SECONDS
if [ "${#names[@]}" -gt 0 ]; then
  # The unit tests (and the distributed ones where MPI was found) and the listed examples; the
  # other examples' tests are left out of ctest below (fem_cg's pattern also covers fem_cg_mpi's).
  targets=(spmvkit_unit_tests "${names[@]}")
  [ -d "$build_dir/unit_tests/CMakeFiles/spmvkit_distributed_tests.dir" ] &&
    targets+=(spmvkit_distributed_tests)
  [[ " ${names[*]} " == *" fem_cg_mpi "* ]] && [ ! -d "$build_dir/examples/CMakeFiles/fem_cg_mpi.dir" ] &&
    die "--examples: fem_cg_mpi is not built here (no MPI)"
  cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}" >&2
else
  cmake --build "$build_dir" -j "$(nproc)" >&2
fi
echo "[sanitizers] build took $((SECONDS - start)) s" >&2
cd "$build_dir"
# detect_leaks=0: Kokkos keeps allocations alive until exit by design (host-space tracking),
# which LeakSanitizer would report; memory errors and UB are what this run is for.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
start=$SECONDS
skip=()
if [ "${#others[@]}" -gt 0 ]; then
  skip=(-E "^example_($(IFS='|'; echo "${others[*]}"))(_.*)?\$")
fi
ctest --output-on-failure -LE install "${skip[@]}" "$@"
echo "[sanitizers] tests took $((SECONDS - start)) s" >&2
