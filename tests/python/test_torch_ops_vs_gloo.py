"""Every op of the "strata" backend gives torch's gloo results bit for bit
(scenarios/torch_ops.py: 7 dtypes, contiguous and strided, counts 0 to
1000, every root, subgroups) on 1 rank, on 2, 3 and 4 ranks over
grpc_ring, and on 2 ranks over mpi under strata launch. One launch per
world size runs all the cases."""

import os

import pytest

pytest.importorskip("torch")
from conftest import SCENARIOS, algorithms, grpc_ring_config, launch, python, run_job, strata_cli  # noqa: E402

DTYPES = 7
SHAPES = [(0, False), (1, False), (7, True), (1000, False)]  # as torch_ops.py
FEW_SHAPES = [(0, False), (7, True), (1000, False)]  # its --few-shapes
REDUCE_OPS = 5


def expected_cases(world, rank, dtypes=DTYPES, shapes=SHAPES):
    """How many comparisons each op makes on `rank`: what the scenario
    must have run (a case skipped by mistake fails the count)."""
    roots = len({0, world - 1})
    per_shape = {"all_gather": world, "all_gather_chunks": 1, "all_gather_into_tensor": 1,
                 "broadcast": roots, "scatter": roots, "all_to_all_single": 1,
                 "all_reduce": REDUCE_OPS, "all_reduce_coalesced": 3 * REDUCE_OPS,
                 "reduce": roots * REDUCE_OPS, "reduce_scatter": REDUCE_OPS,
                 "reduce_scatter_tensor": REDUCE_OPS}
    if rank in {0, world - 1}:
        per_shape["gather"] = world
    cases = {}
    for count, _ in shapes:
        for op, n in per_shape.items():
            cases[op] = cases.get(op, 0) + dtypes * n
        if count:
            cases["all_to_all_single_splits"] = cases.get("all_to_all_single_splits", 0) + dtypes
            cases["all_to_all"] = cases.get("all_to_all", 0) + dtypes * world
    return cases


def subgroup_cases(world, rank):
    """The subgroup cases of `rank` (3 dtypes, 2 shapes, per group it is in)."""
    total = {}
    groups = [[0, 2], [1, 2], [0, 2]] if world == 3 else []
    for ranks in groups:
        if rank in ranks:
            for op, n in expected_cases(len(ranks), ranks.index(rank), 3,
                                        [(1, False), (7, True)]).items():
                total[op] = total.get(op, 0) + n
    return total


def check(results, world, shapes=SHAPES):
    assert sorted(results) == list(range(world))
    for rank, r in results.items():
        assert r["world"] == world
        assert r["mismatches"] == [], (rank, len(r["mismatches"]), r["mismatches"][:5])
        want = expected_cases(world, rank, shapes=shapes)
        for op, n in subgroup_cases(world, rank).items():
            want[op] = want.get(op, 0) + n
        assert r["cases"] == want, (rank, r["cases"], want)
        if world == 3:
            names = [n for n, _ in r.get("subgroups", [])]
            assert names == (["first", "second", "first again"] if rank == 2 else
                             ["first", "first again"] if rank == 0 else ["second"]), names
        assert r["async_all_gather"] == [True, True], r["async_all_gather"]
        errors = r["errors"]

        def refused(key, kind, *words):
            name, text = errors[key] or (None, "no error")
            assert name == kind, (key, errors[key])
            for w in words:
                assert w in text, (key, w, text)

        refused("bad_shape", "InvalidArgumentError", "all_gather_into_tensor",
                f"{world * 4 + 1} elements, not {world * 4}")
        refused("bad_list", "InvalidArgumentError",
                f"all_gather takes a list of {world} output tensors", f"not {world + 1}")
        refused("int8_reduce_scatter", "NotSupportedError", "strata backend",
                "reduce_scatter_tensor of torch.int8")
        refused("int8_all_reduce", "NotSupportedError", "strata backend", "all_reduce of torch.int8")
        refused("band", "NotSupportedError", "strata backend", "ReduceOp.BAND")
        refused("send", "NotSupportedError", "strata backend", "send is not supported",
                "point-to-point")
        refused("recv", "NotSupportedError", "strata backend", "recv is not supported")
        if world > 1:
            refused("uneven_all_to_all", "InvalidArgumentError", "all_to_all_single",
                    f"({world * 2 + 1}) does not split into {world} equal blocks")
            refused("crossed_splits", "InvalidArgumentError", "all_to_all_single: rank 0 sends "
                    "12 bytes to rank 0, which expects 0 bytes from it")
        assert r["other_dtypes"] == [[True, True, True],
                                     [world - 1, -(world - 1)]], r["other_dtypes"]


def test_one_rank(tmp_path):
    results, _ = launch(1, "torch_ops.py", tmp_path)
    check(results, 1)


# 3 ranks: a ring that is not a power of two, AVG that divides inexactly,
# and subgroups.
@pytest.mark.parametrize("world", [2, 3, 4])
def test_over_grpc_ring(tmp_path, world):
    if "grpc_ring/all_reduce/ring" not in algorithms("cross_process"):
        pytest.skip("the grpc_ring plugin is not loaded")
    results, _ = launch(world, "torch_ops.py", tmp_path, timeout=180,
                        env={"STRATA_CONFIG": grpc_ring_config(tmp_path)})
    check(results, world)


def test_two_ranks_over_mpi_under_strata_launch(tmp_path):
    if not any(a.startswith("mpi/") for a in algorithms("cross_process")):
        pytest.skip("the mpi plugin is not loaded")
    config = tmp_path / "mpi.yaml"  # mpi or nothing: a decline fails the calls
    config.write_text("strata: 1\ncollectives:\n  implementation: mpi\n")
    results, _ = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "150s", "--config",
                          str(config), "--", python(), os.path.join(SCENARIOS, "torch_ops.py"),
                          "--few-shapes"], tmp_path, timeout=180)
    check(results, 2, FEW_SHAPES)
