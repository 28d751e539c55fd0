# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The evaluation of the automatic format choice (select/, issue 14) from one spmvkit_perf run:
for every matrix and precision, what `auto` (model mode) and `auto_tune` chose, their SpMV time
against the oracle (the fastest format variant of the same run) and against Kokkos Kernels
(kk_default: cuSPARSE on CUDA builds; kk_native), and what the choice cost in SpMVs.

    /usr/bin/python3 -m scripts.perf.selection run.json [--holdout a,b] [--out table.md]
"""

import argparse
import math
import sys

from . import results as perf_results

WITHIN = 1.10  # "within 10% of the best": t_auto <= 1.1 t_oracle
IRREGULAR_VARIANCE = 10.0  # the CSR-k paper's rule: row-length variance > 10 is irregular


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def evaluate(rows, holdout):
    """Per (precision, matrix): a dict of the evaluation columns."""
    table = []
    spmv = [r for r in rows if r.bench == "spmv"]
    keys = sorted({(r.precision, r.matrix) for r in spmv},
                  key=lambda k: (k[0], perf_results.matrix_key(k[1])))
    for precision, matrix in keys:
        group = [r for r in spmv if r.precision == precision and r.matrix == matrix]
        by_format = {r.format: r for r in group}
        variants = [r for r in group if not r.is_reference and r.family != "auto"]
        if not variants or "auto" not in by_format:
            continue
        oracle = min(variants, key=lambda r: r.get("time_s"))
        auto = by_format["auto"]
        tune = by_format.get("auto_tune")
        t_auto = auto.get("time_s")
        entry = {
            "precision": precision,
            "matrix": matrix,
            "nnz": int(auto.get("nnz", 0)),
            "variance": auto.get("f_row_variance"),
            "irregular": auto.get("f_row_variance") > IRREGULAR_VARIANCE,
            "held_out": matrix in holdout,
            "chosen": auto.options.get("chosen", "?"),
            "t_auto": t_auto,
            "oracle": oracle.format,
            "t_oracle": oracle.get("time_s"),
            "ratio": oracle.get("time_s") / t_auto,
            "tune_chosen": tune.options.get("chosen", "?") if tune else "",
            "tune_ratio": oracle.get("time_s") / tune.get("time_s") if tune else float("nan"),
            "vendor_ratio": by_format["kk_default"].get("time_s") / t_auto
            if "kk_default" in by_format else float("nan"),
            "native_ratio": by_format["kk_native"].get("time_s") / t_auto
            if "kk_native" in by_format else float("nan"),
            "features_spmvs": auto.get("select_features_s") / t_auto,
            "construction_spmvs": (auto.get("select_check_s", 0.0) +
                                   auto.get("select_features_s") +
                                   auto.get("select_conversion_s")) / t_auto,
        }
        table.append(entry)
    return table


def markdown(table, context):
    out = []
    dev = context.get("device_name", "?")
    out.append(f"Run: {dev} ({context.get('execution_space', '?')}, "
               f"{context.get('concurrency', '?')} threads), Kokkos "
               f"{context.get('kokkos_version', '?')}, {context.get('spmvkit_date', '?')}, "
               f"SpMVKit {context.get('spmvkit_git_hash', '?')[:12]}.")
    out.append("")
    out.append("| precision | matrix | nnz | var | chosen (model) | oracle | model/oracle | "
               "tune/oracle | vs KK default | vs KK native | features, construction (SpMVs) |")
    out.append("|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|")
    for e in table:
        mark = " (held out)" if e["held_out"] else ""
        out.append(
            f"| {e['precision']} | {e['matrix']}{mark} | {e['nnz']} | {e['variance']:.1f} | "
            f"{e['chosen']} | {e['oracle']} | {e['ratio']:.2f} | {e['tune_ratio']:.2f} | "
            f"{e['vendor_ratio']:.2f} | {e['native_ratio']:.2f} | "
            f"{e['features_spmvs']:.1f}, {e['construction_spmvs']:.1f} |")
    out.append("")
    out.append("Ratios are speed-ups (time of the other / time of the automatic choice): "
               "model/oracle <= 1 by construction up to noise.")
    out.append("")
    for label, subset in (("all", table), ("held out", [e for e in table if e["held_out"]]),
                          ("fitted", [e for e in table if not e["held_out"]])):
        if not subset:
            continue
        within = sum(1 for e in subset if e["t_auto"] <= WITHIN * e["t_oracle"])
        regular = [e for e in subset if not e["irregular"]]
        irregular = [e for e in subset if e["irregular"]]
        out.append(
            f"- {label} ({len(subset)} matrix-precision pairs): model within 10% of the oracle on "
            f"{within}/{len(subset)} ({100.0 * within / len(subset):.0f}%), geometric mean "
            f"{geomean([e['ratio'] for e in subset]):.3f} of the oracle; tune "
            f"{geomean([e['tune_ratio'] for e in subset]):.3f}; vs KK default: regular "
            f"{geomean([e['vendor_ratio'] for e in regular]):.2f}x ({len(regular)}), irregular "
            f"{geomean([e['vendor_ratio'] for e in irregular]):.2f}x ({len(irregular)}); vs KK "
            f"native {geomean([e['native_ratio'] for e in subset]):.2f}x.")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", nargs="+")
    ap.add_argument("--holdout", default="", help="matrices left out of the model's fit")
    ap.add_argument("--out", help="write the markdown here (default: stdout)")
    a = ap.parse_args(argv)
    context, rows, _ = perf_results.load(a.json)
    table = evaluate(rows, {m for m in a.holdout.split(",") if m})
    text = markdown(table, context)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
