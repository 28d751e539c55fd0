# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""docs/performance.md from one spmvkit_perf run per platform.

Two steps (scripts/perf_page.py is the command line):
  compact  the benchmark JSON of one platform's run -> docs/perf/<platform>.csv: the median row
           of each spmv, cg, spgemm, solve, copy and read benchmark, the counters the page reads,
           and the run's context as '# key: value' lines (tens of kB instead of megabytes);
  page     the CSV files -> the page (summary by matrix class first) and its charts.

Matrix classes (the same rule on every platform, from the features spmvkit_perf records):
  fem        the generated FEM problems (fem_N*, elasticity_N*), any size;
  small      other matrices whose CRS bytes in FP64 (with x and y) are under SMALL_BYTES: they
             stay in cache, so their times are compared, their bandwidths are not;
  power-law  R-MAT graphs, and matrices whose row lengths vary by more than their mean
             (coefficient of variation >= 1) with hub rows (f_hub_mass >= 0.05);
  irregular  other real matrices with a coefficient of variation >= 0.4 or a longest row over
             four times the mean;
  regular    the rest.
"""

import csv
import math
import os
import statistics
from collections import defaultdict

from .results import Result, Results, load

SMALL_BYTES = 4 * 1024 * 1024
CLASSES = ["fem", "regular", "irregular", "power-law", "small"]
CLASS_TITLES = {"fem": "FEM (generated)", "regular": "regular real", "irregular": "irregular real",
                "power-law": "power-law", "small": "small (in cache)"}
KEPT_FAMILIES = ("copy", "read", "spmv", "cg", "spgemm", "solve")
COLUMNS = ["name", "label", "time_s", "GB/s", "frac_copy", "bytes", "rows", "nnz", "f_mean_row",
           "f_max_row", "f_row_variance", "f_hub_mass", "fem_N", "time_per_iteration_s",
           "cg_iterations", "solver_iterations", "converged", "setup_s", "multiply_adds"]
CONTEXT_KEYS = ["platform", "title", "device_name", "execution_space", "concurrency",
                "kokkos_version", "spmvkit_git_hash", "date", "petsc_version", "command_line"]
OURS_EXCLUDED = ("auto", "auto_tune")  # not stored formats of their own


def short_name(run_name):
    """spmv/double/fem_N8/crs/min_time:0.002/repeats:2/manual_time -> spmv/double/fem_N8/crs."""
    return "/".join(p for p in run_name.split("/") if ":" not in p and p != "manual_time")


def compact(paths, platform, title, out_csv):
    """The median rows of the run(s) of one platform, the counters the page reads."""
    contexts = []
    for path in paths:
        context, _, _ = load([path])
        contexts.append(context)
    _, _, kept = load(paths)
    rows = []
    for row in kept:
        name = short_name(row["run_name"])
        if name.split("/")[0] not in KEPT_FAMILIES:
            continue
        if name.startswith("solve/") and not row.get("converged", 1):
            continue
        out = {"name": name, "label": row.get("label", "")}
        for key in COLUMNS[2:]:
            value = row.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[key] = "{:.6g}".format(value)
        rows.append(out)
    os.makedirs(os.path.dirname(os.path.abspath(out_csv)), exist_ok=True)
    with open(out_csv, "w", newline="") as f:
        f.write("# platform: {}\n# title: {}\n".format(platform, title))
        for key in CONTEXT_KEYS[2:]:
            values = []
            for c in contexts:
                v = str(c.get(key, "")).replace("\n", " ")
                if v and v not in values:
                    values.append(v)
            f.write("# {}: {}\n".format(key, " ; ".join(values)))
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


class Platform:
    """One platform's compact CSV: its context and its rows as Results."""

    def __init__(self, path):
        self.context = {}
        lines = []
        with open(path) as f:
            for line in f:
                if line.startswith("# ") and ":" in line and not lines:
                    key, value = line[2:].split(":", 1)
                    self.context[key.strip()] = value.strip()
                else:
                    lines.append(line)
        rows = []
        for rec in csv.DictReader(lines):
            row = {"run_name": rec["name"], "label": rec.get("label", "")}
            for key in COLUMNS[2:]:
                if rec.get(key):
                    row[key] = float(rec[key])
            rows.append(row)
        self.results = Results(rows)
        self.name = self.context.get("platform", os.path.splitext(os.path.basename(path))[0])
        self.title = self.context.get("title", self.name)
        self.gpu = self.context.get("execution_space", "") not in ("OpenMP", "Serial", "Threads",
                                                                   "HPX", "")
        self.copy_gbs = self.results.yardstick_gbs("copy")

    @property
    def default_name(self):
        return "cuSPARSE" if self.gpu else "KK default"


