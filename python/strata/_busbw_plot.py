"""busbw against size for transports side by side, and the ratios between
them: the one plotter of Strata's benchmarks (matplotlib, Agg). Used by
strata.torch.bench (--plot) and, as a script that needs no Strata build,
for the sweep CSVs of strata-ring-bench and strata-gloo-anchor:

    /usr/bin/python3 python/strata/_busbw_plot.py ring.csv [more.csv ...] \\
        --png ring.png [--title TEXT]

A sweep CSV has a `bytes` column, `<side>_busbw_gbs` per transport and
`<a>_over_<b>` per ratio (tools/ring_bench/sweep.h). Sides of a second and
later CSV are drawn dashed, labelled with the file's name."""

import argparse
import csv
import os


def draw(path, title, series, ratios, ratio_label="ratio"):
    """series: [(label, [(bytes, busbw GB/s)], dashed)]; ratios:
    [(label, [(bytes, ratio)])]. Writes a PNG with busbw above, ratios below."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (bw_ax, ratio_ax) = plt.subplots(2, 1, figsize=(8, 8), sharex=True,
                                          gridspec_kw={"height_ratios": [3, 2]})
    for label, points, dashed in series:
        if points:
            bw_ax.plot(*zip(*points), "--" if dashed else "-o", label=label, markersize=3)
    bw_ax.set_yscale("log")
    bw_ax.set_ylabel("busbw (GB/s)")
    bw_ax.set_title(title)
    bw_ax.grid(True, which="both", alpha=0.3)
    bw_ax.legend(fontsize=8)
    for label, points in ratios:
        if points:
            ratio_ax.plot(*zip(*points), "-o", markersize=3, label=label)
    if ratios:
        ratio_ax.axhline(1.0, color="grey", linewidth=0.8)
        ratio_ax.set_yscale("log")
        ratio_ax.set_ylabel(ratio_label)
        ratio_ax.legend(fontsize=8)
    ratio_ax.grid(True, which="both", alpha=0.3)
    ratio_ax.set_xscale("log", base=2)
    ratio_ax.set_xlabel("bytes per rank")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def read_sweep(path):
    """A sweep CSV: (sides {name: [(bytes, busbw)]}, ratios {name: [(bytes, r)]})."""
    sides, ratios = {}, {}
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            nbytes = int(rec["bytes"])
            for key, value in rec.items():
                if value in ("", None):
                    continue
                if key.endswith("_busbw_gbs"):
                    sides.setdefault(key[:-len("_busbw_gbs")], []).append((nbytes, float(value)))
                elif "_over_" in key:
                    ratios.setdefault(key.replace("_over_", " / "), []).append(
                        (nbytes, float(value)))
    if not sides:
        raise ValueError(f"{path}: no <side>_busbw_gbs column: not a sweep CSV")
    return sides, ratios


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+", help="sweep CSVs; the first one's sides are drawn solid")
    p.add_argument("--png", required=True)
    p.add_argument("--title", default="all-reduce busbw")
    args = p.parse_args(argv)
    series, ratios = [], []
    for i, path in enumerate(args.csv):
        sides, ratio = read_sweep(path)
        tag = "" if i == 0 else f" ({os.path.basename(path)})"
        series += [(name + tag, points, i > 0) for name, points in sides.items()]
        ratios += [(name + tag, points) for name, points in ratio.items()]
    draw(args.png, args.title, series, ratios, "busbw ratio (median of rounds)")
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
