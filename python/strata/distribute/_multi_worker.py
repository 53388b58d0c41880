"""MultiWorkerMirroredStrategy: the replicas of every process of a job
(workers x local devices), mirrored like MirroredStrategy's, meeting
through strata.join(): the job is resolved from the environment by the
config's cluster.resolver (TF_CONFIG, Slurm, mpirun, `strata launch`),
with heartbeats that name a dead worker."""

from strata import _core
from strata.distribute._strategy import Strategy


class MultiWorkerMirroredStrategy(Strategy):
    """Replica r of worker w is replica w * len(devices) + r of the job.
    Joins the job when made, so every worker must make one."""

    def __init__(self, cluster_resolver=None, communication_options=None, devices=None):
        if cluster_resolver is not None:
            raise NotImplementedError(
                "cluster_resolver: Strata resolves the job from the environment with the "
                "config's cluster.resolver (TF_CONFIG, Slurm, mpirun, strata launch); "
                "pass None")
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
        return _core.join(list(self._devices), o.implementation, o.bytes_per_pack, o.timeout, None)
