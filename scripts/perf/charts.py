# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The charts (matplotlib, Agg backend). Every chart is stamped with device, backend, Kokkos
version and date from the JSON context, and draws the yardsticks of the run as lines."""

import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .results import precisions_of  # noqa: E402

YARDSTICKS = [("copy", "STREAM copy", "-"), ("read", "read-only sum", "--")]


def stamp_text(ctx):
    return ("{dev} | {space} ({backends}), {conc} threads/cores | Kokkos {kv} | "
            "SpMVKit {ver} ({git}) | {date}").format(
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


def outside_legend(ax, **kw):
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, **kw)


def yardstick_lines(ax, results):
    for which, label, ls in YARDSTICKS:
        gbs = results.yardstick_gbs(which)
        if not math.isnan(gbs):
            ax.axhline(gbs, color="k", linewidth=1, linestyle=ls, label=label)


def fem_gbs(results, styles, ctx, out, precision):
    rows = [r for r in results if r.bench == "spmv" and r.kind == "fem" and r.precision == precision]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for name in sorted({r.format for r in rows}, key=results.format_key):
        pts = sorted((r.fem_n, r.get("GB/s")) for r in rows if r.format == name)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, **styles.line(name))
    yardstick_lines(ax, results)
    ax.set_xlabel("N (FEM intervals per direction; (N-1)^3 rows)")
    ax.set_ylabel("effective GB/s (byte model)")
    ax.set_title("SpMV bandwidth on the 3D Q1 FEM Poisson matrix, {}".format(precision))
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    path = os.path.join(out, "fem_gbs_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def spmv200(results, styles, ctx, out, precision):
    rows = [r for r in results if r.bench == "spmv200" and r.precision == precision]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for name in sorted({r.format for r in rows}, key=results.format_key):
        pts = sorted((r.fem_n, r.get("time_s")) for r in rows if r.format == name)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label="200 SpMV " + name,
                **styles.line(name))
    transfers = [r for r in results
                 if r.bench == "transfer" and r.kind == "fem" and r.precision == precision]
    for key in sorted({(r.format, r.memory) for r in transfers},
                      key=lambda k: (results.format_key(k[0]), k[1])):
        pts = sorted((r.fem_n, r.get("time_s")) for r in transfers if (r.format, r.memory) == key)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=styles.color(key[0]),
                linewidth=2.5, linestyle="-" if key[1] == "pinned" else "--", marker="x",
                label="transfer {} ({})".format(*key))
    ax.set_yscale("log")
    ax.set_xlabel("N (FEM intervals per direction)")
    ax.set_ylabel("seconds")
    ax.set_title("Time of 200 SpMVs and of one host->device transfer (matrix + 2 vectors), {}"
                 .format(precision))
    ax.grid(True, which="both", alpha=0.3)
    outside_legend(ax)
    path = os.path.join(out, "spmv200_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def transfer(results, styles, ctx, out):
    rows = [r for r in results if r.bench == "transfer" and r.kind == "fem"]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    keys = sorted({(r.precision, r.format, r.memory) for r in rows},
                  key=lambda k: (k[0], results.format_key(k[1]), k[2]))
    for key in keys:
        pts = sorted((r.fem_n, r.get("GB/s")) for r in rows
                     if (r.precision, r.format, r.memory) == key)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=styles.color(key[1]),
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


def cg(results, styles, ctx, out):
    rows = [r for r in results if r.bench == "cg"]
    if not rows:
        return None
    precs = precisions_of(rows)
    fig, axes = plt.subplots(2, len(precs), figsize=(6.5 * len(precs) + 2, 8), squeeze=False)
    for j, prec in enumerate(precs):
        sub = [r for r in rows if r.precision == prec]
        for name in sorted({r.format for r in sub}, key=results.format_key):
            pts = sorted((r.fem_n, r.get("MUPS"), r.get("cg_iterations"))
                         for r in sub if r.format == name)
            axes[0][j].plot([p[0] for p in pts], [p[1] for p in pts], label=name,
                            **styles.line(name))
            axes[1][j].plot([p[0] for p in pts], [p[2] for p in pts], label=name,
                            **styles.line(name))
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


def cg_iteration(results, styles, ctx, out):
    """Time per CG iteration vs N, a line per (format, CG variant), one panel per precision
    (mixed: float matrix, double vectors), with each format's bandwidth floor: the fused standard
    CG's iteration bytes over the run's copy bandwidth (time / iteration_vs_fused_copy_bound)."""
    rows = [r for r in results if r.bench == "cg" and r.get("time_per_iteration_s") > 0]
    if not rows:
        return None
    precs = sorted({r.precision for r in rows}, key=lambda p: ["double", "float", "mixed"].index(p)
                   if p in ("double", "float", "mixed") else 9)
    dashes = {"fused": "-", "pipelined": "--", "kokkos_blas": ":", "mixed": "-."}
    markers = {"fused": "o", "pipelined": "s", "kokkos_blas": "^", "mixed": "D"}
    fig, axes = plt.subplots(1, len(precs), figsize=(8 * len(precs), 7), squeeze=False)
    for j, prec in enumerate(precs):
        ax = axes[0][j]
        sub = [r for r in rows if r.precision == prec]
        keys = sorted({(r.format, r.options.get("cg", "fused")) for r in sub},
                      key=lambda k: (results.format_key(k[0]), k[1]))
        for name, variant in keys:
            pts = sorted((r.fem_n, r.get("time_per_iteration_s")) for r in sub
                         if r.format == name and r.options.get("cg", "fused") == variant)
            style = dict(styles.line(name))
            style["linestyle"] = dashes.get(variant, "-")
            style["marker"] = markers.get(variant, "o")
            ax.plot([p[0] for p in pts], [p[1] * 1e6 for p in pts],
                    label="{} {}".format(name, variant), **style)
        # The floor of the leanest format (smallest fused-CG iteration bytes at the largest N):
        # no variant of any format can beat its own floor, and none has a lower one.
        floors = {}
        for r in sub:
            if r.options.get("cg", "fused") in ("fused", "mixed") and \
                    r.get("iteration_vs_fused_copy_bound") > 0:
                floors.setdefault(r.format, {})[r.fem_n] = \
                    r.get("time_per_iteration_s") / r.get("iteration_vs_fused_copy_bound")
        if floors:
            lean = min(floors, key=lambda f: floors[f][max(floors[f])])
            pts = sorted(floors[lean].items())
            ax.plot([p[0] for p in pts], [p[1] * 1e6 for p in pts], color="black", linewidth=1.5,
                    linestyle=(0, (1, 1.5)),
                    label="floor: {} fused-CG bytes / copy GB/s".format(lean))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ns = sorted({r.fem_n for r in sub})
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns])
        ax.minorticks_off()
        ax.set_title("CG, {}: time per iteration".format(prec))
        ax.set_xlabel("N (FEM intervals per direction)")
        ax.set_ylabel("microseconds per iteration (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")  # each panel has its own lines
    path = os.path.join(out, "cg_iteration.png")
    finish(fig, ctx, path)
    return path


def spgemm(results, styles, ctx, out, precision):
    """SpGEMM: Kokkos Kernels' time over SpMVKit's (above 1: SpMVKit faster) per matrix, for the
    symbolic phase, the numeric phase and both, bars on a log scale; one panel per Kokkos Kernels
    implementation in the run (its default, cuSPARSE on CUDA builds with the TPL, and, where the
    run has it, its own kernels: kk_native)."""
    rows = [r for r in results if r.bench == "spgemm" and r.precision == precision]
    if not rows:
        return None
    phase = lambda r: r.row["run_name"].split("/")[4]
    t = {(r.matrix, r.format, phase(r)): r.get("time_s") for r in rows}
    baselines = [b for b in ("kk_default", "kk_native")
                 if any(k[1] == b and k[2] == "total" for k in t)]
    mats = [m for m in dict.fromkeys(r.matrix for r in rows)
            if (m, "spmvkit", "total") in t and any((m, b, "total") in t for b in baselines)]
    if not mats:
        return None
    fig, axes = plt.subplots(len(baselines), 1, squeeze=False,
                             figsize=(max(10, 0.7 * len(mats)), 5.5 * len(baselines)))
    width = 0.27
    for ax, base in zip(axes[:, 0], baselines):
        for j, (ph, color) in enumerate([("symbolic", "#7f9fc8"), ("numeric", "#d9822b"),
                                         ("total", "#333333")]):
            ratio = [t.get((m, base, ph), float("nan")) / t.get((m, "spmvkit", ph), float("nan"))
                     for m in mats]
            ax.bar([i + (j - 1) * width for i in range(len(mats))], ratio, width, label=ph,
                   color=color)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(mats)))
        ax.set_xticklabels(mats, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("{} time / SpMVKit time (> 1: SpMVKit faster)".format(base), fontsize=8)
        ax.set_title("SpGEMM C = A A, {}, against {}".format(precision, base))
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8)
    path = os.path.join(out, "spgemm_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def matrices(results, styles, ctx, out, precision):
    rows = [r for r in results if r.bench == "spmv" and r.kind != "fem" and r.precision == precision]
    if not rows:
        return None
    mats = sorted({r.matrix for r in rows}, key=lambda m: (m.startswith("rmat_"), m.lower()))
    formats = sorted({r.format for r in rows}, key=results.format_key)
    value = {(r.matrix, r.format): r.get("GB/s") for r in rows}
    fig, ax = plt.subplots(figsize=(max(10, 1.1 * len(mats)), 6))
    width = 0.85 / max(1, len(formats))
    for i, name in enumerate(formats):
        xs = [k + (i - (len(formats) - 1) / 2) * width for k in range(len(mats))]
        ys = [value.get((m, name), float("nan")) for m in mats]
        ax.bar(xs, ys, width=width, label=name, color=styles.color(name), hatch=styles.hatch(name),
               edgecolor="0.2", linewidth=0.3)
    yardstick_lines(ax, results)
    ax.set_xticks(range(len(mats)))
    ax.set_xticklabels(mats, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("effective GB/s (byte model)")
    ax.set_title("SpMV bandwidth on real (SuiteSparse) and R-MAT matrices, {}".format(precision))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=6.5, ncol=6)
    path = os.path.join(out, "matrices_gbs_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def rmat_sweep(results, styles, ctx, out, precision):
    """SpMV time against R-MAT scale for every format: each format's best variant (the fastest
    of its variants at each scale) beside Kokkos Kernels native and default, log-log."""
    rows = [r for r in results if r.bench == "spmv" and r.kind == "rmat" and r.precision == precision]
    scales = sorted({int(r.matrix.split("_s")[1].split("_")[0]) for r in rows
                     if "_s" in r.matrix}) if rows else []
    if len(scales) < 2:
        return None

    def scale_of(r):
        return int(r.matrix.split("_s")[1].split("_")[0])

    series = {}
    for r in rows:
        key = r.format if r.is_reference or r.family in ("auto",) else r.family + " (best)"
        if r.family == "crs":
            key = r.format  # every CRS kernel on its own: the balanced one is the point
        best = series.setdefault(key, {})
        t = r.get("time_s")
        s = scale_of(r)
        if s not in best or t < best[s][0]:
            best[s] = (t, r.format)
    fig, ax = plt.subplots(figsize=(11, 6))
    for key in sorted(series, key=lambda k: (k.startswith("kk"), k)):
        pts = sorted(series[key].items())
        style = styles.line(pts[0][1][1])
        ax.plot([p[0] for p in pts], [p[1][0] * 1e3 for p in pts], label=key, **style)
    ax.set_yscale("log")
    ax.set_xlabel("R-MAT scale (2^scale rows, edge factor 16)")
    ax.set_ylabel("SpMV time (ms, median)")
    ax.set_title("SpMV time on R-MAT graphs, {}".format(precision))
    ax.grid(True, which="both", alpha=0.3)
    outside_legend(ax)
    path = os.path.join(out, "rmat_time_{}.png".format(precision))
    finish(fig, ctx, path)
    return path


def all_charts(results, styles, ctx, out):
    """Every chart the data allows, as (title, path)."""
    charts = []
    precs = precisions_of(results)
    for prec in precs:
        p = fem_gbs(results, styles, ctx, out, prec)
        if p:
            charts.append(("SpMV GB/s vs N, FEM, " + prec, p))
    for prec in precs:
        p = spmv200(results, styles, ctx, out, prec)
        if p:
            charts.append(("200 SpMVs and transfers, " + prec, p))
    p = transfer(results, styles, ctx, out)
    if p:
        charts.append(("transfer GB/s", p))
    p = cg(results, styles, ctx, out)
    if p:
        charts.append(("CG MUPS and iterations", p))
    p = cg_iteration(results, styles, ctx, out)
    if p:
        charts.append(("CG time per iteration vs N, with the bandwidth floor", p))
    for prec in precs:
        p = spgemm(results, styles, ctx, out, prec)
        if p:
            charts.append(("SpGEMM against Kokkos Kernels, " + prec, p))
    for prec in precs:
        p = matrices(results, styles, ctx, out, prec)
        if p:
            charts.append(("SpMV GB/s on real and R-MAT matrices, " + prec, p))
    for prec in precs:
        p = rmat_sweep(results, styles, ctx, out, prec)
        if p:
            charts.append(("SpMV time vs R-MAT scale, " + prec, p))
    return charts
