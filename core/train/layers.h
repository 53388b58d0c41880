// Dense: the one layer of the training layer, y = act(x · kernel + bias),
// with an explicit backward pass instead of an autodiff engine.
//
// A strategy keeps one copy of the model per replica and runs forward and
// backward for every replica concurrently, each on its own thread. So a
// layer owns everything it touches (parameters, gradients and what forward
// caches for backward), holds no static or shared mutable state, and copies
// deeply: `Dense copy = layer;` is an independent replica.
//
// Gradients are overwritten, not accumulated, by every backward(): one
// forward/backward per step is the contract, and summing across replicas is
// the strategy's all-reduce, not the layer's.
#ifndef STRATA_CORE_TRAIN_LAYERS_H_
#define STRATA_CORE_TRAIN_LAYERS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

enum class Activation { kNone, kRelu };
const char* activation_name(Activation activation);  // "none", "relu"

// Glorot (Xavier) uniform: U(-limit, limit), limit = sqrt(6 / (fan_in +
// fan_out)), shape [fan_in, fan_out]. The uniform draws are made from the
// raw 32-bit outputs of `rng` (std::uniform_real_distribution is
// implementation-defined), so a seed gives the same weights everywhere.
Tensor glorot_uniform(int64_t fan_in, int64_t fan_out, std::mt19937& rng);

class Dense {
 public:
  // Kernel [in, out] drawn with glorot_uniform from `rng`, bias [out] zero
  // (Keras' defaults). in and out must be positive.
  static StatusOr<Dense> create(int64_t in, int64_t out, Activation activation,
                                std::mt19937& rng);
  // Given parameters: kernel [in, out] and bias [out]; for tests, and for
  // building a layer from restored values.
  static StatusOr<Dense> from_parameters(Tensor kernel, Tensor bias, Activation activation);

  int64_t input_size() const { return kernel_.dim(0); }
  int64_t output_size() const { return kernel_.dim(1); }
  Activation activation() const { return activation_; }

  // x [batch, in] -> [batch, out]. predict() caches nothing, so it may run
  // on a shared layer from several threads; forward() keeps x and the output
  // for the next backward().
  StatusOr<Tensor> predict(const Tensor& x) const;
  StatusOr<Tensor> forward(const Tensor& x);
  // grad_out = dL/dy [batch, out] for the last forward(): stores dL/dkernel
  // and dL/dbias, returns dL/dx [batch, in]. FAILED_PRECONDITION without a
  // forward() before it.
  StatusOr<Tensor> backward(const Tensor& grad_out);

  Tensor& kernel() { return kernel_; }
  const Tensor& kernel() const { return kernel_; }
  Tensor& bias() { return bias_; }
  const Tensor& bias() const { return bias_; }
  const Tensor& kernel_gradient() const { return kernel_grad_; }
  const Tensor& bias_gradient() const { return bias_grad_; }

  // {kernel, bias} and their gradients, in that order; names in
  // weight_names(). Gradients start as zeros of the parameters' shapes, so
  // an optimizer or all-reduce can be set up before the first step, and
  // backward() writes into them in place, so their storage does not move
  // between steps. The pointers are into this object: they dangle once it
  // is moved or freed, and a copy has its own.
  std::vector<Tensor*> weights() { return {&kernel_, &bias_}; }
  std::vector<const Tensor*> weights() const { return {&kernel_, &bias_}; }
  std::vector<Tensor*> gradients() { return {&kernel_grad_, &bias_grad_}; }
  std::vector<const Tensor*> gradients() const { return {&kernel_grad_, &bias_grad_}; }
  static std::vector<std::string> weight_names() { return {"kernel", "bias"}; }

 private:
  Dense(Tensor kernel, Tensor bias, Activation activation);
  StatusOr<Tensor> apply(const Tensor& x) const;

  Tensor kernel_;
  Tensor bias_;
  Tensor kernel_grad_;
  Tensor bias_grad_;
  Activation activation_ = Activation::kNone;
  // What backward() needs from the last forward(): its input (for the
  // kernel gradient) and its output (for ReLU's mask).
  Tensor cached_input_;
  Tensor cached_output_;
  bool has_cache_ = false;
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_LAYERS_H_
