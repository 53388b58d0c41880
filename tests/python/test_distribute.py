"""strata.distribute: the issue's RFC custom loop, unchanged, trains the
digits CNN to the same weights and losses as one plain torch loop on the
global batch, under OneDeviceStrategy, MirroredStrategy on 3 and 4 cpu
devices and CentralStorageStrategy on 3, a partial last batch included;
optimizer state lives on every replica (Mirrored) or on replica 0 alone
(CentralStorage); replicas that skip the gradient
all-reduce end measurably apart; a replica's error reaches the caller with
the replica named, and nothing hangs."""

import time

import pytest
import torch
import torch.nn.functional as F

import strata
import strata.distribute as sd
from strata.torch import digits_cnn
from distribute_loops import (FULL_STEPS, GLOBAL_BATCH, TOLERANCE, Net, make_global_batches,
                              plain_torch_loop, rfc_loop)


@pytest.fixture(scope="module")
def global_batches():
    return make_global_batches()


def no_all_reduce_loop(strategy, global_batches):
    """The negative control: each replica steps its optimizer on its own
    gradients (the optimizer class's step, not the mirrored one)."""
    with strategy.scope():
        model = Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    def step(x, y):
        per_example = F.cross_entropy(model(x), y, reduction="none")
        loss = sd.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        optimizer.zero_grad(); loss.backward(); torch.optim.SGD.step(optimizer)
        return loss
    for x, y in strategy.experimental_distribute_dataset(global_batches):
        strategy.run(step, args=(x, y))
    return strategy.experimental_local_results(model)


def max_difference(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))


STRATEGIES = {
    "one_device": lambda: sd.OneDeviceStrategy("cpu:0"),
    "mirrored_3": lambda: sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"]),
    "mirrored_4": lambda: sd.MirroredStrategy([f"cpu:{i}" for i in range(4)]),
    "central_storage_3": lambda: sd.CentralStorageStrategy(["cpu:0", "cpu:1", "cpu:2"]),
}


@pytest.mark.parametrize("name", STRATEGIES)
def test_rfc_loop_matches_one_plain_torch_loop(name, global_batches):
    reference, reference_losses = plain_torch_loop(global_batches)
    assert max_difference(reference, Net()) > 1e-3  # training moved the weights
    strategy = STRATEGIES[name]()
    replicas, losses = rfc_loop(strategy, global_batches)
    assert len(replicas) == strategy.num_replicas_in_sync
    for r, replica in enumerate(replicas):
        assert max_difference(replica, reference) < TOLERANCE, f"replica {r}"
        assert max_difference(replica, replicas[0]) == 0, f"replica {r} left replica 0"
    assert losses == pytest.approx(reference_losses, abs=TOLERANCE)
    assert len(losses) == FULL_STEPS + 1
    print(name, "losses", [round(v, 6) for v in losses])


