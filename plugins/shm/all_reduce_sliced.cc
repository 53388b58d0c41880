// shm/all_reduce/sliced: every rank stages its input chunk in its own slot;
// rank r reduces slice r of the chunk from every slot, writing the result
// both to its output and back into its slot; then every rank copies the
// other ranks' reduced slices out. Each byte is read from memory about three
// times and written about twice per rank, and the reduction is spread over
// all ranks. Calls up to direct_bytes skip the slices: every rank reduces
// the whole buffer from every slot, one flag hand-off per call.
// Slices are reduced in rank order on one rank and copied, so every rank
// gets bit-identical results.
#include <algorithm>
#include <cstring>
#include <vector>

#include "shm_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class AllReduceSlicedOperation final : public ShmOperation {
 public:
  AllReduceSlicedOperation(ShmTeam& team, const strata_call_t& call, uint64_t per_chunk,
                           bool direct)
      : ShmOperation(team, call, (call.desc->count + per_chunk - 1) / per_chunk),
        per_chunk_(per_chunk), direct_(direct),
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
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t chunk) override {
    const uint64_t n = length(chunk);
    const Slice mine = direct_ ? Slice{0, n} : slice_of(n, elem(), size(), rank());
    for (int j = 0; j < size(); ++j) {
      srcs_[static_cast<size_t>(j)] = slot(j, chunk) + mine.begin * elem();
    }
    std::byte* const dsts[2] = {out() + (first(chunk) + mine.begin) * elem(),
                                slot(rank(), chunk) + mine.begin * elem()};
    reduce_into(dsts, direct_ ? 1 : 2, srcs_.data(), static_cast<uint32_t>(size()), mine.size(),
                desc().redop);
  }
  Peers before_gather() const override { return direct_ ? Peers::kNone : Peers::kAll; }
  void gather(uint64_t chunk) override {
    if (direct_) return;
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
  std::vector<const std::byte*> srcs_;
};

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
    return std::make_unique<AllReduceSlicedOperation>(team, call, chunk_elements(d.dtype), small);
  }

  double cost(double bytes, int p) const override {
    if (direct(static_cast<uint64_t>(bytes))) {
      return handoffs(bytes, 1) + copied(bytes) + reduced(bytes * p);
    }
    // Stage everything, reduce 1/p from p copies, copy the other (p-1)/p.
    return handoffs(bytes, 2) + copied(bytes) + reduced(bytes) + copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_sliced(const ShmOptions& options) {
  return std::make_unique<AllReduceSliced>(options);
}

}  // namespace strata::shm
