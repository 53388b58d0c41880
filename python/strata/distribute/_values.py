"""The values of tf.distribute's API: reduction names, communication
options, per-replica values, and the loss scaling that makes a sum of
replicas' gradients the gradient of the global batch."""

import dataclasses
from typing import Optional

from strata.distribute import _context


class ReduceOp:
    """How values of the replicas combine (the strings work too)."""
    SUM = "sum"
    MEAN = "mean"
    MIN = "min"
    MAX = "max"


_REDUCE_OPS = ("sum", "mean", "min", "max")


def reduce_op_name(op):
    """The Strata name of `op` (ReduceOp.SUM, "sum", "SUM"); ValueError
    names the choices."""
    name = getattr(op, "value", op)
    if isinstance(name, str) and name.lower() in _REDUCE_OPS:
        return name.lower()
    raise ValueError(f"unknown reduce op {op!r}; choose one of ReduceOp.SUM, MEAN, MIN, MAX")


@dataclasses.dataclass(frozen=True)
class CommunicationOptions:
    """How a strategy's collectives run (tf.distribute.experimental.
    CommunicationOptions, with Strata's meaning of each field):

    implementation: "auto" (the selector's choice), "ring", "nccl", a plugin
        or an algorithm id; None is the config's default.
    bytes_per_pack: gradients are fused into packs of about this many bytes
        for batch_all_reduce; 0 turns packing off; None is the config's.
    timeout: seconds any collective and any meeting of the replicas may
        wait before failing with TimedOutError naming who is missing.
    """
    implementation: Optional[str] = None
    bytes_per_pack: Optional[int] = None
    timeout: Optional[float] = None

    def __post_init__(self):
        if self.bytes_per_pack is not None and self.bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be >= 0, not {self.bytes_per_pack}")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {self.timeout}")


class PerReplica:
    """One value per replica of this process, in replica order: what `run`
    returns and what a distributed dataset yields. `run` hands replica r its
    `values[r]`."""

    __slots__ = ("values", "global_batch_size")

    def __init__(self, values, global_batch_size=None):
        self.values = tuple(values)
        # Rows of the whole step's batch (all replicas), when the value is
        # a slice of a global batch: how compute_average_loss finds the
        # true size of a partial last batch.
        self.global_batch_size = global_batch_size

    def __len__(self):
        return len(self.values)

    def __repr__(self):
        inner = ", ".join(f"{r}: {_short(v)}" for r, v in enumerate(self.values))
        return f"PerReplica({{{inner}}})"


def _short(value):
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"{type(value).__name__}{tuple(shape)}"
    return repr(value)


def select_replica(value, replica, count):
    """Replica `replica`'s part of `value`: PerReplica values are picked,
    tuples, lists and dicts are entered, anything else is shared."""
    if isinstance(value, PerReplica):
        if len(value) != count:
            raise ValueError(f"a PerReplica of {len(value)} values passed to a strategy of "
                             f"{count} replicas")
        return value.values[replica]
    if isinstance(value, (tuple, list)):
        return type(value)(select_replica(v, replica, count) for v in value)
    if isinstance(value, dict):
        return {k: select_replica(v, replica, count) for k, v in value.items()}
    return value


def step_global_batch_size(value):
    """The global batch size that travels with the PerReplica inputs of a
    step (a distributed dataset's), or None."""
    if isinstance(value, PerReplica):
        return value.global_batch_size
    items = value.values() if isinstance(value, dict) else value
    if isinstance(value, (tuple, list, dict)):
        for v in items:
            size = step_global_batch_size(v)
            if size is not None:
                return size
    return None


def regroup(results):
    """The replicas' return values as one structure: tuples, lists and
    dicts of the same shape are regrouped element by element, the very same
    object from every replica stays itself, anything else becomes a
    PerReplica."""
    first = results[0]
    if len(results) == 1:
        return first
    if all(r is first for r in results):
        return first  # one object every replica returned (a merge_call's result, None)
    if isinstance(first, (tuple, list)) and all(
            type(r) is type(first) and len(r) == len(first) for r in results):
        return type(first)(regroup([r[i] for r in results]) for i in range(len(first)))
    if isinstance(first, dict) and all(isinstance(r, dict) and r.keys() == first.keys()
                                       for r in results):
        return {k: regroup([r[k] for r in results]) for k in first}
    return PerReplica(results)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of `per_example_loss` (times `sample_weight`) divided by the
    global batch size, so that summing the replicas' gradients gives the
    gradient of the mean loss over the whole global batch.

    Inside `run` on a batch of experimental_distribute_dataset, a partial
    last batch (fewer rows than `global_batch_size`) is divided by its true
    number of rows, which travels with it: the mean stays the mean over the
    rows that exist. With no `global_batch_size`, that true size is used, or
    else this replica's rows times num_replicas_in_sync."""
    loss = per_example_loss if sample_weight is None else per_example_loss * sample_weight
    replica = _context.get_replica_context()
    step_size = getattr(replica, "_step_global_batch_size", None) if replica is not None else None
    if global_batch_size is None:
        if step_size is not None:
            global_batch_size = step_size
        else:
            replicas = replica.num_replicas_in_sync if replica is not None else 1
            global_batch_size = (loss.shape[0] if loss.dim() > 0 else 1) * replicas
    elif step_size is not None and step_size < global_batch_size:
        global_batch_size = step_size
    if global_batch_size <= 0:
        raise ValueError(f"global_batch_size must be positive, not {global_batch_size}")
    return loss.sum() / global_batch_size
