// torch tensors as Strata buffers: which dtypes and reductions Strata
// takes, the checks a call makes on the caller's thread, and the staging
// of non-contiguous tensors through a contiguous copy.
#ifndef STRATA_PYTHON_SRC_TORCH_TENSOR_BUFFERS_H_
#define STRATA_PYTHON_SRC_TORCH_TENSOR_BUFFERS_H_

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <string>
#include <vector>

#include "core/collective/buffer.h"

namespace strata::python {

// torch's Python name of the tensor's dtype ("torch.int8"), which users
// know, not ATen's ("Char").
std::string type_name(const at::Tensor& tensor);

// Strata's dtype for a reduction of `tensor` by `op`; NOT_SUPPORTED naming
// the backend, the op and what Strata reduces otherwise.
StatusOr<DType> reduction_dtype(const at::Tensor& tensor, const std::string& call);
StatusOr<ReduceOp> reduce_op_of(const c10d::ReduceOp& op, const std::string& call);
// As reduction_dtype, and bool too for MIN and MAX (as u8: of 0/1 bytes
// they are AND and OR).
StatusOr<DType> reduction_dtype(const at::Tensor& tensor, const c10d::ReduceOp& op,
                                const std::string& call);

// One dense CPU tensor per process (torch passes a list of one); the error
// names the call and what was given.
Status check_single_tensor(const std::vector<at::Tensor>& tensors, const std::string& call);
// One defined, dense CPU tensor.
Status check_tensor(const at::Tensor& tensor, const std::string& call);
// `tensor` matches `like` in dtype and holds `numel` elements; `what`
// names it ("output 1").
Status check_like(const at::Tensor& tensor, const at::Tensor& like, int64_t numel,
                  const std::string& call, const std::string& what);
// A list of `size` tensors (one per rank of the group), each of `like`'s
// dtype and element count; `what` names them ("output").
Status check_list_like(const std::vector<at::Tensor>& list, const at::Tensor& like, int size,
                       const std::string& call, const std::string& what);

// A contiguous tensor to hand to a collective: `tensor` itself, or a copy
// that finish() writes back.
class StagedTensor {
 public:
  explicit StagedTensor(at::Tensor tensor);
  // The tensor's elements as `dtype`, or its bytes as u8 (count = nbytes).
  Buffer buffer(DType dtype, strata_device_t device) const;
  Buffer bytes(strata_device_t device) const;
  int64_t numel() const { return contiguous_.numel(); }
  // Copies the result back into a non-contiguous original.
  void finish() const;

 private:
  at::Tensor original_;
  at::Tensor contiguous_;
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_TORCH_TENSOR_BUFFERS_H_
