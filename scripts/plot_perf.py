#!/usr/bin/env python3
"""Charts and tables from spmvkit_perf's Google Benchmark JSON.

    spmvkit_perf ... --benchmark_out=run.json --benchmark_out_format=json
    /usr/bin/python3 scripts/plot_perf.py run.json --out-dir docs/perf/cpu \\
        [--compact-json docs/perf/cpu/results.json] [--update-doc docs/performance.md --section cpu]

Writes into --out-dir:
  fem_gbs_<precision>.png      GB/s per format vs N on the FEM sweep (study fig. 2/3), copy GB/s as a line
  spmv200_<precision>.png      time of 200 SpMVs vs N per format, with the transfer times (fig. 4)
  transfer_gbs.png             host -> device GB/s of matrix + 2 vectors vs N (fig. 5)
  cg.png                       CG MUPS and iterations vs N per format (fig. 6)
  matrices_gbs_<precision>.png GB/s per format on the real and R-MAT matrices (bars)
  results.md                   the markdown tables (also what --update-doc inserts)
Every chart is stamped with device, backend, Kokkos version and date from the JSON context.
Needs only python3 and matplotlib (Agg backend; Debian: python3-matplotlib).
"""

import argparse
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Display order and styles of the formats.
CRS_FORMATS = ["crs_row_per_thread", "crs_vector", "crs"]
KK_FORMATS = ["kk_native", "kk_default"]


def format_key(name):
    """Sort key: CRS kernels, SELL by (C, sigma), Kokkos Kernels."""
    if name in CRS_FORMATS:
        return (0, CRS_FORMATS.index(name), 0)
    m = re.match(r"sell_c(\d+)_s(\d+)$", name)
    if m:
        return (1, int(m.group(1)), int(m.group(2)))
    m = re.match(r"sell16_c(\d+)_s(\d+)$", name)
    if m:
        return (1.5, int(m.group(1)), int(m.group(2)))
    if name in KK_FORMATS:
        return (2, KK_FORMATS.index(name), 0)
    return (3, 0, 0)


# One fixed colour per format in every chart: CRS warm, SELL by C (shades by sigma), KK black/grey.
FORMAT_COLORS = {
    "crs_row_per_thread": "#d62728", "crs_vector": "#ff7f0e", "crs": "#d62728",
    "kk_native": "#000000", "kk_default": "#7f7f7f",
}
SELL_COLORS = {4: ("#1f77b4", "#6baed6", "#c6dbef"), 8: ("#2ca02c", "#74c476", "#c7e9c0"),
               32: ("#9467bd", "#9e9ac8", "#dadaeb"), 64: ("#8c564b", "#c49c94", "#e7cbc5")}


SELL16_COLORS = {4: "#08306b", 8: "#00441b", 32: "#3f007d", 64: "#67000d"}


def format_color(name):
    if name in FORMAT_COLORS:
        return FORMAT_COLORS[name]
    m = re.match(r"sell16_c(\d+)_s(\d+)$", name)
    if m:
        return SELL16_COLORS.get(int(m.group(1)), "#17becf")
    m = re.match(r"sell_c(\d+)_s(\d+)$", name)
    if m:
        shades = SELL_COLORS.get(int(m.group(1)), ("#17becf", "#9edae5", "#dbf1f4"))
        sigma = int(m.group(2))
        return shades[0 if sigma == 1 else (1 if sigma <= 32 else 2)]
    return "#bcbd22"


def format_style(name):
    """Line style: CRS solid, SELL dashed by sigma, KK dotted; colour fixed per format."""
    style = {"color": format_color(name)}
    if name.startswith("kk_"):
        style.update({"linestyle": ":", "marker": "s", "linewidth": 2.0})
        return style
    if name.startswith("sell16_"):
        style.update({"linestyle": "-", "marker": "D", "markersize": 3, "linewidth": 1.5})
        return style
    m = re.match(r"sell_c(\d+)_s(\d+)$", name)
    if m:
        sigma = int(m.group(2))
        ls = {1: "--", 32: "-.", 1024: (0, (1, 1))}.get(sigma, "--")
        style.update({"linestyle": ls, "marker": "o", "markersize": 3})
        return style
    style.update({"linestyle": "-", "marker": "^", "linewidth": 2.0})
    return style


