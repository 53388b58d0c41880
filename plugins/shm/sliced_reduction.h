// The operation behind shm/all_reduce/sliced and shm/reduce/sliced: every
// rank stages in its own slot the slices of its input chunk the others
// reduce; rank r reduces slice r from its own input and every peer's slot
// into its own slot (a receiving rank straight into its output as well),
// and each receiving rank copies the other slices out. An
// all-reduce is a reduce in which every rank receives. Calls up to
// direct_bytes skip the slices: each receiving rank reduces the whole buffer
// from every slot, one flag hand-off per call. Slices are reduced in rank
// order on one rank and copied, so every receiver gets bit-identical results;
// a rank that does not receive never writes its output.
#ifndef STRATA_PLUGINS_SHM_SLICED_REDUCTION_H_
#define STRATA_PLUGINS_SHM_SLICED_REDUCTION_H_

#include <algorithm>
#include <cstring>
#include <vector>

#include "shm_algorithm.h"
#include "strata/sdk/host_copy.h"

namespace strata::shm {

class SlicedReductionOperation final : public ShmOperation {
 public:
  // every_rank_receives: all_reduce (each rank is a root); else reduce to
  // call.desc->root.
  SlicedReductionOperation(ShmTeam& team, const strata_call_t& call, uint64_t per_chunk,
                           bool direct, bool every_rank_receives)
      : ShmOperation(team, call, chunks_of(call.desc->count, per_chunk), per_chunk),
        direct_(direct),
        root_(every_rank_receives || call.desc->root == team.rank()),
        // Whether a peer copies this rank's reduced slice out of its slot:
        // every peer in an all-reduce, the root in a reduce (not itself).
        shares_slice_(!direct && (every_rank_receives || !root_)),
        srcs_(static_cast<size_t>(team.size())) {}

 private:
  bool stages() const override { return true; }
  void stage(uint64_t chunk, std::byte* slot) override {
    const std::byte* from = in() + first(chunk) * elem();
    const uint64_t n = length(chunk);
    if (direct_) {
      copy_with_picked_stores(slot, from, n * elem());
      return;
    }
    // This rank reduces its own slice straight from its input: only the
    // slices the others reduce go through the segment.
    const Slice mine = slice_of(n, elem(), size(), rank());
    copy_with_picked_stores(slot, from, mine.begin * elem());
    copy_with_picked_stores(slot + mine.end * elem(), from + mine.end * elem(), (n - mine.end) * elem());
  }
  Peers before_reduce() const override {
    return direct_ && !root_ ? Peers::kNone : Peers::kAll;
  }
  void reduce(uint64_t chunk) override {
    if (direct_ && !root_) return;
    const uint64_t n = length(chunk);
    const Slice mine = direct_ ? Slice{0, n} : slice_of(n, elem(), size(), rank());
    for (int j = 0; j < size(); ++j) {
      srcs_[static_cast<size_t>(j)] = j == rank() && !direct_
                                          ? in() + (first(chunk) + mine.begin) * elem()
                                          : slot(j, chunk) + mine.begin * elem();
    }
    std::byte* dsts[2];
    uint32_t num_dsts = 0;
    std::byte* const output = out() + (first(chunk) + mine.begin) * elem();
    std::byte* const shared = slot(rank(), chunk) + mine.begin * elem();
    if (root_) dsts[num_dsts++] = output;
    // Streaming stages: the slice the peers copy goes to the slot the same
    // way, from the output this rank has just written.
    const bool stream_slice = shares_slice_ && root_ && streaming();
    if (shares_slice_ && !stream_slice) dsts[num_dsts++] = shared;
    reduce_into(dsts, num_dsts, srcs_.data(), static_cast<uint32_t>(size()), mine.size(),
                desc().redop);
    if (stream_slice) copy_with_picked_stores(shared, output, mine.size() * elem());
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
      sdk::copy_host(out() + (first(chunk) + s.begin) * elem(), slot(j, chunk) + s.begin * elem(),
                  s.size() * elem());
    }
  }

  bool direct_;
  bool root_;
  bool shares_slice_;
  std::vector<const std::byte*> srcs_;
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SLICED_REDUCTION_H_
