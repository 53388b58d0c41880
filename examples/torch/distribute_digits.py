#!/usr/bin/env python3
"""The digits CNN trained with a custom loop under a strata.distribute
strategy chosen by --strategy; only the line that makes the strategy
differs between them, and all end with the same weights.

  python3 distribute_digits.py --strategy one_device
  python3 distribute_digits.py --strategy mirrored --devices 4
  python3 distribute_digits.py --strategy central_storage --devices 3
  strata launch -n 2 -- python3 distribute_digits.py --strategy multi_worker --devices 2
  python3 -m torch.distributed.run --redirects 1 --tee 1 --standalone --nproc_per_node 2 \\
      distribute_digits.py --strategy multi_worker
  mpirun -np 2 python3 distribute_digits.py --strategy multi_worker

(PYTHONPATH=<build>/python unless strata is installed.) Each worker prints
one line, the same under every strategy up to float rounding:

  digits: MirroredStrategy 4 replicas, worker 0 of 1: steps 40 final loss 0.589 ... \
checksum 12.34 ... accuracy 0.91

final loss: the last step's loss reduced over the replicas; checksum: the
sum of every parameter (float64); accuracy: of the model on all digits.
"""

import argparse

import torch
import torch.nn.functional as F

import strata.distribute as sd
from strata.torch import digits_cnn

STRATEGIES = ("one_device", "mirrored", "central_storage", "multi_worker")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strategy", choices=STRATEGIES, default="mirrored")
    parser.add_argument("--devices", type=int, default=None,
                        help="local cpu devices (replicas) per process (default: mirrored 4, "
                             "central_storage 3, multi_worker the launcher's or 1)")
    parser.add_argument("--steps", type=int, default=40, help="SGD steps (default 40)")
    parser.add_argument("--batch", type=int, default=64, help="global batch (default 64)")
    parser.add_argument("--lr", type=float, default=0.5, help="SGD learning rate (0.5)")
    return parser.parse_args(argv)


def make_strategy(name, devices):
    cpus = [f"cpu:{i}" for i in range(devices)] if devices else None
    if name == "one_device":
        return sd.OneDeviceStrategy("cpu:0")
    if name == "mirrored":
        return sd.MirroredStrategy(cpus or [f"cpu:{i}" for i in range(4)])
    if name == "central_storage":
        return sd.CentralStorageStrategy(cpus or [f"cpu:{i}" for i in range(3)])
    return sd.MultiWorkerMirroredStrategy(devices=cpus)  # the job: the launcher's


def global_batches(images, labels, steps, batch):
    """Seeded global batches, the last one partial (2/3 of a batch): every
    strategy sees the same rows and must average the short batch right."""
    for step in range(steps):
        rows = digits_cnn.batch_indices(step, batch, len(labels))
        if step == steps - 1:
            rows = rows[:max(1, 2 * batch // 3)]
        yield images[rows], labels[rows]


def main(argv=None):
    args = parse_args(argv)
    strategy = make_strategy(args.strategy, args.devices)
    images, labels = digits_cnn.digits_tensors()
    with strategy.scope():
        model = digits_cnn.make_model(seed=0)
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

    def step(x, y):
        per_example = F.cross_entropy(model(x), y, reduction="none")
        loss = sd.compute_average_loss(per_example, global_batch_size=args.batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    batches = strategy.experimental_distribute_dataset(
        list(global_batches(images, labels, args.steps, args.batch)))
    loss = None
    for x, y in batches:
        loss = strategy.reduce(sd.ReduceOp.SUM, strategy.run(step, args=(x, y)), axis=None)
    final_loss = loss.item()  # the mean over the short last batch's rows (compute_average_loss)
    replica0 = strategy.experimental_local_results(model)[0]
    checksum = sum(p.detach().double().sum().item() for p in replica0.parameters())
    with torch.no_grad():
        accuracy = (replica0(images).argmax(1) == labels).double().mean().item()
    worker = getattr(strategy, "worker_id", 0)
    workers = getattr(strategy, "worker_count", 1)
    print(f"digits: {type(strategy).__name__} {strategy.num_replicas_in_sync} replicas, "
          f"worker {worker} of {workers}: steps {args.steps} final loss {final_loss:.8f} "
          f"checksum {checksum:.8f} accuracy {accuracy:.4f}", flush=True)


if __name__ == "__main__":
    main()
