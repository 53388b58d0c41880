#!/usr/bin/python3
"""Bus bandwidth against message size, from any benchmark's CSV: one line
per (CSV, column), every transport side by side, optionally in several
panels of one PNG. Debian's matplotlib (/usr/bin/python3).

A CSV needs a size column (default `bytes`) and a busbw column per
transport, in GB/s: strata-mpi-bench writes mpi_busbw_gbs,
strata_busbw_gbs and bound_busbw_gbs (the memory bound); strata-ring-bench
mpi_busbw, gloo_busbw, strata_busbw; python3 -m strata.torch.bench
<side>_busbw_gbs. Rows whose value is empty, zero or not a number are
left out (a log axis cannot show them).

    /usr/bin/python3 tools/plot_busbw.py out.png --title "all_reduce, 2 ranks" \\
        --series np2.csv mpi_busbw_gbs "Open MPI vader" \\
        --series np2.csv strata_busbw_gbs "shm/all_reduce/..." \\
        --bound np2.csv bound_busbw_gbs "memory bound"

--panel TITLE starts a new panel; the --series and --bound after it go in
it (panels are laid out in a grid of --columns). --bound draws a dashed
line without markers, for bounds and other references. From Python:
plot(path, [Panel("title", [Series("a.csv", "col", "label")])]).
"""

import argparse
import csv
import math
import os
import sys
from dataclasses import dataclass, field


@dataclass
class Series:
    csv_path: str
    column: str
    label: str
    dashed: bool = False


@dataclass
class Panel:
    title: str = ""
    series: list = field(default_factory=list)


def read_points(series, x_column="bytes"):
    """(size, busbw) pairs of one CSV column, ascending by size; a missing
    column is an error that names the columns there are."""
    with open(series.csv_path, newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        for wanted in (x_column, series.column):
            if wanted not in columns:
                raise ValueError(f"{series.csv_path}: no column {wanted!r} "
                                 f"(columns: {', '.join(columns)})")
        points = []
        for row in reader:
            try:
                x, y = float(row[x_column]), float(row[series.column])
            except (TypeError, ValueError):
                continue
            if x > 0 and y > 0 and math.isfinite(y):
                points.append((x, y))
    return sorted(points)


def format_size(nbytes, _position=None):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g}{unit}"
    return f"{nbytes:g}B"


def _size_ticks(ax, sizes):
    """A labelled tick every power of two up to a dozen, counted down from
    the largest size (so 64MiB, a target's size, is always labelled)."""
    from matplotlib.ticker import NullFormatter
    if not sizes:
        return
    low, high = (int(math.floor(math.log2(min(sizes)))), int(math.ceil(math.log2(max(sizes)))))
    step = max(1, math.ceil((high - low + 1) / 12))
    ax.set_xticks([2.0 ** k for k in range(high, low - 1, -step)])
    ax.set_xticks([2.0 ** k for k in range(low, high + 1)], minor=True)
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot(path, panels, title="", x_column="bytes", columns=2, ylabel="busbw (GB/s)"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    panels = [p for p in panels if p.series]
    if not panels:
        raise ValueError("nothing to plot: no --series")
    ncols = min(columns, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.5 * nrows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, panel in zip(axes.flat, panels):
        sizes = set()
        for s in panel.series:
            points = read_points(s, x_column)
            sizes.update(x for x, _ in points)
            if not points:
                print(f"plot_busbw: {s.csv_path}:{s.column} has no positive value",
                      file=sys.stderr)
                continue
            style = dict(linestyle="--", color="grey") if s.dashed else dict(marker="o",
                                                                            markersize=3)
            ax.plot(*zip(*points), label=s.label, **style)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        _size_ticks(ax, sizes)
        ax.xaxis.set_major_formatter(FuncFormatter(format_size))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_xlabel("size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title(panel.title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp.png"  # written whole, then renamed: no half a PNG
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


class _AddToPanel(argparse.Action):
    """Keeps --panel, --series and --bound in command-line order."""

    def __call__(self, parser, namespace, values, option_string=None):
        panels = getattr(namespace, "panels", None) or [Panel()]
        if option_string == "--panel":
            panels.append(Panel(values))
        else:
            panels[-1].series.append(Series(*values, dashed=option_string == "--bound"))
        namespace.panels = panels


def main(argv=None):
    p = argparse.ArgumentParser(prog="plot_busbw.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("png", help="the PNG to write")
    p.add_argument("--title", default="", help="over all panels")
    p.add_argument("--x", default="bytes", dest="x_column", help="size column (bytes)")
    p.add_argument("--columns", type=int, default=2, help="panels per row (2)")
    p.add_argument("--ylabel", default="busbw (GB/s)")
    p.add_argument("--panel", metavar="TITLE", action=_AddToPanel, help="start a panel")
    for flag, what in (("--series", "a line with markers"), ("--bound", "a dashed line")):
        p.add_argument(flag, nargs=3, metavar=("CSV", "COLUMN", "LABEL"), action=_AddToPanel,
                       help=what)
    args = p.parse_args(argv)
    try:
        plot(args.png, getattr(args, "panels", None) or [], args.title, args.x_column,
             args.columns, args.ylabel)
    except (OSError, ValueError) as e:
        print(f"plot_busbw: {e}", file=sys.stderr)
        return 1
    print(f"# wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
