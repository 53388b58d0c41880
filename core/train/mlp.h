// Mlp: a stack of Dense layers run in order, with the parameter list an
// optimizer, an all-reduce and a checkpoint walk. The order is fixed (layer
// by layer, kernel before bias) and every parameter has a name,
// "dense_<i>/kernel" and "dense_<i>/bias", so a checkpoint written under one
// strategy finds the same tensors under another.
//
// Like Dense, an Mlp copies deeply and shares nothing: a strategy clones it
// once per replica and runs the clones on their own threads.
#ifndef STRATA_CORE_TRAIN_MLP_H_
#define STRATA_CORE_TRAIN_MLP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/tensor/tensor.h"
#include "core/train/layers.h"

namespace strata {

class Mlp {
 public:
  Mlp() = default;  // no layers: forward is the identity

  // sizes = {in, hidden..., out}: a Dense layer between each consecutive
  // pair, `hidden` activation on all but the last, which stays linear (it
  // gives logits or regression outputs). Weights come from one
  // std::mt19937(seed), layer by layer, so a seed fixes the whole model.
  static StatusOr<Mlp> create(const std::vector<int64_t>& sizes, uint32_t seed,
                              Activation hidden = Activation::kRelu);

  // Appends a layer; its input size must be the current output size.
  Status add(Dense layer);

  size_t num_layers() const { return layers_.size(); }
  Dense& layer(size_t i) { return layers_.at(i); }
  const Dense& layer(size_t i) const { return layers_.at(i); }

  // See Dense: predict() caches nothing and may be shared between threads,
  // forward() caches for backward(), backward() overwrites every gradient
  // and returns dL/dx for the network's input.
  StatusOr<Tensor> predict(const Tensor& x) const;
  StatusOr<Tensor> forward(const Tensor& x);
  StatusOr<Tensor> backward(const Tensor& grad_out);

  // Parallel lists, same order: parameters()[i] is named
  // parameter_names()[i] and its gradient is gradients()[i]. Pointers are
  // into this Mlp (see Dense::weights()).
  std::vector<Tensor*> parameters();
  std::vector<const Tensor*> parameters() const;
  std::vector<Tensor*> gradients();
  std::vector<const Tensor*> gradients() const;
  std::vector<std::string> parameter_names() const;
  int64_t num_parameter_elements() const;

 private:
  static std::string layer_name(size_t i) { return "dense_" + std::to_string(i); }

  std::vector<Dense> layers_;
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_MLP_H_
