"""One rank of a job comparing every op of the "strata" backend with a
"gloo" group in the same processes, on the same inputs: all_reduce,
all_reduce_coalesced, reduce, broadcast, all_gather (list, into chunks,
into_tensor), gather, scatter, reduce_scatter (list and tensor),
all_to_all (list) and all_to_all_single (equal and unequal splits), for
float32, float64, float16, bfloat16, int32, int64 and uint8, contiguous
and strided, with counts 0, 1, 7 and 1000. Inputs are small whole numbers,
so every result but AVG's division is exact, and all compare bit for bit
(torch.equal). Where gloo lacks the op or dtype, the reference is composed
(gloo_reference.py). On 3 ranks, ranks 0 and 2 also run the cases on a
subgroup that leaves out rank 1, then ranks 1 and 2 on a second subgroup,
then 0 and 2 on the first again. Writes rank<r>.json into $STRATA_TEST_OUT."""

import datetime
import json
import os
import sys

import torch
import torch.distributed as dist

import strata.torch  # noqa: F401 (registers the backend)
from gloo_reference import Reference

dist.init_process_group("strata", timeout=datetime.timedelta(seconds=60))
gloo = dist.new_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(4321 + rank)
result = {"rank": rank, "world": world, "mismatches": [], "cases": {}}

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64,
          torch.uint8]
OPS = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG, "product": dist.ReduceOp.PRODUCT,
       "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX}
# (count, strided): every edge contiguous, and a strided view that stages
# through a copy.
SHAPES = [(0, False), (1, False), (7, True), (1000, False)]
# --few-shapes: the mpi job, whose ranks spin in MPI's progress loop and
# so take twice grpc_ring's time on two cores.
if "--few-shapes" in sys.argv:
    SHAPES = [(0, False), (7, True), (1000, False)]


def compare(name, ours, theirs):
    op = name.split()[0]
    result["cases"][op] = result["cases"].get(op, 0) + 1
    if ours.dtype != theirs.dtype or not torch.equal(ours, theirs):
        result["mismatches"].append(
            f"{name}: strata {ours.flatten()[:4].tolist()} gloo {theirs.flatten()[:4].tolist()}")


def tensor(shape, dtype, strided, high=3):
    """Whole numbers in [1, high); strided: every other column of a tensor
    twice as wide, so the collective sees a non-contiguous view."""
    if isinstance(shape, int):
        shape = (shape,)
    full_shape = shape[:-1] + (2 * shape[-1],) if strided else shape
    full = torch.randint(1, high, full_shape).to(dtype)
    return full[..., ::2] if strided else full


def filled(shape, dtype, strided):
    return tensor(shape, dtype, strided).fill_(7)


def roots(size):
    return sorted({0, size - 1})


def run_cases(group, ref, tag_group, dtypes=DTYPES, shapes=SHAPES):
    size, me = dist.get_world_size(group), dist.get_rank(group)

    def g(r):  # a group rank as the global rank dist's calls take
        return ref.global_rank(r)

    for dtype in dtypes:
        for count, strided in shapes:
            tag = f"{dtype} {'strided' if strided else 'contiguous'} {count}{tag_group}"
            # Bytes-moving ops: values up to 99, so a block out of place shows.
            x = tensor(count, dtype, strided, high=100)
            want = ref.all_gather(x)
            ours = [filled(count, dtype, strided) for _ in range(size)]
            dist.all_gather(ours, x, group=group)
            for r in range(size):
                compare(f"all_gather {tag} [{r}]", ours[r], want[r])
            big = filled(size * count, dtype, False)
            dist.all_gather(list(big.chunk(size)) if count else [big[:0]] * size, x, group=group)
            compare(f"all_gather_chunks {tag}", big, torch.cat(want))
            flat = filled(size * count, dtype, strided)
            dist.all_gather_into_tensor(flat, x, group=group)
            compare(f"all_gather_into_tensor {tag}", flat, torch.cat(want))
            for root in roots(size):
                y = x.clone()
                dist.broadcast(y, src=g(root), group=group)
                compare(f"broadcast {tag} root {root}", y, ref.broadcast(x, root))
                outs = [filled(count, dtype, strided) for _ in range(size)] if me == root else None
                dist.gather(x, outs, dst=g(root), group=group)
                for r, w in enumerate(ref.gather(x, root)):
                    compare(f"gather {tag} root {root} [{r}]", outs[r], w)
                pieces = [tensor(count, dtype, strided, high=100) for _ in range(size)]
                out = filled(count, dtype, strided)
                dist.scatter(out, pieces if me == root else None, src=g(root), group=group)
                compare(f"scatter {tag} root {root}", out, ref.scatter(pieces, out, root))
            # all_to_all_single: rows of 3; equal splits, then rank s sends
            # (s + r + count) % 3 + 1 rows to rank r (none empty when count > 0).
            rows = size * count
            x2 = tensor((rows, 3), dtype, strided, high=100)
            out = filled((rows, 3), dtype, strided)
            dist.all_to_all_single(out, x2, group=group)
            compare(f"all_to_all_single {tag}", out,
                    ref.all_to_all_single(x2, out, None, None))
            if count:
                send = [(me + r + count) % 3 + 1 for r in range(size)]
                recv = [(s + me + count) % 3 + 1 for s in range(size)]
                x2 = tensor((sum(send), 3), dtype, strided, high=100)
                out = filled((sum(recv), 3), dtype, strided)
                dist.all_to_all_single(out, x2, recv, send, group=group)
                compare(f"all_to_all_single_splits {tag}", out,
                        ref.all_to_all_single(x2, out, recv, send))
                ins = [tensor(send[r] * count, dtype, strided, high=100) for r in range(size)]
                outs = [filled(recv[s] * count, dtype, strided) for s in range(size)]
                dist.all_to_all(outs, ins, group=group)
                for s, w in enumerate(ref.all_to_all(ins, outs)):
                    compare(f"all_to_all {tag} [{s}]", outs[s], w)
            for op_name, op in OPS.items():
                tag_op = f"{tag} {op_name}"
                x = tensor(count, dtype, strided)
                want = ref.all_reduce(x, op)
                dist.all_reduce(x, op=op, group=group)
                compare(f"all_reduce {tag_op}", x, want)
                xs = [tensor(count, dtype, strided), tensor(count + 3, dtype, strided),
                      tensor(5, dtype, False)]
                wants = [ref.all_reduce(t, op) for t in xs]
                dist.all_reduce_coalesced(xs, op=op, group=group)
                for i, (t, w) in enumerate(zip(xs, wants)):
                    compare(f"all_reduce_coalesced {tag_op} [{i}]", t, w)
                for root in roots(size):
                    x = tensor(count, dtype, strided)
                    want = ref.reduce(x, op, root)
                    dist.reduce(x, dst=g(root), op=op, group=group)
                    compare(f"reduce {tag_op} root {root}", x, want)
                xs = [tensor(count, dtype, strided) for _ in range(size)]
                out = filled(count, dtype, strided)
                dist.reduce_scatter(out, xs, op=op, group=group)
                compare(f"reduce_scatter {tag_op}", out, ref.reduce_scatter(torch.cat(xs), op))
                flat_in = tensor(size * count, dtype, strided)
                out = filled(count, dtype, strided)
                dist.reduce_scatter_tensor(out, flat_in, op=op, group=group)
                compare(f"reduce_scatter_tensor {tag_op}", out, ref.reduce_scatter(flat_in, op))


