#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The benchmark run behind docs/performance.md, for one platform: spmvkit_perf's spmv sweep
# (FEM, elasticity, the real matrices, R-MAT, the power-law graphs; double and float; every
# format, the automatic choice and Kokkos Kernels), CG, SpGEMM and the solve family, then
# scripts/perf_page.py compact -> docs/perf/<platform>.csv. Regenerate the page afterwards with
# scripts/perf_page.py page (its --help).
#
# Usage: perf_suite.sh PLATFORM TITLE [--build DIR] [--json-dir DIR] [--csv FILE] [--formats L]
#                      [--quick]
#   PLATFORM      short name of the CSV (h200, cpu16, cpu2)
#   TITLE         the platform's name on the page ("H200 (CUDA)")
#   --build DIR   build directory with perf_tests/spmvkit_perf (default: <repo>/build)
#   --json-dir D  where the runs' JSON go (default: a temporary folder, kept and printed)
#   --csv FILE    the compact CSV (default: <repo>/docs/perf/PLATFORM.csv)
#   --formats L   the spmv formats (spmvkit_perf --formats grammar; default all: every variant, the
#                 automatic choice and Kokkos Kernels; "best" on the page is the fastest of them)
#   --quick       shorter timing (one repetition of 0.01 s): to try the script, not for the page
# Environment: SPMVKIT_MATRIX_DIR (real matrices; default: the build's), SPMVKIT_GRAPH_DIR
# (power-law graphs; default ../shared/graphs beside the repository; skipped when absent).
# CPU runs: set OMP_NUM_THREADS, OMP_PROC_BIND=close and OMP_PLACES=cores first.
set -euo pipefail

die() {
  printf '[perf_suite] ERROR: %s\n' "$*" >&2
  exit 2
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "$#" -ge 2 ] || die "usage: perf_suite.sh PLATFORM TITLE [--build DIR] [--json-dir DIR] [--csv FILE] [--formats L] [--quick]"
platform=$1
title=$2
shift 2
case "$platform" in
  "" | *[!a-z0-9_-]*) die "PLATFORM '$platform': lower-case letters, digits, '-' and '_' only" ;;
esac
build=$repo/build
json_dir=""
csv=$repo/docs/perf/$platform.csv
timing=(--repetitions=3 --min-time=0.02 --warmup=2 --max-rotation=8)
formats=all
while [ "$#" -gt 0 ]; do
  case "$1" in
    --build)
      [ "$#" -ge 2 ] || die "--build needs a directory"
      build=$2
      shift 2
      ;;
    --json-dir)
      [ "$#" -ge 2 ] || die "--json-dir needs a directory"
      json_dir=$2
      shift 2
      ;;
    --csv)
      [ "$#" -ge 2 ] || die "--csv needs a file name"
      csv=$2
      shift 2
      ;;
    --formats)
      [ "$#" -ge 2 ] || die "--formats needs a list"
      formats=$2
      shift 2
      ;;
    --quick)
      timing=(--repetitions=1 --min-time=0.01 --warmup=1 --max-rotation=2 --cg-repetitions=1)
      shift
      ;;
    *) die "unknown argument '$1'" ;;
  esac
done
perf=$build/perf_tests/spmvkit_perf
[ -x "$perf" ] || die "no $perf: build the benchmarks first (scripts/build.sh --target spmvkit_perf)"
# The test suite's build compiles the benchmark at -O1 (scripts/build.sh --tests): not for the page.
if [ -f "$build/CMakeCache.txt" ] && grep -Eq '^SPMVKIT_PERF_OPTIMIZATION:[A-Z]+=.+' "$build/CMakeCache.txt"; then
  die "$perf was built with $(grep -E '^SPMVKIT_PERF_OPTIMIZATION:' "$build/CMakeCache.txt" | cut -d= -f2-) (the test suite's build): rebuild it with scripts/build.sh --target spmvkit_perf"
fi
[ -n "$json_dir" ] || json_dir=$(mktemp -d "${TMPDIR:-/tmp}/spmvkit_perf_suite.XXXXXX")
mkdir -p "$json_dir"
python=/usr/bin/python3
[ -x "$python" ] || python=python3

