// Plain SGD: w -= lr * g.
#include "core/train/optimizers/optimizer.h"

namespace strata {
namespace {

class Sgd final : public Optimizer {
 public:
  explicit Sgd(float learning_rate) : lr_(learning_rate) {}
  std::string_view name() const override { return "sgd"; }

 private:
  void update(Tensor& w, const Tensor& g, std::span<Tensor>, int64_t) override {
    for (int64_t i = 0; i < w.size(); ++i) w[i] -= lr_ * g[i];
  }
  float lr_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(float learning_rate) {
  return std::make_unique<Sgd>(learning_rate);
}

}  // namespace strata
