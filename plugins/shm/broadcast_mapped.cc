// shm/broadcast/mapped: on shm_host buffers, every rank copies the root's
// input straight into its output, one copy per byte where the copy
// algorithm stages the root's first. The root ends once every reader is
// done with its input; a reader ends as soon as it has copied, with the
// stores the team found faster for copies into outputs of this size
// (staging_choice.h).
#include "mapped_operation.h"
#include "shm_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class BroadcastMappedOperation final : public MappedOperation {
 public:
  BroadcastMappedOperation(ShmTeam& team, const strata_call_t& call, uint64_t bytes)
      : MappedOperation(team, call, call.desc->root == team.rank() ? bytes : 0, 0),
        root_(call.desc->root == team.rank()) {}

 private:
  Peers before_reduce() const override { return root_ ? Peers::kNone : Peers::kRoot; }
  void reduce(uint64_t) override {
    if (root_ && desc().in_place) return;
    copy_with_picked_stores(out(), peer_input(desc().root, call_bytes()), call_bytes());
    // A reader ends without the root's hand-off: a root that gave up while
    // this copy ran may have reused its input, so the copy may be torn.
    if (!root_) check_still_in_call(desc().root);
  }
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}
  Peers after_last() const override { return root_ ? Peers::kAll : Peers::kNone; }

  bool root_;
};

class BroadcastMapped final : public MappedAlgorithm {
 public:
  BroadcastMapped(const ShmOptions& options, uint32_t shm_host_type)
      : MappedAlgorithm("mapped", STRATA_BROADCAST,
                        "on shm_host buffers: every rank copies straight from the root's input",
                        options, shm_host_type) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    return std::make_unique<BroadcastMappedOperation>(team, call,
                                                      d.count * sdk::dtype_size(d.dtype));
  }

  double cost(double bytes, int /*p*/) const override {
    // Readers copy once; two hand-offs (input ready, readers done).
    return 2 * options().alpha + copied(bytes);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_mapped(const ShmOptions& options,
                                                      uint32_t shm_host_type) {
  return std::make_unique<BroadcastMapped>(options, shm_host_type);
}

}  // namespace strata::shm
