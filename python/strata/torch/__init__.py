"""strata.torch: every Strata plugin as a torch.distributed backend.

    import strata.torch                       # registers the backend "strata"
    dist.init_process_group("strata")        # env://, tcp:// or file://

The group's team forms through the c10d store torch hands the backend, so
torchrun, `strata launch` and mpirun all work without TF_CONFIG. Under
mpirun or srun, importing this sets torch's env:// variables that are unset
(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; see _environment.py). Its
collectives go through Strata's selector, config (STRATA_CONFIG, or
Options(config=...)), AUTO and plugins. Debian's torchrun needs
`python3 -m torch.distributed.run --redirects 1 --tee 1 ...` (docs/PYTORCH.md).
"""

import atexit
import dataclasses
from typing import Optional

import torch
import torch.distributed as dist

import strata
from strata import _torch
from strata._explain import Explanation
from strata.torch import _environment
from strata.torch import _ompi_server

ProcessGroupStrata = _torch.ProcessGroupStrata


@dataclasses.dataclass
class Options:
    """pg_options of init_process_group / new_group for the "strata" backend.

    config: a YAML file for the process's Strata runtime (else STRATA_CONFIG);
    implementation: "auto", a plugin or an algorithm id (the config's
    collectives.implementation); bytes_per_pack: all_reduce_coalesced's
    packing. torch's timeout bounds every call of the group."""
    config: Optional[str] = None
    implementation: Optional[str] = None
    bytes_per_pack: Optional[int] = None


def _create(backend_options, pg_options):
    options = pg_options if isinstance(pg_options, Options) else Options()
    runtime = strata.runtime(options.config)
    if not dist.is_initialized():  # the default group, formed once per job
        has_mpi = any(a["id"].startswith("mpi/") for a in strata.info(options.config)["algorithms"])
        _ompi_server.share(backend_options.store, backend_options.group_rank,
                           backend_options.group_size, has_mpi)
    return _torch.create_process_group(
        runtime, backend_options.store, backend_options.group_rank,
        backend_options.group_size, backend_options.timeout.total_seconds(),
        str(backend_options.group_id), list(backend_options.global_ranks_in_group),
        options.implementation, options.bytes_per_pack)


def explain(group=None, op="all_reduce", tensor=None, reduce_op=dist.ReduceOp.SUM, root=0):
    """Which algorithm serves `op` of `tensor` on the "strata" `group` (the
    default group if None), and why: a strata.Explanation, as `strata
    explain` and strata.explain() give it. `call` says which core call the
    torch op runs as (gather, scatter and all_to_all are built from
    all_gather and broadcast); `root` is a global rank, as in dist.reduce.
    Before a shape's first call on several processes the verdict is the
    selector's (supports() and the declines met so far); after it, what
    that call decided."""
    if group is None:
        group = dist.distributed_c10d._get_default_group()
    if group == dist.GroupMember.NON_GROUP_MEMBER:
        raise strata.InvalidArgumentError(
            "strata.torch.explain: this process is not in the group", -2, "INVALID_ARGUMENT")
    if not isinstance(group, ProcessGroupStrata):
        raise strata.InvalidArgumentError(
            f"strata.torch.explain: the group's backend is {dist.get_backend(group)!r}, "
            "not \"strata\"", -2, "INVALID_ARGUMENT")
    if tensor is None:
        tensor = torch.empty(0)
    group_root = root if group is dist.distributed_c10d._get_default_group() \
        else dist.distributed_c10d.get_group_rank(group, root)
    return Explanation.from_dict(_torch.explain(group, op, tensor, reduce_op, group_root))


def launcher_environment():
    """The env:// variables importing strata.torch set from mpirun's or
    srun's ranks (a dict; empty when it set none)."""
    return dict(_environment.applied)


# mpirun and srun set no env:// variables: set them from Strata's resolvers,
# once, before any init_process_group.
if not _environment.applied:
    _environment.applied.update(_environment.apply())

# Importing twice (or after another copy registered it) is harmless.
if not hasattr(dist.Backend, "STRATA"):
    dist.Backend.register_backend("strata", _create, extended_api=True)

# Every group leaves its job before the interpreter (and the plugins) go.
atexit.register(_torch._shutdown_all)

__all__ = ["Options", "ProcessGroupStrata", "explain", "launcher_environment"]
