"""One rank of a "strata" job initialised by the method in argv[1]: env
(torch's env:// variables, from any launcher: conftest's, strata launch,
torchrun, or strata.torch's own under mpirun), tcp or file:<path> (rank and
world size from RANK/WORLD_SIZE, as a user passes them by hand). Runs an
all_reduce and a broadcast from every root and records whether each gave
the expected values, plus what strata.torch set from the launcher, into
rank<r>.json in $STRATA_TEST_OUT (or the directory in argv[2])."""

import datetime
import json
import os
import sys

import torch
import torch.distributed as dist

import strata.torch

method = sys.argv[1]
out_dir = sys.argv[2] if len(sys.argv) > 2 else os.environ["STRATA_TEST_OUT"]
timeout = datetime.timedelta(seconds=60)
if method == "env":
    dist.init_process_group("strata", timeout=timeout)
elif method == "tcp":
    dist.init_process_group(
        "strata", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
        rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]), timeout=timeout)
elif method.startswith("file:"):
    dist.init_process_group("strata", init_method="file://" + method[len("file:"):],
                            rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]),
                            timeout=timeout)
else:
    sys.exit(f"torch_init.py: unknown init method {method!r}")

rank, world = dist.get_rank(), dist.get_world_size()
values = torch.arange(1000, dtype=torch.float32) * (rank + 1)
dist.all_reduce(values)
want = torch.arange(1000, dtype=torch.float32) * (world * (world + 1) // 2)
broadcasts_ok = []
for root in range(world):
    t = torch.full((257,), float(rank * 10 + 1), dtype=torch.float64)
    dist.broadcast(t, src=root)
    broadcasts_ok.append(bool((t == root * 10 + 1).all()))
result = {"rank": rank, "world": world, "backend": dist.get_backend(), "method": method,
          "all_reduce_ok": bool(torch.equal(values, want)), "broadcasts_ok": broadcasts_ok,
          "launcher_environment": strata.torch.launcher_environment(),
          "torchelastic": "TORCHELASTIC_RUN_ID" in os.environ}
dist.barrier()
with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
