// The handful of f32 host kernels the training layer needs: products for a
// dense layer's forward pass and its two backprop products, the bias
// broadcast and its reduction, element-wise updates for optimizers and
// gradient averaging, ReLU, and argmax for accuracy.
//
// Plain loops in cache-friendly order: every replica runs these on its own
// thread on its own tensors, so they share nothing and take no locks.
// Shapes are checked and reported as INVALID_ARGUMENT naming both operands;
// results carry the device of the first operand, so a replica's tensors stay
// that replica's buffers.
#ifndef STRATA_CORE_TRAIN_TENSOR_OPS_H_
#define STRATA_CORE_TRAIN_TENSOR_OPS_H_

#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

// --- products (all operands rank 2) ---------------------------------------

// a[m,k] · b[k,n] -> [m,n]
StatusOr<Tensor> matmul(const Tensor& a, const Tensor& b);
// a[k,m]^T · b[k,n] -> [m,n]: the kernel gradient x^T · dy, without
// materialising the transpose.
StatusOr<Tensor> matmul_transpose_a(const Tensor& a, const Tensor& b);
// a[m,k] · b[n,k]^T -> [m,n]: the input gradient dy · W^T.
StatusOr<Tensor> matmul_transpose_b(const Tensor& a, const Tensor& b);
// a[m,n] -> [n,m]
StatusOr<Tensor> transpose(const Tensor& a);

// --- broadcast and reductions ----------------------------------------------

// x[m,n] += row[n] for every row (the bias of a dense layer).
Status add_row_vector_in_place(Tensor& x, const Tensor& row);
// x[m,n] -> [n]: column sums, the bias gradient.
StatusOr<Tensor> sum_over_rows(const Tensor& x);
// x[m,n] -> [m]: index of the largest element of each row, as a float (the
// lowest index wins ties, as in tf.argmax). n must be > 0.
StatusOr<Tensor> argmax_per_row(const Tensor& x);
// Sum of every element, accumulated in double.
double sum_all(const Tensor& x);

// --- element-wise (shapes must be equal, not just element counts) ---------

Status add_in_place(Tensor& y, const Tensor& x);               // y += x
Status sub_in_place(Tensor& y, const Tensor& x);               // y -= x
void scale_in_place(Tensor& y, float alpha);                   // y *= alpha
Status axpy_in_place(float alpha, const Tensor& x, Tensor& y);  // y += alpha * x
StatusOr<Tensor> multiply(const Tensor& a, const Tensor& b);   // a * b

// --- activations -------------------------------------------------------------

Tensor relu(const Tensor& x);
// grad_out where the ReLU's output was positive, 0 elsewhere. Taking the
// output rather than the input is enough (output > 0 iff input > 0) and
// lets a layer cache one tensor instead of two.
StatusOr<Tensor> relu_backward(const Tensor& grad_out, const Tensor& relu_output);

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_TENSOR_OPS_H_
