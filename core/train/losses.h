// Losses, computed per example as in Keras with reduction NONE, and the
// reduction a distributed step uses: compute_average_loss divides the sum of
// a replica's per-example losses by the GLOBAL batch size (as
// tf.nn.compute_average_loss does), so that when every replica's gradients
// are summed by the all-reduce, the result is exactly the gradient of the
// mean loss over the global batch -- the single-device gradient. Dividing by
// the per-replica batch instead would scale it by the number of replicas.
//
// Every loss returns, with the losses, the gradient of each example's own
// loss with respect to that example's predictions; average_loss_gradient
// turns it into the gradient of compute_average_loss's result, to feed to
// the model's backward().
#ifndef STRATA_CORE_TRAIN_LOSSES_H_
#define STRATA_CORE_TRAIN_LOSSES_H_

#include <cstdint>

#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

struct PerExampleLoss {
  Tensor loss;      // [batch]
  Tensor gradient;  // d loss[i] / d predictions[i, ...], shaped like predictions
};

// predictions and targets [batch] or [batch, features], the same shape:
// loss[i] = mean over features of (p - t)^2 (Keras' MeanSquaredError).
StatusOr<PerExampleLoss> mean_squared_error(const Tensor& predictions, const Tensor& targets);

// logits [batch, classes]; labels [batch] (or [batch, 1]) of class ids held
// as floats, each an integer in [0, classes). loss[i] = -log softmax(logits
// [i])[label[i]], computed with log-sum-exp so large logits do not
// overflow. gradient = softmax(logits) - one_hot(labels).
// (tf.nn.sparse_softmax_cross_entropy_with_logits.)
StatusOr<PerExampleLoss> sparse_softmax_cross_entropy(const Tensor& logits, const Tensor& labels);

// Row-wise softmax of logits [batch, classes], shifted by each row's max.
StatusOr<Tensor> softmax(const Tensor& logits);

// sum(per_example_loss) / global_batch_size as a scalar tensor, the sum of
// every element whatever the rank (tf.nn.compute_average_loss without
// sample weights). global_batch_size must be positive; it is the batch of
// the whole step across all replicas, not this replica's.
StatusOr<Tensor> compute_average_loss(const Tensor& per_example_loss, int64_t global_batch_size);

// The gradient of compute_average_loss with respect to the predictions:
// per_example_gradient / global_batch_size.
StatusOr<Tensor> average_loss_gradient(const Tensor& per_example_gradient,
                                       int64_t global_batch_size);

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_LOSSES_H_
