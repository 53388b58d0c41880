"""One worker of a job started by `strata launch`: joins the job through
strata.join() and checks collectives on numpy arrays against the answer
every rank can compute; writes rank<r>.json into $STRATA_TEST_OUT."""

import json
import os

import numpy as np

import strata

comm = strata.join()
rank, world = comm.rank, comm.world_size
result = {"rank": rank, "world": world, "devices": comm.devices}

a = np.arange(1000, dtype=np.float32) * (rank + 1)
comm.all_reduce([a])
result["sum_ok"] = bool(np.array_equal(a, np.arange(1000, dtype=np.float32) *
                                       sum(r + 1 for r in range(world))))

i = np.full(7, rank + 1, dtype=np.int64)
comm.all_reduce([i], op="max")
result["max_ok"] = bool((i == world).all())

b = np.full(5, rank, dtype=np.uint8)
comm.broadcast([b], root=world - 1)
result["broadcast_ok"] = bool((b == world - 1).all())

gathered = np.zeros(3 * world, dtype=np.float64)
comm.all_gather([np.full(3, rank, dtype=np.float64)], out=[gathered])
result["gather_ok"] = bool(np.array_equal(gathered, np.repeat(np.arange(world), 3)))
comm.barrier(timeout=30)
result["explain_winner"] = comm.explain("all_reduce", "f32", 1000)["winner"]
comm.close()
with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