def matrix_class(r):
    """The class of a matrix from one of its spmv rows (see the module's docstring)."""
    if r.matrix.startswith(("fem_N", "elasticity_N")):
        return "fem"
    if r.matrix.startswith("rmat_"):
        return "power-law"
    # CRS in FP64 with 32-bit indices and the two vectors, whatever the run's precision, so that
    # a matrix is in the same class in both precisions.
    crs_bytes = 12 * r.get("nnz", 0.0) + 20 * r.get("rows", 0.0)
    mean = r.get("f_mean_row")
    cv = math.sqrt(r.get("f_row_variance", 0.0)) / mean if mean and mean > 0 else 0.0
    if crs_bytes < SMALL_BYTES:
        return "small"
    if cv >= 1.0 and r.get("f_hub_mass", 0.0) >= 0.05:
        return "power-law"
    if cv >= 0.4 or (mean and r.get("f_max_row", 0.0) > 4 * mean):
        return "irregular"
    return "regular"


def geomean(values):
    values = [v for v in values if v and v > 0 and not math.isnan(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def fmt(v, digits=2):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return "{:.{}f}".format(v, digits)


def table(header, rows):
    out = ["| " + " | ".join(h for h, _ in header) + " |",
           "|" + "|".join("---:" if a == "r" else "---" for _, a in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


class SpmvMatrix:
    """The spmv rows of one matrix and precision on one platform."""

    def __init__(self, rows, results):
        self.by_format = {r.format: r for r in rows}
        ref = self.by_format.get("kk_native") or rows[0]
        self.cls = matrix_class(ref)
        self.matrix = ref.matrix
        # best: the fastest SpMVKit product of the run (the oracle, so auto / best <= 1);
        # best_format: the fastest stored format, for "which format when".
        ours = [r for r in rows if r.family != "kk"]
        self.best = min(ours, key=lambda r: r.get("time_s")) if ours else None
        formats = [r for r in ours if r.format not in OURS_EXCLUDED]
        self.best_format = min(formats, key=lambda r: r.get("time_s")) if formats else None

    def time(self, fmt_name):
        r = self.by_format.get(fmt_name)
        return r.get("time_s") if r else float("nan")

    def ratio(self, theirs, ours):
        """Their time over ours (> 1: SpMVKit is faster)."""
        t_ours = self.time(ours) if ours != "best" else (
            self.best.get("time_s") if self.best else float("nan"))
        return self.time(theirs) / t_ours if t_ours > 0 else float("nan")


def spmv_matrices(platform, precision):
    groups = defaultdict(list)
    for r in platform.results:
        if r.bench == "spmv" and r.precision == precision:
            groups[r.matrix].append(r)
    return [SpmvMatrix(rows, platform.results) for rows in groups.values()]


def summary_rows(platform, precision):
    """Per class: geomeans of the automatic choice and of the best format against Kokkos Kernels
    (default = cuSPARSE on CUDA, native) and the automatic choice's fraction of the copy rate."""
    mats = spmv_matrices(platform, precision)
    out = {}
    for cls in CLASSES:
        ms = [m for m in mats if m.cls == cls]
        if not ms:
            continue
        auto_copy = [m.by_format["auto"].get("frac_copy") for m in ms if "auto" in m.by_format]
        out[cls] = {
            "n": len(ms),
            "auto_default": geomean(m.ratio("kk_default", "auto") for m in ms),
            "auto_native": geomean(m.ratio("kk_native", "auto") for m in ms),
            "best_default": geomean(m.ratio("kk_default", "best") for m in ms),
            "auto_of_best": geomean(1.0 / m.ratio("auto", "best") for m in ms
                                    if m.ratio("auto", "best") > 0),
            "auto_copy": statistics.median(auto_copy) if auto_copy and cls != "small"
            else float("nan"),
            "worst_auto_default": min((m.ratio("kk_default", "auto") for m in ms
                                       if not math.isnan(m.ratio("kk_default", "auto"))),
                                      default=float("nan")),
        }
    return out


def summary_table(platform):
    header = [("class", "l"), ("matrices", "r")]
    precisions = [p for p in ("double", "float")
                  if any(r.bench == "spmv" and r.precision == p for r in platform.results)]
    sums = {p: summary_rows(platform, p) for p in precisions}
    d = platform.default_name
    for p in precisions:
        tag = "FP64" if p == "double" else "FP32"
        header += [("{} auto vs {}".format(tag, d), "r"), ("{} auto vs KK native".format(tag), "r")]
        if p == "double":
            header += [("FP64 worst auto vs {}".format(d), "r"), ("FP64 best vs {}".format(d), "r"),
                       ("FP64 auto / best", "r"), ("FP64 auto, of copy", "r")]
    rows = []
    for cls in CLASSES:
        if not any(cls in sums[p] for p in precisions):
            continue
        n = max(sums[p].get(cls, {}).get("n", 0) for p in precisions)
        cells = [CLASS_TITLES[cls], n]
        for p in precisions:
            s = sums[p].get(cls, {})
            cells += [fmt(s.get("auto_default")), fmt(s.get("auto_native"))]
            if p == "double":
                cells += [fmt(s.get("worst_auto_default")), fmt(s.get("best_default")),
                          fmt(s.get("auto_of_best")), fmt(s.get("auto_copy"))]
        rows.append(cells)
    return table(header, rows)


def which_format(platforms):
    """Per class and platform, the format families that were fastest (FP64) and how often."""
    header = [("class", "l")] + [(p.title, "l") for p in platforms]
    rows = []
    for cls in CLASSES:
        cells = [CLASS_TITLES[cls]]
        any_cell = False
        for p in platforms:
            counts = defaultdict(int)
            ms = [m for m in spmv_matrices(p, "double") if m.cls == cls and m.best_format]
            for m in ms:
                counts[m.best_format.format] += 1
            if ms:
                any_cell = True
                top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
                cells.append(", ".join("`{}` {}".format(f, c) for f, c in top) +
                             " of {}".format(len(ms)))
            else:
                cells.append("-")
        if any_cell:
            rows.append(cells)
    return table(header, rows)


def per_matrix_table(platforms):
    """FP64 per matrix: the automatic choice against the default Kokkos Kernels SpMV on every
    platform, and the format it chose where the run recorded it."""
    header = [("matrix", "l"), ("class", "l")]
    header += [("{}: auto vs {}".format(p.title, p.default_name), "r") for p in platforms]
    mats = {}
    for p in platforms:
        for m in spmv_matrices(p, "double"):
            mats.setdefault(m.matrix, {})[p.name] = m
    rows = []
    from .results import matrix_key

    for name in sorted(mats, key=lambda n: (CLASSES.index(next(iter(mats[n].values())).cls),
                                            matrix_key(n))):
        first = next(iter(mats[name].values()))
        cells = [name, first.cls]
        for p in platforms:
            m = mats[name].get(p.name)
            cells.append(fmt(m.ratio("kk_default", "auto")) if m else "-")
        rows.append(cells)
    return table(header, rows)


def cg_table(platforms):
    """Time per CG iteration at each platform's largest FEM size: SpMVKit's fused CG with the
    fastest format of the run against KokkosBlas vectors + the default Kokkos Kernels SpMV."""
    header = [("platform", "l"), ("N", "r"), ("SpMVKit ms/it", "r"), ("format", "l"),
              ("KokkosBlas + KK default ms/it", "r"), ("ratio", "r")]
    rows = []
    for p in platforms:
        cg = [r for r in p.results if r.bench == "cg" and r.precision == "double"]
        if not cg:
            continue
        n_max = max(r.fem_n for r in cg)
        at = [r for r in cg if r.fem_n == n_max]
        ours = [r for r in at if r.family != "kk" and r.options.get("cg", "fused") == "fused"]
        theirs = [r for r in at if r.format == "kk_default" and
                  r.row["run_name"].endswith("/kokkos_blas")]
        if not ours or not theirs:
            continue
        best = min(ours, key=lambda r: r.get("time_per_iteration_s"))
        t_ours = best.get("time_per_iteration_s")
        t_kk = theirs[0].get("time_per_iteration_s")
        rows.append([p.title, n_max, fmt(t_ours * 1e3, 3), "`{}`".format(best.format),
                     fmt(t_kk * 1e3, 3), fmt(t_kk / t_ours)])
    return table(header, rows) if rows else ["(no CG run in these files)"]


def spgemm_table(platforms):
    """C = A A, total (symbolic + numeric) and numeric alone, geomean by class of Kokkos Kernels'
    time over SpMVKit's (default = cuSPARSE on CUDA)."""
    header = [("platform", "l"), ("class", "l"), ("matrices", "r"), ("total vs KK default", "r"),
              ("total vs KK native", "r"), ("numeric vs KK default", "r")]
    rows = []
    for p in platforms:
        classes = {}
        for m in spmv_matrices(p, "double"):
            classes[m.matrix] = m.cls
        times = defaultdict(dict)
        for r in p.results:
            if r.bench == "spgemm" and r.precision == "double":
                parts = r.row["run_name"].split("/")
                if len(parts) >= 5:
                    times[r.matrix][(parts[3], parts[4])] = r.get("time_s")
        by_class = defaultdict(list)
        for matrix, t in times.items():
            cls = classes.get(matrix)
            if cls is None:
                cls = "fem" if matrix.startswith("fem_N") else (
                    "power-law" if matrix.startswith("rmat_") else "real")
            by_class[cls].append(t)
        for cls in CLASSES + ["real"]:
            ts = by_class.get(cls)
            if not ts:
                continue

            def g(impl, phase, ts=ts):
                return geomean(t.get((impl, phase), float("nan")) / t.get(("spmvkit", phase),
                                                                          float("nan"))
                               for t in ts)

            rows.append([p.title, CLASS_TITLES.get(cls, cls), len(ts), fmt(g("kk_default", "total")),
                         fmt(g("kk_native", "total")), fmt(g("kk_default", "numeric"))])
    return table(header, rows) if rows else ["(no SpGEMM run in these files)"]


def solve_table(platforms):
    header = [("platform", "l"), ("matrix", "l"), ("solver", "l"), ("preconditioner", "l"),
              ("SpMVKit ms", "r"), ("its", "r"), ("KK twin / SpMVKit", "r"),
              ("PETSc / SpMVKit", "r")]
    rows = []
    for p in platforms:
        groups = defaultdict(dict)
        for r in p.results:
            if r.bench == "solve" and r.precision == "double":
                parts = r.row["run_name"].split("/")
                if len(parts) >= 6:
                    groups[(parts[2], parts[3], parts[4])][parts[5]] = r
        for key in sorted(groups):
            g = groups[key]
            ours = g.get("spmvkit")
            if not ours:
                continue
            t = ours.get("time_s")

            def q(impl, g=g, t=t):
                r = g.get(impl)
                return fmt(r.get("time_s") / t) if r else "-"

            rows.append([p.title, key[0], key[1], key[2], fmt(t * 1e3, 1),
                         int(ours.get("solver_iterations", 0)), q("kk"), q("petsc")])
    return table(header, rows) if rows else ["(no solve run in these files)"]


def speedup_bars(ax, labels, auto, best, colors):
    """Bars of the automatic choice and the best format side by side, with the 1.0 line."""
    x = range(len(labels))
    ax.bar([i - 0.2 for i in x], auto, 0.4, label="auto", color=colors[0])
    ax.bar([i + 0.2 for i in x], best, 0.4, label="best format", color=colors[1])
    ax.axhline(1.0, color="black", linewidth=1, linestyle=":")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
    ax.legend(fontsize=7)


def save(fig, out_dir, name):
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def charts(platforms, out_dir):
    """summary.png (the class geomeans), fem.png (GB/s against N), powerlaw.png (per graph)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    made = []
    n = len(platforms)
    # 1. The summary: auto and best against the default Kokkos Kernels SpMV, per class.
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.4), squeeze=False)
    for ax, p in zip(axes[0], platforms):
        s = summary_rows(p, "double")
        cls = [c for c in CLASSES if c in s]
        speedup_bars(ax, cls, [s[c]["auto_default"] for c in cls],
                     [s[c]["best_default"] for c in cls], ("#1f77b4", "#aec7e8"))
        ax.set_title("{}: vs {} (FP64)".format(p.title, p.default_name), fontsize=9)
        ax.set_ylabel("speed-up (geomean)")
    made.append(save(fig, out_dir, "summary.png"))
    # 2. The FEM sweep: GB/s against N, with the copy rate.
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.4), squeeze=False)
    for ax, p in zip(axes[0], platforms):
        rows = [r for r in p.results if r.bench == "spmv" and r.precision == "double" and
                r.matrix.startswith("fem_N")]
        for fmt_name, style in (("auto", "-o"), ("kk_native", ":s"), ("kk_default", "--^")):
            pts = sorted((r.fem_n, r.get("GB/s")) for r in rows if r.format == fmt_name)
            if pts:
                ax.plot([a for a, _ in pts], [b for _, b in pts], style, label=fmt_name,
                        markersize=4)
        best = defaultdict(float)
        for r in rows:
            if r.family != "kk" and r.format not in OURS_EXCLUDED:
                best[r.fem_n] = max(best[r.fem_n], r.get("GB/s"))
        if best:
            pts = sorted(best.items())
            ax.plot([a for a, _ in pts], [b for _, b in pts], "-", color="#aec7e8",
                    label="best format")
        if not math.isnan(p.copy_gbs):
            ax.axhline(p.copy_gbs, color="grey", linewidth=1, label="copy")
        ax.set_title("{}: FEM SpMV (FP64)".format(p.title), fontsize=9)
        ax.set_xlabel("N")
        ax.set_ylabel("GB/s (byte model)")
        ax.legend(fontsize=7)
    made.append(save(fig, out_dir, "fem.png"))
    # 3. Power-law graphs: the automatic choice and the best format against the default SpMV.
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.4), squeeze=False)
    for ax, p in zip(axes[0], platforms):
        ms = sorted((m for m in spmv_matrices(p, "double") if m.cls == "power-law"),
                    key=lambda m: (m.by_format.get("kk_native") or m.best).get("nnz", 0))
        speedup_bars(ax, [m.matrix for m in ms], [m.ratio("kk_default", "auto") for m in ms],
                     [m.ratio("kk_default", "best") for m in ms], ("#d62728", "#ff9896"))
        ax.set_title("{}: power-law vs {} (FP64)".format(p.title, p.default_name), fontsize=9)
        ax.set_ylabel("speed-up")
    made.append(save(fig, out_dir, "powerlaw.png"))
    return made


def wrap(text, width=96):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w).strip()
    return lines + ([line] if line else [])


def page(platforms, chart_paths, chart_prefix, reproduce, note=""):
    """The markdown of docs/performance.md."""
    out = ["# SpMVKit performance", "",
           "<!-- Generated by scripts/perf_page.py from docs/perf/*.csv: do not edit by hand. -->",
           "",
           "Speed-ups are the other library's time over SpMVKit's, measured side by side in one",
           "run (> 1: SpMVKit is faster), geometric means over a class's matrices. `auto` is",
           "`make_auto_matrix` (the automatic format choice), `best` the fastest SpMVKit format",
           "of the run (an oracle), KK native / KK default Kokkos Kernels' `KokkosSparse::spmv`",
           "(default = cuSPARSE on CUDA). 'Of copy' is the automatic choice's rate in bytes of the",
           "byte model over the copy rate of the same binary (the median over the class).", ""]
    if note:
        out += wrap(note) + [""]
    out += ["## Summary: SpMV by matrix class", ""]
    for p in platforms:
        out += ["### {}".format(p.title), ""] + summary_table(p) + [""]
    if chart_paths:
        out += ["![summary]({})".format(chart_prefix + os.path.basename(chart_paths[0])), ""]
    out += ["Classes (`scripts/perf/page.py`): FEM = the generated problems; small = CRS under "
            "4 MiB (in",
            "cache: compare times, not bandwidths); power-law = R-MAT and hub-row graphs;",
            "irregular = row lengths varying by 40 % of the mean or more; regular = the rest.", ""]
    out += ["## Platforms and runs", ""]
    header = [("platform", "l"), ("device", "l"), ("backend", "l"), ("Kokkos", "l"),
              ("SpMVKit commit", "l"), ("date (UTC)", "l")]
    rows = []
    for p in platforms:
        c = p.context
        rows.append([p.title, c.get("device_name", ""), "{} ({})".format(
            c.get("execution_space", ""), c.get("concurrency", "")), c.get("kokkos_version", ""),
            # " | " separated the values in CSVs of before 2026-11-29; a table cell cannot hold it
            (c.get("spmvkit_git_hash", "") or "-").replace(" ; ", ", ").replace(" | ", ", "),
            ", ".join(d[:16] for d in c.get("date", "").replace(" | ", " ; ").split(" ; "))])
    out += table(header, rows) + [""]
    out += ["## Which format when", "",
            "The fastest SpMVKit formats per class (FP64; how many of the class's matrices each",
            "won). `make_auto_matrix` chooses among them by a fitted cost model",
            "(`docs/format_selection.md`); override it with a format of your own where this table",
            "and your matrix agree.", ""]
    out += which_format(platforms) + [""]
    if len(chart_paths) > 1:
        out += ["## FEM", "", "![fem]({})".format(chart_prefix + os.path.basename(chart_paths[1])),
                ""]
    if len(chart_paths) > 2:
        out += ["## Power-law graphs", "",
                "![powerlaw]({})".format(chart_prefix + os.path.basename(chart_paths[2])), ""]
    out += ["## Every matrix (FP64)", ""] + per_matrix_table(platforms) + [""]
    out += ["## CG", "", "Time per iteration, FEM problem, standard CG to 1e-8 (FP64).", ""]
    out += cg_table(platforms) + [""]
    out += ["## SpGEMM", "", "C = A A (FP64), geomean of Kokkos Kernels' time over SpMVKit's.",
            ""]
    out += spgemm_table(platforms) + [""]
    out += ["## Solvers", "",
            "One solve to the tolerance from the problem's start, preconditioner set-up excluded",
            "(`docs/solvers.md`); the KK twin is the same method on KokkosBlas + Kokkos Kernels'",
            "SpMV.", ""]
    out += solve_table(platforms) + [""]
    out += ["## On OpenMP: let the threads spin", "",
            "With libgomp's default wait policy the OpenMP threads may sleep between kernels, and "
            "waking them",
            "costs each launch 10-15 µs on the 2-core VM. Solvers and small matrices launch "
            "kernels of tens of",
            "µs back to back: `OMP_WAIT_POLICY=active` made a BiCGStab-Jacobi solve of 3D "
            "convection-diffusion",
            "N = 32 (30K rows) 1.77x faster and SpMV on 1138_bus 3-4x faster, and changed large "
            "matrices",
            "little (FEM N = 32: 5-10%). Set it unless other work (MPI progress, the "
            "application's own threads)",
            "needs those cores between kernels; `scripts/run_main.sh` sets it unless it is set. "
            "The tables on",
            "this page were measured without it. Runs: "
            "`docs/notes/2026-12-01-omp-wait-policy.md`.", ""]
    out += ["## How it is measured", "",
            "Fence before and after each timed call, warm-up, medians of repetitions, every result",
            "checked against Kokkos Kernels before it is timed; bytes by the byte model of",
            "`perf_tests/README.md` (which also lists every benchmark and option). Dated",
            "experiments behind kernel choices are in `docs/notes/`.", "",
            "Reproduce a platform's run and this page:", "", "```sh", reproduce, "```", ""]
    return "\n".join(out)
