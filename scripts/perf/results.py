# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Benchmark rows of spmvkit_perf's JSON: the median per benchmark, its name split into parts,
and its format family and options read from the label.

spmvkit_perf labels every benchmark with "key=value;..." (perf_tests/README.md, "Labels"):

    family=sell;format=sell_c32_s1;C=32;sigma=1      a format variant (family = F::family)
    family=kk;format=kk_native;algorithm=native      Kokkos Kernels, the reference
    family=cusparse;format=cusparse_best;...         cuSPARSE called directly (CUDA builds)
    yardstick=copy                                   the copy and read yardsticks

JSON written before the labels existed (runs before 2026-11-22) has no label: for those rows
only, family and options are recovered from the known format names of that time
(LEGACY_FORMATS). Rows with a label never go through that table.
"""

import json
import math
import re
import statistics
from collections import defaultdict

REFERENCE_FAMILY = "kk"  # Kokkos Kernels: the reference every format is compared with
# Families that are references, not SpMVKit formats: Kokkos Kernels and cuSPARSE called directly.
REFERENCE_FAMILIES = (REFERENCE_FAMILY, "cusparse")

# Format names of the JSON written before labels (SpMVKit 0.2.0 and earlier): name pattern,
# family, option keys of the groups. Only for rows without a label.
LEGACY_FORMATS = [
    (r"crs_(row_per_thread|vector)$", "crs", ["kernel"]),
    (r"crs$", "crs", []),
    (r"sell16_c(\d+)_s(\d+)$", "sell16", ["C", "sigma"]),
    (r"sell_c(\d+)_s(\d+)$", "sell", ["C", "sigma"]),
    (r"kk_(native|default)$", "kk", ["algorithm"]),
]


def parse_label(label):
    """'family=sell;C=32;sigma=1' -> {'family': 'sell', 'C': '32', 'sigma': '1'}."""
    fields = {}
    for item in (label or "").split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            fields[key.strip()] = value.strip()
    return fields


def legacy_fields(format_name):
    """Family and options of a format name from before the labels ({} if unknown)."""
    for pattern, family, keys in LEGACY_FORMATS:
        m = re.match(pattern, format_name)
        if m:
            fields = {"family": family, "format": format_name}
            fields.update(zip(keys, m.groups()))
            if family == "crs" and not keys:
                fields["kernel"] = "automatic"
            return fields
    return {}


def option_value(text):
    """Options compare as numbers where they are numbers."""
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


class Result:
    """One benchmark (median over repetitions): name parts, label fields, counters."""

    def __init__(self, row, order):
        self.row = row
        self.order = order  # position of the benchmark in the run: formats keep the run's order
        parts = row["run_name"].split("/")
        self.bench = parts[0]  # benchmark family: copy, read, spmv, spmv200, transfer, cg, solve
        self.precision = parts[1] if len(parts) > 1 else ""
        self.matrix = parts[2] if len(parts) > 2 else ""
        self.format = parts[3] if len(parts) > 3 else ""
        self.memory = parts[4] if self.bench == "transfer" and len(parts) > 4 else ""
        if self.bench in ("copy", "read"):
            self.format = "stream_" + self.bench
        fields = parse_label(row.get("label"))
        self.labelled = bool(fields)
        if not fields and self.bench not in ("copy", "read"):
            fields = legacy_fields(self.format)
        self.family = fields.pop("family", "")
        fields.pop("format", None)
        fields.pop("yardstick", None)
        self.options = fields  # the remaining key=value pairs, in label order

    def get(self, key, default=float("nan")):
        v = self.row.get(key, default)
        return default if v is None else v

    @property
    def is_reference(self):
        return self.family in REFERENCE_FAMILIES

    @property
    def kind(self):
        if self.matrix.endswith("_degree"):
            return "reordered"  # spmvkit_perf --orderings: kept out of the FEM/real/R-MAT classes
        if self.matrix.startswith("fem_N"):
            return "fem"
        if self.matrix.startswith("rmat_"):
            return "rmat"
        return "real"

    @property
    def fem_n(self):
        return int(self.get("fem_N", 0))


class Results(list):
    """The Result rows of one or more JSON files, with the order of formats and families as the
    benchmarks ran (the registry walks spmvkit::format_list, then Kokkos Kernels)."""

    def __init__(self, rows):
        super().__init__(Result(r, i) for i, r in enumerate(rows))
        self.format_rank = {}
        self.family_rank = {}
        self.format_family = {}
        for r in self:
            if r.bench in ("copy", "read"):
                continue
            self.format_rank.setdefault(r.format, len(self.format_rank))
            self.family_rank.setdefault(r.family, len(self.family_rank))
            self.format_family.setdefault(r.format, r.family)

    def format_key(self, name):
        """Sort key of a format name: its family's first appearance (references last), then
        the format's own first appearance."""
        family = self.format_family.get(name, "")
        ref = family in REFERENCE_FAMILIES
        return (1 if ref else 0, self.family_rank.get(family, 1 << 30),
                self.format_rank.get(name, 1 << 30), name)

    def families(self):
        """Format families in run order, the reference last."""
        fams = sorted(self.family_rank,
                      key=lambda f: (f in REFERENCE_FAMILIES, self.family_rank[f]))
        return [f for f in fams if f]

    def yardstick_gbs(self, which):
        v = [r.get("GB/s") for r in self if r.bench == which]
        return statistics.median(v) if v else float("nan")

    def has_counter(self, key):
        return any(key in r.row for r in self)


def load(paths):
    """Median rows per run: the 'median' aggregate, or the median of the iteration rows when a
    benchmark ran without aggregates. Returns (context, Results, rows kept for --compact-json)."""
    context = {}
    by_run = {}
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
            entry = by_run.setdefault(run, {"median": None, "runs": []})
            if row.get("run_type") == "aggregate":
                if row.get("aggregate_name") == "median":
                    entry["median"] = row
            else:
                entry["runs"].append(row)
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
    return context, Results(kept), kept


def model_row_terms(r):
    """The format model's row terms of a spmv row (select/format_costs.hpp, estimate_cost): the
    matrix's rows and rows times the standard deviation of its row lengths; for runs older than
    the model_rows counters, the same from rows and f_row_variance."""
    if "model_rows" in r.row:
        return r.get("model_rows"), r.get("model_row_spread")
    rows = r.get("rows")
    return rows, rows * math.sqrt(max(0.0, r.get("f_row_variance")))


def precisions_of(results):
    order = ["double", "float"]
    present = {r.precision for r in results if r.bench not in ("copy", "read")}
    return [p for p in order if p in present] + sorted(present - set(order))


def matrix_key(m):
    """FEM sizes first (by N), then real matrices, then R-MAT; a degree-ordered twin
    (spmvkit_perf --orderings: name + "_degree") right after its original."""
    twin = m.endswith("_degree")
    base = m[: -len("_degree")] if twin else m
    if base.startswith("fem_N"):
        return (0, int(base[5:]), "", twin)
    return (2 if base.startswith("rmat_") else 1, 0, base.lower(), twin)


def group_by(rows, key):
    out = defaultdict(list)
    for r in rows:
        out[key(r)].append(r)
    return out
