"""strata.distribute.bench's second table: what the strategy machinery
costs per step on a model too small for its math to matter (Linear 16x16,
8 rows per replica), MirroredStrategy on N cpu devices in this process,
interleaved rounds, medians in microseconds:

  plain_step     the step in plain torch on the whole batch (no strategy)
  run_noop       strategy.run of a function that does nothing: handing the
                 call to the N replica threads and collecting the results
  all_reduce     Strata's batch_all_reduce of the N replicas' gradients
                 (strata.local on N devices, no strategy around it)
  mirrored_step  the whole step under the strategy (run, forward, backward,
                 the gradient all-reduce inside optimizer.step, reduce)
"""

import statistics
import time

import numpy as np
import torch

import strata
import strata.distribute as sd

ROWS = 8
WIDTH = 16
MACHINERY_COLUMNS = ("what", "replicas", "us_per_step")


def _model():
    torch.manual_seed(0)
    return torch.nn.Linear(WIDTH, WIDTH)


def _timers(replicas):
    x = torch.randn(ROWS * replicas, WIDTH)
    plain = _model()
    plain_optimizer = torch.optim.SGD(plain.parameters(), lr=0.01)

    def plain_step():
        plain_optimizer.zero_grad()
        plain(x).square().mean().backward()
        plain_optimizer.step()

    strategy = sd.MirroredStrategy([f"cpu:{i}" for i in range(replicas)])
    with strategy.scope():
        model = _model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    (parts,) = next(iter(strategy.experimental_distribute_dataset([(x,)])))

    def step(v):
        loss = sd.compute_average_loss(model(v).square().mean(dim=1),
                                       global_batch_size=ROWS * replicas)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    def mirrored_step():
        strategy.reduce(sd.ReduceOp.SUM, strategy.run(step, args=(parts,)), axis=None)

    def run_noop():
        strategy.run(lambda: None)

    communicator = strata.local([f"cpu:{i}" for i in range(replicas)])
    gradients = [[np.zeros((WIDTH, WIDTH), np.float32), np.zeros(WIDTH, np.float32)]
                 for _ in range(replicas)]

    def all_reduce():
        communicator.batch_all_reduce(gradients, op="sum")

    return {"plain_step": plain_step, "run_noop": run_noop, "all_reduce": all_reduce,
            "mirrored_step": mirrored_step}


def measure(replicas, args):
    """[(what, replicas, median µs per call)], rounds interleaved."""
    timers = _timers(replicas)
    names = list(timers)
    samples = {n: [] for n in names}
    for r in range(-1, args.rounds):
        shift = max(r, 0) % len(names)
        for name in names[shift:] + names[:shift]:
            count = max(1, args.tiny_iterations // (10 if r < 0 else 1))
            start = time.perf_counter()
            for _ in range(count):
                timers[name]()
            if r >= 0:
                samples[name].append((time.perf_counter() - start) / count)
    return [(n, 1 if n == "plain_step" else replicas, statistics.median(samples[n]) * 1e6)
            for n in names]


def print_table(rows):
    print("# strata.distribute machinery, tiny model (Linear 16x16, 8 rows per replica), "
          "process 0, medians")
    print(" ".join(f"{c:>14}" for c in MACHINERY_COLUMNS))
    for what, replicas, micros in rows:
        print(f"{what:>14} {replicas:>14} {micros:>14.1f}")
