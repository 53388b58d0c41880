// TPUStrategy: built from the config's `strategy: {kind: tpu}` over every
// tpu core, refused clearly without a tpu device type, and — being
// Mirrored over TPU cores — training to the same loss, accuracy and
// weights as MirroredStrategy on as many CPU devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/data/digits.h"
#include "core/strategy/strategy_factory.h"
#include "core/strategy/tpu_strategy.h"
#include "core/train/model.h"
#include "tpu_test_runtime.h"

namespace strata::testing {
namespace {

StrategyOptions on(std::vector<std::string> devices, std::string implementation = "") {
  StrategyOptions o;
  o.devices = std::move(devices);
  if (!implementation.empty()) o.communication.implementation = implementation;
  return o;
}

TEST(TpuStrategy, ReplicasAreEveryTpuCore) {
  auto rt = tpu_runtime(2, 3);
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto strategy = make_strategy(*rt, "tpu");
  ASSERT_TRUE(strategy.ok()) << strategy.status();
  EXPECT_EQ((*strategy)->kind(), "tpu");
  EXPECT_EQ((*strategy)->num_replicas_in_sync(), 6);
  EXPECT_EQ((*strategy)->describe(), "tpu over tpu:0 .. tpu:5 (6 replicas)");
}

TEST(TpuStrategy, ListedDevicesMustBeTpuCores) {
  auto rt = tpu_runtime(2, 2, {}, /*general=*/true);
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto two = make_strategy(*rt, "tpu", on({"tpu:1", "tpu:3"}));
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ((*two)->num_replicas_in_sync(), 2);
  auto cpu = make_strategy(*rt, "tpu", on({"tpu:0", "cpu:1"}));
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().message(), "TPUStrategy runs on 'tpu' devices, not cpu:1");
}

TEST(TpuStrategy, WithoutATpuDeviceTypeTheErrorNamesWhatIsLoaded) {
  auto rt = Runtime::create(Config{}, RuntimeOptions{.discover_plugins = false,
                                                     .use_environment = false,
                                                     .plugin_files = {plugin_file(
                                                         "hierarchical_copy")}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto strategy = make_strategy(*rt, "tpu");
  ASSERT_FALSE(strategy.ok());
  EXPECT_EQ(strategy.status().message(),
            "TPUStrategy needs devices of type 'tpu'; no loaded plugin provides one "
            "(loaded: hierarchical_copy)");
}

struct Trained {
  History history;
  Evaluation evaluation;
  std::vector<Tensor> weights;
};

// The demo's recipe (examples/train_digits.cc), shortened: shuffled digits,
// the same seed, Adam, two epochs.
Trained train(Strategy& strategy) {
  Trained t;
  auto path = find_digits_file(STRATA_SOURCE_DIR);
  EXPECT_TRUE(path.ok()) << path.status();
  auto data = load_digits_csv_gz(*path);
  EXPECT_TRUE(data.ok()) << data.status();
  auto ds = Dataset::from_arrays({data->features.slice_rows(0, 640), data->labels.slice_rows(0, 640)});
  EXPECT_TRUE(ds.ok()) << ds.status();
  auto batched = ds->shuffle(640, 42)->batch(64);
  EXPECT_TRUE(batched.ok()) << batched.status();
  auto mlp = Mlp::create({64, 32, 10}, 7);
  EXPECT_TRUE(mlp.ok()) << mlp.status();
  std::unique_ptr<Model> model;
  {
    auto scope = strategy.scope();
    EXPECT_TRUE(scope.ok()) << scope.status();
    auto m = Model::create(*mlp, LossKind::kSparseSoftmaxCrossEntropy, make_adam(0.005f));
    EXPECT_TRUE(m.ok()) << m.status();
    if (!m.ok()) return t;
    model = std::move(*m);
  }
  FitOptions fit;
  fit.epochs = 2;
  auto history = model->fit(*batched, fit);
  EXPECT_TRUE(history.ok()) << history.status();
  if (history.ok()) t.history = *history;
  auto evaluation = model->evaluate(*batched);
  EXPECT_TRUE(evaluation.ok()) << evaluation.status();
  if (evaluation.ok()) t.evaluation = *evaluation;
  for (const VariablePtr& v : model->variables()) t.weights.push_back(v->value(0));
  return t;
}

TEST(TpuStrategy, TrainsLikeMirroredWithTheSameReplicaCount) {
  auto tpu_rt = tpu_runtime(2, 2, {}, /*general=*/true);
  ASSERT_TRUE(tpu_rt.ok()) << tpu_rt.status();
  auto tpu = make_strategy(*tpu_rt, "tpu",
                           on({}, "tpu_sim"));
  ASSERT_TRUE(tpu.ok()) << tpu.status();
  auto mirrored = make_strategy(*tpu_rt, "mirrored",
                                on({"cpu:0", "cpu:1", "cpu:2", "cpu:3"}));
  ASSERT_TRUE(mirrored.ok()) << mirrored.status();
  const Trained a = train(**tpu);
  const Trained b = train(**mirrored);
  ASSERT_EQ(a.history.epochs.size(), 2u);
  ASSERT_EQ(b.history.epochs.size(), 2u);
  for (size_t e = 0; e < 2; ++e) {
    EXPECT_NEAR(a.history.epochs[e].loss, b.history.epochs[e].loss, 1e-5) << "epoch " << e;
    EXPECT_NEAR(a.history.epochs[e].accuracy, b.history.epochs[e].accuracy, 1e-6);
  }
  EXPECT_NEAR(a.evaluation.loss, b.evaluation.loss, 1e-5);
  EXPECT_NEAR(a.evaluation.accuracy, b.evaluation.accuracy, 1e-6);
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (size_t i = 0; i < a.weights.size(); ++i) {
    ASSERT_EQ(a.weights[i].size(), b.weights[i].size());
    float worst = 0;
    for (int64_t k = 0; k < a.weights[i].size(); ++k) {
      worst = std::max(worst, std::fabs(a.weights[i].data()[k] - b.weights[i].data()[k]));
    }
    EXPECT_LE(worst, 1e-5f) << "variable " << i;
  }
  // The training really ran: the loss fell.
  EXPECT_LT(a.history.epochs[1].loss, a.history.epochs[0].loss);
}

}  // namespace
}  // namespace strata::testing
