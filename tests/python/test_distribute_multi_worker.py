"""MultiWorkerMirroredStrategy: the issue's RFC loop in a job of workers x
local cpu devices under `strata launch` (2 x 2 and 4 x 1) ends, on every
replica of every worker, with the weights and reduced losses of one plain
torch loop on the global batch; the chief's initial weights reach every
worker; gather, all_gather and reduce(MEAN, axis=0) of a partial batch span
the job; a worker that dies fails the others' next step with its name,
at once."""

import json
import os
import re
import signal
import subprocess
import time

import pytest
import torch

from conftest import SCENARIOS, algorithms, free_port, python, run_job, strata_cli
from distribute_loops import TOLERANCE, make_global_batches, plain_torch_loop


@pytest.mark.parametrize("workers,local", [(2, 2), (4, 1)])
def test_multi_worker_mirrored_matches_one_plain_torch_loop(workers, local, tmp_path):
    if not algorithms("cross_process"):
        pytest.skip("no cross-process algorithm is loaded (no mpi or grpc_ring plugin)")
    results, out = run_job([strata_cli(), "launch", "-n", str(workers), "--timeout", "90s", "--",
                            python(), os.path.join(SCENARIOS, "distribute_multi_worker.py")],
                           tmp_path, env={"STRATA_TEST_LOCAL_DEVICES": str(local)})
    assert sorted(results) == list(range(workers)), out
    reference, reference_losses = plain_torch_loop(make_global_batches())
    expected = [p.detach().flatten() for p in reference.parameters()]
    for rank, r in results.items():
        assert r["replicas"] == workers * local and r["first_replica"] == rank * local
        for replica, weights in enumerate(r["weights"]):
            difference = max((torch.tensor(w) - e).abs().max().item()
                             for w, e in zip(weights, expected))
            assert difference < TOLERANCE, (rank, replica, difference)
        assert r["losses"] == pytest.approx(reference_losses, abs=TOLERANCE), rank
        assert r["gather_ok"] and r["all_gather_ok"], (rank, out)
        assert r["chief_weights_everywhere"], (rank, out)
        assert r["mean"] == pytest.approx(21.0)  # the mean of 0..42, over every worker's rows


def test_a_dead_worker_is_named_within_the_timeout(tmp_path):
    if not algorithms("cross_process"):
        pytest.skip("no cross-process algorithm is loaded (no mpi or grpc_ring plugin)")
    # TF_CONFIG rather than `strata launch`, which stops the job when a worker dies.
    workers = [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]
    procs = []
    for index in range(2):
        env = dict(os.environ, STRATA_TEST_OUT=str(tmp_path), TF_CONFIG=json.dumps(
            {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}))
        procs.append(subprocess.Popen(
            [python(), os.path.join(SCENARIOS, "distribute_dead_worker.py")], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True))
    deadline = time.monotonic() + 60
    outputs = []
    for proc in procs:
        try:
            outputs.append(proc.communicate(timeout=max(0.1, deadline - time.monotonic()))[0])
        except subprocess.TimeoutExpired:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            pytest.fail("the job did not end within 60 s; killed")
    assert [p.returncode for p in procs] == [0, 3], outputs
    with open(tmp_path / "rank0.json") as f:
        result = json.load(f)
    assert result["error"] == "PeerFailedError", (result, outputs)
    assert "worker 1" in result["message"], result
    # the collective fails on both local replicas; the first to report is named
    named = r"replica [01] of MultiWorkerMirroredStrategy\(worker 0 of 2"
    assert re.match(named, result["message"]), result
    assert result["seconds"] < 15, result  # named by the heartbeats, not the 30 s timeout
