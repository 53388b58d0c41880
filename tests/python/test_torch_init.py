"""The "strata" backend of torch.distributed: registered by importing
strata.torch, formed through torch's env:// store, and giving gloo's
results for all_reduce, broadcast and barrier on 1 and 2 ranks; over
grpc_ring, and over mpi under strata launch. Then 2 ranks started each way
a user starts them (env://, tcp://, file://, strata launch, torchrun,
mpirun with the env:// variables strata.torch sets), each checking an
all_reduce and a broadcast."""

import os
import shutil

import pytest

torch = pytest.importorskip("torch")
import strata  # noqa: E402
from conftest import (SCENARIOS, algorithms, free_port, grpc_ring_config, launch, python,  # noqa: E402
                      run_job, strata_cli)


def check(results, world):
    assert sorted(results) == list(range(world))
    for rank, r in results.items():
        assert r["backend"] == "strata" and r["world"] == world
        assert r["group_class"] == "ProcessGroupStrata"
        assert r["mismatches"] == [], (rank, r["mismatches"][:5])
        assert r["async_completed"] and r["future_value_ok"]
        name, text = r["int8_error"]
        assert name == "NotSupportedError", r["int8_error"]
        assert "strata backend: all_reduce of torch.int8" in text and "bfloat16" in text
        name, text = r["band_error"]
        assert name == "NotSupportedError" and "ReduceOp.BAND" in text, r["band_error"]


def test_importing_twice_registers_once():
    import torch.distributed as dist
    import strata.torch
    import importlib
    importlib.reload(strata.torch)
    assert dist.Backend.STRATA == "STRATA" or dist.Backend.STRATA == "strata"


def test_one_rank(tmp_path):
    results, _ = launch(1, "torch_basic.py", tmp_path)
    check(results, 1)


def test_two_ranks_over_grpc_ring(tmp_path):
    if "grpc_ring/all_reduce/ring" not in algorithms("cross_process"):
        pytest.skip("the grpc_ring plugin is not loaded")
    results, _ = launch(2, "torch_basic.py", tmp_path,
                        env={"STRATA_CONFIG": grpc_ring_config(tmp_path)})
    check(results, 2)


def test_two_ranks_over_mpi_under_strata_launch(tmp_path):
    if not any(a.startswith("mpi/") for a in algorithms("cross_process")):
        pytest.skip("the mpi plugin is not loaded")
    config = tmp_path / "mpi.yaml"  # mpi or nothing: a decline fails the calls
    config.write_text("strata: 1\ncollectives:\n  implementation: mpi\n")
    results, out = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "120s", "--config",
                            str(config), "--", python(), os.path.join(SCENARIOS, "torch_basic.py")],
                           tmp_path, timeout=150)
    check(results, 2)


# Every way a user starts 2 ranks: each runs an all_reduce and a broadcast
# from every root (scenarios/torch_init.py) and must get the right values.
def check_init(results, method):
    assert sorted(results) == [0, 1], results
    for rank, r in results.items():
        assert r["backend"] == "strata" and r["world"] == 2 and r["method"] == method, r
        assert r["all_reduce_ok"] and r["broadcasts_ok"] == [True, True], (rank, r)


def require_grpc_ring():
    if "grpc_ring/all_reduce/ring" not in algorithms("cross_process"):
        pytest.skip("the grpc_ring plugin is not loaded")


@pytest.mark.parametrize("method", ["env", "tcp", "file"])
def test_init_methods(tmp_path, method):
    require_grpc_ring()
    arg = f"file:{tmp_path / 'store'}" if method == "file" else method
    results, _ = launch(2, "torch_init.py", tmp_path, args=[arg],
                        env={"STRATA_CONFIG": grpc_ring_config(tmp_path)})
    check_init(results, arg)
    assert all(r["launcher_environment"] == {} for r in results.values())


