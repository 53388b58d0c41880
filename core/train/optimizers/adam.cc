// Adam (Kingma & Ba), Keras' form: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// w -= lr * sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps).
#include <cmath>

#include "core/train/optimizers/optimizer.h"

namespace strata {
namespace {

class Adam final : public Optimizer {
 public:
  Adam(float learning_rate, float beta_1, float beta_2, float epsilon)
      : lr_(learning_rate), beta_1_(beta_1), beta_2_(beta_2), epsilon_(epsilon) {}
  std::string_view name() const override { return "adam"; }

 private:
  std::vector<std::string> slot_names() const override { return {"m", "v"}; }
  void update(Tensor& w, const Tensor& g, std::span<Tensor> slots, int64_t t) override {
    Tensor& m = slots[0];
    Tensor& v = slots[1];
    const double step = static_cast<double>(t);
    const auto lr_t = static_cast<float>(
        static_cast<double>(lr_) * std::sqrt(1.0 - std::pow(static_cast<double>(beta_2_), step)) /
        (1.0 - std::pow(static_cast<double>(beta_1_), step)));
    for (int64_t i = 0; i < w.size(); ++i) {
      m[i] = beta_1_ * m[i] + (1.0f - beta_1_) * g[i];
      v[i] = beta_2_ * v[i] + (1.0f - beta_2_) * g[i] * g[i];
      w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + epsilon_);
    }
  }
  float lr_;
  float beta_1_;
  float beta_2_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<Optimizer> make_adam(float learning_rate, float beta_1, float beta_2,
                                     float epsilon) {
  return std::make_unique<Adam>(learning_rate, beta_1, beta_2, epsilon);
}

}  // namespace strata
