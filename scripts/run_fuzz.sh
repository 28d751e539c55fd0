#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds SpMVKit's libFuzzer targets with clang and runs each for N seconds (default 60).
#
#   scripts/run_fuzz.sh [seconds]
#
#  - Installs clang, its runtime libraries (libFuzzer, sanitizers) and LLVM's OpenMP when missing
#    (Debian 12: clang libclang-rt-dev libomp-dev; needs root or sudo, like setup_deps.sh).
#  - Configures the repository with clang++ in ${SPMVKIT_FUZZ_BUILD_DIR:-<repo>/build-fuzz}
#    (RelWithDebInfo, tests/examples/benchmarks off, SPMVKIT_ENABLE_FUZZING=ON) against the
#    Kokkos of scripts/setup_deps.sh (built with g++; clang links against it), or against
#    Kokkos_ROOT / KokkosKernels_ROOT when both are set, and builds target spmvkit_fuzzers.
#  - Replays the seed corpus (fuzz/corpus/<target>), then fuzzes each target for N seconds with
#    ASan + UBSan, both targets at once when there are 2+ cores (logs in
#    <build>/fuzz-run/<target>/). The working corpus grows in
#    <build>/fuzz-corpus/ (kept between runs, never committed); crashes, timeouts, leaks and
#    out-of-memory inputs go to <build>/fuzz-artifacts/.
#  - Exits non-zero when a target found anything (or did not build). Reproduce a finding with
#    <build>/fuzz/spmvkit_fuzz_<target> <artifact>.
# Environment: SPMVKIT_FUZZ_JOBS (parallel fuzzer processes per target, default 1),
# SPMVKIT_FUZZ_ARGS (extra libFuzzer flags, split on spaces).
set -euo pipefail

seconds=${1:-60}
case "$seconds" in
  '' | *[!0-9]*) echo "usage: $0 [seconds]   (seconds: a positive integer)" >&2; exit 2 ;;
esac
[ "$seconds" -gt 0 ] || { echo "usage: $0 [seconds]   (seconds > 0)" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SPMVKIT_FUZZ_BUILD_DIR:-$repo/build-fuzz}
jobs=${SPMVKIT_FUZZ_JOBS:-1}
read -r -a extra_args <<<"${SPMVKIT_FUZZ_ARGS:-}"
log() { printf '[run_fuzz %4ds] %s\n' "$SECONDS" "$*" >&2; }
die() { printf '[run_fuzz] ERROR: %s\n' "$*" >&2; exit 1; }

# --- clang ----------------------------------------------------------------------------------
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root to run '$*'; install clang, libclang-rt-dev and libomp-dev by hand"
  fi
}
missing=()
for pkg in clang libclang-rt-dev libomp-dev; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install ${missing[*]} by hand"
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -q >&2 || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
fi
cxx=${SPMVKIT_FUZZ_CXX:-clang++}
command -v "$cxx" >/dev/null 2>&1 || die "$cxx not found"

# --- configure and build --------------------------------------------------------------------
kokkos_args=()
if [ -n "${Kokkos_ROOT:-}" ] && [ -n "${KokkosKernels_ROOT:-}" ]; then
  kokkos_args+=("-DKokkos_ROOT=$Kokkos_ROOT" "-DKokkosKernels_ROOT=$KokkosKernels_ROOT")
else
  # The cached Kokkos is built with the default C++ compiler (g++), not with clang.
  prefix=$(env -u CXX bash "$repo/scripts/setup_deps.sh" | tail -n 1)
  [ -d "$prefix" ] || die "setup_deps.sh gave no Kokkos prefix"
  kokkos_args+=("-DKokkos_ROOT=$prefix" "-DKokkosKernels_ROOT=$prefix")
fi
log "configuring $build_dir with $cxx"
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DSPMVKIT_ENABLE_TESTS=OFF -DSPMVKIT_ENABLE_EXAMPLES=OFF -DSPMVKIT_ENABLE_BENCHMARKS=OFF \
  -DSPMVKIT_ENABLE_FUZZING=ON "${kokkos_args[@]}" >&2
log "building spmvkit_fuzzers with $(nproc) jobs"
cmake --build "$build_dir" --target spmvkit_fuzzers -j "$(nproc)" >&2

# --- run ------------------------------------------------------------------------------------
export OMP_PROC_BIND=false
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
artifacts=$build_dir/fuzz-artifacts
mkdir -p "$artifacts"

# run_target <name> <seed corpus> <max_len> [libFuzzer flags...]
run_target() {
  local name=$1 seeds=$2 max_len=$3
  shift 3
  local binary=$build_dir/fuzz/spmvkit_fuzz_$name
  local corpus=$build_dir/fuzz-corpus/$name
  local work=$build_dir/fuzz-run/$name # with -jobs, libFuzzer writes fuzz-<job>.log here
  local log_file=$work/main.log
  rm -rf "$work"
  mkdir -p "$corpus" "$work"
  local flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
    -artifact_prefix="$artifacts/$name-" -print_final_stats=1 "$@" "${extra_args[@]}")
  if [ "$jobs" -gt 1 ]; then
    flags+=(-jobs="$jobs" -workers="$jobs")
  fi
  # Replay the seeds first: a regression there is a finding too.
  if ! "$binary" -runs=0 "$seeds" >"$log_file" 2>&1; then
    echo "seed corpus replay failed" >>"$log_file"
    return 1
  fi
  (cd "$work" && "$binary" "${flags[@]}" "$corpus" "$seeds" >>"$log_file" 2>&1)
}

declare -A status
declare -A pid
targets=(matrix_market crs_sell)
cores=$(nproc)
log "fuzzing ${targets[*]} for ${seconds}s each ($([ "$cores" -ge 2 ] && echo "in parallel" || echo "one after the other"), $jobs job(s) each)"
for name in "${targets[@]}"; do
  case "$name" in
    matrix_market) args=(mtx 16384 -dict="$repo/fuzz/matrix_market.dict") ;;
    crs_sell) args=(crs 8192) ;;
  esac
  seeds=$repo/fuzz/corpus/${args[0]}
  if [ "$cores" -ge 2 ]; then
    run_target "$name" "$seeds" "${args[@]:1}" &
    pid[$name]=$!
  else
    if run_target "$name" "$seeds" "${args[@]:1}"; then status[$name]=0; else status[$name]=$?; fi
  fi
done
for name in "${!pid[@]}"; do
  if wait "${pid[$name]}"; then status[$name]=0; else status[$name]=$?; fi
done

failed=0
for name in "${targets[@]}"; do
  log_file=$build_dir/fuzz-run/$name/main.log
  execs=$(cat "$build_dir/fuzz-run/$name"/*.log | grep -o 'stat::number_of_executed_units: *[0-9]*' |
    awk '{s += $2} END {print s + 0}')
  if [ "${status[$name]}" -eq 0 ]; then
    log "$name: OK, $execs executions in ${seconds}s, no findings (log: $log_file)"
  else
    failed=1
    log "$name: FAILED (exit ${status[$name]}); last lines of $log_file:"
    tail -n 40 "$build_dir/fuzz-run/$name"/*.log >&2
  fi
done
if [ "$failed" -ne 0 ]; then
  log "findings are in $artifacts:"
  ls -l "$artifacts" >&2 || true
  exit 1
fi
