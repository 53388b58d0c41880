"""strata.distribute.strategy_from_config: the YAML config's `strategy:`
section builds the strategy C++'s make_strategy_from_config builds, with
core's parsing and core's errors (file:line:column), and the strategies'
collectives start from the config's `collectives:` section.

A process loads one config (core's runtime is made once per process), so
every case runs in a child forked from this test process, which never makes
a runtime itself."""

import multiprocessing
import os
import traceback

import pytest
import torch  # noqa: F401  (imported before the fork, as the children use it)

import strata.distribute as sd
from strata import _core

CHILD_TIMEOUT_S = 60


def _child(conn, fn, config):
    try:
        conn.send(("ok", fn(config)))
    except BaseException as error:  # noqa: BLE001 (the parent re-raises it)
        conn.send(("error", (type(error).__name__, str(error),
                             isinstance(error, NotImplementedError),
                             isinstance(error, ValueError), traceback.format_exc())))
    finally:
        conn.close()


def in_fresh_process(fn, config):
    """fn(config) in a forked child with no runtime yet: its result, or
    ("error", (type name, message, is NotImplementedError, is ValueError, traceback))."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, fn, str(config)))
    process.start()
    child.close()
    try:
        if not parent.poll(CHILD_TIMEOUT_S):
            pytest.fail(f"the child building the strategy of {config} did not answer within "
                        f"{CHILD_TIMEOUT_S} s")
        return parent.recv()
    finally:
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join(5)


def describe(config):
    strategy = sd.strategy_from_config(config)
    out = {"class": type(strategy).__name__, "devices": list(strategy.devices),
           "replicas": strategy.num_replicas_in_sync,
           "is_default": strategy is sd.get_strategy(),
           "meeting_timeout": strategy.meeting_timeout}
    if isinstance(strategy, sd.CentralStorageStrategy):
        out["parameter_device"] = strategy.parameter_device
    if strategy.num_replicas_in_sync > 1:
        # The strategy's collectives work: the sum of 1, 2, ... over the replicas.
        values = sd.PerReplica(tuple(torch.tensor([float(r + 1)])
                                     for r in range(len(strategy.devices))))
        out["sum"] = float(strategy.reduce(sd.ReduceOp.SUM, values, axis=None))
    return out


def write(tmp_path, text, name="strata.yaml"):
    path = tmp_path / name
    path.write_text("strata: 1\ndevices:\n  cpu: {count: 4}\n" + text)
    return path


@pytest.mark.parametrize("section, expected", [
    ("strategy:\n  kind: default\n",
     {"class": "DefaultStrategy", "devices": ["cpu:0"], "is_default": True}),
    ("strategy:\n  kind: one_device\n", {"class": "OneDeviceStrategy", "devices": ["cpu:0"]}),
    ("strategy:\n  kind: one_device\n  devices: [cpu:2]\n",
     {"class": "OneDeviceStrategy", "devices": ["cpu:2"]}),
    ("strategy:\n  kind: mirrored\n  devices: [cpu:0, cpu:1, cpu:3]\n",
     {"class": "MirroredStrategy", "devices": ["cpu:0", "cpu:1", "cpu:3"], "sum": 6.0}),
    # No devices: every cpu device of the runtime, as in C++.
    ("strategy:\n  kind: mirrored\n",
     {"class": "MirroredStrategy", "devices": ["cpu:0", "cpu:1", "cpu:2", "cpu:3"],
      "sum": 10.0}),
    ("strategy:\n  kind: central_storage\n  devices: [cpu:0, cpu:1, cpu:2]\n"
     "  parameter_device: cpu:0\n",
     {"class": "CentralStorageStrategy", "devices": ["cpu:0", "cpu:1", "cpu:2"],
      "parameter_device": "cpu:0", "sum": 6.0}),
    # One process: the auto resolver makes it worker 0 of 1.
    ("strategy:\n  kind: multi_worker_mirrored\n  devices: [cpu:0, cpu:1]\n",
     {"class": "MultiWorkerMirroredStrategy", "devices": ["cpu:0", "cpu:1"], "replicas": 2,
      "sum": 3.0}),
])
def test_each_kind_builds_its_strategy(tmp_path, section, expected):
    status, got = in_fresh_process(describe, write(tmp_path, section))
    assert status == "ok", got
    for key, value in expected.items():
        assert got[key] == value, (key, got)


def describe_collectives(config):
    out = describe(config)
    strategy = sd.strategy_from_config(config)
    out["selection"] = strategy._communicator().explain("all_reduce", dtype="f32", count=1024)
    return out


def test_collectives_section_sets_what_options_leave_unset(tmp_path, monkeypatch):
    config = write(tmp_path, "strategy:\n  kind: mirrored\n  devices: [cpu:0, cpu:1]\n"
                             "collectives:\n  implementation: hierarchical_copy\n  timeout: 7s\n"
                             "  bytes_per_pack: 1KiB\n")
    status, got = in_fresh_process(describe_collectives, config)
    assert status == "ok", got
    assert got["meeting_timeout"] == pytest.approx(7.0)
    assert got["selection"]["reason"] == "chosen by implementation: hierarchical_copy", got
    # None: $STRATA_CONFIG, as strata.runtime() chooses.
    monkeypatch.setenv("STRATA_CONFIG", str(config))
    status, got = in_fresh_process(lambda _: _core.collectives_config(), None)
    assert status == "ok", got
    assert got["timeout"] == pytest.approx(7.0) and got["bytes_per_pack"] == 1024


def test_strategy_config_of_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CONFIG", str(write(
        tmp_path, "strategy:\n  kind: mirrored\n  devices: [cpu:1, cpu:2]\n")))
    status, got = in_fresh_process(lambda _: describe(None), None)
    assert status == "ok", got
    assert got["class"] == "MirroredStrategy" and got["devices"] == ["cpu:1", "cpu:2"]


@pytest.mark.parametrize("kind", ["parameter_server", "tpu"])
def test_kinds_of_cpp_only_are_refused_by_name(tmp_path, kind):
    status, got = in_fresh_process(sd.strategy_from_config,
                                   write(tmp_path, f"strategy:\n  kind: {kind}\n"))
    assert status == "error", got
    name, message, not_implemented, _, _ = got
    assert name == "NotSupportedError" and not_implemented, got
    assert f"strategy.kind {kind}" in message and "from Python use" in message, message


@pytest.mark.parametrize("text, where, says", [
    ("strategy:\n  kind: mirror\n", ":5:9:", "unknown strategy 'mirror'"),
    ("strategy:\n  kind: [mirrored\n", ":6:1:", "end of sequence flow not found"),
    ("strategy:\n  kidn: mirrored\n", ":5:3:", "unknown key 'kidn'"),
])
def test_core_errors_name_line_and_column(tmp_path, text, where, says):
    config = write(tmp_path, text, "bad.yaml")
    status, got = in_fresh_process(sd.strategy_from_config, config)
    assert status == "error", got
    name, message, _, is_value_error, _ = got
    assert name == "InvalidArgumentError" and is_value_error, got
    assert f"bad.yaml{where}" in message and says in message, message


@pytest.mark.parametrize("devices, error, says", [
    ("[cpu:0, cpu:9]", "NotFoundError", "'cpu:9' does not exist"),
    ("[cpu:1, cpu:1]", "InvalidArgumentError", "device cpu:1 is listed twice"),
])
def test_devices_are_checked_as_in_cpp(tmp_path, devices, error, says):
    status, got = in_fresh_process(sd.strategy_from_config, write(
        tmp_path, f"strategy:\n  kind: mirrored\n  devices: {devices}\n"))
    assert status == "error", got
    assert got[0] == error and says in got[1], got



def test_cuda_devices_are_refused_with_what_is_missing(tmp_path):
    status, got = in_fresh_process(sd.strategy_from_config, write(
        tmp_path, "strategy:\n  kind: mirrored\n  devices: [cuda:0, cuda:1]\n"))
    assert status == "error", got
    name, message, not_implemented, _, _ = got
    assert name == "NotSupportedError" and not_implemented, got
    assert "not 'cuda:0'" in message and "not built in Python yet" in message, message


@pytest.mark.parametrize("name, expected", [
    ("mirrored_cpu.yaml", ("MirroredStrategy", ["cpu:0", "cpu:1", "cpu:2", "cpu:3"])),
    ("central_storage_cpu.yaml", ("CentralStorageStrategy", ["cpu:0", "cpu:1", "cpu:2"])),
    ("one_device_cpu.yaml", ("OneDeviceStrategy", ["cpu:0"])),
])
def test_shipped_configs(name, expected):
    config = os.path.join(os.path.dirname(__file__), "..", "..", "configs", name)
    status, got = in_fresh_process(describe, config)
    assert status == "ok", got
    assert (got["class"], got["devices"]) == expected, got