def outside_legend(ax, **kw):
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, **kw)


class Result:
    """One benchmark (median over repetitions) with its name split into parts."""

    def __init__(self, row):
        self.row = row
        parts = row["run_name"].split("/")
        self.family = parts[0]
        self.precision = parts[1] if len(parts) > 1 else ""
        self.matrix = parts[2] if len(parts) > 2 else ""
        self.format = parts[3] if len(parts) > 3 else ""
        self.memory = ""
        if self.family == "transfer" and len(parts) > 4:
            self.memory = parts[4]
        if self.family == "copy":
            self.format = "stream_copy"

    def get(self, key, default=float("nan")):
        v = self.row.get(key, default)
        return default if v is None else v

    @property
    def kind(self):
        if self.matrix.startswith("fem_N"):
            return "fem"
        if self.matrix.startswith("rmat_"):
            return "rmat"
        return "real"

    @property
    def fem_n(self):
        return int(self.get("fem_N", 0))


def load(paths):
    """Median rows per run: the 'median' aggregate, or the median of the iteration rows when a
    benchmark ran once (no aggregates). Returns (context, [Result], rows kept for --compact-json)."""
    context = {}
    by_run = defaultdict(lambda: {"median": None, "runs": []})
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if not context:
            context = data.get("context", {})
        for row in data.get("benchmarks", []):
            if row.get("error_occurred"):
                continue
            run = row.get("run_name", row["name"])
            row.setdefault("run_name", run)
            if row.get("run_type") == "aggregate":
                if row.get("aggregate_name") == "median":
                    by_run[run]["median"] = row
            else:
                by_run[run]["runs"].append(row)
    kept = []
    for run, entry in by_run.items():
        if entry["median"] is not None:
            kept.append(entry["median"])
        elif entry["runs"]:
            runs = entry["runs"]
            if len(runs) == 1:
                kept.append(runs[0])
            else:
                merged = dict(runs[0])
                for key, value in runs[0].items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        merged[key] = statistics.median(r.get(key, value) for r in runs)
                kept.append(merged)
    return context, [Result(r) for r in kept], kept


def stamp_text(ctx):
    return "{dev} | {space} ({backends}), {conc} threads/cores | Kokkos {kv} | SpMVKit {ver} ({git}) | {date}".format(
        dev=ctx.get("device_name", "?"),
        space=ctx.get("execution_space", "?"),
        backends=ctx.get("kokkos_backends", "?"),
        conc=ctx.get("concurrency", "?"),
        kv=ctx.get("kokkos_version", "?"),
        ver=ctx.get("spmvkit_version", "?"),
        git=ctx.get("spmvkit_git_hash", "?"),
        date=ctx.get("spmvkit_date", ctx.get("date", "?")),
    )


