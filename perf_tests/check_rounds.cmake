# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ctest perf_rounds_smoke: spmvkit_perf --rounds on the smoke matrices. Every spmv benchmark that
# ran must report its R rounds once each (the JSON holds aggregates only: the `round` counter's
# mean must be (R - 1) / 2 and its standard deviation that of 0..R-1), a positive median time and
# at least one call a round; a benchmark may be skipped (ELL on R-MAT) but not fail.
# cmake -DPERF=<spmvkit_perf> -DJSON=<out.json> -P check_rounds.cmake
if(NOT PERF OR NOT JSON)
  message(FATAL_ERROR "check_rounds.cmake: -DPERF=<spmvkit_perf> and -DJSON=<file> are required")
endif()
set(rounds 3)
set(formats crs_vector,sell_c8_s1,ell,auto,kk_native)
execute_process(
  COMMAND "${PERF}" --smoke --families=spmv --precision=double "--formats=${formats}"
          --rounds=${rounds} --min-time=0.001 "--benchmark_out=${JSON}" --benchmark_out_format=json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spmvkit_perf --rounds=${rounds}: exit status ${rc}\n${err}")
endif()

file(READ "${JSON}" json)
# Google Benchmark writes NaN and inf (coefficients of variation of zeros), which JSON has not.
string(REGEX REPLACE ": -?(NaN|nan|inf|Infinity)" ": null" json "${json}")
string(JSON count LENGTH "${json}" benchmarks)
math(EXPR last "${count} - 1")
set(means 0)
set(medians 0)
foreach(i RANGE ${last})
  string(JSON row GET "${json}" benchmarks ${i})
  string(JSON name GET "${row}" name)
  string(JSON error ERROR_VARIABLE no_error GET "${row}" error_occurred)
  if(error STREQUAL "ON" OR error STREQUAL "true")
    string(JSON message GET "${row}" error_message)
    if(NOT message MATCHES "skipped")
      message(FATAL_ERROR "${name} failed: ${message}")
    endif()
    continue()
  endif()
  string(JSON aggregate ERROR_VARIABLE not_aggregate GET "${row}" aggregate_name)
  string(JSON repetitions GET "${row}" repetitions)
  if(NOT repetitions EQUAL rounds)
    message(FATAL_ERROR "${name}: ${repetitions} repetitions, expected ${rounds}")
  endif()
  string(JSON round GET "${row}" round)
  if(aggregate STREQUAL "mean")
    # rounds = 3: each of 0, 1, 2 once gives a mean of 1 and a standard deviation of 1.
    if(round LESS 0.999999 OR round GREATER 1.000001)
      message(FATAL_ERROR "${name}: the rounds' mean index is ${round}, expected 1")
    endif()
    math(EXPR means "${means} + 1")
  elseif(aggregate STREQUAL "stddev")
    if(round LESS 0.999999 OR round GREATER 1.000001)
      message(FATAL_ERROR "${name}: the rounds' index deviation is ${round}, expected 1")
    endif()
  elseif(aggregate STREQUAL "median")
    string(JSON time GET "${row}" time_s)
    string(JSON calls GET "${row}" round_calls)
    if(NOT time GREATER 0 OR calls LESS 1)
      message(FATAL_ERROR "${name}: time_s ${time}, round_calls ${calls}")
    endif()
    # Each benchmark reports its own implementation's rounds.
    string(REGEX MATCH "^spmv/double/[^/]+/([^/]+)/" matched "${name}")
    string(JSON label GET "${row}" label)
    if(NOT label MATCHES "(^|;)format=${CMAKE_MATCH_1}(;|$)")
      message(FATAL_ERROR "${name}: label '${label}' names another format")
    endif()
    math(EXPR medians "${medians} + 1")
  endif()
endforeach()
# The smoke matrices (FEM N = 8, elasticity N = 3, 1138_bus, R-MAT 10) times the five formats,
# less ELL on R-MAT (skipped: too much padding).
if(NOT medians EQUAL 19 OR NOT means EQUAL medians)
  message(FATAL_ERROR "${medians} median and ${means} mean rows: expected 19 of each")
endif()
message(STATUS "ok: ${medians} benchmarks, ${rounds} rounds each")
