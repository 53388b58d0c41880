// Metrics that aggregate correctly across replicas — the gap the seeds list
// ("metrics are not yet aggregated across replicas"). Each metric keeps a
// running total and count as sync-on-read variables with SUM aggregation:
// every replica adds to its own copies during a step with no
// communication, and result() in the cross-replica context sums the copies
// of every replica of every worker, so the mean is over every example the
// job saw, the same on every worker. In a multi-worker job reading is a
// collective: every worker reads together.
#ifndef STRATA_CORE_TRAIN_METRICS_H_
#define STRATA_CORE_TRAIN_METRICS_H_

#include <cstdint>
#include <string>

#include "core/common/status.h"
#include "core/strategy/distributed_variable.h"
#include "core/tensor/tensor.h"

namespace strata {

// One read of a metric: the mean and how many values it is over.
struct MetricReading {
  float result = 0;  // total / count (0 if nothing was seen)
  int64_t count = 0;  // values seen by every replica of every worker
};

class Metric {
 public:
  virtual ~Metric() = default;
  const std::string& name() const { return name_; }
  // total / count over everything seen since the last reset (0 if nothing).
  StatusOr<float> result() const;
  // The result and the count it is over (for the loss: the examples scored).
  StatusOr<MetricReading> read() const;
  Status reset_state();

 protected:
  // Built under `strategy` (its scope decides where the copies live).
  Metric(Strategy& strategy, std::string name);
  Status add(double total, double count);
  Status init_status() const { return init_; }

 private:
  std::string name_;
  VariablePtr total_;
  VariablePtr count_;
  Status init_;
};

// The mean of the values given (e.g. the loss per example).
class MeanMetric final : public Metric {
 public:
  MeanMetric(Strategy& strategy, std::string name) : Metric(strategy, std::move(name)) {}
  // Adds every element of `values`.
  Status update_state(const Tensor& values);
};

// Fraction of rows whose arg-max logit is the label (Keras'
// SparseCategoricalAccuracy): labels [batch] of class ids, logits [batch, classes].
class AccuracyMetric final : public Metric {
 public:
  AccuracyMetric(Strategy& strategy, std::string name) : Metric(strategy, std::move(name)) {}
  Status update_state(const Tensor& labels, const Tensor& logits);
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_METRICS_H_
