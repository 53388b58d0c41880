"""strata.distribute.metrics: Mean, Sum, SparseCategoricalAccuracy and
Accuracy updated inside `run` on uneven slices (a partial batch, sample
weights) give, under OneDevice, Mirrored(3), Mirrored(4) and
CentralStorage(3), the result computed on the whole batch in one process;
reset_state clears every replica's share; a checkpoint carries them."""

import pytest
import torch

import strata.distribute as sd

STRATEGIES = {
    "one_device": lambda: sd.OneDeviceStrategy(),
    "mirrored_3": lambda: sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"]),
    "mirrored_4": lambda: sd.MirroredStrategy([f"cpu:{i}" for i in range(4)]),
    "central_storage_3": lambda: sd.CentralStorageStrategy(["cpu:0", "cpu:1", "cpu:2"]),
}


def global_batches():
    generator = torch.Generator().manual_seed(3)
    batches = []
    for rows in (64, 64, 43):  # 43: uneven slices, some replicas lighter
        logits = torch.randn(rows, 10, generator=generator)
        labels = torch.randint(0, 10, (rows,), generator=generator)
        weights = torch.rand(rows, generator=generator)
        batches.append((logits, labels, weights))
    return batches


def whole_batch_results(batches):
    logits = torch.cat([b[0] for b in batches]).double()
    labels = torch.cat([b[1] for b in batches])
    weights = torch.cat([b[2] for b in batches]).double()
    losses = torch.nn.functional.cross_entropy(logits, labels, reduction="none")
    correct = (logits.argmax(-1) == labels).double()
    return {"loss": losses.mean().item(),
            "weighted_loss": (losses * weights).sum().item() / weights.sum().item(),
            "loss_sum": losses.sum().item(),
            "accuracy": correct.mean().item(),
            "weighted_accuracy": (correct * weights).sum().item() / weights.sum().item(),
            "exact": (logits.argmax(-1) == labels).double().mean().item()}


def make_metrics():
    return {"loss": sd.metrics.Mean(), "weighted_loss": sd.metrics.Mean("weighted"),
            "loss_sum": sd.metrics.Sum(), "accuracy": sd.metrics.SparseCategoricalAccuracy(),
            "weighted_accuracy": sd.metrics.SparseCategoricalAccuracy(),
            "exact": sd.metrics.Accuracy()}


def update(metrics, logits, labels, weights):
    losses = torch.nn.functional.cross_entropy(logits.double(), labels, reduction="none")
    metrics["loss"].update_state(losses)
    metrics["weighted_loss"].update_state(losses, sample_weight=weights)
    metrics["loss_sum"].update_state(losses)
    metrics["accuracy"].update_state(labels, logits)
    metrics["weighted_accuracy"].update_state(labels, logits, sample_weight=weights)
    metrics["exact"].update_state(labels, logits.argmax(-1))


@pytest.mark.parametrize("name", STRATEGIES)
def test_metrics_match_the_whole_batch_in_one_process(name):
    batches = global_batches()
    expected = whole_batch_results(batches)
    strategy = STRATEGIES[name]()
    with strategy.scope():
        metrics = make_metrics()
    for logits, labels, weights in strategy.experimental_distribute_dataset(batches):
        strategy.run(lambda *a: update(metrics, *a), args=(logits, labels, weights))
    for key, metric in metrics.items():
        assert metric.result().item() == pytest.approx(expected[key], rel=1e-12), (name, key)
    # every replica added its share: no replica's slice was counted twice or left out
    if strategy.num_replicas_in_sync > 1:
        assert all(metrics["loss"]._slots[:, 1] > 0)
    for metric in metrics.values():
        metric.reset_state()
        assert metric.result().item() == 0.0


def test_result_inside_run_is_refused():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    with strategy.scope():
        mean = sd.metrics.Mean()
    with pytest.raises(RuntimeError, match="replica [01] of .*call them outside strategy.run"):
        strategy.run(lambda: mean.result())


def test_a_metric_of_another_strategy_is_refused():
    with sd.MirroredStrategy(["cpu:0", "cpu:1"]).scope():
        mean = sd.metrics.Mean()
    other = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    with pytest.raises(ValueError, match="made under MirroredStrategy.*make it in the scope"):
        other.run(lambda: mean.update_state(torch.ones(2)))


def test_metrics_checkpoint_across_strategies(tmp_path):
    mirrored = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    with mirrored.scope():
        mean = sd.metrics.Mean()
    values = sd.PerReplica([torch.tensor([1.0, 2.0]), torch.tensor([3.0]), torch.tensor([6.0])])
    mirrored.run(lambda v: mean.update_state(v), args=(values,))
    sd.Checkpoint(mean=mean).save(tmp_path / "m.ckpt")
    with sd.OneDeviceStrategy().scope():
        restored = sd.metrics.Mean()
    sd.Checkpoint(mean=restored).restore(tmp_path / "m.ckpt")
    restored.update_state(torch.tensor([8.0]))
    assert restored.result().item() == pytest.approx(4.0)  # (1 + 2 + 3 + 6 + 8) / 5
