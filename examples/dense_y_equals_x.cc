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
// Usage: dense_y_equals_x [--devices N | --config FILE]
// Without a config (no --config, no STRATA_CONFIG) the strategy is Mirrored
// over N virtual CPU devices (default 4); with one, the config's strategy
// (docs/CONFIG.md), so `strata launch -n 2 --config FILE -- dense_y_equals_x`
// is one multi-worker job.
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/runtime/runtime.h"
#include "core/strategy/strategy_factory.h"
#include "core/train/model.h"

using namespace strata;

namespace {

struct Options {
  int devices = 0;  // 0: --devices not given
  std::string config;
};

constexpr int kDefaultDevices = 4;

// The strategy and the runtime it runs on (which must outlive it).
struct Setup {
  std::shared_ptr<Runtime> runtime;
  std::unique_ptr<Strategy> strategy;
};

StatusOr<Setup> make_setup(const Options& o) {
  const ConfigChoice choice = choose_config(o.config);
  Setup setup;
  if (!choice.from_file()) {
    const int devices = o.devices > 0 ? o.devices : kDefaultDevices;
    Config config;
    config.devices.cpu_count = devices;
    STRATA_ASSIGN_OR_RETURN(setup.runtime, Runtime::from_choice(choice, config));
    StrategyOptions options;
    for (int i = 0; i < devices; ++i) options.devices.push_back("cpu:" + std::to_string(i));
    STRATA_ASSIGN_OR_RETURN(setup.strategy, make_strategy(setup.runtime, "mirrored", options));
    return setup;
  }
  if (o.devices > 0) {
    return InvalidArgumentError("--devices sets the devices of the built-in Mirrored setup, but "
                                "the config " + choice.describe() + " names its own strategy "
                                "and devices: drop --devices or the config");
  }
  STRATA_ASSIGN_OR_RETURN(setup.runtime, Runtime::from_choice(choice));
  STRATA_ASSIGN_OR_RETURN(setup.strategy, make_strategy_from_config(setup.runtime));
  if (setup.strategy->kind() == "parameter_server") {
    return InvalidArgumentError("the config " + choice.describe() + " asks for parameter_server, "
                                "which trains through ParameterServerStrategy::fit, not "
                                "Model::fit; run train_digits with it");
  }
  return setup;
}

Status run(const Options& o) {
  STRATA_ASSIGN_OR_RETURN(Setup setup, make_setup(o));
  Strategy* strategy = setup.strategy.get();
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
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--devices") == 0 && i + 1 < argc) {
      o.devices = std::atoi(argv[++i]);
      if (o.devices <= 0) {
        std::cerr << "dense_y_equals_x: --devices must be positive\n";
        return 2;
      }
    } else if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc && argv[i + 1][0] != '\0') {
      o.config = argv[++i];
    } else {
      std::cerr << "usage: dense_y_equals_x [--devices N | --config FILE]\n"
                   "The config: --config FILE, else $STRATA_CONFIG, else Mirrored over N (4) "
                   "virtual CPU devices.\n";
      return 2;
    }
  }
  Status status = run(o);
  if (!status.ok()) {
    std::cerr << "error: " << status << "\n";
    return 1;
  }
  return 0;
}
