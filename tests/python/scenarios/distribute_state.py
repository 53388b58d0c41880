"""One worker of a MultiWorkerMirroredStrategy job (strata launch, 2 local
cpu devices each) exercising the state that spans workers:
- the auto-shard policies: which slices of a global batch a worker keeps;
- the RFC loop under OFF (every worker on the whole batch) and on
  distribute_datasets_from_function (sharded by input_pipeline_id);
- metrics updated on each worker's slices, read on every worker;
- a checkpoint written by the test under MirroredStrategy(3) mid-run
  ($STRATA_TEST_CHECKPOINT), restored on every worker, trained to the end
  and saved again (the chief alone writes).
Writes rank<r>.json in $STRATA_TEST_OUT."""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import strata.distribute as sd  # noqa: E402
from distribute_loops import make_global_batches  # noqa: E402
from strata import _core  # noqa: E402
from strata.torch import digits_cnn  # noqa: E402

out = os.environ["STRATA_TEST_OUT"]
strategy = sd.MultiWorkerMirroredStrategy(devices=["cpu:0", "cpu:1"])
rank = strategy.worker_id
batches = make_global_batches()
Policy = sd.experimental.AutoShardPolicy


def shapes(dataset):
    return [[[int(v.shape[0]) for v in x.values], x.global_batch_size] for x, _ in dataset]


def train(dataset, seed=0, ckpt_objects=None, restore=None, save=None):
    with strategy.scope():
        model = digits_cnn.make_model(seed=seed)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        accuracy = sd.metrics.SparseCategoricalAccuracy()
        loss_mean = sd.metrics.Mean()
    dataset = dataset if not callable(dataset) else dataset()
    ckpt = sd.Checkpoint(model=model, optimizer=optimizer, data=dataset, step=0)
    if restore:
        ckpt.restore(restore)

    def step(x, y):
        logits = model(x)
        per_example = F.cross_entropy(logits, y, reduction="none")
        loss = sd.compute_average_loss(per_example)  # the step's true global size
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        accuracy.update_state(y, logits)
        loss_mean.update_state(per_example)

    for x, y in dataset:
        strategy.run(step, args=(x, y))
        ckpt.step += 1
    if save:
        ckpt.save(save)
    weights = [[p.detach().flatten().tolist() for p in m.parameters()]
               for m in strategy.experimental_local_results(model)]
    return weights, accuracy.result().item(), loss_mean.result().item(), ckpt.step


def dataset_fn(ctx):
    """This worker's per-replica batches: its replicas' slices of each global batch."""
    per_worker = ctx.num_replicas_in_sync // ctx.num_input_pipelines
    mine = range(ctx.input_pipeline_id * per_worker, (ctx.input_pipeline_id + 1) * per_worker)
    out_batches = []
    for x, y in batches:
        for p, (begin, end) in enumerate(_core.even_row_split(len(y), ctx.num_replicas_in_sync)):
            if p in mine:
                out_batches.append((x[begin:end], y[begin:end]))
    return out_batches


contexts = []
result = {
    "rank": rank,
    "auto": shapes(strategy.experimental_distribute_dataset(batches)),
    "data": shapes(strategy.experimental_distribute_dataset(batches, options=Policy.DATA)),
    "off": shapes(strategy.experimental_distribute_dataset(
        batches, options=sd.InputOptions(auto_shard_policy=Policy.OFF))),
}
result["off_run"] = train(strategy.experimental_distribute_dataset(batches, options=Policy.OFF))
result["from_function_run"] = train(
    lambda: strategy.distribute_datasets_from_function(lambda ctx: contexts.append(ctx) or
                                                       dataset_fn(ctx)))
result["context"] = [contexts[0].num_input_pipelines, contexts[0].input_pipeline_id,
                     contexts[0].num_replicas_in_sync]
final = os.path.join(out, f"final-worker{rank}.ckpt")  # a path per worker: who writes shows
result["resumed_run"] = train(strategy.experimental_distribute_dataset(batches), seed=7,
                              restore=os.environ["STRATA_TEST_CHECKPOINT"], save=final)
# A checkpoint of the data alone knows its strategy too: the chief alone writes.
sd.Checkpoint(data=strategy.experimental_distribute_dataset(batches), step=1).save(
    os.path.join(out, f"data-worker{rank}.ckpt"))
result["saved"] = sorted(n for n in os.listdir(out) if n.endswith(".ckpt"))
with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
    json.dump(result, f)
