# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The markdown: context, summary, speed checks per format family, and the full tables."""

import math
import os
from collections import defaultdict

from .results import matrix_key, precisions_of

KK_NATIVE, KK_DEFAULT = "kk_native", "kk_default"  # the reference benchmarks (stable names)


def fmt(v, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "{:.0f}".format(v)
    return "{:.{d}g}".format(v, d=digits)


def ratio(a, b):
    """a / b, or None when either is missing."""
    if a is None or b is None or not b or math.isnan(a) or math.isnan(b):
        return None
    return a / b


def table(header, rows):
    """Markdown table from a header [(title, align)] and rows of cells."""
    lines = ["| " + " | ".join(h for h, _ in header) + " |",
             "|" + "|".join("---:" if a == "r" else "---" for _, a in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def with_read(results):
    """The read yardstick columns appear where the run has them (JSON from before it: not)."""
    return results.has_counter("frac_read")


def spmv_table(results, precision, kinds):
    rows = [r for r in results if r.bench == "spmv" and r.precision == precision and r.kind in kinds]
    if not rows:
        return []
    ref = defaultdict(dict)
    for r in rows:
        if r.is_reference:
            ref[r.matrix][r.format] = r.get("time_s")
    read = with_read(results)
    header = [("format", "l"), ("matrix", "l"), ("GB/s", "r"), ("GFlop/s", "r"), ("frac_copy", "r")]
    header += [("frac_read", "r")] if read else []
    header += [("padding", "r"), ("time (us)", "r"), ("speed-up vs KK native", "r"),
               ("speed-up vs KK default", "r")]
    out = []
    for r in sorted(rows, key=lambda r: (matrix_key(r.matrix), results.format_key(r.format))):
        t = r.get("time_s")
        cells = [r.format, r.matrix, fmt(r.get("GB/s")), fmt(r.get("GFlop/s")), fmt(r.get("frac_copy"))]
        cells += [fmt(r.get("frac_read"))] if read else []
        cells += [fmt(r.get("padding")), fmt(t * 1e6), fmt(ratio(ref[r.matrix].get(KK_NATIVE), t)),
                  fmt(ratio(ref[r.matrix].get(KK_DEFAULT), t))]
        out.append(cells)
    return table(header, out)


def best_table(results, precision):
    """Per matrix: the fastest format, and it against Kokkos Kernels native."""
    rows = [r for r in results if r.bench == "spmv" and r.precision == precision]
    by_matrix = defaultdict(list)
    for r in rows:
        by_matrix[r.matrix].append(r)
    read = with_read(results)
    header = [("matrix", "l"), ("rows", "r"), ("nnz", "r"), ("best format", "l"), ("GB/s", "r"),
              ("frac_copy", "r")] + ([("frac_read", "r")] if read else []) + \
             [("KK native GB/s", "r"), ("best / KK native", "r")]
    out = []
    for m in sorted(by_matrix, key=matrix_key):
        rs = by_matrix[m]
        best = min(rs, key=lambda r: r.get("time_s"))
        kk = [r for r in rs if r.format == KK_NATIVE]
        cells = [m, int(best.get("rows", 0)), int(best.get("nnz", 0)), best.format,
                 fmt(best.get("GB/s")), fmt(best.get("frac_copy"))]
        cells += [fmt(best.get("frac_read"))] if read else []
        cells += [fmt(kk[0].get("GB/s") if kk else None),
                  fmt(ratio(kk[0].get("time_s"), best.get("time_s")) if kk else None)]
        out.append(cells)
    return table(header, out)


def cg_table(results):
    rows = [r for r in results if r.bench == "cg"]
    if not rows:
        return []
    read = results.has_counter("iteration_vs_read_bound")
    header = [("precision", "l"), ("N", "r"), ("format", "l"), ("iterations", "r"),
              ("converged", "r"), ("time / iteration (ms)", "r"), ("time to solution (ms)", "r"),
              ("MUPS", "r"), ("true rel. residual", "r"), ("vs copy bound", "r")]
    header += [("vs read bound", "r")] if read else []
    out = []
    for r in sorted(rows, key=lambda r: (r.precision, r.fem_n, results.format_key(r.format))):
        cells = [r.precision, r.fem_n, r.format, int(r.get("cg_iterations", 0)),
                 "yes" if r.get("converged", 0) else "no", fmt(r.get("time_per_iteration_s") * 1e3),
                 fmt(r.get("time_s") * 1e3), fmt(r.get("MUPS")), "{:.2e}".format(r.get("true_relative_residual")),
                 fmt(r.get("iteration_vs_copy_bound"))]
        cells += [fmt(r.get("iteration_vs_read_bound"))] if read else []
        out.append(cells)
    return table(header, out)


SOLVE_IMPLS = ("spmvkit", "kk", "kk_gmres", "petsc")


def solve_table(results):
    """The solve family: per matrix x solver x preconditioner, iterations and time to tolerance
    of each implementation, the ratios impl / spmvkit (> 1: SpMVKit is faster) and the set-up
    times. The ratios are formed here; the JSON stores none."""
    rows = [r for r in results if r.bench == "solve"]
    if not rows:
        return []
    groups = defaultdict(dict)
    order = {}
    for r in rows:
        parts = r.row["run_name"].split("/")
        if len(parts) < 6:
            continue
        key = (r.precision, parts[2], parts[3], parts[4])
        groups[key][parts[5]] = r
        order.setdefault(key, r.order)
    impls = [i for i in SOLVE_IMPLS if any(i in g for g in groups.values())]
    header = [("precision", "l"), ("matrix", "l"), ("solver", "l"), ("preconditioner", "l")]
    for i in impls:
        header += [("{} it".format(i), "r"), ("{} ms".format(i), "r")]
    header += [("{} / spmvkit".format(i), "r") for i in impls if i != "spmvkit"]
    header += [("{} setup ms".format(i), "r") for i in impls if i in ("spmvkit", "petsc")]
    out = []
    for key in sorted(groups, key=lambda k: (k[0], matrix_key(k[1]), order[k])):
        g = groups[key]
        cells = list(key)
        for i in impls:
            r = g.get(i)
            cells += [int(r.get("solver_iterations", 0)), fmt(r.get("time_s") * 1e3)] if r else ["-", "-"]
        ours = g.get("spmvkit")
        for i in impls:
            if i == "spmvkit":
                continue
            r = g.get(i)
            q = ratio(r.get("time_s"), ours.get("time_s")) if r and ours else None
            cells.append(fmt(q) if q is not None else "-")
        for i in impls:
            if i in ("spmvkit", "petsc"):
                r = g.get(i)
                cells.append(fmt(r.get("setup_s") * 1e3) if r else "-")
        out.append(cells)
    return table(header, out)


def transfer_table(results):
    rows = [r for r in results if r.bench == "transfer"]
    if not rows:
        return []
    header = [("precision", "l"), ("matrix", "l"), ("format", "l"), ("host memory", "l"),
              ("bytes (MB)", "r"), ("transfer (ms)", "r"), ("GB/s", "r"), ("one SpMV (ms)", "r"),
              ("transfer / SpMV", "r")]
    out = []
    for r in sorted(rows, key=lambda r: (r.precision, matrix_key(r.matrix),
                                         results.format_key(r.format), r.memory)):
        out.append([r.precision, r.matrix, r.format, r.memory, fmt(r.get("bytes") * 1e-6),
                    fmt(r.get("time_s") * 1e3), fmt(r.get("GB/s")), fmt(r.get("spmv_time_s") * 1e3),
                    fmt(r.get("transfer_over_spmv"))])
    return table(header, out)


def spmv200_table(results):
    rows = [r for r in results if r.bench == "spmv200"]
    if not rows:
        return []
    out = [[r.precision, r.fem_n, r.format, fmt(r.get("time_s") * 1e3), fmt(r.get("GB/s"))]
           for r in sorted(rows, key=lambda r: (r.precision, r.fem_n, results.format_key(r.format)))]
    return table([("precision", "l"), ("N", "r"), ("format", "l"), ("200 SpMVs (ms)", "r"),
                  ("GB/s", "r")], out)


def headline(results):
    """The summary sentences: the yardsticks, and per precision the best format on the largest
    FEM matrix against Kokkos Kernels."""
    lines = []
    for r in results:
        if r.bench == "copy":
            lines.append("- STREAM-style copy: **{} GB/s** ({} doubles per array, bytes = 2 x 8 x n)."
                         .format(fmt(r.get("GB/s")), int(r.get("elements", 0))))
        elif r.bench == "read":
            lines.append("- Read-only sum: **{} GB/s** ({} doubles, bytes = 8 x n)."
                         .format(fmt(r.get("GB/s")), int(r.get("elements", 0))))
    read = with_read(results)
    for prec in precisions_of(results):
        fem = [r for r in results if r.bench == "spmv" and r.kind == "fem" and r.precision == prec]
        if not fem:
            continue
        n = max(r.fem_n for r in fem)
        at_n = [r for r in fem if r.fem_n == n]
        best = min(at_n, key=lambda r: r.get("time_s"))
        kk = [r for r in at_n if r.format == KK_NATIVE]
        kkd = [r for r in at_n if r.format == KK_DEFAULT]
        text = "- FEM N = {} ({} rows, {} nonzeros), {}: best format **{}** at **{} GB/s** ({} of copy".format(
            n, int(best.get("rows", 0)), int(best.get("nnz", 0)), prec, best.format,
            fmt(best.get("GB/s")), fmt(best.get("frac_copy")))
        text += ", {} of read)".format(fmt(best.get("frac_read"))) if read else ")"
        if kk:
            text += "; Kokkos Kernels native {} GB/s, so best / KK native = **{}**".format(
                fmt(kk[0].get("GB/s")), fmt(ratio(kk[0].get("time_s"), best.get("time_s"))))
        if kkd:
            text += "; KK default {} GB/s".format(fmt(kkd[0].get("GB/s")))
        lines.append(text + ".")
    return lines


def targets_tables(results):
    """The speed checks at the largest FEM size measured, one row per format family (its
    fastest format) plus the fastest of all: SpMV against Kokkos Kernels native and default and
    as a fraction of the yardsticks; CG time per iteration against CG with Kokkos Kernels and
    against the yardstick bounds."""
    out = []
    read = with_read(results)
    spmv_rows, cg_rows = [], []
    for prec in precisions_of(results):
        fem = [r for r in results if r.bench == "spmv" and r.kind == "fem" and r.precision == prec]
        if fem:
            n = max(r.fem_n for r in fem)
            at_n = [r for r in fem if r.fem_n == n]
            refs = {r.format: r for r in at_n if r.is_reference}
            ours = [r for r in at_n if not r.is_reference]
            groups = [(f, [r for r in ours if r.family == f]) for f in results.families()]
            groups = [(f, g) for f, g in groups if g]
            if len(groups) > 1:
                groups.append(("fastest of all", ours))
            for family, group in groups:
                b = min(group, key=lambda r: r.get("time_s"))
                kn, kd = refs.get(KK_NATIVE), refs.get(KK_DEFAULT)
                cells = [prec, n, family, b.format, fmt(b.get("GFlop/s")),
                         fmt(ratio(kn.get("time_s"), b.get("time_s")) if kn else None),
                         fmt(ratio(kd.get("time_s"), b.get("time_s")) if kd else None),
                         fmt(b.get("frac_copy"))]
                cells += [fmt(b.get("frac_read"))] if read else []
                spmv_rows.append(cells)
        cgs = [r for r in results if r.bench == "cg" and r.precision == prec]
        if cgs:
            n = max(r.fem_n for r in cgs)
            at_n = [r for r in cgs if r.fem_n == n]
            refs = {r.format: r for r in at_n if r.is_reference}
            ours = [r for r in at_n if not r.is_reference]
            for family in results.families():
                group = [r for r in ours if r.family == family]
                if not group:
                    continue
                b = min(group, key=lambda r: r.get("time_per_iteration_s"))
                t = b.get("time_per_iteration_s")
                kn, kd = refs.get(KK_NATIVE), refs.get(KK_DEFAULT)
                cells = [prec, n, family, b.format, fmt(t * 1e3),
                         fmt(ratio(kn.get("time_per_iteration_s"), t) if kn else None),
                         fmt(ratio(kd.get("time_per_iteration_s"), t) if kd else None),
                         fmt(b.get("iteration_vs_copy_bound"))]
                cells += [fmt(b.get("iteration_vs_read_bound"))] if read else []
                cg_rows.append(cells)
    if spmv_rows:
        header = [("precision", "l"), ("N", "r"), ("family", "l"), ("its fastest format", "l"),
                  ("GFlop/s", "r"), ("speed-up vs KK native", "r"), ("speed-up vs KK default", "r"),
                  ("frac_copy", "r")] + ([("frac_read", "r")] if read else [])
        out += ["SpMV: the fastest format of each family against Kokkos Kernels (speed-up > 1: "
                "ours is faster) and as a fraction of the yardsticks.", ""] + table(header, spmv_rows)
    if cg_rows:
        header = [("precision", "l"), ("N", "r"), ("family", "l"), ("its fastest format", "l"),
                  ("ms / iteration", "r"), ("speed-up vs CG with KK native", "r"),
                  ("speed-up vs CG with KK default", "r"), ("time / copy bound", "r")]
        header += [("time / read bound", "r")] if read else []
        out += ([""] if out else []) + [
            "CG: time per iteration of the fastest format of each family against CG with Kokkos "
            "Kernels, and against the time the iteration's bytes take at yardstick bandwidth "
            "(1 = as fast as the yardstick).", ""] + table(header, cg_rows)
    return out


def markdown(results, ctx, charts, chart_prefix):
    out = ["Generated by `scripts/plot_perf.py` from the benchmark JSON; do not edit by hand.", "",
           "| | |", "|---|---|"]
    for key, label in [("device_name", "device"), ("execution_space", "execution space"),
                       ("kokkos_backends", "Kokkos backends"), ("concurrency", "concurrency"),
                       ("kokkos_version", "Kokkos"), ("spmvkit_version", "SpMVKit"),
                       ("spmvkit_git_hash", "git"), ("spmvkit_date", "date (UTC)"),
                       ("llc_bytes", "last-level cache (bytes)"), ("command_line", "command")]:
        v = ctx.get(key, "?")
        if key == "command_line":
            v = "`{}`".format(v)
        out.append("| {} | {} |".format(label, v))
    out += ["", "### Summary", ""] + headline(results) + [""]
    targets = targets_tables(results)
    if targets:
        out += ["### Speed checks (largest FEM size of the run)", ""] + targets + [""]
    for title, path in charts:
        out += ["![{}]({})".format(title, chart_prefix + os.path.basename(path)), ""]
    out.append("### Best format per matrix (spmv)")
    for prec in precisions_of(results):
        out += ["", "**{}**".format(prec), ""] + best_table(results, prec)
    for prec in precisions_of(results):
        for kinds, title in [(("fem",), "FEM sweep"), (("real", "rmat"), "real and R-MAT matrices")]:
            t = spmv_table(results, prec, kinds)
            if t:
                out += ["", "<details><summary>spmv, {}, {}: all formats</summary>".format(prec, title),
                        ""] + t + ["", "</details>"]
    for title, t in [("200 consecutive SpMVs", spmv200_table(results)),
                     ("Transfers (matrix + 2 vectors) next to one SpMV", transfer_table(results)),
                     ("CG on the FEM problem", cg_table(results)),
                     ("Solvers: time to tolerance (solve family)", solve_table(results))]:
        if t:
            out += ["", "<details><summary>{}</summary>".format(title), ""] + t + ["", "</details>"]
    out.append("")
    return "\n".join(out)