def test_replicas_that_skip_the_all_reduce_end_apart(global_batches):
    reference, _ = plain_torch_loop(global_batches)
    replicas = no_all_reduce_loop(sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"]), global_batches)
    assert max_difference(replicas[0], reference) > 1e-3
    assert max_difference(replicas[0], replicas[1]) > 1e-3


def test_scope_copies_start_identical_and_are_separate():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    with strategy.scope():
        model = Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    models = strategy.experimental_local_results(model)
    optimizers = strategy.experimental_local_results(optimizer)
    assert len(models) == 2 and len(optimizers) == 2 and models[0] is model
    assert max_difference(models[0], models[1]) == 0
    assert all(p is not q for p, q in zip(models[0].parameters(), models[1].parameters()))
    assert [id(p) for p in optimizers[1].param_groups[0]["params"]] == \
        [id(p) for p in models[1].parameters()]

    def seen():
        return id(next(model.parameters())), id(optimizer.param_groups[0]["params"][0])
    model_ids, optimizer_ids = strategy.run(seen)
    for r in range(2):
        assert model_ids.values[r] == optimizer_ids.values[r] == id(next(models[r].parameters()))


def test_contexts_inside_and_outside():
    assert not sd.has_strategy()
    default_context = sd.get_replica_context()
    assert default_context.num_replicas_in_sync == 1
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    with strategy.scope():
        assert sd.get_strategy() is strategy and sd.has_strategy()
        assert sd.get_replica_context() is None and sd.in_cross_replica_context()

    def where():
        ctx = sd.get_replica_context()
        return ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync, sd.get_strategy() is strategy
    ids, counts, strategies = strategy.run(where)
    assert ids.values == (0, 1, 2) and counts == 3
    assert strategies is True  # the very same object from every replica stays itself
    assert not sd.has_strategy()


def test_cuda_replicas_are_refused_with_what_is_missing():
    # Replicas on cuda devices are not built in Python: the refusal names what
    # this process lacks besides, as strata.info() and torch see it.
    nccl = [p for p in strata.info()["plugins"] if p["name"] == "nccl"]
    for make in (lambda: sd.MirroredStrategy(["cpu:0", "cuda:0"]),
                 lambda: sd.CentralStorageStrategy(["cpu:0"], parameter_device="cuda:0")):
        with pytest.raises(NotImplementedError, match="not 'cuda:0'") as raised:
            make()
        message = str(raised.value)
        assert raised.value.code_name == "NOT_SUPPORTED", message
        assert "not built in Python yet" in message, message
        cpu_only = torch.version.cuda is None
        assert ("is built without CUDA" in message) == cpu_only, message
        assert ("torch sees no cuda device" in message) == \
            (not cpu_only and not torch.cuda.is_available()), message
        # The message always ends by pointing at the nccl plugin for C++;
        # only a missing or unloaded plugin is listed among the gaps.
        lacks = message.split("Besides,")[0]
        assert ("the nccl plugin is" in lacks) == (not nccl or nccl[0]["state"] != "loaded"), \
            message


@pytest.mark.parametrize("op, scale", [(sd.ReduceOp.SUM, 1.0), (sd.ReduceOp.MEAN, 1.0 / 3)])
def test_replica_all_reduce_is_differentiable(op, scale):
    # Replica r: y = op over s of (w_s * x_s), loss_r = sum(c_r * y1) (+ r * sum(y2) for r > 0,
    # so replica 0 leaves y2 unused). By hand: x_r.grad = w_r * op over s of c_s, and
    # z_r.grad = op over s of (s, s, ...): (0 + 1 + 2) times scale.
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    c = [torch.tensor([float(r + 1), -float(r)]) for r in range(3)]

    def fn():
        r = sd.get_replica_context().replica_id_in_sync_group
        x = torch.tensor([float(r + 1), 2.0 * (r + 1)], requires_grad=True)
        z = torch.full((3,), float(r), requires_grad=True)
        y1, y2 = sd.get_replica_context().all_reduce(op, [x * (r + 2), z])
        loss = (c[r] * y1).sum() + (r * y2.sum() if r > 0 else 0)
        loss.backward()
        return y1.detach(), x.grad, z.grad

    y1, x_grads, z_grads = strategy.run(fn)
    c_reduced = sum(c) * scale
    for r in range(3):
        assert torch.allclose(y1.values[r], scale * sum(
            torch.tensor([s + 1.0, 2.0 * (s + 1)]) * (s + 2) for s in range(3)))
        assert torch.allclose(x_grads.values[r], (r + 2) * c_reduced), (r, x_grads.values[r])
        assert torch.allclose(z_grads.values[r], torch.full((3,), 3.0 * scale)), r


def test_replica_all_reduce_all_gather_and_merge_call():
    strategy = sd.MirroredStrategy([f"cpu:{i}" for i in range(4)])
    calls = []

    def merge(distribution, value, shared):
        calls.append(sd.get_replica_context())
        assert distribution is strategy and sd.in_cross_replica_context()
        return sum(value.values) * shared

    def fn():
        ctx = sd.get_replica_context()
        r = ctx.replica_id_in_sync_group
        total = ctx.all_reduce(sd.ReduceOp.SUM, torch.full((3,), float(r + 1)))
        mean = ctx.all_reduce("mean", [torch.tensor([float(r)]), torch.tensor([2.0 * r])])
        gathered = ctx.all_gather(torch.full((r + 1, 2), float(r)), axis=0)
        merged = ctx.merge_call(merge, args=(r, 10))
        return total, mean, gathered, merged

    total, mean, gathered, merged = strategy.run(fn)
    for r in range(4):
        assert torch.equal(total.values[r], torch.full((3,), 10.0))
        assert (mean[0].values[r].item(), mean[1].values[r].item()) == (1.5, 3.0)
        expected = torch.cat([torch.full((k + 1, 2), float(k)) for k in range(4)])
        assert torch.equal(gathered.values[r], expected)
    assert merged == 60 and calls == [None]  # once, in cross-replica context


def test_reduce_gather_and_partial_batch_split():
    strategy = sd.MirroredStrategy([f"cpu:{i}" for i in range(4)])
    x = torch.arange(43, dtype=torch.float32)
    (split,) = list(strategy.experimental_distribute_dataset([(x,)]))[0:1]
    (parts,) = split
    assert [len(v) for v in parts.values] == [11, 11, 11, 10]
    assert parts.global_batch_size == 43
    assert torch.equal(strategy.gather(parts, axis=0), x)
    assert strategy.reduce("sum", parts, axis=0).item() == pytest.approx(x.sum().item())
    assert strategy.reduce("mean", parts, axis=0).item() == pytest.approx(x.mean().item())
    sums = strategy.run(lambda v: v.sum(), args=(parts,))
    assert strategy.reduce(sd.ReduceOp.SUM, sums).item() == pytest.approx(x.sum().item())
    assert strategy.reduce(sd.ReduceOp.MEAN, sums).item() == pytest.approx(x.sum().item() / 4)
    # compute_average_loss divides the partial batch by its 43 rows, not 64
    losses = strategy.run(lambda v: sd.compute_average_loss(v, global_batch_size=64), args=(parts,))
    assert strategy.reduce("sum", losses).item() == pytest.approx(x.mean().item())


def test_an_error_in_one_replica_names_it_and_releases_the_others():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])

    def fn():
        ctx = sd.get_replica_context()
        if ctx.replica_id_in_sync_group == 2:
            raise ValueError("bad batch")
        return ctx.all_reduce("sum", torch.ones(2))  # the others wait here for replica 2

    start = time.monotonic()
    with pytest.raises(ValueError, match="replica 2 of MirroredStrategy.*bad batch"):
        strategy.run(fn)
    assert time.monotonic() - start < 10  # released at once, not at the 300 s deadline
    # the strategy still works afterwards
    result = strategy.run(lambda: sd.get_replica_context().all_reduce("sum", torch.ones(2)))
    assert all(torch.equal(v, torch.full((2,), 3.0)) for v in result.values)


