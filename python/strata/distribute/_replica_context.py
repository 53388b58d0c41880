"""ReplicaContext: what one replica of `run` can do with the others. Every
cross-replica step (all_reduce, all_gather, merge_call, the optimizer's
gradient all-reduce) meets at core's ReplicaRendezvous: the last replica in
runs the step for all of them while the others wait with a deadline, and
a replica that fails releases the rest at once."""

import threading

import numpy as np
import torch

from strata._errors import AbortedError
from strata.distribute import _context
from strata.distribute._values import PerReplica, reduce_op_name


class Meeting:
    """The payloads of the replicas at the current cross-replica step, and
    the step's outcome. One per strategy: the rendezvous lets no replica
    into the next step before every one has left this one."""

    def __init__(self, replicas):
        self.payloads = [None] * replicas
        self.result = None
        self.failure = None  # (replica that ran the step, its exception)
        self.lock = threading.Lock()


class ReplicaContext:
    """Replica `replica_id_in_sync_group` of `strategy` (of the whole job)
    inside `run`; `local_replica_id` is its place among this process's."""

    def __init__(self, strategy, local_replica_id, replica_id, step_global_batch_size=None):
        self.strategy = strategy
        self.local_replica_id = local_replica_id
        self.replica_id_in_sync_group = replica_id
        self._step_global_batch_size = step_global_batch_size

    @property
    def num_replicas_in_sync(self):
        return self.strategy.num_replicas_in_sync

    @property
    def devices(self):
        return (self.strategy.devices[self.local_replica_id],)

    def __repr__(self):
        return (f"<ReplicaContext {self.replica_id_in_sync_group} of "
                f"{self.num_replicas_in_sync} in {self.strategy!r}>")

    def meet(self, what, payload, step):
        """Hands `payload` to the cross-replica step `what`; the last replica
        to arrive runs step(payloads) (payloads in replica order) and every
        replica returns its result. Single-replica strategies run it at once."""
        strategy = self.strategy
        if strategy._local_count == 1:
            return step([payload])
        meeting = strategy._meeting
        replica = self.local_replica_id
        meeting.payloads[replica] = payload

        def run_step():
            meeting.failure = None
            try:
                meeting.result = step(list(meeting.payloads))
            except BaseException as error:
                meeting.failure = (replica, error)
                raise

        try:
            strategy._rendezvous.arrive(replica, what, run_step, strategy.meeting_timeout)
        except AbortedError as error:
            failure = meeting.failure
            if failure is not None and failure[0] == replica:
                raise failure[1] from None  # this replica ran the step: its own error
            error.strata_released = True  # another replica failed first
            raise
        return meeting.result

    def all_reduce(self, reduce_op, value, options=None):
        """The reduction over all replicas of `value` (a tensor, or a tuple or
        list of tensors): new tensors, equal on every replica. SUM and MEAN
        are differentiable (as in tf.distribute): where a tensor requires
        grad, backward all-reduces the incoming gradients over the replicas
        with the same op, so every replica must call backward. MAX and MIN
        results are not tracked by autograd."""
        del options
        op = reduce_op_name(reduce_op)
        tensors, rebuild = _flatten(value)
        if (op in ("sum", "mean") and torch.is_grad_enabled()
                and any(t.requires_grad for t in tensors)):
            return rebuild(list(_AllReduce.apply(self, op, *tensors)))
        return rebuild(self._all_reduce_tensors(op, tensors))

    def _all_reduce_tensors(self, op, tensors):
        """Contiguous copies of `tensors`, reduced over the replicas."""
        outputs = [_contiguous_copy(t) for t in tensors]
        if self.num_replicas_in_sync == 1:
            return outputs
        communicator = self.strategy._communicator()

        def step(payloads):
            _check_same_shapes("all_reduce", payloads)
            communicator.batch_all_reduce([[t.numpy() for t in p] for p in payloads], op=op)

        self.meet(f"all_reduce({op}) of {_describe(outputs)}", outputs, step)
        return outputs

    def all_gather(self, value, axis):
        """Every replica's `value` (tensors, or a tuple or list of them)
        concatenated along `axis` in replica order; the replicas' sizes along
        `axis` may differ (a partial batch), the other dimensions may not."""
        tensors, rebuild = _flatten(value)
        if self.num_replicas_in_sync == 1:
            return rebuild([t.detach().clone() for t in tensors])
        communicator = self.strategy._communicator()
        moved = [torch.movedim(t.detach(), axis, 0).contiguous() for t in tensors]

        def step(payloads):
            return gather_rows(communicator,
                               [[p[i] for p in payloads] for i in range(len(payloads[0]))])

        # Sizes along `axis` may differ between replicas, so they are no
        # part of the name the replicas must agree on.
        dtypes = ", ".join(str(t.dtype).replace("torch.", "") for t in moved)
        gathered = self.meet(f"all_gather(axis={axis}) of [{dtypes}]", moved, step)
        return rebuild([torch.movedim(g, 0, axis).clone() for g in gathered])  # one per replica

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Runs merge_fn(strategy, *args, **kwargs) once, in cross-replica
        context, when every replica has reached this call: arguments that
        differ between replicas arrive as PerReplica values. Every replica
        returns merge_fn's result."""
        kwargs = kwargs or {}
        strategy = self.strategy

        def step(payloads):
            merged_args = [_merge([p[0][i] for p in payloads]) for i in range(len(args))]
            merged_kwargs = {k: _merge([p[1][k] for p in payloads]) for k in kwargs}
            previous = _context.set_replica(None)
            merging = _context.set_merging(strategy)
            try:
                return merge_fn(strategy, *merged_args, **merged_kwargs)
            finally:
                _context.set_merging(merging)
                _context.set_replica(previous)

        name = getattr(merge_fn, "__qualname__", repr(merge_fn))
        return self.meet(f"merge_call({name})", (tuple(args), dict(kwargs)), step)


