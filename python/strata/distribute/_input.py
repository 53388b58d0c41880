"""What an input pipeline is told about the job (InputContext), and how a
dataset of global batches is divided between workers (AutoShardPolicy,
InputOptions): the names of tf.distribute and tf.data, core's meanings."""

import dataclasses
import enum
from typing import Optional


class AutoShardPolicy(enum.IntEnum):
    """tf.data.experimental.AutoShardPolicy, as core implements it
    (core/strategy/distributed_dataset.h). AUTO is DATA: a Python iterable
    has no files to shard; FILE is refused for that reason."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@dataclasses.dataclass(frozen=True)
class InputOptions:
    """Options of experimental_distribute_dataset and
    distribute_datasets_from_function (tf.distribute.InputOptions).
    auto_shard_policy: how workers divide a dataset of global batches
    (tf.data sets it on the dataset's options; an iterable has none, so it
    is here). The experimental_* fields of tf.distribute.InputOptions are
    accepted; on cpu replicas there is nothing to prefetch to a device."""
    auto_shard_policy: AutoShardPolicy = AutoShardPolicy.AUTO
    experimental_fetch_to_device: Optional[bool] = None
    experimental_per_replica_buffer_size: int = 1


def shard_policy(options):
    """The policy `options` asks for: InputOptions, an AutoShardPolicy, or
    None (AUTO). AUTO resolves to DATA; FILE and HINT are refused."""
    if options is None:
        policy = AutoShardPolicy.AUTO
    elif isinstance(options, InputOptions):
        policy = options.auto_shard_policy
    else:
        policy = options
    try:
        policy = AutoShardPolicy(policy)
    except ValueError:
        raise TypeError(f"options must be sd.InputOptions or an "
                        f"sd.experimental.AutoShardPolicy, not {options!r}") from None
    if policy in (AutoShardPolicy.FILE, AutoShardPolicy.HINT):
        raise ValueError(f"auto-shard policy {policy.name} needs a dataset read from files; "
                         "an iterable of batches has none: use AUTO, DATA or OFF")
    return AutoShardPolicy.DATA if policy == AutoShardPolicy.AUTO else policy


class InputContext:
    """What distribute_datasets_from_function's function is told: the
    worker's pipeline among the job's (input_pipeline_id of
    num_input_pipelines: shard by it) and the replicas in sync."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        if not 0 <= input_pipeline_id < num_input_pipelines:
            raise ValueError(f"input_pipeline_id {input_pipeline_id} is not one of the "
                             f"{num_input_pipelines} pipelines")
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_input_pipelines(self):
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self):
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """global_batch_size / num_replicas_in_sync; ValueError unless it divides."""
        if global_batch_size % self._num_replicas_in_sync:
            raise ValueError(f"the global batch size ({global_batch_size}) is not divisible by "
                             f"num_replicas_in_sync ({self._num_replicas_in_sync})")
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self):
        return (f"InputContext(num_input_pipelines={self._num_input_pipelines}, "
                f"input_pipeline_id={self._input_pipeline_id}, "
                f"num_replicas_in_sync={self._num_replicas_in_sync})")
