// Central finite differences for checking backward passes.
//
// Tolerance: the tensors are f32, so the step is the difference of the two
// floats actually stored (x+h and x-h rounded), not the nominal h, and the
// objective is summed in double. What is left is f32 rounding of the
// objective, ~1e-7 relative, divided by 2h = 2e-3: ~1e-4 absolute for O(1)
// objectives, plus the truncation error h^2/6 * f''' (~1e-6 for these
// smooth losses; zero for the piecewise-linear layers away from ReLU's
// kink). Checks use 2e-3 * max(1, |g|): ten times that noise, yet ten times
// smaller than a 2% error in a gradient of size 0.1.
#ifndef STRATA_TESTS_TRAIN_FINITE_DIFFERENCE_H_
#define STRATA_TESTS_TRAIN_FINITE_DIFFERENCE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "core/tensor/tensor.h"

namespace strata::testing_fd {

inline constexpr float kStep = 1e-3f;
inline constexpr double kTolerance = 2e-3;

// d objective / d (*param), element by element; *param is restored.
inline Tensor numerical_gradient(Tensor* param, const std::function<double()>& objective,
                                 float step = kStep) {
  Tensor grad(param->shape());
  for (int64_t i = 0; i < param->size(); ++i) {
    const float original = (*param)[i];
    const float up = original + step;
    const float down = original - step;
    (*param)[i] = up;
    const double f_up = objective();
    (*param)[i] = down;
    const double f_down = objective();
    (*param)[i] = original;
    grad[i] = static_cast<float>((f_up - f_down) /
                                 (static_cast<double>(up) - static_cast<double>(down)));
  }
  return grad;
}

// Largest |analytic - numeric| / max(1, |numeric|), reported with the
// element where it happens.
inline void expect_gradient_close(const Tensor& analytic, const Tensor& numeric,
                                  const std::string& what, double tolerance = kTolerance) {
  ASSERT_TRUE(analytic.same_shape(numeric))
      << what << ": analytic " << analytic.describe() << " vs numeric " << numeric.describe();
  double worst = 0.0;
  int64_t worst_at = -1;
  for (int64_t i = 0; i < analytic.size(); ++i) {
    const double a = static_cast<double>(analytic[i]);
    const double n = static_cast<double>(numeric[i]);
    const double err = std::fabs(a - n) / std::max(1.0, std::fabs(n));
    if (err > worst) {
      worst = err;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, tolerance) << what << ": element " << worst_at << " analytic "
                              << analytic[worst_at] << " numeric " << numeric[worst_at];
}

// Uniform values in [lo, hi) from a seeded generator.
inline Tensor random_tensor(Shape shape, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(std::move(shape));
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : t.values()) v = dist(rng);
  return t;
}

// sum_i w[i] * y[i] in double: a scalar objective whose gradient with
// respect to y is w, so backward(w) must give its gradients.
inline double weighted_sum(const Tensor& y, const Tensor& w) {
  double total = 0.0;
  for (int64_t i = 0; i < y.size(); ++i) {
    total += static_cast<double>(y[i]) * static_cast<double>(w[i]);
  }
  return total;
}

}  // namespace strata::testing_fd

#endif  // STRATA_TESTS_TRAIN_FINITE_DIFFERENCE_H_