def finish(fig, ctx, path):
    fig.text(0.5, 0.005, stamp_text(ctx), ha="center", va="bottom", fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def copy_gbs(results):
    v = [r.get("GB/s") for r in results if r.family == "copy"]
    return statistics.median(v) if v else float("nan")


def fmt(v, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "{:.0f}".format(v)
    return "{:.{d}g}".format(v, d=digits)


def precisions_of(results):
    order = ["double", "float"]
    present = {r.precision for r in results if r.family != "copy"}
    return [p for p in order if p in present] + sorted(present - set(order))


# ----------------------------------------------------------------------------------------------
# Charts
# ----------------------------------------------------------------------------------------------


def plot_fem_gbs(results, ctx, out, precision):
    rows = [r for r in results if r.family == "spmv" and r.kind == "fem" and r.precision == precision]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for name in sorted({r.format for r in rows}, key=format_key):
        pts = sorted((r.fem_n, r.get("GB/s")) for r in rows if r.format == name)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, **format_style(name))
    c = copy_gbs(results)
    if not math.isnan(c):
        ax.axhline(c, color="k", linewidth=1, label="STREAM copy")
    ax.set_xlabel("N (FEM intervals per direction; (N-1)^3 rows)")
    ax.set_ylabel("effective GB/s (byte model)")
    ax.set_title("SpMV bandwidth on the 3D Q1 FEM Poisson matrix, {}".format(precision))
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    path = os.path.join(out, "fem_gbs_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def plot_spmv200(results, ctx, out, precision):
    rows = [r for r in results if r.family == "spmv200" and r.precision == precision]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for name in sorted({r.format for r in rows}, key=format_key):
        pts = sorted((r.fem_n, r.get("time_s")) for r in rows if r.format == name)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label="200 SpMV " + name, **format_style(name))
    transfers = [r for r in results if r.family == "transfer" and r.kind == "fem" and r.precision == precision]
    for key in sorted({(r.format, r.memory) for r in transfers}):
        pts = sorted((r.fem_n, r.get("time_s")) for r in transfers if (r.format, r.memory) == key)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="k", linewidth=2.5,
                linestyle="-" if key[1] == "pinned" else "--", marker="x",
                label="transfer {} ({})".format(*key))
    ax.set_yscale("log")
    ax.set_xlabel("N (FEM intervals per direction)")
    ax.set_ylabel("seconds")
    ax.set_title("Time of 200 SpMVs and of one host->device transfer (matrix + 2 vectors), {}".format(precision))
    ax.grid(True, which="both", alpha=0.3)
    outside_legend(ax)
    path = os.path.join(out, "spmv200_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def plot_transfer(results, ctx, out):
    rows = [r for r in results if r.family == "transfer" and r.kind == "fem"]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for key in sorted({(r.precision, r.format, r.memory) for r in rows}):
        pts = sorted((r.fem_n, r.get("GB/s")) for r in rows if (r.precision, r.format, r.memory) == key)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                linestyle="-" if key[0] == "double" else "--", label="{} {} {}".format(*key))
    ax.set_xlabel("N (FEM intervals per direction)")
    ax.set_ylabel("GB/s")
    label = "host copy" if ctx.get("device_is_host") == "true" else "host -> device"
    ax.set_title("Transfer of matrix + 2 vectors ({})".format(label))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    path = os.path.join(out, "transfer_gbs.png")
    finish(fig, ctx, path)
    return path


def plot_cg(results, ctx, out):
    rows = [r for r in results if r.family == "cg"]
    if not rows:
        return None
    precs = precisions_of(rows)
    fig, axes = plt.subplots(2, len(precs), figsize=(6.5 * len(precs) + 2, 8), squeeze=False)
    for j, prec in enumerate(precs):
        sub = [r for r in rows if r.precision == prec]
        for name in sorted({r.format for r in sub}, key=format_key):
            pts = sorted((r.fem_n, r.get("MUPS"), r.get("cg_iterations")) for r in sub if r.format == name)
            axes[0][j].plot([p[0] for p in pts], [p[1] for p in pts], label=name, **format_style(name))
            axes[1][j].plot([p[0] for p in pts], [p[2] for p in pts], label=name, **format_style(name))
        axes[0][j].set_title("CG, {}: MUPS".format(prec))
        axes[0][j].set_ylabel("million unknowns updated / s")
        axes[1][j].set_title("CG, {}: iterations".format(prec))
        axes[1][j].set_ylabel("iterations")
        for i in range(2):
            axes[i][j].set_xlabel("N (FEM intervals per direction)")
            axes[i][j].grid(True, alpha=0.3)
    outside_legend(axes[0][len(precs) - 1])
    path = os.path.join(out, "cg.png")
    finish(fig, ctx, path)
    return path


