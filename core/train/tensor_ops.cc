#include "core/train/tensor_ops.h"

#include <source_location>
#include <string>

namespace strata {
namespace {

size_t idx(int64_t i) { return static_cast<size_t>(i); }

// The helpers take the caller's location, so an error points at the op
// that failed rather than at the helper.
using Where = std::source_location;

Status require_matrix(const char* op, const char* name, const Tensor& t,
                      Where where = Where::current()) {
  if (t.rank() == 2) return Status::Ok();
  return InvalidArgumentError(
      std::string(op) + ": " + name + " must be a matrix (rank 2), got " + t.describe(), where);
}

Status require_same_shape(const char* op, const Tensor& a, const Tensor& b,
                          Where where = Where::current()) {
  if (a.same_shape(b)) return Status::Ok();
  return InvalidArgumentError(
      std::string(op) + ": shapes differ: " + a.describe() + " and " + b.describe(), where);
}

Status inner_dims_mismatch(const char* op, const Tensor& a, const Tensor& b, int64_t ka,
                           int64_t kb, Where where = Where::current()) {
  return InvalidArgumentError(std::string(op) + ": " + a.describe() + " and " + b.describe() +
                                  " do not multiply: contracted dimensions " +
                                  std::to_string(ka) + " and " + std::to_string(kb) + " differ",
                              where);
}

Tensor result(Shape shape, const Tensor& like) {
  Tensor out(std::move(shape));
  out.set_device(like.device());
  return out;
}

}  // namespace

StatusOr<Tensor> matmul(const Tensor& a, const Tensor& b) {
  STRATA_RETURN_IF_ERROR(require_matrix("matmul", "a", a));
  STRATA_RETURN_IF_ERROR(require_matrix("matmul", "b", b));
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(1);
  if (b.dim(0) != k) return inner_dims_mismatch("matmul", a, b, k, b.dim(0));
  Tensor out = result({m, n}, a);
  const float* pa = a.data();
  const float* pb = b.data();
  float* po = out.data();
  // i-k-j: the inner loop walks a row of b and a row of out contiguously.
  for (int64_t i = 0; i < m; ++i) {
    float* out_row = po + idx(i * n);
    for (int64_t p = 0; p < k; ++p) {
      const float aip = pa[idx(i * k + p)];
      const float* b_row = pb + idx(p * n);
      for (int64_t j = 0; j < n; ++j) out_row[j] += aip * b_row[j];
    }
  }
  return out;
}

StatusOr<Tensor> matmul_transpose_a(const Tensor& a, const Tensor& b) {
  STRATA_RETURN_IF_ERROR(require_matrix("matmul_transpose_a", "a", a));
  STRATA_RETURN_IF_ERROR(require_matrix("matmul_transpose_a", "b", b));
  const int64_t k = a.dim(0), m = a.dim(1), n = b.dim(1);
  if (b.dim(0) != k) return inner_dims_mismatch("matmul_transpose_a", a, b, k, b.dim(0));
  Tensor out = result({m, n}, a);
  const float* pa = a.data();
  const float* pb = b.data();
  float* po = out.data();
  // k-i-j: each row p of a and b is read once; out rows are updated in turn.
  for (int64_t p = 0; p < k; ++p) {
    const float* b_row = pb + idx(p * n);
    for (int64_t i = 0; i < m; ++i) {
      const float api = pa[idx(p * m + i)];
      float* out_row = po + idx(i * n);
      for (int64_t j = 0; j < n; ++j) out_row[j] += api * b_row[j];
    }
  }
  return out;
}

StatusOr<Tensor> matmul_transpose_b(const Tensor& a, const Tensor& b) {
  STRATA_RETURN_IF_ERROR(require_matrix("matmul_transpose_b", "a", a));
  STRATA_RETURN_IF_ERROR(require_matrix("matmul_transpose_b", "b", b));
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(0);
  if (b.dim(1) != k) return inner_dims_mismatch("matmul_transpose_b", a, b, k, b.dim(1));
  Tensor out = result({m, n}, a);
  const float* pa = a.data();
  const float* pb = b.data();
  float* po = out.data();
  // Every output element is a dot product of two contiguous rows.
  for (int64_t i = 0; i < m; ++i) {
    const float* a_row = pa + idx(i * k);
    for (int64_t j = 0; j < n; ++j) {
      const float* b_row = pb + idx(j * k);
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) acc += a_row[p] * b_row[p];
      po[idx(i * n + j)] = acc;
    }
  }
  return out;
}

