"""A small CNN for the 8x8 digits of strata.datasets.load_digits, and the
seeded batches that make a distributed run comparable with one process.

    from strata.torch import digits_cnn
    images, labels = digits_cnn.digits_tensors()     # [1797, 1, 8, 8], [1797]
    model = digits_cnn.make_model(seed=0)            # same weights in every rank
    for step in range(steps):
        batch = digits_cnn.batch_indices(step, 64, len(labels))   # the global batch
        mine = digits_cnn.rank_slice(batch, rank, world)          # this rank's share

With equal shares and a mean loss, DDP's averaged gradient is the gradient
of the global batch, so N ranks and one process end with the same weights
(examples/torch/ddp_digits.py, tests/python/test_ddp_digits.py,
`python3 -m strata.torch.bench --ddp-step`).
"""

import torch
from torch import nn

from strata.datasets import load_digits


class DigitsCNN(nn.Module):
    """conv 1->8 (3x3), relu, 2x2 max-pool, conv 8->16 (3x3), relu, linear
    256->10: 3,818 parameters in four tensors (DDP buckets, hooks and ZeRO
    shards all see more than one)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, images):
        x = self.pool(torch.relu(self.conv1(images)))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


def make_model(seed=0):
    """A DigitsCNN whose initial weights depend only on `seed` (the global
    RNG is left as it was)."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return DigitsCNN()


def digits_tensors(path=None):
    """The digits as torch tensors: images float32 [n, 1, 8, 8] in [0, 1],
    labels int64 [n]."""
    features, labels = load_digits(path)
    images = torch.from_numpy(features).reshape(-1, 1, 8, 8)
    return images, torch.from_numpy(labels)


def batch_indices(step, batch_size, count, seed=0):
    """The rows of the global batch of `step`: consecutive slices of a
    permutation of range(count) that is reshuffled (from `seed` and the
    epoch) each time it runs out, so every rank computes the same list."""
    per_epoch = count // batch_size
    if per_epoch == 0:
        raise ValueError(f"batch size {batch_size} is larger than the data set ({count} rows)")
    epoch, position = divmod(step, per_epoch)
    generator = torch.Generator().manual_seed(seed * 100003 + epoch)
    order = torch.randperm(count, generator=generator)
    return order[position * batch_size:(position + 1) * batch_size]


def rank_slice(indices, rank, world):
    """Rank `rank`'s equal share of a global batch (its size must divide by
    `world`, so the mean of the ranks' mean losses is the global mean)."""
    if len(indices) % world != 0:
        raise ValueError(f"global batch of {len(indices)} does not split evenly over {world} ranks")
    share = len(indices) // world
    return indices[rank * share:(rank + 1) * share]


__all__ = ["DigitsCNN", "make_model", "digits_tensors", "batch_indices", "rank_slice"]
