# SPDX-FileCopyrightText: 2026 SpMVKit contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Colours, line styles and markers of the formats, derived from family and options only.

Each format family gets a colour map of its own (in run order) and a marker; within a family the
first option that varies between its formats picks the shade, the second the line style (for
SELL-C-sigma: C the shade, sigma the line style). The reference (Kokkos Kernels) is black and
grey, dotted. A family that appears for the first time gets the next colour map: nothing here
needs to change when a format is added.
"""

from .results import REFERENCE_FAMILIES, option_value

FAMILY_CMAPS = ["Reds", "Blues", "Purples", "Greens", "Oranges", "YlOrBr", "PuRd", "BuGn",
                "GnBu", "RdPu"]
FAMILY_MARKERS = ["^", "o", "D", "v", "P", "X", "h", "<", ">", "*"]
LINESTYLES = ["-", "--", "-.", (0, (1, 1)), (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
REFERENCE_COLORS = ["#000000", "#7f7f7f", "#bdbdbd"]


def colormap(name):
    import matplotlib

    if hasattr(matplotlib, "colormaps"):  # matplotlib >= 3.5
        return matplotlib.colormaps[name]
    return matplotlib.cm.get_cmap(name)


class Styles:
    """Style of every format of a Results set."""

    def __init__(self, results):
        self._style = {}
        by_family = {}
        for r in results:
            if r.bench in ("copy", "read"):
                continue
            fmt = by_family.setdefault(r.family, {})
            if r.format not in fmt:
                fmt[r.format] = r.options
        ordinary = [f for f in results.families() if f not in REFERENCE_FAMILIES]
        for i, family in enumerate(ordinary):
            cmap = colormap(FAMILY_CMAPS[i % len(FAMILY_CMAPS)])
            marker = FAMILY_MARKERS[i % len(FAMILY_MARKERS)]
            formats = sorted(by_family.get(family, {}), key=results.format_key)
            opts = by_family.get(family, {})
            keys = []
            for f in formats:
                for k in opts[f]:
                    if k not in keys:
                        keys.append(k)
            varying = [k for k in keys if len({opts[f].get(k) for f in formats}) > 1]
            levels = [sorted({opts[f].get(k, "") for f in formats}, key=option_value)
                      for k in varying]
            for j, f in enumerate(formats):
                if varying:
                    shade_levels = levels[0]
                    idx = shade_levels.index(opts[f].get(varying[0], ""))
                    shade = 0.45 + 0.5 * idx / max(1, len(shade_levels) - 1)
                else:
                    shade = 0.45 + 0.5 * j / max(1, len(formats) - 1)
                ls = "-"
                if len(varying) > 1:
                    ls = LINESTYLES[levels[1].index(opts[f].get(varying[1], "")) % len(LINESTYLES)]
                self._style[f] = {"color": cmap(shade), "linestyle": ls, "marker": marker,
                                  "markersize": 4, "linewidth": 1.6}
        refs = sorted((f for fam in REFERENCE_FAMILIES for f in by_family.get(fam, {})),
                      key=results.format_key)
        for j, f in enumerate(refs):
            self._style[f] = {"color": REFERENCE_COLORS[j % len(REFERENCE_COLORS)],
                              "linestyle": ":", "marker": "s", "linewidth": 2.0}
        self._reference = set(refs)

    def line(self, name):
        return dict(self._style.get(name, {"color": "#bcbd22", "linestyle": "-", "marker": "."}))

    def color(self, name):
        return self.line(name)["color"]

    def hatch(self, name):
        return "//" if name in self._reference else None
