"""What strata.torch.bench prints and writes: nccl-tests-style rows (time,
algbw, busbw = algbw * 2(n-1)/n), a CSV, a PNG, strata-mpi-bench's own
figures beside ours, and issue 25's targets checked against one run."""

import csv

from strata._busbw_axes import Line, Panel, render
from strata.torch._bench_sweep import format_size


def bus_factor(world):
    return 2 * (world - 1) / world if world > 1 else 1.0


def read_mpi_bench(path):
    """strata-mpi-bench --csv FILE: bytes -> (raw MPI us, mpi plugin us)."""
    out = {}
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            if "strata_us" not in rec:
                raise ValueError(f"{path}: not a strata-mpi-bench CSV (no strata_us column; "
                                 "written with --null?)")
            out[int(rec["bytes"])] = (float(rec["mpi_us"]), float(rec["strata_us"]))
    return out


def figures(row, world, mpi_bench=None):
    """Per side: us, algbw and busbw in GB/s; plus the plugin's own (from
    strata-mpi-bench) where it measured this size."""
    out = {}
    for side, seconds in row.seconds.items():
        algbw = row.nbytes / seconds / 1e9
        out[side] = (seconds * 1e6, algbw, algbw * bus_factor(world))
    if mpi_bench and row.nbytes in mpi_bench:
        for name, us in zip(("raw_mpi", "mpi_plugin"), mpi_bench[row.nbytes]):
            algbw = row.nbytes / us * 1e6 / 1e9
            out[name] = (us, algbw, algbw * bus_factor(world))
    return out


def vs_plugin(row, side, world, mpi_bench):
    """`side`'s busbw over the mpi plugin's (strata-mpi-bench), best round
    against best round (strata-mpi-bench keeps each side's best); inf where
    the plugin did not measure this size."""
    if not mpi_bench or row.nbytes not in mpi_bench:
        return float("inf")
    seconds = row.best.get(side, row.seconds[side])
    return mpi_bench[row.nbytes][1] * 1e-6 / seconds


def header(sides, mpi_bench):
    cols = [f"{'size':>8}"]
    for side in sides:
        cols += [f"{side + ' us':>12}", f"{'busbw':>8}"]
    if len(sides) > 1:
        cols.append(f"{sides[1] + '/' + sides[0]:>11}")
    cols.append(f"{'#wrong':>6}")
    if mpi_bench:
        cols += [f"{'plugin us':>10}", f"{'busbw':>8}", f"{'vs plugin':>9}"]
    return " ".join(cols)


def text_row(row, world, mpi_bench):
    f = figures(row, world, mpi_bench)
    sides = list(row.seconds)
    cols = [f"{format_size(row.nbytes):>8}"]
    for side in sides:
        cols += [f"{f[side][0]:>12.2f}", f"{f[side][2]:>8.3f}"]
    if len(sides) > 1:
        cols.append(f"{row.ratio:>10.2f}x")
    cols.append(f"{sum(row.wrong.values()):>6d}")
    if mpi_bench:
        if "mpi_plugin" in f:
            plugin = f["mpi_plugin"]
            cols += [f"{plugin[0]:>10.2f}", f"{plugin[2]:>8.3f}",
                     f"{vs_plugin(row, sides[0], world, mpi_bench):>8.2f}x"]
        else:
            cols += [f"{'-':>10}", f"{'-':>8}", f"{'-':>9}"]
    return " ".join(cols)


def write_csv(path, rows, world, mpi_bench):
    sides = list(rows[0].seconds)
    names = sides + (["raw_mpi", "mpi_plugin"] if mpi_bench else [])
    fields = ["bytes", "world"]
    for name in names:
        fields += [f"{name}_iterations", f"{name}_us", f"{name}_algbw_gbs", f"{name}_busbw_gbs",
                   f"{name}_wrong"]
    fields.append("ratio")
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(fields)
        for row in rows:
            fig = figures(row, world, mpi_bench)
            line = [row.nbytes, world]
            for name in names:
                if name not in fig:
                    line += ["", "", "", "", ""]
                    continue
                us, algbw, busbw = fig[name]
                line += [row.iterations.get(name, ""), f"{us:.3f}", f"{algbw:.6g}",
                         f"{busbw:.6g}", row.wrong.get(name, "")]
            line.append(f"{row.ratio:.4f}")
            out.writerow(line)


def plot(path, rows, world, title, mpi_bench):
    """busbw of each side (strata-mpi-bench's figures dashed) and, with two
    sides, the second's time over the first's in a panel below."""
    sides = list(rows[0].seconds)
    names = sides + (["mpi_plugin", "raw_mpi"] if mpi_bench else [])
    labels = {"mpi_plugin": "mpi plugin alone (strata-mpi-bench)",
              "raw_mpi": "MPI_Allreduce (strata-mpi-bench)"}
    busbw = Panel()
    for name in names:
        points = [(r.nbytes, figures(r, world, mpi_bench).get(name)) for r in rows]
        busbw.lines.append(Line(labels.get(name, f'dist.all_reduce "{name}"'),
                                [(n, f[2]) for n, f in points if f is not None],
                                "dashed" if name in labels else "line"))
    speedup = Panel(ylabel="speedup", reference=1.0, height=2.0,
                    share_x=True)
    if len(sides) > 1:
        speedup.lines.append(Line(f"{sides[1]} time / {sides[0]} time",
                                  [(r.nbytes, r.ratio) for r in rows]))
    render(path, [busbw, speedup], title, columns=1)


def _worst(rows, low, high, value):
    chosen = [r for r in rows if low <= r.nbytes <= high]
    if not chosen:
        return None
    worst = min(chosen, key=value)
    return value(worst), worst.nbytes


def targets(rows, world, launcher, mpi_bench):
    """Issue 25's targets that this run can judge: (text, holds, detail),
    each with the size where it is closest to failing. Needs the sides
    strata,gloo (ratio = gloo time / strata time)."""
    if list(rows[0].seconds)[:2] != ["strata", "gloo"]:
        return []
    ratio = lambda r: r.ratio  # noqa: E731
    big = 1 << 40
    wanted = []
    if launcher == "mpirun":
        wanted += [("strata >= 10x gloo busbw, 1KiB-1MiB", 1 << 10, 1 << 20, ratio, 10.0),
                   ("strata >= 1.5x gloo busbw from 16MiB", 16 << 20, big, ratio, 1.5)]
        if mpi_bench:
            def strata_vs_plugin(r):
                return vs_plugin(r, "strata", world, mpi_bench)
            wanted += [("strata >= 0.9x mpi plugin busbw from 1MiB", 1 << 20, big,
                        strata_vs_plugin, 0.9),
                       ("strata >= 0.5x mpi plugin busbw at 64KiB", 64 << 10, 64 << 10,
                        strata_vs_plugin, 0.5)]
    else:
        wanted.append(("strata >= gloo at every size", 0, big, ratio, 1.0))
    out = []
    for text, low, high, value, bound in wanted:
        found = _worst(rows, low, high, value)
        if found is None or found[0] == float("inf"):
            out.append((text, None, "no size measured in range"))
            continue
        worst, nbytes = found
        out.append((text, worst >= bound, f"worst {worst:.2f}x at {format_size(nbytes)}"))
    return out
