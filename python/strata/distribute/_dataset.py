"""Distributed input, by core's rules (core/strategy/distributed_dataset.h):

- experimental_distribute_dataset: each global batch split along dim 0
  into one slice per replica (even_row_split: sizes differ by at most one
  row, larger slices first), with the batch's true global size carried
  along so a partial last batch still averages right; across workers the
  auto-shard policy says which slices a worker keeps.
- distribute_datasets_from_function: fn(InputContext) once per worker,
  returning per-replica batches; each step takes one per local replica.

Both report and restore their position (state_dict / load_state_dict), so
a Checkpoint resumes the data where the interrupted run left it: a restored
dataset reads past the batches already trained on, which gives the same
batches as the uninterrupted run when the input is deterministic."""

import torch

from strata import _core
from strata.distribute._input import AutoShardPolicy, InputContext, shard_policy
from strata.distribute._values import PerReplica


class DistributedDataset:
    """Iterates `dataset` (an iterable of global batches) and yields, for
    each, the same structure with every tensor replaced by a PerReplica of
    this process's slices. Iterable again if `dataset` is.

    Across workers (MultiWorkerMirroredStrategy) the auto-shard policy
    decides what each worker takes (core's AutoShardPolicy):
      AUTO, DATA: every worker reads the same global batches and keeps the
        slices of its own replicas, so the workers together take each batch
        once (AUTO is DATA: an iterable has no files to shard).
      OFF: every worker splits each global batch among its own replicas
        only: every worker trains on the whole dataset, and the step's
        global batch is the batch's rows times the workers."""

    def __init__(self, dataset, replicas, first_local=0, local=None, workers=1, options=None):
        self._dataset = dataset
        self._policy = shard_policy(options)
        local = replicas if local is None else local
        if self._policy == AutoShardPolicy.OFF:
            replicas, first_local, self._copies = local, 0, workers
        else:
            self._copies = 1
        self._replicas = replicas
        self._first_local = first_local
        self._local = local
        self._position = _Position()
        self._strategy = None  # set by the strategy that made it

    @property
    def auto_shard_policy(self):
        return self._policy

    def __iter__(self):
        return DistributedIterator(self, self._position.take_pending())

    def state_dict(self):
        """Where the latest iteration stands: {"batches": global batches
        taken from it, "passes": iterations finished before it}."""
        return self._position.state_dict()

    def load_state_dict(self, state):
        """The next iteration starts `state["batches"]` global batches in."""
        self._position.load_state_dict(state)

    def _split(self, batch):
        return split_batch(batch, self._replicas, self._first_local, self._local, self._copies)

    def _fresh_source(self):
        return iter(self._dataset)


class DistributedIterator:
    """One pass over a DistributedDataset; knows how many global batches it
    has yielded, and can be put back at any count (state_dict)."""

    def __init__(self, distributed, skip=0):
        self._distributed = distributed
        self._source = distributed._fresh_source()
        self._taken = 0
        distributed._position.start(self)
        self._skip(skip)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            batch = next(self._source)
        except StopIteration:
            self._distributed._position.finish(self)
            raise
        self._taken += 1
        return self._distributed._split(batch)

    def get_next(self):
        return next(self)

    @property
    def _strategy(self):
        return self._distributed._strategy

    def state_dict(self):
        return {"batches": self._taken}

    def load_state_dict(self, state):
        """Restarts this pass and reads past `state["batches"]` batches."""
        target = _batches(state)
        source = self._distributed._fresh_source()
        if source is self._source and self._taken > 0:
            raise ValueError("cannot move back an iterator over a one-shot iterable; pass "
                             "experimental_distribute_dataset something iterable again (a list, "
                             "a DataLoader)")
        self._source, self._taken = source, 0
        self._skip(target)

    def _skip(self, batches):
        for _ in range(batches):
            try:
                next(self._source)
            except StopIteration:
                raise ValueError(f"the data position to restore is {batches} batches into the "
                                 f"dataset, which ends after {self._taken}; was the checkpoint "
                                 "written with other input?") from None
            self._taken += 1


class _Position:
    """The position of a dataset's latest iteration, and the one a restore
    asked the next iteration to start at."""

    def __init__(self):
        self._current = None
        self._passes = 0
        self._pending = 0

    def start(self, iterator):
        self._current = iterator

    def finish(self, iterator):
        if iterator is self._current:
            self._current = None
            self._passes += 1

    def take_pending(self):
        pending, self._pending = self._pending, 0
        return pending

    def state_dict(self):
        current = self._current
        # Restored and not yet iterated: the position still to be taken up.
        batches = current._taken if current is not None else self._pending
        return {"batches": batches, "passes": self._passes}

    def load_state_dict(self, state):
        self._pending = _batches(state)
        self._passes = int(state.get("passes", 0))
        self._current = None


