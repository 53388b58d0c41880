"""One rank of a job comparing the "strata" backend's all_reduce_coalesced,
reduce, all_gather (list and into_tensor) and reduce_scatter (list and
tensor) with a "gloo" group in the same processes, for float32, float64,
int32 and int64, contiguous and strided inputs and outputs. Inputs are
small whole numbers, so every result is exact and compared with
torch.equal. Where gloo 1.13 lacks the op, the reference is composed:
into_tensor = gloo all_gather + cat, reduce_scatter = gloo all_reduce of
the concatenated inputs, then this rank's slice, AVG = SUM then one
division by the group size (integers truncate). Writes rank<r>.json into
$STRATA_TEST_OUT (the mismatches, and how many cases ran)."""

import datetime
import json
import os

import torch
import torch.distributed as dist

import strata.torch  # noqa: F401 (registers the backend)

dist.init_process_group("strata", timeout=datetime.timedelta(seconds=60))
gloo = dist.new_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(4321 + rank)
result = {"rank": rank, "world": world, "mismatches": [], "cases": 0}

DTYPES = [torch.float32, torch.float64, torch.int32, torch.int64]
OPS = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG, "product": dist.ReduceOp.PRODUCT,
       "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX}
COUNTS = [0, 1, 7, 1000]


def compare(name, ours, theirs):
    result["cases"] += 1
    if ours.dtype != theirs.dtype or not torch.equal(ours, theirs):
        result["mismatches"].append(
            f"{name}: strata {ours.flatten()[:4].tolist()} gloo {theirs.flatten()[:4].tolist()}")


def tensor(count, dtype, strided):
    """count elements of 1 or 2; strided: every other element of a tensor
    twice as long, so the collective sees a non-contiguous view."""
    full = torch.randint(1, 3, (2 * count if strided else count,)).to(dtype)
    return full[::2] if strided else full


def empty(count, dtype, strided):
    full = torch.full((2 * count if strided else count,), -7).to(dtype)
    return full[::2] if strided else full


def mean_of(total):
    """gloo has no AVG: its reference is SUM, then one division by the
    group size (integers truncate, core's rule)."""
    if total.is_floating_point():
        return total / world
    return total.div(world, rounding_mode="trunc")


# gloo 1.13 dies of SIGFPE gathering empty tensors: of those, the
# reference is the empty result itself.
def gloo_all_reduce(t, op):
    t = t.clone()
    if t.numel() > 0:
        avg = op == dist.ReduceOp.AVG
        dist.all_reduce(t, op=dist.ReduceOp.SUM if avg else op, group=gloo)
        if avg:
            t = mean_of(t)
    return t


def gloo_all_gather(x):
    want = [empty(x.numel(), x.dtype, False) for _ in range(world)]
    if x.numel() > 0:
        dist.all_gather(want, x.contiguous(), group=gloo)
    return want


for dtype in DTYPES:
    for strided in (False, True):
        for count in COUNTS:
            tag = f"{dtype} {'strided' if strided else 'contiguous'} {count}"
            # all_gather: a list of outputs, and one flat output.
            x = tensor(count, dtype, strided)
            want = gloo_all_gather(x)
            ours = [empty(count, dtype, strided) for _ in range(world)]
            dist.all_gather(ours, x)
            for r in range(world):
                compare(f"all_gather {tag} [{r}]", ours[r], want[r])
            # Consecutive blocks of one tensor: gathered in place.
            big = empty(world * count, dtype, False)
            dist.all_gather(list(big.chunk(world)) if count else [big[:0]] * world, x)
            compare(f"all_gather into chunks {tag}", big, torch.cat(want))
            flat = empty(world * count, dtype, strided)
            dist.all_gather_into_tensor(flat, x)
            compare(f"all_gather_into_tensor {tag}", flat, torch.cat(want))
            for op_name, op in OPS.items():
                tag_op = f"{tag} {op_name}"
                # all_reduce_coalesced: three tensors, gloo all_reduce each.
                xs = [tensor(count, dtype, strided), tensor(count + 3, dtype, strided),
                      tensor(5, dtype, False)]
                wants = [gloo_all_reduce(t, op) for t in xs]
                dist.all_reduce_coalesced(xs, op=op)
                for i, (t, w) in enumerate(zip(xs, wants)):
                    compare(f"all_reduce_coalesced {tag_op} [{i}]", t, w)
                # reduce: the root's tensor as gloo's; the others unchanged.
                for root in range(world):
                    x = tensor(count, dtype, strided)
                    before = x.clone()
                    want = x.clone()
                    if count > 0:
                        avg = op == dist.ReduceOp.AVG
                        dist.reduce(want, dst=root, op=dist.ReduceOp.SUM if avg else op,
                                    group=gloo)
                        if avg:
                            want = mean_of(want)
                    dist.reduce(x, dst=root, op=op)
                    compare(f"reduce {tag_op} root {root}", x, want if rank == root else before)
                # reduce_scatter: a list of inputs, and one flat input.
                xs = [tensor(count, dtype, strided) for _ in range(world)]
                want = gloo_all_reduce(torch.cat(xs), op)[rank * count:(rank + 1) * count]
                out = empty(count, dtype, strided)
                dist.reduce_scatter(out, xs, op=op)
                compare(f"reduce_scatter {tag_op}", out, want)
                flat_in = tensor(world * count, dtype, strided)
                want = gloo_all_reduce(flat_in, op)[rank * count:(rank + 1) * count]
                out = empty(count, dtype, strided)
                dist.reduce_scatter_tensor(out, flat_in, op=op)
                compare(f"reduce_scatter_tensor {tag_op}", out, want)

# Async: the Work completes, and its future holds what gloo's holds (for
# all_gather, the flat list of outputs).
x = tensor(6, torch.float32, False)
ours, theirs = [empty(6, torch.float32, False) for _ in range(world)], gloo_all_gather(x)
work = dist.all_gather(ours, x, async_op=True)
work.wait()
value = work.get_future().value()
result["async_all_gather"] = [work.is_completed(), len(value) == world and
                              all(torch.equal(v, w) for v, w in zip(value, theirs))]
flat_in = tensor(world * 6, torch.int64, False)
out = empty(6, torch.int64, False)
work = dist.reduce_scatter_tensor(out, flat_in, async_op=True)
work.wait()
value = work.get_future().value()
result["async_reduce_scatter"] = [work.is_completed(), len(value) == 1 and
                                  torch.equal(value[0], out) and torch.equal(
                                      out, gloo_all_reduce(flat_in, dist.ReduceOp.SUM)[
                                          rank * 6:(rank + 1) * 6])]

# Shapes that do not fit raise at the call, naming what is wrong.
try:
    dist.all_gather_into_tensor(torch.zeros(world * 4 + 1), torch.zeros(4))
    result["bad_shape_error"] = None
except Exception as e:  # noqa: BLE001 (the type is what is checked)
    result["bad_shape_error"] = [type(e).__name__, str(e)]
try:
    dist.all_gather([torch.zeros(4)] * (world + 1), torch.zeros(4))
    result["bad_list_error"] = None
except Exception as e:  # noqa: BLE001
    result["bad_list_error"] = [type(e).__name__, str(e)]
try:
    dist.reduce_scatter_tensor(torch.zeros(4, dtype=torch.int8),
                               torch.zeros(4 * world, dtype=torch.int8))
    result["int8_error"] = None
except Exception as e:  # noqa: BLE001
    result["int8_error"] = [type(e).__name__, str(e)]
dist.barrier()

with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
