# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reading spmvkit_perf's Google Benchmark JSON and turning it into charts and markdown tables.

Modules: results (loading, labels, the old JSON without labels), style (colours and line styles
per format family), charts (matplotlib figures), tables (markdown). scripts/plot_perf.py is the
command line. Nothing here names a format of the library: family and options come from each
benchmark's label, the order of the formats from the order the benchmarks ran in.
"""
