// shm/reduce/sliced: all_reduce's scheme with one reader. Every rank stages
// its input chunk; rank r reduces slice r from every slot into its own slot
// (the root straight into its output as well), and only the root copies the
// other slices out. Calls up to direct_bytes: the root alone reduces the
// whole buffer from every slot. A non-root rank's output is never written.
#include <algorithm>
#include <cstring>
#include <vector>

#include "shm_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class ReduceSlicedOperation final : public ShmOperation {
 public:
  ReduceSlicedOperation(ShmTeam& team, const strata_call_t& call, uint64_t per_chunk, bool direct)
      : ShmOperation(team, call, (call.desc->count + per_chunk - 1) / per_chunk),
        per_chunk_(per_chunk), direct_(direct), root_(call.desc->root == team.rank()),
        srcs_(static_cast<size_t>(team.size())) {}

 private:
  uint64_t first(uint64_t chunk) const { return chunk * per_chunk_; }
  uint64_t length(uint64_t chunk) const {
    return std::min(per_chunk_, desc().count - first(chunk));
  }

  bool stages() const override { return true; }
  void stage(uint64_t chunk, std::byte* slot) override {
    std::memcpy(slot, in() + first(chunk) * elem(), length(chunk) * elem());
  }
  Peers before_reduce() const override {
    return direct_ && !root_ ? Peers::kNone : Peers::kAll;
  }
  void reduce(uint64_t chunk) override {
    if (direct_ && !root_) return;
    const uint64_t n = length(chunk);
    const Slice mine = direct_ ? Slice{0, n} : slice_of(n, elem(), size(), rank());
    for (int j = 0; j < size(); ++j) {
      srcs_[static_cast<size_t>(j)] = slot(j, chunk) + mine.begin * elem();
    }
    std::byte* dsts[2];
    uint32_t num_dsts = 0;
    if (root_) dsts[num_dsts++] = out() + (first(chunk) + mine.begin) * elem();
    if (!direct_) dsts[num_dsts++] = slot(rank(), chunk) + mine.begin * elem();
    reduce_into(dsts, num_dsts, srcs_.data(), static_cast<uint32_t>(size()), mine.size(),
                desc().redop);
  }
  Peers before_gather() const override {
    return !direct_ && root_ ? Peers::kAll : Peers::kNone;
  }
  void gather(uint64_t chunk) override {
    if (direct_ || !root_) return;
    const uint64_t n = length(chunk);
    for (int j = 0; j < size(); ++j) {
      if (j == rank()) continue;
      const Slice s = slice_of(n, elem(), size(), j);
      std::memcpy(out() + (first(chunk) + s.begin) * elem(), slot(j, chunk) + s.begin * elem(),
                  s.size() * elem());
    }
  }

  uint64_t per_chunk_;
  bool direct_;
  bool root_;
  std::vector<const std::byte*> srcs_;
};

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
    return std::make_unique<ReduceSlicedOperation>(team, call, chunk_elements(d.dtype), small);
  }

  double cost(double bytes, int p) const override {
    if (direct(static_cast<uint64_t>(bytes))) {
      return handoffs(bytes, 1) + copied(bytes) + reduced(bytes * p);
    }
    return handoffs(bytes, 2) + copied(bytes) + reduced(bytes) + copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_sliced(const ShmOptions& options) {
  return std::make_unique<ReduceSliced>(options);
}

}  // namespace strata::shm
