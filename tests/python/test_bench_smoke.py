"""python3 -m strata.torch.bench, small: 2 ranks under strata launch, a few
sizes, one round; the table, the CSV and the PNG it writes hold sane
figures. And the targets' verdicts on made-up rows."""

import csv

import pytest

torch = pytest.importorskip("torch")
from conftest import python, run_job, strata_cli  # noqa: E402

SIZES = [8, 512, 32768]  # --sizes 8B:32KiB --factor 64


def test_two_ranks_write_csv_and_png(tmp_path):
    out_csv, out_png = tmp_path / "bench.csv", tmp_path / "bench.png"
    _, out = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "120s", "--",
                      python(), "-m", "strata.torch.bench", "--sizes", "8B:32KiB",
                      "--factor", "64", "--rounds", "1", "--min-time", "0.01",
                      "--csv", str(out_csv), "--plot", str(out_png)],
                     tmp_path, timeout=150)
    assert "2 ranks under strata launch" in out, out
    # strata launch prefixes each line with [worker-<rank>]
    table = [line.split()[1:] for line in out.splitlines() if line.startswith("[worker-0]")]
    for size in ("8B", "512B", "32KiB"):
        assert any(cols[:1] == [size] and cols[-1] == "0" for cols in table), (size, out)
    assert "# target strata >= gloo at every size:" in out, out

    with open(out_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["bytes"]) for r in rows] == SIZES
    for r in rows:
        assert int(r["world"]) == 2
        for side in ("strata", "gloo"):
            us = float(r[f"{side}_us"])
            assert 0 < us < 1e6, (side, r)
            assert int(r[f"{side}_wrong"]) == 0, (side, r)
            assert int(r[f"{side}_iterations"]) >= 1
            # nccl-tests: algbw = bytes / time, busbw = algbw * 2(n-1)/n = algbw at n=2
            algbw = float(r[f"{side}_algbw_gbs"])
            assert algbw == pytest.approx(int(r["bytes"]) / us / 1e3, rel=1e-3)
            assert float(r[f"{side}_busbw_gbs"]) == pytest.approx(algbw, rel=1e-3)
        # one round: the ratio is that round's gloo time over strata's
        assert float(r["ratio"]) == pytest.approx(
            float(r["gloo_us"]) / float(r["strata_us"]), rel=1e-2)

    png = out_png.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000


def _row(nbytes, strata_us, gloo_us):
    from strata.torch._bench_sweep import Row
    return Row(nbytes=nbytes, iterations={"strata": 1, "gloo": 1},
               seconds={"strata": strata_us * 1e-6, "gloo": gloo_us * 1e-6},
               wrong={"strata": 0, "gloo": 0}, ratio=gloo_us / strata_us)


def test_targets_name_the_worst_size():
    from strata.torch._bench_report import targets
    rows = [_row(1 << 10, 10, 2000), _row(64 << 10, 40, 2000), _row(1 << 20, 300, 2000),
            _row(16 << 20, 6000, 12000)]
    plugin = {1 << 10: (1.0, 5.0), 64 << 10: (10.0, 24.0), 1 << 20: (100.0, 200.0),
              16 << 20: (5000.0, 5000.0)}
    verdicts = {text: (holds, detail) for text, holds, detail in
                targets(rows, 2, "mpirun", plugin)}
    assert verdicts["strata >= 10x gloo busbw, 1KiB-1MiB"] == (False, "worst 6.67x at 1MiB")
    assert verdicts["strata >= 1.5x gloo busbw from 16MiB"] == (True, "worst 2.00x at 16MiB")
    assert verdicts["strata >= 0.9x mpi plugin busbw from 1MiB"] == (False, "worst 0.67x at 1MiB")
    assert verdicts["strata >= 0.5x mpi plugin busbw at 64KiB"] == (True, "worst 0.60x at 64KiB")
    assert targets(rows, 2, "torchrun", None) == [
        ("strata >= gloo at every size", True, "worst 2.00x at 16MiB")]


def test_the_plugin_comparison_sets_best_round_against_best_round():
    # strata-mpi-bench keeps each side's best round; the torch side's median
    # would set a loaded round against the plugin's luckiest one.
    from strata.torch._bench_report import targets
    row = _row(1 << 20, 300, 2000)
    row.best = {"strata": 180e-6, "gloo": 1900e-6}
    verdicts = {text: (holds, detail) for text, holds, detail in
                targets([row], 2, "mpirun", {1 << 20: (100.0, 200.0)})}
    assert verdicts["strata >= 0.9x mpi plugin busbw from 1MiB"] == (True, "worst 1.11x at 1MiB")
    assert verdicts["strata >= 10x gloo busbw, 1KiB-1MiB"] == (False, "worst 6.67x at 1MiB"), \
        "the gloo ratio stays the median of the rounds' ratios"


def test_sides_are_checked():
    from strata.torch.bench import parse_args
    assert parse_args(["--sides", "gloo"]).side_names == ["gloo"]
    with pytest.raises(SystemExit):
        parse_args(["--sides", "gloo,nccl"])
    with pytest.raises(SystemExit):
        parse_args(["--sides", "gloo,gloo"])
