"""Cluster resolvers (tf.distribute.cluster_resolver's names): objects that
say who the tasks of a job are and which one this process is, for
MultiWorkerMirroredStrategy(cluster_resolver=...).

    resolver = sd.cluster_resolver.TFConfigClusterResolver()
    strategy = sd.MultiWorkerMirroredStrategy(cluster_resolver=resolver)

TFConfigClusterResolver, SlurmClusterResolver and MPIClusterResolver ask
core's resolvers of the same names (`strata info` lists them; the C++
strategies use them too), so a job reads alike from C++ and Python.
TorchrunClusterResolver reads torch's env:// variables (torchrun);
SimpleClusterResolver takes a spec written by hand. With no resolver,
MultiWorkerMirroredStrategy takes the environment's own (default_resolver).
"""

import os

from strata import _core
from strata.distribute._torchrun_resolver import torchrun_cluster, torchrun_variables_set

# Set by mpirun / a PMIx or PMI launcher, by srun, and by TF_CONFIG users:
# a job core's "auto" resolver finds by itself.
_CORE_MARKERS = ("TF_CONFIG", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "SLURM_STEP_ID")


class ClusterResolver:
    """What every resolver answers (tf.distribute.cluster_resolver.ClusterResolver)."""

    def cluster(self):
        """The job as Strata's ClusterSpec dict: jobs, task_type, task_index,
        rpc_layer, device_type, devices_per_task, resolver, source."""
        raise NotImplementedError(f"{type(self).__name__}.cluster()")

    def cluster_spec(self):
        """{job name: [task addresses]}, as TF's ClusterSpec.as_dict()."""
        return {job: list(tasks) for job, tasks in self.cluster()["jobs"].items()}

    @property
    def task_type(self):
        return self.cluster()["task_type"]

    @property
    def task_id(self):
        return self.cluster()["task_index"]

    @property
    def rpc_layer(self):
        return self.cluster().get("rpc_layer") or None

    @property
    def environment(self):
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """{device type: devices per task} where the resolver says, else {}."""
        del task_type, task_id, config_proto
        c = self.cluster()
        return {c.get("device_type") or "cpu": c["devices_per_task"]} if c.get(
            "devices_per_task") else {}

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task (the chief's by default), with rpc_layer:// if given."""
        jobs = self.cluster_spec()
        if task_type is None:
            task_type, task_id = ("chief", 0) if "chief" in jobs else ("worker", 0)
        address = jobs[task_type][task_id or 0]
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{address}" if layer else address

    def __repr__(self):
        c = self.cluster()
        sizes = ", ".join(f"{job}: {len(tasks)}" for job, tasks in c["jobs"].items())
        return (f"{type(self).__name__}({c['task_type']} {c['task_index']} of {{{sizes}}}, "
                f"from {c.get('source') or c.get('resolver')})")


class _CoreResolver(ClusterResolver):
    """One of core's resolvers, by name, asked once (on first use)."""

    _name = None

    def __init__(self, task_type=None, task_id=None, rpc_layer=None):
        self._overrides = {k: v for k, v in (("task_type", task_type), ("task_index", task_id),
                                             ("rpc_layer", rpc_layer)) if v is not None}
        self._resolved = None

    def cluster(self):
        if self._resolved is None:
            resolved = dict(_core.resolve_cluster(self._name))
            resolved.update(self._overrides)
            self._resolved = resolved
        return self._resolved


class TFConfigClusterResolver(_CoreResolver):
    """The job of $TF_CONFIG ({"cluster": {...}, "task": {"type", "index"}}),
    as `strata launch` and TF's launchers write it; task_type/task_id
    override the task's."""
    _name = "tf_config"

    @property
    def environment(self):
        import json
        return json.loads(os.environ.get("TF_CONFIG", "{}")).get("environment", "")


class SlurmClusterResolver(_CoreResolver):
    """The job of an srun step (SLURM_PROCID, SLURM_STEP_NODELIST, ...)."""
    _name = "slurm"


class MPIClusterResolver(_CoreResolver):
    """The job of mpirun (or another PMIx/PMI launcher), through the mpi
    plugin's resolver (which initialises MPI)."""
    _name = "mpi"


class SimpleClusterResolver(ClusterResolver):
    """A job given by hand: `cluster_spec` is {job: [addresses]} (the
    chief's address, or worker 0's, hosts the job's store)."""

    def __init__(self, cluster_spec, task_type="worker", task_id=0, rpc_layer=None,
                 num_accelerators=None):
        devices = num_accelerators or {}
        if len(devices) > 1:
            raise ValueError(f"one device type per task, not {devices}")
        device_type, count = next(iter(devices.items())) if devices else ("", 0)
        self._cluster = {"jobs": {job: list(tasks) for job, tasks in cluster_spec.items()},
                         "task_type": task_type, "task_index": int(task_id),
                         "rpc_layer": rpc_layer or "", "device_type": device_type,
                         "devices_per_task": int(count), "resolver": "simple",
                         "source": "SimpleClusterResolver"}

    def cluster(self):
        return self._cluster


class TorchrunClusterResolver(ClusterResolver):
    """The job of torchrun (or of torch's env:// variables set by hand):
    RANK of WORLD_SIZE workers; MASTER_ADDR:MASTER_PORT is torch's store,
    through which rank 0 gives the others the address of Strata's job
    store (a free port on MASTER_ADDR). Every wait ends within timeout_s."""

    def __init__(self, environ=None, timeout_s=120.0):
        self._environ = dict(os.environ if environ is None else environ)
        self._timeout_s = timeout_s
        self._resolved = None

    @property
    def local_rank(self):
        return int(self._environ.get("LOCAL_RANK", "0"))

    def cluster(self):
        if self._resolved is None:
            self._resolved = torchrun_cluster(self._environ, self._timeout_s)
        return self._resolved


def default_resolver(environ=None):
    """The environment's own resolver: torchrun's variables when no launcher
    that core's "auto" resolver knows set its own; None otherwise (the
    config's cluster.resolver then decides, as strata.join() does)."""
    environ = os.environ if environ is None else environ
    if any(name in environ for name in _CORE_MARKERS):
        return None
    if torchrun_variables_set(environ):
        return TorchrunClusterResolver(environ=environ)
    return None


__all__ = ["ClusterResolver", "MPIClusterResolver", "SimpleClusterResolver",
           "SlurmClusterResolver", "TFConfigClusterResolver", "TorchrunClusterResolver",
           "default_resolver"]