def test_under_strata_launch(tmp_path):
    require_grpc_ring()
    results, _ = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "120s", "--config",
                          grpc_ring_config(tmp_path), "--", python(),
                          os.path.join(SCENARIOS, "torch_init.py"), "env"],
                         tmp_path, timeout=150)
    check_init(results, "env")


def test_under_torchrun(tmp_path):
    require_grpc_ring()
    # Debian's torchrun dies at start without --redirects/--tee (docs/PYTORCH.md).
    results, _ = run_job([python(), "-m", "torch.distributed.run", "--redirects", "1", "--tee",
                          "1", "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
                          "--master_port", str(free_port()),
                          os.path.join(SCENARIOS, "torch_init.py"), "env"],
                         tmp_path, timeout=150, env={"STRATA_CONFIG": grpc_ring_config(tmp_path)})
    check_init(results, "env")
    assert all(r["torchelastic"] for r in results.values())


def test_under_mpirun_sets_env_variables(tmp_path):
    """mpirun sets no env:// variable: importing strata.torch sets them from
    the mpi resolver, so an unchanged init_process_group("strata") works.
    No STRATA_CONFIG: the defaults choose the algorithm (mpi here)."""
    if not any(a.startswith("mpi/") for a in algorithms("cross_process")):
        pytest.skip("the mpi plugin is not loaded")
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed")
    results, _ = run_job(["mpirun", "-np", "2", "--oversubscribe", "--mca", "btl", "self,vader",
                          python(), os.path.join(SCENARIOS, "torch_init.py"), "env"],
                         tmp_path, timeout=150,
                         unset=("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK",
                                "LOCAL_WORLD_SIZE", "STRATA_CONFIG"))
    check_init(results, "env")
    for rank, r in results.items():
        applied = r["launcher_environment"]
        assert applied["RANK"] == str(rank) and applied["WORLD_SIZE"] == "2", applied
        assert applied["LOCAL_RANK"] == str(rank) and applied["LOCAL_WORLD_SIZE"] == "2", applied
        assert applied["MASTER_ADDR"] and int(applied["MASTER_PORT"]) > 0, applied
    assert results[0]["launcher_environment"]["MASTER_PORT"] == \
        results[1]["launcher_environment"]["MASTER_PORT"]


def test_environment_keeps_what_is_set_and_warns_on_failure():
    from strata.torch import _environment
    cluster = {"rank": 1, "world_size": 4, "chief_address": "node7:29500"}
    environ = {"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
               "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "MASTER_PORT": "1234"}
    applied = _environment.apply(environ, resolve=lambda name: cluster)
    assert applied == {"RANK": "1", "WORLD_SIZE": "4", "MASTER_ADDR": "node7",
                       "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2"}
    assert environ["MASTER_PORT"] == "1234"
    assert _environment.apply({"OMPI_COMM_WORLD_SIZE": "4", "RANK": "0"},
                              resolve=lambda name: cluster) == {}
    assert _environment.apply({}, resolve=lambda name: cluster) == {}
    slurm = {"SLURM_PROCID": "1", "SLURM_STEP_ID": "0", "SLURM_LOCALID": "0"}
    asked = []
    applied = _environment.apply(slurm, resolve=lambda name: asked.append(name) or cluster)
    assert asked == ["slurm"] and applied["LOCAL_RANK"] == "0" and applied["RANK"] == "1"
    # A batch script without srun: SLURM_PROCID but no step; left alone.
    assert _environment.apply({"SLURM_PROCID": "0"}, resolve=lambda name: cluster) == {}

    def failing(name):
        raise strata.InvalidArgumentError(f"{name}: SLURM_NTASKS missing")
    with pytest.warns(RuntimeWarning, match="srun, but Strata's 'slurm' resolver failed.*NTASKS"):
        assert _environment.apply({"SLURM_PROCID": "0", "SLURM_STEP_ID": "3"},
                                  resolve=failing) == {}
