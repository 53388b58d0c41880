#!/usr/bin/env python3
"""The RFC's custom training loop (issue 26), as written there: the digits
CNN under MirroredStrategy on three cpu devices. Change the first line of
main() to any other strategy (OneDeviceStrategy(), CentralStorageStrategy,
MultiWorkerMirroredStrategy under a launcher) and nothing else changes.

  python3 custom_training_loop.py

Prints the reduced loss of each step, then the parameter checksum.
"""

import torch
import torch.nn.functional as F

import strata.distribute as sd
from strata.torch import digits_cnn

GLOBAL_BATCH = 64
STEPS = 10


def Net():
    return digits_cnn.make_model(seed=0)


def make_global_batches():
    images, labels = digits_cnn.digits_tensors()
    return [(images[rows], labels[rows]) for rows in
            (digits_cnn.batch_indices(step, GLOBAL_BATCH, len(labels)) for step in range(STEPS))]


def main():
    global_batches = make_global_batches()
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    with strategy.scope():
        model = Net()                                   # one copy per replica
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = strategy.experimental_distribute_dataset(global_batches)  # (x, y) pairs
    def step(x, y):
        per_example = F.cross_entropy(model(x), y, reduction="none")
        loss = sd.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        return loss
    for i, (x, y) in enumerate(batches):
        loss = strategy.reduce(sd.ReduceOp.SUM, strategy.run(step, args=(x, y)), axis=None)
        print(f"step {i}: loss {loss.item():.6f}")
    copies = strategy.experimental_local_results(model)
    checksum = sum(p.detach().double().sum().item() for p in copies[0].parameters())
    identical = all(torch.equal(p, q) for c in copies[1:]
                    for p, q in zip(c.parameters(), copies[0].parameters()))
    print(f"checksum {checksum:.8f}; the {len(copies)} replicas' weights identical: "
          f"{'yes' if identical else 'NO'}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
