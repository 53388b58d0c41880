"""What a user of examples/torch/ sees: the digits example under
OneDeviceStrategy and MirroredStrategy on 4 cpu devices exits 0 and prints
the same final loss and checksum, and strategies_agree.py (what
scripts/distribute-examples.sh ends with) says they agree; it fails, naming
the run, when one run differs."""

import os
import subprocess

import pytest

from conftest import SOURCE_DIR, python

EXAMPLES = os.path.join(SOURCE_DIR, "examples", "torch")


def run_example(*args):
    done = subprocess.run([python(), os.path.join(EXAMPLES, args[0]), *args[1:]],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture(scope="module")
def two_runs():
    return [run_example("distribute_digits.py", "--strategy", "one_device", "--steps", "6"),
            run_example("distribute_digits.py", "--strategy", "mirrored", "--devices", "4",
                        "--steps", "6")]


def figures(out):
    line = next(l for l in out.splitlines() if l.startswith("digits: "))
    words = line.split()
    return {w: float(words[words.index(w) + (2 if w == "final" else 1)])
            for w in ("final", "checksum", "accuracy")}


def test_two_strategies_print_the_same_figures(two_runs):
    one, mirrored = (figures(out) for out in two_runs)
    assert "OneDeviceStrategy 1 replicas" in two_runs[0]
    assert "MirroredStrategy 4 replicas" in two_runs[1]
    for key in ("final", "checksum"):
        assert mirrored[key] == pytest.approx(one[key], abs=1e-5), key
    assert mirrored["accuracy"] == one["accuracy"]


def test_strategies_agree_says_so_and_fails_on_a_difference(two_runs, tmp_path):
    agree = os.path.join(EXAMPLES, "strategies_agree.py")
    prefixed = "".join(f"[worker-0] {l}\n" for l in two_runs[1].splitlines())  # strata launch's
    done = subprocess.run([python(), agree], input=two_runs[0] + prefixed, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.startswith("strategies agree: 2 runs"), done
    line = next(l for l in two_runs[1].splitlines() if l.startswith("digits: "))
    words = line.split()
    at = words.index("checksum") + 1
    words[at] = f"{float(words[at]) + 0.01:.8f}"
    done = subprocess.run([python(), agree], input=two_runs[0] + " ".join(words) + "\n",
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1, done
    assert "strategies DISAGREE" in done.stdout and "MirroredStrategy" in done.stdout, done.stdout
