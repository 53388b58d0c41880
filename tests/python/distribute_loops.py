"""The issue's RFC custom loop and the plain torch loop it must match,
shared by test_distribute.py and its multi-worker scenario."""

import torch
import torch.nn.functional as F

import strata.distribute as sd
from strata.torch import digits_cnn

GLOBAL_BATCH = 64
FULL_STEPS = 5
LAST_ROWS = 43  # the partial last batch: splits unevenly over 3 and 4 replicas
TOLERANCE = 1e-5


def Net():
    return digits_cnn.make_model(seed=0)


def make_global_batches():
    images, labels = digits_cnn.digits_tensors()
    batches = []
    for step in range(FULL_STEPS + 1):
        rows = digits_cnn.batch_indices(step, GLOBAL_BATCH, len(labels))
        if step == FULL_STEPS:
            rows = rows[:LAST_ROWS]
        batches.append((images[rows], labels[rows]))
    return batches


def plain_torch_loop(global_batches):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for x, y in global_batches:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        losses.append(loss.item())
    return model, losses


def rfc_loop(strategy, global_batches):
    # The custom loop, as written there (only the strategy differs).
    with strategy.scope():
        model = Net()                                   # one copy per replica
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = strategy.experimental_distribute_dataset(global_batches)  # (x, y) pairs
    def step(x, y):
        per_example = F.cross_entropy(model(x), y, reduction="none")
        loss = sd.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        return loss
    losses = []
    for x, y in batches:
        loss = strategy.reduce(sd.ReduceOp.SUM, strategy.run(step, args=(x, y)), axis=None)
        losses.append(loss.item())
    return strategy.experimental_local_results(model), losses
