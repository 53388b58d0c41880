// End to end on one device: the digits through the whole input pipeline
// (shuffle, repeat, batch, prefetch), a 64-64-10 MLP, cross-entropy
// averaged over the batch, and plain SGD. If any backward pass, the loss
// gradient or the pipeline were subtly wrong, accuracy would stall far
// below what this tiny problem allows.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "core/data/dataset.h"
#include "core/data/digits.h"
#include "core/train/losses.h"
#include "core/train/mlp.h"
#include "core/train/tensor_ops.h"

namespace strata {
namespace {

// Fraction of rows whose largest logit is the label.
double accuracy(const Mlp& model, const DigitsData& data) {
  StatusOr<Tensor> logits = model.predict(data.features);
  StatusOr<Tensor> predicted = argmax_per_row(*logits);
  int64_t correct = 0;
  for (int64_t i = 0; i < data.labels.size(); ++i) correct += (*predicted)[i] == data.labels[i];
  return static_cast<double>(correct) / static_cast<double>(data.labels.size());
}

TEST(DigitsTrainingTest, SgdOnAnMlpLearnsTheTrainingSet) {
  constexpr int64_t kBatch = 64;
  constexpr int64_t kSteps = 400;
  constexpr float kLearningRate = 0.5f;
  const auto start = std::chrono::steady_clock::now();

  StatusOr<std::string> path = find_digits_file(STRATA_SOURCE_DIR);
  ASSERT_TRUE(path.ok()) << path.status();
  StatusOr<DigitsData> data = load_digits_csv_gz(*path);
  ASSERT_TRUE(data.ok()) << data.status();

  StatusOr<Dataset> ds = Dataset::from_arrays({data->features, data->labels});
  ASSERT_TRUE(ds.ok()) << ds.status();
  ASSERT_TRUE((ds = ds->shuffle(2048, /*seed=*/17)).ok());
  ASSERT_TRUE((ds = ds->repeat()).ok());
  ASSERT_TRUE((ds = ds->batch(kBatch, /*drop_remainder=*/true)).ok());
  ASSERT_TRUE((ds = ds->prefetch(2)).ok());
  ASSERT_TRUE((ds = ds->take(kSteps)).ok());
  EXPECT_EQ(ds->cardinality(), kSteps);

  StatusOr<Mlp> created = Mlp::create({64, 64, 10}, /*seed=*/3);
  ASSERT_TRUE(created.ok()) << created.status();
  Mlp model = *created;
  const double initial_accuracy = accuracy(model, *data);

  auto it = ds->make_iterator();
  float first_loss = 0.0f, last_loss = 0.0f;
  int64_t steps = 0;
  while (true) {
    StatusOr<std::optional<Element>> batch = it->next();
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (!batch->has_value()) break;
    const Tensor& x = (**batch)[0];
    const Tensor& y = (**batch)[1];
    ASSERT_EQ(x.shape(), (Shape{kBatch, 64}));

    StatusOr<Tensor> logits = model.forward(x);
    ASSERT_TRUE(logits.ok()) << logits.status();
    StatusOr<PerExampleLoss> loss = sparse_softmax_cross_entropy(*logits, y);
    ASSERT_TRUE(loss.ok()) << loss.status();
    const float mean_loss = compute_average_loss(loss->loss, kBatch)->item();
    if (steps == 0) first_loss = mean_loss;
    last_loss = mean_loss;
    ASSERT_TRUE(model.backward(*average_loss_gradient(loss->gradient, kBatch)).ok());

    const std::vector<Tensor*> params = model.parameters();
    const std::vector<Tensor*> grads = model.gradients();
    for (size_t p = 0; p < params.size(); ++p) {
      ASSERT_TRUE(axpy_in_place(-kLearningRate, *grads[p], *params[p]).ok());
    }
    ++steps;
  }
  EXPECT_EQ(steps, kSteps);

  const double final_accuracy = accuracy(model, *data);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("final_accuracy", std::to_string(final_accuracy));
  RecordProperty("seconds", std::to_string(seconds));
  std::printf("digits: accuracy %.3f -> %.3f, loss %.3f -> %.3f, %lld steps in %.2f s\n",
              initial_accuracy, final_accuracy, static_cast<double>(first_loss),
              static_cast<double>(last_loss), static_cast<long long>(steps), seconds);
  EXPECT_LT(initial_accuracy, 0.3);
  EXPECT_GT(final_accuracy, 0.85);
  EXPECT_LT(last_loss, first_loss);
}

}  // namespace
}  // namespace strata
