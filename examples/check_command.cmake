# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs a command and checks its exit status and output, for the examples' ctest entries:
#
#   cmake -DEXPECT_STATUS=<n> [-DEXPECT_OUTPUT=<regex>] [-DONE_LINE_ERROR=ON]
#         [-DEXPECT_FILE=<path>] -P check_command.cmake -- <command> [<argument>...]
#
# EXPECT_OUTPUT: a regular expression that stdout + stderr must match.
# ONE_LINE_ERROR: stdout must be empty and stderr exactly one line (the examples' usage errors).
# EXPECT_FILE: a file the command must have written (removed first).
# cmake itself takes -N as its own option wherever it appears, so no argument may be -N.
set(command)
set(after_separator OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_separator ON)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "check_command.cmake: no command after --")
endif()
if(DEFINED EXPECT_FILE)
  file(REMOVE "${EXPECT_FILE}")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE ";" " " shown "${command}")
set(log "command: ${shown}\nstatus: ${status}\n--- stdout:\n${out}--- stderr:\n${err}---")

if(NOT "${status}" STREQUAL "${EXPECT_STATUS}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_STATUS}\n${log}")
endif()
string(REGEX REPLACE "\n$" "" combined "${out}${err}") # so that a pattern can end in $
if(DEFINED EXPECT_OUTPUT AND NOT "${combined}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "the output does not match '${EXPECT_OUTPUT}'\n${log}")
endif()
if(ONE_LINE_ERROR)
  string(REGEX REPLACE "\n$" "" err_body "${err}")
  if(NOT "${out}" STREQUAL "" OR "${err_body}" STREQUAL "" OR "${err_body}" MATCHES "\n")
    message(FATAL_ERROR "expected no stdout and exactly one line on stderr\n${log}")
  endif()
endif()
if(DEFINED EXPECT_FILE AND NOT EXISTS "${EXPECT_FILE}")
  message(FATAL_ERROR "the command did not write ${EXPECT_FILE}\n${log}")
endif()
message(STATUS "${log}")
