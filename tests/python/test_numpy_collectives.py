"""Collectives on numpy arrays: every op and dtype against numpy on a team
of 4 local devices, results in the caller's own arrays, clear refusals, and
a job of 2 processes under `strata launch` through strata.join()."""

import os

import numpy as np
import pytest

import strata
from conftest import SCENARIOS, algorithms, python, run_job, strata_cli

N = 4
COUNTS = [0, 1, 7, 1023, 65537]
DTYPES = ["f32", "f64", "f16", "bf16", "i32", "i64", "u8"]
NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.float32,
         "i32": np.int32, "i64": np.int64, "u8": np.uint8}


@pytest.fixture(scope="module")
def comm():
    return strata.local([f"cpu:{i}" for i in range(N)])


def values(dtype, count, replica):
    """Small whole numbers (1..3): every sum, product and mean of 4 of them
    is exact in every dtype, so results compare bit for bit."""
    v = ((np.arange(count) * 7 + replica * 3) % 3 + 1).astype(NUMPY[dtype])
    return to_bf16(v) if dtype == "bf16" else v


def to_bf16(a):
    return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def from_bf16(a):
    return (a.astype(np.uint32) << 16).view(np.float32)


def plain(dtype, a):
    return from_bf16(a) if dtype == "bf16" else a


def expected_reduction(dtype, arrays, op):
    stack = np.stack([plain(dtype, a).astype(np.float64) for a in arrays])
    r = {"sum": stack.sum(0), "prod": stack.prod(0), "min": stack.min(0),
         "max": stack.max(0), "mean": stack.sum(0) / len(arrays)}[op]
    if dtype in ("i32", "i64", "u8"):
        r = np.trunc(r)
    return r


def kw(dtype):
    return {"dtype": "bf16"} if dtype == "bf16" else {}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
def test_all_reduce(comm, dtype, op):
    for count in COUNTS:
        arrays = [values(dtype, count, r) for r in range(N)]
        want = expected_reduction(dtype, arrays, op)
        out = [np.empty_like(a) for a in arrays]
        comm.all_reduce(arrays, op=op, out=out, **kw(dtype))
        comm.all_reduce(arrays, op=op, **kw(dtype))  # in place
        for r in range(N):
            assert np.array_equal(plain(dtype, out[r]), want), (count, r)
            assert np.array_equal(plain(dtype, arrays[r]), want), (count, r)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_reduce_gather_scatter(comm, dtype):
    for count in COUNTS:
        arrays = [values(dtype, count, r) for r in range(N)]
        root = count % N
        got = [np.zeros_like(a) for a in arrays]
        comm.broadcast(arrays, root=root, out=got, **kw(dtype))
        assert all(np.array_equal(g, arrays[root]) for g in got)

        got = [np.zeros_like(a) for a in arrays]
        comm.reduce(arrays, root=root, op="max", out=got, **kw(dtype))
        assert np.array_equal(plain(dtype, got[root]), expected_reduction(dtype, arrays, "max"))

        gathered = [np.zeros(N * count, dtype=arrays[0].dtype) for _ in range(N)]
        comm.all_gather(arrays, out=gathered, **kw(dtype))
        assert all(np.array_equal(g, np.concatenate(arrays)) for g in gathered)

        big = [values(dtype, N * count, r) for r in range(N)]
        parts = [np.zeros(count, dtype=arrays[0].dtype) for _ in range(N)]
        comm.reduce_scatter(big, out=parts, op="sum", **kw(dtype))
        total = expected_reduction(dtype, big, "sum")
        for r in range(N):
            assert np.array_equal(plain(dtype, parts[r]), total[r * count:(r + 1) * count])


def test_batch_all_reduce_and_barrier(comm):
    per_replica = [[np.full(5, r + 1, np.float32), np.full(3, r, np.int64)] for r in range(N)]
    comm.batch_all_reduce(per_replica, op="sum")
    for tensors in per_replica:
        assert (tensors[0] == 10).all() and (tensors[1] == 6).all()
    comm.barrier(timeout=10)


def test_results_land_in_the_callers_arrays(comm):
    arrays = [np.ones(1024, np.float32) for _ in range(N)]
    before = [a.ctypes.data for a in arrays]
    returned = comm.all_reduce(arrays)
    assert returned is arrays
    assert [a.ctypes.data for a in arrays] == before
    assert all((a == N).all() for a in arrays)
    view = np.ones((N, 256), np.float32)  # rows of one array are fine too
    comm.all_reduce(list(view))
    assert (view == N).all()


def test_refusals_name_the_problem(comm):
    good = [np.ones(8, np.float32) for _ in range(N)]
    strided = [np.ones(16, np.float32)[::2] for _ in range(N)]
    with pytest.raises(strata.InvalidArgumentError, match=r"not C-contiguous.*ascontiguousarray"):
        comm.all_reduce(strided)
    frozen = [a.copy() for a in good]
    frozen[2].setflags(write=False)
    with pytest.raises(strata.InvalidArgumentError, match=r"arrays\[2\] is read-only"):
        comm.all_reduce(frozen)
    comm.all_reduce(frozen, out=[a.copy() for a in good])  # read-only inputs are fine
    with pytest.raises(strata.InvalidArgumentError, match="one array per local device"):
        comm.all_reduce(good[:3])
    with pytest.raises(strata.InvalidArgumentError, match="format 'b'"):
        comm.all_reduce([np.ones(8, np.int8) for _ in range(N)])
    with pytest.raises(strata.InvalidArgumentError, match="not an array"):
        comm.all_reduce([1, 2, 3, 4])
    with pytest.raises(strata.InvalidArgumentError):  # core's own check: counts differ
        comm.all_reduce(good[:3] + [np.ones(9, np.float32)])


def test_closed_communicator_refuses():
    c = strata.local(["cpu:0", "cpu:1"])
    assert c.devices == ["cpu:0", "cpu:1"] and c.replica_count == 2
    c.close()
    with pytest.raises(strata.FailedPreconditionError, match="was closed"):
        c.barrier()


def test_join_two_processes_under_strata_launch(tmp_path):
    if not algorithms("cross_process"):
        pytest.skip("no cross-process algorithm is loaded (no mpi or grpc_ring plugin)")
    results, out = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "90s", "--",
                            python(), os.path.join(SCENARIOS, "join_all_reduce.py")], tmp_path)
    assert sorted(results) == [0, 1], out
    for rank, r in results.items():
        assert r["world"] == 2 and r["rank"] == rank
        for key in ("sum_ok", "max_ok", "broadcast_ok", "gather_ok"):
            assert r[key], (rank, key, out)
    assert results[0]["explain_winner"] == results[1]["explain_winner"]
