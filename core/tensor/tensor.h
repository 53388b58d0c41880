// Tensor: a dense f32 array in host memory with a shape, the one value type
// of the training layer (issue 3: "f32 tensors on host"). It also carries
// the device it belongs to, so a replica's tensors can be handed to the
// collectives as that device's buffers (virtual CPU devices share host
// memory, so no copy is needed).
//
// Tensors have value semantics: copying one copies its elements.
#ifndef STRATA_CORE_TENSOR_TENSOR_H_
#define STRATA_CORE_TENSOR_TENSOR_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "core/collective/buffer.h"
#include "core/common/status.h"

namespace strata {

using Shape = std::vector<int64_t>;

std::string shape_string(const Shape& shape);  // "[32, 10]"
int64_t shape_elements(const Shape& shape);    // product; 1 for a scalar

class Tensor {
 public:
  Tensor() = default;  // a scalar 0
  explicit Tensor(Shape shape, float fill = 0.0f);
  // values.size() must equal the product of shape (checked: InvalidArgument
  // through from_values; the constructor clamps nothing and is for callers
  // that already know the sizes agree).
  Tensor(Shape shape, std::vector<float> values);
  static StatusOr<Tensor> from_values(Shape shape, std::vector<float> values);
  static Tensor scalar(float value) { return Tensor(Shape{}, std::vector<float>{value}); }

  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int axis) const { return shape_.at(static_cast<size_t>(axis)); }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  bool empty() const { return values_.empty(); }

  float* data() { return values_.data(); }
  const float* data() const { return values_.data(); }
  std::span<float> values() { return values_; }
  std::span<const float> values() const { return values_; }
  float& operator[](int64_t i) { return values_[static_cast<size_t>(i)]; }
  float operator[](int64_t i) const { return values_[static_cast<size_t>(i)]; }
  // Element of a rank-2 tensor.
  float& at(int64_t row, int64_t col) { return values_[static_cast<size_t>(row * shape_[1] + col)]; }
  float at(int64_t row, int64_t col) const {
    return values_[static_cast<size_t>(row * shape_[1] + col)];
  }
  float item() const { return values_.at(0); }  // the value of a one-element tensor

  strata_device_t device() const { return device_; }
  void set_device(strata_device_t device) { device_ = device; }
  // This tensor's elements as a collective buffer on its device.
  Buffer buffer() { return Buffer{data(), DType::kF32, values_.size(), device_}; }

  // Same elements, another shape with the same element count.
  StatusOr<Tensor> reshape(Shape shape) const;
  // Rows [begin, end) along axis 0 (rank >= 1).
  Tensor slice_rows(int64_t begin, int64_t end) const;
  // Joins tensors along axis 0; the other dimensions must agree.
  static StatusOr<Tensor> concat_rows(std::span<const Tensor> parts);

  bool same_shape(const Tensor& other) const { return shape_ == other.shape_; }
  std::string describe() const;  // "f32[32, 10]"

 private:
  Shape shape_;
  std::vector<float> values_{0.0f};
  strata_device_t device_{0, 0};
};

// Largest |a[i] - b[i]|; infinity when the shapes differ.
double max_abs_difference(const Tensor& a, const Tensor& b);

}  // namespace strata

#endif  // STRATA_CORE_TENSOR_TENSOR_H_
