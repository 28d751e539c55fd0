#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Checks that every C++ file of the repository is formatted as the pinned .clang-format says
# (clang-format 14, Debian 12's). Lists the files that need formatting and exits 1 when there is
# any; exits 0 when every file passes. CI runs it first (.ci/run).
#
# Files: *.cpp *.hpp *.h *.cc *.cxx *.hxx *.inl *.cu that git tracks, and untracked ones git does
# not ignore (a new file counts before it is added); outside a git work tree, those found under
# the repository, build folders excepted.
# clang-format: $CLANG_FORMAT, else clang-format-14, else clang-format; it must be version 14
# (other versions format differently). When none is found, `scripts/setup_deps.sh --packages-only
# --format` installs Debian's (package clang-format).
#
# Usage: check_format.sh [--fix]
#   --fix  format the listed files in place instead of failing
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

fix=0
for arg in "$@"; do
  case "$arg" in
    --fix) fix=1 ;;
    -h | --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 && !/SPDX-/ { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *)
      printf 'check_format.sh: unknown argument %s (see --help)\n' "$arg" >&2
      exit 2
      ;;
  esac
done

# The clang-format 14 to use, or nothing.
find_clang_format() {
  local candidate
  for candidate in ${CLANG_FORMAT:-} clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" --version 2>/dev/null | grep -Eq 'clang-format version 14\.'; then
      command -v "$candidate"
      return 0
    fi
  done
  return 0
}

clang_format=$(find_clang_format)
if [ -z "$clang_format" ]; then
  printf 'check_format.sh: no clang-format 14 found; installing it with scripts/setup_deps.sh\n' >&2
  bash "$repo/scripts/setup_deps.sh" --packages-only --format
  clang_format=$(find_clang_format)
fi
if [ -z "$clang_format" ]; then
  found=$(command -v "${CLANG_FORMAT:-clang-format}" 2>/dev/null || true)
  if [ -n "$found" ]; then
    found="$found, $("$found" --version 2>/dev/null | head -n 1)"
  fi
  printf 'check_format.sh: clang-format 14 is needed (.clang-format is pinned for it); %s\n' \
    "found: ${found:-none}" >&2
  exit 2
fi

patterns=('*.cpp' '*.hpp' '*.h' '*.cc' '*.cxx' '*.hxx' '*.inl' '*.cu')
files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' file; do
    # A deleted but still tracked file is not there to check.
    [ -f "$file" ] && files+=("$file")
  done < <(git ls-files -z --cached --others --exclude-standard -- "${patterns[@]}" | sort -zu)
else
  name_args=()
  for pattern in "${patterns[@]}"; do
    name_args+=(${name_args[0]+-o} -name "$pattern")
  done
  while IFS= read -r -d '' file; do
    files+=("${file#./}")
  done < <(find . \( -name '.git' -o -name 'build' -o -name 'build-*' -o -name '.gpu' \
    -o -name '.whl' -o -name '.gl' \) -prune -o -type f \( "${name_args[@]}" \) -print0 | sort -z)
fi
if [ "${#files[@]}" -eq 0 ]; then
  printf 'check_format.sh: no C++ files found under %s\n' "$repo" >&2
  exit 2
fi

# Each file against clang-format's output for it, in parallel; the names of those that differ.
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2016 # $0 and $file belong to the inner bash
unformatted=$(printf '%s\0' "${files[@]}" | xargs -0 -P "$jobs" -n 16 bash -c '
  for file; do
    "$0" --style=file "$file" | cmp -s - "$file" || printf "%s\n" "$file"
  done' "$clang_format" | sort)

version=$("$clang_format" --version | head -n 1)
if [ -z "$unformatted" ]; then
  printf 'check_format.sh: %d C++ files formatted as .clang-format says (%s)\n' "${#files[@]}" \
    "$version"
  exit 0
fi
count=$(printf '%s\n' "$unformatted" | wc -l)
if [ "$fix" -eq 1 ]; then
  printf '%s\n' "$unformatted" | tr '\n' '\0' | xargs -0 "$clang_format" -i --style=file
  printf 'check_format.sh: formatted %d file(s) in place (%s):\n%s\n' "$count" "$version" \
    "$unformatted"
  exit 0
fi
printf 'check_format.sh: %d of %d C++ files need formatting (%s):\n' "$count" "${#files[@]}" \
  "$version" >&2
printf '%s\n' "$unformatted" | sed 's/^/  /' >&2
printf 'Run: clang-format -i FILE (or bash scripts/check_format.sh --fix)\n' >&2
exit 1
