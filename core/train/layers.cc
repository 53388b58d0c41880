#include "core/train/layers.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/train/tensor_ops.h"

namespace strata {
namespace {

// Gradients are written into the tensors that already hold them: their
// storage (and the device a strategy tagged them with) stays put from step
// to step, so a buffer handed to an all-reduce once remains valid.
Status overwrite(Tensor& gradient, const Tensor& value) {
  if (!gradient.same_shape(value)) {
    return FailedPreconditionError("Dense: gradient " + gradient.describe() +
                                   " no longer matches its parameter's gradient " +
                                   value.describe() + " (was a parameter replaced?)");
  }
  std::copy(value.values().begin(), value.values().end(), gradient.values().begin());
  return Status::Ok();
}

}  // namespace

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
  }
  return "unknown";
}

Tensor glorot_uniform(int64_t fan_in, int64_t fan_out, std::mt19937& rng) {
  Tensor out({fan_in, fan_out});
  const double limit = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  for (float& v : out.values()) {
    // 24 random bits give every float in [0, 1) on a uniform grid; mt19937's
    // output sequence is fixed by the standard, so this is portable.
    const double unit = static_cast<double>(rng() >> 8) * (1.0 / 16777216.0);
    v = static_cast<float>((2.0 * unit - 1.0) * limit);
  }
  return out;
}

Dense::Dense(Tensor kernel, Tensor bias, Activation activation)
    : kernel_(std::move(kernel)),
      bias_(std::move(bias)),
      kernel_grad_(kernel_.shape()),
      bias_grad_(bias_.shape()),
      activation_(activation) {
  kernel_grad_.set_device(kernel_.device());
  bias_grad_.set_device(bias_.device());
}

StatusOr<Dense> Dense::create(int64_t in, int64_t out, Activation activation,
                              std::mt19937& rng) {
  if (in <= 0 || out <= 0) {
    return InvalidArgumentError("Dense(" + std::to_string(in) + ", " + std::to_string(out) +
                                "): input and output sizes must be positive");
  }
  Tensor kernel = glorot_uniform(in, out, rng);
  return Dense(std::move(kernel), Tensor({out}), activation);
}

StatusOr<Dense> Dense::from_parameters(Tensor kernel, Tensor bias, Activation activation) {
  if (kernel.rank() != 2 || kernel.dim(0) <= 0 || kernel.dim(1) <= 0) {
    return InvalidArgumentError("Dense: kernel must be [in, out] with positive sizes, got " +
                                kernel.describe());
  }
  if (bias.rank() != 1 || bias.dim(0) != kernel.dim(1)) {
    return InvalidArgumentError("Dense: bias must be f32[" + std::to_string(kernel.dim(1)) +
                                "] to match kernel " + kernel.describe() + ", got " +
                                bias.describe());
  }
  return Dense(std::move(kernel), std::move(bias), activation);
}

StatusOr<Tensor> Dense::apply(const Tensor& x) const {
  if (x.rank() != 2 || x.dim(1) != input_size()) {
    return InvalidArgumentError("Dense(" + std::to_string(input_size()) + " -> " +
                                std::to_string(output_size()) + "): input must be [batch, " +
                                std::to_string(input_size()) + "], got " + x.describe());
  }
  STRATA_ASSIGN_OR_RETURN(Tensor y, matmul(x, kernel_));
  STRATA_RETURN_IF_ERROR(add_row_vector_in_place(y, bias_));
  if (activation_ == Activation::kRelu) return relu(y);
  return y;
}

StatusOr<Tensor> Dense::predict(const Tensor& x) const { return apply(x); }

StatusOr<Tensor> Dense::forward(const Tensor& x) {
  STRATA_ASSIGN_OR_RETURN(Tensor y, apply(x));
  cached_input_ = x;
  cached_output_ = y;
  has_cache_ = true;
  return y;
}

StatusOr<Tensor> Dense::backward(const Tensor& grad_out) {
  if (!has_cache_) {
    return FailedPreconditionError("Dense::backward called before forward: there is no "
                                   "cached input to differentiate at");
  }
  if (!grad_out.same_shape(cached_output_)) {
    return InvalidArgumentError("Dense::backward: gradient " + grad_out.describe() +
                                " does not match the last forward's output " +
                                cached_output_.describe());
  }
  // dL/dz, z = x·W + b being the pre-activation.
  Tensor grad_z;
  if (activation_ == Activation::kRelu) {
    STRATA_ASSIGN_OR_RETURN(grad_z, relu_backward(grad_out, cached_output_));
  } else {
    grad_z = grad_out;
  }
  STRATA_ASSIGN_OR_RETURN(Tensor kernel_grad, matmul_transpose_a(cached_input_, grad_z));
  STRATA_ASSIGN_OR_RETURN(Tensor bias_grad, sum_over_rows(grad_z));
  STRATA_RETURN_IF_ERROR(overwrite(kernel_grad_, kernel_grad));
  STRATA_RETURN_IF_ERROR(overwrite(bias_grad_, bias_grad));
  return matmul_transpose_b(grad_z, kernel_);
}

}  // namespace strata
