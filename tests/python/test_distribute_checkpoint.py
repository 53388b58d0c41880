"""strata.distribute.Checkpoint: a run interrupted under MirroredStrategy(3)
and resumed from its checkpoint under OneDevice or CentralStorage(2) ends
with the weights of the run never interrupted (model, momentum and data
position restored); a non-float32 state (BatchNorm's counter, Adam's step)
round-trips; a corrupt or truncated file is refused naming the file (and
the checksums); a writer killed mid-save leaves the previous file whole."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch
import torch.nn.functional as F

import strata.distribute as sd
from strata import _core
from strata._errors import DataLossError
from strata.torch import digits_cnn
from distribute_loops import GLOBAL_BATCH, TOLERANCE, make_global_batches

SAVE_AFTER = 3  # of the 6 steps (the last one a partial batch)


def momentum_sgd(params):
    return torch.optim.SGD(params, lr=0.1, momentum=0.9)


def train(strategy, batches, seed=0, stop_after=None, restore_from=None, save_to=None):
    """The RFC loop with momentum; optionally restores first, or saves and
    stops after `stop_after` steps. Returns replica 0's model and the checkpoint."""
    with strategy.scope():
        model = digits_cnn.make_model(seed=seed)
        optimizer = momentum_sgd(model.parameters())
    dataset = strategy.experimental_distribute_dataset(batches)
    ckpt = sd.Checkpoint(model=model, optimizer=optimizer, data=dataset, step=0)
    if restore_from is not None:
        ckpt.restore(restore_from)

    def step(x, y):
        loss = sd.compute_average_loss(F.cross_entropy(model(x), y, reduction="none"),
                                       global_batch_size=GLOBAL_BATCH)
        optimizer.zero_grad(); loss.backward(); optimizer.step()

    for x, y in dataset:
        strategy.run(step, args=(x, y))
        ckpt.step += 1
        if ckpt.step == stop_after:
            ckpt.save(save_to)
            break
    if restore_from is not None:
        # the state lives where the strategy keeps it: CentralStorage's on replica 0 alone
        stateful = [len(o.state) > 0 for o in strategy.experimental_local_results(optimizer)]
        assert stateful == [True] + [not isinstance(strategy, sd.CentralStorageStrategy)] * (
            len(stateful) - 1), stateful
    return strategy.experimental_local_results(model), ckpt


def max_difference(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))


@pytest.fixture(scope="module")
def batches():
    return make_global_batches()


@pytest.fixture(scope="module")
def uninterrupted(batches):
    (model,), ckpt = train(sd.OneDeviceStrategy(), batches)
    assert ckpt.step == len(batches)
    return model


RESUMERS = {
    "one_device": lambda: sd.OneDeviceStrategy("cpu:0"),
    "central_storage_2": lambda: sd.CentralStorageStrategy(["cpu:0", "cpu:1"]),
}


@pytest.mark.parametrize("name", RESUMERS)
def test_saved_under_mirrored_resumes_under_another_strategy(name, batches, uninterrupted,
                                                             tmp_path):
    path = tmp_path / "mid.ckpt"
    mirrored = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    (stopped, *_), _ = train(mirrored, batches, stop_after=SAVE_AFTER, save_to=path)
    assert max_difference(stopped, uninterrupted) > 1e-3  # half-way is not the end
    # Other initial weights: everything the resumed run ends with comes from the file.
    resumed, ckpt = train(RESUMERS[name](), batches, seed=7, restore_from=path)
    assert ckpt.step == len(batches)
    for r, replica in enumerate(resumed):
        assert max_difference(replica, uninterrupted) < TOLERANCE, (name, r)
    assert os.listdir(tmp_path) == ["mid.ckpt"]  # no temp file left behind


def test_without_the_optimizer_state_the_resumed_run_ends_apart(batches, uninterrupted, tmp_path):
    path = tmp_path / "mid.ckpt"
    train(sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"]), batches, stop_after=SAVE_AFTER,
          save_to=path)
    strategy = sd.OneDeviceStrategy()
    with strategy.scope():
        model = digits_cnn.make_model(seed=7)
        optimizer = momentum_sgd(model.parameters())
    dataset = strategy.experimental_distribute_dataset(batches)
    sd.Checkpoint(model=model, data=dataset).restore(path)  # momentum starts from zero
    def step(x, y):
        optimizer.zero_grad(); F.cross_entropy(model(x), y).backward(); optimizer.step()
    for x, y in dataset:
        strategy.run(step, args=(x, y))
    assert max_difference(model, uninterrupted) > 1e-4


def test_other_dtypes_and_plain_values_round_trip(tmp_path):
    mirrored = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    with mirrored.scope():
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.95))
    x = torch.randn(8, 4)
    def step(x):
        optimizer.zero_grad(); model(x).square().mean().backward(); optimizer.step()
    mirrored.run(step, args=(sd.PerReplica([x[:4], x[4:]]),))
    ckpt = sd.Checkpoint(model=model, optimizer=optimizer, epoch=2, note="warm", lr=0.5)
    ckpt.save(tmp_path / "adam.ckpt")

    with sd.OneDeviceStrategy().scope():
        other = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
        other_optimizer = torch.optim.Adam(other.parameters(), lr=0.5)
    restored = sd.Checkpoint(model=other, optimizer=other_optimizer, epoch=0, note="", lr=0.0)
    restored.restore(tmp_path / "adam.ckpt")
    assert (restored.epoch, restored.note, restored.lr) == (2, "warm", 0.5)
    for (k, a), (_, b) in zip(model.state_dict().items(), other.state_dict().items()):
        assert a.dtype == b.dtype and torch.equal(a, b), k
    assert other.state_dict()["1.num_batches_tracked"].dtype == torch.int64
    saved, loaded = optimizer.state_dict(), other_optimizer.state_dict()
    assert loaded["param_groups"] == saved["param_groups"]  # betas a tuple again, lr 0.01
    for index, state in saved["state"].items():
        for key, value in state.items():
            assert torch.equal(loaded["state"][index][key], value), (index, key)