class _AllReduce(torch.autograd.Function):
    """all_reduce(SUM or MEAN) whose gradient is the same all_reduce of the
    replicas' incoming gradients: replica r's output is op over s of x_s,
    so d(sum over r of L_r)/d x_s is op over r of dL_r/d(output_r)."""

    @staticmethod
    def forward(ctx, context, op, *tensors):
        ctx.context, ctx.op = context, op
        ctx.like = [(t.shape, t.dtype) for t in tensors]
        return tuple(context._all_reduce_tensors(op, list(tensors)))

    @staticmethod
    def backward(ctx, *grads):
        # Every replica must bring every tensor to the meeting: an output
        # this replica did not use has a zero gradient.
        grads = [g if g is not None else torch.zeros(shape, dtype=dtype)
                 for g, (shape, dtype) in zip(grads, ctx.like)]
        return (None, None, *ctx.context._all_reduce_tensors(ctx.op, grads))


def _merge(values):
    first = values[0]
    if all(v is first for v in values):
        return first
    return PerReplica(values)


def _flatten(value):
    if isinstance(value, torch.Tensor):
        return [value], lambda outs: outs[0]
    if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
        kind = type(value)
        return list(value), lambda outs: kind(outs)
    raise TypeError(f"expected a tensor or a tuple or list of tensors, not {type(value).__name__}")


def _contiguous_copy(tensor):
    if tensor.device.type != "cpu":
        raise ValueError(f"strata.distribute reduces cpu tensors, not one on {tensor.device}")
    return tensor.detach().clone(memory_format=torch.contiguous_format)


def _describe(tensors):
    if len(tensors) == 1:
        dtype = str(tensors[0].dtype).replace("torch.", "")
        return f"a {dtype} tensor of {tuple(tensors[0].shape)}"
    return f"{len(tensors)} tensors"


def _check_same_shapes(what, payloads):
    first = [(t.dtype, tuple(t.shape)) for t in payloads[0]]
    for replica, payload in enumerate(payloads[1:], start=1):
        mine = [(t.dtype, tuple(t.shape)) for t in payload]
        if mine != first:
            raise ValueError(f"{what}: replica {replica} passed {mine} while replica 0 passed "
                             f"{first}; every replica must reduce tensors of the same shapes")


def gather_rows(communicator, per_replica_lists):
    """For each list of this process's replicas' tensors (rows along dim
    0), the tensors of every replica of the job concatenated in replica
    order. The replicas' row counts are gathered first, then every block is
    padded to the longest so Strata's all_gather sees equal blocks, and the
    padding is dropped."""
    results = []
    for per_replica in per_replica_lists:
        first = per_replica[0]
        for replica, t in enumerate(per_replica):
            if t.shape[1:] != first.shape[1:] or t.dtype != first.dtype:
                raise ValueError(f"all_gather: local replica {replica} passed {t.dtype} "
                                 f"{tuple(t.shape)}, local replica 0 {first.dtype} "
                                 f"{tuple(first.shape)}: only the gathered axis may differ")
        tail = first.shape[1:]
        local = len(per_replica)
        job = communicator.replica_count
        rows = [np.zeros(job, dtype=np.int64) for _ in per_replica]
        communicator.all_gather([np.array([t.shape[0]], dtype=np.int64) for t in per_replica], rows)
        rows = [int(n) for n in rows[0]]
        longest = max(rows)
        blocks = []
        for t in per_replica:
            block = t.new_zeros((longest, *tail))
            block[:t.shape[0]] = t
            blocks.append(block)
        outputs = [first.new_empty((longest * job, *tail)) for _ in range(local)]
        communicator.all_gather([b.numpy() for b in blocks], [o.numpy() for o in outputs])
        whole = outputs[0].reshape(job, longest, *tail)
        results.append(torch.cat([whole[r, :rows[r]] for r in range(job)]))
    return results
