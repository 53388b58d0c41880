"""The job torchrun describes with torch's env:// variables (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT, LOCAL_RANK), as a Strata ClusterSpec.

torch's store listens on MASTER_PORT (torchrun's agent's, or rank 0's when
the variables were set by hand), so Strata's job store cannot: rank 0
chooses a free port on MASTER_ADDR for it and hands its address to the
others through torch's store, which every launcher of env:// provides."""

import datetime
import itertools
import socket
import time

_REQUIRED = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
# Strategies made in one process: the n-th of each rank meets the others' n-th.
_agreements = itertools.count()


def torchrun_variables_set(environ):
    return all(environ.get(name, "") for name in _REQUIRED)


def _integer(environ, name):
    try:
        return int(environ[name])
    except KeyError:
        raise ValueError(f"torch's env:// variable {name} is not set (TorchrunClusterResolver "
                         f"reads {', '.join(_REQUIRED)})") from None
    except ValueError:
        raise ValueError(f"torch's env:// variable {name}={environ[name]!r} is not an "
                         "integer") from None


def _free_port(host):
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _initialized_store():
    """The default process group's store when env:// already made one."""
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        return None
    from torch.distributed import distributed_c10d
    return distributed_c10d._get_default_store()


def chief_address(environ, timeout_s):
    """Rank 0's choice of host:port for the job's store, agreed through
    torch's store at MASTER_ADDR:MASTER_PORT; every wait ends by timeout_s."""
    from torch.distributed import TCPStore
    rank, world = _integer(environ, "RANK"), _integer(environ, "WORLD_SIZE")
    host, port = environ.get("MASTER_ADDR", ""), _integer(environ, "MASTER_PORT")
    # torchrun's static rendezvous serves the store from its agent; else
    # (--standalone, c10d, variables by hand) rank 0 serves it, as torch does.
    hosts_store = rank == 0 and environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True"
    timeout = datetime.timedelta(seconds=timeout_s)
    try:
        store = _initialized_store()
        if store is not None:  # init_process_group's, already at MASTER_PORT
            hosts_store = False
        else:
            store = TCPStore(host, port, None, hosts_store, timeout, wait_for_workers=False)
    except RuntimeError as e:
        raise TimeoutError(f"TorchrunClusterResolver: rank {rank} of {world} could not reach "
                           f"torch's store at {host}:{port} (MASTER_ADDR:MASTER_PORT) within "
                           f"{timeout_s:g} s: {e}") from e
    key = "/".join(("strata.distribute", environ.get("TORCHELASTIC_RUN_ID", "env"),
                    environ.get("TORCHELASTIC_RESTART_COUNT", "0"), "chief",
                    str(next(_agreements))))
    if rank == 0:
        address = f"{host}:{_free_port(host.strip('[]'))}"
        store.set(key, address)
    else:
        try:
            address = store.get(key).decode()
        except RuntimeError as e:
            raise TimeoutError(f"TorchrunClusterResolver: rank {rank} of {world} waited "
                               f"{timeout_s:g} s for rank 0's address under '{key}' in torch's "
                               f"store at {host}:{port}: {e}") from e
    if rank != 0:
        store.add(key + "/read", 1)
    if hosts_store:  # keep serving until every rank has read it
        deadline = time.monotonic() + timeout_s
        while store.add(key + "/read", 0) < world - 1:
            if time.monotonic() > deadline:
                raise TimeoutError(f"TorchrunClusterResolver: only {store.add(key + '/read', 0)} "
                                   f"of the {world - 1} other ranks read rank 0's address "
                                   f"within {timeout_s:g} s")
            time.sleep(0.01)
    return address


def torchrun_cluster(environ, timeout_s):
    """The ClusterSpec dict (resolve_cluster's shape) of torchrun's job."""
    rank, world = _integer(environ, "RANK"), _integer(environ, "WORLD_SIZE")
    if not 0 <= rank < world:
        raise ValueError(f"RANK={rank} is out of range for WORLD_SIZE={world}")
    # Only the chief's address is known (and needed: it hosts the store).
    workers = [chief_address(environ, timeout_s) if world > 1 else ""] + [""] * (world - 1)
    return {"jobs": {"worker": workers}, "task_type": "worker", "task_index": rank,
            "rpc_layer": "", "device_type": "", "devices_per_task": 0, "resolver": "torchrun",
            "source": "torchrun's RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT"}