def plot_matrices(results, ctx, out, precision):
    rows = [r for r in results if r.family == "spmv" and r.kind != "fem" and r.precision == precision]
    if not rows:
        return None
    matrices = sorted({r.matrix for r in rows}, key=lambda m: (m.startswith("rmat_"), m.lower()))
    formats = sorted({r.format for r in rows}, key=format_key)
    value = {(r.matrix, r.format): r.get("GB/s") for r in rows}
    fig, ax = plt.subplots(figsize=(max(10, 1.1 * len(matrices)), 6))
    width = 0.85 / max(1, len(formats))
    for i, name in enumerate(formats):
        xs = [k + (i - (len(formats) - 1) / 2) * width for k in range(len(matrices))]
        ys = [value.get((m, name), float("nan")) for m in matrices]
        ax.bar(xs, ys, width=width, label=name, color=format_color(name),
               hatch="//" if name.startswith("kk_") else None, edgecolor="0.2", linewidth=0.3)
    c = copy_gbs(results)
    if not math.isnan(c):
        ax.axhline(c, color="k", linewidth=1, label="STREAM copy")
    ax.set_xticks(range(len(matrices)))
    ax.set_xticklabels(matrices, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("effective GB/s (byte model)")
    ax.set_title("SpMV bandwidth on real (SuiteSparse) and R-MAT matrices, {}".format(precision))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=6.5, ncol=6)
    path = os.path.join(out, "matrices_gbs_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------


def spmv_table(results, precision, kinds):
    rows = [r for r in results if r.family == "spmv" and r.precision == precision and r.kind in kinds]
    if not rows:
        return []
    ref = defaultdict(dict)
    for r in rows:
        if r.format in KK_FORMATS:
            ref[r.matrix][r.format] = r.get("time_s")

    def matrix_key(m):
        return (0, int(m[5:]), "") if m.startswith("fem_N") else ((2 if m.startswith("rmat_") else 1), 0, m.lower())

    lines = [
        "| format | matrix | GB/s | GFlop/s | frac_copy | padding | time (us) | speed-up vs KK native | speed-up vs KK default |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: (matrix_key(r.matrix), format_key(r.format))):
        t = r.get("time_s")
        kn = ref[r.matrix].get("kk_native")
        kd = ref[r.matrix].get("kk_default")
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r.format, r.matrix, fmt(r.get("GB/s")), fmt(r.get("GFlop/s")), fmt(r.get("frac_copy")),
            fmt(r.get("padding")), fmt(t * 1e6), fmt(kn / t if kn else None), fmt(kd / t if kd else None)))
    return lines


def best_table(results, precision):
    """Per matrix: the fastest format, and it against Kokkos Kernels native."""
    rows = [r for r in results if r.family == "spmv" and r.precision == precision]
    by_matrix = defaultdict(list)
    for r in rows:
        by_matrix[r.matrix].append(r)
    lines = [
        "| matrix | rows | nnz | best format | GB/s | frac_copy | KK native GB/s | best / KK native |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]

    def key(m):
        return (0, int(m[5:]), "") if m.startswith("fem_N") else ((2 if m.startswith("rmat_") else 1), 0, m.lower())

    for m in sorted(by_matrix, key=key):
        rs = by_matrix[m]
        best = min(rs, key=lambda r: r.get("time_s"))
        kk = [r for r in rs if r.format == "kk_native"]
        kk_gbs = kk[0].get("GB/s") if kk else None
        ratio = kk[0].get("time_s") / best.get("time_s") if kk else None
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
            m, int(best.get("rows", 0)), int(best.get("nnz", 0)), best.format, fmt(best.get("GB/s")),
            fmt(best.get("frac_copy")), fmt(kk_gbs), fmt(ratio)))
    return lines


def cg_table(results):
    rows = [r for r in results if r.family == "cg"]
    if not rows:
        return []
    lines = [
        "| precision | N | format | iterations | converged | time / iteration (ms) | MUPS | true rel. residual | vs copy bound |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: (r.precision, r.fem_n, format_key(r.format))):
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r.precision, r.fem_n, r.format, int(r.get("cg_iterations", 0)),
            "yes" if r.get("converged", 0) else "no", fmt(r.get("time_per_iteration_s") * 1e3),
            fmt(r.get("MUPS")), "{:.2e}".format(r.get("true_relative_residual")),
            fmt(r.get("iteration_vs_copy_bound"))))
    return lines


