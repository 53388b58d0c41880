#include "core/train/metrics.h"

#include <cmath>

namespace strata {

Metric::Metric(Strategy& strategy, std::string name) : name_(std::move(name)) {
  auto make = [&](const char* part) -> VariablePtr {
    auto v = DistributedVariable::create(strategy, name_ + "/" + part, Tensor::scalar(0.0f),
                                         VariableSynchronization::kOnRead,
                                         VariableAggregation::kSum);
    if (!v.ok()) {
      if (init_.ok()) init_ = v.status();
      return nullptr;
    }
    return *v;
  };
  total_ = make("total");
  count_ = make("count");
}

Status Metric::add(double total, double count) {
  STRATA_RETURN_IF_ERROR(init_);
  // f32 counts stay exact up to 2^24 examples per replica per reset.
  STRATA_RETURN_IF_ERROR(total_->assign_add(Tensor::scalar(static_cast<float>(total))));
  return count_->assign_add(Tensor::scalar(static_cast<float>(count)));
}

StatusOr<MetricReading> Metric::read() const {
  STRATA_RETURN_IF_ERROR(init_);
  STRATA_ASSIGN_OR_RETURN(Tensor total, total_->read_value());
  STRATA_ASSIGN_OR_RETURN(Tensor count, count_->read_value());
  MetricReading reading;
  reading.result = count.item() > 0 ? total.item() / count.item() : 0.0f;
  reading.count = std::llround(count.item());
  return reading;
}

StatusOr<float> Metric::result() const {
  STRATA_ASSIGN_OR_RETURN(MetricReading reading, read());
  return reading.result;
}

Status Metric::reset_state() {
  STRATA_RETURN_IF_ERROR(init_);
  STRATA_RETURN_IF_ERROR(total_->restore(Tensor::scalar(0.0f)));
  return count_->restore(Tensor::scalar(0.0f));
}

Status MeanMetric::update_state(const Tensor& values) {
  double total = 0;
  for (float v : values.values()) total += static_cast<double>(v);
  return add(total, static_cast<double>(values.size()));
}

Status AccuracyMetric::update_state(const Tensor& labels, const Tensor& logits) {
  if (logits.rank() != 2 || labels.size() != logits.dim(0)) {
    return InvalidArgumentError("accuracy '" + name() + "': labels " + labels.describe() +
                                " do not match logits " + logits.describe() +
                                " (want labels [batch] and logits [batch, classes])");
  }
  int64_t correct = 0;
  for (int64_t row = 0; row < logits.dim(0); ++row) {
    int64_t best = 0;
    for (int64_t c = 1; c < logits.dim(1); ++c) {
      if (logits.at(row, c) > logits.at(row, best)) best = c;
    }
    if (static_cast<int64_t>(labels[row]) == best) ++correct;
  }
  return add(static_cast<double>(correct), static_cast<double>(logits.dim(0)));
}

}  // namespace strata
