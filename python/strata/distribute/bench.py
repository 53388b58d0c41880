"""python3 -m strata.distribute.bench: the digits CNN's training step under
strata.distribute against DDP over the "strata" torch backend doing the
same math, in interleaved rounds whose order rotates, medians reported:

  ddp            DDP, N processes, each on its rows of the global batch
  ddp_again      the same DDP again (a null run: the noise of the bench)
  multi_worker   MultiWorkerMirroredStrategy, N processes x 1 cpu device,
                 the RFC's loop: the loss reduced over the replicas each step
  multi_worker_reduce_last   the same, the loss reduced after the last
                 step only (as DDP's loop, which never reduces its loss)
  mirrored       MirroredStrategy on N cpu devices in process 0 alone
                 (the other processes wait in a gloo barrier meanwhile)

then the strategy machinery's cost per step on a tiny model (Linear 16x16,
process 0): run() of a no-op (the hand-off to the replica threads and
back), the all-reduce of the tiny gradients alone, and a whole step,
against the same step in plain torch.

Run it in every process, under strata launch, torchrun or mpirun:

    strata launch -n 2 -- /usr/bin/python3 -m strata.distribute.bench
    /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 --standalone \\
        --nproc_per_node 2 -m strata.distribute.bench
"""

import argparse
import datetime
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

import strata.distribute as sd
from strata.distribute import _bench_machinery
from strata.torch import digits_cnn
from strata.torch._bench_ddp import GLOBAL_BATCH, _trainer
from strata.torch._bench_launch import launcher, set_env_from_mpirun
from strata.torch._bench_sweep import agreed

COLUMNS = ("side", "processes", "replicas", "ms_per_step", "ratio_to_ddp", "last_loss")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m strata.distribute.bench",
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--steps", type=int, default=10, help="steps per side per round (10)")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds (7)")
    p.add_argument("--tiny-iterations", type=int, default=200,
                   help="iterations per round of the machinery's timings (200)")
    p.add_argument("--no-mirrored", action="store_true", help="skip the Mirrored side")
    p.add_argument("--csv", metavar="FILE", help="write the step rows as CSV")
    p.add_argument("--timeout", type=float, default=300, help="seconds for every wait")
    args = p.parse_args(argv)
    if args.steps < 1 or args.rounds < 1 or args.tiny_iterations < 1:
        p.error("--steps, --rounds and --tiny-iterations must be >= 1")
    return args


def strategy_trainer(strategy, images, labels, reduce_every_step=True):
    """The digits step under `strategy` (same seed, lr and batches as
    _bench_ddp's DDP trainer); run(first, steps) returns the last loss,
    reduced over the replicas after every step or after the last only."""
    with strategy.scope():
        model = digits_cnn.make_model(seed=0)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def step(x, y):
        per_example = F.cross_entropy(model(x), y, reduction="none")
        loss = sd.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss

    def run(first, steps):
        batches = [(images[rows], labels[rows]) for rows in
                   (digits_cnn.batch_indices(s, GLOBAL_BATCH, len(labels))
                    for s in range(first, first + steps))]
        losses = None
        for x, y in strategy.experimental_distribute_dataset(batches):
            losses = strategy.run(step, args=(x, y))
            if reduce_every_step:
                loss = strategy.reduce(sd.ReduceOp.SUM, losses, axis=None)
        if not reduce_every_step:
            loss = strategy.reduce(sd.ReduceOp.SUM, losses, axis=None)
        return loss.item()
    return run


def time_sides(trainers, only_rank0, args, control):
    """Median seconds per step of each side, the median of its per-round
    ratio to "ddp", and its last loss; every side takes 3 warm-up steps."""
    rank = dist.get_rank()
    names = list(trainers)
    position = dict.fromkeys(names, 0)
    per_step = {n: [] for n in names}
    losses = {}
    for r in range(-1, args.rounds):  # round -1: the warm-up
        shift = max(r, 0) % len(names)
        for name in names[shift:] + names[:shift]:
            steps = 3 if r < 0 else args.steps
            dist.barrier(group=control)
            seconds = 0.0
            if rank == 0 or name not in only_rank0:
                start = time.perf_counter()
                losses[name] = trainers[name](position[name], steps)
                seconds = (time.perf_counter() - start) / steps
            position[name] += steps
            if r >= 0:
                per_step[name].append(agreed(seconds, control))
    for name in ("ddp", "ddp_again"):  # DDP's loss is a rank's rows' mean: average the ranks'
        losses[name] = agreed(losses[name], control, dist.ReduceOp.SUM) / dist.get_world_size()
    rows = []
    for name in names:
        ratio = statistics.median(a / b for a, b in zip(per_step[name], per_step["ddp"]))
        rows.append({"side": name, "seconds": statistics.median(per_step[name]), "ratio": ratio,
                     "loss": losses.get(name, float("nan"))})
    return rows


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    set_env_from_mpirun()
    torch.set_num_threads(1)
    timeout = datetime.timedelta(seconds=args.timeout)
    # The strategy first: its resolver may need torch's store before
    # init_process_group serves it (torchrun --standalone).
    multi_worker = sd.MultiWorkerMirroredStrategy(
        communication_options=sd.CommunicationOptions(timeout=args.timeout))
    import strata.torch  # noqa: F401  (registers "strata")
    dist.init_process_group("strata", timeout=timeout)
    control = dist.new_group(backend="gloo", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    images, labels = digits_cnn.digits_tensors()
    trainers = {"ddp": _trainer(None, images, labels, rank, world),
                "ddp_again": _trainer(None, images, labels, rank, world),
                "multi_worker": strategy_trainer(multi_worker, images, labels),
                "multi_worker_reduce_last": strategy_trainer(multi_worker, images, labels,
                                                             reduce_every_step=False)}
    replicas = multi_worker.num_replicas_in_sync
    shape = {"ddp": (world, world), "ddp_again": (world, world),
             "multi_worker": (world, replicas), "multi_worker_reduce_last": (world, replicas)}
    if not args.no_mirrored:
        if rank == 0:
            mirrored = sd.MirroredStrategy([f"cpu:{i}" for i in range(world)])
            trainers["mirrored"] = strategy_trainer(mirrored, images, labels)
        else:
            trainers["mirrored"] = None
        shape["mirrored"] = (1, world)
    rows = time_sides(trainers, {"mirrored"}, args, control)
    dist.barrier(group=control)
    tiny = _bench_machinery.measure(world, args) if rank == 0 else None
    dist.barrier(group=control)
    if rank == 0:
        print(f"# strata.distribute.bench: digits CNN, global batch {GLOBAL_BATCH}, {world} "
              f"processes ({launcher()}), {args.rounds} interleaved rounds x {args.steps} "
              "steps, medians; ratio_to_ddp: median of the per-round ratios")
        print(f"{COLUMNS[0]:>24} " + " ".join(f"{c:>12}" for c in COLUMNS[1:]))
        for r in rows:
            processes, replicas = shape[r["side"]]
            print(f"{r['side']:>24} {processes:>12} {replicas:>12} {r['seconds'] * 1e3:>12.3f} "
                  f"{r['ratio']:>12.3f} {r['loss']:>12.6f}")
        _bench_machinery.print_table(tiny)
        if args.csv:
            with open(args.csv, "w") as f:
                f.write(",".join(COLUMNS) + "\n")
                for r in rows:
                    processes, replicas = shape[r["side"]]
                    f.write(f"{r['side']},{processes},{replicas},{r['seconds'] * 1e3:.6f},"
                            f"{r['ratio']:.6f},{r['loss']:.8f}\n")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
