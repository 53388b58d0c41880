"""python3 -m strata.torch.bench: dist.all_reduce through the "strata"
backend and through a "gloo" group in the same processes, in interleaved
rounds whose order rotates, nccl-tests style (time, algbw, busbw = algbw *
2(n-1)/n), then issue 25's targets checked on that one run.

Run it in every rank, under torchrun, mpirun or strata launch:

    /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 -m strata.torch.bench --csv out.csv --plot out.png
    mpirun -np 2 build/bin/strata-mpi-bench --csv mb.csv
    mpirun -np 2 /usr/bin/python3 -m strata.torch.bench --mpi-bench mb.csv
    strata launch -n 2 -- /usr/bin/python3 -m strata.torch.bench

--sides gloo,gloo2 times Gloo against another Gloo group (the benchmark's
own noise); --sides gloo alone never creates a strata group (Gloo at its
own speed). --ddp-step N adds the digits DDP step time, strata vs gloo.
"""

import argparse
import datetime
import os
import sys

import torch
import torch.distributed as dist

from strata.torch import _bench_report as report
from strata.torch._bench_launch import launcher, set_env_from_mpirun
from strata.torch._bench_sweep import CoreSide, GroupSide, size_list, sweep

SIDES = ("strata", "strata2", "gloo", "gloo2", "core")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m strata.torch.bench",
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--sizes", default="8B:64MiB", help="LOW:HIGH bytes per rank (8B:64MiB)")
    p.add_argument("--factor", type=int, default=2, help="step between sizes (2)")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds per size (5)")
    p.add_argument("--min-time", type=float, default=0.1,
                   help="seconds per side per round, which sets the iterations (0.1)")
    p.add_argument("--sides", default="strata,gloo",
                   help="what to time, from " + ",".join(SIDES) + " (core: strata.join()'s "
                        "Communicator on the same memory, no torch; under mpirun or strata "
                        "launch); the ratio is time(second) / time(first) (strata,gloo)")
    p.add_argument("--csv", metavar="FILE", help="write the rows as CSV")
    p.add_argument("--plot", metavar="PNG", help="busbw and speedup against size (matplotlib)")
    p.add_argument("--mpi-bench", metavar="CSV",
                   help="strata-mpi-bench --csv output of the same job size: quoted beside")
    p.add_argument("--ddp-step", type=int, default=0, metavar="N",
                   help="also time N digits DDP steps per side and round")
    p.add_argument("--timeout", type=float, default=300, help="seconds for every call")
    p.add_argument("--keep-binding", action="store_true",
                   help="keep the launcher's binding of this rank to a core (mpirun binds "
                        "2 ranks to one core each, which starves Gloo's device thread)")
    args = p.parse_args(argv)
    args.side_names = [s for s in args.sides.split(",") if s]
    bad = [s for s in args.side_names if s not in SIDES] or (
        ["(repeated)"] if len(set(args.side_names)) != len(args.side_names) else [])
    if not args.side_names or bad:
        p.error(f"--sides {args.sides!r}: choose from {', '.join(SIDES)} ({', '.join(bad)})")
    if args.rounds < 1 or args.min_time <= 0:
        p.error("--rounds must be >= 1 and --min-time > 0")
    return args


def make_sides(names, timeout):
    """The default group is strata's unless only gloo is timed; every other
    side gets its own new_group, so no two sides share a group. Returns
    the sides and a gloo group that agrees on the figures."""
    uses_strata = any(n != "gloo" and n != "gloo2" for n in names)
    if uses_strata:
        import strata.torch  # noqa: F401  (registers "strata")
    dist.init_process_group("strata" if uses_strata else "gloo", timeout=timeout)
    default = "strata" if uses_strata else "gloo"
    sides = {}
    for name in names:
        if name == "core":
            import strata
            sides[name] = CoreSide(strata.join(timeout=timeout.total_seconds()))
        elif name == default:
            sides[name] = GroupSide(None)
        else:
            sides[name] = GroupSide(dist.new_group(backend=name.rstrip("2"), timeout=timeout))
    if "gloo" in sides:
        control = sides["gloo"].group
    else:
        control = None if default == "gloo" else dist.new_group(backend="gloo")
    return sides, control


def describe_strata(group_name_present):
    """Which algorithm serves a 4 KiB all_reduce of the default group, where
    the package can say (strata.torch.explain)."""
    if not group_name_present:
        return ""
    import strata.torch
    explain = getattr(strata.torch, "explain", None)
    if explain is None:
        return ""
    try:
        found = explain(None, "all_reduce", torch.zeros(1024))
        return f", strata serves 4KiB with {getattr(found, 'winner', found)}"
    except Exception as e:  # the bench still runs; say why it cannot tell
        return f", strata algorithm unknown ({type(e).__name__}: {e})"


