"""A MultiWorkerMirroredStrategy job (TF_CONFIG) whose worker 1 dies
after joining: worker 0's next step must fail, naming worker 1, well within
the timeout; it writes what it raised to rank0.json in $STRATA_TEST_OUT."""

import json
import os
import time

import torch

import strata.distribute as sd

strategy = sd.MultiWorkerMirroredStrategy(
    devices=["cpu:0", "cpu:1"], communication_options=sd.CommunicationOptions(timeout=30))
if strategy.worker_id == 1:
    os._exit(3)  # dies without leaving the job
start = time.monotonic()
result = {"rank": 0}
try:
    strategy.run(lambda: sd.get_replica_context().all_reduce("sum", torch.ones(4)))
    result["error"] = None
except Exception as error:  # noqa: BLE001 (the test inspects whatever it is)
    result["error"] = type(error).__name__
    result["message"] = str(error)
result["seconds"] = time.monotonic() - start
with open(os.path.join(os.environ["STRATA_TEST_OUT"], "rank0.json"), "w") as f:
    json.dump(result, f)
