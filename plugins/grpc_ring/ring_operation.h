// One collective call on the ring, as a plan: the messages this rank sends
// to its right neighbour and the ones it receives from its left, in the
// order the streams carry them. Every algorithm of the plugin is a function
// that builds a plan (all_reduce_ring.cc, ...); this class runs any of them.
//
// A send may wait for a receive (the chunk it forwards must have arrived
// and been reduced first). Receives are applied in stream order, on the
// calling thread, as they arrive; so while chunk c is on the wire chunk
// c-1 is reduced and chunk c+1 queued, and nothing but core's thread ever
// writes the user's buffers.
#ifndef STRATA_PLUGINS_GRPC_RING_RING_OPERATION_H_
#define STRATA_PLUGINS_GRPC_RING_RING_OPERATION_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ring_team.h"
#include "strata/sdk/algorithm.h"
#include "wire.h"

namespace strata::grpc_ring {

struct RecvAction {
  uint32_t step = 0;
  uint32_t chunk = 0;
  std::byte* dst = nullptr;
  // nullptr: copy the payload to dst. Otherwise dst = redop(local, payload).
  const std::byte* local = nullptr;
  strata_redop_t redop = STRATA_SUM;
  uint64_t bytes = 0;
};

struct SendAction {
  uint32_t step = 0;
  uint32_t chunk = 0;
  const std::byte* src = nullptr;
  uint64_t bytes = 0;
  int64_t after = -1;  // index of the receive that must be applied first
};

struct Plan {
  std::function<void()> before;  // local copies, done in post()
  std::vector<RecvAction> recvs;
  std::vector<SendAction> sends;
};

// Splits `count` elements into `parts` contiguous blocks whose sizes differ
// by at most one element (the first count % parts get the extra one).
struct Blocks {
  Blocks(uint64_t count, int parts) : count_(count), parts_(static_cast<uint64_t>(parts)) {}
  uint64_t offset(int b) const;
  uint64_t size(int b) const { return offset(b + 1) - offset(b); }

 private:
  uint64_t count_;
  uint64_t parts_;
};

// Chunks of `bytes` (whole elements of `elem`) at most `chunk_bytes` each;
// calls fn(chunk index, byte offset, bytes) for each.
void for_each_chunk(uint64_t bytes, size_t elem, uint64_t chunk_bytes,
                    const std::function<void(uint32_t, uint64_t, uint64_t)>& fn);

class RingOperation final : public sdk::Operation {
 public:
  RingOperation(RingTeam& team, const strata_call_t& call, Plan plan);

  void post() override;
  bool test() override;
  // Sleeps in the team's data plane between events instead of polling.
  bool wait(std::chrono::nanoseconds timeout) override;
  void abort() override;

 private:
  void advance();
  Header expected(uint32_t step, uint32_t chunk, uint64_t bytes, int sender) const;
  [[noreturn]] void fail(strata_status_t code, const std::string& why);

  RingTeam& team_;
  strata_call_desc_t desc_;
  uint64_t sequence_;
  Plan plan_;
  size_t received_ = 0;
  size_t sent_ = 0;
  uint64_t completed_base_ = 0;  // the data plane's count of finished sends at post()
  bool posted_ = false;
  bool done_ = false;
  strata_status_t failed_code_ = STRATA_OK;  // a failure is final: test() repeats it
  std::string failed_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_RING_OPERATION_H_
