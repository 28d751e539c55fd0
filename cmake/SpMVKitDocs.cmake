# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The API reference: target `docs` (not part of `all`) runs Doxygen over the public headers with
# docs/Doxyfile.in and writes <build>/docs/html. Every Doxygen warning fails the target; the
# warnings are printed and kept in <build>/docs/doxygen_warnings.log.
#
# Option SPMVKIT_ENABLE_DOCS: ON by default when doxygen is found (Debian: `doxygen`; no
# graphviz needed) and SpMVKit is the top-level project (a parent project may have a `docs` target
# of its own). Set ON explicitly, a missing doxygen is a configure error.
# Needs SPMVKIT_GENERATED_INCLUDE_DIR (the generated spmvkit/version.hpp), SPMVKIT_GIT_HASH and
# _spmvkit_top_level.

set(_spmvkit_docs_default OFF)
if(_spmvkit_top_level)
  find_package(Doxygen QUIET COMPONENTS doxygen)
  set(_spmvkit_docs_default ${DOXYGEN_FOUND})
endif()
option(SPMVKIT_ENABLE_DOCS "Target 'docs': the API reference with Doxygen (warnings are errors)"
       ${_spmvkit_docs_default})
if(SPMVKIT_ENABLE_DOCS AND NOT DOXYGEN_FOUND)
  find_package(Doxygen QUIET COMPONENTS doxygen)
endif()

if(SPMVKIT_ENABLE_DOCS)
  if(NOT DOXYGEN_FOUND)
    message(FATAL_ERROR "SPMVKIT_ENABLE_DOCS is ON but doxygen was not found: install it "
                        "(Debian: apt-get install doxygen, or scripts/setup_deps.sh --docs) or "
                        "configure with -DSPMVKIT_ENABLE_DOCS=OFF")
  endif()
  set(SPMVKIT_DOCS_DIR "${PROJECT_BINARY_DIR}/docs")
  set(SPMVKIT_DOCS_WARN_LOG "${SPMVKIT_DOCS_DIR}/doxygen_warnings.log")
  configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${SPMVKIT_DOCS_DIR}/Doxyfile" @ONLY)
  add_custom_target(
    docs
    COMMAND
      "${CMAKE_COMMAND}" "-DDOXYGEN_EXECUTABLE=${DOXYGEN_EXECUTABLE}"
      "-DDOXYFILE=${SPMVKIT_DOCS_DIR}/Doxyfile" "-DHTML_DIR=${SPMVKIT_DOCS_DIR}/html"
      "-DWARN_LOG=${SPMVKIT_DOCS_WARN_LOG}" -P "${PROJECT_SOURCE_DIR}/cmake/RunDoxygen.cmake"
    WORKING_DIRECTORY "${SPMVKIT_DOCS_DIR}"
    COMMENT "API reference (Doxygen ${DOXYGEN_VERSION}) in ${SPMVKIT_DOCS_DIR}/html"
    VERBATIM)
  message(STATUS "SpMVKit: target 'docs' (Doxygen ${DOXYGEN_VERSION}) writes "
                 "${SPMVKIT_DOCS_DIR}/html")
endif()
