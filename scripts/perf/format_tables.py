# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Markdown tables of one spmvkit_perf run for docs/performance.md: the R-MAT sweep (every
format's best variant beside Kokkos Kernels, time and speed-up) and the per-format table over the
real and FEM matrices, regular and irregular split by the CSR-k paper's rule (row-length variance
above 10 is irregular).

    /usr/bin/python3 -m scripts.perf.format_tables run.json [more.json] [--out tables.md]
"""

import argparse
import math
import sys
from collections import defaultdict

from . import results as perf_results

IRREGULAR_VARIANCE = 10.0


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def family_key(r):
    """Column of a row: CRS kernels each on their own, other families by their best variant."""
    if r.is_reference or r.family in ("crs", "auto"):
        return r.format
    return r.family


def best_by_column(group):
    best = {}
    for r in group:
        k = family_key(r)
        if k not in best or r.get("time_s") < best[k].get("time_s"):
            best[k] = r
    return best


def fmt_time(t):
    if not math.isfinite(t):
        return "-"
    return f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"


def rmat_table(rows, precision):
    group = defaultdict(list)
    for r in rows:
        if r.bench == "spmv" and r.kind == "rmat" and r.precision == precision:
            group[r.matrix].append(r)
    if not group:
        return ""
    mats = sorted(group, key=lambda m: int(m.split("_s")[1].split("_")[0]))
    cols = []
    for m in mats:
        for k in best_by_column(group[m]):
            if k not in cols:
                cols.append(k)
    cols.sort(key=lambda k: (k.startswith(("kk", "cusparse")), k))
    out = ["| matrix | nnz | " + " | ".join(cols) + " | best SpMVKit / KK default | "
           "best / KK native |", "|---|---:|" + "---:|" * (len(cols) + 2)]
    for m in mats:
        best = best_by_column(group[m])
        ours = [r for k, r in best.items() if not r.is_reference]
        top = min(ours, key=lambda r: r.get("time_s"))
        kd = best.get("kk_default")
        kn = best.get("kk_native")
        cells = [fmt_time(best[k].get("time_s")) if k in best else "-" for k in cols]
        out.append(f"| {m} | {int(top.get('nnz'))} | " + " | ".join(cells) +
                   f" | {kd.get('time_s') / top.get('time_s'):.2f} ({top.format}) | "
                   f"{kn.get('time_s') / top.get('time_s'):.2f} |")
    return "\n".join(out) + "\n"


def format_table(rows, precision, kinds=("real", "fem")):
    group = defaultdict(list)
    for r in rows:
        if r.bench == "spmv" and r.kind in kinds and r.precision == precision:
            group[r.matrix].append(r)
    if not group:
        return ""
    mats = sorted(group, key=perf_results.matrix_key)
    cols = []
    for m in mats:
        for k in best_by_column(group[m]):
            if k not in cols and not k.startswith(("kk", "cusparse")):
                cols.append(k)
    out = ["Speed-up over KK default (cuSPARSE on CUDA) of each format's best variant; "
           "the last columns: KK native over KK default, and the best SpMVKit time.", "",
           "| matrix | var | class | " + " | ".join(cols) + " | KK native | best SpMVKit |",
           "|---|---:|---|" + "---:|" * (len(cols) + 2)]
    per_class = defaultdict(lambda: defaultdict(list))
    for m in mats:
        best = best_by_column(group[m])
        kd = best["kk_default"].get("time_s")
        var = next(iter(group[m])).get("f_row_variance", float("nan"))
        cls = "irregular" if var > IRREGULAR_VARIANCE else "regular"
        cells = []
        for k in cols:
            if k in best:
                s = kd / best[k].get("time_s")
                per_class[cls][k].append(s)
                cells.append(f"{s:.2f}")
            else:
                cells.append("-")
        ours = [r for k, r in best.items() if not r.is_reference]
        top = min(ours, key=lambda r: r.get("time_s"))
        per_class[cls]["KK native"].append(kd / best["kk_native"].get("time_s"))
        out.append(f"| {m} | {var:.1f} | {cls} | " + " | ".join(cells) +
                   f" | {kd / best['kk_native'].get('time_s'):.2f} | {fmt_time(top.get('time_s'))} "
                   f"({top.format}) |")
    for cls in ("regular", "irregular"):
        if cls in per_class:
            out.append(f"| geometric mean, {cls} | | | " +
                       " | ".join(f"{geomean(per_class[cls][k]):.2f}" for k in cols) +
                       f" | {geomean(per_class[cls]['KK native']):.2f} | |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", nargs="+")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    context, rows, _ = perf_results.load(a.json)
    parts = []
    for precision in perf_results.precisions_of(rows):
        t = rmat_table(rows, precision)
        if t:
            parts.append(f"R-MAT sweep, {precision}:\n\n{t}")
        t = format_table(rows, precision)
        if t:
            parts.append(f"Real and FEM matrices, {precision}:\n\n{t}")
    text = "\n".join(parts)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
