# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Install test, run by ctest as `cmake -D... -P InstallTest.cmake`. Consumers of SpMVKit (of its
# install, or of its source tree), each configured, built and run unless said otherwise
# (examples/downstream checks its own result):
#
#  1. release: the SpMVKit build in SPMVKIT_BINARY_DIR installed into WORK_DIR/prefix; the
#     consumer gives only CMAKE_PREFIX_PATH=<prefix> and the build type, so the package config
#     finds Kokkos and Kokkos Kernels through the paths it recorded. Its configure output must not
#     contain the no-build-type warning.
#  2. moved dependencies, no build type: SpMVKit is built and installed (library only) against a
#     COPY of the Kokkos / Kokkos Kernels prefix, which is then renamed, so the recorded paths no
#     longer exist. The consumer gives CMAKE_PREFIX_PATH=<SpMVKit prefix>;<renamed copy> and no
#     build type: it must configure with the renamed copy, show the warning about the empty
#     CMAKE_BUILD_TYPE, build and run.
#  3. precedence: a consumer of the install of step 1, whose recorded Kokkos still exists, points
#     Kokkos_ROOT / KokkosKernels_ROOT (3a) or CMAKE_PREFIX_PATH (3b) at the renamed copy; the
#     copy must be the one found (configure only).
#  4. the install of step 2 with nothing pointing at Kokkos: its recorded Kokkos is gone, so the
#     configure must fail with a message that names -DKokkos_ROOT (configure only).
#  5. the version file of step 1's install accepts its own major.minor and refuses the next minor
#     (and, while the major version is 0, the previous one): SameMinorVersion (script mode).
#  6. SpMVKit::core without zlib: a consumer of step 1's install with zlib made unfindable
#     (CMAKE_DISABLE_FIND_PACKAGE_ZLIB) asks for COMPONENTS core and builds and runs core_main.cpp
#     (6a); asking for the default components instead must fail, naming COMPONENTS core (6b).
#  7. Kokkos check, against a fake Kokkos package (C++14, backend CUDA only, no CUDA_LAMBDA):
#     a consumer of step 1's install must fail naming C++17 and the backends SpMVKit was built
#     with (7a); configuring SpMVKit itself must fail naming C++17 and CUDA_LAMBDA (7b).
#  8. FetchContent: a consumer that declares SpMVKit with SOURCE_DIR = this source tree (no
#     download) and FetchContent_MakeAvailable, with Kokkos Kernels, Google Benchmark, GoogleTest
#     and zlib made unfindable (CMAKE_DISABLE_FIND_PACKAGE_*, which also fails any REQUIRED
#     search): SpMVKit must configure with its tests, examples and benchmarks off, export its
#     settings variables, and the consumer builds and runs core_main.cpp against SpMVKit::core.
#  9. add_subdirectory: the same without hiding zlib; the consumer builds SpMVKit::io with it and
#     links main.cpp (CRS and SELL SpMV) against SpMVKit::spmvkit.
# Steps 1, 6a, 8 and 9 check the settings variables the consumer sees (SpMVKit_ENABLE_MPI,
# SpMVKit_ENABLE_IO, SpMVKit_HAS_KOKKOS_KERNELS, SpMVKit_KOKKOS_DEVICES, SpMVKit_KOKKOS_VERSION),
# which examples/downstream prints. Steps 5 to 9 run right after step 1; steps 2 to 4 come last
# and are skipped, with a message, when Kokkos lives in a system prefix (/usr, ...), which cannot
# sensibly be copied. Any failing step fails the test.
#
# Required: -DSPMVKIT_BINARY_DIR -DSPMVKIT_SOURCE_DIR -DSPMVKIT_VERSION -DDOWNSTREAM_SOURCE_DIR
#           -DWORK_DIR -DCXX_COMPILER -DKokkos_DIR -DKokkosKernels_DIR
#           -DKOKKOS_DEVICES (this build's Kokkos_DEVICES, '|'-separated) -DKOKKOS_VERSION
# Optional: -DBUILD_CONFIG -DGENERATOR -DCXX_STANDARD -DCXX_EXTENSIONS, and with the distributed
#           module -DWITH_MPI=ON -DMPIEXEC -DMPIRUN_FLAGS -DMPI_ENVIRONMENT ('|'-separated lists)
cmake_minimum_required(VERSION 3.16...3.25)

