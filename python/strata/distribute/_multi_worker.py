"""MultiWorkerMirroredStrategy: the replicas of every process of a job
(workers x local devices), mirrored like MirroredStrategy's, meeting
through the job's store with heartbeats that name a dead worker. The job
comes from `cluster_resolver` (sd.cluster_resolver: TF_CONFIG, Slurm,
mpirun, torchrun, or a spec by hand), else from the environment: torchrun's
variables, or the config's cluster.resolver as strata.join() does
(TF_CONFIG, Slurm, mpirun, `strata launch`)."""

from strata import _core
from strata.distribute import cluster_resolver as resolvers
from strata.distribute._strategy import Strategy


class MultiWorkerMirroredStrategy(Strategy):
    """Replica r of worker w is replica w * len(devices) + r of the job.
    Joins the job when made, so every worker must make one. `devices`
    defaults to the resolver's devices per task, else cpu:0."""

    def __init__(self, cluster_resolver=None, communication_options=None, devices=None):
        if cluster_resolver is None:
            cluster_resolver = resolvers.default_resolver()
        if cluster_resolver is not None and not isinstance(cluster_resolver,
                                                           resolvers.ClusterResolver):
            raise TypeError(f"cluster_resolver must be a strata.distribute.cluster_resolver "
                            f"resolver, not {type(cluster_resolver).__name__}")
        self._cluster_resolver = cluster_resolver
        if devices is None and cluster_resolver is not None:
            cluster = cluster_resolver.cluster()
            if cluster.get("devices_per_task"):
                kind = cluster.get("device_type") or "cpu"
                devices = [f"{kind}:{i}" for i in range(cluster["devices_per_task"])]
        super().__init__(list(devices) if devices is not None else ["cpu:0"],
                         communication_options)
        self._comm = self._connect()
        if self._comm.local_count != self._local_count:
            raise ValueError(f"the job gave this worker {self._comm.local_count} local replicas, "
                             f"not the {self._local_count} of devices={list(self._devices)}")
        self._worker_count = self._comm.world_size
        self._replica_count = self._comm.replica_count
        self._replica_offset = self._comm.rank * self._local_count

    @property
    def cluster_resolver(self):
        """The resolver the job came from (None: the config's cluster.resolver)."""
        return self._cluster_resolver

    @property
    def worker_id(self):
        """This process's rank in the job (0 is the chief)."""
        return self._comm.rank

    @property
    def worker_count(self):
        return self._worker_count

    def __repr__(self):
        return (f"MultiWorkerMirroredStrategy(worker {self._comm.rank} of {self._worker_count}, "
                f"{list(self._devices)})")

    def _connect(self):
        o = self._options
        if self._cluster_resolver is None:
            return _core.join(list(self._devices), o.implementation, o.bytes_per_pack, o.timeout,
                              None)
        return _core.join_cluster(dict(self._cluster_resolver.cluster()), list(self._devices),
                                  o.implementation, o.bytes_per_pack, o.timeout, None)
