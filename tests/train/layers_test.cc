// Dense: backward against finite differences with and without ReLU,
// deterministic portable initialisation, the errors of misuse, and the
// properties a strategy relies on -- deep copies, no shared state between
// replicas on threads, gradient storage that stays put.
#include "core/train/layers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "finite_difference.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using testing_fd::expect_gradient_close;
using testing_fd::numerical_gradient;
using testing_fd::random_tensor;
using testing_fd::weighted_sum;

double abs_sum(const Tensor& t) {
  double total = 0.0;
  for (float v : t.values()) total += std::fabs(static_cast<double>(v));
  return total;
}

// Smallest |pre-activation| of `layer` on x: finite differences across
// ReLU's kink measure the kink, not the gradient, so ReLU checks need every
// unit at least a few steps away from it.
float relu_margin(const Dense& layer, const Tensor& x) {
  StatusOr<Dense> linear = Dense::from_parameters(layer.kernel(), layer.bias(), Activation::kNone);
  StatusOr<Tensor> z = linear->predict(x);
  float margin = INFINITY;
  for (float v : z->values()) margin = std::min(margin, std::fabs(v));
  return margin;
}

class DenseGradientTest : public ::testing::TestWithParam<Activation> {};

TEST_P(DenseGradientTest, BackwardMatchesFiniteDifferences) {
  const Activation activation = GetParam();
  // The first seed whose pre-activations clear ReLU's kink by 0.05 (50
  // steps); the search is deterministic, so the test is too.
  for (uint32_t seed = 1; seed < 100; ++seed) {
    std::mt19937 rng(seed);
    StatusOr<Dense> created = Dense::create(4, 3, activation, rng);
    ASSERT_TRUE(created.ok()) << created.status();
    Dense layer = *created;
    layer.bias() = random_tensor({3}, rng, -0.5f, 0.5f);  // a zero bias tests less
    Tensor x = random_tensor({5, 4}, rng);
    const Tensor w = random_tensor({5, 3}, rng);
    if (activation == Activation::kRelu && relu_margin(layer, x) < 0.05f) continue;

    ASSERT_TRUE(layer.forward(x).ok());
    StatusOr<Tensor> dx = layer.backward(w);
    ASSERT_TRUE(dx.ok()) << dx.status();
    auto objective = [&] { return weighted_sum(*layer.predict(x), w); };
    expect_gradient_close(*dx, numerical_gradient(&x, objective), "dL/dx");
    expect_gradient_close(layer.kernel_gradient(), numerical_gradient(&layer.kernel(), objective),
                          "dL/dkernel");
    expect_gradient_close(layer.bias_gradient(), numerical_gradient(&layer.bias(), objective),
                          "dL/dbias");
    if (activation == Activation::kRelu) {
      // The mask must have been exercised: some units off, some on.
      StatusOr<Tensor> y = layer.predict(x);
      const auto zeros = std::count(y->values().begin(), y->values().end(), 0.0f);
      EXPECT_GT(zeros, 0);
      EXPECT_LT(zeros, y->size());
    }
    return;
  }
  FAIL() << "no seed gave pre-activations away from ReLU's kink";
}

INSTANTIATE_TEST_SUITE_P(Activations, DenseGradientTest,
                         ::testing::Values(Activation::kNone, Activation::kRelu),
                         [](const auto& param_info) { return std::string(activation_name(param_info.param)); });

TEST(DenseTest, GlorotUniformIsPortableAndWithinItsLimit) {
  // mt19937's first output for its default seed 5489 is fixed by the
  // standard (3499211612); its top 24 bits give the first weight.
  std::mt19937 rng(5489u);
  const Tensor k = glorot_uniform(30, 20, rng);
  const double limit = std::sqrt(6.0 / 50.0);
  const double first = (2.0 * (3499211612u >> 8) / 16777216.0 - 1.0) * limit;
  EXPECT_FLOAT_EQ(k[0], static_cast<float>(first));
  double sum = 0.0;
  for (float v : k.values()) {
    EXPECT_LE(std::fabs(static_cast<double>(v)), limit);
    sum += static_cast<double>(v);
  }
  EXPECT_LT(std::fabs(sum / static_cast<double>(k.size())), 0.05 * limit);
}

