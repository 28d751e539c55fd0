#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sets up SpMVKit's dependencies on a Debian 12 (bookworm) machine. Idempotent.
#
#  1. Installs the Debian packages the build needs (only those missing), Open MPI included.
#  2. Builds Kokkos and Kokkos Kernels 3.4.01 (OpenMP + Serial, Release, C++17, static, PIC)
#     from Debian's `trilinos` source package (13.2.0) into
#     ${SPMVKIT_DEPS_DIR:-$HOME/.cache/spmvkit}/kokkos-3.4.01, unless a complete build is cached.
#     The source package is fetched with apt's ordinary client through a private, temporary
#     deb-src configuration made from the machine's own apt sources; the system's apt
#     configuration is not changed.
#
# Usage: setup_deps.sh [--packages-only] [--docs] [--format]
#   --packages-only  step 1 only (no Kokkos)
#   --docs           also the packages of the API reference (doxygen; scripts/build_docs.sh)
#   --format         also clang-format 14 (scripts/check_format.sh)
# All progress goes to stderr; the last (only) line on stdout is the Kokkos install prefix.
set -euo pipefail

readonly KOKKOS_VERSION=3.4.01
readonly TRILINOS_VERSION=13.2.0
# libopenmpi-dev and openmpi-bin: the optional distributed module (SPMVKIT_ENABLE_MPI) and its
# tests, which ctest runs through mpirun on the CPU build.
readonly PACKAGES=(cmake g++ make libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
  python3-matplotlib dpkg-dev xz-utils tar libopenmpi-dev openmpi-bin)
# Only with --docs: the API reference is not part of the main job or the test suite, and Debian's
# doxygen pulls in LLVM's libraries. No graphviz: the reference is built without dot graphs.
readonly DOC_PACKAGES=(doxygen)
# Only these with --main: what the main job (scripts/run_main.sh: fem_cg, no tests, benchmarks
# or MPI) needs, so that a first run does not wait for Open MPI, Google Test and matplotlib.
readonly MAIN_PACKAGES=(cmake g++ make zlib1g-dev dpkg-dev xz-utils tar)
# Only with --format: the format check (scripts/check_format.sh, CI's first stage). Debian 12's
# clang-format is version 14, the one .clang-format is pinned for; it pulls in LLVM's libraries,
# which the main job does not need.
readonly FORMAT_PACKAGES=(clang-format)

log() { printf '[setup_deps %3ds] %s\n' "$SECONDS" "$*" >&2; }
die() {
  printf '[setup_deps] ERROR: %s\n' "$*" >&2
  exit 1
}

packages_only=0
packages=("${PACKAGES[@]}")
for arg in "$@"; do
  case "$arg" in
    --packages-only) packages_only=1 ;;
    --main) packages=("${MAIN_PACKAGES[@]}") ;;
    --docs) packages+=("${DOC_PACKAGES[@]}") ;;
    --format) packages+=("${FORMAT_PACKAGES[@]}") ;;
    -h | --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 && !/SPDX-/ { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}" >&2
      exit 0
      ;;
    *) die "unknown argument '$arg' (see --help)" ;;
  esac
done

home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
deps_dir=${SPMVKIT_DEPS_DIR:-$home/.cache/spmvkit}
prefix=$deps_dir/kokkos-$KOKKOS_VERSION
stamp=$prefix/.spmvkit-install-complete

# ---------------------------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------------------------
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root to run '$*' (not root and sudo is not available); install the packages by hand: ${packages[*]}"
  fi
}

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; this script supports Debian 12 only (missing: ${missing[*]})"
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -q >&2 || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
else
  log "Debian packages: all present"
fi

if [ "$packages_only" -eq 1 ]; then
  exit 0
fi

# ---------------------------------------------------------------------------------------------
# 2. Kokkos + Kokkos Kernels into the cache
# ---------------------------------------------------------------------------------------------
cxx=${CXX:-c++}
cxx_path=$(command -v "$cxx") || die "C++ compiler '$cxx' not found"
# Kokkos Kernels must be built like the Kokkos it sits on.
common_options=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_STANDARD=17
  -DCMAKE_CXX_EXTENSIONS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DBUILD_SHARED_LIBS=OFF
)
kokkos_options=(
  "${common_options[@]}"
  -DKokkos_ENABLE_OPENMP=ON
  -DKokkos_ENABLE_SERIAL=ON
  -DKokkos_ENABLE_TESTS=OFF
  -DKokkos_ENABLE_EXAMPLES=OFF
)
kk_options=(
  "${common_options[@]}"
  -DKokkosKernels_INST_DOUBLE=OFF
  -DKokkosKernels_INST_OFFSET_INT=OFF
  -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
  -DKokkosKernels_INST_ORDINAL_INT=OFF
  -DKokkosKernels_INST_LAYOUTLEFT=OFF
  -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF
  -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF
  -DKokkosKernels_ENABLE_TESTS=OFF
  -DKokkosKernels_ENABLE_EXAMPLES=OFF
)
# What the cached install was built from; a different stamp means a rebuild.
stamp_text="trilinos=$TRILINOS_VERSION kokkos=$KOKKOS_VERSION
cxx=$cxx_path $("$cxx_path" --version 2>/dev/null | head -n 1)
kokkos: ${kokkos_options[*]}
kokkos-kernels: ${kk_options[*]}"

