"""What torch's own "gloo" backend gives for each op the "strata" backend
runs, on the same inputs in the same processes: the reference of
scenarios/torch_ops.py. gloo 1.13 lacks some dtypes and ops, so those
references are composed from what gloo has (docs/PYTORCH.md lists which):

- bfloat16: gloo rejects it in every op. Bytes-moving ops run on the
  tensor widened to float32 (exact both ways); reductions run in float32
  and round once, as Strata reduces bfloat16.
- AVG: gloo SUM, then one division by the group size (integers truncate,
  core's rule).
- all_gather_into_tensor: gloo all_gather, concatenated.
- reduce_scatter (list and tensor): gloo all_reduce of the concatenated
  input, then this rank's slice.
- all_to_all (list form): gloo all_to_all_single of the concatenated
  inputs, with each tensor's rows as split sizes.
- Empty tensors: gloo 1.13 dies of SIGFPE on some of them, and the result
  of a collective of empty tensors is the empty output itself.
"""

import torch
import torch.distributed as dist


class Reference:
    def __init__(self, group):
        self.group = group
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)

    @staticmethod
    def _wide(t):
        """The dtype gloo runs `t` in, and `t` in it."""
        return t.float() if t.dtype == torch.bfloat16 else t.contiguous().clone()

    def mean_of(self, total):
        if total.is_floating_point():
            return total / self.world
        return total.div(self.world, rounding_mode="trunc")

    def all_reduce(self, t, op):
        w = self._wide(t)
        if w.numel() > 0:
            avg = op == dist.ReduceOp.AVG
            dist.all_reduce(w, op=dist.ReduceOp.SUM if avg else op, group=self.group)
            if avg:
                w = self.mean_of(w)
        return w.to(t.dtype)

    def reduce(self, t, op, root):
        """The root's result; every other rank's tensor stays as it was."""
        w = self._wide(t)
        if w.numel() > 0:
            avg = op == dist.ReduceOp.AVG
            dist.reduce(w, dst=self.global_rank(root), op=dist.ReduceOp.SUM if avg else op,
                        group=self.group)
            if avg:
                w = self.mean_of(w)
        return w.to(t.dtype) if self.rank == root else t.clone()

    def broadcast(self, t, root):
        w = self._wide(t)
        if w.numel() > 0:
            dist.broadcast(w, src=self.global_rank(root), group=self.group)
        return w.to(t.dtype)

    def all_gather(self, t):
        w = self._wide(t)
        outs = [torch.zeros_like(w) for _ in range(self.world)]
        if w.numel() > 0:
            dist.all_gather(outs, w, group=self.group)
        return [o.to(t.dtype) for o in outs]

    def gather(self, t, root):
        """The root's list; [] elsewhere."""
        w = self._wide(t)
        outs = [torch.zeros_like(w) for _ in range(self.world)] if self.rank == root else None
        if w.numel() > 0:
            dist.gather(w, outs, dst=self.global_rank(root), group=self.group)
        return [o.to(t.dtype) for o in outs] if outs is not None else []

    def scatter(self, pieces, like, root):
        """pieces: the root's list (ignored elsewhere); like: the output."""
        out = self._wide(like)
        if out.numel() > 0:
            dist.scatter(out, [self._wide(p) for p in pieces] if self.rank == root else None,
                         src=self.global_rank(root), group=self.group)
        return out.to(like.dtype)

    def reduce_scatter(self, flat, op):
        block = flat.numel() // self.world
        return self.all_reduce(flat, op)[self.rank * block:(self.rank + 1) * block]

    def all_to_all_single(self, t, out_like, out_splits, in_splits):
        w = self._wide(t)
        out = self._wide(out_like)
        if w.numel() > 0 or out.numel() > 0:
            dist.all_to_all_single(out, w, out_splits, in_splits, group=self.group)
        return out.to(t.dtype)

    def all_to_all(self, ins, outs_like):
        flat_in = torch.cat([i.reshape(-1) for i in ins])
        flat_out = torch.cat([o.reshape(-1) for o in outs_like])
        got = self.all_to_all_single(flat_in, flat_out, [o.numel() for o in outs_like],
                                     [i.numel() for i in ins])
        return list(torch.split(got, [o.numel() for o in outs_like]))

    def global_rank(self, group_rank):
        if self.group is None or self.group == dist.group.WORLD:
            return group_rank
        return dist.distributed_c10d.get_global_rank(self.group, group_rank)
