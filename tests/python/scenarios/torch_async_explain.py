"""One rank of a "strata" job checking async calls and strata.torch.explain
(test_torch_async_explain.py). Writes rank<r>.json into $STRATA_TEST_OUT.

Async: the last rank enters its all_reduce 1 s late, so rank 0's async
all_reduce cannot complete yet: the call must return at once with
is_completed() False, a Python thread must keep running while wait()
blocks, then the Work, its future and a `then` chained on it complete with
the sum; an async call nobody touches completes on its own. Explain: what serves all_reduce, gather, reduce and scatter of a
tensor, on the default group and on a subgroup of ranks 0 and 1."""

import datetime
import json
import os
import threading
import time

import torch
import torch.distributed as dist

import strata.torch

dist.init_process_group("strata", timeout=datetime.timedelta(seconds=30))
rank, world = dist.get_rank(), dist.get_world_size()
result = {"rank": rank, "world": world}
late = world - 1

# --- async ---
x = torch.full((1000,), float(rank + 1))
dist.barrier()
if rank == late and world > 1:
    time.sleep(1.0)
counted = [0]
stop = threading.Event()


def count():
    while not stop.is_set():
        counted[0] += 1
        time.sleep(0.001)


start = time.monotonic()
work = dist.all_reduce(x, async_op=True)
returned = time.monotonic() - start
completed_at_return = work.is_completed()
future = work.get_future()
doubled = future.then(lambda f: f.value()[0] * 2)
counter = threading.Thread(target=count)
counter.start()
work.wait()
waited = time.monotonic() - start
stop.set()
counter.join()
total = float(sum(range(1, world + 1)))
result["async"] = {
    "returned_s": returned, "completed_at_return": completed_at_return,
    "waited_s": waited, "counted_during_wait": counted[0],
    "completed": work.is_completed(), "value_ok": bool(torch.all(x == total)),
    "future_ok": future.done() and bool(torch.all(future.value()[0] == total)),
    "then_ok": bool(torch.all(doubled.wait() == 2 * total)),
}

# --- unwaited: an async call that nobody waits on, polls or asks the
# Future of still runs (the group's thread looks for it), also after a
# run of blocking calls that its callers ran themselves ---
for _ in range(200):
    dist.all_reduce(torch.ones(8))
y = torch.full((1000,), float(rank + 1))
dist.barrier()
start = time.monotonic()
unwaited = dist.all_reduce(y, async_op=True)
while not bool(torch.all(y == total)) and time.monotonic() - start < 5.0:
    time.sleep(0.001)
result["unwaited"] = {"seen_s": time.monotonic() - start, "value_ok": bool(torch.all(y == total))}
unwaited.wait()

# --- explain ---


def explained(group, op, tensor, **kw):
    e = strata.torch.explain(group, op, tensor, **kw)
    return {"call": e.call, "team": e.team, "winner": e.winner, "reason": e.reason,
            "verdicts": {c.algorithm: c.verdict for c in e.candidates}, "text": str(e)}


t = torch.zeros(1024)
result["explain"] = {"all_reduce_before": explained(None, "all_reduce", t)}
dist.all_reduce(t)
result["explain"]["all_reduce"] = explained(None, "all_reduce", t)
result["explain"]["gather"] = explained(None, "gather", t)
result["explain"]["reduce"] = explained(None, "reduce", t, reduce_op=dist.ReduceOp.MAX)
result["explain"]["scatter"] = explained(None, "scatter", torch.zeros(10, dtype=torch.int64),
                                         root=late)
try:
    strata.torch.explain(None, "send", t)
    result["explain"]["send_error"] = None
except Exception as e:  # noqa: BLE001
    result["explain"]["send_error"] = [type(e).__name__, str(e)]
if world >= 2:
    sub = dist.new_group([0, 1])
    if rank in (0, 1):
        dist.all_reduce(t, group=sub)
        result["explain"]["subgroup"] = explained(sub, "all_reduce", t)

dist.barrier()
with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