mkdir -p "$deps_dir"
# Serialize concurrent runs (e.g. run_tests.sh and run_main.sh started together).
exec 9>"$deps_dir/.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ]; then
  log "Kokkos $KOKKOS_VERSION + Kokkos Kernels: cached in $prefix"
  printf '%s\n' "$prefix"
  exit 0
fi

work=$deps_dir/work
rm -rf "$work" "$prefix"
mkdir -p "$work"
jobs=$(nproc 2>/dev/null || echo 2)

# Runs a command with its output in a log file; on failure shows the log's tail and stops.
run_logged() {
  local name=$1
  shift
  local logfile=$work/$name.log
  if ! "$@" >"$logfile" 2>&1; then
    tail -n 60 "$logfile" >&2 || true
    die "$name failed (command: $*; full log: $logfile)"
  fi
}

# --- 2a. private deb-src configuration made from the machine's apt sources --------------------
# Only active Debian entries are used: *.sources / *.list files (not *.disabled-*), Types/type
# 'deb', suites of this release (e.g. bookworm, bookworm-updates, bookworm-security), component
# 'main', and (deb822) no Signed-By other than Debian's archive keyring.
codename=$(. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "cannot read VERSION_CODENAME from /etc/os-release (Debian 12 expected)"

source_list=/etc/apt/sources.list
source_parts=/etc/apt/sources.list.d
if command -v apt-config >/dev/null 2>&1; then
  eval "$(apt-config shell source_list Dir::Etc::SourceList/f source_parts Dir::Etc::SourceParts/d)"
fi
source_parts=${source_parts%/}

apt_dir=$work/apt
mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/download"
: >"$apt_dir/empty.list"

deb822_files=()
list_files=()
for f in "$source_parts"/*.sources; do [ -f "$f" ] && deb822_files+=("$f"); done
[ -f "$source_list" ] && list_files+=("$source_list")
for f in "$source_parts"/*.list; do [ -f "$f" ] && list_files+=("$f"); done

if [ "${#deb822_files[@]}" -gt 0 ]; then
  awk -v codename="$codename" '
    function flush(   n, i, s, suites, ok_suite, ok_comp, c, t, ok_type) {
      if (types == "" || uris == "") { reset(); return }
      ok_type = 0; n = split(types, t, /[ \t]+/)
      for (i = 1; i <= n; i++) if (t[i] == "deb") ok_type = 1
      ok_comp = 0; n = split(comps, c, /[ \t]+/)
      for (i = 1; i <= n; i++) if (c[i] == "main") ok_comp = 1
      suites = ""; n = split(suits, s, /[ \t]+/)
      for (i = 1; i <= n; i++)
        if (s[i] == codename || index(s[i], codename "-") == 1) suites = suites " " s[i]
      if (ok_type && ok_comp && suites != "" && tolower(enabled) != "no" &&
          (signed == "" || signed ~ /debian-archive/)) {
        print "Types: deb-src"
        print "URIs: " uris
        print "Suites:" suites
        print "Components: main"
        if (signed != "") print "Signed-By: " signed
        print ""
      }
      reset()
    }
    function reset() { types = uris = suits = comps = signed = enabled = ""; key = "" }
    BEGIN { reset() }
    FNR == 1 { flush() }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/ { if (key == "signed-by") signed = "(inline key)"; next }
    {
      line = $0; p = index(line, ":"); if (p == 0) next
      key = tolower(substr(line, 1, p - 1)); val = substr(line, p + 1)
      gsub(/^[ \t]+|[ \t]+$/, "", val)
      if (key == "types") types = val
      else if (key == "uris") uris = val
      else if (key == "suites") suits = val
      else if (key == "components") comps = val
      else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = val
    }
    END { flush() }
  ' "${deb822_files[@]}" >"$apt_dir/parts/spmvkit-src.sources"
fi
if [ "${#list_files[@]}" -gt 0 ]; then
  # One-line form: deb [options] URI SUITE COMPONENT...
  awk -v codename="$codename" '
    /^[ \t]*deb[ \t]/ {
      line = $0; sub(/^[ \t]*deb[ \t]+/, "", line)
      opts = ""
      if (substr(line, 1, 1) == "[") {
        p = index(line, "]"); if (p == 0) next
        opts = substr(line, 1, p) " "; line = substr(line, p + 1)
      }
      n = split(line, f, /[ \t]+/); if (f[1] == "") { for (i = 1; i < n; i++) f[i] = f[i + 1]; n-- }
      if (n < 3) next
      if (!(f[2] == codename || index(f[2], codename "-") == 1)) next
      main = 0; for (i = 3; i <= n; i++) if (f[i] == "main") main = 1
      if (!main) next
      if (opts ~ /signed-by=/ && opts !~ /debian-archive/) next
      print "deb-src " opts f[1] " " f[2] " main"
    }
  ' "${list_files[@]}" >"$apt_dir/parts/spmvkit-src.list"
fi
if ! grep -qs '^Types: deb-src' "$apt_dir/parts/spmvkit-src.sources" &&
  ! grep -qs '^deb-src' "$apt_dir/parts/spmvkit-src.list"; then
  die "no active Debian '$codename' main entry found in $source_list or $source_parts/*.{sources,list}"
fi

apt_private=(
  -o "Dir::Etc::SourceList=$apt_dir/empty.list"
  -o "Dir::Etc::SourceParts=$apt_dir/parts"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
)
# apt downloads as the unprivileged '_apt' user, which cannot write into a private directory
# under root's home; run the private download as the current user instead.
if [ "$(id -u)" -eq 0 ]; then
  apt_private+=(-o "APT::Sandbox::User=root")
fi

log "fetching the trilinos source package (Debian $codename) with apt-get source"
# A mirror that fails to answer (say, the security suite) need not stop us: 'apt-get source'
# below fails clearly if the package is still not found.
if ! apt-get -q "${apt_private[@]}" update >"$work/apt-update.log" 2>&1; then
  grep -E '^(E|W):' "$work/apt-update.log" >&2 || true
  log "warning: 'apt-get update' of the private deb-src list reported errors; trying anyway"
fi
(cd "$work/download" && run_logged apt-source apt-get -q "${apt_private[@]}" source --download-only trilinos)
orig=$work/download/trilinos_$TRILINOS_VERSION.orig.tar.gz
if [ ! -f "$orig" ]; then
  die "expected $orig (trilinos $TRILINOS_VERSION, which ships Kokkos $KOKKOS_VERSION); apt-get source fetched: $(ls "$work/download" | tr '\n' ' ')"
fi

# --- 2b. extract only Kokkos and Kokkos Kernels -------------------------------------------------
log "extracting packages/kokkos and packages/kokkos-kernels"
mkdir -p "$work/src"
tar -xzf "$orig" -C "$work/src" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*' ||
  die "extracting Kokkos from $orig failed"
rm -f "$orig"
kokkos_src=$(echo "$work"/src/*/packages/kokkos)
kk_src=$(echo "$work"/src/*/packages/kokkos-kernels)
[ -f "$kokkos_src/CMakeLists.txt" ] || die "Kokkos sources not found in $orig"
[ -f "$kk_src/CMakeLists.txt" ] || die "Kokkos Kernels sources not found in $orig"

# --- 2c. build and install -----------------------------------------------------------------------
# cmake_install NAME SOURCE_DIR CMAKE_OPTION...: configures, builds and installs into $prefix,
# with the logs and build tree named after NAME.
cmake_install() {
  local name=$1 src=$2
  shift 2
  run_logged "$name-configure" cmake -S "$src" -B "$work/build-$name" \
    -DCMAKE_CXX_COMPILER="$cxx_path" -DCMAKE_INSTALL_PREFIX="$prefix" "$@"
  run_logged "$name-build" cmake --build "$work/build-$name" -j "$jobs"
  run_logged "$name-install" cmake --install "$work/build-$name"
}

log "building Kokkos $KOKKOS_VERSION (OpenMP + Serial) with $jobs jobs"
cmake_install kokkos "$kokkos_src" "${kokkos_options[@]}"

log "installing Kokkos Kernels $KOKKOS_VERSION (no ETI)"
cmake_install kokkos-kernels "$kk_src" -DKokkos_ROOT="$prefix" "${kk_options[@]}"

printf '%s\n' "$stamp_text" >"$stamp"
rm -rf "$work"
log "Kokkos $KOKKOS_VERSION + Kokkos Kernels installed in $prefix"
printf '%s\n' "$prefix"
