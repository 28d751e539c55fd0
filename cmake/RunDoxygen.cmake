# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs Doxygen for the `docs` target (cmake/SpMVKitDocs.cmake) as
#   cmake -DDOXYGEN_EXECUTABLE=... -DDOXYFILE=... -DHTML_DIR=... -DWARN_LOG=... -P RunDoxygen.cmake
# The Doxyfile writes its warnings to WARN_LOG. Any warning, or a failing doxygen, fails this
# script: the warnings are printed with their count. The HTML of an earlier run is removed first,
# so what html/ holds is always this run's output (written even when there are warnings).
cmake_minimum_required(VERSION 3.16...3.25)

foreach(var DOXYGEN_EXECUTABLE DOXYFILE HTML_DIR WARN_LOG)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "RunDoxygen.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${HTML_DIR}")
file(REMOVE "${WARN_LOG}")
execute_process(COMMAND "${DOXYGEN_EXECUTABLE}" "${DOXYFILE}" RESULT_VARIABLE result)

set(warnings "")
if(EXISTS "${WARN_LOG}")
  file(READ "${WARN_LOG}" warnings)
  string(STRIP "${warnings}" warnings)
endif()
if(NOT warnings STREQUAL "")
  string(REGEX MATCHALL "(^|\n)[^\n]*: (warning|error): " hits "${warnings}")
  list(LENGTH hits count)
  message("${warnings}")
  message(FATAL_ERROR "docs: Doxygen reported ${count} warning(s); each is an error "
                      "(document the public API; list in ${WARN_LOG})")
endif()
if(NOT result EQUAL 0)
  message(FATAL_ERROR "docs: ${DOXYGEN_EXECUTABLE} failed (${result})")
endif()
message(STATUS "docs: no warnings; ${HTML_DIR}/index.html")
