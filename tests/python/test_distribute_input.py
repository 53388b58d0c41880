"""strata.distribute input: distribute_datasets_from_function hands each
replica its own per-replica batches (InputContext told the truth) and the
RFC loop on them ends with the weights of one plain torch loop; the
auto-shard policies of one worker agree and FILE is refused; a distributed
dataset and its iterators report their position and resume from it."""

import pytest
import torch
import torch.nn.functional as F

import strata.distribute as sd
from distribute_loops import GLOBAL_BATCH, TOLERANCE, Net, make_global_batches, plain_torch_loop


def per_replica_batches(global_batches, parts, keep):
    """Each global batch split `parts` ways (core's rule), the slices `keep` kept, in order."""
    from strata import _core
    out = []
    for x, y in global_batches:
        for p, (begin, end) in enumerate(_core.even_row_split(len(y), parts)):
            if p in keep:
                out.append((x[begin:end], y[begin:end]))
    return out


def test_input_context_and_per_replica_batch_size():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    seen = []
    dataset = strategy.distribute_datasets_from_function(lambda ctx: seen.append(ctx) or [])
    (ctx,) = seen
    assert dataset.input_context is ctx
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == (1, 0, 3)
    assert ctx.get_per_replica_batch_size(48) == 16
    with pytest.raises(ValueError, match=r"global batch size \(50\) is not divisible by "
                       r"num_replicas_in_sync \(3\)"):
        ctx.get_per_replica_batch_size(50)
    assert list(dataset) == []


def test_from_function_gives_each_replica_its_batches_and_pads_a_partial_step():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    elements = [torch.full((4, 2), float(i)) for i in range(7)]
    steps = list(strategy.distribute_datasets_from_function(lambda ctx: elements))
    assert len(steps) == 3
    assert [[v[0, 0].item() for v in s.values] for s in steps[:2]] == [[0, 1, 2], [3, 4, 5]]
    assert steps[0].global_batch_size == 12
    last = steps[2]
    assert [v.shape[0] for v in last.values] == [4, 0, 0] and last.global_batch_size == 4


def test_rfc_loop_on_datasets_from_function_matches_one_plain_torch_loop():
    global_batches = make_global_batches()
    reference, reference_losses = plain_torch_loop(global_batches)
    strategy = sd.MirroredStrategy([f"cpu:{i}" for i in range(4)])
    with strategy.scope():
        model = Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def dataset_fn(ctx):
        assert ctx.get_per_replica_batch_size(GLOBAL_BATCH) == GLOBAL_BATCH // 4
        return per_replica_batches(global_batches, ctx.num_replicas_in_sync, range(4))

    def step(x, y):
        per_example = F.cross_entropy(model(x), y, reduction="none")
        loss = sd.compute_average_loss(per_example)  # the step's true size travels with it
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        return loss

    losses = [strategy.reduce("sum", strategy.run(step, args=batch), axis=None).item()
              for batch in strategy.distribute_datasets_from_function(dataset_fn)]
    assert losses == pytest.approx(reference_losses, abs=TOLERANCE)
    for replica in strategy.experimental_local_results(model):
        assert max((p - q).abs().max().item()
                   for p, q in zip(replica.parameters(), reference.parameters())) < TOLERANCE


def slices(dataset):
    return [[tuple(v.shape) for v in x.values] + [x.global_batch_size] for (x,) in dataset]


def test_shard_policies_of_one_worker_agree_and_file_is_refused():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    batches = [(torch.zeros(5, 3),), (torch.zeros(4, 3),)]
    auto = slices(strategy.experimental_distribute_dataset(batches))
    assert auto == [[(3, 3), (2, 3), 5], [(2, 3), (2, 3), 4]]
    AutoShardPolicy = sd.experimental.AutoShardPolicy
    for policy in (AutoShardPolicy.DATA, AutoShardPolicy.OFF, sd.InputOptions(
            auto_shard_policy=AutoShardPolicy.OFF)):
        assert slices(strategy.experimental_distribute_dataset(batches, options=policy)) == auto
    assert strategy.experimental_distribute_dataset(batches).auto_shard_policy == \
        AutoShardPolicy.DATA  # AUTO is DATA: an iterable has no files
    with pytest.raises(ValueError, match="policy FILE needs a dataset read from files"):
        strategy.experimental_distribute_dataset(batches, options=AutoShardPolicy.FILE)
    with pytest.raises(TypeError, match="options must be sd.InputOptions"):
        strategy.experimental_distribute_dataset(batches, options="sideways")


def firsts(iterable):
    return [int(x.values[0][0].item()) for (x,) in iterable]


def test_a_dataset_reports_and_restores_its_position():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    batches = [(torch.full((4, 1), float(i)),) for i in range(6)]
    dataset = strategy.experimental_distribute_dataset(batches)
    iterator = iter(dataset)
    assert firsts([next(iterator), next(iterator)]) == [0, 1]
    assert dataset.state_dict() == iterator.state_dict() | {"passes": 0} == \
        {"batches": 2, "passes": 0}
    resumed = strategy.experimental_distribute_dataset(batches)
    resumed.load_state_dict(dataset.state_dict())
    assert firsts(resumed) == [2, 3, 4, 5]
    assert resumed.state_dict() == {"batches": 0, "passes": 1}  # finished a pass
    assert firsts(resumed) == [0, 1, 2, 3, 4, 5]  # the next pass starts over
    iterator.load_state_dict({"batches": 5})  # iterators move too, either way
    assert firsts(iterator) == [5]
    with pytest.raises(ValueError, match="9 batches into the dataset, which ends after 6"):
        iter(resumed).load_state_dict({"batches": 9})


def test_a_one_shot_iterable_cannot_move_back():
    strategy = sd.OneDeviceStrategy()
    dataset = strategy.experimental_distribute_dataset((torch.zeros(2, 1),) for _ in range(3))
    iterator = iter(dataset)
    next(iterator)
    with pytest.raises(ValueError, match="cannot move back an iterator over a one-shot iterable"):
        iterator.load_state_dict({"batches": 0})


def test_datasets_from_function_position_counts_steps():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    elements = [torch.full((2, 1), float(i)) for i in range(7)]
    dataset = strategy.distribute_datasets_from_function(lambda ctx: elements)
    iterator = iter(dataset)
    next(iterator)
    assert dataset.state_dict() == {"batches": 1, "passes": 0}
    resumed = strategy.distribute_datasets_from_function(lambda ctx: elements)
    resumed.load_state_dict(dataset.state_dict())
    assert [[int(v[0].item()) if len(v) else None for v in s.values] for s in resumed] == \
        [[2, 3], [4, 5], [6, None]]
