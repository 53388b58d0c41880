// shm/reduce_scatter/sliced: every rank stages, for each chunk, the same
// element range of every rank's block, each range on its own cache line;
// rank r then reduces its range from every slot straight into its output.
// One hand-off per chunk, and nothing is copied out.
#include <algorithm>
#include <cstring>
#include <vector>

#include "shm_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class ReduceScatterSlicedOperation final : public ShmOperation {
 public:
  ReduceScatterSlicedOperation(ShmTeam& team, const strata_call_t& call, uint64_t per_chunk)
      : ShmOperation(team, call, chunks_of(call.desc->count, per_chunk), per_chunk),
        stride_((per_chunk * sdk::dtype_size(call.desc->dtype) + 63) / 64 * 64),
        srcs_(static_cast<size_t>(team.size())) {}

 private:
  bool stages() const override { return true; }
  void stage(uint64_t chunk, std::byte* slot) override {
    for (int j = 0; j < size(); ++j) {
      const uint64_t block = static_cast<uint64_t>(j) * desc().count;
      copy_with_picked_stores(slot + static_cast<uint64_t>(j) * stride_,
                 in() + (block + first(chunk)) * elem(), length(chunk) * elem());
    }
  }
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t chunk) override {
    for (int j = 0; j < size(); ++j) {
      srcs_[static_cast<size_t>(j)] = slot(j, chunk) + static_cast<uint64_t>(rank()) * stride_;
    }
    std::byte* const dst[1] = {out() + first(chunk) * elem()};
    reduce_into(dst, 1, srcs_.data(), static_cast<uint32_t>(size()), length(chunk),
                desc().redop);
  }
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}

  uint64_t stride_;
  std::vector<const std::byte*> srcs_;
};

class ReduceScatterSliced final : public ShmAlgorithm {
 public:
  explicit ReduceScatterSliced(const ShmOptions& options)
      : ShmAlgorithm("sliced", STRATA_REDUCE_SCATTER,
                     "through shared memory: each rank stages every block and reduces its own "
                     "from every peer's copy, chunks pipelined",
                     options) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    // A slot holds one range per rank, each starting on its own line.
    const uint64_t per_rank = options().chunk_bytes / static_cast<uint64_t>(team.size());
    const uint64_t per_chunk = std::max<uint64_t>(1, per_rank / sdk::dtype_size(d.dtype));
    return std::make_unique<ReduceScatterSlicedOperation>(team, call, per_chunk);
  }

  double cost(double bytes, int /*p*/) const override {
    // Stage everything (bytes is the input, p blocks), reduce one block from p copies.
    return handoffs(bytes, 1) + copied(bytes) + reduced(bytes);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_sliced(const ShmOptions& options) {
  return std::make_unique<ReduceScatterSliced>(options);
}

}  // namespace strata::shm