foreach(var SPMVKIT_BINARY_DIR SPMVKIT_SOURCE_DIR SPMVKIT_VERSION DOWNSTREAM_SOURCE_DIR WORK_DIR
            CXX_COMPILER Kokkos_DIR KokkosKernels_DIR KOKKOS_DEVICES KOKKOS_VERSION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "InstallTest.cmake: -D${var}=... is required")
  endif()
endforeach()

# Phrases of the warning the package config gives a consumer with no build type, looked for in
# the configure output with its line wrapping undone (has_phrase).
set(no_build_type_marker "CMAKE_BUILD_TYPE is empty")
set(no_build_type_phrase "SpMVKit kernels at -O0 run ~10x slower")
set(no_build_type_remedy "-DCMAKE_BUILD_TYPE=Release")

# has_phrase(<text> <phrase> <output variable>): whether <text>, its runs of blanks and newlines
# made single spaces, contains <phrase>.
function(has_phrase text phrase out_var)
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${text}")
  string(FIND "${flat}" "${phrase}" at)
  if(at EQUAL -1)
    set(${out_var} FALSE PARENT_SCOPE)
  else()
    set(${out_var} TRUE PARENT_SCOPE)
  endif()
endfunction()

# expect_phrase(<text> <phrase> <what>): fails the test, showing <what>, unless <text> (blanks
# flattened as by has_phrase) contains <phrase>.
function(expect_phrase text phrase what)
  has_phrase("${text}" "${phrase}" found)
  if(NOT found)
    message(FATAL_ERROR "install test: ${what}: '${phrase}' expected in the output above")
  endif()
endfunction()

# downstream_targets(<configure output> <output variable>): the SpMVKit targets examples/downstream
# saw, as it prints them ("targets=SpMVKit::core SpMVKit::io ...").
function(downstream_targets text out_var)
  string(REGEX MATCH "targets=[^\n]*" line "${text}")
  string(REGEX REPLACE "^targets=" "" line "${line}")
  string(STRIP "${line}" line)
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

# settings_line(<output variable> <mpi> <io> <kokkos kernels>): the settings line
# examples/downstream prints, with these values and the Kokkos devices of this build.
function(settings_line out_var mpi io kk)
  string(CONCAT line "downstream settings: SpMVKit_ENABLE_MPI=${mpi} SpMVKit_ENABLE_IO=${io} "
                     "SpMVKit_HAS_KOKKOS_KERNELS=${kk} SpMVKit_KOKKOS_DEVICES=${kokkos_devices} "
                     "SpMVKit_KOKKOS_VERSION=${KOKKOS_VERSION} ")
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" kokkos_devices "${KOKKOS_DEVICES}")
set(expected_mpi OFF)
if(WITH_MPI)
  set(expected_mpi ON)
endif()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# fail(<part>...): stops the test with the parts of the message joined.
function(fail)
  set(what "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE ${last})
    string(APPEND what "${ARGV${i}}")
  endforeach()
  message(FATAL_ERROR "install test: ${what}")
endfunction()

# run_step(<what> <command>...): runs the command, output shown; fails the test on failure.
function(run_step what)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    fail("${what} failed (${result})")
  endif()
endfunction()

# run_captured(<what> <output variable> <command>...): like run_step, and also returns stdout and
# stderr together in <output variable>.
function(run_captured what out_var)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT result EQUAL 0)
    fail("${what} failed (${result})")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Configure arguments common to every configure below (compiler, standard, generator); the