run_cases(None, Reference(gloo), "")

# Subgroups: one that leaves out rank 1, a second, then the first again
# (each its own team; calls alternate between them).
if world == 3:
    first_ranks, second_ranks = [0, 2], list(range(1, world))
    first, first_gloo = dist.new_group(first_ranks), dist.new_group(first_ranks, backend="gloo")
    second, second_gloo = dist.new_group(second_ranks), dist.new_group(second_ranks,
                                                                       backend="gloo")
    few = [torch.float32, torch.bfloat16, torch.int64]
    for name, ranks, group, gloo_group in [("first", first_ranks, first, first_gloo),
                                           ("second", second_ranks, second, second_gloo),
                                           ("first again", first_ranks, first, first_gloo)]:
        if rank in ranks:
            run_cases(group, Reference(gloo_group), f" in the {name} subgroup", dtypes=few,
                      shapes=[(1, False), (7, True)])
            result.setdefault("subgroups", []).append([name, dist.get_world_size(group)])

# Async: the Work completes, and its future holds what gloo's gives.
x = tensor(6, torch.float32, False)
ours, theirs = [filled(6, torch.float32, False) for _ in range(world)], Reference(gloo).all_gather(x)
work = dist.all_gather(ours, x, async_op=True)
work.wait()
value = work.get_future().value()
result["async_all_gather"] = [work.is_completed(), len(value) == world and
                              all(torch.equal(v, w) for v, w in zip(value, theirs))]


def error_of(call):
    try:
        call()
        return None
    except Exception as e:  # noqa: BLE001 (the type is what is checked)
        return [type(e).__name__, str(e)]


# What the backend refuses, it refuses at the call, naming what is wrong.
result["errors"] = {
    "bad_shape": error_of(lambda: dist.all_gather_into_tensor(torch.zeros(world * 4 + 1),
                                                              torch.zeros(4))),
    "bad_list": error_of(lambda: dist.all_gather([torch.zeros(4)] * (world + 1), torch.zeros(4))),
    "int8_reduce_scatter": error_of(lambda: dist.reduce_scatter_tensor(
        torch.zeros(4, dtype=torch.int8), torch.zeros(4 * world, dtype=torch.int8))),
    "int8_all_reduce": error_of(lambda: dist.all_reduce(torch.zeros(4, dtype=torch.int8))),
    "band": error_of(lambda: dist.all_reduce(torch.zeros(4, dtype=torch.int32),
                                             op=dist.ReduceOp.BAND)),
    "send": error_of(lambda: dist.send(torch.zeros(4), dst=(rank + 1) % world)),
    "recv": error_of(lambda: dist.recv(torch.zeros(4), src=(rank + 1) % world)),
    "uneven_all_to_all": error_of(lambda: dist.all_to_all_single(
        torch.zeros(world * 2 + 1), torch.zeros(world * 2 + 1))),
}
if world > 1:
    # Each rank's splits add up, but rank 0 expects 2 rows from rank 1 and
    # none from itself: every rank fails alike, and the group goes on.
    expect = [0, 2] + [1] * (world - 2) if rank == 0 else [1] * world
    result["errors"]["crossed_splits"] = error_of(lambda: dist.all_to_all_single(
        torch.zeros(world, 3), torch.zeros(world, 3), expect, [1] * world))
# Bytes-moving ops take any dtype: int8 and bool broadcast as bytes.
flags = torch.tensor([rank % 2 == 0, True, rank == 0])
dist.broadcast(flags, src=0)
small = torch.tensor([rank, -rank], dtype=torch.int8)
dist.broadcast(small, src=world - 1)
result["other_dtypes"] = [flags.tolist(), small.tolist()]
dist.barrier()

with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