def test_a_value_float32_cannot_hold_is_refused_naming_it(tmp_path):
    model = torch.nn.Linear(2, 2)
    model.register_buffer("big", torch.tensor([2**40 + 1], dtype=torch.int64))
    with pytest.raises(ValueError, match="'model/big' of dtype torch.int64 holds values float32"):
        sd.Checkpoint(model=model).save(tmp_path / "big.ckpt")
    assert not os.listdir(tmp_path)


def written(tmp_path):
    path = tmp_path / "whole.ckpt"
    sd.Checkpoint(model=digits_cnn.make_model(seed=0), step=5).save(path)
    return path


def test_a_flipped_byte_is_refused_naming_the_file_and_checksums(tmp_path):
    path = written(tmp_path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match=rf"checkpoint '{path}': checksum mismatch: file is "
                       r"corrupt \(expected 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\)"):
        sd.Checkpoint(model=digits_cnn.make_model(seed=1)).restore(path)


def test_a_truncated_file_is_refused_naming_it(tmp_path):
    path = written(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 100])
    model = digits_cnn.make_model(seed=1)
    before = [p.clone() for p in model.parameters()]
    with pytest.raises(DataLossError, match=rf"checkpoint '{path}': length mismatch.*\(truncated\)"):
        sd.Checkpoint(model=model).restore(path)
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), before))  # untouched


def test_a_missing_object_is_named(tmp_path):
    path = written(tmp_path)
    with pytest.raises(KeyError, match="holds no 'optimizer'; it holds model, step"):
        sd.Checkpoint(model=digits_cnn.make_model(seed=1), optimizer=torch.optim.SGD(
            digits_cnn.make_model(seed=1).parameters(), lr=0.1)).restore(path)


WRITER = textwrap.dedent("""
    import sys, torch
    import strata.distribute as sd
    state = torch.nn.Module()
    state.register_buffer("values", torch.full((16 << 20,), 2.0))  # 64 MiB a save
    ckpt = sd.Checkpoint(state=state)
    print("writing", flush=True)
    while True:
        ckpt.save(sys.argv[1])
""")


def test_a_writer_killed_mid_save_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "state.ckpt"
    state = torch.nn.Module()
    state.register_buffer("values", torch.full((16,), 1.0))
    sd.Checkpoint(state=state).save(path)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        # Kill it while a temp file is being written (the first one appears at once).
        deadline = time.monotonic() + 30
        while not any(".tmp-" in n for n in os.listdir(tmp_path)):
            assert time.monotonic() < deadline, "the writer never started a save"
            time.sleep(0.005)
        time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    names = os.listdir(tmp_path)
    assert any(".tmp-" in n for n in names), names  # it died inside a save
    # The file is the old one or a whole new one, never a prefix.
    values = torch.from_numpy(_core.read_checkpoint(str(path))["tensors"]["state/values"])
    assert values.numel() in (16, 16 << 20) and bool((values == values[0]).all())


def test_checkpoint_manager_keeps_the_newest_and_skips_a_damaged_one(batches, tmp_path):
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    with strategy.scope():
        model = digits_cnn.make_model(seed=0)
        optimizer = momentum_sgd(model.parameters())
    dataset = strategy.experimental_distribute_dataset(batches)
    ckpt = sd.Checkpoint(model=model, optimizer=optimizer, data=dataset, step=0)
    manager = sd.CheckpointManager(ckpt, tmp_path, max_to_keep=2)
    assert manager.restore_or_initialize() is None and manager.latest_checkpoint is None

    def step(x, y):
        optimizer.zero_grad(); F.cross_entropy(model(x), y, reduction="sum").div(
            GLOBAL_BATCH).backward(); optimizer.step()
    weights = {}
    for x, y in dataset:
        strategy.run(step, args=(x, y))
        ckpt.step += 1
        weights[ckpt.step] = [p.detach().clone() for p in model.parameters()]
        manager.save()
        if ckpt.step == 3:
            break
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-2.strata", "ckpt-3.strata"]
    assert manager.latest_checkpoint == str(tmp_path / "ckpt-3.strata")
    newest = tmp_path / "ckpt-3.strata"
    data = bytearray(newest.read_bytes())
    data[100] ^= 1
    newest.write_bytes(bytes(data))

    with sd.OneDeviceStrategy().scope():
        other = digits_cnn.make_model(seed=7)
        other_optimizer = momentum_sgd(other.parameters())
    other_dataset = sd.OneDeviceStrategy().experimental_distribute_dataset(batches)
    resumed = sd.Checkpoint(model=other, optimizer=other_optimizer, data=other_dataset, step=0)
    path = sd.CheckpointManager(resumed, tmp_path).restore_or_initialize()
    assert path == str(tmp_path / "ckpt-2.strata") and resumed.step == 2  # 3 is damaged
    assert all(torch.equal(p, q) for p, q in zip(other.parameters(), weights[2]))
    assert other_dataset.state_dict()["batches"] == 2  # a save before iterating keeps it
    assert len(list(other_dataset)) == len(batches) - 2
    with pytest.raises(ValueError, match="needs a checkpoint_number"):
        sd.CheckpointManager(sd.Checkpoint(model=other), tmp_path).save()
    assert sd.CheckpointManager(sd.Checkpoint(model=other), tmp_path).save(9).endswith(
        "ckpt-9.strata")
