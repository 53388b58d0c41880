"""MultiWorkerMirroredStrategy (strata launch, 2 workers x 2 cpu devices)
with the state that spans workers (scenarios/distribute_state.py):
auto-shard policies AUTO/DATA keep a worker's replicas' slices and OFF the
whole batch; the RFC loop under OFF and on distribute_datasets_from_function
ends with the weights of one plain torch loop; metrics give the whole
batch's result on every worker; a checkpoint written under
MirroredStrategy(3) mid-run resumes on every worker to the uninterrupted
weights, and the chief alone writes the final one, which restores under
OneDeviceStrategy."""

import os

import pytest
import torch
import torch.nn.functional as F

import strata.distribute as sd
from conftest import SCENARIOS, algorithms, python, run_job, strata_cli
from distribute_loops import TOLERANCE, make_global_batches
from strata.torch import digits_cnn

STOP_AFTER = 3


def momentum_loop(batches, stop_after=None, save_to=None):
    """One plain torch loop (stop_after None), or MirroredStrategy(3)
    stopped and saved after `stop_after` steps."""
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"]) if stop_after else \
        sd.OneDeviceStrategy()
    with strategy.scope():
        model = digits_cnn.make_model(seed=0)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    dataset = strategy.experimental_distribute_dataset(batches)
    ckpt = sd.Checkpoint(model=model, optimizer=optimizer, data=dataset, step=0)
    logits_seen, labels_seen = [], []

    def step(x, y):
        logits = model(x)
        loss = sd.compute_average_loss(F.cross_entropy(logits, y, reduction="none"))
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        return logits.detach()

    for x, y in dataset:
        logits_seen.append(torch.cat(strategy.experimental_local_results(
            strategy.run(step, args=(x, y)))))
        labels_seen.append(torch.cat(y.values))
        ckpt.step += 1
        if ckpt.step == stop_after:
            ckpt.save(save_to)
            return None
    logits, labels = torch.cat(logits_seen), torch.cat(labels_seen)
    accuracy = (logits.argmax(-1) == labels).double().mean().item()
    loss = F.cross_entropy(logits.double(), labels).item()
    return [p.detach().flatten() for p in model.parameters()], accuracy, loss


def assert_weights(weights, expected, what):
    for replica, tensors in enumerate(weights):
        difference = max((torch.tensor(w) - e).abs().max().item()
                         for w, e in zip(tensors, expected))
        assert difference < TOLERANCE, (what, replica, difference)


def test_multi_worker_input_metrics_and_checkpoints(tmp_path):
    if not algorithms("cross_process"):
        pytest.skip("no cross-process algorithm is loaded (no mpi or grpc_ring plugin)")
    batches = make_global_batches()
    expected, accuracy, loss = momentum_loop(batches)
    os.mkdir(tmp_path / "in")
    checkpoint = tmp_path / "in" / "mid.ckpt"
    momentum_loop(batches, stop_after=STOP_AFTER, save_to=checkpoint)
    out = tmp_path / "out"
    os.mkdir(out)
    results, log = run_job([strata_cli(), "launch", "-n", "2", "--timeout", "90s", "--",
                            python(), os.path.join(SCENARIOS, "distribute_state.py")], out,
                           env={"STRATA_TEST_CHECKPOINT": str(checkpoint)})
    assert sorted(results) == [0, 1], log
    rows = [len(y) for _, y in batches]  # 64 x 5, then 43: 11 11 11 10 over 4 replicas
    for rank, r in results.items():
        # AUTO and DATA: replicas 2 * rank and 2 * rank + 1 of 4; the batch's rows
        mine = [[[16, 16], 64]] * 5 + [[[11, 11] if rank == 0 else [11, 10], 43]]
        assert r["auto"] == r["data"] == mine, rank
        # OFF: this worker's 2 replicas split the whole batch; every worker holds it
        assert r["off"] == [[[32, 32], 128]] * 5 + [[[22, 21], 86]], rank
        assert r["context"] == [2, rank, 4]
        for run in ("off_run", "from_function_run"):
            weights, run_accuracy, run_loss, steps = r[run]
            assert_weights(weights, expected, (rank, run))
            assert steps == len(rows)
            assert run_accuracy == pytest.approx(accuracy, abs=1e-12), (rank, run)
            assert run_loss == pytest.approx(loss, abs=1e-6), (rank, run)
        weights, _, _, steps = r["resumed_run"]
        assert steps == len(rows)  # the step count came back with the checkpoint
        assert_weights(weights, expected, (rank, "resumed_run"))
        assert r["saved"] == ["data-worker0.ckpt", "final-worker0.ckpt"], rank  # the chief alone wrote
    with sd.OneDeviceStrategy().scope():
        model = digits_cnn.make_model(seed=5)
    restored = sd.Checkpoint(model=model, step=0).restore(out / "final-worker0.ckpt")
    assert restored.step == len(rows)
    assert_weights([[p.detach().flatten().tolist() for p in model.parameters()]], expected,
                   "final checkpoint")
