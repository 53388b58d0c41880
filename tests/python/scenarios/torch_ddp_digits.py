"""One rank of DDP training of strata.torch.digits_cnn on the digits, the
same seeded steps once over the "strata" default group and once over a
"gloo" group beside it, in several setups: plain DDP, ZeroRedundancyOptimizer,
and the comm hooks allreduce_hook, fp16_compress_hook and PowerSGD. Rank 0
also trains one process on the whole global batch (no DDP). Writes, per
setup, the largest parameter difference strata-gloo and strata-one-process
(where that must hold), plus the loss, into rank<r>.json in $STRATA_TEST_OUT."""

import datetime
import json
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel

import strata.torch
from strata.torch import digits_cnn

STEPS, BATCH, LR, MOMENTUM = 12, 64, 0.1, 0.9

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
dist.init_process_group("strata", timeout=datetime.timedelta(seconds=60))
gloo = dist.new_group(backend="gloo")
strata_group = dist.group.WORLD
rank, world = dist.get_rank(), dist.get_world_size()
images, labels = digits_cnn.digits_tensors()


def batch(step):
    return digits_cnn.batch_indices(step, BATCH, len(labels))


def train_ddp(group, setup):
    """STEPS of SGD with momentum through DDP over `group`; returns the
    parameters and the last step's local loss."""
    model = digits_cnn.make_model(seed=0)
    # A small bucket cap: several buckets, so hooks and overlap see more than one.
    ddp = DistributedDataParallel(model, process_group=group, bucket_cap_mb=0.004)
    if setup == "allreduce_hook":
        ddp.register_comm_hook(group, default_hooks.allreduce_hook)
    elif setup == "fp16_compress_hook":
        ddp.register_comm_hook(group, default_hooks.fp16_compress_hook)
    elif setup == "powersgd":
        state = powerSGD_hook.PowerSGDState(process_group=group, matrix_approximation_rank=1,
                                            start_powerSGD_iter=2, random_seed=0)
        ddp.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
    if setup == "zero":
        optimizer = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=torch.optim.SGD,
                                            process_group=group, lr=LR, momentum=MOMENTUM)
    else:
        optimizer = torch.optim.SGD(ddp.parameters(), lr=LR, momentum=MOMENTUM)
    for step in range(STEPS):
        mine = digits_cnn.rank_slice(batch(step), rank, world)
        loss = F.cross_entropy(ddp(images[mine]), labels[mine])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return [p.detach().clone() for p in model.parameters()], loss.item()


def train_one_process():
    """The same steps in this process alone on each whole global batch."""
    model = digits_cnn.make_model(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    for step in range(STEPS):
        rows = batch(step)
        loss = F.cross_entropy(model(images[rows]), labels[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return [p.detach().clone() for p in model.parameters()]


def max_difference(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a, b))


initial = [p.detach().clone() for p in digits_cnn.make_model(seed=0).parameters()]
one_process = train_one_process() if rank == 0 else None
result = {"rank": rank, "world": world, "backend": dist.get_backend(), "setups": {}}
# Setups that compute the exact average of the gradients must also match
# one process; fp16 compression and PowerSGD's low rank approximate it.
EXACT = {"plain": True, "zero": True, "allreduce_hook": True, "fp16_compress_hook": False,
         "powersgd": False}
for setup, exact in EXACT.items():
    ours, our_loss = train_ddp(strata_group, setup)
    theirs, their_loss = train_ddp(gloo, setup)
    entry = {"vs_gloo": max_difference(ours, theirs), "loss": our_loss, "gloo_loss": their_loss,
             "moved": max_difference(ours, initial)}
    if exact and one_process is not None:
        entry["vs_one_process"] = max_difference(ours, one_process)
    # Every rank must hold the same parameters: compare with rank 0's.
    flat = torch.cat([p.flatten() for p in ours])
    rank0 = flat.clone()
    dist.broadcast(rank0, src=0, group=gloo)
    entry["vs_rank0"] = (flat - rank0).abs().max().item()
    result["setups"][setup] = entry

with open(os.path.join(os.environ["STRATA_TEST_OUT"], f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
