import time, os, torch, torch.distributed as dist, strata.torch
dist.init_process_group("strata")
r = dist.get_rank()
n = int(os.environ.get("NBYTES", 1 << 20))
t = torch.ones(n // 4)
out = []
for _ in range(12):
    dist.barrier()
    s = time.perf_counter()
    for _ in range(100):
        dist.all_reduce(t)
    out.append((time.perf_counter() - s) / 100 * 1e6)
if r == 0:
    print(n, " ".join(f"{x:.0f}" for x in out))
dist.destroy_process_group()