def transfer_table(results):
    rows = [r for r in results if r.family == "transfer"]
    if not rows:
        return []
    lines = [
        "| precision | matrix | format | host memory | bytes (MB) | transfer (ms) | GB/s | one SpMV (ms) | transfer / SpMV |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]

    def key(r):
        m = r.matrix
        mk = (0, int(m[5:]), "") if m.startswith("fem_N") else ((2 if m.startswith("rmat_") else 1), 0, m.lower())
        return (r.precision, mk, format_key(r.format), r.memory)

    for r in sorted(rows, key=key):
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r.precision, r.matrix, r.format, r.memory, fmt(r.get("bytes") * 1e-6),
            fmt(r.get("time_s") * 1e3), fmt(r.get("GB/s")), fmt(r.get("spmv_time_s") * 1e3),
            fmt(r.get("transfer_over_spmv"))))
    return lines


def spmv200_table(results):
    rows = [r for r in results if r.family == "spmv200"]
    if not rows:
        return []
    lines = ["| precision | N | format | 200 SpMVs (ms) | GB/s |", "|---|---:|---|---:|---:|"]
    for r in sorted(rows, key=lambda r: (r.precision, r.fem_n, format_key(r.format))):
        lines.append("| {} | {} | {} | {} | {} |".format(
            r.precision, r.fem_n, r.format, fmt(r.get("time_s") * 1e3), fmt(r.get("GB/s"))))
    return lines


def headline(results, ctx):
    """The summary sentences: copy bandwidth, and per precision the best format on the largest
    FEM matrix against Kokkos Kernels native."""
    lines = []
    copies = [r for r in results if r.family == "copy"]
    if copies:
        c = copies[0]
        lines.append("- STREAM-style copy: **{} GB/s** ({} doubles per array, bytes = 2 x 8 x n).".format(
            fmt(c.get("GB/s")), int(c.get("elements", 0))))
    for prec in precisions_of(results):
        fem = [r for r in results if r.family == "spmv" and r.kind == "fem" and r.precision == prec]
        if not fem:
            continue
        n = max(r.fem_n for r in fem)
        at_n = [r for r in fem if r.fem_n == n]
        best = min(at_n, key=lambda r: r.get("time_s"))
        kk = [r for r in at_n if r.format == "kk_native"]
        kkd = [r for r in at_n if r.format == "kk_default"]
        text = "- FEM N = {} ({} rows, {} nonzeros), {}: best format **{}** at **{} GB/s** ({} of copy)".format(
            n, int(best.get("rows", 0)), int(best.get("nnz", 0)), prec, best.format,
            fmt(best.get("GB/s")), fmt(best.get("frac_copy")))
        if kk:
            text += "; Kokkos Kernels native {} GB/s, so best / KK native = **{}**".format(
                fmt(kk[0].get("GB/s")), fmt(kk[0].get("time_s") / best.get("time_s")))
        if kkd:
            text += "; KK default {} GB/s".format(fmt(kkd[0].get("GB/s")))
        lines.append(text + ".")
    return lines


