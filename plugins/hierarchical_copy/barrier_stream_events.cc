// A barrier across the local devices' streams: every stream records an
// event and waits for everyone else's, so no device runs past the barrier
// before all have reached it; the call ends when all streams have.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"

namespace strata::hierarchical_copy {
namespace {

class StreamEventsOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    std::vector<int> all;
    for (int r = 0; r < n(); ++r) all.push_back(r);
    join(all);
  }
};

class StreamEvents final : public LocalAlgorithm {
 public:
  StreamEvents()
      : LocalAlgorithm("stream_events", STRATA_BARRIER,
                       "every device stream waits for every other's event") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    return 2 * CostModel::of(call).hop;
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<StreamEventsOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_barrier_stream_events() {
  return std::make_unique<StreamEvents>();
}

}  // namespace strata::hierarchical_copy
