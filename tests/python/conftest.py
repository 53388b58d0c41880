"""Shared by the Python tests: where the build is, and a bounded way to run
a job of several processes that never leaves one behind."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

BIN_DIR = os.environ.get("STRATA_BIN_DIR", "")
SOURCE_DIR = os.environ.get("STRATA_SOURCE_DIR", "")
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios")


def strata_cli():
    path = os.path.join(BIN_DIR, "strata")
    if not os.path.exists(path):
        pytest.fail(f"STRATA_BIN_DIR={BIN_DIR!r} has no strata program (run through ctest)")
    return path


def run_cli(*args, env=None, timeout=60):
    """Runs `strata ARGS`; returns stdout, failing with stderr on error."""
    done = subprocess.run([strata_cli(), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert done.returncode == 0, f"strata {' '.join(args)}: {done.stderr}"
    return done.stdout


def algorithms(scope_word):
    """Ids of the loaded algorithms whose scope names `scope_word`."""
    import strata
    return [a["id"] for a in strata.info()["algorithms"] if scope_word in a["scope"]]


def run_job(command, tmp_path, timeout=120, env=None, unset=()):
    """Runs `command` (a launcher and its workers) in its own session;
    kills the whole session at `timeout`, then fails, so no process is
    left behind. Each worker writes rank<r>.json into tmp_path; returns
    them by rank, with the launcher's output on failure. `env` adds
    variables, `unset` names ones the job must not inherit."""
    full_env = dict(os.environ, STRATA_TEST_OUT=str(tmp_path), **(env or {}))
    for name in unset:
        full_env.pop(name, None)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=full_env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"job did not end within {timeout} s; killed. Output:\n{out[-4000:]}")
    finally:
        _reap_session(proc.pid)
    assert proc.returncode == 0, f"job failed ({proc.returncode}):\n{out[-4000:]}"
    results = {}
    for name in sorted(os.listdir(tmp_path)):
        if name.startswith("rank") and name.endswith(".json"):
            with open(os.path.join(tmp_path, name)) as f:
                results[int(name[4:-5])] = json.load(f)
    return results, out


def _reap_session(sid):
    """Kills whatever of the job's session is still alive (a worker that
    outlived its launcher), and says so: that is a bug of its own."""
    try:
        os.killpg(sid, 0)
    except ProcessLookupError:
        return
    os.killpg(sid, signal.SIGKILL)
    time.sleep(0.1)
    pytest.fail(f"processes of session {sid} were still running after the job ended")


def python():
    return sys.executable


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(n, scenario, tmp_path, env=None, timeout=120, args=()):
    """Starts n processes of scenarios/<scenario> with torch's env://
    variables (a free MASTER_PORT on loopback), each in its own session;
    kills them all at `timeout` and fails. Returns rank<r>.json by rank."""
    port = free_port()
    procs = []
    for rank in range(n):
        penv = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                    WORLD_SIZE=str(n), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(n),
                    STRATA_TEST_OUT=str(tmp_path), **(env or {}))
        log = open(os.path.join(tmp_path, f"rank{rank}.log"), "w")
        procs.append((subprocess.Popen([python(), os.path.join(SCENARIOS, scenario), *args],
                                       stdout=log, stderr=subprocess.STDOUT, env=penv,
                                       start_new_session=True), log))
    deadline = time.monotonic() + timeout
    timed_out = False
    for proc, log in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    for proc, log in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
    logs = "".join(f"--- rank {r} (exit {p.returncode}) ---\n" + _tail(tmp_path, r)
                   for r, (p, _) in enumerate(procs))
    if timed_out:
        pytest.fail(f"{scenario} did not end within {timeout} s; killed.\n{logs}")
    assert all(p.returncode == 0 for p, _ in procs), f"{scenario} failed:\n{logs}"
    results = {}
    for rank in range(n):
        with open(os.path.join(tmp_path, f"rank{rank}.json")) as f:
            results[rank] = json.load(f)
    return results, logs


def _tail(tmp_path, rank, chars=3000):
    with open(os.path.join(tmp_path, f"rank{rank}.log")) as f:
        return f.read()[-chars:]


GRPC_RING_CONFIG = """strata: 1
plugins:
  disable: [mpi, shm]
  options:
    grpc_ring:
      listen_address: 127.0.0.1:0
collectives:
  implementation: grpc_ring
"""


def grpc_ring_config(tmp_path):
    """A config that runs every collective on grpc_ring over loopback."""
    path = os.path.join(tmp_path, "grpc_ring.yaml")
    with open(path, "w") as f:
        f.write(GRPC_RING_CONFIG)
    return path
