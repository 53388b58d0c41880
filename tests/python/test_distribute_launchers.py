"""MultiWorkerMirroredStrategy in the environments launchers make: a
2-process job under torchrun and under mpirun, with the environment's own
resolver, ends with the weights and reduced losses of one plain torch
loop. The resolvers' answers, the default resolver's choice and a job
given by hand are checked in this process."""

import json
import os
import shutil

import pytest
import torch

import strata.distribute as sd
from conftest import SCENARIOS, algorithms, free_port, python, run_job
from distribute_loops import TOLERANCE, make_global_batches, plain_torch_loop

SCENARIO = os.path.join(SCENARIOS, "distribute_launchers.py")
LAUNCHER_VARIABLES = ("TF_CONFIG", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                      "LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
                      "SLURM_PROCID", "SLURM_STEP_ID", "STRATA_JOB_TOKEN")


@pytest.fixture(scope="module")
def reference():
    model, losses = plain_torch_loop(make_global_batches())
    return [p.detach().flatten() for p in model.parameters()], losses


def check_same_as_plain_loop(results, reference, resolver, out):
    expected, expected_losses = reference
    assert sorted(results) == [0, 1], out
    for rank, r in results.items():
        assert (r["workers"], r["replicas"], r["resolver"]) == (2, 2, resolver), (r, out)
        if resolver is not None:
            assert r["task_id"] == rank
        difference = max((torch.tensor(w) - e).abs().max().item()
                         for w, e in zip(r["weights"][0], expected))
        assert difference < TOLERANCE, (rank, difference)
        assert r["losses"] == pytest.approx(expected_losses, abs=TOLERANCE), rank


def needs_cross_process():
    if not algorithms("cross_process"):
        pytest.skip("no cross-process algorithm is loaded (no mpi or grpc_ring plugin)")


# Each job costs 10-20 s on a loaded 2-core machine, so one per launcher:
# torchrun with the default resolver (c10d rendezvous as --standalone
# does, on a free port rather than its fixed 29400: rank 0 serves torch's
# store), mpirun with the default resolver (which the scenario compares
# with MPIClusterResolver's answer).
def test_torchrun_job_matches_one_plain_torch_loop(reference, tmp_path):
    needs_cross_process()
    results, out = run_job([python(), "-m", "torch.distributed.run", "--redirects", "1",
                            "--tee", "1", "--nnodes", "1", "--rdzv_backend", "c10d",
                            "--rdzv_endpoint", f"127.0.0.1:{free_port()}", "--nproc_per_node",
                            "2", SCENARIO],
                           tmp_path, timeout=90, env={"STRATA_TEST_RESOLVER": "default"},
                           unset=LAUNCHER_VARIABLES)
    check_same_as_plain_loop(results, reference, "TorchrunClusterResolver", out)


def test_mpirun_job_matches_one_plain_torch_loop(reference, tmp_path):
    needs_cross_process()
    import strata
    if shutil.which("mpirun") is None or not any(
            a["id"].startswith("mpi/") for a in strata.info()["algorithms"]):
        pytest.skip("mpirun or the mpi plugin is missing")
    results, out = run_job(["mpirun", "-np", "2", "--oversubscribe", "--mca", "btl", "self,vader",
                            "-x", "STRATA_TEST_OUT", "-x", "STRATA_TEST_RESOLVER", "-x",
                            "PYTHONPATH", python(), SCENARIO], tmp_path, timeout=90,
                           env={"STRATA_TEST_RESOLVER": "default"}, unset=LAUNCHER_VARIABLES)
    check_same_as_plain_loop(results, reference, None, out)
    for rank, r in results.items():
        assert r["mpi_resolver"] == {"task_id": rank, "workers": 2, "resolver": "mpi"}, r


def test_default_resolver_is_the_environments_own():
    torchrun = {"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}
    assert isinstance(sd.cluster_resolver.default_resolver(torchrun),
                      sd.cluster_resolver.TorchrunClusterResolver)
    # strata launch and mpirun set torch's variables too: core's resolvers win there
    for marker in ("TF_CONFIG", "OMPI_COMM_WORLD_SIZE", "SLURM_STEP_ID"):
        assert sd.cluster_resolver.default_resolver(dict(torchrun, **{marker: "x"})) is None
    assert sd.cluster_resolver.default_resolver({"RANK": "0"}) is None


def test_resolvers_answer_like_tf(monkeypatch):
    spec = {"worker": ["a:1", "b:2"], "chief": ["c:3"]}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": spec,
                                                "task": {"type": "worker", "index": 1}}))
    tf_config = sd.cluster_resolver.TFConfigClusterResolver()
    assert tf_config.cluster_spec() == spec
    assert (tf_config.task_type, tf_config.task_id, tf_config.master()) == ("worker", 1, "c:3")
    assert sd.cluster_resolver.TFConfigClusterResolver(task_id=0).task_id == 0
    simple = sd.cluster_resolver.SimpleClusterResolver(spec, "chief", 0, rpc_layer="grpc",
                                                       num_accelerators={"cpu": 2})
    assert simple.master("worker", 1) == "grpc://b:2"
    assert simple.num_accelerators() == {"cpu": 2}
    single = sd.cluster_resolver.TorchrunClusterResolver(
        {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"})
    assert single.cluster_spec() == {"worker": [""]} and single.task_id == 0
    with pytest.raises(ValueError, match="RANK=2 is out of range"):
        sd.cluster_resolver.TorchrunClusterResolver(
            {"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}).cluster()


def test_a_job_given_by_hand_joins_and_a_wrong_one_is_refused():
    one = sd.cluster_resolver.SimpleClusterResolver({"worker": ["127.0.0.1:1"]},
                                                    num_accelerators={"cpu": 2})
    strategy = sd.MultiWorkerMirroredStrategy(cluster_resolver=one)
    assert strategy.devices == ("cpu:0", "cpu:1") and strategy.num_replicas_in_sync == 2
    total = strategy.reduce(sd.ReduceOp.SUM, sd.PerReplica((torch.ones(2), torch.ones(2) * 2)))
    assert total.tolist() == [3.0, 3.0] and strategy.cluster_resolver is one
    bad = sd.cluster_resolver.SimpleClusterResolver({"worker": ["127.0.0.1:1"]}, "worker", 3)
    with pytest.raises(Exception, match="task index 3 is out of range"):
        sd.MultiWorkerMirroredStrategy(cluster_resolver=bad)
    with pytest.raises(TypeError, match="cluster_resolver must be"):
        sd.MultiWorkerMirroredStrategy(cluster_resolver="tf_config")


def test_slurm_resolver_reads_an_srun_step(monkeypatch):
    for name, value in {"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2",
                        "SLURM_STEP_NODELIST": "node[1-2]", "SLURM_STEP_TASKS_PER_NODE": "1(x2)",
                        "STRATA_SLURM_PORT_BASE": "30000"}.items():
        monkeypatch.setenv(name, value)
    slurm = sd.cluster_resolver.SlurmClusterResolver()
    assert slurm.task_id == 1 and slurm.task_type == "worker", slurm.cluster()
    assert slurm.cluster_spec() == {"worker": ["node1:30000", "node2:30000"]}
    monkeypatch.setenv("SLURM_PROCID", "2")
    with pytest.raises(Exception, match="SLURM_PROCID=2 is out of range"):
        sd.cluster_resolver.SlurmClusterResolver().cluster()
