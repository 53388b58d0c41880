// shm/barrier/flags: one chunk with no data. Every rank raises its flag and
// waits until every peer raised theirs: one hand-off, no system call.
#include "shm_algorithm.h"

namespace strata::shm {
namespace {

class BarrierFlagsOperation final : public ShmOperation {
 public:
  BarrierFlagsOperation(ShmTeam& team, const strata_call_t& call)
      : ShmOperation(team, call, 1) {}

 private:
  bool stages() const override { return false; }
  void stage(uint64_t, std::byte*) override {}
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t) override {}
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}
};

class BarrierFlags final : public ShmAlgorithm {
 public:
  explicit BarrierFlags(const ShmOptions& options)
      : ShmAlgorithm("flags", STRATA_BARRIER,
                     "through shared memory: each rank raises a flag and waits for every "
                     "peer's",
                     options) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    return std::make_unique<BarrierFlagsOperation>(team, call);
  }

  double cost(double /*bytes*/, int /*p*/) const override { return options().alpha; }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_barrier_flags(const ShmOptions& options) {
  return std::make_unique<BarrierFlags>(options);
}

}  // namespace strata::shm