# consumer's own configure never inherits CXXFLAGS or CMAKE_BUILD_TYPE from the environment.
set(common_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(GENERATOR)
  list(APPEND common_args -G "${GENERATOR}")
endif()
if(NOT "${CXX_STANDARD}" STREQUAL "")
  list(APPEND common_args "-DCMAKE_CXX_STANDARD=${CXX_STANDARD}")
endif()
if(NOT "${CXX_EXTENSIONS}" STREQUAL "")
  list(APPEND common_args "-DCMAKE_CXX_EXTENSIONS=${CXX_EXTENSIONS}")
endif()
set(clean_env "${CMAKE_COMMAND}" -E env --unset=CXXFLAGS --unset=CMAKE_BUILD_TYPE
              --unset=Kokkos_DIR --unset=KokkosKernels_DIR --unset=Kokkos_ROOT
              --unset=KokkosKernels_ROOT)
set(config_args)
if(BUILD_CONFIG)
  set(config_args --config "${BUILD_CONFIG}")
endif()
# Multi-config generators have no CMAKE_BUILD_TYPE, and the package config does not warn there.
set(multi_config FALSE)
if(GENERATOR MATCHES "Multi-Config|Visual Studio|Xcode")
  set(multi_config TRUE)
endif()

# cache_value(<build dir> <name> <output variable>): a value from <build dir>/CMakeCache.txt.
function(cache_value dir name out_var)
  file(STRINGS "${dir}/CMakeCache.txt" lines REGEX "^${name}:[A-Z]+=")
  string(REGEX REPLACE "^${name}:[A-Z]+=" "" value "${lines}")
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

# expect_under(<build dir> <cache variable> <directory>): the consumer found the package there.
function(expect_under dir name expected)
  cache_value("${dir}" "${name}" value)
  string(FIND "${value}/" "${expected}/" at)
  if(NOT at EQUAL 0)
    fail("${name} of ${dir} is '${value}', expected a directory under ${expected}")
  endif()
  message(STATUS "install test: ${name} = ${value}")
endfunction()

# build_and_run(<build dir> <build config>): builds the consumer and runs its program.
function(build_and_run dir build_config)
  set(args)
  if(build_config)
    set(args --config "${build_config}")
  endif()
  run_step("build ${dir}" "${CMAKE_COMMAND}" --build "${dir}" ${args})
  if(build_config AND EXISTS "${dir}/${build_config}/app${CMAKE_EXECUTABLE_SUFFIX}")
    set(app "${dir}/${build_config}/app${CMAKE_EXECUTABLE_SUFFIX}")
  else()
    set(app "${dir}/app${CMAKE_EXECUTABLE_SUFFIX}")
  endif()
  # OMP_PROC_BIND=false: no Kokkos binding warning, and no binding on a shared test machine.
  run_step("run ${app}" "${CMAKE_COMMAND}" -E env OMP_PROC_BIND=false "${app}")
endfunction()

# -------------------------------------------------------------------------------------------
# 1. The build as it is, a Release consumer, dependencies through the recorded paths
# -------------------------------------------------------------------------------------------
run_step("install SpMVKit into ${prefix}" "${CMAKE_COMMAND}" --install "${SPMVKIT_BINARY_DIR}"
         --prefix "${prefix}" ${config_args})
foreach(file IN ITEMS include/spmvkit/spmvkit.hpp include/spmvkit/version.hpp
                      share/doc/SpMVKit/LICENSE)
  if(NOT EXISTS "${prefix}/${file}")
    fail("${file} was not installed")
  endif()
endforeach()

set(build_release "${WORK_DIR}/consumer-release")
set(release_args -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_release}" "-DCMAKE_PREFIX_PATH=${prefix}"
                 ${common_args})
