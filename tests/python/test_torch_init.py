"""The "strata" backend of torch.distributed: registered by importing
strata.torch, formed through torch's env:// store, and giving gloo's
results for all_reduce, broadcast and barrier on 1 and 2 ranks; over
grpc_ring, and over mpi under strata launch."""

import os

import pytest

torch = pytest.importorskip("torch")
import strata  # noqa: E402
from conftest import SCENARIOS, algorithms, grpc_ring_config, launch, python, run_job, strata_cli  # noqa: E402


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
