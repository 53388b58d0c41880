"""Strategy: the API every strategy shares (tf.distribute.Strategy):
scope, run, reduce, gather, experimental_local_results and
experimental_distribute_dataset, over the replicas of this process."""

import concurrent.futures
import contextlib
import threading

import numpy as np
import torch

from strata import _core
from strata.distribute import _context, _replication
from strata.distribute._dataset import DatasetsFromFunction, DistributedDataset
from strata.distribute._devices import check_replica_devices
from strata.distribute._input import InputContext, shard_policy
from strata.distribute._replica_context import Meeting, ReplicaContext, gather_rows
from strata.distribute._values import (CommunicationOptions, PerReplica, reduce_op_name, regroup,
                                       select_replica, step_global_batch_size)


class Strategy:
    """Replicas on `devices` of this process, one per device (and, in a
    multi-worker strategy, as many in each other process of the job)."""

    def __init__(self, devices, communication_options=None):
        if not devices:
            raise ValueError("a strategy needs at least one device")
        check_replica_devices(devices, "replicas")
        self._devices = tuple(str(d) for d in devices)
        self._local_count = len(self._devices)
        # This process's replicas are replicas [offset, offset + local) of the job.
        self._replica_count = self._local_count
        self._replica_offset = 0
        self._worker_count = 1
        self._options = communication_options or CommunicationOptions()
        self._config_timeout = None
        self._replicator = _replication.Replicator(self)
        self._rendezvous = _core.ReplicaRendezvous(len(self._devices))
        self._meeting = Meeting(len(self._devices))
        self._comm = None
        self._comm_lock = threading.Lock()
        self._executor = None
        self._run_lock = threading.Lock()

    # --- what the program asks -------------------------------------------

    @property
    def num_replicas_in_sync(self):
        """Replicas of the whole job (this process's times the workers)."""
        return self._replica_count

    @property
    def devices(self):
        """This process's devices, one replica each."""
        return self._devices

    @property
    def communication_options(self):
        return self._options

    @property
    def meeting_timeout(self):
        """How long a replica waits for the others at a cross-replica step:
        CommunicationOptions.timeout, else the config's collectives.timeout
        (what the strategy's collectives wait too)."""
        if self._options.timeout:
            return self._options.timeout
        if self._config_timeout is None:
            self._config_timeout = _core.collectives_config()["timeout"]
        return self._config_timeout

    def __repr__(self):
        return f"{type(self).__name__}({list(self._devices)})"

    @contextlib.contextmanager
    def scope(self):
        """Inside, this is the current strategy, and the torch modules and
        optimizers built are made one per replica when the scope closes."""
        _context.enter_scope(self)
        _replication.open_scope()
        try:
            yield self
        finally:
            _replication.close_scope()
            _context.exit_scope(self)
            self._replicator.replicate_pending()

    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs fn(*args, **kwargs) once per replica, each replica on its
        own thread with its part of PerReplica arguments; returns the
        replicas' results (PerReplica where they differ, regrouped through
        tuples, lists and dicts). An exception in a replica is raised here,
        with the replica named, after the other replicas are released."""
        del options  # tf.distribute.RunOptions: nothing here depends on them
        if _context.current_replica() is not None:
            raise RuntimeError(f"{self!r}.run called inside a replica of run; call it from "
                               "cross-replica context (tf.distribute refuses it too)")
        kwargs = kwargs or {}
        self._replicator.replicate_pending()
        count = self._local_count
        batch_size = step_global_batch_size((args, kwargs))
        contexts = [ReplicaContext(self, r, self._replica_offset + r, batch_size)
                    for r in range(count)]
        if count == 1:
            return self._run_replica(contexts[0], fn, select_replica(args, 0, 1),
                                     select_replica(kwargs, 0, 1))
        with self._run_lock:
            self._rendezvous.reset()
            if self._executor is None:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    count, thread_name_prefix=f"strata-{type(self).__name__}-replica")
            failures = []
            failures_lock = threading.Lock()
            grad_enabled = torch.is_grad_enabled()  # thread-local in torch: hand it on

            def replica_main(context):
                r = context.local_replica_id
                try:
                    with torch.set_grad_enabled(grad_enabled):
                        return self._run_replica(context, fn, select_replica(args, r, count),
                                                 select_replica(kwargs, r, count))
                except BaseException as error:
                    with failures_lock:
                        failures.append((context.replica_id_in_sync_group, error))
                    self._rendezvous.abort(
                        f"replica {context.replica_id_in_sync_group} failed "
                        f"({type(error).__name__}: {error}); the other replicas were released")
                    return None

            futures = [self._executor.submit(replica_main, c) for c in contexts]
            results = [f.result() for f in futures]
        if failures:
            replica, error = _first_cause(failures)
            raise _name_replica(error, replica, self)
        return regroup(results)

    def reduce(self, reduce_op, value, axis=None):
        """`value` (PerReplica, or one value for every replica) reduced over
        the replicas with Strata's all_reduce; with axis=0, also along each
        replica's first dimension (MEAN then divides by the rows of all
        replicas together, so a partial batch averages right)."""
        op = reduce_op_name(reduce_op)
        values = tuple(torch.as_tensor(v) for v in self.experimental_local_results(value))
        if len(values) == 1 and self._local_count > 1:
            values = values * self._local_count
        rows = None
        if axis is not None:
            rows = self._job_sum([float(v.shape[axis]) for v in values])
            values = tuple((v.amax(axis) if op == "max" else v.amin(axis) if op == "min"
                            else v.sum(axis)) if v.shape[axis] else _identity(v, axis, op)
                           for v in values)
        if self.num_replicas_in_sync == 1:
            result = values[0].detach().clone()
        else:
            outputs = [v.detach().clone(memory_format=torch.contiguous_format) for v in values]
            all_reduce_op = "sum" if op == "mean" else op
            self._communicator().all_reduce([o.numpy() for o in outputs], op=all_reduce_op)
            result = outputs[0]
        if op == "mean":
            result = result / (rows if axis is not None else self.num_replicas_in_sync)
        return result

    def gather(self, value, axis):
        """The values of all replicas of the job concatenated along `axis`,
        in replica order (their sizes along `axis` may differ)."""
        values = [torch.as_tensor(v).detach() for v in self.experimental_local_results(value)]
        if self._worker_count == 1:
            return torch.cat(values, dim=axis)
        moved = [torch.movedim(v, axis, 0).contiguous() for v in values]
        return torch.movedim(gather_rows(self._communicator(), [moved])[0], 0, axis)

    def experimental_local_results(self, value):
        """The values of this process's replicas, as a tuple: a PerReplica's
        values, the per-replica copies of a module or optimizer made in the
        scope, else (value,)."""
        if isinstance(value, PerReplica):
            return value.values
        return _replication.local_copies(value)

    def experimental_distribute_dataset(self, dataset, options=None):
        """Each global batch of `dataset` (a tensor, or a tuple, list or dict
        of tensors batched along dim 0) split across the replicas; across
        workers as `options` (InputOptions or an AutoShardPolicy) says."""
        distributed = DistributedDataset(dataset, self._replica_count, self._replica_offset,
                                         self._local_count, self._worker_count, options)
        distributed._strategy = self  # whose chief writes a Checkpoint of it
        return distributed

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """Calls dataset_fn(InputContext) once in this worker; the iterable
        of per-replica batches it returns feeds this worker's replicas, one
        batch each per step. The function shards by the context's
        input_pipeline_id (this worker) of num_input_pipelines."""
        if options is not None:
            shard_policy(options)  # checked; the function does its own sharding
        context = InputContext(self._worker_count, self._replica_offset // self._local_count,
                               self._replica_count)
        distributed = DatasetsFromFunction(
            dataset_fn, context, self._local_count, self._worker_count,
            self._job_sum_arrays if self._worker_count > 1 else None)
        distributed._strategy = self
        return distributed

    def default_replica_context(self):
        return ReplicaContext(self, 0, self._replica_offset)

    # --- what the replicas ask -------------------------------------------

    def _run_replica(self, context, fn, args, kwargs):
        previous = _context.set_replica(context)
        try:
            return fn(*args, **kwargs)
        finally:
            _context.set_replica(previous)

    def _communicator(self):
        """The strata Communicator of the replicas' devices, made on first use."""
        with self._comm_lock:
            if self._comm is None:
                self._comm = self._connect()
            return self._comm

    def _connect(self):
        o = self._options
        return _core.local(list(self._devices), o.implementation, o.bytes_per_pack, o.timeout, None)

    def _broadcast_from_chief(self, module_copies):
        """Makes every replica's copy of a module start as the chief's
        (replica 0 of the job): the local copies are deep copies already,
        other workers' are overwritten with Strata's broadcast."""
        if self._worker_count == 1:
            return
        communicator = self._communicator()
        per_copy = [list(m.parameters()) + list(m.buffers()) for m in module_copies]
        for tensors in zip(*per_copy):
            if not all(t.is_contiguous() for t in tensors):
                raise ValueError("strata.distribute broadcasts contiguous parameters and buffers "
                                 f"only; one of shape {tuple(tensors[0].shape)} is not")
            communicator.broadcast([t.detach().numpy() for t in tensors], root=0)

    def _job_sum(self, local_numbers):
        """The sum of one number per local replica over the whole job."""
        if self._worker_count == 1:
            return sum(local_numbers)
        arrays = [np.array([n], dtype=np.float64) for n in local_numbers]
        self._communicator().all_reduce(arrays, op="sum")
        return float(arrays[0][0])

    def _load_optimizer_state(self, optimizer, state):
        """A restored optimizer state goes to every replica's copy."""
        optimizer.load_state_dict(state)

    def _job_sum_arrays(self, local_arrays):
        """float64 arrays, one per local replica, summed over the whole job."""
        arrays = [np.ascontiguousarray(a, dtype=np.float64) for a in local_arrays]
        if self._worker_count == 1:
            return sum(arrays[1:], arrays[0].copy())
        self._communicator().all_reduce(arrays, op="sum")
        return arrays[0]

    @property
    def _is_chief(self):
        return self._replica_offset == 0

    def _replica_step(self, context, params, optimizer_step):
        """optimizer.step() in replica context: every replica sums the
        replicas' gradients of `params` in place (one batch_all_reduce) and
        takes the step on its own copy."""
        if self.num_replicas_in_sync > 1:
            communicator = self._communicator()

            def step(payloads):
                communicator.batch_all_reduce(gradient_arrays(payloads), op="sum")

            context.meet(f"batch_all_reduce(sum) of {len(params)} gradients", params, step)
        return optimizer_step()


