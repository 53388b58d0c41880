"""torch's env:// variables for processes that mpirun or srun started.

torchrun and `strata launch` set MASTER_ADDR, MASTER_PORT, RANK and
WORLD_SIZE; mpirun and srun set none of them, so `init_process_group()`
fails there with "environment variable RANK expected". When none of RANK
and WORLD_SIZE is set and the process was started by mpirun (or another
PMIx/PMI launcher) or srun, importing strata.torch asks Strata's cluster
resolvers (`mpi`, `slurm`: the same ones the C++ strategies use) who this
process is, and sets the variables that are still unset:

  RANK, WORLD_SIZE         the resolver's rank and world size
  MASTER_ADDR, MASTER_PORT the chief's address: rank 0's host and a port
                           that was free there (torch's TCPStore binds it)
  LOCAL_RANK, LOCAL_WORLD_SIZE   from OMPI_COMM_WORLD_LOCAL_* or SLURM_LOCALID

Under mpirun this initialises MPI (on the importing thread), which also
fixes the process's Strata runtime to STRATA_CONFIG's plugins. A variable
set by hand is never replaced. If the resolver fails, a warning names why
and nothing is set; torch then says which variable is missing.
"""

import os
import warnings

# Set by mpirun / a PMIx or PMI launcher.
_MPI_MARKERS = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE")
# Set by srun for each task. Both, because a batch script run without srun
# also has SLURM_PROCID=0 and the job's task count, and would wait for
# tasks that never start; srun alone sets SLURM_STEP_ID.
_SLURM_MARKERS = ("SLURM_PROCID", "SLURM_STEP_ID")

# What this module set at import, for strata.torch.launcher_environment().
applied = {}


def _launcher(environ):
    if any(name in environ for name in _MPI_MARKERS):
        return "mpi"
    if all(name in environ for name in _SLURM_MARKERS):
        return "slurm"
    return None


def _local(environ):
    """LOCAL_RANK and LOCAL_WORLD_SIZE where the launcher tells them."""
    local = {}
    for name, sources in (("LOCAL_RANK", ("OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID")),
                          ("LOCAL_WORLD_SIZE", ("OMPI_COMM_WORLD_LOCAL_SIZE",))):
        for source in sources:
            if environ.get(source, ""):
                local[name] = environ[source]
                break
    return local


def variables_for(cluster, environ):
    """The env:// variables for a resolved cluster (strata._core.resolve_cluster)."""
    host, _, port = cluster["chief_address"].rpartition(":")
    variables = {"RANK": str(cluster["rank"]), "WORLD_SIZE": str(cluster["world_size"]),
                 "MASTER_ADDR": host.strip("[]"), "MASTER_PORT": port}
    variables.update(_local(environ))
    return variables


def apply(environ=None, resolve=None):
    """Sets the unset env:// variables from the launcher's resolver; returns
    what it set ({} when not under mpirun/srun or when RANK or WORLD_SIZE
    is already set)."""
    environ = os.environ if environ is None else environ
    if "RANK" in environ or "WORLD_SIZE" in environ:
        return {}
    launcher = _launcher(environ)
    if launcher is None:
        return {}
    if resolve is None:
        from strata import _core
        resolve = _core.resolve_cluster
    try:
        cluster = resolve(launcher)
    except Exception as e:  # noqa: BLE001 (any failure: say it, set nothing)
        warnings.warn(f"strata.torch: started by {'mpirun' if launcher == 'mpi' else 'srun'}, "
                      f"but Strata's '{launcher}' resolver failed, so torch's env:// variables "
                      f"(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) are not set: {e}",
                      RuntimeWarning, stacklevel=3)
        return {}
    chosen = {name: value for name, value in variables_for(cluster, environ).items()
              if name not in environ}
    environ.update(chosen)
    return chosen
