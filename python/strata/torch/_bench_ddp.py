"""strata.torch.bench --ddp-step N: the time of one DDP training step of the
digits CNN (forward, backward with DDP's gradient all-reduce overlapping,
SGD step) with each side's group, in interleaved rounds like the sweep."""

import statistics
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from strata.torch import digits_cnn

GLOBAL_BATCH = 64


def _trainer(group, images, labels, rank, world):
    """A DDP model (same seed on every side) and a function running `steps`
    steps from `first`, returning the last loss."""
    model = DistributedDataParallel(digits_cnn.make_model(seed=0), process_group=group)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()

    def run(first, steps):
        loss = None
        for step in range(first, first + steps):
            mine = digits_cnn.rank_slice(
                digits_cnn.batch_indices(step, GLOBAL_BATCH, len(labels)), rank, world)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(images[mine]), labels[mine])
            loss.backward()
            optimizer.step()
        return loss.item()
    return run


def time_ddp_steps(sides, steps, rounds, control):
    """{"ms": {side: median ms per step}, "ratio": first side's / second's,
    "loss": {side: last loss}}; a warm-up of a few steps per side first."""
    from strata.torch._bench_sweep import agreed
    rank, world = dist.get_rank(), dist.get_world_size()
    images, labels = digits_cnn.digits_tensors()
    trainers = {name: _trainer(group, images, labels, rank, world)
                for name, group in sides.items()}
    names = list(sides)
    position = {name: 0 for name in names}
    for name in names:  # the first steps build DDP's buckets and agree shapes
        trainers[name](position[name], 3)
        position[name] += 3
    per_step = {name: [] for name in names}
    losses = {}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            dist.barrier(group=control)
            start = time.perf_counter()
            losses[name] = trainers[name](position[name], steps)
            seconds = (time.perf_counter() - start) / steps
            position[name] += steps
            per_step[name].append(agreed(seconds, control))
    out = {"ms": {n: statistics.median(t) * 1e3 for n, t in per_step.items()}, "loss": losses}
    if len(names) > 1:
        out["ratio"] = statistics.median(
            a / b for a, b in zip(per_step[names[0]], per_step[names[1]]))
    return out