def test_a_replica_that_skips_a_step_times_out_naming_it():
    options = sd.CommunicationOptions(timeout=1.0)
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"], communication_options=options)

    def fn():
        ctx = sd.get_replica_context()
        if ctx.replica_id_in_sync_group != 1:
            ctx.all_reduce("sum", torch.ones(2))

    start = time.monotonic()
    with pytest.raises(TimeoutError, match=r"replica\(s\) 1 did not reach all_reduce"):
        strategy.run(fn)
    assert time.monotonic() - start < 10


def test_an_error_in_merge_fn_reaches_the_caller():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])

    def merge(distribution):
        raise KeyError("merge failed")

    with pytest.raises(KeyError, match="replica [01] of MirroredStrategy.*merge failed"):
        strategy.run(lambda: sd.get_replica_context().merge_call(merge))


def test_communication_options_reach_strata_and_keep_the_math(global_batches):
    algorithm = "hierarchical_copy/all_reduce/scatter_reduce"
    options = sd.CommunicationOptions(implementation=algorithm, bytes_per_pack=1024)
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"], communication_options=options)
    reference, _ = plain_torch_loop(global_batches)
    replicas, _ = rfc_loop(strategy, global_batches)
    assert max_difference(replicas[0], reference) < TOLERANCE
    assert strategy._communicator().explain("all_reduce")["winner"] == algorithm



@pytest.mark.parametrize("name", ["mirrored_3", "central_storage_3"])
def test_optimizer_state_matches_and_lives_where_the_strategy_keeps_it(name, global_batches):
    def momentum(params):
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    reference = Net()
    reference_optimizer = momentum(reference.parameters())
    for x, y in global_batches:
        reference_optimizer.zero_grad(); F.cross_entropy(reference(x), y).backward()
        reference_optimizer.step()

    strategy = STRATEGIES[name]()
    with strategy.scope():
        model = Net()
        optimizer = momentum(model.parameters())
    def step(x, y):
        loss = sd.compute_average_loss(F.cross_entropy(model(x), y, reduction="none"),
                                       global_batch_size=GLOBAL_BATCH)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    for x, y in strategy.experimental_distribute_dataset(global_batches):
        strategy.run(step, args=(x, y))
    for replica in strategy.experimental_local_results(model):
        assert max_difference(replica, reference) < TOLERANCE
    stateful = [len(o.state) > 0 for o in strategy.experimental_local_results(optimizer)]
    # Mirrored: every replica steps its own optimizer; CentralStorage: one state, replica 0's
    assert stateful == ([True] * 3 if name.startswith("mirrored") else [True, False, False])


def test_state_changes_outside_run_reach_every_copy():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2"])
    with strategy.scope():
        model = Net()
    model.eval()
    assert [m.training for m in strategy.experimental_local_results(model)] == [False] * 3
    other = digits_cnn.make_model(seed=7)
    model.load_state_dict(other.state_dict())
    for copy in strategy.experimental_local_results(model):
        assert max_difference(copy, other) == 0
    x = torch.zeros(2, 1, 8, 8)
    with torch.no_grad():  # grad mode is thread-local in torch: the replicas follow the caller's
        outs = strategy.run(lambda: model(x).requires_grad)
    assert outs is False


def test_run_inside_run_is_refused_not_deadlocked():
    strategy = sd.MirroredStrategy(["cpu:0", "cpu:1"])
    with pytest.raises(RuntimeError, match="replica [01] of .*run called inside a replica"):
        strategy.run(lambda: strategy.run(lambda: None))
