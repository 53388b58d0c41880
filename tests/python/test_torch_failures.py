"""Failures of a "strata" job are errors on every rank, in bounded time,
naming their cause (scenarios/torch_failures.py, init timeout 10 s):

- a rank SIGKILLed mid-training: each survivor's wait() raises within the
  timeout, naming the dead rank, and the group's next call fails at once;
  the dead one a worker, then rank 0 (which hosts torch's TCPStore);
- a rank that never calls: the others' call times out at the group's
  timeout;
- ranks that all_reduce tensors of different sizes: every rank raises,
  naming the sizes.

Each process runs in its own session, killed at the deadline; the test
fails if any is left."""

import json
import os
import signal
import subprocess
import time

import pytest

pytest.importorskip("torch")
from conftest import SCENARIOS, algorithms, free_port, grpc_ring_config, python  # noqa: E402

TIMEOUT_S = 10  # init_process_group's, in the scenario
DEADLINE_S = 60  # the whole job, start-up included


def run_ranks(n, args, tmp_path, env):
    """Starts n ranks of torch_failures.py; returns ({rank: json or None},
    {rank: exit code}, logs). Kills every session at the deadline and
    checks that none is left."""
    port = free_port()
    procs = []
    for rank in range(n):
        penv = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                    WORLD_SIZE=str(n), STRATA_TEST_OUT=str(tmp_path), **env)
        log = open(os.path.join(tmp_path, f"rank{rank}.log"), "w")
        procs.append(subprocess.Popen(
            [python(), os.path.join(SCENARIOS, "torch_failures.py"), *args], stdout=log,
            stderr=subprocess.STDOUT, env=penv, start_new_session=True))
        log.close()
    deadline = time.monotonic() + DEADLINE_S
    late = []
    for rank, proc in enumerate(procs):
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            late.append(rank)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the session: the rank and any child
        except ProcessLookupError:
            pass
        proc.wait()
    logs = ""
    for rank in range(n):
        with open(os.path.join(tmp_path, f"rank{rank}.log")) as f:
            logs += f"--- rank {rank} (exit {procs[rank].returncode}) ---\n{f.read()[-3000:]}"
    assert not late, f"ranks {late} did not end within {DEADLINE_S} s; killed.\n{logs}"
    results = {}
    for rank in range(n):
        path = os.path.join(tmp_path, f"rank{rank}.json")
        results[rank] = json.load(open(path)) if os.path.exists(path) else None
    return results, {r: p.returncode for r, p in enumerate(procs)}, logs


@pytest.fixture
def ring_env(tmp_path):
    if "grpc_ring/all_reduce/ring" not in algorithms("cross_process"):
        pytest.skip("the grpc_ring plugin is not loaded")
    return {"STRATA_CONFIG": grpc_ring_config(tmp_path)}


@pytest.mark.parametrize("victim", [2, 0], ids=["worker", "store_host"])
def test_sigkilled_rank_fails_every_survivor_naming_it(tmp_path, ring_env, victim):
    results, exits, logs = run_ranks(3, ["kill", str(victim)], tmp_path, ring_env)
    assert exits[victim] == -signal.SIGKILL, logs
    assert results[victim] is None, logs
    for rank in set(range(3)) - {victim}:
        r = results[rank]
        assert exits[rank] == 0 and r is not None, logs
        assert r["steps"] == 5, (rank, r["steps"], logs)
        error = r["error"]
        assert error is not None, (rank, logs)
        assert f"rank {victim}" in error["text"], (rank, error)
        assert error["seconds"] < TIMEOUT_S, (rank, error)
        if victim == 0:
            # The health check names the store's host, not just a lost store.
            assert error["type"] == "PeerFailedError", (rank, error)
            assert "rank 0 (rank 0 of 3), the chief, which hosts the job store at 127.0.0.1:" \
                in error["text"] and "is gone" in error["text"], (rank, error)
        else:
            # A survivor that sees the death after rank 0 (a survivor too)
            # has exited finds the store closed: its health check says so,
            # the call's own part names rank 2.
            assert error["type"] in ("PeerFailedError", "UnavailableError"), (rank, error)
        # The group is broken: its next call says so at once.
        assert r["next"] is not None and r["next"]["seconds"] < 2, (rank, r["next"])


def test_different_shapes_fail_on_every_rank(tmp_path, ring_env):
    results, exits, logs = run_ranks(3, ["shapes"], tmp_path, ring_env)
    assert all(code == 0 for code in exits.values()), logs
    for rank, r in results.items():
        error = r["error"]
        assert error is not None, (rank, logs)
        assert error["type"] == "InvalidArgumentError", (rank, error)
        assert error["seconds"] < TIMEOUT_S, (rank, error)
        for size in (4, 5, 6):
            assert str(size) in error["text"], (rank, size, error)


def test_rank_that_never_calls_times_the_others_out(tmp_path, ring_env):
    results, exits, logs = run_ranks(3, ["absent"], tmp_path, ring_env)
    assert all(code == 0 for code in exits.values()), logs
    for rank in (0, 1):
        error = results[rank]["error"]
        assert error is not None, (rank, logs)
        assert error["type"] == "TimedOutError", (rank, error)
        assert "rank 2 did not reach call" in error["text"], (rank, error)
        assert TIMEOUT_S - 0.5 < error["seconds"] < TIMEOUT_S + 3, (rank, error)
