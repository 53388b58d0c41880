"""One worker of a MultiWorkerMirroredStrategy job started by `strata
launch`: runs the issue's RFC loop on $STRATA_TEST_LOCAL_DEVICES cpu
devices, gathers and reduces a partial batch across the job, and writes its
replicas' weights, the reduced losses and the checks to rank<r>.json in
$STRATA_TEST_OUT."""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import strata.distribute as sd  # noqa: E402
from distribute_loops import make_global_batches, rfc_loop  # noqa: E402
from strata.torch import digits_cnn  # noqa: E402

local = int(os.environ.get("STRATA_TEST_LOCAL_DEVICES", "1"))
strategy = sd.MultiWorkerMirroredStrategy(devices=[f"cpu:{i}" for i in range(local)])
replicas, losses = rfc_loop(strategy, make_global_batches())

with strategy.scope():  # each worker builds other weights: the chief's must win
    mine = digits_cnn.make_model(seed=strategy.worker_id)
chief = digits_cnn.make_model(seed=0)
chief_weights_everywhere = all(
    all(torch.equal(p, q) for p, q in zip(copy.parameters(), chief.parameters()))
    for copy in strategy.experimental_local_results(mine))

x = torch.arange(43, dtype=torch.float32)  # 43 rows: uneven slices on every replica count
(parts,) = next(iter(strategy.experimental_distribute_dataset([(x,)])))
gathered = strategy.run(lambda v: sd.get_replica_context().all_gather(v, axis=0), args=(parts,))
result = {
    "rank": strategy.worker_id,
    "replicas": strategy.num_replicas_in_sync,
    "first_replica": strategy.experimental_local_results(
        strategy.run(lambda: sd.get_replica_context().replica_id_in_sync_group))[0],
    "weights": [[p.detach().flatten().tolist() for p in m.parameters()] for m in replicas],
    "losses": losses,
    "gather_ok": torch.equal(strategy.gather(parts, axis=0), x),
    "all_gather_ok": all(torch.equal(g, x) for g in strategy.experimental_local_results(gathered)),
    "chief_weights_everywhere": chief_weights_everywhere,
    "mean": strategy.reduce(sd.ReduceOp.MEAN, parts, axis=0).item(),
}
with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{result['rank']}.json"), "w") as f:
    json.dump(result, f)
