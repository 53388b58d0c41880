// The kernels every replica runs: each product against a naive triple loop
// in double, the shape errors a caller sees, and the small ops' edge cases.
#include "core/train/tensor_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "finite_difference.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using testing_fd::random_tensor;

// out[i,j] = sum_p a[i,p] * b[p,j], accumulated in double.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  Tensor out({a.dim(0), b.dim(1)});
  for (int64_t i = 0; i < a.dim(0); ++i) {
    for (int64_t j = 0; j < b.dim(1); ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < a.dim(1); ++p) {
        acc += static_cast<double>(a.at(i, p)) * static_cast<double>(b.at(p, j));
      }
      out.at(i, j) = static_cast<float>(acc);
    }
  }
  return out;
}

struct MatmulCase {
  int64_t m, k, n;
};

class MatmulTest : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(MatmulTest, AllThreeProductsMatchTheNaiveReference) {
  const auto [m, k, n] = GetParam();
  std::mt19937 rng(static_cast<uint32_t>(m * 10000 + k * 100 + n));
  const Tensor a = random_tensor({m, k}, rng);
  const Tensor b = random_tensor({k, n}, rng);
  const Tensor want = naive_matmul(a, b);
  const double tol = 1e-5 * static_cast<double>(k + 1);

  StatusOr<Tensor> ab = matmul(a, b);
  ASSERT_TRUE(ab.ok()) << ab.status();
  EXPECT_LE(max_abs_difference(*ab, want), tol);

  // A^T·B given A^T stored as [k, m]; A·B^T given B^T stored as [n, k].
  StatusOr<Tensor> at = transpose(a);
  StatusOr<Tensor> bt = transpose(b);
  ASSERT_TRUE(at.ok() && bt.ok());
  StatusOr<Tensor> ta = matmul_transpose_a(*at, b);
  ASSERT_TRUE(ta.ok()) << ta.status();
  EXPECT_LE(max_abs_difference(*ta, want), tol);
  StatusOr<Tensor> tb = matmul_transpose_b(a, *bt);
  ASSERT_TRUE(tb.ok()) << tb.status();
  EXPECT_LE(max_abs_difference(*tb, want), tol);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulTest,
                         ::testing::Values(MatmulCase{1, 1, 1}, MatmulCase{2, 3, 4},
                                           MatmulCase{7, 5, 3}, MatmulCase{64, 64, 10},
                                           MatmulCase{33, 17, 65}, MatmulCase{0, 4, 3},
                                           MatmulCase{3, 0, 2}));

TEST(TensorOpsTest, MatmulRejectsMismatchedShapesNamingBoth) {
  const Tensor a({2, 3});
  const Tensor b({4, 5});
  StatusOr<Tensor> r = matmul(a, b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("f32[2, 3]"));
  EXPECT_THAT(r.status().message(), HasSubstr("f32[4, 5]"));
  EXPECT_FALSE(matmul_transpose_a(a, b).ok());
  EXPECT_FALSE(matmul_transpose_b(a, b).ok());
  StatusOr<Tensor> vector = matmul(Tensor({3}), b);
  ASSERT_FALSE(vector.ok());
  EXPECT_THAT(vector.status().message(), HasSubstr("rank 2"));
}

TEST(TensorOpsTest, ResultsKeepTheFirstOperandsDevice) {
  Tensor a({2, 2}, 1.0f);
  a.set_device({0, 3});
  StatusOr<Tensor> r = matmul(a, Tensor({2, 2}, 1.0f));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->device().index, 3);
}

TEST(TensorOpsTest, AddRowVectorAndSumOverRowsAreEachOthersAdjoint) {
  Tensor x({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(add_row_vector_in_place(x, Tensor({3}, std::vector<float>{10, 20, 30})).ok());
  EXPECT_THAT(x.values(), ::testing::ElementsAre(11, 22, 33, 14, 25, 36));
  StatusOr<Tensor> sums = sum_over_rows(x);
  ASSERT_TRUE(sums.ok());
  EXPECT_EQ(sums->shape(), (Shape{3}));
  EXPECT_THAT(sums->values(), ::testing::ElementsAre(25, 47, 69));

  Status bad = add_row_vector_in_place(x, Tensor({2}));
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("f32[3]"));
}

TEST(TensorOpsTest, ArgmaxPerRowTakesTheLowestIndexOnTies) {
  const Tensor x({3, 3}, std::vector<float>{1, 5, 5, -1, -2, -3, 0, 0, 7});
  StatusOr<Tensor> idx = argmax_per_row(x);
  ASSERT_TRUE(idx.ok());
  EXPECT_THAT(idx->values(), ::testing::ElementsAre(1, 0, 2));
  EXPECT_FALSE(argmax_per_row(Tensor({2, 0})).ok());
}

TEST(TensorOpsTest, ElementwiseUpdates) {
  Tensor y({2, 2}, std::vector<float>{1, 2, 3, 4});
  const Tensor x({2, 2}, std::vector<float>{1, 1, 1, 1});
  ASSERT_TRUE(add_in_place(y, x).ok());
  EXPECT_THAT(y.values(), ::testing::ElementsAre(2, 3, 4, 5));
  ASSERT_TRUE(sub_in_place(y, x).ok());
  EXPECT_THAT(y.values(), ::testing::ElementsAre(1, 2, 3, 4));
  scale_in_place(y, 2.0f);
  EXPECT_THAT(y.values(), ::testing::ElementsAre(2, 4, 6, 8));
  ASSERT_TRUE(axpy_in_place(-0.5f, y, y).ok());
  EXPECT_THAT(y.values(), ::testing::ElementsAre(1, 2, 3, 4));
  StatusOr<Tensor> product = multiply(y, y);
  ASSERT_TRUE(product.ok());
  EXPECT_THAT(product->values(), ::testing::ElementsAre(1, 4, 9, 16));
  EXPECT_DOUBLE_EQ(sum_all(y), 10.0);

  // Same element count is not enough: a [4] is not a [2, 2].
  Status bad = add_in_place(y, Tensor({4}));
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("f32[4]"));
  EXPECT_FALSE(axpy_in_place(1.0f, Tensor({4}), y).ok());
}

TEST(TensorOpsTest, ReluAndItsBackwardMaskByTheOutput) {
  const Tensor x({1, 4}, std::vector<float>{-1, 0, 2, -3});
  const Tensor y = relu(x);
  EXPECT_THAT(y.values(), ::testing::ElementsAre(0, 0, 2, 0));
  StatusOr<Tensor> g = relu_backward(Tensor({1, 4}, 5.0f), y);
  ASSERT_TRUE(g.ok());
  EXPECT_THAT(g->values(), ::testing::ElementsAre(0, 0, 5, 0));
  EXPECT_FALSE(relu_backward(Tensor({4}), y).ok());
}

}  // namespace
}  // namespace strata