if(BUILD_CONFIG AND NOT multi_config)
  list(APPEND release_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()
run_captured("1. configure a consumer with build type '${BUILD_CONFIG}'" out ${clean_env}
             "${CMAKE_COMMAND}" ${release_args})
has_phrase("${out}" "${no_build_type_marker}" warned)
if(BUILD_CONFIG AND warned)
  fail("the consumer with build type ${BUILD_CONFIG} was warned about an empty build type")
endif()
expect_under("${build_release}" Kokkos_DIR "${Kokkos_DIR}")
settings_line(expected "${expected_mpi}" ON ON)
expect_phrase("${out}" "${expected}" "1. the settings variables of the installed package")
build_and_run("${build_release}" "${BUILD_CONFIG}")

# 1b. With the distributed module: a consumer asking for the component mpi builds app_mpi and
#     runs it on 2 ranks (MPIEXEC, MPIRUN_FLAGS: how this build runs mpirun; MPI_ENVIRONMENT).
if(WITH_MPI)
  set(build_mpi "${WORK_DIR}/consumer-mpi")
  set(mpi_args ${release_args})
  list(TRANSFORM mpi_args REPLACE "^${build_release}$" "${build_mpi}")
  run_step("1b. configure a consumer of SpMVKit::mpi" ${clean_env} "${CMAKE_COMMAND}" ${mpi_args}
           -DDOWNSTREAM_MPI=ON)
  build_and_run("${build_mpi}" "${BUILD_CONFIG}")
  if(BUILD_CONFIG AND EXISTS "${build_mpi}/${BUILD_CONFIG}/app_mpi${CMAKE_EXECUTABLE_SUFFIX}")
    set(app_mpi "${build_mpi}/${BUILD_CONFIG}/app_mpi${CMAKE_EXECUTABLE_SUFFIX}")
  else()
    set(app_mpi "${build_mpi}/app_mpi${CMAKE_EXECUTABLE_SUFFIX}")
  endif()
  string(REPLACE "|" ";" mpi_flags "${MPIRUN_FLAGS}")
  string(REPLACE "|" ";" mpi_env "${MPI_ENVIRONMENT}")
  run_step("1b. run ${app_mpi} on 2 ranks" "${CMAKE_COMMAND}" -E env ${mpi_env} OMP_NUM_THREADS=1
           "${MPIEXEC}" -n 2 ${mpi_flags} "${app_mpi}")
endif()

# -------------------------------------------------------------------------------------------
# 5. The version file: SameMinorVersion while the major version is 0
# -------------------------------------------------------------------------------------------
file(GLOB_RECURSE version_file "${prefix}/*/SpMVKitConfigVersion.cmake")
if(NOT version_file)
  fail("no SpMVKitConfigVersion.cmake under ${prefix}")
endif()
# version_accepts(<requested version> <output variable>): what find_package(SpMVKit <requested>)
# would decide, from the installed version file.
function(version_accepts requested out_var)
  set(PACKAGE_FIND_VERSION "${requested}")
  string(REPLACE "." ";" parts "${requested}")
  list(LENGTH parts PACKAGE_FIND_VERSION_COUNT)
  list(APPEND parts 0 0 0)
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
  include("${version_file}")
  set(${out_var} "${PACKAGE_VERSION_COMPATIBLE}" PARENT_SCOPE)
endfunction()
string(REPLACE "." ";" version_parts "${SPMVKIT_VERSION}")
list(GET version_parts 0 version_major)
list(GET version_parts 1 version_minor)
math(EXPR next_minor "${version_minor} + 1")
set(version_cases "${version_major}.${version_minor}:TRUE" "${version_major}.${next_minor}:FALSE")
if(version_minor GREATER 0)
  math(EXPR previous_minor "${version_minor} - 1")
  if(version_major EQUAL 0)
    list(APPEND version_cases "${version_major}.${previous_minor}:FALSE")
  else()
    list(APPEND version_cases "${version_major}.${previous_minor}:TRUE")
  endif()
endif()
foreach(case IN LISTS version_cases)
  string(REPLACE ":" ";" case "${case}")
  list(GET case 0 requested)
  list(GET case 1 expected)
  version_accepts("${requested}" accepted)
  if(NOT accepted STREQUAL expected)
    fail("5. find_package(SpMVKit ${requested}) against the installed ${SPMVKIT_VERSION}: "
         "compatible is '${accepted}', expected ${expected}")
  endif()
  message(STATUS "install test: 5. find_package(SpMVKit ${requested}) accepts "
                 "${SPMVKIT_VERSION}: ${accepted}")
endforeach()

# Configure arguments of the consumers below that are built: build type as in step 1.
set(type_args)
if(BUILD_CONFIG AND NOT multi_config)
  list(APPEND type_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()

# -------------------------------------------------------------------------------------------
# 6. SpMVKit::core without zlib
# -------------------------------------------------------------------------------------------
set(build_core "${WORK_DIR}/consumer-core-no-zlib")
run_captured("6a. configure a consumer of SpMVKit::core with zlib hidden" out ${clean_env}
             "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_core}"
             "-DCMAKE_PREFIX_PATH=${prefix}" -DDOWNSTREAM_CORE_ONLY=ON
             -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON --no-warn-unused-cli ${type_args} ${common_args})
settings_line(expected "${expected_mpi}" ON ON)
expect_phrase("${out}" "${expected}" "6a. the settings variables")
downstream_targets("${out}" targets)
if(NOT targets STREQUAL "SpMVKit::core SpMVKit::kokkos_kernels")
  fail("6a. the consumer of COMPONENTS core saw the targets '${targets}', expected "
       "SpMVKit::core SpMVKit::kokkos_kernels")
endif()
build_and_run("${build_core}" "${BUILD_CONFIG}")

set(build_no_zlib "${WORK_DIR}/consumer-default-no-zlib")
message(STATUS "install test: 6b. configure a consumer of the default components with zlib "
               "hidden (must fail, naming COMPONENTS core)")
execute_process(
  COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_no_zlib}"
          "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON ${type_args}
          ${common_args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  fail("6b. a consumer of SpMVKit::spmvkit configured without zlib:\n${out}")
endif()
expect_phrase("${out}" "find_package(SpMVKit COMPONENTS core)" "6b. the failed configure")
expect_phrase("${out}" "need zlib" "6b. the failed configure")
message(STATUS "install test: 6b. it failed as it should, naming zlib and COMPONENTS core")

# -------------------------------------------------------------------------------------------
# 7. The Kokkos check, against a fake Kokkos package
# -------------------------------------------------------------------------------------------
set(fake_kokkos_dir "${WORK_DIR}/fake-kokkos/lib/cmake/Kokkos")
file(
  WRITE "${fake_kokkos_dir}/KokkosConfig.cmake"
  "# A Kokkos package that lacks what SpMVKit needs (install test, step 7).\n"
  "set(Kokkos_VERSION 3.4.01)\n"
  "set(Kokkos_DEVICES CUDA)\n"
  "set(Kokkos_OPTIONS \"\")\n"
  "set(Kokkos_ENABLE_CUDA ON)\n"
  "if(NOT TARGET Kokkos::kokkoscore)\n"
  "  add_library(Kokkos::kokkoscore INTERFACE IMPORTED)\n"
  "  set_target_properties(Kokkos::kokkoscore PROPERTIES INTERFACE_COMPILE_FEATURES cxx_std_14)\n"
  "  add_library(Kokkos::kokkos INTERFACE IMPORTED)\n"
  "  set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_LINK_LIBRARIES Kokkos::kokkoscore)\n"
  "endif()\n")
set(build_fake "${WORK_DIR}/consumer-fake-kokkos")
message(STATUS "install test: 7a. configure a consumer of ${prefix} with a Kokkos built as C++14 "
               "for CUDA only (must fail, naming what is missing)")
execute_process(
  COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_fake}"
          "-DCMAKE_PREFIX_PATH=${prefix}" "-DKokkos_DIR=${fake_kokkos_dir}" ${type_args}
          ${common_args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  fail("7a. a consumer configured with a Kokkos that lacks C++17 and SpMVKit's backends:\n${out}")
endif()
list(GET kokkos_devices 0 first_device)
expect_phrase("${out}" "SpMVKit needs C++17 or newer" "7a. the failed configure")
expect_phrase("${out}" "SpMVKit needs the Kokkos backend(s) ${first_device}"
              "7a. the failed configure")
message(STATUS "install test: 7a. it failed as it should, naming C++17 and ${first_device}")

set(build_fake_self "${WORK_DIR}/spmvkit-fake-kokkos")
message(STATUS "install test: 7b. configure SpMVKit with that Kokkos (must fail, naming what is "
               "missing)")
execute_process(
  COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${SPMVKIT_SOURCE_DIR}" -B "${build_fake_self}"
          "-DKokkos_DIR=${fake_kokkos_dir}" -DSPMVKIT_ENABLE_DOCS=OFF ${type_args} ${common_args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  fail("7b. SpMVKit configured with a Kokkos that lacks C++17 and CUDA_LAMBDA:\n${out}")
endif()
expect_phrase("${out}" "SpMVKit needs C++17 or newer" "7b. the failed configure")
expect_phrase("${out}" "SpMVKit needs the Kokkos option(s) CUDA_LAMBDA" "7b. the failed configure")
message(STATUS "install test: 7b. it failed as it should, naming C++17 and CUDA_LAMBDA")

# -------------------------------------------------------------------------------------------
# 8. and 9. SpMVKit's source tree inside a consumer: FetchContent and add_subdirectory, without
#    Kokkos Kernels, Google Benchmark and GoogleTest
# -------------------------------------------------------------------------------------------
# --no-warn-unused-cli: CMake would warn that nothing looked for GoogleTest and benchmark, which is
# the point.
set(hidden_packages
    -DCMAKE_DISABLE_FIND_PACKAGE_KokkosKernels=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON --no-warn-unused-cli)

set(build_fetch "${WORK_DIR}/consumer-fetchcontent")
run_captured("8. configure a FetchContent consumer of ${SPMVKIT_SOURCE_DIR} without zlib" out
             ${clean_env} "${CMAKE_COMMAND}"
             -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_fetch}" -DDOWNSTREAM_SPMVKIT=fetchcontent
             "-DDOWNSTREAM_SPMVKIT_SOURCE_DIR=${SPMVKIT_SOURCE_DIR}" -DDOWNSTREAM_CORE_ONLY=ON
             "-DKokkos_DIR=${Kokkos_DIR}" ${hidden_packages} -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON
             ${type_args} ${common_args})
settings_line(expected OFF OFF OFF)
expect_phrase("${out}" "${expected}" "8. the settings variables")
downstream_targets("${out}" targets)
if(NOT targets STREQUAL "SpMVKit::core")
  fail("8. the FetchContent consumer saw the targets '${targets}', expected SpMVKit::core alone")
endif()
foreach(dir IN ITEMS unit_tests examples perf_tests fuzz)
  if(EXISTS "${build_fetch}/_deps/spmvkit-build/${dir}")
    fail("8. SpMVKit pulled in by FetchContent configured its ${dir}")
  endif()
endforeach()
build_and_run("${build_fetch}" "${BUILD_CONFIG}")

set(build_subdir "${WORK_DIR}/consumer-subdirectory")
run_captured("9. configure an add_subdirectory consumer of ${SPMVKIT_SOURCE_DIR}" out
             ${clean_env} "${CMAKE_COMMAND}"
             -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_subdir}" -DDOWNSTREAM_SPMVKIT=subdirectory
             "-DDOWNSTREAM_SPMVKIT_SOURCE_DIR=${SPMVKIT_SOURCE_DIR}" "-DKokkos_DIR=${Kokkos_DIR}"
             ${hidden_packages} ${type_args} ${common_args})
# SPMVKIT_ENABLE_MPI defaults to whether this machine has an MPI: not checked here.
settings_line(expected "" ON OFF)
string(REGEX REPLACE "^.*SpMVKit_ENABLE_MPI= " "" expected "${expected}")
expect_phrase("${out}" "${expected}" "9. the settings variables")
downstream_targets("${out}" targets)
if(NOT targets MATCHES "^SpMVKit::core SpMVKit::io SpMVKit::spmvkit( SpMVKit::mpi)?$")
  fail("9. the add_subdirectory consumer saw the targets '${targets}', expected SpMVKit::core, "
       "SpMVKit::io, SpMVKit::spmvkit (and SpMVKit::mpi with an MPI), no SpMVKit::kokkos_kernels")
endif()
foreach(dir IN ITEMS unit_tests examples perf_tests fuzz)
  if(EXISTS "${build_subdir}/spmvkit/${dir}")
    fail("9. SpMVKit pulled in by add_subdirectory configured its ${dir}")
  endif()
endforeach()
build_and_run("${build_subdir}" "${BUILD_CONFIG}")

# -------------------------------------------------------------------------------------------
# 2. and 3. Moved dependency prefixes
# -------------------------------------------------------------------------------------------
# prefix_of(<package dir> <output variable>): the install prefix that holds a package's
# <prefix>/{lib,lib64,share}[/<arch>]/cmake/<Package> directory; empty when there is none.
function(prefix_of package_dir out_var)
  set(dir "${package_dir}")
  set(found "")
  foreach(level RANGE 4)
    get_filename_component(name "${dir}" NAME)
    get_filename_component(parent "${dir}" DIRECTORY)
    if(name MATCHES "^(lib|lib32|lib64|libx32|share)$")
      set(found "${parent}")
      break()
    endif()
    set(dir "${parent}")
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

get_filename_component(kokkos_dir "${Kokkos_DIR}" REALPATH)
get_filename_component(kk_dir "${KokkosKernels_DIR}" REALPATH)
prefix_of("${kokkos_dir}" kokkos_prefix)
prefix_of("${kk_dir}" kk_prefix)
set(skip_reason "")
foreach(p IN ITEMS "${kokkos_prefix}" "${kk_prefix}")
  if(p STREQUAL "")
    set(skip_reason "no install prefix found above ${Kokkos_DIR} / ${KokkosKernels_DIR}")
  elseif(p MATCHES "^(/|/usr|/usr/local|/opt/homebrew|/opt/local)$")
    set(skip_reason "Kokkos or Kokkos Kernels is in the system prefix ${p}")
  endif()
endforeach()
if(skip_reason)
  message(STATUS "install test: moved-prefix consumers (2 to 4) SKIPPED: ${skip_reason}")
  message(STATUS "install test: passed (steps 1 and 5 to 9)")
  return()
endif()

# Copies of the dependency prefixes (one when Kokkos and Kokkos Kernels share it).
set(deps_copy "${WORK_DIR}/deps")
set(deps_moved "${WORK_DIR}/deps-moved")
file(RELATIVE_PATH kokkos_rel "${kokkos_prefix}" "${kokkos_dir}")
file(RELATIVE_PATH kk_rel "${kk_prefix}" "${kk_dir}")
if(kokkos_prefix STREQUAL kk_prefix)
  set(kokkos_sub "kokkos")
  set(kk_sub "kokkos")
  set(copies kokkos)
else()
  set(kokkos_sub "kokkos")
  set(kk_sub "kokkos-kernels")
  set(copies kokkos kokkos-kernels)
endif()
message(STATUS "install test: copying ${kokkos_prefix} into ${deps_copy}/${kokkos_sub}")
file(COPY "${kokkos_prefix}/" DESTINATION "${deps_copy}/${kokkos_sub}")
if(NOT kk_sub STREQUAL kokkos_sub)
  message(STATUS "install test: copying ${kk_prefix} into ${deps_copy}/${kk_sub}")
  file(COPY "${kk_prefix}/" DESTINATION "${deps_copy}/${kk_sub}")
endif()

# SpMVKit's library alone, built against the copy and installed into prefix-moved.
set(spmvkit_build "${WORK_DIR}/spmvkit-on-copy")
set(prefix_moved "${WORK_DIR}/prefix-moved")
set(spmvkit_args
    -S "${SPMVKIT_SOURCE_DIR}" -B "${spmvkit_build}" ${common_args}
    "-DKokkos_DIR=${deps_copy}/${kokkos_sub}/${kokkos_rel}"
    "-DKokkosKernels_DIR=${deps_copy}/${kk_sub}/${kk_rel}" -DSPMVKIT_ENABLE_TESTS=OFF
    -DSPMVKIT_ENABLE_EXAMPLES=OFF -DSPMVKIT_ENABLE_BENCHMARKS=OFF -DSPMVKIT_ENABLE_DOCS=OFF)
if(BUILD_CONFIG AND NOT multi_config)
  list(APPEND spmvkit_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()
run_step("configure SpMVKit against the copy ${deps_copy}" ${clean_env} "${CMAKE_COMMAND}"
         ${spmvkit_args})
run_step("build SpMVKit against the copy" "${CMAKE_COMMAND}" --build "${spmvkit_build}"
         ${config_args})
run_step("install it into ${prefix_moved}" "${CMAKE_COMMAND}" --install "${spmvkit_build}"
         --prefix "${prefix_moved}" ${config_args})
file(GLOB_RECURSE installed_config_file "${prefix_moved}/*/SpMVKitConfig.cmake")
if(NOT installed_config_file)
  fail("no SpMVKitConfig.cmake under ${prefix_moved}")
endif()
file(READ "${installed_config_file}" installed_config)
string(FIND "${installed_config}" "${deps_copy}/${kokkos_sub}/${kokkos_rel}" at)
if(at EQUAL -1)
  fail("the installed SpMVKitConfig.cmake does not record the copy ${deps_copy}; the moved-prefix "
       "check would prove nothing")
endif()

# Move the copy: the recorded paths are gone.
file(RENAME "${deps_copy}" "${deps_moved}")
if(EXISTS "${deps_copy}/${kokkos_sub}/${kokkos_rel}")
  fail("${deps_copy} still exists after the move")
endif()

# 2. CMAKE_PREFIX_PATH points at the moved copy; no build type.
set(moved_prefixes "${prefix_moved}")
foreach(sub IN LISTS copies)
  list(APPEND moved_prefixes "${deps_moved}/${sub}")
endforeach()
set(build_moved "${WORK_DIR}/consumer-moved-no-build-type")
# execute_process directly: CMAKE_PREFIX_PATH may be a list, which a function's ARGN would split.
message(STATUS "install test: 2. configure a consumer with no build type and "
               "CMAKE_PREFIX_PATH=${moved_prefixes}")
execute_process(
  COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_moved}"
          "-DCMAKE_PREFIX_PATH=${moved_prefixes}" -DCMAKE_BUILD_TYPE= ${common_args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT result EQUAL 0)
  fail("configuring the consumer against the moved prefix failed (${result})")
endif()
has_phrase("${out}" "${no_build_type_marker}" has_marker)
has_phrase("${out}" "${no_build_type_phrase}" has_slower)
has_phrase("${out}" "${no_build_type_remedy}" has_remedy)
if(multi_config)
  message(STATUS "install test: multi-config generator, no build-type warning expected")
elseif(NOT has_marker OR NOT has_slower OR NOT has_remedy)
  fail("the consumer with no build type was not warned ('${no_build_type_marker}', "
       "'${no_build_type_phrase}' and '${no_build_type_remedy}' expected in its configure output)")
else()
  message(STATUS "install test: the no-build-type warning was shown")
endif()
expect_under("${build_moved}" Kokkos_DIR "${deps_moved}/${kokkos_sub}")
expect_under("${build_moved}" KokkosKernels_DIR "${deps_moved}/${kk_sub}")
build_and_run("${build_moved}" "")

# 3. Precedence: the install of step 1, whose recorded Kokkos still exists, with the user pointing
# elsewhere (the moved copy), through Kokkos_ROOT / KokkosKernels_ROOT (3a) and through
# CMAKE_PREFIX_PATH (3b): the user's Kokkos must win (configure only).
set(build_root "${WORK_DIR}/consumer-kokkos-root")
set(root_args -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_root}" "-DCMAKE_PREFIX_PATH=${prefix}"
              "-DKokkos_ROOT=${deps_moved}/${kokkos_sub}"
              "-DKokkosKernels_ROOT=${deps_moved}/${kk_sub}" ${common_args})
if(BUILD_CONFIG AND NOT multi_config)
  list(APPEND root_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()
run_step("3a. configure a consumer of ${prefix} with Kokkos_ROOT=${deps_moved}/${kokkos_sub}"
         ${clean_env} "${CMAKE_COMMAND}" ${root_args})
expect_under("${build_root}" Kokkos_DIR "${deps_moved}/${kokkos_sub}")
expect_under("${build_root}" KokkosKernels_DIR "${deps_moved}/${kk_sub}")

set(build_path "${WORK_DIR}/consumer-prefix-path")
set(path_prefixes "${prefix}")
foreach(sub IN LISTS copies)
  list(APPEND path_prefixes "${deps_moved}/${sub}")
endforeach()
set(path_args)
if(BUILD_CONFIG AND NOT multi_config)
  list(APPEND path_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()
message(STATUS "install test: 3b. configure a consumer with CMAKE_PREFIX_PATH=${path_prefixes}")
execute_process(
  COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_path}"
          "-DCMAKE_PREFIX_PATH=${path_prefixes}" ${path_args} ${common_args}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  fail("configuring the consumer with CMAKE_PREFIX_PATH=${path_prefixes} failed (${result})")
endif()
expect_under("${build_path}" Kokkos_DIR "${deps_moved}/${kokkos_sub}")
expect_under("${build_path}" KokkosKernels_DIR "${deps_moved}/${kk_sub}")

# 4. The recorded Kokkos gone and nothing given instead: the configure must fail, saying how to
# point at Kokkos (configure only).
set(build_lost "${WORK_DIR}/consumer-lost-kokkos")
set(lost_args)
if(BUILD_CONFIG AND NOT multi_config)
  list(APPEND lost_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()
message(STATUS "install test: 4. configure a consumer of ${prefix_moved} with no Kokkos given "
               "(must fail and say how to point at one)")
execute_process(
  COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE_DIR}" -B "${build_lost}"
          "-DCMAKE_PREFIX_PATH=${prefix_moved}" ${lost_args} ${common_args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
has_phrase("${out}" "-DKokkos_ROOT=" names_root)
if(result EQUAL 0)
  fail("a consumer of ${prefix_moved} configured although the Kokkos SpMVKit was built with "
       "is gone; it found Kokkos elsewhere?\n${out}")
elseif(NOT names_root)
  fail("the failed configure does not say how to point at Kokkos:\n${out}")
endif()
message(STATUS "install test: it failed as it should, naming -DKokkos_ROOT")

message(STATUS "install test: passed (steps 1 to 9)")
