// shm/all_gather/mapped: on shm_host buffers, every rank copies every
// peer's block straight from the peer's input into its output (its own
// from its input, or not at all in place): one copy per byte received,
// where the copy algorithm stages each block first. The copies take the
// stores the team found faster for outputs of this size (staging_choice.h).
#include "mapped_operation.h"
#include "shm_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class AllGatherMappedOperation final : public MappedOperation {
 public:
  AllGatherMappedOperation(ShmTeam& team, const strata_call_t& call, uint64_t block_bytes)
      : MappedOperation(team, call, block_bytes, 0) {}

 private:
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t) override {
    const uint64_t block = call_bytes();
    for (int j = 0; j < size(); ++j) {
      if (j == rank() && desc().in_place) continue;
      copy_with_picked_stores(out() + static_cast<uint64_t>(j) * block, peer_input(j, block), block);
    }
    // A peer that gave up while these copies ran may have reused its input.
    for (int j = 0; j < size(); ++j) {
      if (j != rank()) check_still_in_call(j);
    }
  }
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}
  uint64_t output_bytes() const override {
    return call_bytes() * static_cast<uint64_t>(size());
  }
};

class AllGatherMapped final : public MappedAlgorithm {
 public:
  AllGatherMapped(const ShmOptions& options, uint32_t shm_host_type)
      : MappedAlgorithm("mapped", STRATA_ALL_GATHER,
                        "on shm_host buffers: every rank copies every block straight from its "
                        "owner's input",
                        options, shm_host_type) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    return std::make_unique<AllGatherMappedOperation>(team, call,
                                                      d.count * sdk::dtype_size(d.dtype));
  }

  double cost(double bytes, int p) const override {
    // bytes is the gathered output: copy the peers' (p-1)/p; two hand-offs
    // (inputs ready, peers done).
    return 2 * options().alpha + copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_mapped(const ShmOptions& options,
                                                       uint32_t shm_host_type) {
  return std::make_unique<AllGatherMapped>(options, shm_host_type);
}

}  // namespace strata::shm
