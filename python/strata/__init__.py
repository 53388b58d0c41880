"""Strata for Python: the plugins, algorithms and devices of a Strata
installation, explained; collectives on numpy arrays for a team of local
devices or of a multi-process job; and (strata.torch) a torch.distributed
backend named "strata".

    import strata
    strata.info()["algorithms"]                    # what `strata info --json` lists
    print(strata.explain("all_reduce", "1MiB"))    # what `strata explain` prints
    comm = strata.local(["cpu:0", "cpu:1"])        # or strata.join() in a job
    comm.all_reduce([a, b])                        # in place, zero-copy

Errors are strata.StrataError subclasses carrying Strata's code, message
and context (docs/PYTHON.md).
"""

from strata import _core
from strata._build_info import version as __version__
from strata._errors import *  # noqa: F401,F403  (the error classes)
from strata._errors import StrataError
from strata._explain import Candidate, Explanation

Communicator = _core.Communicator
Runtime = _core.Runtime


class ReduceOp:
    """Names of Strata's reductions (strings work too: "sum", "mean")."""
    SUM = "sum"
    MEAN = "mean"
    PROD = "prod"
    MIN = "min"
    MAX = "max"


def runtime(config=None):
    """The process's Runtime: plugins loaded from `config` (a YAML file),
    else $STRATA_CONFIG, else the built-in defaults. Made once; a later call
    naming another file raises FailedPreconditionError."""
    return _core.runtime(config)


def info(config=None):
    """Plugins, device types, algorithms, resolvers and stores, as data:
    the dict `strata info --json` prints."""
    return _core.info(config)


def explain(op, size=None, dtype="f32", redop="sum", devices=4, device_type="cpu",
            config=None, in_place=False, root=0):
    """Which algorithm serves `op` of `size` (bytes, or "64KiB") on a team of
    `devices` local devices, and why; as `strata explain OP SIZE`."""
    return Explanation.from_dict(_core.explain(op, size, dtype, redop, devices, device_type,
                                               config, in_place, root))


def local(devices=(), implementation=None, bytes_per_pack=None, timeout=None, config=None):
    """A Communicator over devices of this process ("cpu:0", "cpu:1")."""
    return _core.local(list(devices), implementation, bytes_per_pack, timeout, config)


def join(devices=(), implementation=None, bytes_per_pack=None, timeout=None, config=None):
    """This process's Communicator in its job: TF_CONFIG, Slurm, mpirun or
    `strata launch` (cluster.resolver of the config), meeting through the
    job's store, with heartbeats that name a dead peer."""
    return _core.join(list(devices), implementation, bytes_per_pack, timeout, config)


__all__ = ["__version__", "Communicator", "Candidate", "Explanation", "ReduceOp", "Runtime",
           "StrataError", "explain", "info", "join", "local", "runtime"]
