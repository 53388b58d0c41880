"""Which launcher started this process, and torch's env:// variables under
mpirun (which sets none of them), for strata.torch.bench."""

import os


def launcher():
    """"mpirun", "torchrun", "strata launch" or "env" (variables set by hand)."""
    if "OMPI_COMM_WORLD_SIZE" in os.environ or "PMIX_RANK" in os.environ:
        return "mpirun"
    if "TORCHELASTIC_RUN_ID" in os.environ:
        return "torchrun"
    if "STRATA_JOB_TOKEN" in os.environ and "TF_CONFIG" in os.environ:
        return "strata launch"
    return "env"


def set_env_from_mpirun():
    """Under mpirun with RANK unset: RANK, WORLD_SIZE, LOCAL_* from Open MPI's
    variables, MASTER_ADDR/PORT from the chief's address the mpi resolver
    gathers (its host:free port). A no-op anywhere else."""
    if "RANK" in os.environ or launcher() != "mpirun":
        return
    from strata import _core
    cluster = _core.resolve_cluster("auto")
    host, _, port = cluster["chief_address"].rpartition(":")
    os.environ.setdefault("MASTER_ADDR", host.strip("[]"))
    os.environ.setdefault("MASTER_PORT", port)
    os.environ["RANK"] = str(cluster["rank"])
    os.environ["WORLD_SIZE"] = str(cluster["world_size"])
    os.environ.setdefault("LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    os.environ.setdefault("LOCAL_WORLD_SIZE",
                          os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", str(cluster["world_size"])))