def targets_table(results):
    """The speed checks of the project's GPU/CPU issue, from the largest FEM size measured:
    plain SELL and Sell16 against Kokkos Kernels default, CRS vector against KK native, the
    fastest format against KK native, and CG time per iteration against KK default and
    against the copy bound."""
    lines = ["| precision | N | check | ours | reference | ratio |", "|---|---:|---|---|---|---:|"]

    def best_of(rows, prefix):
        rows = [r for r in rows if r.format.startswith(prefix)]
        return min(rows, key=lambda r: r.get("time_s")) if rows else None

    for prec in precisions_of(results):
        fem = [r for r in results if r.family == "spmv" and r.kind == "fem" and r.precision == prec]
        if fem:
            n = max(r.fem_n for r in fem)
            at_n = {r.format: r for r in fem if r.fem_n == n}
            kkd, kkn = at_n.get("kk_default"), at_n.get("kk_native")
            for prefix, label in [("sell_c", "SELL-C-sigma"), ("sell16_c", "Sell16")]:
                b = best_of(at_n.values(), prefix)
                if b and kkd:
                    lines.append("| {} | {} | {} SpMV vs KK default | {} {} GF/s | {} GF/s | **{}** |".format(
                        prec, n, label, b.format, fmt(b.get("GFlop/s")), fmt(kkd.get("GFlop/s")),
                        fmt(kkd.get("time_s") / b.get("time_s"))))
                if b:
                    lines.append("| {} | {} | {} SpMV fraction of copy bandwidth | {} {} GB/s | copy | **{}** |".format(
                        prec, n, label, b.format, fmt(b.get("GB/s")), fmt(b.get("frac_copy"))))
            cv = at_n.get("crs_vector")
            if cv and kkn:
                lines.append("| {} | {} | CRS vector vs KK native | {} GF/s | {} GF/s | **{}** |".format(
                    prec, n, fmt(cv.get("GFlop/s")), fmt(kkn.get("GFlop/s")),
                    fmt(kkn.get("time_s") / cv.get("time_s"))))
            ours = [r for r in at_n.values() if not r.format.startswith("kk_")]
            if ours and kkn:
                b = min(ours, key=lambda r: r.get("time_s"))
                lines.append("| {} | {} | fastest format vs KK native | {} {} GF/s | {} GF/s | **{}** |".format(
                    prec, n, b.format, fmt(b.get("GFlop/s")), fmt(kkn.get("GFlop/s")),
                    fmt(kkn.get("time_s") / b.get("time_s"))))
        cg = [r for r in results if r.family == "cg" and r.precision == prec]
        if cg:
            n = max(r.fem_n for r in cg)
            at_n = {r.format: r for r in cg if r.fem_n == n}
            kkd = at_n.get("kk_default")
            for prefix, label in [("sell_c", "SELL-C-sigma"), ("sell16_c", "Sell16")]:
                rows = [r for r in at_n.values() if r.format.startswith(prefix)]
                if not rows:
                    continue
                b = min(rows, key=lambda r: r.get("time_per_iteration_s"))
                if kkd:
                    lines.append("| {} | {} | CG with {}: time/iteration vs CG with KK default | {} {} ms | {} ms | **{}** |".format(
                        prec, n, label, b.format, fmt(b.get("time_per_iteration_s") * 1e3),
                        fmt(kkd.get("time_per_iteration_s") * 1e3),
                        fmt(kkd.get("time_per_iteration_s") / b.get("time_per_iteration_s"))))
                if "iteration_vs_copy_bound" in b.row:
                    lines.append("| {} | {} | CG with {}: time/iteration / (iteration bytes / copy bandwidth) | {} {} ms | {} MB | **{}** |".format(
                        prec, n, label, b.format, fmt(b.get("time_per_iteration_s") * 1e3),
                        fmt(b.get("iteration_bytes") * 1e-6), fmt(b.get("iteration_vs_copy_bound"))))
    return lines if len(lines) > 2 else []


def markdown(results, ctx, charts, chart_prefix):
    out = []
    out.append("Generated by `scripts/plot_perf.py` from the benchmark JSON; do not edit by hand.")
    out.append("")
    out.append("| | |")
    out.append("|---|---|")
    for key, label in [("device_name", "device"), ("execution_space", "execution space"),
                       ("kokkos_backends", "Kokkos backends"), ("concurrency", "concurrency"),
                       ("kokkos_version", "Kokkos"), ("spmvkit_version", "SpMVKit"),
                       ("spmvkit_git_hash", "git"), ("spmvkit_date", "date (UTC)"),
                       ("llc_bytes", "last-level cache (bytes)"), ("command_line", "command")]:
        v = ctx.get(key, "?")
        if key == "command_line":
            v = "`{}`".format(v)
        out.append("| {} | {} |".format(label, v))
    out.append("")
    out.append("### Summary")
    out.append("")
    out.extend(headline(results, ctx))
    out.append("")
    targets = targets_table(results)
    if targets:
        out.append("### Speed checks (largest FEM size of the run)")
        out.append("")
        out.extend(targets)
        out.append("")
    for title, path in charts:
        out.append("![{}]({})".format(title, chart_prefix + os.path.basename(path)))
        out.append("")
    out.append("### Best format per matrix (spmv)")
    for prec in precisions_of(results):
        out.append("")
        out.append("**{}**".format(prec))
        out.append("")
        out.extend(best_table(results, prec))
    for prec in precisions_of(results):
        for kinds, title in [(("fem",), "FEM sweep"), (("real", "rmat"), "real and R-MAT matrices")]:
            t = spmv_table(results, prec, kinds)
            if t:
                out.append("")
                out.append("<details><summary>spmv, {}, {}: all formats</summary>".format(prec, title))
                out.append("")
                out.extend(t)
                out.append("")
                out.append("</details>")
    for title, table in [("200 consecutive SpMVs", spmv200_table(results)),
                         ("Transfers (matrix + 2 vectors) next to one SpMV", transfer_table(results)),
                         ("CG on the FEM problem", cg_table(results))]:
        if table:
            out.append("")
            out.append("<details><summary>{}</summary>".format(title))
            out.append("")
            out.extend(table)
            out.append("")
            out.append("</details>")
    out.append("")
    return "\n".join(out)


