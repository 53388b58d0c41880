// shm/broadcast/copy: the root stages each chunk of its input in its slot;
// every other rank copies it straight into its output as soon as it is
// there. Only the root's flag is waited for, and the root runs up to
// `slots` chunks ahead of the slowest reader. A call of at most kBoxBytes
// goes through a box instead: the readers poll the line that carries the
// data, and the root may run kMaxSlots calls ahead.
#include <algorithm>
#include <cstring>

#include "shm_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

// The box the root claims for writing while it fills one (Segment::
// claim_box): a few calls on, so that a reader still polling the next box
// keeps it, and the claim has a few calls' time to land.
constexpr uint64_t kClaimAhead = 4;

class BroadcastCopyOperation final : public ShmOperation {
 public:
  BroadcastCopyOperation(ShmTeam& team, const strata_call_t& call, uint64_t per_chunk)
      : ShmOperation(team, call, chunks_of(call.desc->count, per_chunk), per_chunk),
        root_(call.desc->root == team.rank()),
        boxed_(call.desc->count * sdk::dtype_size(call.desc->dtype) <= kBoxBytes) {}

 private:
  bool stages() const override { return root_; }
  uint64_t stage_ahead() const override {
    return boxed_ ? kMaxSlots : ShmOperation::stage_ahead();
  }
  void stage(uint64_t chunk, std::byte* slot) override {
    const uint64_t bytes = length(chunk) * elem();
    if (boxed_) {
      std::memcpy(box(rank(), chunk), in() + first(chunk) * elem(), bytes);
      fill_box(chunk);
      claim_box(chunk + kClaimAhead);
    } else {
      copy_with_picked_stores(slot, in() + first(chunk) * elem(), bytes);
    }
  }
  Peers before_reduce() const override {
    if (root_) return Peers::kNone;
    return boxed_ ? Peers::kRootBox : Peers::kRoot;
  }
  void reduce(uint64_t chunk) override {
    std::byte* dst = out() + first(chunk) * elem();
    const uint64_t bytes = length(chunk) * elem();
    if (!root_) {
      if (boxed_) {
        std::memcpy(dst, box(desc().root, chunk), bytes);
      } else {
        sdk::copy_host(dst, slot(desc().root, chunk), bytes);
      }
    } else if (dst != in() + first(chunk) * elem()) {
      sdk::copy_host(dst, in() + first(chunk) * elem(), bytes);
    }
  }
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}

  bool root_;
  bool boxed_;
};

class BroadcastCopy final : public ShmAlgorithm {
 public:
  explicit BroadcastCopy(const ShmOptions& options)
      : ShmAlgorithm("copy", STRATA_BROADCAST,
                     "through shared memory: the root stages its input, every rank copies it "
                     "out, chunks pipelined",
                     options) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    return std::make_unique<BroadcastCopyOperation>(team, call,
                                                    chunk_elements(call.desc->dtype));
  }

  double cost(double bytes, int /*p*/) const override {
    return handoffs(bytes, 1) + copied(bytes) + copied(bytes);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_copy(const ShmOptions& options) {
  return std::make_unique<BroadcastCopy>(options);
}

}  // namespace strata::shm
