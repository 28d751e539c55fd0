#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The API reference: installs doxygen when missing (scripts/setup_deps.sh --docs), configures
# SpMVKit (scripts/build.sh; build dir ${SPMVKIT_BUILD_DIR:-build}) with -DSPMVKIT_ENABLE_DOCS=ON
# and builds only the `docs` target: Doxygen over the public headers in include/spmvkit/
# (detail/ left out) into <build>/docs/html.
#
# Every Doxygen warning (an undocumented public class, function, member or option, a broken
# reference) is an error: the warnings are printed, kept in <build>/docs/doxygen_warnings.log,
# and the script exits non-zero.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$(bash "$repo/scripts/build.sh" --docs --target docs | tail -n 1)
echo "build_docs.sh: API reference in $build_dir/docs/html/index.html" >&2
