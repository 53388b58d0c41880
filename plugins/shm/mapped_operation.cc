#include "mapped_operation.h"

#include <cstdio>
#include <string>

#include "peer_liveness.h"
#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::shm {

MappedOperation::MappedOperation(ShmTeam& team, const strata_call_t& call,
                                 uint64_t shared_input, uint64_t shared_output,
                                 uint64_t per_chunk)
    : ShmOperation(team, call,
                   per_chunk > 0 ? chunks_of(call.desc->count, per_chunk)
                                 : (call.desc->count > 0 ? 1 : 0),
                   per_chunk > 0 ? per_chunk : call.desc->count),
      input_(locate(in(), shared_input, "input")),
      output_(locate(out(), shared_output, "output")) {}

Placement MappedOperation::locate(const std::byte* buffer, uint64_t bytes,
                                  const char* which) const {
  if (bytes == 0) return {};
  if (auto placed = SharedHeap::instance().find(buffer, bytes)) return *placed;
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(buffer));
  throw sdk::InvalidArgument(
      "shm " + std::string(sdk::op_name(desc().op)) + " (" + team().where() + "): the " + which +
      " at " + address + " (" + std::to_string(bytes) +
      " bytes) is not shm_host memory; mapped algorithms read peers' buffers in place, so "
      "every buffer must come from the shm_host device type's allocate");
}

void MappedOperation::publish() {
  PublishedBuffers& mine = team().own().header().buffers;
  mine.heap_frees = SharedHeap::instance().frees();
  mine.input = input_;
  mine.output = output_;
}

const std::byte* MappedOperation::peer_buffer(int rank, bool output) {
  const PublishedBuffers& theirs = team().segment(rank).header().buffers;
  try {
    return team().peer_buffers().address(rank, team().pid(rank), theirs.heap_frees,
                                         output ? theirs.output : theirs.input);
  } catch (const sdk::Error& e) {
    // A peer that died after publishing takes its descriptors with it:
    // that is the failure to name, not the open that found none.
    if (std::string trouble = peer_trouble(rank, team().pid(rank)); !trouble.empty()) {
      throw sdk::Error(STRATA_PEER_FAILED,
                       trouble + " before this rank could map the buffer it published");
    }
    throw sdk::Error(e.code(), "rank " + std::to_string(rank) + " (pid " +
                                   std::to_string(team().pid(rank)) + "): " + e.what());
  }
}

const std::byte* MappedOperation::peer_input(int rank) {
  return rank == this->rank() ? in() : peer_buffer(rank, false);
}

const std::byte* MappedOperation::peer_output(int rank) {
  return rank == this->rank() ? out() : peer_buffer(rank, true);
}

}  // namespace strata::shm
