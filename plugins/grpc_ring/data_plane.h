// How a team's ring messages travel: the one thing the two data planes
// (option data_plane) differ in. RingOperation runs every algorithm's plan
// through this interface, so the plans, the wire header and the checks are
// the same on both:
//   - grpc (grpc_data_plane.cc): the team's gRPC streams; gRPC's threads
//     write and read, the inbox hands messages to the calling thread;
//   - tcp (tcp_link.cc): one plain TCP connection each way, progressed by the
//     calling thread alone (non-blocking sockets and poll()), with no copy of
//     what is sent and no allocation per message.
#ifndef STRATA_PLUGINS_GRPC_RING_DATA_PLANE_H_
#define STRATA_PLUGINS_GRPC_RING_DATA_PLANE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "strata/abi/types.h"
#include "wire.h"

namespace strata::grpc_ring {

// Where a received payload goes: copied to dst, or dst = redop(local,
// payload) element by element (MEAN divides by `divisor`).
struct Delivery {
  std::byte* dst = nullptr;
  const std::byte* local = nullptr;  // nullptr: a copy
  strata_dtype_t dtype = STRATA_F32;
  strata_redop_t redop = STRATA_SUM;
  uint32_t divisor = 1;
};

class DataPlane {
 public:
  virtual ~DataPlane() = default;

  // Sends header + payload to the right neighbour. The payload must stay
  // unchanged until completed() counts the message (the ring's plans only
  // ever write a block after what was sent from it has gone round).
  virtual void send(const Header& header, const std::byte* payload) = 0;
  // Messages fully handed to the transport so far, in the order sent.
  virtual uint64_t completed() const = 0;
  // Moves what can move without blocking (tcp: writes what the socket
  // takes; grpc: nothing, gRPC's threads do it).
  virtual void flush() = 0;
  // Takes the next message from the left neighbour if it has arrived,
  // checks its header against `want` (DATA_LOSS naming both) and delivers
  // its payload. false: not complete yet. Throws sdk::Error on failure.
  virtual bool receive(const Header& want, const Delivery& delivery) = 0;
  // Throws sdk::Error(PEER_FAILED) once the way to the right has failed.
  virtual void check_send() const = 0;

  // Sleeping until something may have changed: take a mark, look (test()),
  // then wait(mark, ...) so an event in between is not slept through.
  // `reading` / `sending`: the call still expects messages from the left /
  // has messages for the right.
  virtual uint64_t mark() const = 0;
  virtual void wait(uint64_t mark, std::chrono::steady_clock::time_point deadline, bool reading,
                    bool sending) = 0;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_DATA_PLANE_H_
