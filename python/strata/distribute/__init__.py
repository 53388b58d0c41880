"""tf.distribute's Strategy API for torch models, on Strata's collectives.

    import strata.distribute as sd
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    with strategy.scope():
        model = Net()                                  # one copy per replica
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in strategy.experimental_distribute_dataset(global_batches):
        loss = strategy.reduce(sd.ReduceOp.SUM, strategy.run(step, args=(x, y)), axis=None)

Inside `run`, `model` and `optimizer` are the running replica's copies, and
optimizer.step() sums the replicas' gradients first (docs/PYTHON.md).
"""

from strata.distribute import cluster_resolver, experimental, metrics
from strata.distribute._central_storage import CentralStorageStrategy
from strata.distribute._checkpoint import Checkpoint
from strata.distribute._checkpoint_manager import CheckpointManager
from strata.distribute._context import (get_replica_context, get_strategy, has_strategy,
                                        in_cross_replica_context)
from strata.distribute._dataset import DistributedDataset, DistributedIterator
from strata.distribute._from_config import strategy_from_config
from strata.distribute._input import InputContext, InputOptions
from strata.distribute._multi_worker import MultiWorkerMirroredStrategy
from strata.distribute._one_device import MirroredStrategy, OneDeviceStrategy
from strata.distribute._replica_context import ReplicaContext
from strata.distribute._strategy import Strategy
from strata.distribute._values import (CommunicationOptions, PerReplica, ReduceOp,
                                       compute_average_loss)

__all__ = ["CentralStorageStrategy", "Checkpoint", "CheckpointManager",
           "CommunicationOptions", "DistributedDataset",
           "DistributedIterator", "InputContext", "InputOptions", "experimental", "metrics",
           "MirroredStrategy", "MultiWorkerMirroredStrategy", "OneDeviceStrategy",
           "PerReplica", "ReduceOp", "ReplicaContext", "Strategy", "compute_average_loss",
           "cluster_resolver", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context", "strategy_from_config"]