TEST(DenseTest, CreateIsDeterministicForASeedAndDiffersAcrossSeeds) {
  std::mt19937 a(7), b(7), c(8);
  StatusOr<Dense> la = Dense::create(8, 4, Activation::kRelu, a);
  StatusOr<Dense> lb = Dense::create(8, 4, Activation::kRelu, b);
  StatusOr<Dense> lc = Dense::create(8, 4, Activation::kRelu, c);
  ASSERT_TRUE(la.ok() && lb.ok() && lc.ok());
  EXPECT_EQ(max_abs_difference(la->kernel(), lb->kernel()), 0.0);
  EXPECT_GT(max_abs_difference(la->kernel(), lc->kernel()), 0.0);
  EXPECT_EQ(la->bias().shape(), (Shape{4}));
  EXPECT_EQ(abs_sum(la->bias()), 0.0);
}

TEST(DenseTest, BadSizesAndShapesAreInvalidArguments) {
  std::mt19937 rng(1);
  StatusOr<Dense> zero = Dense::create(0, 3, Activation::kNone, rng);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), Code::kInvalidArgument);
  StatusOr<Dense> bias = Dense::from_parameters(Tensor({4, 3}), Tensor({4}), Activation::kNone);
  ASSERT_FALSE(bias.ok());
  EXPECT_THAT(bias.status().message(), HasSubstr("f32[3]"));

  StatusOr<Dense> layer = Dense::create(4, 3, Activation::kNone, rng);
  StatusOr<Tensor> y = layer->forward(Tensor({2, 5}));
  ASSERT_FALSE(y.ok());
  EXPECT_THAT(y.status().message(), HasSubstr("[batch, 4]"));
  EXPECT_THAT(y.status().message(), HasSubstr("f32[2, 5]"));
}

TEST(DenseTest, BackwardNeedsAForwardAndAGradientOfItsOutputShape) {
  std::mt19937 rng(1);
  Dense layer = *Dense::create(4, 3, Activation::kRelu, rng);
  StatusOr<Tensor> early = layer.backward(Tensor({2, 3}));
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), Code::kFailedPrecondition);
  ASSERT_TRUE(layer.forward(Tensor({2, 4}, 1.0f)).ok());
  StatusOr<Tensor> wrong = layer.backward(Tensor({3, 3}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("f32[2, 3]"));
}

TEST(DenseTest, GradientsStartAtZeroAndKeepTheirStorageAcrossSteps) {
  std::mt19937 rng(3);
  Dense layer = *Dense::create(4, 3, Activation::kNone, rng);
  std::vector<Tensor*> grads = layer.gradients();
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_EQ(grads[0]->shape(), layer.kernel().shape());
  EXPECT_EQ(grads[1]->shape(), layer.bias().shape());
  EXPECT_EQ(abs_sum(*grads[0]), 0.0);
  const float* before = grads[0]->data();
  ASSERT_TRUE(layer.forward(random_tensor({2, 4}, rng)).ok());
  ASSERT_TRUE(layer.backward(Tensor({2, 3}, 1.0f)).ok());
  EXPECT_EQ(grads[0]->data(), before);  // a buffer given to an all-reduce stays valid
  EXPECT_GT(abs_sum(*grads[0]), 0.0);
  EXPECT_EQ(Dense::weight_names(), (std::vector<std::string>{"kernel", "bias"}));
}

TEST(DenseTest, CopiesAreIndependentReplicasThatRunConcurrently) {
  std::mt19937 rng(11);
  const Dense original = *Dense::create(16, 8, Activation::kRelu, rng);
  constexpr int kReplicas = 4;
  std::vector<Tensor> inputs, upstream;
  for (int r = 0; r < kReplicas; ++r) {
    inputs.push_back(random_tensor({32, 16}, rng));
    upstream.push_back(random_tensor({32, 8}, rng));
  }
  // Sequential reference, then the same work on one thread per copy.
  std::vector<Tensor> want;
  for (int r = 0; r < kReplicas; ++r) {
    Dense layer = original;
    ASSERT_TRUE(layer.forward(inputs[r]).ok());
    ASSERT_TRUE(layer.backward(upstream[r]).ok());
    want.push_back(layer.kernel_gradient());
  }
  std::vector<Dense> replicas(kReplicas, original);
  std::vector<std::thread> threads;
  for (int r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      for (int step = 0; step < 20; ++step) {
        (void)replicas[r].forward(inputs[r]);
        (void)replicas[r].backward(upstream[r]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_EQ(max_abs_difference(replicas[r].kernel_gradient(), want[r]), 0.0) << "replica " << r;
  }
  // Changing a copy's weights leaves the original alone.
  replicas[0].kernel()[0] += 1.0f;
  EXPECT_NE(replicas[0].kernel()[0], original.kernel()[0]);
}

}  // namespace
}  // namespace strata
