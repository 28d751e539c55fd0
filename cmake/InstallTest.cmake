# Install test, run by ctest as `cmake -D... -P InstallTest.cmake`:
#  1. installs the SpMVKit build in SPMVKIT_BINARY_DIR into WORK_DIR/prefix,
#  2. configures and builds DOWNSTREAM_SOURCE_DIR against it (find_package(SpMVKit)) with the
#     same compiler, C++ standard, Kokkos and Kokkos Kernels as the SpMVKit build,
#  3. runs the downstream program, which checks its own result.
# Any failing step fails the test.
cmake_minimum_required(VERSION 3.16...3.25)

foreach(var SPMVKIT_BINARY_DIR DOWNSTREAM_SOURCE_DIR WORK_DIR CXX_COMPILER Kokkos_DIR
            KokkosKernels_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "InstallTest.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(downstream_build "${WORK_DIR}/downstream-build")
file(REMOVE_RECURSE "${prefix}" "${downstream_build}")

function(run_step what)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "install test: ${what} failed (${result})")
  endif()
endfunction()

set(config_args)
if(BUILD_CONFIG)
  set(config_args --config "${BUILD_CONFIG}")
endif()

run_step("install SpMVKit into ${prefix}" "${CMAKE_COMMAND}" --install "${SPMVKIT_BINARY_DIR}"
         --prefix "${prefix}" ${config_args})

foreach(file IN ITEMS include/spmvkit/spmvkit.hpp include/spmvkit/version.hpp)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "install test: ${file} was not installed")
  endif()
endforeach()

set(configure_args
    -S "${DOWNSTREAM_SOURCE_DIR}" -B "${downstream_build}" "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DKokkos_DIR=${Kokkos_DIR}"
    "-DKokkosKernels_DIR=${KokkosKernels_DIR}")
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(BUILD_CONFIG)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${BUILD_CONFIG}")
endif()
if(NOT "${CXX_STANDARD}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_CXX_STANDARD=${CXX_STANDARD}")
endif()
if(NOT "${CXX_EXTENSIONS}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_CXX_EXTENSIONS=${CXX_EXTENSIONS}")
endif()

run_step("configure ${DOWNSTREAM_SOURCE_DIR}" "${CMAKE_COMMAND}" ${configure_args})
run_step("build the downstream project" "${CMAKE_COMMAND}" --build "${downstream_build}"
         ${config_args})

if(BUILD_CONFIG AND EXISTS "${downstream_build}/${BUILD_CONFIG}/app${CMAKE_EXECUTABLE_SUFFIX}")
  set(app "${downstream_build}/${BUILD_CONFIG}/app${CMAKE_EXECUTABLE_SUFFIX}")
else()
  set(app "${downstream_build}/app${CMAKE_EXECUTABLE_SUFFIX}")
endif()
run_step("run ${app}" "${app}")
message(STATUS "install test: passed")
