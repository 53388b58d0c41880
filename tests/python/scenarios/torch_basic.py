"""One rank of a job using the "strata" backend for the default group and
a "gloo" group beside it: all_reduce, broadcast and barrier on the same
inputs through both, compared; writes rank<r>.json into $STRATA_TEST_OUT.
Started with torch's env:// variables (tests/python/conftest.py launch(),
strata launch, or torchrun)."""

import datetime
import json
import os

import torch
import torch.distributed as dist

import strata.torch

dist.init_process_group("strata", timeout=datetime.timedelta(seconds=60))
gloo = dist.new_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(1234 + rank)
result = {"rank": rank, "world": world, "backend": dist.get_backend(),
          "group_class": type(dist.group.WORLD).__name__, "mismatches": []}


def compare(name, ours, theirs):
    if not torch.equal(ours, theirs):
        result["mismatches"].append(f"{name}: strata {ours[:4].tolist()} gloo {theirs[:4].tolist()}")


OPS = {"sum": dist.ReduceOp.SUM, "product": dist.ReduceOp.PRODUCT,
       "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX}
for dtype in [torch.float32, torch.float64, torch.float16, torch.int32, torch.int64, torch.uint8]:
    for op_name, op in OPS.items():
        for count in [0, 1, 7, 1000, 65537]:
            # Small whole numbers: every sum and product is exact.
            base = torch.randint(1, 3, (count,)).to(dtype)
            ours, theirs = base.clone(), base.clone()
            dist.all_reduce(ours, op=op)
            dist.all_reduce(theirs, op=op, group=gloo)
            compare(f"all_reduce {dtype} {op_name} {count}", ours, theirs)

# Non-contiguous: every other element, written back in place.
full = torch.arange(20, dtype=torch.float32) * (rank + 1)
strided = full[::2]
dist.all_reduce(strided)
want = torch.arange(20, dtype=torch.float32) * (rank + 1)
want[::2] = torch.arange(0, 20, 2, dtype=torch.float32) * sum(range(1, world + 1))
compare("all_reduce non-contiguous", full, want)

def broadcast_input(dtype, r):
    if dtype == torch.bool:
        return torch.arange(33) % 2 == r % 2
    return torch.full((33,), r + 1).to(dtype)


for dtype in [torch.float32, torch.int8, torch.bool, torch.bfloat16]:
    for root in range(world):
        ours = broadcast_input(dtype, rank)
        if dtype in (torch.bool, torch.bfloat16):  # gloo 1.13 rejects both
            theirs = broadcast_input(dtype, root)
        else:
            theirs = ours.clone()
            dist.broadcast(theirs, src=root, group=gloo)
        dist.broadcast(ours, src=root)
        compare(f"broadcast {dtype} root {root}", ours, theirs)

# Async: returns a Work; wait, is_completed and the future behave.
t = torch.ones(1024) * (rank + 1)
work = dist.all_reduce(t, async_op=True)
work.wait()
result["async_completed"] = work.is_completed()
value = work.get_future().value()
result["future_value_ok"] = bool(torch.equal(value[0], t)) and \
    bool((t == sum(range(1, world + 1))).all())

dist.barrier()
try:
    dist.all_reduce(torch.ones(4, dtype=torch.int8))
    result["int8_error"] = None
except Exception as e:  # noqa: BLE001 (the type is what is checked)
    result["int8_error"] = [type(e).__name__, str(e)]
try:
    dist.all_reduce(torch.ones(4), op=dist.ReduceOp.BAND)
    result["band_error"] = None
except Exception as e:  # noqa: BLE001
    result["band_error"] = [type(e).__name__, str(e)]
dist.barrier()

with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
