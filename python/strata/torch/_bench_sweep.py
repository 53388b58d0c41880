"""The measuring part of strata.torch.bench: blocking dist.all_reduce loops
on several process groups ("sides") in the same processes, in interleaved
rounds whose order rotates (tools/ring_bench's method), size by size."""

import dataclasses
import statistics
import sys
import time
from typing import Dict, List

import torch
import torch.distributed as dist

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


def size_list(spec, factor):
    """Bytes per rank from "LOW:HIGH", multiplying by `factor`."""
    low, high = (parse_size(s) for s in spec.split(":"))
    if low <= 0 or high < low or factor < 2:
        raise ValueError(f"--sizes {spec!r} --factor {factor}: need 0 < LOW <= HIGH, factor >= 2")
    out, n = [], low
    while n <= high:
        out.append(n)
        n *= factor
    return out


@dataclasses.dataclass
class Row:
    """One size: each side's iterations, median seconds per call (the
    slowest rank's mean per round), wrong elements over all ranks; `ratio`
    is the median over rounds of time(side 2) / time(side 1)."""
    nbytes: int
    iterations: Dict[str, int]
    seconds: Dict[str, float]
    wrong: Dict[str, int]
    ratio: float
    # Each side's best round: what strata-mpi-bench reports, so a
    # comparison with its CSV sets best against best.
    best: Dict[str, float] = dataclasses.field(default_factory=dict)


def agreed(value, group, op=dist.ReduceOp.MAX):
    t = torch.tensor([float(value)], dtype=torch.float64)
    dist.all_reduce(t, op=op, group=group)
    return t.item()


class GroupSide:
    """dist.all_reduce on a process group (None: the default group)."""

    def __init__(self, group):
        self.group = group

    def barrier(self):
        dist.barrier(group=self.group)

    def all_reduce(self, tensor):
        dist.all_reduce(tensor, group=self.group)


class CoreSide:
    """strata.Communicator.all_reduce (strata.join(): the job's team through
    its resolver) on the tensor's own memory as a numpy array: Strata's core
    and plugin without torch's dispatch and work queue, in the same run."""

    def __init__(self, communicator):
        self.communicator = communicator
        self._tensor, self._arrays = None, None
        self._flag = [torch.zeros(1, dtype=torch.uint8).numpy()]

    def barrier(self):
        self.communicator.all_reduce(self._flag, op="max")

    def all_reduce(self, tensor):
        if tensor is not self._tensor:  # zero-copy view, made once per tensor
            self._tensor, self._arrays = tensor, [tensor.numpy()]
        self.communicator.all_reduce(self._arrays)


def time_calls(tensor, side, iterations):
    """Seconds per call of `iterations` back-to-back blocking all_reduces,
    after a barrier of the same side so every rank starts together."""
    side.barrier()
    start = time.perf_counter()
    for _ in range(iterations):
        side.all_reduce(tensor)
    return (time.perf_counter() - start) / iterations


def wrong_elements(tensor, side, rank, world, control):
    """One call on rank+1 everywhere: every element must be n(n+1)/2.
    Counted over all ranks."""
    tensor.fill_(rank + 1)
    side.all_reduce(tensor)
    wrong = int((tensor != world * (world + 1) // 2).sum().item())
    tensor.zero_()
    return int(agreed(wrong, control, dist.ReduceOp.SUM))


def iterations_for(tensor, side, min_time, control):
    """Enough calls for `min_time` seconds, from a short warm-up (which also
    pays each side's first-call cost for this shape), agreed by MAX."""
    per_call = time_calls(tensor, side, 2)
    per_call = min(per_call, time_calls(tensor, side, 3))
    wanted = max(1, min(200000, int(min_time / max(per_call, 1e-7))))
    return int(agreed(wanted, control))


def measure_size(nbytes, dtype, sides, rounds, min_time, control, rank, world):
    """Times every side at one size; returns a Row. `sides` maps names to
    GroupSide/CoreSide; `control` (a gloo group) agrees on the figures."""
    item = torch.tensor([], dtype=dtype).element_size()
    # Zeros stay finite however often they are summed.
    tensor = torch.zeros(max(1, nbytes // item), dtype=dtype)
    names = list(sides)
    iterations = {n: iterations_for(tensor, sides[n], min_time, control) for n in names}
    times: Dict[str, List[float]] = {n: [] for n in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            seconds = time_calls(tensor, sides[name], iterations[name])
            times[name].append(agreed(seconds, control))
    ratios = ([b / a for a, b in zip(times[names[0]], times[names[1]])]
              if len(names) > 1 else [1.0])
    wrong = {n: wrong_elements(tensor, sides[n], rank, world, control) for n in names}
    return Row(nbytes=tensor.numel() * item, iterations=iterations,
               seconds={n: statistics.median(t) for n, t in times.items()},
               wrong=wrong, ratio=statistics.median(ratios),
               best={n: min(t) for n, t in times.items()})


def sweep(sizes, dtype, sides, rounds, min_time, control, rank, world, progress=None):
    """Every size in turn; `progress(row, index, total)` after each (rank 0)."""
    rows = []
    for i, nbytes in enumerate(sizes):
        row = measure_size(nbytes, dtype, sides, rounds, min_time, control, rank, world)
        rows.append(row)
        if progress is not None and rank == 0:
            progress(row, i + 1, len(sizes))
            sys.stdout.flush()
    return rows
