// shm/all_reduce/sliced: every rank stages in its own slot the p-1 slices
// of its input chunk that the others reduce; rank r reduces slice r from its
// own input and every peer's slot, writing the result both to its output and
// into its slot; then every rank copies the other ranks' reduced slices out.
// Per rank that is (5p-2)/p times the bytes in memory traffic, the least a
// segment design moves (docs/performance/shm.md), and the reduction is
// spread over all ranks. Calls up to direct_bytes skip the slices: every rank reduces
// the whole buffer from every slot, one flag hand-off per call.
// Slices are reduced in rank order on one rank and copied, so every rank
// gets bit-identical results. The operation is reduce's with every rank
// receiving (sliced_reduction.h).
#include "shm_algorithm.h"
#include "sliced_reduction.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class AllReduceSliced final : public ShmAlgorithm {
 public:
  explicit AllReduceSliced(const ShmOptions& options)
      : ShmAlgorithm("sliced", STRATA_ALL_REDUCE,
                     "through shared memory: each rank stages its input and reduces 1/p of "
                     "it from every peer's copy, chunks pipelined",
                     options) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    const bool small = direct(d.count * sdk::dtype_size(d.dtype));
    return std::make_unique<SlicedReductionOperation>(team, call, chunk_elements(d.dtype), small,
                                                      /*every_rank_receives=*/true);
  }

  double cost(double bytes, int p) const override {
    if (direct(static_cast<uint64_t>(bytes))) {
      return handoffs(bytes, 1) + copied(bytes) + reduced(bytes * p);
    }
    // Stage (p-1)/p, reduce 1/p from p copies, copy the other (p-1)/p.
    return handoffs(bytes, 2) + copied(bytes * (p - 1) / p) + reduced(bytes) +
           copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_sliced(const ShmOptions& options) {
  return std::make_unique<AllReduceSliced>(options);
}

}  // namespace strata::shm
