// shm/reduce/sliced: all_reduce's scheme with one receiver, the root
// (sliced_reduction.h).
#include "shm_algorithm.h"
#include "sliced_reduction.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class ReduceSliced final : public ShmAlgorithm {
 public:
  explicit ReduceSliced(const ShmOptions& options)
      : ShmAlgorithm("sliced", STRATA_REDUCE,
                     "through shared memory: each rank stages its input and reduces 1/p of "
                     "it from every peer's copy; the root copies the slices out",
                     options) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    const bool small = direct(d.count * sdk::dtype_size(d.dtype));
    return std::make_unique<SlicedReductionOperation>(team, call, chunk_elements(d.dtype), small,
                                                      /*every_rank_receives=*/false);
  }

  double cost(double bytes, int p) const override {
    if (direct(static_cast<uint64_t>(bytes))) {
      return handoffs(bytes, 1) + copied(bytes) + reduced(bytes * p);
    }
    // Stage (p-1)/p, reduce 1/p from p copies; the root copies (p-1)/p out.
    return handoffs(bytes, 2) + copied(bytes * (p - 1) / p) + reduced(bytes) +
           copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_sliced(const ShmOptions& options) {
  return std::make_unique<ReduceSliced>(options);
}

}  // namespace strata::shm
