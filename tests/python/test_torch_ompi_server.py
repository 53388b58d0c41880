"""Jobs that mpirun did not start (torchrun, env:// by hand): with
STRATA_TORCH_OMPI_SERVER=1 the default group's rank 0 starts an ompi-server
so the mpi plugin can serve the "strata" backend
(strata/torch/_ompi_server.py); it is gone after the job. Without it
(the default) mpi declines and the next candidate serves: shm for processes
on one host, grpc_ring where shm is not built.
Core's log says which plugin served."""

import os

import pytest

torch = pytest.importorskip("torch")
from conftest import algorithms, launch  # noqa: E402
from test_torch_init import check  # noqa: E402


def ompi_servers():
    """Pids of the ompi-server processes _ompi_server.py starts."""
    pids = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if args[0].endswith(b"ompi-server") and any(b"strata-ompi-server-" in a for a in args):
            pids.add(int(pid))
    return pids


@pytest.fixture
def mpi_only(tmp_path):
    if not any(a.startswith("mpi/") for a in algorithms("cross_process")):
        pytest.skip("the mpi plugin is not loaded")
    config = tmp_path / "mpi.yaml"  # mpi first: its declines are logged
    config.write_text("strata: 1\ncollectives:\n  implementation: mpi\n")
    return str(config)


def rank_logs(tmp_path, n):
    return "".join((tmp_path / f"rank{r}.log").read_text() for r in range(n))


# Core logs (level info) each call that a candidate declined: "runs on
# shm/... (or grpc_ring/...), skipping mpi/... declined at team_create ...".
def fell_back():
    after = ("shm/all_reduce/sliced" if "shm/all_reduce/sliced" in algorithms("cross_process")
             else "grpc_ring/all_reduce/ring")
    return f"runs on {after}, skipping mpi/all_reduce/native declined"


def test_env_job_is_served_by_mpi_through_its_own_ompi_server(tmp_path, mpi_only):
    before = ompi_servers()
    results, _ = launch(2, "torch_basic.py", tmp_path,
                        env={"STRATA_CONFIG": mpi_only, "STRATA_LOG_LEVEL": "info",
                             "STRATA_TORCH_OMPI_SERVER": "1"})
    check(results, 2)
    logs = rank_logs(tmp_path, 2)
    assert "mpi: initialised Open MPI" in logs and "skipping mpi/" not in logs, logs[-3000:]
    assert ompi_servers() - before == set(), "the job's ompi-server outlived it"


def test_by_default_the_next_candidate_serves(tmp_path, mpi_only):
    results, _ = launch(2, "torch_basic.py", tmp_path,
                        env={"STRATA_CONFIG": mpi_only, "STRATA_LOG_LEVEL": "info"})
    check(results, 2)
    logs = rank_logs(tmp_path, 2)
    assert fell_back() in logs and "OMPI_MCA_pmix_server_uri is unset" in logs, logs[-3000:]
