#include "core/strategy/cross_replica_math.h"

#include <algorithm>
#include <limits>

namespace strata {
namespace {

float identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd: return 1.0f;
    case ReduceOp::kMin: return std::numeric_limits<float>::infinity();
    case ReduceOp::kMax: return -std::numeric_limits<float>::infinity();
    default: return 0.0f;
  }
}

float combine(ReduceOp op, float a, float b) {
  switch (op) {
    case ReduceOp::kProd: return a * b;
    case ReduceOp::kMin: return std::min(a, b);
    case ReduceOp::kMax: return std::max(a, b);
    default: return a + b;
  }
}

// outer x dim x inner: the view of a tensor around one axis.
struct AxisView {
  int64_t outer = 1, dim = 1, inner = 1;
};

AxisView view(const Shape& shape, int axis) {
  AxisView v;
  for (int i = 0; i < axis; ++i) v.outer *= shape[static_cast<size_t>(i)];
  v.dim = shape[static_cast<size_t>(axis)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < shape.size(); ++i) v.inner *= shape[i];
  return v;
}

Status check_axis(const Tensor& value, int axis, const char* what) {
  if (axis < 0 || axis >= value.rank()) {
    return InvalidArgumentError(std::string(what) + ": axis " + std::to_string(axis) +
                                " is out of range for " + value.describe());
  }
  return Status();
}

}  // namespace

StatusOr<Tensor> fold_axis(const Tensor& value, int axis, ReduceOp op) {
  STRATA_RETURN_IF_ERROR(check_axis(value, axis, "reduce"));
  const AxisView v = view(value.shape(), axis);
  Shape shape = value.shape();
  shape.erase(shape.begin() + axis);
  Tensor out(shape, identity(op));
  out.set_device(value.device());
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t d = 0; d < v.dim; ++d) {
      const float* src = value.data() + (o * v.dim + d) * v.inner;
      float* dst = out.data() + o * v.inner;
      for (int64_t i = 0; i < v.inner; ++i) dst[i] = combine(op, dst[i], src[i]);
    }
  }
  return out;
}

StatusOr<Tensor> concat_axis(std::span<const Tensor> parts, int axis) {
  if (parts.empty()) return InvalidArgumentError("gather of no values");
  STRATA_RETURN_IF_ERROR(check_axis(parts[0], axis, "gather"));
  Shape shape = parts[0].shape();
  shape[static_cast<size_t>(axis)] = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    Shape other = parts[p].shape();
    if (other.size() != shape.size()) {
      return InvalidArgumentError("gather: replica " + std::to_string(p) + "'s " +
                                  parts[p].describe() + " has another rank than replica 0's " +
                                  parts[0].describe());
    }
    shape[static_cast<size_t>(axis)] += other[static_cast<size_t>(axis)];
    other[static_cast<size_t>(axis)] = parts[0].dim(axis);
    if (other != parts[0].shape()) {
      return InvalidArgumentError("gather along axis " + std::to_string(axis) + ": replica " +
                                  std::to_string(p) + "'s " + parts[p].describe() +
                                  " differs from replica 0's " + parts[0].describe() +
                                  " outside that axis");
    }
  }
  Tensor out(shape);
  out.set_device(parts[0].device());
  const AxisView whole = view(shape, axis);
  int64_t offset = 0;  // rows of the axis written so far
  for (const Tensor& part : parts) {
    const AxisView v = view(part.shape(), axis);
    for (int64_t o = 0; o < v.outer; ++o) {
      std::copy_n(part.data() + o * v.dim * v.inner, v.dim * v.inner,
                  out.data() + (o * whole.dim + offset) * whole.inner);
    }
    offset += v.dim;
  }
  return out;
}

}  // namespace strata
