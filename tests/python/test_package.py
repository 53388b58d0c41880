"""The strata package as a user meets it: version, info(), explain(), and
errors that carry Strata's code and message."""

import json
import os
import re

import pytest

import strata
from conftest import SOURCE_DIR, run_cli


def test_version_is_the_projects():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        version = re.search(r"project\(Strata VERSION (\S+)", f.read()).group(1)
    assert strata.__version__ == version
    assert strata._core.__version__ == version


def test_info_is_what_the_cli_prints():
    cli = json.loads(run_cli("info", "--json"))
    assert strata.info() == cli
    names = [p["name"] for p in strata.info()["plugins"]]
    assert "core" in names and "hierarchical_copy" in names


@pytest.mark.parametrize("args", [
    ("all_reduce", "1MiB", {}),
    ("all_gather", "64KiB", {"dtype": "bf16"}),
    ("reduce", "4KiB", {"redop": "max", "root": 2, "in_place": True}),
    ("barrier", None, {"devices": 2}),
])
def test_explain_is_what_the_cli_prints(args):
    op, size, kw = args
    flags = [op] + ([size] if size else []) + ["--json"]
    for key, value in kw.items():
        flag = "--" + key.replace("_", "-")
        flags += [flag] if value is True else [flag, str(value)]
    cli = json.loads(run_cli("explain", *flags))
    ours = strata.explain(op, size, **kw)
    # hierarchical_copy's estimates come from the memory bandwidth measured
    # when the plugin loads, so they (and the winning estimate quoted in
    # the reason) vary from run to run; everything else is the same.
    assert steady(ours.as_dict()) == steady(cli)
    assert set(ours.as_dict()) == set(cli)
    assert [sorted(c) for c in ours.as_dict()["candidates"]] == [sorted(c) for c in cli["candidates"]]
    text = str(ours)
    assert f"winner: {cli['winner']}" in text and cli["call"] in text


def steady(explanation):
    """An explanation without its measured figures."""
    d = dict(explanation)
    d["reason"] = re.sub(r"\d+(\.\d+)? (us|ms|s)\b", "<time>", d["reason"])
    d["candidates"] = [{k: v for k, v in c.items() if k != "estimate_seconds"}
                       for c in d["candidates"]]
    return d


def test_explain_takes_bytes_as_a_number():
    assert strata.explain("all_reduce", 4096).call == strata.explain("all_reduce", "4KiB").call


def test_a_bad_argument_raises_with_strata_code_and_message():
    with pytest.raises(strata.InvalidArgumentError) as caught:
        strata.explain("all_reduce", "3B")  # not a whole number of f32
    e = caught.value
    assert isinstance(e, ValueError) and isinstance(e, RuntimeError)
    assert isinstance(e, strata.StrataError)
    assert e.code == -2 and e.code_name == "INVALID_ARGUMENT"
    assert "3 B is not a whole number of f32 elements" in e.message
    assert re.search(r"\[\S+\.cc:\d+\]$", e.message), e.message
    assert str(e).startswith("strata: INVALID_ARGUMENT")


def test_an_unknown_op_names_the_known_ones():
    with pytest.raises(strata.InvalidArgumentError, match="all_reduce"):
        strata.explain("all_shuffle", "1KiB")


def test_a_missing_device_is_not_found():
    with pytest.raises(strata.NotFoundError) as caught:
        strata.local(["cpu:999"])
    assert isinstance(caught.value, LookupError)
    assert "cpu:999" in str(caught.value)


def test_the_runtime_does_not_switch_config(tmp_path):
    strata.runtime()  # made with the defaults (ctest sets no STRATA_CONFIG)
    other = tmp_path / "other.yaml"
    other.write_text("strata: 1\n")
    with pytest.raises(strata.FailedPreconditionError, match="initialise once per process"):
        strata.runtime(str(other))


def test_errors_survive_pickling():
    import pickle
    with pytest.raises(strata.StrataError) as caught:
        strata.explain("all_reduce", "3B")
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is strata.InvalidArgumentError
    assert (again.code, again.message, str(again)) == (
        caught.value.code, caught.value.message, str(caught.value))


def test_a_bad_config_raises_invalid_argument_naming_its_line(tmp_path):
    import subprocess
    import sys
    bad = tmp_path / "bad.yaml"
    bad.write_text("strata: 1\ncollectives:\n  implementation: auto\n  no_such_key: 1\n")
    probe = ("import strata\n"
             "try:\n"
             "    strata.info()\n"
             "except strata.InvalidArgumentError as e:\n"
             "    print(e.code, e.code_name, e.message)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, STRATA_CONFIG=str(bad)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("-2 INVALID_ARGUMENT"), done.stdout + done.stderr
    assert re.search(r"bad\.yaml:4:\d+", done.stdout), done.stdout


@pytest.mark.parametrize("given_by", ["argument", "environment"])
def test_a_missing_config_names_what_gave_it(tmp_path, given_by):
    import subprocess
    import sys
    missing = tmp_path / "missing.yaml"
    argument = repr(str(missing)) if given_by == "argument" else "None"
    probe = ("import strata\n"
             "try:\n"
             f"    strata.runtime({argument})\n"
             "except strata.NotFoundError as e:\n"
             "    print(e.message)\n")
    env = dict(os.environ)
    env.pop("STRATA_CONFIG", None)
    if given_by == "environment":
        env["STRATA_CONFIG"] = str(missing)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    origin = "the config argument" if given_by == "argument" else "STRATA_CONFIG"
    assert f"config given by {origin}: config file '{missing}' does not exist" in done.stdout, \
        done.stdout + done.stderr
