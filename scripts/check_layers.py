#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that no header of a lower domain includes a higher one.

The domains of include/spmvkit/ are layered; a header may include headers of its own layer or of
lower ones only, so that a change high up (a SpGEMM constant, a solver) never rebuilds what lies
below it and the library can be read from the bottom up:

  0 core
  1 formats, reorder      (CSR-k's Band-k ordering; reorderings of CRS)
  2 select, operations, spgemm, problems, io
  3 solvers
  4 interop
  5 distributed
  6 spmvkit.hpp           (the umbrella header)

Deprecated forwarding headers may point upwards until they are removed (FORWARDING below).
Exit status 1 and one line per offending include, 0 when every include goes down or sideways.
Usage: scripts/check_layers.py [include_dir]
"""
import pathlib
import re
import sys

LAYERS = {
    "core": 0,
    "formats": 1,
    "reorder": 1,
    "select": 2,
    "operations": 2,
    "spgemm": 2,
    "problems": 2,
    "io": 2,
    "solvers": 3,
    "interop": 4,
    "distributed": 5,
    "spmvkit.hpp": 6,
}
# Old paths kept for one minor version, forwarding to where the code moved.
FORWARDING = {"reorder/reordered_operator.hpp"}
INCLUDE = re.compile(r'^\s*#\s*include\s*<spmvkit/([^>]+)>')


def domain(relative):
    return relative.split("/", 1)[0]


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                        pathlib.Path(__file__).resolve().parent.parent / "include") / "spmvkit"
    problems = []
    headers = sorted(root.rglob("*.hpp"))
    if not headers:
        print(f"check_layers: no headers under {root}", file=sys.stderr)
        return 2
    for header in headers:
        relative = header.relative_to(root).as_posix()
        own = domain(relative)
        if own not in LAYERS:
            problems.append(f"{relative}: domain '{own}' has no layer in check_layers.py")
            continue
        if relative in FORWARDING:
            continue
        for number, line in enumerate(header.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            other = domain(target)
            if other not in LAYERS:
                continue  # generated headers (version.hpp) and the like
            if LAYERS[other] > LAYERS[own]:
                problems.append(f"include/spmvkit/{relative}:{number}: {own} (layer {LAYERS[own]}) "
                                f"includes {target} ({other}, layer {LAYERS[other]})")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layering", file=sys.stderr)
        return 1
    print(f"check_layers: {len(headers)} headers, every include goes down or sideways")
    return 0


if __name__ == "__main__":
    sys.exit(main())
