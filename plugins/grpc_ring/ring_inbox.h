// Where the stream from the left neighbour delivers, and how the calling
// thread learns that something happened. gRPC runs the stream's reactions
// on its own threads; the collective's test() and wait() run on core's. The
// inbox only queues: headers are checked and payloads reduced by the
// caller's thread, so a peer can never write into a user's buffer.
#ifndef STRATA_PLUGINS_GRPC_RING_RING_INBOX_H_
#define STRATA_PLUGINS_GRPC_RING_RING_INBOX_H_

#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "strata/abi/status.h"

namespace strata::grpc_ring {

// A counter bumped by every event a waiting call may care about (a message
// arrived, a write completed, a stream ended). Waiters remember the count
// they last saw, so a notification between test() and the wait is not lost.
class Signal {
 public:
  void notify();
  uint64_t mark() const;
  // Until the count differs from `seen` or `deadline` passes.
  void wait(uint64_t seen, std::chrono::steady_clock::time_point deadline) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  uint64_t count_ = 0;
};

class Inbox {
 public:
  explicit Inbox(Signal& signal) : signal_(signal) {}

  // The stream from the expected sender was accepted; false if one already
  // was (a second stream claiming the same rank is refused).
  bool claim();
  // Until claimed or `deadline`; false on timeout.
  bool wait_claimed(std::chrono::steady_clock::time_point deadline) const;

  void push(grpc::ByteBuffer&& message);
  // The stream is over. Messages already queued stay readable; after them
  // pop() throws sdk::Error(code, why). The first reason given wins.
  void close(strata_status_t code, const std::string& why);

  // The oldest message, false when none is queued yet; throws once the
  // stream is closed and drained.
  bool pop(grpc::ByteBuffer* out);

 private:
  Signal& signal_;
  mutable std::mutex mu_;
  mutable std::condition_variable claimed_cv_;
  std::deque<grpc::ByteBuffer> queue_;
  bool claimed_ = false;
  bool closed_ = false;
  strata_status_t code_ = STRATA_OK;
  std::string why_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_RING_INBOX_H_