def release_binding():
    """mpirun binds each of 2 ranks to one core; every thread a rank starts
    inherits it, and Gloo's TCP device thread then shares one core with the
    thread that waits for it, which ran Gloo 7-40x below its own speed
    (docs/performance/grpc_ring.md). Released before any group exists, so
    no backend's threads start bound. Returns (cores before, cores after)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    before = len(os.sched_getaffinity(0))
    every = set(range(os.cpu_count() or 1))
    if before >= len(every):
        return None
    os.sched_setaffinity(0, every)
    return before, len(os.sched_getaffinity(0))


def main(argv=None):
    args = parse_args(argv)
    set_env_from_mpirun()
    released = None if args.keep_binding else release_binding()
    timeout = datetime.timedelta(seconds=args.timeout)
    sides, control = make_sides(args.side_names, timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    dtype = getattr(torch, args.dtype)
    mpi_bench = report.read_mpi_bench(args.mpi_bench) if args.mpi_bench else None
    how = launcher()
    if rank == 0:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"# all_reduce {args.dtype} sum, {world} ranks under {how}, "
              f"torch {torch.__version__}, {args.rounds} interleaved rounds of "
              f">= {args.min_time} s per side, median; load {load:.2f}"
              f"{describe_strata('strata' in sides)}")
        if released:
            print(f"# released the launcher's binding of each rank: {released[0]} -> "
                  f"{released[1]} cores (--keep-binding keeps it)")
        names = list(sides)
        print(f"# busbw in GB/s; {names[1]}/{names[0]} = median of per-round ratios of "
              f"time({names[1]}) / time({names[0]})" if len(names) > 1 else "# busbw in GB/s")
        print(report.header(list(sides), mpi_bench))
        sys.stdout.flush()
    progress = lambda row, i, n: print(report.text_row(row, world, mpi_bench))  # noqa: E731
    rows = sweep(size_list(args.sizes, args.factor), dtype, sides, args.rounds, args.min_time,
                 control, rank, world, progress)
    ddp = None
    if args.ddp_step > 0:
        from strata.torch._bench_ddp import time_ddp_steps
        groups = {n: s.group for n, s in sides.items() if isinstance(s, GroupSide)}
        ddp = time_ddp_steps(groups, args.ddp_step, args.rounds, control)
    failed = 0
    if rank == 0:
        failed = summarize(args, rows, world, how, mpi_bench, ddp)
    dist.barrier(group=control)
    dist.destroy_process_group()
    return 1 if failed else 0


def summarize(args, rows, world, how, mpi_bench, ddp):
    """Writes CSV/PNG and prints the targets; the count of wrong results
    (the exit status says whether any answer was wrong)."""
    if args.csv:
        report.write_csv(args.csv, rows, world, mpi_bench)
        print(f"# wrote {args.csv}")
    if args.plot:
        title = (f"all_reduce {args.dtype}, {world} ranks, {how}: "
                 + " vs ".join(f'"{s}"' for s in rows[0].seconds))
        report.plot(args.plot, rows, world, title, mpi_bench)
        print(f"# wrote {args.plot}")
    if ddp is not None:
        for name, ms in ddp["ms"].items():
            print(f"# ddp digits step ({args.ddp_step} steps x {args.rounds} rounds): "
                  f"{name} {ms:.3f} ms, last loss {ddp['loss'][name]:.6f}")
        if "ratio" in ddp:
            names = list(ddp["ms"])
            print(f"# ddp step {names[0]}/{names[1]} = {ddp['ratio']:.3f}")
    for text, holds, detail in report.targets(rows, world, how, mpi_bench):
        verdict = "n/a" if holds is None else ("holds" if holds else "FAILS")
        print(f"# target {text}: {verdict} ({detail})")
    if ddp is not None and "ratio" in ddp and list(ddp["ms"])[:2] == ["strata", "gloo"]:
        verdict = "holds" if ddp["ratio"] <= 0.8 else "FAILS"
        print(f"# target ddp step strata <= 0.8x gloo: {verdict} ({ddp['ratio']:.3f}x)")
    wrong = sum(sum(r.wrong.values()) for r in rows)
    if wrong:
        print(f"# ERROR: {wrong} wrong element(s) in the results", file=sys.stderr)
    sys.stdout.flush()
    return wrong


if __name__ == "__main__":
    sys.exit(main())
