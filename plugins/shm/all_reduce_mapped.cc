// shm/all_reduce/mapped: on shm_host buffers, rank r reduces slice r
// straight from every rank's input and writes the result into every rank's
// output, its own and its peers' (mapped writable). Per rank that is 2n
// bytes of memory traffic (read n, write n) against the sliced algorithm's
// (5p-2)n/p, and one hand-off per chunk: no input is copied into a
// segment, and no rank copies a slice another has reduced (which, in place,
// would overwrite lines that peer had just read, each write first taking
// the line back from the peer's cache). Each slice is reduced in rank order
// on one rank only, so every rank gets bit-identical results.
//
// The reduced block goes to every output from one pass of the kernel,
// stored from registers to each (strata-reduce-pattern: 1-19% less time
// than reducing into one output and copying from there). Only where the
// call's output stores are streaming ones (from 8 MiB, when the team found
// them faster; staging_choice.h), or the kernel would pick streaming
// stores itself, it reduces into its own output and copies into the
// peers' with the picked stores.
//
// Slice r of every buffer is touched by rank r alone, and within a chunk
// rank r reads all its sources before it writes them (in place the
// sources are the outputs), so no rank waits for another's reduction. A
// rank's call ends only once every peer is done, so no peer writes into
// its output after the call returns; a rank that gives up its call (fails,
// or is aborted) withdraws its buffers, and a peer checks that before each
// chunk (one chunk may still land after the withdrawal) and once more
// after the last chunk's reads, so a result never comes from an input
// its owner has already reused.
// The call is cut into chunks as the sliced algorithm's are, so the slice
// just reduced is still in cache when it is written out.
#include <vector>

#include "mapped_operation.h"
#include "shm_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/host_kernels.h"
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
        srcs_(static_cast<size_t>(team.size())),
        dsts_(static_cast<size_t>(team.size())) {}

 private:
  Peers before_reduce() const override { return Peers::kAll; }
  void reduce(uint64_t chunk) override {
    if (chunk == 0) {
      for (int j = 0; j < size(); ++j) {
        inputs_[static_cast<size_t>(j)] = peer_input(j, call_bytes());
        outputs_[static_cast<size_t>(j)] = peer_output(j, call_bytes());
      }
    }
    const Slice mine = slice_of(length(chunk), elem(), size(), rank());
    const uint64_t at = (first(chunk) + mine.begin) * elem();
    for (int j = 0; j < size(); ++j) {
      srcs_[static_cast<size_t>(j)] = inputs_[static_cast<size_t>(j)] + at;
    }
    std::byte* const reduced = out() + at;
    const uint64_t slice_bytes = mine.size() * elem();
    const bool one_pass =
        !streaming() && slice_bytes * static_cast<uint64_t>(size()) < sdk::kReduceStreamingBytes;
    dsts_[0] = reduced;
    uint32_t n = 1;
    for (int j = 0; j < size(); ++j) {
      if (j == rank()) continue;
      check_still_in_call(j);
      if (one_pass) dsts_[n++] = outputs_[static_cast<size_t>(j)] + at;
    }
    reduce_into(dsts_.data(), n, srcs_.data(), static_cast<uint32_t>(size()), mine.size(),
                desc().redop);
    for (int j = 0; !one_pass && j < size(); ++j) {
      if (j != rank()) copy_with_picked_stores(outputs_[static_cast<size_t>(j)] + at, reduced,
                                               slice_bytes);
    }
    // Each chunk's checks come after the reads of the chunk before; after
    // the last, one more, or a peer that gave up (and whose caller reused
    // its input) would go unnoticed while this call returns its sum.
    if (first(chunk) + length(chunk) == desc().count) {
      for (int j = 0; j < size(); ++j) {
        if (j != rank()) check_still_in_call(j);
      }
    }
  }
  Peers before_gather() const override { return Peers::kNone; }
  void gather(uint64_t) override {}

  // Every rank's buffers as mapped here, looked up at the first chunk.
  std::vector<const std::byte*> inputs_;
  std::vector<std::byte*> outputs_;
  std::vector<const std::byte*> srcs_;
  std::vector<std::byte*> dsts_;
};

class AllReduceMapped final : public MappedAlgorithm {
 public:
  AllReduceMapped(const ShmOptions& options, uint32_t shm_host_type)
      : MappedAlgorithm("mapped", STRATA_ALL_REDUCE,
                        "on shm_host buffers: each rank reduces 1/p of the peers' inputs in "
                        "place and writes it into every rank's output",
                        options, shm_host_type) {}

 private:
  std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) override {
    const strata_call_desc_t& d = *call.desc;
    return std::make_unique<AllReduceMappedOperation>(team, call,
                                                      d.count * sdk::dtype_size(d.dtype),
                                                      chunk_elements(d.dtype));
  }

  double cost(double bytes, int p) const override {
    // Reduce 1/p from p inputs and write it p-1 times more; one hand-off
    // per chunk (inputs ready) and one at the end (peers done).
    return handoffs(bytes, 1) + options().alpha + reduced(bytes) + copied(bytes * (p - 1) / p);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_mapped(const ShmOptions& options,
                                                       uint32_t shm_host_type) {
  return std::make_unique<AllReduceMapped>(options, shm_host_type);
}

}  // namespace strata::shm
