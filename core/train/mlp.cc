#include "core/train/mlp.h"

#include <random>
#include <utility>

namespace strata {

StatusOr<Mlp> Mlp::create(const std::vector<int64_t>& sizes, uint32_t seed,
                          Activation hidden) {
  if (sizes.size() < 2) {
    return InvalidArgumentError("Mlp::create needs at least an input and an output size, got " +
                                shape_string(sizes));
  }
  std::mt19937 rng(seed);
  Mlp mlp;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    const Activation activation = i + 2 < sizes.size() ? hidden : Activation::kNone;
    StatusOr<Dense> layer = Dense::create(sizes[i], sizes[i + 1], activation, rng);
    if (!layer.ok()) {
      return layer.status().prefixed("Mlp::create(" + shape_string(sizes) + ") " +
                                     layer_name(i));
    }
    STRATA_RETURN_IF_ERROR(mlp.add(std::move(layer).value()));
  }
  return mlp;
}

Status Mlp::add(Dense layer) {
  if (!layers_.empty() && layers_.back().output_size() != layer.input_size()) {
    return InvalidArgumentError(
        "Mlp::add: " + layer_name(layers_.size()) + " takes " +
        std::to_string(layer.input_size()) + " inputs but " + layer_name(layers_.size() - 1) +
        " gives " + std::to_string(layers_.back().output_size()));
  }
  layers_.push_back(std::move(layer));
  return Status::Ok();
}

StatusOr<Tensor> Mlp::predict(const Tensor& x) const {
  Tensor h = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    StatusOr<Tensor> next = layers_[i].predict(h);
    if (!next.ok()) return next.status().prefixed(layer_name(i));
    h = std::move(next).value();
  }
  return h;
}

StatusOr<Tensor> Mlp::forward(const Tensor& x) {
  Tensor h = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    StatusOr<Tensor> next = layers_[i].forward(h);
    if (!next.ok()) return next.status().prefixed(layer_name(i));
    h = std::move(next).value();
  }
  return h;
}

StatusOr<Tensor> Mlp::backward(const Tensor& grad_out) {
  Tensor g = grad_out;
  for (size_t i = layers_.size(); i-- > 0;) {
    StatusOr<Tensor> next = layers_[i].backward(g);
    if (!next.ok()) return next.status().prefixed(layer_name(i));
    g = std::move(next).value();
  }
  return g;
}

std::vector<Tensor*> Mlp::parameters() {
  std::vector<Tensor*> out;
  for (Dense& layer : layers_) {
    for (Tensor* t : layer.weights()) out.push_back(t);
  }
  return out;
}

std::vector<const Tensor*> Mlp::parameters() const {
  std::vector<const Tensor*> out;
  for (const Dense& layer : layers_) {
    for (const Tensor* t : layer.weights()) out.push_back(t);
  }
  return out;
}

std::vector<Tensor*> Mlp::gradients() {
  std::vector<Tensor*> out;
  for (Dense& layer : layers_) {
    for (Tensor* t : layer.gradients()) out.push_back(t);
  }
  return out;
}

std::vector<const Tensor*> Mlp::gradients() const {
  std::vector<const Tensor*> out;
  for (const Dense& layer : layers_) {
    for (const Tensor* t : layer.gradients()) out.push_back(t);
  }
  return out;
}

std::vector<std::string> Mlp::parameter_names() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < layers_.size(); ++i) {
    for (const std::string& weight : Dense::weight_names()) {
      out.push_back(layer_name(i) + "/" + weight);
    }
  }
  return out;
}

int64_t Mlp::num_parameter_elements() const {
  int64_t total = 0;
  for (const Tensor* t : parameters()) total += t->size();
  return total;
}

}  // namespace strata
