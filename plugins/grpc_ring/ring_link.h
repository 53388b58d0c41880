// The sending side of a team: one bidirectional stream to the right
// neighbour, kept open for the team's life. Data flows one way; the
// neighbour's only reply is the welcome that says it accepted the stream.
//
// gRPC allows one write in flight per stream, so messages queue here and
// each completion starts the next. Writes complete on gRPC's threads; the
// calling thread sees the count through completed() and the Signal.
#ifndef STRATA_PLUGINS_GRPC_RING_RING_LINK_H_
#define STRATA_PLUGINS_GRPC_RING_RING_LINK_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/client_callback.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "ring_inbox.h"
#include "strata/abi/status.h"

namespace strata::grpc_ring {

struct LinkConfig {
  std::shared_ptr<grpc::Channel> channel;
  std::string token;
  uint64_t team_id = 0;
  int rank = 0;  // this process
  int peer = 0;  // the right neighbour
  std::string peer_address;
};

class RingLink final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  RingLink(LinkConfig config, Signal& signal);
  // Ends the stream: half-close, a short grace for the neighbour to read
  // what is left, then cancel; returns once gRPC has let go of this object.
  ~RingLink() override;
  RingLink(const RingLink&) = delete;
  RingLink& operator=(const RingLink&) = delete;

  // Opens the stream and waits for the neighbour's welcome until
  // `deadline`; throws sdk::Error naming the neighbour (TIMED_OUT,
  // PERMISSION_DENIED, UNAVAILABLE).
  void open(std::chrono::steady_clock::time_point deadline);

  void send(grpc::ByteBuffer&& message);
  // Messages gRPC has taken so far (handed to the transport); they finish
  // in the order sent.
  uint64_t completed() const;
  // Throws sdk::Error(PEER_FAILED) once the stream has failed.
  void check() const;

  void OnReadInitialMetadataDone(bool) override {}
  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  void fail(strata_status_t code, const std::string& why);  // under mu_

  LinkConfig config_;
  Signal& signal_;
  grpc::ClientContext context_;
  grpc::ByteBuffer reply_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<grpc::ByteBuffer> queue_;  // front is being written
  bool started_ = false;
  bool writing_ = false;
  bool read_ended_ = false;  // no operation may be started after this
  bool welcomed_ = false;
  bool closing_ = false;
  bool done_ = false;
  uint64_t completed_ = 0;
  strata_status_t error_code_ = STRATA_OK;
  std::string error_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_RING_LINK_H_
