"""python3 -m strata.torch.bench: dist.all_reduce through the "strata"
backend and through a "gloo" group in the same processes, in interleaved
rounds, nccl-tests style (time, algbw, busbw = algbw * 2(n-1)/n).

Run it in every rank, under torchrun, strata launch or conftest-style env://
variables:

    strata launch -n 2 -- /usr/bin/python3 -m strata.torch.bench --sizes 8B:64KiB
    /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 -m strata.torch.bench

(A first version: all_reduce only; docs/PYTORCH.md lists what it will do.)
"""

import argparse
import datetime
import statistics
import sys
import time

import torch
import torch.distributed as dist

import strata.torch  # noqa: F401  (registers "strata")

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def parse_size(text):
    for unit in sorted(UNITS, key=len, reverse=True):
        if text.endswith(unit):
            return int(float(text[:-len(unit)]) * UNITS[unit])
    return int(text)


def format_size(n):
    for unit in ("GiB", "MiB", "KiB"):
        if n >= UNITS[unit] and n % UNITS[unit] == 0:
            return f"{n // UNITS[unit]}{unit}"
    return f"{n}B"


def sizes(spec, factor):
    low, high = (parse_size(s) for s in spec.split(":"))
    out, n = [], low
    while n <= high:
        out.append(n)
        n *= factor
    return out


def time_calls(tensor, group, iterations):
    """Seconds per call of `iterations` back-to-back blocking all_reduces,
    with a barrier of the same group first so every rank starts together."""
    dist.barrier(group=group)
    start = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(tensor, group=group)
    return (time.perf_counter() - start) / iterations


def agreed(value, op=dist.ReduceOp.MAX, group=None):
    t = torch.tensor([float(value)], dtype=torch.float64)
    dist.all_reduce(t, op=op, group=group)
    return t.item()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="8B:64KiB", help="LOW:HIGH bytes per rank (8B:64MiB)")
    p.add_argument("--factor", type=int, default=4)
    p.add_argument("--dtype", default="float32")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.2, help="seconds per side per round")
    p.add_argument("--csv", action="store_true")
    args = p.parse_args(argv)

    dist.init_process_group("strata", timeout=datetime.timedelta(seconds=120))
    gloo = dist.new_group(backend="gloo")
    sides = {"strata": None, "gloo": gloo}
    rank, world = dist.get_rank(), dist.get_world_size()
    dtype = getattr(torch, args.dtype)
    item = torch.tensor([], dtype=dtype).element_size()
    rows = []
    for size in sizes(args.sizes, args.factor):
        tensor = torch.ones(max(1, size // item), dtype=dtype)
        # Calibrated on gloo (the slower), agreed across ranks.
        per_call = time_calls(tensor, gloo, 3)
        iterations = int(agreed(max(1, min(100000, args.min_time / max(per_call, 1e-7)))))
        times = {name: [] for name in sides}
        for r in range(args.rounds):
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            for name in order:
                times[name].append(agreed(time_calls(tensor, sides[name], iterations)))
        ratios = [g / s for g, s in zip(times["gloo"], times["strata"])]
        rows.append((size, iterations, {n: statistics.median(t) for n, t in times.items()},
                     statistics.median(ratios)))

    if rank == 0:
        bus = 2 * (world - 1) / world if world > 1 else 1
        if args.csv:
            print("bytes,iterations,strata_us,gloo_us,strata_busbw_gbs,gloo_busbw_gbs,speedup")
        else:
            print(f"# all_reduce {args.dtype}, {world} ranks, median of {args.rounds} rounds; "
                  "speedup = gloo time / strata time (median of per-round ratios)")
            print(f"{'size':>8} {'iters':>7} {'strata us':>10} {'gloo us':>10} "
                  f"{'strata GB/s':>11} {'gloo GB/s':>10} {'speedup':>8}")
        for size, iters, t, speedup in rows:
            nbytes = max(1, size // item) * item
            bw = {n: nbytes / t[n] / 1e9 * bus for n in t}
            if args.csv:
                print(f"{nbytes},{iters},{t['strata'] * 1e6:.3f},{t['gloo'] * 1e6:.3f},"
                      f"{bw['strata']:.4f},{bw['gloo']:.4f},{speedup:.3f}")
            else:
                print(f"{format_size(nbytes):>8} {iters:>7} {t['strata'] * 1e6:>10.2f} "
                      f"{t['gloo'] * 1e6:>10.2f} {bw['strata']:>11.4f} {bw['gloo']:>10.4f} "
                      f"{speedup:>7.2f}x")
        sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
