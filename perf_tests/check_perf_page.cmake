# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# perf_page_smoke: scripts/perf_page.py compact, then page, on the smoke run's JSON; the page must
# have the summary of every class the smoke run covers (FEM, small, power-law) and its charts.
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" compact --platform smoke --title "smoke run"
                        "${JSON}" --out "${OUT}/smoke.csv"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "perf_page.py compact: status ${status}\n${out}\n${err}")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" page "${OUT}/smoke.csv" --out "${OUT}/performance.md"
                        --charts "${OUT}/charts"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "perf_page.py page: status ${status}\n${out}\n${err}")
endif()
file(READ "${OUT}/performance.md" page)
foreach(phrase "### smoke run" "| FEM (generated) |" "| small (in cache) |" "| power-law |"
               "## CG" "## SpGEMM" "![summary](charts/summary.png)")
  string(FIND "${page}" "${phrase}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "perf_page.py: the page lacks '${phrase}':\n${page}")
  endif()
endforeach()
foreach(chart summary fem powerlaw)
  if(NOT EXISTS "${OUT}/charts/${chart}.png")
    message(FATAL_ERROR "perf_page.py: no chart ${chart}.png")
  endif()
endforeach()
# A malformed call is an error that names what is wrong.
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" page "${OUT}/missing.csv" --out "${OUT}/x.md"
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(status EQUAL 0 OR NOT err MATCHES "no file")
  message(FATAL_ERROR "perf_page.py page with a missing CSV: status ${status}, '${err}'")
endif()
