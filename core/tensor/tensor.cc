#include "core/tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata {

std::string shape_string(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

int64_t shape_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Tensor::Tensor(Shape shape, float fill)
    : shape_(std::move(shape)),
      values_(static_cast<size_t>(shape_elements(shape_)), fill) {}

Tensor::Tensor(Shape shape, std::vector<float> values)
    : shape_(std::move(shape)), values_(std::move(values)) {}

StatusOr<Tensor> Tensor::from_values(Shape shape, std::vector<float> values) {
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgumentError("negative dimension in shape " + shape_string(shape));
  }
  const int64_t want = shape_elements(shape);
  if (want != static_cast<int64_t>(values.size())) {
    return InvalidArgumentError("shape " + shape_string(shape) + " holds " +
                                std::to_string(want) + " elements but " +
                                std::to_string(values.size()) + " values were given");
  }
  return Tensor(std::move(shape), std::move(values));
}

StatusOr<Tensor> Tensor::reshape(Shape shape) const {
  if (shape_elements(shape) != size()) {
    return InvalidArgumentError("cannot reshape " + describe() + " to " + shape_string(shape) +
                                ": element counts differ");
  }
  Tensor out(std::move(shape), values_);
  out.device_ = device_;
  return out;
}

Tensor Tensor::slice_rows(int64_t begin, int64_t end) const {
  const int64_t row = rank() == 0 ? 1 : size() / std::max<int64_t>(shape_[0], 1);
  Shape shape = shape_;
  if (!shape.empty()) shape[0] = end - begin;
  std::vector<float> values(values_.begin() + begin * row, values_.begin() + end * row);
  Tensor out(std::move(shape), std::move(values));
  out.device_ = device_;
  return out;
}

StatusOr<Tensor> Tensor::concat_rows(std::span<const Tensor> parts) {
  if (parts.empty()) return InvalidArgumentError("concat_rows of no tensors");
  Shape shape = parts[0].shape();
  if (shape.empty()) return InvalidArgumentError("concat_rows of scalars");
  std::vector<float> values;
  shape[0] = 0;
  for (const Tensor& part : parts) {
    if (part.rank() != static_cast<int>(shape.size()) ||
        !std::equal(part.shape().begin() + 1, part.shape().end(), shape.begin() + 1)) {
      return InvalidArgumentError("concat_rows: " + part.describe() + " does not match " +
                                  parts[0].describe() + " beyond axis 0");
    }
    shape[0] += part.dim(0);
    values.insert(values.end(), part.values().begin(), part.values().end());
  }
  Tensor out(std::move(shape), std::move(values));
  out.device_ = parts[0].device_;
  return out;
}

std::string Tensor::describe() const { return "f32" + shape_string(shape_); }

double max_abs_difference(const Tensor& a, const Tensor& b) {
  if (!a.same_shape(b)) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (int64_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return worst;
}

}  // namespace strata