def gradient_arrays(payloads):
    """The replicas' gradients of their lists of parameters, as numpy views
    in replica order. A gradient that some replicas lack becomes zeros
    there; one that every replica lacks is left out (and stays None)."""
    if any(len(p) != len(payloads[0]) for p in payloads):
        raise ValueError("the replicas' optimizers hold different numbers of parameters: "
                         + ", ".join(str(len(p)) for p in payloads))
    lists = [[] for _ in payloads]
    for i in range(len(payloads[0])):
        params_i = [p[i] for p in payloads]
        if all(p.grad is None for p in params_i):
            continue
        for r, p in enumerate(params_i):
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            elif p.grad.is_sparse or not p.grad.is_contiguous():
                p.grad = p.grad.to_dense().contiguous()
            lists[r].append(p.grad.detach().numpy())
    return lists


def _identity(v, axis, op):
    shape = list(v.shape)
    del shape[axis]
    fill = {"sum": 0, "mean": 0, "max": float("-inf"), "min": float("inf")}[op]
    return torch.full(shape, fill, dtype=v.dtype)


def _first_cause(failures):
    """The failure that started it: the first not released by another's."""
    for replica, error in failures:
        if not getattr(error, "strata_released", False):
            return replica, error
    return failures[0]


def _name_replica(error, replica, strategy):
    """`error`, its message prefixed with the replica that raised it."""
    prefix = f"replica {replica} of {strategy!r}: "
    if error.args and isinstance(error.args[0], str):
        error.args = (prefix + error.args[0],) + error.args[1:]
    elif not error.args:
        error.args = (prefix + type(error).__name__,)
    else:
        error.add_note(prefix.rstrip(": "))
    if hasattr(error, "message") and isinstance(error.message, str):
        error.message = prefix + error.message
    error.replica_id = replica
    return error
