"""An ompi-server for jobs that mpirun did not start (torchrun, env:// by
hand), so the mpi plugin can serve the "strata" backend there too.

Without mpirun every process is an MPI singleton, and Open MPI 4 joins
singletons only through an ompi-server (plugins/mpi/README.md): `strata
launch` starts one, torchrun does not, and the mpi plugin then declines
and AUTO falls back to grpc_ring, several times slower than mpi on small
calls, when the machine is idle. So, once per job, when the default group
forms and STRATA_TORCH_OMPI_SERVER=1 asks for it: its rank 0 starts
`ompi-server --no-daemonize --report-uri FILE` (loopback only, killed when
rank 0 ends: PR_SET_PDEATHSIG and an atexit stop), publishes the file's
name through torch's store, and every rank points OMPI_MCA_pmix_server_uri
at it before MPI initialises. Only where every rank is on this host
(LOCAL_WORLD_SIZE == WORLD_SIZE): the server listens on loopback alone.

Off by default: singletons talk over Open MPI's TCP transport, whose ranks
poll; on a busy 2-core machine (load 4-6) 2 ranks took 0.3-2 ms per small
call that way where grpc_ring took 0.65-1.3 ms (docs/performance/torch.md).
"""

import atexit
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

URI_KEY = "strata/ompi_server_uri_file"
START_TIMEOUT_S = 10
LOOPBACK = {"OMPI_MCA_oob_tcp_if_include": "lo", "OMPI_MCA_btl_tcp_if_include": "lo"}

_server = None
_folder = None


def wanted(group_size, has_mpi_plugin):
    """Whether this job wants one: asked for, several ranks, all on this
    host, none started by mpirun, no server given, the mpi plugin loaded."""
    env = os.environ
    if env.get("STRATA_TORCH_OMPI_SERVER", "0") != "1" or group_size < 2 or not has_mpi_plugin:
        return False
    if any(k in env for k in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
                              "OMPI_MCA_pmix_server_uri")):
        return False
    return env.get("LOCAL_WORLD_SIZE") == env.get("WORLD_SIZE") == str(group_size)


def _die_with_parent():
    # In the child between fork and exec: SIGTERM when rank 0 goes.
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _stop():
    if _server is None:
        return
    if _server.poll() is None:
        _server.terminate()
        try:
            _server.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _server.kill()
            _server.wait()
    shutil.rmtree(_folder, ignore_errors=True)


def _start(path):
    """Starts the server; returns its URI file's name, or "" (with the
    reason on stderr) when it wrote none within START_TIMEOUT_S."""
    global _server, _folder
    folder = _folder = tempfile.mkdtemp(prefix="strata-ompi-server-")
    uri_file = os.path.join(folder, "uri")
    log_file = os.path.join(folder, "log")
    with open(log_file, "wb") as log:
        _server = subprocess.Popen([path, "--no-daemonize", "--report-uri", uri_file],
                                   env=dict(os.environ, **LOOPBACK), stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT,
                                   preexec_fn=_die_with_parent)
    atexit.register(_stop)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and _server.poll() is None:
        try:
            with open(uri_file) as f:
                if f.read().endswith("\n"):  # the whole URI is there
                    return uri_file
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    if _server.poll() is not None:
        with open(log_file, errors="replace") as f:
            why = f"exited with {_server.returncode}: {f.read()[-500:]}"
    else:
        why = f"wrote no URI within {START_TIMEOUT_S} s"
    _stop()
    print(f"strata.torch: ompi-server {why}; the mpi plugin cannot serve this job "
          "(AUTO picks another plugin)", file=sys.stderr)
    return ""


def share(store, group_rank, group_size, has_mpi_plugin):
    """Rank 0 decides and publishes (the file, or "" for none); the others
    follow, so every rank of the job takes the same path."""
    if group_rank == 0:
        path = shutil.which("ompi-server") if wanted(group_size, has_mpi_plugin) else None
        uri_file = _start(path) if path else ""
        store.set(URI_KEY, uri_file)
    else:
        uri_file = store.get(URI_KEY).decode()
    if uri_file:
        os.environ["OMPI_MCA_pmix_server_uri"] = "file:" + uri_file
        for name, value in LOOPBACK.items():
            os.environ.setdefault(name, value)
