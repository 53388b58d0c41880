#!/usr/bin/env python3
"""DDP training of a small CNN on the UCI digits with the torch.distributed
backend "strata", beside the same training over gloo.

Every process takes an equal share of each seeded global batch, so N
processes compute what one process computes on the whole batch; the strata
and gloo runs start from the same weights and must end with the same loss.
Started by any of (PYTHONPATH=<build>/python unless strata is installed):

  python3 -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node 2 ddp_digits.py
  strata launch -n 2 -- python3 ddp_digits.py
  mpirun -np 2 python3 ddp_digits.py          # strata.torch sets env:// from mpirun's ranks
  python3 ddp_digits.py                        # one process

Rank 0 prints the loss on all 1797 digits as training goes, then
`final loss strata=... gloo=... equal(1e-5): yes` (exit status 1 if not).
"""

import argparse
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

import strata.torch  # registers "strata"; under mpirun, sets RANK, WORLD_SIZE, MASTER_*
from strata.torch import digits_cnn

TOLERANCE = 1e-5


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["strata", "gloo", "both"], default="both",
                        help="which backend trains (both: strata, then gloo, compared)")
    parser.add_argument("--steps", type=int, default=60, help="SGD steps (default 60)")
    parser.add_argument("--batch", type=int, default=64,
                        help="global batch; must divide by the number of processes (default 64)")
    parser.add_argument("--lr", type=float, default=0.1, help="learning rate (momentum 0.9)")
    parser.add_argument("--seed", type=int, default=0, help="initial weights and batch order")
    return parser.parse_args(argv)


def full_loss(model, images, labels):
    """Mean cross-entropy and accuracy on every digit."""
    with torch.no_grad():
        logits = model(images)
        return (F.cross_entropy(logits, labels).item(),
                (logits.argmax(1) == labels).float().mean().item())


def sgd(parameters, lr):
    return torch.optim.SGD(parameters, lr=lr, momentum=0.9)


def train(group, name, args, images, labels, log):
    """`args.steps` steps of DDP over `group`; returns the final full loss."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = digits_cnn.make_model(args.seed)
    ddp = DistributedDataParallel(model, process_group=group)
    optimizer = sgd(ddp.parameters(), args.lr)
    started = time.perf_counter()
    for step in range(1, args.steps + 1):
        rows = digits_cnn.batch_indices(step - 1, args.batch, len(labels), args.seed)
        mine = digits_cnn.rank_slice(rows, rank, world)
        loss = F.cross_entropy(ddp(images[mine]), labels[mine])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0 or step == args.steps:
            log(f"{name}: step {step:3d}  loss on all digits {full_loss(model, images, labels)[0]:.6f}")
    loss, accuracy = full_loss(model, images, labels)
    log(f"{name}: {args.steps} steps in {time.perf_counter() - started:.2f} s; "
        f"final loss {loss:.6f}, accuracy {100 * accuracy:.1f}%")
    return loss


def one_process_loss(steps, batch=64, lr=0.1, seed=0):
    """The same training in one process on each whole global batch, without
    DDP (tests/python/test_ddp_digits.py checks the printed losses with it)."""
    images, labels = digits_cnn.digits_tensors()
    model = digits_cnn.make_model(seed)
    optimizer = sgd(model.parameters(), lr)
    for step in range(steps):
        rows = digits_cnn.batch_indices(step, batch, len(labels), seed)
        loss = F.cross_entropy(model(images[rows]), labels[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return full_loss(model, images, labels)[0]


def use_one_process_if_unlaunched():
    """Run as a job of one when no launcher set torch's env:// variables."""
    if "RANK" not in os.environ and "WORLD_SIZE" not in os.environ:
        os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29555")


def main():
    args = parse_args()
    torch.set_num_threads(1)  # one core per process: N processes share the machine
    use_one_process_if_unlaunched()
    backends = ["strata", "gloo"] if args.backend == "both" else [args.backend]
    dist.init_process_group(backends[0], timeout=datetime.timedelta(seconds=120))
    groups = {backends[0]: dist.group.WORLD}
    if len(backends) == 2:
        groups["gloo"] = dist.new_group(backend="gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch % world != 0:
        sys.exit(f"ddp_digits: --batch {args.batch} does not divide by {world} processes")

    def log(line):
        if rank == 0:
            print(line, flush=True)

    images, labels = digits_cnn.digits_tensors()
    log(f"ddp_digits: {world} processes, global batch {args.batch} ({args.batch // world} per "
        f"process), {args.steps} steps of SGD on {len(labels)} digits")
    losses = {name: train(group, name, args, images, labels, log) for name, group in groups.items()}
    equal = True
    if len(losses) == 2:
        equal = abs(losses["strata"] - losses["gloo"]) <= TOLERANCE
        log(f"final loss strata={losses['strata']:.6f} gloo={losses['gloo']:.6f} "
            f"equal(1e-5): {'yes' if equal else 'NO'}")
    else:
        log(f"final loss {backends[0]}={losses[backends[0]]:.6f}")
    dist.destroy_process_group()
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
