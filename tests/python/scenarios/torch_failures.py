"""One rank of a "strata" job that fails on purpose (test_torch_failures.py):

  kill VICTIM   train (an all_reduce per step, async, then wait) until
                VICTIM SIGKILLs itself at step 5; the others record how
                their wait() fails and how long after the death it took.
  absent        the last rank never calls; the others' all_reduce must end
                at the group's timeout.
  shapes        every rank all_reduces a tensor of its own size (4 + rank);
                each records the error, then whether the next call of an
                agreed shape still works.

init_process_group's timeout is 10 s: it bounds every call. Writes
rank<r>.json into $STRATA_TEST_OUT."""

import datetime
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

import strata.torch  # noqa: F401 (registers the backend)

TIMEOUT_S = 10
mode = sys.argv[1]
dist.init_process_group("strata", timeout=datetime.timedelta(seconds=TIMEOUT_S))
rank, world = dist.get_rank(), dist.get_world_size()
result = {"rank": rank, "world": world, "mode": mode}


def failure(e, since):
    return {"type": type(e).__name__, "text": str(e), "seconds": time.monotonic() - since,
            "code_name": getattr(e, "code_name", None)}


if mode == "kill":
    victim = int(sys.argv[2])
    weights = torch.ones(1 << 14)
    steps = 0
    last_ok = time.monotonic()
    try:
        for step in range(1000):
            if step == 5 and rank == victim:
                # Let the others enter the step's all_reduce first.
                time.sleep(0.3)
                os.kill(os.getpid(), signal.SIGKILL)
            grad = torch.full_like(weights, float(rank + 1))
            work = dist.all_reduce(grad, async_op=True)
            work.wait()
            weights -= 0.01 * grad
            steps += 1
            last_ok = time.monotonic()
        result["error"] = None
    except Exception as e:  # noqa: BLE001 (what it is, is the result)
        result["error"] = failure(e, last_ok)
    result["steps"] = steps
    # After the failure, the group's next call fails at once too.
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(4))
        result["next"] = None
    except Exception as e:  # noqa: BLE001
        result["next"] = failure(e, start)
elif mode == "absent":
    # The last rank lives on (its heartbeats go on) but never calls.
    if rank == world - 1:
        time.sleep(TIMEOUT_S + 2)
        result["error"] = None
    else:
        start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(4))
            result["error"] = None
        except Exception as e:  # noqa: BLE001
            result["error"] = failure(e, start)
elif mode == "shapes":
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(4 + rank))
        result["error"] = None
    except Exception as e:  # noqa: BLE001
        result["error"] = failure(e, start)
    start = time.monotonic()
    try:
        t = torch.ones(3)
        dist.all_reduce(t)
        result["next"] = {"value": t.tolist(), "seconds": time.monotonic() - start}
    except Exception as e:  # noqa: BLE001
        result["next"] = failure(e, start)

with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
# Then the interpreter exits as a user's script would, without
# destroy_process_group: its exit must not hang on the dead peer.
