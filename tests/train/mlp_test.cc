// Mlp: the parameter list an optimizer and a checkpoint walk (names, order,
// parallel gradients), seeding, errors that name the layer, and the whole
// chain -- two layers and the averaged cross-entropy -- against finite
// differences.
#include "core/train/mlp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/train/losses.h"
#include "finite_difference.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_fd::expect_gradient_close;
using testing_fd::numerical_gradient;
using testing_fd::random_tensor;

TEST(MlpTest, ParametersAreNamedAndOrderedLayerByLayerKernelFirst) {
  StatusOr<Mlp> mlp = Mlp::create({4, 5, 3}, /*seed=*/1);
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  ASSERT_EQ(mlp->num_layers(), 2u);
  EXPECT_EQ(mlp->layer(0).activation(), Activation::kRelu);
  EXPECT_EQ(mlp->layer(1).activation(), Activation::kNone);  // logits stay linear
  EXPECT_THAT(mlp->parameter_names(),
              ElementsAre("dense_0/kernel", "dense_0/bias", "dense_1/kernel", "dense_1/bias"));
  const std::vector<Tensor*> params = mlp->parameters();
  const std::vector<Tensor*> grads = mlp->gradients();
  ASSERT_EQ(params.size(), 4u);
  ASSERT_EQ(grads.size(), 4u);
  EXPECT_EQ(params[0], &mlp->layer(0).kernel());
  EXPECT_EQ(params[3], &mlp->layer(1).bias());
  for (size_t i = 0; i < params.size(); ++i) EXPECT_EQ(params[i]->shape(), grads[i]->shape());
  EXPECT_EQ(params[2]->shape(), (Shape{5, 3}));
  EXPECT_EQ(mlp->num_parameter_elements(), 4 * 5 + 5 + 5 * 3 + 3);
}

TEST(MlpTest, ASeedFixesEveryWeight) {
  StatusOr<Mlp> a = Mlp::create({6, 4, 2}, 42);
  StatusOr<Mlp> b = Mlp::create({6, 4, 2}, 42);
  StatusOr<Mlp> c = Mlp::create({6, 4, 2}, 43);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  for (size_t i = 0; i < a->parameters().size(); i += 2) {  // kernels; biases start at zero
    EXPECT_EQ(max_abs_difference(*a->parameters()[i], *b->parameters()[i]), 0.0);
    EXPECT_GT(max_abs_difference(*a->parameters()[i], *c->parameters()[i]), 0.0);
  }
  // The layers draw from one stream in turn: the second differs from the first.
  EXPECT_NE(a->layer(0).kernel()[0], a->layer(1).kernel()[0]);
}

TEST(MlpTest, ErrorsNameTheLayer) {
  EXPECT_EQ(Mlp::create({4}, 1).status().code(), Code::kInvalidArgument);
  StatusOr<Mlp> zero = Mlp::create({4, 0, 3}, 1);
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("dense_0"));

  StatusOr<Mlp> mlp = Mlp::create({4, 5, 3}, 1);
  std::mt19937 rng(1);
  Status add = mlp->add(*Dense::create(7, 2, Activation::kNone, rng));
  EXPECT_EQ(add.code(), Code::kInvalidArgument);
  EXPECT_THAT(add.message(), HasSubstr("dense_2 takes 7 inputs but dense_1 gives 3"));
  EXPECT_TRUE(mlp->add(*Dense::create(3, 2, Activation::kNone, rng)).ok());

  StatusOr<Tensor> y = mlp->predict(Tensor({2, 9}));
  ASSERT_FALSE(y.ok());
  EXPECT_THAT(y.status().message(), HasSubstr("dense_0: Dense(4 -> 5)"));
  StatusOr<Tensor> early = Mlp(*mlp).backward(Tensor({2, 2}));
  ASSERT_FALSE(early.ok());
  EXPECT_THAT(early.status().message(), HasSubstr("dense_2"));
}

TEST(MlpTest, ForwardAndPredictAgree) {
  StatusOr<Mlp> mlp = Mlp::create({3, 8, 8, 2}, 5);
  std::mt19937 rng(5);
  const Tensor x = random_tensor({4, 3}, rng);
  StatusOr<Tensor> a = mlp->forward(x);
  StatusOr<Tensor> b = mlp->predict(x);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(max_abs_difference(*a, *b), 0.0);
  EXPECT_EQ(a->shape(), (Shape{4, 2}));
}

// The full training step's gradient: two layers, sparse softmax
// cross-entropy, averaged over a global batch twice the local one.
TEST(MlpTest, TrainingStepGradientMatchesFiniteDifferences) {
  constexpr int64_t kBatch = 6, kGlobalBatch = 12;
  for (uint32_t seed = 1; seed < 100; ++seed) {
    StatusOr<Mlp> created = Mlp::create({5, 7, 4}, seed);
    ASSERT_TRUE(created.ok());
    Mlp mlp = *created;
    std::mt19937 rng(seed);
    mlp.layer(0).bias() = random_tensor({7}, rng, -0.3f, 0.3f);
    mlp.layer(1).bias() = random_tensor({4}, rng, -0.3f, 0.3f);
    Tensor x = random_tensor({kBatch, 5}, rng);
    Tensor labels({kBatch});
    for (int64_t i = 0; i < kBatch; ++i) labels[i] = static_cast<float>(rng() % 4);

    // Keep every hidden unit 0.05 from ReLU's kink (see layers_test.cc).
    StatusOr<Dense> linear = Dense::from_parameters(mlp.layer(0).kernel(), mlp.layer(0).bias(),
                                                    Activation::kNone);
    StatusOr<Tensor> z = linear->predict(x);
    float margin = INFINITY;
    for (float v : z->values()) margin = std::min(margin, std::fabs(v));
    if (margin < 0.05f) continue;

    auto objective = [&] {
      StatusOr<PerExampleLoss> loss = sparse_softmax_cross_entropy(*mlp.predict(x), labels);
      return static_cast<double>(compute_average_loss(loss->loss, kGlobalBatch)->item());
    };
    StatusOr<Tensor> logits = mlp.forward(x);
    ASSERT_TRUE(logits.ok());
    StatusOr<PerExampleLoss> loss = sparse_softmax_cross_entropy(*logits, labels);
    ASSERT_TRUE(loss.ok()) << loss.status();
    StatusOr<Tensor> grad = average_loss_gradient(loss->gradient, kGlobalBatch);
    ASSERT_TRUE(grad.ok());
    StatusOr<Tensor> dx = mlp.backward(*grad);
    ASSERT_TRUE(dx.ok()) << dx.status();

    // The loss is an average, so its gradients are small (~0.1): compare
    // them on the scale of the largest one rather than of 1. Measured
    // error ~3e-5 (f32 rounding of the loss over 2h); the bound is ~10x.
    const std::vector<std::string> names = mlp.parameter_names();
    for (size_t i = 0; i < names.size(); ++i) {
      Tensor numeric = numerical_gradient(mlp.parameters()[i], objective);
      const Tensor& analytic = *mlp.gradients()[i];
      double scale = 1e-3;
      for (float v : numeric.values()) scale = std::max(scale, std::fabs(static_cast<double>(v)));
      EXPECT_LE(max_abs_difference(analytic, numeric), 5e-3 * scale) << names[i];
    }
    expect_gradient_close(*dx, numerical_gradient(&x, objective), "dL/dx");
    return;
  }
  FAIL() << "no seed gave hidden pre-activations away from ReLU's kink";
}

}  // namespace
}  // namespace strata
