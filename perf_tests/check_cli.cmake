# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ctest perf_cli: spmvkit_perf's command line. Each bad line must exit with status 2 and a
# one-line message naming the option; --help must list the option table and exit 0.
# cmake -DPERF=<spmvkit_perf> -P check_cli.cmake
if(NOT PERF)
  message(FATAL_ERROR "check_cli.cmake: -DPERF=<spmvkit_perf> is required")
endif()

set(failures 0)
function(expect status pattern)
  execute_process(COMMAND "${PERF}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc STREQUAL "${status}")
    message(SEND_ERROR "spmvkit_perf ${ARGN}: exit status ${rc}, expected ${status}\n${err}")
  elseif(NOT "${out}${err}" MATCHES "${pattern}")
    message(SEND_ERROR "spmvkit_perf ${ARGN}: output does not match '${pattern}':\n${out}${err}")
  else()
    message(STATUS "ok: spmvkit_perf ${ARGN}")
  endif()
endfunction()

expect(2 "--repetitions: 'abc' is not an integer" --repetitions=abc)
expect(2 "--repetitions: 0 is out of range \\[1, 1000\\]" --repetitions=0)
expect(2 "--fem-n: '8x' is not an integer" --fem-n=16,8x)
expect(2 "--min-time: 'fast' is not a number" --min-time=fast)
expect(2 "--warmup: needs a value" --warmup)
expect(2 "--rounds: -1 is out of range \\[0, 100000\\]" --rounds=-1)
expect(2 "--rounds: not with --benchmark_enable_random_interleaving" --rounds=3
       --benchmark_enable_random_interleaving=true)
expect(2 "--smoke: takes no value" --smoke=yes)
expect(2 "--precision: unknown 'half'" --precision=half)
expect(2 "unknown option '--no-such-option=1'" --no-such-option=1)
expect(2 "unexpected argument 'stray'" stray)
expect(2 "--sell-c: no longer exists" --sell-c=4)
expect(2 "--formats: 'nothing' selects nothing" --formats=nothing)
expect(2 "--transfer-formats: 'nothing' selects nothing" --transfer-formats=nothing)
expect(2 "--solve-fem-n: 'big' is not an integer" --solve-fem-n=big)
expect(2 "--solve-cd-n: 1 is out of range \\[2, 1290\\]" --solve-cd-n=1)
expect(2 "--solve-peclet: -1 is out of range" --solve-peclet=-1)
expect(2 "--solve-methods: unknown 'gmres/chebyshev'" --solve-methods=gmres/chebyshev)
expect(2 "--solve-impls: unknown 'trilinos'" --solve-impls=trilinos)
expect(2 "--solve-block-size: 33 is out of range \\[1, 32\\]" --solve-block-size=33)
expect(2 "--solve-chebyshev-degree: 0 is out of range \\[1, 16\\]" --solve-chebyshev-degree=0)
expect(2 "--solve-chebyshev-ratio: 1 is out of range" --solve-chebyshev-ratio=1)
expect(2 "--solve-ilu-solve: unknown 'exact'" --solve-ilu-solve=exact)
expect(2 "--solve-workspace: unknown 'reuse'" --solve-workspace=reuse)
expect(2 "--families: unknown 'solver'" --families=solver)
expect(0 "--transfer-formats=LIST.*--formats of this build.*benchmark_filter" --help)
