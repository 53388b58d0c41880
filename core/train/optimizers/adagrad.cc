// Adagrad, Keras' form: acc += g^2; w -= lr * g / (sqrt(acc) + eps), the
// accumulator starting at initial_accumulator (0.1).
#include <cmath>

#include "core/train/optimizers/optimizer.h"

namespace strata {
namespace {

class Adagrad final : public Optimizer {
 public:
  Adagrad(float learning_rate, float initial_accumulator, float epsilon)
      : lr_(learning_rate), initial_(initial_accumulator), epsilon_(epsilon) {}
  std::string_view name() const override { return "adagrad"; }

 private:
  std::vector<std::string> slot_names() const override { return {"accumulator"}; }
  float slot_initial_value(size_t) const override { return initial_; }
  void update(Tensor& w, const Tensor& g, std::span<Tensor> slots, int64_t) override {
    Tensor& acc = slots[0];
    for (int64_t i = 0; i < w.size(); ++i) {
      acc[i] += g[i] * g[i];
      w[i] -= lr_ * g[i] / (std::sqrt(acc[i]) + epsilon_);
    }
  }
  float lr_;
  float initial_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<Optimizer> make_adagrad(float learning_rate, float initial_accumulator,
                                        float epsilon) {
  return std::make_unique<Adagrad>(learning_rate, initial_accumulator, epsilon);
}

}  // namespace strata
