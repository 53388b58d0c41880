// shm/all_reduce/mapped: on shm_host buffers, rank r reduces slice r
// straight from every rank's input into its own output; once every rank
// has, each copies the other slices from their owners' outputs. Per rank
// that is (3p-1)/p times the bytes in memory traffic against the sliced
// algorithm's (5p-2)/p: no input is copied into a segment, and no reduced
// slice is written twice. Slices are reduced in rank order on one rank and
// copied, so every rank gets bit-identical results.
//
// In place, rank r overwrites only slice r of its input (which nobody else
// reads) before every rank has reduced, and the other slices after. From
// 8 MiB the copies out take the stores the team found faster for them
// (staging_choice.h; streaming ones skip taking back lines a peer has
// read; docs/performance/shm.md, "Mapped buffers", has the A/B).
// The call is cut into chunks as the sliced algorithm's are, so a slice a
// peer has just reduced is still in its cache when this rank copies it.
#include <vector>

#include "mapped_operation.h"
#include "shm_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

class AllReduceMappedOperation final : public MappedOperation {
 public:
  AllReduceMappedOperation(ShmTeam& team, const strata_call_t& call, uint64_t bytes,
                           uint64_t per_chunk)
      : MappedOperation(team, call, bytes, bytes, per_chunk),
        inputs_(static_cast<size_t>(team.size())),
        outputs_(static_cast<size_t>(team.size())),
        srcs_(static_cast<size_t>(team.size())) {}

 private:
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t chunk) override {
    if (chunk == 0) {
      for (int j = 0; j < size(); ++j) inputs_[static_cast<size_t>(j)] = peer_input(j, call_bytes());
    }
    const Slice mine = slice_of(length(chunk), elem(), size(), rank());
    const uint64_t at = (first(chunk) + mine.begin) * elem();
    for (int j = 0; j < size(); ++j) {
      srcs_[static_cast<size_t>(j)] = inputs_[static_cast<size_t>(j)] + at;
    }
    std::byte* const dst = out() + at;
    reduce_into(&dst, 1, srcs_.data(), static_cast<uint32_t>(size()), mine.size(), desc().redop);
  }
  Peers before_gather() const override { return Peers::kAll; }
  void gather(uint64_t chunk) override {
    if (chunk == 0) {
      for (int j = 0; j < size(); ++j) outputs_[static_cast<size_t>(j)] = peer_output(j, call_bytes());
    }
    for (int j = 0; j < size(); ++j) {
      if (j == rank()) continue;
      const Slice s = slice_of(length(chunk), elem(), size(), j);
      const uint64_t at = (first(chunk) + s.begin) * elem();
      copy_with_picked_stores(out() + at, outputs_[static_cast<size_t>(j)] + at, s.size() * elem());
    }
  }

  // Every rank's buffers as mapped here, looked up at the first chunk.
  std::vector<const std::byte*> inputs_;
  std::vector<const std::byte*> outputs_;
  std::vector<const std::byte*> srcs_;
};

class AllReduceMapped final : public MappedAlgorithm {
 public:
  AllReduceMapped(const ShmOptions& options, uint32_t shm_host_type)
      : MappedAlgorithm("mapped", STRATA_ALL_REDUCE,
                        "on shm_host buffers: each rank reduces 1/p of the peers' inputs in "
                        "place, then copies the other slices from their outputs",
                        options, shm_host_type) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    return std::make_unique<AllReduceMappedOperation>(team, call,
                                                      d.count * sdk::dtype_size(d.dtype),
                                                      chunk_elements(d.dtype));
  }

  double cost(double bytes, int p) const override {
    // Reduce 1/p from p inputs, copy the other (p-1)/p; two hand-offs per
    // chunk (inputs ready, slices reduced) as sliced's, and one at the end
    // (peers done).
    return handoffs(bytes, 2) + options().alpha + reduced(bytes) + copied(bytes * (p - 1) / p);
  }
  double in_place_cost(double bytes, int /*p*/) const override {
    // In place, every line this rank writes was read by a peer in the call
    // before (its input is the peers' source): each write first takes the
    // line back from the peer's cache. Measured with 2 and 4 ranks, that
    // put the sliced algorithm ahead from 256 KiB to 1 MiB, and either one
    // ahead in about half the sizes above (docs/performance/shm.md, "Mapped
    // buffers"): price it as one more copy of the buffer, so AUTO keeps
    // sliced in place and mapped out of place.
    return copied(bytes);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_mapped(const ShmOptions& options,
                                                       uint32_t shm_host_type) {
  return std::make_unique<AllReduceMapped>(options, shm_host_type);
}

}  // namespace strata::shm
