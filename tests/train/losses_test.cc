// Losses: values on hand-worked examples, gradients against finite
// differences, numerical stability, label checking, and the reduction a
// distributed step depends on: replicas that average over the GLOBAL batch
// produce gradients that add up to the single-device gradient.
#include "core/train/losses.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "core/train/mlp.h"
#include "core/train/tensor_ops.h"
#include "finite_difference.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using testing_fd::expect_gradient_close;
using testing_fd::numerical_gradient;
using testing_fd::random_tensor;

// sum_i c[i] * loss[i]: weighting examples differently makes the check see
// each example's gradient, not only their sum.
double weighted_losses(const Tensor& loss, const Tensor& c) {
  double total = 0.0;
  for (int64_t i = 0; i < loss.size(); ++i) {
    total += static_cast<double>(loss[i]) * static_cast<double>(c[i]);
  }
  return total;
}

// Per-example gradient scaled row by row: d(sum_i c[i] loss[i]) / dp.
Tensor weight_rows(Tensor gradient, const Tensor& c) {
  const int64_t row = gradient.size() / c.size();
  for (int64_t i = 0; i < gradient.size(); ++i) gradient[i] *= c[i / row];
  return gradient;
}

TEST(LossesTest, MeanSquaredErrorIsTheMeanOverFeaturesPerExample) {
  const Tensor p({2, 2}, std::vector<float>{1, 2, 3, 4});
  const Tensor t({2, 2}, std::vector<float>{1, 0, 0, 0});
  StatusOr<PerExampleLoss> mse = mean_squared_error(p, t);
  ASSERT_TRUE(mse.ok()) << mse.status();
  EXPECT_THAT(mse->loss.values(), ElementsAre(2.0f, 12.5f));
  EXPECT_THAT(mse->gradient.values(), ElementsAre(0.0f, 2.0f, 3.0f, 4.0f));  // 2(p-t)/2

  StatusOr<PerExampleLoss> flat = mean_squared_error(Tensor({2}, std::vector<float>{3, -1}),
                                                     Tensor({2}, std::vector<float>{1, 1}));
  ASSERT_TRUE(flat.ok());
  EXPECT_THAT(flat->loss.values(), ElementsAre(4.0f, 4.0f));

  StatusOr<PerExampleLoss> bad = mean_squared_error(p, Tensor({2, 3}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("f32[2, 3]"));
}

TEST(LossesTest, MeanSquaredErrorGradientMatchesFiniteDifferences) {
  std::mt19937 rng(2);
  Tensor p = random_tensor({4, 3}, rng);
  const Tensor t = random_tensor({4, 3}, rng);
  const Tensor c = random_tensor({4}, rng, 0.5f, 2.0f);
  auto objective = [&] { return weighted_losses(mean_squared_error(p, t)->loss, c); };
  StatusOr<PerExampleLoss> mse = mean_squared_error(p, t);
  expect_gradient_close(weight_rows(mse->gradient, c), numerical_gradient(&p, objective), "mse");
}

TEST(LossesTest, CrossEntropyOnHandWorkedLogits) {
  // Equal logits: -log(1/2). A correct confident logit: ~0; a wrong one:
  // the margin, with no overflow from exp(1000).
  const Tensor logits({3, 2}, std::vector<float>{0, 0, 1000, 0, 1000, 0});
  const Tensor labels({3}, std::vector<float>{1, 0, 1});
  StatusOr<PerExampleLoss> ce = sparse_softmax_cross_entropy(logits, labels);
  ASSERT_TRUE(ce.ok()) << ce.status();
  EXPECT_THAT(ce->loss.values(),
              ElementsAre(FloatNear(std::log(2.0f), 1e-6f), FloatNear(0.0f, 1e-6f),
                          FloatNear(1000.0f, 1e-3f)));
  EXPECT_THAT(ce->gradient.values(), ElementsAre(0.5f, -0.5f, 0.0f, 0.0f, 1.0f, -1.0f));
  // [batch, 1] labels are accepted too.
  EXPECT_TRUE(sparse_softmax_cross_entropy(logits, Tensor({3, 1}, std::vector<float>{1, 0, 1}))
                  .ok());
}

TEST(LossesTest, CrossEntropyGradientMatchesFiniteDifferencesAndRowsSumToZero) {
  std::mt19937 rng(4);
  Tensor logits = random_tensor({5, 4}, rng, -3.0f, 3.0f);
  const Tensor labels({5}, std::vector<float>{0, 3, 1, 2, 3});
  const Tensor c = random_tensor({5}, rng, 0.5f, 2.0f);
  auto objective = [&] {
    return weighted_losses(sparse_softmax_cross_entropy(logits, labels)->loss, c);
  };
  StatusOr<PerExampleLoss> ce = sparse_softmax_cross_entropy(logits, labels);
  expect_gradient_close(weight_rows(ce->gradient, c), numerical_gradient(&logits, objective),
                        "cross-entropy");
  StatusOr<Tensor> row_sums = matmul(ce->gradient, Tensor({4, 1}, 1.0f));
  for (float s : row_sums->values()) EXPECT_NEAR(s, 0.0f, 1e-6f);
}

TEST(LossesTest, CrossEntropyRejectsLabelsThatAreNotClassIds) {
  const Tensor logits({2, 3});
  for (float bad : {3.0f, -1.0f, 1.5f, NAN}) {
    StatusOr<PerExampleLoss> ce =
        sparse_softmax_cross_entropy(logits, Tensor({2}, std::vector<float>{0, bad}));
    ASSERT_FALSE(ce.ok()) << bad;
    EXPECT_EQ(ce.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(ce.status().message(), HasSubstr("of example 1"));
    EXPECT_THAT(ce.status().message(), HasSubstr("[0, 3)"));
  }
  StatusOr<PerExampleLoss> shape = sparse_softmax_cross_entropy(logits, Tensor({3}));
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("labels must be [2]"));
}

TEST(LossesTest, SoftmaxRowsAreDistributionsEvenForHugeLogits) {
  StatusOr<Tensor> s = softmax(Tensor({2, 3}, std::vector<float>{1, 2, 3, 1e30f, 0, -1e30f}));
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->at(0, 0) + s->at(0, 1) + s->at(0, 2), 1.0f, 1e-6f);
  EXPECT_NEAR(s->at(0, 2) / s->at(0, 1), std::exp(1.0f), 1e-5f);
  EXPECT_THAT(s->values().subspan(3), ElementsAre(1.0f, 0.0f, 0.0f));
  EXPECT_FALSE(softmax(Tensor({3})).ok());
}

