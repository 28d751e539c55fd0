#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Score a fitted cost table on spmvkit_perf runs, without rebuilding: for every matrix and
precision of the runs, the choice the table would make (the variant of lowest predicted seconds,
from the run's own cost terms, model_bytes, model_critical and the row terms, of each measured
variant the table has a row for) is scored with that variant's measured median time, against the
oracle (the fastest of those variants in the same run) and against Kokkos Kernels native
(kk_native).

    python3 scripts/score_format_model.py include/spmvkit/select/detail/fitted_costs.hpp \\
        fitted_host_costs_t16_intel t16_double.json t16_float.json --holdout cage10,ct2010 [-v]

The companion of scripts/fit_format_model.py: fit a table on one run (--out a copy of the
header), score it on another (docs/notes/2026-12-07-host-sell-ell-static-blocks.md). The
binary's own `auto` rows are scored by scripts/perf/selection.py instead.
"""

import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf import results as perf_results  # noqa: E402

NUMBER = r',\s*([-0-9.e+]+)'
ROW = re.compile(r'\{"([^"]+)"' + 3 * NUMBER + 3 * f'(?:{NUMBER})?' + r'\}')


def read_table(path, name):
    """{variant: [launch, per byte, per critical entry, per byte and critical entry, per row,
    per row spread]} (KernelCost's members; those a row leaves out are 0)."""
    with open(path) as f:
        text = f.read()
    start = text.find(f"{name}[]")
    if start < 0:
        sys.exit(f"score_format_model: {path} has no table {name}")
    end = text.find("{nullptr", start)
    table = {}
    for m in ROW.finditer(text[start:end]):
        table[m.group(1)] = [float(m.group(i)) if m.group(i) else 0.0 for i in range(2, 8)]
    if not table:
        sys.exit(f"score_format_model: table {name} of {path} has no rows")
    return table


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def score(table, paths, holdout, verbose=False):
    _, rows, _ = perf_results.load(paths)
    by_case = {}
    for r in rows:
        if r.bench == "spmv":
            by_case.setdefault((r.precision, r.matrix), {}).setdefault(r.format, []).append(r)
    parts = {"all": [], "seen": [], "held out": []}
    against_kk, below = [], []
    for (precision, matrix), formats in sorted(by_case.items()):
        # Several runs: the median of the runs' medians.
        times = {f: sorted(r.get("time_s") for r in rs)[len(rs) // 2] for f, rs in formats.items()}
        candidates = [f for f in times if f in table and "model_bytes" in formats[f][0].row]
        if not candidates:
            continue

        def predicted(f):
            r, c = formats[f][0], table[f]
            b, w = r.get("model_bytes"), r.get("model_critical")
            rows, spread = perf_results.model_row_terms(r)
            return c[0] + c[1] * b + c[2] * w + c[3] * b * w + c[4] * rows + c[5] * spread

        chosen = min(candidates, key=predicted)
        oracle = min(candidates, key=lambda f: times[f])
        ratio = times[oracle] / times[chosen]
        held = matrix in holdout
        parts["all"].append(ratio)
        parts["held out" if held else "seen"].append(ratio)
        kk = times["kk_native"] / times[chosen] if "kk_native" in times else float("nan")
        if not math.isnan(kk):
            against_kk.append(kk)
            if kk < 1.0:
                below.append(f"{precision} {matrix} {kk:.2f}")
        if verbose:
            print(f"{precision:6s} {matrix:24s} {chosen:22s} {oracle:22s} {ratio:5.2f} "
                  f"kk {kk:5.2f}{' (held out)' if held else ''}")
    print("of the oracle: " + ", ".join(f"{k} {geomean(v):.3f} ({len(v)})" for k, v in parts.items())
          + f"; vs Kokkos Kernels native {geomean(against_kk):.3f}x; below 1.0x: {len(below)}"
          + (f" ({'; '.join(below)})" if below else ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("header", help="a fitted_costs.hpp (the repository's or a refit's --out)")
    ap.add_argument("table", help="table name, e.g. fitted_host_costs_t16_intel or fitted_gpu_costs")
    ap.add_argument("json", nargs="+", help="spmvkit_perf JSON runs to score on")
    ap.add_argument("--holdout", default="", help="matrices left out of the table's fit")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per matrix")
    a = ap.parse_args(argv)
    holdout = {m for m in a.holdout.split(",") if m}
    score(read_table(a.header, a.table), a.json, holdout, a.verbose)


if __name__ == "__main__":
    main()
