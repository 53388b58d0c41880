"""The "strata" backend's all_reduce_coalesced, reduce, all_gather (list
and into_tensor) and reduce_scatter (list and tensor) give gloo's results
bit for bit (scenarios/torch_ops.py) on 1 rank, on 2 and 3 ranks over
grpc_ring, and on 2 ranks over mpi under strata launch."""

import os

import pytest

pytest.importorskip("torch")
from conftest import SCENARIOS, algorithms, grpc_ring_config, launch, python, run_job, strata_cli  # noqa: E402


# 4 dtypes x 2 layouts x 4 counts, each with the gathers (one per rank,
# into chunks, into_tensor) + 5 ops x (3 coalesced + one reduce per root +
# 2 scatters): the cases one rank checks.
def expected_cases(world):
    return 4 * 2 * 4 * (world + 2 + 5 * (3 + world + 2))


def check(results, world):
    assert sorted(results) == list(range(world))
    for rank, r in results.items():
        assert r["world"] == world
        assert r["mismatches"] == [], (rank, len(r["mismatches"]), r["mismatches"][:5])
        assert r["cases"] == expected_cases(world), (rank, r["cases"])
        assert r["async_all_gather"] == [True, True], r["async_all_gather"]
        assert r["async_reduce_scatter"] == [True, True], r["async_reduce_scatter"]
        name, text = r["bad_shape_error"]
        assert name == "InvalidArgumentError", r["bad_shape_error"]
        assert "all_gather_into_tensor" in text and f"{world * 4 + 1} elements, not {world * 4}" \
            in text, text
        name, text = r["bad_list_error"]
        assert name == "InvalidArgumentError", r["bad_list_error"]
        assert f"all_gather takes a list of {world} output tensors" in text and \
            f"not {world + 1}" in text, text
        name, text = r["int8_error"]
        assert name == "NotSupportedError", r["int8_error"]
        assert "reduce_scatter_tensor of torch.int8" in text, text


def test_one_rank(tmp_path):
    results, _ = launch(1, "torch_ops.py", tmp_path)
    check(results, 1)


# 3 ranks: a ring that is not a power of two, AVG that divides inexactly.
@pytest.mark.parametrize("world", [2, 3])
def test_over_grpc_ring(tmp_path, world):
    if "grpc_ring/all_reduce/ring" not in algorithms("cross_process"):
        pytest.skip("the grpc_ring plugin is not loaded")
    results, _ = launch(world, "torch_ops.py", tmp_path,
                        env={"STRATA_CONFIG": grpc_ring_config(tmp_path)})
    check(results, world)


def test_two_ranks_over_mpi_under_strata_launch(tmp_path):
    if not any(a.startswith("mpi/") for a in algorithms("cross_process")):
        pytest.skip("the mpi plugin is not loaded")
    config = tmp_path / "mpi.yaml"  # mpi or nothing: a decline fails the calls
    config.write_text("strata: 1\ncollectives:\n  implementation: mpi\n")
    results, _ = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "120s", "--config",
                          str(config), "--", python(), os.path.join(SCENARIOS, "torch_ops.py")],
                         tmp_path, timeout=150)
    check(results, 2)
