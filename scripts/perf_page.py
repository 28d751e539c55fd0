#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""docs/performance.md from one spmvkit_perf run per platform (the work is in scripts/perf/page.py).

    # 1. a platform's run (scripts/perf_suite.sh) -> its compact CSV
    /usr/bin/python3 scripts/perf_page.py compact --platform h200 --title "H200" \\
        run_spmv.json run_solve.json --out docs/perf/h200.csv
    # 2. every platform's CSV -> the page and its charts
    /usr/bin/python3 scripts/perf_page.py page docs/perf/h200.csv docs/perf/cpu16.csv \\
        docs/perf/cpu2.csv --out docs/performance.md --charts docs/perf/charts

The raw JSON is not kept in the repository: the CSV holds the median rows and the counters the
page reads, and the run's context (device, backend, Kokkos, commit, date, command line). Needs
python3 and matplotlib (Debian: python3-matplotlib) for the charts; --no-charts writes the page
alone.
"""

import argparse
import os
import sys

from perf import page


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compact", help="one platform's benchmark JSON -> its compact CSV")
    c.add_argument("json", nargs="+")
    c.add_argument("--platform", required=True, help="short name, e.g. h200, cpu16, cpu2")
    c.add_argument("--title", required=True, help="name on the page, e.g. 'H200 (CUDA)'")
    c.add_argument("--out", required=True)
    g = sub.add_parser("page", help="compact CSV files -> docs/performance.md and charts")
    g.add_argument("csv", nargs="+")
    g.add_argument("--out", required=True)
    g.add_argument("--charts", help="folder of the charts (default: none written)")
    g.add_argument("--no-charts", action="store_true")
    g.add_argument("--note", default="", help="a paragraph under the title (e.g. what is stale)")
    g.add_argument("--max-lines", type=int, default=300,
                   help="fail when the page is longer (default 300)")
    args = ap.parse_args()
    if args.command == "compact":
        for path in args.json:
            if not os.path.isfile(path):
                sys.exit("perf_page.py: no file '{}'".format(path))
        n = page.compact(args.json, args.platform, args.title, args.out)
        if n == 0:
            sys.exit("perf_page.py: no successful spmv, cg, spgemm or solve row in " +
                     ", ".join(args.json))
        print("wrote {} ({} rows)".format(args.out, n))
        return
    platforms = []
    for path in args.csv:
        if not os.path.isfile(path):
            sys.exit("perf_page.py: no file '{}'".format(path))
        platforms.append(page.Platform(path))
    charts = []
    prefix = ""
    if args.charts and not args.no_charts:
        charts = page.charts(platforms, args.charts)
        prefix = os.path.relpath(args.charts, os.path.dirname(os.path.abspath(args.out))) + "/"
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    reproduce = "\n".join([
        "bash scripts/perf_suite.sh <platform> <title>   # a run -> docs/perf/<platform>.csv",
        "/usr/bin/python3 scripts/perf_page.py page {} \\".format(
            " ".join(os.path.relpath(os.path.abspath(p), repo) for p in args.csv)),
        "    --out docs/performance.md --charts docs/perf/charts"])
    text = page.page(platforms, charts, prefix, reproduce, args.note)
    lines = text.count("\n") + 1
    if lines > args.max_lines:
        sys.exit("perf_page.py: the page has {} lines, more than --max-lines {}".format(
            lines, args.max_lines))
    with open(args.out, "w") as f:
        f.write(text)
    print("wrote {} ({} lines, {} charts)".format(args.out, lines, len(charts)))


if __name__ == "__main__":
    main()
