#!/usr/bin/env python3
"""The seeds' first example with strata.distribute: a one-unit Dense layer
(torch.nn.Linear(1, 1)) learning y = x under MirroredStrategy, with the
distributed training guide's custom loop:

    mirrored_strategy = tf.distribute.MirroredStrategy()
    with mirrored_strategy.scope():
      model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
      optimizer = tf.keras.optimizers.SGD()
    dataset = tf.data.Dataset.from_tensors(([1.], [1.])).repeat(100).batch(global_batch_size)
    dist_dataset = mirrored_strategy.experimental_distribute_dataset(dataset)

  python3 dense_y_equals_x.py [--devices N] [--epochs E]

Prints the mean squared error after each epoch and the prediction for x = 1
(which approaches 1), then `y(1) = ...`.
"""

import argparse

import torch

import strata.distribute as sd

BATCH_SIZE_PER_REPLICA = 5


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=4, help="cpu replicas (default 4)")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args(argv)

    mirrored_strategy = sd.MirroredStrategy([f"cpu:{i}" for i in range(args.devices)])
    with mirrored_strategy.scope():
        torch.manual_seed(0)
        model = torch.nn.Linear(1, 1)                      # Dense(1, input_shape=(1,))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    global_batch_size = BATCH_SIZE_PER_REPLICA * mirrored_strategy.num_replicas_in_sync
    ones = torch.ones(100, 1)                              # from_tensors(([1.], [1.])).repeat(100)
    dataset = [(ones[i:i + global_batch_size], ones[i:i + global_batch_size])
               for i in range(0, len(ones), global_batch_size)]
    dist_dataset = mirrored_strategy.experimental_distribute_dataset(dataset)

    def train_step(features, labels):
        per_example_loss = (model(features) - labels).square().sum(dim=1)
        loss = sd.compute_average_loss(per_example_loss, global_batch_size=global_batch_size)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    for epoch in range(args.epochs):
        total, batches = 0.0, 0
        for features, labels in dist_dataset:
            per_replica_losses = mirrored_strategy.run(train_step, args=(features, labels))
            total += mirrored_strategy.reduce(sd.ReduceOp.SUM, per_replica_losses,
                                              axis=None).item()
            batches += 1
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / batches:.4f}")
    with torch.no_grad():
        prediction = mirrored_strategy.experimental_local_results(model)[0](torch.ones(1, 1))
    print(f"y(1) = {prediction.item():.4f} ({mirrored_strategy.num_replicas_in_sync} replicas)")


if __name__ == "__main__":
    main()