def _batches(state):
    batches = state.get("batches") if isinstance(state, dict) else None
    if not isinstance(batches, int) or batches < 0:
        raise ValueError(f"a data position is {{'batches': n >= 0, ...}}, not {state!r}")
    return batches


class DatasetsFromFunction(DistributedDataset):
    """distribute_datasets_from_function: `fn(InputContext)` made this
    worker's input of per-replica batches; each step hands one to each local
    replica in replica order. A pipeline that runs out mid-step gives the
    replicas left empty slices shaped like the last batch seen (a partial
    step). Across workers, each step sums the rows of every worker's
    replicas (one small all-reduce), so the step's global batch size is
    exact, and the workers end together: while any worker has data, the
    others take empty steps."""

    def __init__(self, fn, context, local, workers, job_sum=None):
        dataset = fn(context)
        if dataset is None:
            raise ValueError("the dataset function returned None; it must return an iterable of "
                             "per-replica batches")
        super().__init__(dataset, local, 0, local, workers)
        self._input_context = context
        self._workers = workers
        self._job_sum = job_sum  # None: one worker, nothing to agree on

    @property
    def input_context(self):
        return self._input_context

    def __iter__(self):
        return PerReplicaIterator(self, self._position.take_pending())


class PerReplicaIterator(DistributedIterator):
    """Position in steps; a step reads one element per local replica."""

    _last = None  # the last element seen: the shape of the empty slices of a partial step

    def __next__(self):
        distributed = self._distributed
        elements = []
        for _ in range(distributed._local):
            try:
                elements.append(next(self._source))
            except StopIteration:
                break
        rows = sum(_rows(e) for e in elements)
        if distributed._job_sum is None:
            any_data, rows = bool(elements), rows * distributed._workers
        else:
            counts = distributed._job_sum([[rows, len(elements)]] +
                                          [[0, 0]] * (distributed._local - 1))
            any_data, rows = counts[1] > 0, int(counts[0])
        if not any_data:
            distributed._position.finish(self)
            raise StopIteration
        if elements:
            self._last = elements[0]
        elif self._last is None:
            raise ValueError("this worker's input pipeline yielded nothing while other workers' "
                             "had data: it cannot make the empty slices of their partial step")
        self._taken += 1
        while len(elements) < distributed._local:
            elements.append(_empty_like(self._last))
        return _stack(elements, rows)

    def _skip(self, steps):
        # No end check: across workers, a worker whose pipeline ended took
        # empty steps while others had data, and those count too.
        for _ in range(steps):
            for _ in range(self._distributed._local):
                next(self._source, None)
            self._taken += 1


def split_batch(batch, replicas, first_local=0, local=None, copies=1):
    """This process's `local` slices of `batch` split `replicas` ways, from
    slice `first_local` on; `copies` workers hold the same batch (OFF)."""
    rows = _rows(batch)
    bounds = _core.even_row_split(rows, replicas)
    local = replicas if local is None else local
    return _split(batch, bounds[first_local:first_local + local], rows * copies)


def _rows(batch):
    if isinstance(batch, torch.Tensor):
        if batch.dim() == 0:
            raise ValueError("a batch must be batched along dim 0, not a scalar")
        return batch.shape[0]
    parts = list(batch.values()) if isinstance(batch, dict) else batch
    if not isinstance(parts, (tuple, list)) or not parts:
        raise TypeError("a batch is a tensor or a non-empty tuple, list or dict of tensors, "
                        f"not {type(batch).__name__}")
    rows = {_rows(p) for p in parts}
    if len(rows) != 1:
        raise ValueError(f"the components of a batch have different numbers of rows: "
                         f"{sorted(rows)}")
    return rows.pop()


def _split(batch, bounds, rows):
    if isinstance(batch, torch.Tensor):
        return PerReplica([batch[begin:end] for begin, end in bounds], global_batch_size=rows)
    if isinstance(batch, dict):
        return {k: _split(v, bounds, rows) for k, v in batch.items()}
    return type(batch)(_split(v, bounds, rows) for v in batch)


def _stack(elements, rows):
    """Per-replica elements of one structure as that structure of PerReplica."""
    first = elements[0]
    if isinstance(first, torch.Tensor):
        return PerReplica(elements, global_batch_size=rows)
    if isinstance(first, dict):
        return {k: _stack([e[k] for e in elements], rows) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(_stack([e[i] for e in elements], rows) for i in range(len(first)))
    raise TypeError(f"a per-replica batch is a tensor or a tuple, list or dict of tensors, not "
                    f"{type(first).__name__}")


def _empty_like(element):
    if isinstance(element, torch.Tensor):
        return element[0:0]
    if isinstance(element, dict):
        return {k: _empty_like(v) for k, v in element.items()}
    return type(element)(_empty_like(v) for v in element)


__all__ = ["DistributedDataset", "DatasetsFromFunction", "InputContext", "split_batch"]
