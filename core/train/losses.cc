#include "core/train/losses.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/train/tensor_ops.h"

namespace strata {
namespace {

Status check_global_batch(const char* op, int64_t global_batch_size) {
  if (global_batch_size > 0) return Status::Ok();
  return InvalidArgumentError(std::string(op) + ": global_batch_size must be positive, got " +
                              std::to_string(global_batch_size));
}

// Labels are accepted as [batch] or [batch, 1] (Keras allows both for sparse
// labels); anything else is a mistake worth naming.
StatusOr<int64_t> checked_label(const Tensor& labels, int64_t i, int64_t classes) {
  const float value = labels[i];
  if (!std::isfinite(value) || value != std::floor(value) || value < 0.0f ||
      value >= static_cast<float>(classes)) {
    std::ostringstream shown;  // "7", "1.5", "nan": not to_string's "7.000000"
    shown << value;
    return InvalidArgumentError("sparse_softmax_cross_entropy: label " + shown.str() +
                                " of example " + std::to_string(i) +
                                " is not a class id in [0, " + std::to_string(classes) + ")");
  }
  return static_cast<int64_t>(value);
}

}  // namespace

StatusOr<PerExampleLoss> mean_squared_error(const Tensor& predictions, const Tensor& targets) {
  if (predictions.rank() < 1 || predictions.rank() > 2 || !predictions.same_shape(targets)) {
    return InvalidArgumentError("mean_squared_error: predictions " + predictions.describe() +
                                " and targets " + targets.describe() +
                                " must have one shape, [batch] or [batch, features]");
  }
  const int64_t batch = predictions.dim(0);
  const int64_t features = predictions.rank() == 2 ? predictions.dim(1) : 1;
  PerExampleLoss out{Tensor({batch}), Tensor(predictions.shape())};
  out.loss.set_device(predictions.device());
  out.gradient.set_device(predictions.device());
  if (features == 0) return out;  // no features: nothing to be wrong about
  const double inv_features = 1.0 / static_cast<double>(features);
  for (int64_t i = 0; i < batch; ++i) {
    double sum = 0.0;
    for (int64_t j = 0; j < features; ++j) {
      const int64_t k = i * features + j;
      const double diff = static_cast<double>(predictions[k]) - static_cast<double>(targets[k]);
      sum += diff * diff;
      out.gradient[k] = static_cast<float>(2.0 * diff * inv_features);
    }
    out.loss[i] = static_cast<float>(sum * inv_features);
  }
  return out;
}

StatusOr<Tensor> softmax(const Tensor& logits) {
  if (logits.rank() != 2 || logits.dim(1) == 0) {
    return InvalidArgumentError("softmax: logits must be [batch, classes] with classes > 0, got " +
                                logits.describe());
  }
  const int64_t batch = logits.dim(0), classes = logits.dim(1);
  Tensor out = logits;
  for (int64_t i = 0; i < batch; ++i) {
    float* row = out.data() + i * classes;
    const float max = *std::max_element(row, row + classes);
    double total = 0.0;
    for (int64_t j = 0; j < classes; ++j) {
      const double e = std::exp(static_cast<double>(row[j]) - static_cast<double>(max));
      row[j] = static_cast<float>(e);
      total += e;
    }
    for (int64_t j = 0; j < classes; ++j) {
      row[j] = static_cast<float>(static_cast<double>(row[j]) / total);
    }
  }
  return out;
}

StatusOr<PerExampleLoss> sparse_softmax_cross_entropy(const Tensor& logits,
                                                      const Tensor& labels) {
  if (logits.rank() != 2 || logits.dim(1) == 0) {
    return InvalidArgumentError(
        "sparse_softmax_cross_entropy: logits must be [batch, classes] with classes > 0, got " +
        logits.describe());
  }
  const int64_t batch = logits.dim(0), classes = logits.dim(1);
  const bool labels_fit = (labels.rank() == 1 && labels.dim(0) == batch) ||
                          (labels.rank() == 2 && labels.dim(0) == batch && labels.dim(1) == 1);
  if (!labels_fit) {
    return InvalidArgumentError("sparse_softmax_cross_entropy: labels must be [" +
                                std::to_string(batch) + "] class ids for logits " +
                                logits.describe() + ", got " + labels.describe());
  }
  PerExampleLoss out{Tensor({batch}), Tensor(logits.shape())};
  out.loss.set_device(logits.device());
  out.gradient.set_device(logits.device());
  for (int64_t i = 0; i < batch; ++i) {
    STRATA_ASSIGN_OR_RETURN(const int64_t label, checked_label(labels, i, classes));
    const float* row = logits.data() + i * classes;
    float* grad = out.gradient.data() + i * classes;
    // log sum_j exp(z_j) = max + log sum_j exp(z_j - max): no term exceeds 1.
    const double max = static_cast<double>(*std::max_element(row, row + classes));
    double total = 0.0;
    for (int64_t j = 0; j < classes; ++j) total += std::exp(static_cast<double>(row[j]) - max);
    const double log_sum_exp = max + std::log(total);
    out.loss[i] = static_cast<float>(log_sum_exp - static_cast<double>(row[label]));
    for (int64_t j = 0; j < classes; ++j) {
      const double p = std::exp(static_cast<double>(row[j]) - log_sum_exp);
      grad[j] = static_cast<float>(j == label ? p - 1.0 : p);
    }
  }
  return out;
}

StatusOr<Tensor> compute_average_loss(const Tensor& per_example_loss, int64_t global_batch_size) {
  STRATA_RETURN_IF_ERROR(check_global_batch("compute_average_loss", global_batch_size));
  Tensor out = Tensor::scalar(
      static_cast<float>(sum_all(per_example_loss) / static_cast<double>(global_batch_size)));
  out.set_device(per_example_loss.device());
  return out;
}

StatusOr<Tensor> average_loss_gradient(const Tensor& per_example_gradient,
                                       int64_t global_batch_size) {
  STRATA_RETURN_IF_ERROR(check_global_batch("average_loss_gradient", global_batch_size));
  Tensor out = per_example_gradient;
  scale_in_place(out, static_cast<float>(1.0 / static_cast<double>(global_batch_size)));
  return out;
}

}  // namespace strata