TEST(ComputeAverageLossTest, DividesTheSumByTheGlobalBatchNotTheLocalOne) {
  const Tensor local({4}, std::vector<float>{1, 2, 3, 4});
  StatusOr<Tensor> avg = compute_average_loss(local, /*global_batch_size=*/8);
  ASSERT_TRUE(avg.ok());
  EXPECT_EQ(avg->rank(), 0);
  EXPECT_FLOAT_EQ(avg->item(), 10.0f / 8.0f);
  EXPECT_FLOAT_EQ(compute_average_loss(local, 4)->item(), 2.5f);  // one replica: the mean
  EXPECT_FLOAT_EQ(compute_average_loss(Tensor({0}), 4)->item(), 0.0f);
  for (int64_t bad : {0, -3}) {
    StatusOr<Tensor> r = compute_average_loss(local, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), HasSubstr("global_batch_size must be positive"));
    EXPECT_FALSE(average_loss_gradient(local, bad).ok());
  }
  StatusOr<Tensor> g = average_loss_gradient(local, 8);
  EXPECT_THAT(g->values(), ElementsAre(0.125f, 0.25f, 0.375f, 0.5f));
}

// What tf.nn.compute_average_loss exists for: two replicas, each with half
// of a global batch, each averaging over the global batch; the all-reduce
// (a sum) of their gradients and losses is the single-device result.
TEST(ComputeAverageLossTest, ReplicaGradientsAddUpToTheSingleDeviceGradient) {
  constexpr int64_t kGlobal = 16, kReplicas = 2, kLocal = kGlobal / kReplicas;
  const Mlp model = *Mlp::create({6, 10, 3}, 9);
  std::mt19937 rng(9);
  const Tensor x = random_tensor({kGlobal, 6}, rng);
  Tensor labels({kGlobal});
  for (int64_t i = 0; i < kGlobal; ++i) labels[i] = static_cast<float>(i % 3);

  auto step = [](Mlp& m, const Tensor& xs, const Tensor& ys, int64_t global, float& loss_out) {
    StatusOr<PerExampleLoss> loss = sparse_softmax_cross_entropy(*m.forward(xs), ys);
    loss_out = compute_average_loss(loss->loss, global)->item();
    ASSERT_TRUE(m.backward(*average_loss_gradient(loss->gradient, global)).ok());
  };
  Mlp single = model;
  float single_loss = 0.0f;
  step(single, x, labels, kGlobal, single_loss);

  std::vector<Mlp> replicas(kReplicas, model);
  std::vector<float> losses(kReplicas);
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      step(replicas[static_cast<size_t>(r)], x.slice_rows(r * kLocal, (r + 1) * kLocal),
           labels.slice_rows(r * kLocal, (r + 1) * kLocal), kGlobal,
           losses[static_cast<size_t>(r)]);
    });
  }
  for (std::thread& t : threads) t.join();

  EXPECT_NEAR(losses[0] + losses[1], single_loss, 1e-6f);
  for (size_t p = 0; p < single.gradients().size(); ++p) {
    Tensor sum = *replicas[0].gradients()[p];
    ASSERT_TRUE(add_in_place(sum, *replicas[1].gradients()[p]).ok());
    EXPECT_LE(max_abs_difference(sum, *single.gradients()[p]), 1e-6)
        << single.parameter_names()[p];
  }
}

}  // namespace
}  // namespace strata