def update_doc(doc, section, text):
    begin = "<!-- BEGIN GENERATED {} -->".format(section)
    end = "<!-- END GENERATED {} -->".format(section)
    with open(doc) as f:
        content = f.read()
    if begin not in content or end not in content:
        sys.exit("plot_perf.py: {} has no '{}' ... '{}' markers".format(doc, begin, end))
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(doc, "w") as f:
        f.write(head + begin + "\n" + text + "\n" + end + tail)
    print("updated", doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="spmvkit_perf --benchmark_out JSON file(s)")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--compact-json", help="write the context and the median rows only (small)")
    ap.add_argument("--update-doc", help="markdown file whose GENERATED section is replaced")
    ap.add_argument("--section", default="cpu", help="name of that section (default cpu)")
    ap.add_argument("--chart-prefix", default=None,
                    help="path of the charts as seen from --update-doc (default: relative path)")
    args = ap.parse_args()

    ctx, results, kept = load(args.json)
    if not results:
        sys.exit("plot_perf.py: no successful benchmark in " + ", ".join(args.json))
    os.makedirs(args.out_dir, exist_ok=True)
    charts = []
    for prec in precisions_of(results):
        p = plot_fem_gbs(results, ctx, args.out_dir, prec)
        if p:
            charts.append(("SpMV GB/s vs N, FEM, " + prec, p))
    for prec in precisions_of(results):
        p = plot_spmv200(results, ctx, args.out_dir, prec)
        if p:
            charts.append(("200 SpMVs and transfers, " + prec, p))
    p = plot_transfer(results, ctx, args.out_dir)
    if p:
        charts.append(("transfer GB/s", p))
    p = plot_cg(results, ctx, args.out_dir)
    if p:
        charts.append(("CG MUPS and iterations", p))
    for prec in precisions_of(results):
        p = plot_matrices(results, ctx, args.out_dir, prec)
        if p:
            charts.append(("SpMV GB/s on real and R-MAT matrices, " + prec, p))

    prefix = args.chart_prefix
    if prefix is None:
        base = os.path.dirname(os.path.abspath(args.update_doc)) if args.update_doc else os.path.abspath(args.out_dir)
        prefix = os.path.relpath(os.path.abspath(args.out_dir), base) + "/"
        if prefix == "./":
            prefix = ""
    text = markdown(results, ctx, charts, prefix)
    md_path = os.path.join(args.out_dir, "results.md")
    with open(md_path, "w") as f:
        f.write(text)
    print("wrote", md_path)
    if args.compact_json:
        with open(args.compact_json, "w") as f:
            json.dump({"context": ctx, "benchmarks": kept}, f, indent=0, separators=(",", ":"))
        print("wrote", args.compact_json, "({} bytes)".format(os.path.getsize(args.compact_json)))
    if args.update_doc:
        update_doc(args.update_doc, args.section, text)


if __name__ == "__main__":
    main()
