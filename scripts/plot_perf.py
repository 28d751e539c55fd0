#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Charts and tables from spmvkit_perf's Google Benchmark JSON.

    spmvkit_perf ... --benchmark_out=run.json --benchmark_out_format=json
    /usr/bin/python3 scripts/plot_perf.py run.json --out-dir perf_charts \\
        [--compact-json perf_charts/results.json] [--update-doc page.md --section cpu]

Writes into --out-dir:
  fem_gbs_<precision>.png      GB/s per format vs N on the FEM sweep (study fig. 2/3), the copy
                               and read yardsticks as lines
  spmv200_<precision>.png      time of 200 SpMVs vs N per format, with the transfer times (fig. 4)
  transfer_gbs.png             host -> device GB/s of matrix + 2 vectors vs N (fig. 5)
  cg.png                       CG MUPS and iterations vs N per format (fig. 6)
  cg_iteration.png             CG time per iteration vs N per format and variant, with the floor
  spgemm_<precision>.png       SpGEMM: Kokkos Kernels time / ours per matrix, per phase
  matrices_gbs_<precision>.png GB/s per format on the real and R-MAT matrices (bars)
  results.md                   the markdown tables (also what --update-doc inserts)
Every chart is stamped with device, backend, Kokkos version and date from the JSON context.
Format family and options come from each benchmark's label (perf_tests/README.md, "Labels"), so
a format added to the library needs no change here; JSON from before the labels is read too.
Needs only python3 and matplotlib (Agg backend; Debian: python3-matplotlib). The work is done by
the package scripts/perf/.
"""

import argparse
import json
import os
import sys

from perf import charts, results, style, tables


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
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="spmvkit_perf --benchmark_out JSON file(s)")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--compact-json", help="write the context and the median rows only (small)")
    ap.add_argument("--update-doc", help="markdown file whose GENERATED section is replaced")
    ap.add_argument("--section", default="cpu", help="name of that section (default cpu)")
    ap.add_argument("--chart-prefix", default=None,
                    help="path of the charts as seen from --update-doc (default: relative path)")
    args = ap.parse_args()

    ctx, rows, kept = results.load(args.json)
    if not rows:
        sys.exit("plot_perf.py: no successful benchmark in " + ", ".join(args.json))
    unlabelled = sorted({r.format for r in rows
                         if not r.labelled and not r.family and r.bench not in ("copy", "read")})
    if unlabelled:
        print("plot_perf.py: no label and not a known older format name, so no family: "
              + ", ".join(unlabelled), file=sys.stderr)
    os.makedirs(args.out_dir, exist_ok=True)
    made = charts.all_charts(rows, style.Styles(rows), ctx, args.out_dir)

    prefix = args.chart_prefix
    if prefix is None:
        base = (os.path.dirname(os.path.abspath(args.update_doc)) if args.update_doc
                else os.path.abspath(args.out_dir))
        prefix = os.path.relpath(os.path.abspath(args.out_dir), base) + "/"
        if prefix == "./":
            prefix = ""
    text = tables.markdown(rows, ctx, made, prefix)
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
