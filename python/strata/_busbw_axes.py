"""The drawing half of Strata's busbw plotter (_busbw_plot.py reads the
CSVs and the command line): panels of lines against message size, both
axes logarithmic, sizes labelled 1KiB, 64MiB, ..., written to a PNG
atomically. It takes points, not files, so strata.torch.bench draws its
own rows through it:

    render("out.png", [Panel("2 ranks", [Line("vader", [(8, 0.01), ...]),
                                         Line("memory bound", [...], "bound")])])

Matplotlib's object API (no pyplot): no global backend or figure state is
touched, which matters inside a training process."""

import math
import os
import sys
import tempfile
from dataclasses import dataclass, field

# "line": a measurement; "dashed": the same kind of figure from another
# source (a second sweep CSV, strata-mpi-bench beside the torch bench);
# "bound": a reference such as the memory bound, grey and without markers.
STYLES = {"line": dict(marker="o", markersize=3),
          "dashed": dict(linestyle="--"),
          "bound": dict(linestyle="--", color="grey")}


@dataclass
class Line:
    label: str
    points: list  # [(bytes, value)]; values <= 0 cannot be drawn on a log axis
    style: str = "line"


@dataclass
class Panel:
    title: str = ""
    lines: list = field(default_factory=list)
    ylabel: str = "busbw (GB/s)"
    reference: float = None  # a horizontal rule, e.g. 1.0 under ratios
    height: float = 3.0  # relative to the other rows of the grid
    share_x: bool = False  # the size axis of the panel above (ratios under their busbw)


def format_size(nbytes, _position=None):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g}{unit}"
    return f"{nbytes:g}B"


def _size_ticks(ax, sizes):
    """A labelled tick every power of two up to a dozen, counted down from
    the largest size (so 64MiB, a target's size, is always labelled)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    low, high = int(math.floor(math.log2(min(sizes)))), int(math.ceil(math.log2(max(sizes))))
    step = max(1, math.ceil((high - low + 1) / 12))
    ax.set_xticks([2.0 ** k for k in range(high, low - 1, -step)])
    ax.set_xticks([2.0 ** k for k in range(low, high + 1)], minor=True)
    ax.xaxis.set_major_formatter(FuncFormatter(format_size))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)


def _plain_log_labels(ax):
    """0.8, 1, 2 rather than 8x10^-1: ratio panels span less than a decade,
    where the minor ticks are the only labelled ones. LogFormatter decides
    which ticks get a label, _PlainLog how it reads."""
    from matplotlib.ticker import LogFormatter

    class _PlainLog(LogFormatter):
        def __call__(self, x, pos=None):
            return f"{x:.3g}" if super().__call__(x, pos) else ""

    ax.yaxis.set_major_formatter(_PlainLog())
    ax.yaxis.set_minor_formatter(_PlainLog(labelOnlyBase=False))


def _drawable(line, panel):
    points = sorted((x, y) for x, y in line.points
                    if x > 0 and y > 0 and math.isfinite(x) and math.isfinite(y))
    if not points:
        where = f"panel {panel.title!r}: " if panel.title else ""
        print(f"_busbw_plot: {where}{line.label!r} has no positive value to draw",
              file=sys.stderr)
    return points


def _draw_panel(ax, panel, xlabel):
    """Draws the lines; returns the sizes they cover."""
    sizes, values = set(), [panel.reference] if panel.reference else []
    for line in panel.lines:
        if line.style not in STYLES:
            raise ValueError(f"line {line.label!r}: style {line.style!r} is not one of "
                             f"{', '.join(STYLES)}")
        points = _drawable(line, panel)
        if points:
            sizes.update(x for x, _ in points)
            values += [y for _, y in points]
            ax.plot(*zip(*points), label=line.label, **STYLES[line.style])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    _plain_log_labels(ax)
    if panel.reference is not None:
        ax.axhline(panel.reference, color="grey", linewidth=0.8)
    if values and max(values) < 10 * min(values):
        from matplotlib.ticker import LogLocator
        # Ratios near 1: ticks at 1.2 and 1.5 too, not only at 0.9 and 2,
        # so both sides of the rule are labelled.
        ax.yaxis.set_minor_locator(LogLocator(subs=(1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9)))
    if sizes:
        ax.legend(fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.set_title(panel.title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    return sizes


def render(path, panels, title="", columns=2, xlabel="bytes per rank"):
    """Draws `panels` in a grid `columns` wide, row by row, and writes the
    PNG whole: to a temporary file beside `path`, then renamed over it, so
    a reader never sees half a PNG and a failure leaves the old one."""
    from matplotlib.figure import Figure

    panels = [p for p in panels if p.lines]
    if not panels:
        raise ValueError("nothing to plot: no line in any panel (no sweep CSV, no --series)")
    ncols = max(1, min(columns, len(panels)))
    nrows = math.ceil(len(panels) / ncols)
    rows = [panels[r * ncols:(r + 1) * ncols] for r in range(nrows)]
    heights = [max(p.height for p in row) for row in rows]
    fig = Figure(figsize=(max(8.0, 6.5 * ncols), 1.5 * sum(heights) + (0.4 if title else 0)),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, gridspec_kw={"height_ratios": heights})
    sizes = []
    for i, (ax, panel) in enumerate(zip(axes.flat, panels)):
        if panel.share_x and i >= ncols:
            ax.sharex(axes.flat[i - ncols])
        sizes.append(_draw_panel(ax, panel, xlabel))
    for i, (ax, panel) in enumerate(zip(axes.flat, panels)):
        if panel.share_x and i >= ncols:  # shared ticks: the lowest panel's call wins
            sizes[i] |= sizes[i - ncols]
        if sizes[i]:
            _size_ticks(ax, sizes[i])
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)

    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would survive the rename
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=100)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
