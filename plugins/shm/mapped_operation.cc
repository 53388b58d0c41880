#include "mapped_operation.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "peer_liveness.h"
#include "shared_heap.h"
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
      output_(locate(out(), shared_output, "output")),
      begun_(static_cast<size_t>(team.size()), false) {}

Placement MappedOperation::locate(const std::byte* buffer, uint64_t bytes, const char* which) {
  if (bytes == 0) return {};
  if (auto placed = SharedHeap::instance().find(buffer, bytes)) return *placed;
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(buffer));
  const std::string why =
      "the " + std::string(which) + " at " + address + " (" + std::to_string(bytes) +
      " bytes) is not shm_host memory; mapped algorithms use peers' buffers in place, so "
      "every buffer must come from the shm_host device type's allocate";
  team().mark_broken(why, notice_for("failed call " + std::to_string(sequence()) + ": " + why));
  throw sdk::InvalidArgument("shm " + std::string(sdk::op_name(desc().op)) + " (" +
                             team().where() + "): " + why);
}

void MappedOperation::publish() {
  PublishedBuffers& mine = team().own().header().buffers;
  mine.heap_frees = SharedHeap::instance().frees();
  mine.sequence = sequence();
  mine.count = desc().count;
  mine.op = desc().op;
  mine.dtype = desc().dtype;
  mine.input = input_;
  mine.output = output_;
}

void MappedOperation::withdraw() {
  // Read-modify-writes on both sides (check_still_in_call): whichever
  // comes first in the field's order, the other sees it. A peer's check
  // after this sees the withdrawal; a check before it releases the peer's
  // reads of this rank's buffers, which this exchange acquires, so they
  // end before the caller can reuse the buffers.
  std::atomic_ref<uint64_t>(team().own().header().buffers.withdrawn)
      .exchange(sequence() + 1, std::memory_order_acq_rel);
}

std::string MappedOperation::who(int rank) const {
  return rank_and_pid(rank, team().pid(rank));
}

void MappedOperation::check_still_in_call(int rank) {
  PublishedBuffers& theirs = team().segment(rank).header().buffers;
  // An RMW, not a load: its release half keeps the reads of a copy just
  // made from the peer's buffer before it (withdraw() explains).
  if (std::atomic_ref<uint64_t>(theirs.withdrawn).fetch_add(0, std::memory_order_acq_rel) ==
      sequence() + 1) {
    // Its notice is in its segment already (ShmOperation::fail, abort).
    LeftTeam left = team().segment(rank).gave_up();
    if (left.empty()) left = {rank, team().pid(rank), "gave up call " + std::to_string(sequence())};
    const std::string told = left.describe(rank, team().pid(rank));
    blame(std::move(left));
    throw sdk::Error(STRATA_PEER_FAILED, told + ": nothing more is written into its buffers");
  }
}

const PublishedBuffers& MappedOperation::published(int rank) {
  const PublishedBuffers& theirs = team().segment(rank).header().buffers;
  if (theirs.sequence != sequence() || theirs.op != desc().op || theirs.dtype != desc().dtype ||
      theirs.count != desc().count) {
    throw sdk::InvalidArgument(
        who(rank) + " published a " + sdk::op_name(theirs.op) + " of " +
        std::to_string(theirs.count) + " " +
        sdk::dtype_name(theirs.dtype) + " as call " +
        std::to_string(theirs.sequence) +
        ", where this rank runs a " + sdk::op_name(desc().op) + " of " +
        std::to_string(desc().count) + " " + sdk::dtype_name(desc().dtype) + " as call " +
        std::to_string(sequence()) + ": every rank must make the same calls");
  }
  // A mismatch is named first: the peer that found it may give up first.
  check_still_in_call(rank);
  if (!begun_[static_cast<size_t>(rank)]) {
    team().peer_buffers().begin_call(rank, theirs.heap_frees);
    begun_[static_cast<size_t>(rank)] = true;
  }
  return theirs;
}

void MappedOperation::rethrow_named(int rank, const sdk::Error& e) const {
  // A peer that died after publishing takes its descriptors with it:
  // that is the failure to name, not the open that found none.
  if (std::string trouble = peer_trouble(rank, team().pid(rank)); !trouble.empty()) {
    throw sdk::Error(STRATA_PEER_FAILED,
                     trouble + " before this rank could map the buffer it published");
  }
  throw sdk::Error(e.code(), who(rank) + ": " + e.what());
}

const std::byte* MappedOperation::peer_input(int rank, uint64_t length) {
  if (rank == this->rank()) return in();
  const PublishedBuffers& theirs = published(rank);
  try {
    // Inputs are only read: their mappings stay read-only (peer_buffers.h).
    return team().peer_buffers().address(rank, team().pid(rank), theirs.input, length);
  } catch (const sdk::Error& e) {
    rethrow_named(rank, e);
  }
}

std::byte* MappedOperation::peer_output(int rank, uint64_t length) {
  if (rank == this->rank()) return out();
  const PublishedBuffers& theirs = published(rank);
  try {
    return team().peer_buffers().writable_address(rank, team().pid(rank), theirs.output, length);
  } catch (const sdk::Error& e) {
    rethrow_named(rank, e);
  }
}

}  // namespace strata::shm
