"""One worker of a MultiWorkerMirroredStrategy job that torchrun, mpirun or
torch's env:// variables started: makes the strategy with the resolver
$STRATA_TEST_RESOLVER names ("default": none given, the environment's own),
runs the issue's RFC loop, and writes its weights, losses and what the
resolver said to rank<r>.json in $STRATA_TEST_OUT."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import strata.distribute as sd  # noqa: E402
from distribute_loops import make_global_batches, rfc_loop  # noqa: E402

RESOLVERS = {
    "default": lambda: None,
    "torchrun": sd.cluster_resolver.TorchrunClusterResolver,
    "mpi": sd.cluster_resolver.MPIClusterResolver,
    "tf_config": sd.cluster_resolver.TFConfigClusterResolver,
}
resolver = RESOLVERS[os.environ.get("STRATA_TEST_RESOLVER", "default")]()
strategy = sd.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
replicas, losses = rfc_loop(strategy, make_global_batches())
chosen = strategy.cluster_resolver
result = {
    "rank": strategy.worker_id,
    "workers": strategy.worker_count,
    "replicas": strategy.num_replicas_in_sync,
    "resolver": type(chosen).__name__ if chosen is not None else None,
    "task_id": chosen.task_id if chosen is not None else None,
    "weights": [[p.detach().flatten().tolist() for p in m.parameters()] for m in replicas],
    "losses": losses,
}
if "OMPI_COMM_WORLD_SIZE" in os.environ:  # what MPIClusterResolver says of the same job
    mpi = sd.cluster_resolver.MPIClusterResolver()
    result["mpi_resolver"] = {"task_id": mpi.task_id, "workers": len(mpi.cluster_spec()["worker"]),
                              "resolver": mpi.cluster()["resolver"]}
with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{result['rank']}.json"), "w") as f:
    json.dump(result, f)
