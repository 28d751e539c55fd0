#!/usr/bin/env bash
# The main job: sets up, configures and builds SpMVKit (scripts/build.sh), then runs
# build/examples/fem_cg (or build/examples/matrix_market_spmv while fem_cg does not exist) with
# the arguments given.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$(bash "$repo/scripts/build.sh" | tail -n 1)
for name in fem_cg matrix_market_spmv; do
  if [ -x "$build_dir/examples/$name" ]; then
    exec "$build_dir/examples/$name" "$@"
  fi
done
echo "run_main.sh: neither examples/fem_cg nor examples/matrix_market_spmv was built in $build_dir" >&2
exit 1
