// The seeds' first example, in Strata: a one-unit Dense layer learning
// y = x under MirroredStrategy, trained with Keras-style fit and evaluate.
//
//   mirrored_strategy = tf.distribute.MirroredStrategy()
//   with mirrored_strategy.scope():
//     model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
//   model.compile(loss='mse', optimizer='sgd')
//   dataset = tf.data.Dataset.from_tensors(([1.], [1.])).repeat(100).batch(10)
//   model.fit(dataset, epochs=2)
//   model.evaluate(dataset)
//
// Usage: dense_y_equals_x [--devices N]   (default 4 virtual CPU devices)
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/runtime/runtime.h"
#include "core/strategy/strategy_factory.h"
#include "core/train/model.h"

using namespace strata;

namespace {

Status run(int devices) {
  Config config;
  config.devices.cpu_count = devices;
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::create(config));
  StrategyOptions options;
  for (int i = 0; i < devices; ++i) options.devices.push_back("cpu:" + std::to_string(i));
  STRATA_ASSIGN_OR_RETURN(auto strategy, make_strategy(runtime, "mirrored", options));
  std::cout << "Using " << strategy->describe() << "\n";

  std::unique_ptr<Model> model;
  {
    STRATA_ASSIGN_OR_RETURN(StrategyScope scope, strategy->scope());
    std::mt19937 rng(1);
    STRATA_ASSIGN_OR_RETURN(Dense dense, Dense::create(1, 1, Activation::kNone, rng));
    Mlp network;
    STRATA_RETURN_IF_ERROR(network.add(std::move(dense)));
    STRATA_ASSIGN_OR_RETURN(model, Model::create(std::move(network), LossKind::kMeanSquaredError,
                                                 make_sgd(0.01f)));
  }
  // from_tensors(([1.], [1.])).repeat(100).batch(10)
  STRATA_ASSIGN_OR_RETURN(Dataset one, Dataset::from_arrays({Tensor(Shape{1, 1}, 1.0f),
                                                             Tensor(Shape{1, 1}, 1.0f)}));
  STRATA_ASSIGN_OR_RETURN(Dataset repeated, one.repeat(100));
  STRATA_ASSIGN_OR_RETURN(Dataset dataset, repeated.batch(10));

  FitOptions fit;
  fit.epochs = 2;
  fit.progress = &std::cout;
  STRATA_ASSIGN_OR_RETURN(History history, model->fit(dataset, fit));
  STRATA_ASSIGN_OR_RETURN(Evaluation evaluation, model->evaluate(dataset));
  std::cout << "evaluate: loss " << evaluation.loss << " over " << evaluation.examples
            << " examples\n";
  if (!(history.epochs.back().loss < history.epochs.front().loss)) {
    return InternalError("the loss did not fall");
  }
  return Status();
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 4;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--devices") == 0 && i + 1 < argc) {
      devices = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: dense_y_equals_x [--devices N]\n";
      return 2;
    }
  }
  Status status = run(devices);
  if (!status.ok()) {
    std::cerr << "error: " << status << "\n";
    return 1;
  }
  return 0;
}