StatusOr<Tensor> transpose(const Tensor& a) {
  STRATA_RETURN_IF_ERROR(require_matrix("transpose", "a", a));
  const int64_t m = a.dim(0), n = a.dim(1);
  Tensor out = result({n, m}, a);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) out.at(j, i) = a.at(i, j);
  }
  return out;
}

Status add_row_vector_in_place(Tensor& x, const Tensor& row) {
  STRATA_RETURN_IF_ERROR(require_matrix("add_row_vector", "x", x));
  const int64_t m = x.dim(0), n = x.dim(1);
  if (row.rank() != 1 || row.dim(0) != n) {
    return InvalidArgumentError("add_row_vector: row must be f32[" + std::to_string(n) +
                                "] to add to every row of " + x.describe() + ", got " +
                                row.describe());
  }
  float* px = x.data();
  const float* pr = row.data();
  for (int64_t i = 0; i < m; ++i) {
    float* x_row = px + idx(i * n);
    for (int64_t j = 0; j < n; ++j) x_row[j] += pr[j];
  }
  return Status::Ok();
}

StatusOr<Tensor> sum_over_rows(const Tensor& x) {
  STRATA_RETURN_IF_ERROR(require_matrix("sum_over_rows", "x", x));
  const int64_t m = x.dim(0), n = x.dim(1);
  Tensor out = result({n}, x);
  float* po = out.data();
  const float* px = x.data();
  for (int64_t i = 0; i < m; ++i) {
    const float* x_row = px + idx(i * n);
    for (int64_t j = 0; j < n; ++j) po[j] += x_row[j];
  }
  return out;
}

StatusOr<Tensor> argmax_per_row(const Tensor& x) {
  STRATA_RETURN_IF_ERROR(require_matrix("argmax_per_row", "x", x));
  const int64_t m = x.dim(0), n = x.dim(1);
  if (n == 0) return InvalidArgumentError("argmax_per_row: rows of " + x.describe() + " are empty");
  Tensor out = result({m}, x);
  for (int64_t i = 0; i < m; ++i) {
    int64_t best = 0;
    for (int64_t j = 1; j < n; ++j) {
      if (x.at(i, j) > x.at(i, best)) best = j;
    }
    out[i] = static_cast<float>(best);
  }
  return out;
}

double sum_all(const Tensor& x) {
  double total = 0.0;
  for (float v : x.values()) total += static_cast<double>(v);
  return total;
}

Status add_in_place(Tensor& y, const Tensor& x) {
  STRATA_RETURN_IF_ERROR(require_same_shape("add", y, x));
  float* py = y.data();
  const float* px = x.data();
  for (int64_t i = 0; i < y.size(); ++i) py[i] += px[i];
  return Status::Ok();
}

Status sub_in_place(Tensor& y, const Tensor& x) {
  STRATA_RETURN_IF_ERROR(require_same_shape("sub", y, x));
  float* py = y.data();
  const float* px = x.data();
  for (int64_t i = 0; i < y.size(); ++i) py[i] -= px[i];
  return Status::Ok();
}

void scale_in_place(Tensor& y, float alpha) {
  for (float& v : y.values()) v *= alpha;
}

Status axpy_in_place(float alpha, const Tensor& x, Tensor& y) {
  STRATA_RETURN_IF_ERROR(require_same_shape("axpy", x, y));
  float* py = y.data();
  const float* px = x.data();
  for (int64_t i = 0; i < y.size(); ++i) py[i] += alpha * px[i];
  return Status::Ok();
}

StatusOr<Tensor> multiply(const Tensor& a, const Tensor& b) {
  STRATA_RETURN_IF_ERROR(require_same_shape("multiply", a, b));
  Tensor out = a;
  float* po = out.data();
  const float* pb = b.data();
  for (int64_t i = 0; i < out.size(); ++i) po[i] *= pb[i];
  return out;
}

Tensor relu(const Tensor& x) {
  Tensor out = x;
  for (float& v : out.values()) v = v > 0.0f ? v : 0.0f;
  return out;
}

StatusOr<Tensor> relu_backward(const Tensor& grad_out, const Tensor& relu_output) {
  STRATA_RETURN_IF_ERROR(require_same_shape("relu_backward", grad_out, relu_output));
  Tensor out = grad_out;
  float* po = out.data();
  const float* py = relu_output.data();
  for (int64_t i = 0; i < out.size(); ++i) {
    if (!(py[i] > 0.0f)) po[i] = 0.0f;
  }
  return out;
}

}  // namespace strata
