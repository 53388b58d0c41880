"""python3 -m strata.distribute.bench, small: 2 processes under strata
launch, one round of one step; its two tables and its CSV have their
columns and rows with sane figures, and every side reaches the same loss
(the same math). No timing is asserted."""

import csv

import pytest

torch = pytest.importorskip("torch")
from conftest import algorithms, python, run_job, strata_cli  # noqa: E402

SIDES = ["ddp", "ddp_again", "multi_worker", "multi_worker_reduce_last", "mirrored"]
MACHINERY = ["plain_step", "run_noop", "all_reduce", "mirrored_step"]


def test_two_processes_print_both_tables_and_write_csv(tmp_path):
    if not algorithms("cross_process"):
        pytest.skip("no cross-process algorithm is loaded (no mpi or grpc_ring plugin)")
    out_csv = tmp_path / "bench.csv"
    _, out = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "120s", "--",
                      python(), "-m", "strata.distribute.bench", "--steps", "1", "--rounds", "1",
                      "--tiny-iterations", "3", "--csv", str(out_csv)], tmp_path, timeout=150)
    # strata launch prefixes each line with [worker-<rank>]
    lines = [line.split()[1:] for line in out.splitlines() if line.startswith("[worker-0]")]
    header = lines.index(["side", "processes", "replicas", "ms_per_step", "ratio_to_ddp",
                          "last_loss"])
    table = {cols[0]: cols for cols in lines[header + 1:header + 1 + len(SIDES)]}
    assert sorted(table) == sorted(SIDES), out
    assert table["mirrored"][1:3] == ["1", "2"] and table["multi_worker"][1:3] == ["2", "2"]
    machinery = lines.index(["what", "replicas", "us_per_step"])
    rows = {cols[0]: float(cols[2]) for cols in lines[machinery + 1:machinery + 1 + 4]}
    assert sorted(rows) == sorted(MACHINERY), out
    assert all(v > 0 for v in rows.values()), rows

    with open(out_csv, newline="") as f:
        written = {r["side"]: r for r in csv.DictReader(f)}
    assert sorted(written) == sorted(SIDES)
    losses = [float(r["last_loss"]) for r in written.values()]
    assert max(losses) - min(losses) < 1e-4, written  # the same steps on the same data
    for r in written.values():
        assert float(r["ms_per_step"]) > 0 and float(r["ratio_to_ddp"]) > 0, r
    assert float(written["ddp"]["ratio_to_ddp"]) == pytest.approx(1.0)