# A family whose benchmarks fail (spmvkit_perf exits non-zero) does not stop the others: its
# JSON keeps the benchmarks that ran, the CSV is written, and the suite exits 1 naming it.
failed=()
run() {
  local name=$1
  shift
  echo "[perf_suite] $name: $perf $*" >&2
  if ! "$perf" "$@" "--benchmark_out=$json_dir/$name.json" --benchmark_out_format=json \
    >"$json_dir/$name.log" 2>&1; then
    echo "[perf_suite] WARNING: $name failed, see $json_dir/$name.log" >&2
    failed+=("$name")
  fi
}

# The backend decides the sizes: a GPU needs larger problems to leave its caches.
run probe --families=copy --copy-elements=1024 --copy-iterations=1 --fem-n= --rmat-scale= \
  --real-matrices=none --repetitions=1
[ "${#failed[@]}" -eq 0 ] || die "$perf does not run, see $json_dir/probe.log"
space=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"].get("execution_space", ""))' "$json_dir/probe.json")
case "$space" in
  OpenMP | Serial | Threads)
    fem=16,32,48,64,96 elasticity=16,32,48 rmat=16,18,20 cg=32,64,96 solve=32
    spgemm_fem=16,32 spgemm_rmat=12,14
    ;;
  *)
    fem=32,64,96,128,161 elasticity=32,64,96 rmat=16,18,20,22 cg=64,128,161 solve=64
    spgemm_fem=32,48,64,96 spgemm_rmat=14,16
    ;;
esac
echo "[perf_suite] $space: FEM $fem, elasticity $elasticity, R-MAT $rmat, CG $cg, solve $solve," \
  "SpGEMM FEM $spgemm_fem and R-MAT $spgemm_rmat; JSON in $json_dir" >&2

runs=(spmv)
run spmv --families=copy,read,spmv --precision=double,float "--fem-n=$fem" \
  "--elasticity-n=$elasticity" "--rmat-scale=$rmat" --real-matrices=all "--formats=$formats" \
  "${timing[@]}"
graphs=${SPMVKIT_GRAPH_DIR:-$repo/../shared/graphs}
if compgen -G "$graphs/*.mtx.gz" >/dev/null; then
  run graphs --families=spmv --precision=double,float --fem-n= --rmat-scale= \
    "--matrix-dir=$graphs" --real-matrices=all "--formats=$formats" "${timing[@]}"
  runs+=(graphs)
else
  echo "[perf_suite] no graphs in $graphs: the power-law class has R-MAT only" >&2
fi
run cg --families=copy,cg --precision=double "--cg-n=$cg" --fem-n= --rmat-scale= \
  --real-matrices=none --cg-variants=fused,kokkos_blas --formats=sell_offset16,sell_c*,crs,bsr,auto,kk \
  "${timing[@]}"
run spgemm --families=spgemm --precision=double --fem-n= --rmat-scale= --real-matrices=all \
  "--spgemm-fem-n=$spgemm_fem" "--spgemm-rmat-scale=$spgemm_rmat" "${timing[@]}"
run solve --families=solve --precision=double --fem-n= --rmat-scale= --real-matrices=none \
  "--solve-fem-n=$solve" "--solve-cd-n=$solve" "${timing[@]}"
runs+=(cg spgemm solve)

files=()
for name in "${runs[@]}"; do
  [ -s "$json_dir/$name.json" ] && files+=("$json_dir/$name.json")
done
[ "${#files[@]}" -gt 0 ] || die "no family wrote its JSON, see the logs in $json_dir"
"$python" "$repo/scripts/perf_page.py" compact --platform "$platform" --title "$title" \
  "${files[@]}" --out "$csv" >&2
echo "[perf_suite] done; regenerate the page: $python scripts/perf_page.py page docs/perf/*.csv --out docs/performance.md --charts docs/perf/charts" >&2
echo "$csv"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "[perf_suite] ERROR: benchmarks failed in ${failed[*]} (their logs in $json_dir); the CSV has what ran" >&2
  exit 1
fi
