// A call on shm_host buffers (shm_device_type.h): each rank publishes in
// its segment's header where its buffers lie (publish(), before its first
// `staged`), and its peers read them in place (the all-reduce also writes
// their outputs), through their own mappings of the allocations
// (peer_buffers.h). Nothing is staged: a byte that another rank needs is
// read once, from where the user put it.
//
// There is nothing staged to pipeline, so a call is one chunk, unless the
// algorithm cuts it to keep what it writes next in cache (all-reduce).
// The call ends only once every peer is `done` (after_last): until then a
// peer may still read or write this rank's buffers, which the caller may
// reuse as soon as the call returns.
#ifndef STRATA_PLUGINS_SHM_MAPPED_OPERATION_H_
#define STRATA_PLUGINS_SHM_MAPPED_OPERATION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "placement.h"
#include "segment.h"
#include "shm_operation.h"
#include "strata/sdk/error.h"

namespace strata::shm {

class MappedOperation : public ShmOperation {
 public:
  // `shared_input` / `shared_output`: the bytes of this rank's input and
  // output its peers use (0: none). Those buffers must be
  // shm_host memory: INVALID_ARGUMENT names the one that is not.
  // `per_chunk`: elements per chunk (0: the whole call in one).
  MappedOperation(ShmTeam& team, const strata_call_t& call, uint64_t shared_input,
                  uint64_t shared_output, uint64_t per_chunk = 0);

 protected:
  bool stages() const final { return false; }
  void stage(uint64_t, std::byte*) final {}
  Peers after_last() const override { return Peers::kAll; }
  void publish() final;
  void withdraw() final;
  StoresInto stores_into() const final { return StoresInto::kOutput; }
  // Bytes of this rank's input (all-gather: its block) and output, as
  // count and dtype give them.
  uint64_t call_bytes() const { return desc().count * elem(); }

  // The first `length` bytes of rank `rank`'s input or output as mapped
  // here (this rank's own for rank()), valid to the end of the call; only
  // outputs are mapped writable. Only once that rank has staged this
  // call's first chunk. Throws when the rank published another call or
  // shape (INVALID_ARGUMENT), gave up the call (PEER_FAILED) or published
  // a buffer that cannot be mapped.
  const std::byte* peer_input(int rank, uint64_t length);
  std::byte* peer_output(int rank, uint64_t length);
  // Throws PEER_FAILED if rank `rank` has given up this call (withdraw():
  // it failed or was aborted), so that nothing more is written into its
  // buffers. A writer checks before each chunk it writes into a peer.
  void check_still_in_call(int rank);
  // "rank r (pid n)", for messages only: no string on the way through.
  std::string who(int rank) const;

 private:
  // The buffer's placement, or INVALID_ARGUMENT, and the team broken: the
  // check is of this rank's own pointer, so its peers have posted the call
  // this rank cannot join.
  Placement locate(const std::byte* buffer, uint64_t bytes, const char* which);
  // What rank `rank` published for this call, checked against this
  // rank's call (INVALID_ARGUMENT) and its withdrawal (PEER_FAILED).
  const PublishedBuffers& published(int rank);
  // `e` from mapping rank `rank`'s buffer, with the rank named, or its
  // death instead (PEER_FAILED).
  [[noreturn]] void rethrow_named(int rank, const sdk::Error& e) const;

  Placement input_;
  Placement output_;
  std::vector<bool> begun_;  // per rank: PeerBuffers::begin_call made
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_MAPPED_OPERATION_H_
