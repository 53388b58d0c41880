#include "python/src/torch/tensor_buffers.h"

#include <iterator>
#include <optional>

namespace strata::python {
namespace {

std::optional<DType> strata_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return DType::kF32;
    case at::kDouble: return DType::kF64;
    case at::kHalf: return DType::kF16;
    case at::kBFloat16: return DType::kBF16;
    case at::kInt: return DType::kI32;
    case at::kLong: return DType::kI64;
    case at::kByte: return DType::kU8;
    default: return std::nullopt;
  }
}

// An empty tensor may have no storage; collectives take no NULL pointers.
void* data_of(const at::Tensor& t) {
  static char empty;
  void* data = t.data_ptr();
  return data != nullptr ? data : &empty;
}

}  // namespace

std::string type_name(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kBool: return "torch.bool";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kByte: return "torch.uint8";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kHalf: return "torch.float16";
    case at::kFloat: return "torch.float32";
    case at::kDouble: return "torch.float64";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    default: return "torch." + std::string(c10::toString(t.scalar_type()));
  }
}

StatusOr<DType> reduction_dtype(const at::Tensor& tensor, const std::string& call) {
  if (std::optional<DType> dtype = strata_dtype(tensor.scalar_type())) return *dtype;
  return NotSupportedError("strata backend: " + call + " of " + type_name(tensor) +
                           " tensors is not supported; Strata reduces torch.float32, float64, "
                           "float16, bfloat16, int32, int64 and uint8");
}

StatusOr<ReduceOp> reduce_op_of(const c10d::ReduceOp& op, const std::string& call) {
  switch (static_cast<c10d::ReduceOp::RedOpType>(op)) {
    case c10d::ReduceOp::SUM: return ReduceOp::kSum;
    case c10d::ReduceOp::AVG: return ReduceOp::kMean;
    case c10d::ReduceOp::PRODUCT: return ReduceOp::kProd;
    case c10d::ReduceOp::MIN: return ReduceOp::kMin;
    case c10d::ReduceOp::MAX: return ReduceOp::kMax;
    default: break;
  }
  static const char* const kNames[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX",
                                       "BAND", "BOR", "BXOR", "PREMUL_SUM", "UNUSED"};
  const auto index = static_cast<size_t>(static_cast<c10d::ReduceOp::RedOpType>(op));
  const std::string name = index < std::size(kNames) ? kNames[index] : std::to_string(index);
  return NotSupportedError("strata backend: " + call + " with ReduceOp." + name +
                           " is not supported; Strata reduces with SUM, AVG, PRODUCT, MIN and MAX");
}

StatusOr<DType> reduction_dtype(const at::Tensor& tensor, const c10d::ReduceOp& op,
                                const std::string& call) {
  const auto type = static_cast<c10d::ReduceOp::RedOpType>(op);
  if (tensor.scalar_type() == at::kBool &&
      (type == c10d::ReduceOp::MIN || type == c10d::ReduceOp::MAX)) {
    return DType::kU8;
  }
  return reduction_dtype(tensor, call);
}

Status check_single_tensor(const std::vector<at::Tensor>& tensors, const std::string& call) {
  if (tensors.size() != 1) {
    return InvalidArgumentError("strata backend: " + call + " takes one tensor per process, not " +
                                std::to_string(tensors.size()));
  }
  return check_tensor(tensors.front(), call);
}

Status check_like(const at::Tensor& tensor, const at::Tensor& like, int64_t numel,
                  const std::string& call, const std::string& what) {
  STRATA_RETURN_IF_ERROR(check_tensor(tensor, call));
  if (tensor.scalar_type() != like.scalar_type()) {
    return InvalidArgumentError("strata backend: " + call + ": " + what + " is " +
                                type_name(tensor) + ", the input " + type_name(like));
  }
  if (tensor.numel() != numel) {
    return InvalidArgumentError("strata backend: " + call + ": " + what + " has " +
                                std::to_string(tensor.numel()) + " elements, not " +
                                std::to_string(numel));
  }
  return Status();
}

Status check_list_like(const std::vector<at::Tensor>& list, const at::Tensor& like, int size,
                       const std::string& call, const std::string& what) {
  if (list.size() != static_cast<size_t>(size)) {
    return InvalidArgumentError("strata backend: " + call + " takes a list of " +
                                std::to_string(size) + " " + what + " tensors (one per rank of " +
                                "the group), not " + std::to_string(list.size()));
  }
  for (size_t r = 0; r < list.size(); ++r) {
    STRATA_RETURN_IF_ERROR(
        check_like(list[r], like, like.numel(), call, what + " " + std::to_string(r)));
  }
  return Status();
}

Status check_tensor(const at::Tensor& t, const std::string& call) {
  if (!t.defined()) return InvalidArgumentError("strata backend: " + call + " of an undefined tensor");
  if (t.layout() != at::kStrided) {
    return NotSupportedError("strata backend: " + call + " of a sparse or other non-strided tensor");
  }
  if (!t.device().is_cpu()) {
    return NotSupportedError("strata backend: " + call + " of a tensor on " + t.device().str() +
                             "; the strata backend takes CPU tensors");
  }
  return Status();
}

StagedTensor::StagedTensor(at::Tensor tensor)
    : original_(tensor), contiguous_(tensor.is_contiguous() ? tensor : tensor.contiguous()) {}

Buffer StagedTensor::buffer(DType dtype, strata_device_t device) const {
  return Buffer{data_of(contiguous_), dtype, static_cast<uint64_t>(contiguous_.numel()), device};
}

Buffer StagedTensor::bytes(strata_device_t device) const {
  return Buffer{data_of(contiguous_), DType::kU8, static_cast<uint64_t>(contiguous_.nbytes()),
                device};
}

void StagedTensor::finish() const {
  if (!contiguous_.is_same(original_)) original_.copy_(contiguous_);
}

}  // namespace strata::python
