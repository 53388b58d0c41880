// SGD with momentum, Keras' form: v = momentum * v - lr * g; w += v.
#include "core/train/optimizers/optimizer.h"

namespace strata {
namespace {

class Momentum final : public Optimizer {
 public:
  Momentum(float learning_rate, float momentum) : lr_(learning_rate), momentum_(momentum) {}
  std::string_view name() const override { return "momentum"; }

 private:
  std::vector<std::string> slot_names() const override { return {"momentum"}; }
  void update(Tensor& w, const Tensor& g, std::span<Tensor> slots, int64_t) override {
    Tensor& v = slots[0];
    for (int64_t i = 0; i < w.size(); ++i) {
      v[i] = momentum_ * v[i] - lr_ * g[i];
      w[i] += v[i];
    }
  }
  float lr_;
  float momentum_;
};

}  // namespace

std::unique_ptr<Optimizer> make_momentum(float learning_rate, float momentum) {
  return std::make_unique<Momentum>(learning_rate, momentum);
}

}  // namespace strata
