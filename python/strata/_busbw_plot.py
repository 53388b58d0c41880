"""Bus bandwidth against message size from benchmarks' CSVs: Strata's one
busbw plotter. Debian's matplotlib (/usr/bin/python3); runs from the source
tree as a script (no Strata build needed) or as strata._busbw_plot.

    /usr/bin/python3 python/strata/_busbw_plot.py --png OUT.png [--title T] \\
        [SWEEP.csv ...] [--panel TITLE] [--series CSV COLUMN LABEL] \\
        [--bound CSV COLUMN LABEL] ...

Sweep CSVs (strata-ring-bench, strata-gloo-anchor: tools/ring_bench/sweep.h)
have `bytes`, `<side>_busbw_gbs` per transport and `<a>_over_<b>` per busbw
ratio. Given as positional arguments they fill two panels: every side's
busbw, and below it every ratio around a rule at 1. Sides of the second and
later CSVs are dashed and labelled with the file's name.

Any other CSV with a size column (`bytes`, or --x) is drawn a column at a
time: --series CSV COLUMN LABEL adds a line with markers, --bound the same
as a grey dashed line (the memory bound, a reference), --panel TITLE starts
a new panel for the --series and --bound after it. strata-mpi-bench --csv
has mpi_busbw_gbs, strata_busbw_gbs and bound_busbw_gbs:

    /usr/bin/python3 python/strata/_busbw_plot.py --png all_reduce.png \\
        --title "all_reduce, vader vs shm" --panel "2 ranks" \\
        --series np2.csv mpi_busbw_gbs "Open MPI vader" \\
        --series np2.csv strata_busbw_gbs "shm/all_reduce/NAME" \\
        --bound np2.csv bound_busbw_gbs "memory bound"

Panels go in a grid --columns wide (2, or 1 when there are sweep CSVs, so
the ratios sit under their busbw). Rows whose value is empty, not a number
or not positive are left out (a log axis cannot show them); a missing
column is an error that lists the columns there are. The PNG is written
whole or not at all (_busbw_axes.render, which strata.torch.bench calls)."""

import argparse
import csv
import os
import sys

if __package__:
    from strata._busbw_axes import Line, Panel, render
else:  # run as a script: python/strata/ is sys.path[0]
    from _busbw_axes import Line, Panel, render

SWEEP_RATIO_LABEL = "busbw ratio (median of rounds)"


def _read_rows(path, wanted):
    """The rows of CSV `path` as dicts; an error naming the file and the
    columns it has when one of `wanted` is not among them."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        missing = [c for c in wanted if c not in columns]
        if missing:
            raise ValueError(f"{path}: no column {', '.join(map(repr, missing))} "
                             f"(columns: {', '.join(columns) or 'none, empty file'})")
        return columns, list(reader)


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _pairs(rows, x_column, column):
    pairs = ((_number(r[x_column]), _number(r[column])) for r in rows)
    return [(x, y) for x, y in pairs if x is not None and y is not None]


def read_column(path, column, x_column="bytes"):
    """(size, value) pairs of one column of a CSV."""
    _, rows = _read_rows(path, [x_column, column])
    return _pairs(rows, x_column, column)


def read_sweep(path, x_column="bytes"):
    """A sweep CSV: ({side: points}, {"a / b": points}), in column order."""
    columns, rows = _read_rows(path, [x_column])
    sides = {c[:-len("_busbw_gbs")]: _pairs(rows, x_column, c)
             for c in columns if c.endswith("_busbw_gbs")}
    if not sides:
        raise ValueError(f"{path}: no <side>_busbw_gbs column, not a sweep CSV "
                         f"(columns: {', '.join(columns)}); plot its columns with --series")
    ratios = {c.replace("_over_", " / "): _pairs(rows, x_column, c)
              for c in columns if "_over_" in c}
    return sides, ratios


def sweep_panels(paths, x_column="bytes"):
    """The busbw panel and, where there are ratio columns, the ratio panel
    below it, of one or more sweep CSVs."""
    busbw = Panel("busbw")
    ratios = Panel("ratios", ylabel=SWEEP_RATIO_LABEL, reference=1.0, height=2.0,
                   share_x=True)
    for i, path in enumerate(paths):
        sides, ratio = read_sweep(path, x_column)
        tag = f" ({os.path.basename(path)})" if i else ""
        busbw.lines += [Line(name + tag, points, "dashed" if i else "line")
                        for name, points in sides.items()]
        ratios.lines += [Line(name + tag, points) for name, points in ratio.items()]
    return [busbw, ratios]


class _AddToPanel(argparse.Action):
    """Keeps --panel, --series and --bound in command-line order."""

    def __call__(self, parser, namespace, values, option_string=None):
        panels = getattr(namespace, self.dest, None) or [Panel()]
        if option_string == "--panel":
            panels.append(Panel(values))
        else:
            path, column, label = values
            panels[-1].lines.append((path, column, label,
                                     "bound" if option_string == "--bound" else "line"))
        setattr(namespace, self.dest, panels)


def parser():
    doc = __doc__.split("\n\n", 1)
    p = argparse.ArgumentParser(prog="_busbw_plot.py", description=doc[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc[1])
    p.add_argument("sweeps", nargs="*", metavar="SWEEP.csv",
                   help="sweep CSVs: the first one's sides solid, the others' dashed")
    p.add_argument("--png", required=True, help="the PNG to write")
    p.add_argument("--title", default="", help="over all panels")
    p.add_argument("--x", default="bytes", dest="x_column", help="size column (bytes)")
    p.add_argument("--columns", type=int, help="panels per row (2; 1 with sweep CSVs)")
    p.add_argument("--ylabel", default="busbw (GB/s)", help="of the --series panels")
    p.add_argument("--panel", metavar="TITLE", dest="panels", action=_AddToPanel,
                   help="start a panel")
    for flag, what in (("--series", "a line with markers"), ("--bound", "a grey dashed line")):
        p.add_argument(flag, nargs=3, metavar=("CSV", "COLUMN", "LABEL"), dest="panels",
                       action=_AddToPanel, help=what)
    return p


def main(argv=None):
    args = parser().parse_intermixed_args(argv)
    try:
        panels = sweep_panels(args.sweeps, args.x_column) if args.sweeps else []
        for panel in args.panels or []:
            panel.ylabel = args.ylabel
            panel.lines = [Line(label, read_column(path, column, args.x_column), style)
                           for path, column, label, style in panel.lines]
            panels.append(panel)
        columns = args.columns or (1 if args.sweeps else 2)
        render(args.png, panels, args.title, columns)
    except (OSError, ValueError) as e:
        print(f"_busbw_plot: {e}", file=sys.stderr)
        return 1
    print(f"# wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
