// shm/all_gather/copy: every rank stages its block's chunk in its slot, then
// copies every peer's chunk straight into its output (its own from its
// input, or not at all in place). One hand-off per chunk.
#include <algorithm>
#include <cstring>

#include "shm_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class AllGatherCopyOperation final : public ShmOperation {
 public:
  AllGatherCopyOperation(ShmTeam& team, const strata_call_t& call, uint64_t per_chunk)
      : ShmOperation(team, call, chunks_of(call.desc->count, per_chunk), per_chunk) {}

 private:
  std::byte* output_of(int rank, uint64_t chunk) const {
    return out() + (static_cast<uint64_t>(rank) * desc().count + first(chunk)) * elem();
  }

  bool stages() const override { return true; }
  void stage(uint64_t chunk, std::byte* slot) override {
    copy_with_picked_stores(slot, in() + first(chunk) * elem(), length(chunk) * elem());
  }
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t chunk) override {
    const uint64_t bytes = length(chunk) * elem();
    for (int j = 0; j < size(); ++j) {
      if (j != rank()) {
        sdk::copy_host(output_of(j, chunk), slot(j, chunk), bytes);
      } else if (!desc().in_place) {
        sdk::copy_host(output_of(j, chunk), in() + first(chunk) * elem(), bytes);
      }
    }
  }
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}

};

class AllGatherCopy final : public ShmAlgorithm {
 public:
  explicit AllGatherCopy(const ShmOptions& options)
      : ShmAlgorithm("copy", STRATA_ALL_GATHER,
                     "through shared memory: each rank stages its block, every rank copies "
                     "every block out, chunks pipelined",
                     options) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    return std::make_unique<AllGatherCopyOperation>(team, call,
                                                    chunk_elements(call.desc->dtype));
  }

  double cost(double bytes, int p) const override {
    // bytes is the gathered output: stage 1/p of it, copy the peers'
    // (p-1)/p out (this rank's own block is a local copy, or none in place).
    return handoffs(bytes / p, 1) + copied(bytes / p) + copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_copy(const ShmOptions& options) {
  return std::make_unique<AllGatherCopy>(options);
}

}  // namespace strata::shm
