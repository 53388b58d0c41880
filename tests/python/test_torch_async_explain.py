"""async_op=True never blocks the Python thread, and wait(),
is_completed() and get_future() behave as torch documents; and
strata.torch.explain says which algorithm serves a torch call and why
(scenarios/torch_async_explain.py): 2 ranks over grpc_ring, and 1 rank."""

import pytest

pytest.importorskip("torch")
from conftest import algorithms, grpc_ring_config, launch  # noqa: E402


def check_explain(r, world):
    e = r["explain"]
    for key in ("all_reduce_before", "all_reduce", "gather", "reduce", "scatter"):
        got = e[key]
        assert got["winner"] and got["reason"], (key, got)
        assert got["verdicts"].get(got["winner"]) == "selected", (key, got)
        assert f"{world} process(es)" in got["team"], (key, got["team"])
        assert f"winner: {got['winner']}" in got["text"], (key, got["text"])
    assert e["all_reduce"]["call"].startswith("torch all_reduce of torch.float32[1024] runs as "
                                              "all_reduce of 4 KiB"), e["all_reduce"]["call"]
    assert "runs as all_gather" in e["gather"]["call"] and \
        "the root keeps the result" in e["gather"]["call"], e["gather"]["call"]
    assert "runs as broadcast" in e["scatter"]["call"] and \
        f"{world * 80} B" in e["scatter"]["call"], e["scatter"]["call"]
    name, text = e["send_error"]
    assert name == "InvalidArgumentError" and "unknown op \"send\"" in text, e["send_error"]
    return e


def check_unwaited(results):
    # The group's thread looks at least every 4 ms while calls come
    # (work_queue.cc); 1 s leaves room for a loaded machine.
    for r in results.values():
        u = r["unwaited"]
        assert u["value_ok"] and u["seen_s"] < 1.0, (r["rank"], u)


def test_one_rank(tmp_path):
    results, _ = launch(1, "torch_async_explain.py", tmp_path)
    a = results[0]["async"]
    assert a["completed"] and a["value_ok"] and a["future_ok"] and a["then_ok"], a
    check_unwaited(results)
    check_explain(results[0], 1)


def test_two_ranks_over_grpc_ring(tmp_path):
    if "grpc_ring/all_reduce/ring" not in algorithms("cross_process"):
        pytest.skip("the grpc_ring plugin is not loaded")
    results, _ = launch(2, "torch_async_explain.py", tmp_path,
                        env={"STRATA_CONFIG": grpc_ring_config(tmp_path)})
    a = results[0]["async"]
    # Rank 1 entered 1 s late: rank 0's call returned at once, incomplete,
    # and its Python thread kept running while wait() waited for rank 1.
    assert a["returned_s"] < 0.2, a
    assert a["completed_at_return"] is False, a
    assert a["waited_s"] > 0.5, a
    assert a["counted_during_wait"] > 50, a
    assert a["completed"] and a["value_ok"] and a["future_ok"] and a["then_ok"], a
    assert results[1]["async"]["value_ok"], results[1]["async"]
    check_unwaited(results)
    for rank in (0, 1):
        e = check_explain(results[rank], 2)
        assert e["all_reduce"]["winner"].startswith("grpc_ring/"), e["all_reduce"]
        # grpc_ring has no reduce: an all_reduce serves it, and explain says so.
        assert "no loaded plugin has reduce" in e["reduce"]["call"], e["reduce"]["call"]
        assert e["subgroup"]["winner"].startswith("grpc_ring/"), e["subgroup"]
        assert "of 2 process(es)" in e["subgroup"]["team"], e["subgroup"]["team"]
