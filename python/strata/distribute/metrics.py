"""Metrics that combine their state across replicas and workers, as core's
do (core/train/metrics.h): a running total and count per local replica,
added to inside `run` with no communication, and summed over every replica
of every worker when read, so result() is over every example the job saw
and the same on every worker.

    with strategy.scope():
        accuracy = sd.metrics.SparseCategoricalAccuracy()
    def step(x, y):
        logits = model(x)
        accuracy.update_state(y, logits)
    ...
    accuracy.result()        # in cross-replica context; collective across workers
    accuracy.reset_state()

result() and state_dict() of a multi-worker strategy's metric are
collectives: every worker calls them at the same point."""

import threading

import numpy as np
import torch

from strata.distribute import _context


class Metric:
    """total / count, kept per local replica of the strategy current when
    the metric was made (its scope's, else the default strategy)."""

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self._strategy = _context.get_strategy()
        self._slots = np.zeros((self._strategy._local_count, 2), dtype=np.float64)
        self._lock = threading.Lock()

    @property
    def strategy(self):
        return self._strategy

    def _add(self, total, count):
        replica = _context.current_replica()
        slot = 0
        if replica is not None:
            if replica.strategy is not self._strategy:
                raise ValueError(f"metric '{self.name}' was made under {self._strategy!r}, and "
                                 f"is updated in a replica of {replica.strategy!r}; make it in "
                                 "the scope of the strategy that runs the step")
            slot = replica.local_replica_id
        with self._lock:
            self._slots[slot, 0] += float(total)
            self._slots[slot, 1] += float(count)

    def _job_state(self):
        """(total, count) over every replica of every worker."""
        if _context.current_replica() is not None:
            raise RuntimeError(f"metric '{self.name}': result() and state_dict() combine every "
                               "replica's state; call them outside strategy.run")
        with self._lock:
            slots = list(self._slots.copy())
        total, count = self._strategy._job_sum_arrays(slots)
        return float(total), float(count)

    def result(self):
        """total / count over the job (0 when nothing was seen), a float64 tensor."""
        total, count = self._job_state()
        return torch.tensor(total / count if count else 0.0, dtype=torch.float64)

    def reset_state(self):
        with self._lock:
            self._slots[:] = 0.0

    def state_dict(self):
        """The job's combined state (a collective across workers)."""
        total, count = self._job_state()
        return {"total": total, "count": count}

    def load_state_dict(self, state):
        """The job's state goes to the chief's first replica (every worker
        loads the same state, and reading sums over the workers)."""
        with self._lock:
            self._slots[:] = 0.0
            if self._strategy._is_chief:
                self._slots[0] = (float(state["total"]), float(state["count"]))

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r})"


def _weighted(values, sample_weight):
    values = torch.as_tensor(values).detach().to(torch.float64).reshape(-1)
    if sample_weight is None:
        return values.sum().item(), values.numel()
    weights = torch.as_tensor(sample_weight).detach().to(torch.float64)
    weights = torch.broadcast_to(weights.reshape(-1) if weights.dim() else weights, values.shape)
    return (values * weights).sum().item(), weights.sum().item()


class Mean(Metric):
    """The (weighted) mean of every value given."""

    def update_state(self, values, sample_weight=None):
        self._add(*_weighted(values, sample_weight))


class Sum(Metric):
    """The (weighted) sum of every value given; result() is the sum."""

    def update_state(self, values, sample_weight=None):
        total, _ = _weighted(values, sample_weight)
        self._add(total, 0.0)

    def result(self):
        total, _ = self._job_state()
        return torch.tensor(total, dtype=torch.float64)


class SparseCategoricalAccuracy(Metric):
    """The fraction of rows whose arg-max prediction is the label: y_true
    [batch] class ids, y_pred [batch, classes] logits or probabilities."""

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = torch.as_tensor(y_pred).detach()
        y_true = torch.as_tensor(y_true).detach().reshape(-1)
        if y_pred.shape[:1] != y_true.shape:
            raise ValueError(f"metric '{self.name}': {y_true.shape[0]} labels for predictions of "
                             f"shape {tuple(y_pred.shape)}")
        if y_true.numel() == 0:
            return
        matches = (y_pred.argmax(dim=-1) == y_true.to(torch.int64))
        self._add(*_weighted(matches, sample_weight))


class Accuracy(Metric):
    """The fraction of predictions equal to the labels (same shapes)."""

    def update_state(self, y_true, y_pred, sample_weight=None):
        matches = torch.as_tensor(y_true).detach() == torch.as_tensor(y_pred).detach()
        self._add(*_weighted(matches, sample_weight))


__all__ = ["Accuracy", "Mean", "Metric", "SparseCategoricalAccuracy", "Sum"]
