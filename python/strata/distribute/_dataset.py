"""experimental_distribute_dataset: each global batch split along dim 0
into one slice per replica, by core's rule (even_row_split: sizes differ by
at most one row, larger slices first), with the batch's true global size
carried along so a partial last batch still averages right."""

import torch

from strata import _core
from strata.distribute._values import PerReplica


class DistributedDataset:
    """Iterates `dataset` (an iterable of global batches) and yields, for
    each, the same structure with every tensor replaced by a PerReplica of
    this process's slices. Iterable again if `dataset` is.

    Across workers every process reads the same global batches and keeps
    the slices of its own replicas (tf.data's AutoShardPolicy.DATA), so the
    workers together take each batch once."""

    def __init__(self, dataset, replicas, first_local=0, local=None):
        self._dataset = dataset
        self._replicas = replicas
        self._first_local = first_local
        self._local = replicas if local is None else local

    def __iter__(self):
        for batch in self._dataset:
            yield split_batch(batch, self._replicas, self._first_local, self._local)


def split_batch(batch, replicas, first_local=0, local=None):
    rows = _rows(batch)
    bounds = _core.even_row_split(rows, replicas)
    local = replicas if local is None else local
    return _split(batch, bounds[first_local:first_local + local], rows)


def _rows(batch):
    if isinstance(batch, torch.Tensor):
        if batch.dim() == 0:
            raise ValueError("a global batch must be batched along dim 0, not a scalar")
        return batch.shape[0]
    parts = list(batch.values()) if isinstance(batch, dict) else batch
    if not isinstance(parts, (tuple, list)) or not parts:
        raise TypeError("a global batch is a tensor or a non-empty tuple, list or dict of "
                        f"tensors, not {type(batch).__name__}")
    rows = {_rows(p) for p in parts}
    if len(rows) != 1:
        raise ValueError(f"the components of a global batch have different numbers of rows: "
                         f"{sorted(rows)}")
    return rows.pop()


def _split(batch, bounds, rows):
    if isinstance(batch, torch.Tensor):
        return PerReplica([batch[begin:end] for begin, end in bounds], global_batch_size=rows)
    if isinstance(batch, dict):
        return {k: _split(v, bounds, rows) for k, v in batch.items()}
    return type(batch)(_split(v, bounds, rows) for v in batch)
