// The tcp data plane (data_plane: tcp, the default without TLS): one plain
// TCP connection to the right neighbour and one from the left, opened while
// the team forms (after gRPC's control plane did) and progressed by the
// calling thread alone. No thread of ours or gRPC's touches a message: the
// caller writes what the socket takes straight from the user's buffer
// (writev of header and payload, no copy), reads the next message's header,
// checks it, then reads its payload straight into the output when it is a
// copy, or into one reusable chunk and reduces each piece as it arrives;
// while it waits, poll() watches both sockets until the call's deadline.
// Only what the plan expects next is ever read, so a message of the next
// call stays in the kernel's buffer.
#ifndef STRATA_PLUGINS_GRPC_RING_TCP_LINK_H_
#define STRATA_PLUGINS_GRPC_RING_TCP_LINK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data_plane.h"
#include "strata/abi/status.h"
#include "tcp_socket.h"

namespace strata::grpc_ring {

struct TcpLinkConfig {
  int rank = 0;
  int left = 0;
  int right = 0;
  uint32_t chunks_in_flight = 8;  // the queue's size; the plan never exceeds it
};

class TcpLink final : public DataPlane {
 public:
  TcpLink(Fd to_right, Fd from_left, TcpLinkConfig config);

  // Formation, the dialling side: connects to the right neighbour at
  // `address` and presents the handshake; then, once this rank has
  // accepted its own left neighbour, await_welcome. Both throw sdk::Error
  // (TIMED_OUT, PERMISSION_DENIED, PEER_FAILED) naming the neighbour.
  static Fd dial(const std::string& address, uint64_t team_id, int rank, int peer,
                 const std::string& token, SteadyTime deadline);
  static void await_welcome(int fd, int peer, const std::string& address, SteadyTime deadline);

  void send(const Header& header, const std::byte* payload) override;
  uint64_t completed() const override { return completed_; }
  void flush() override;
  bool receive(const Header& want, const Delivery& delivery) override;
  void check_send() const override;
  uint64_t mark() const override { return 0; }
  void wait(uint64_t mark, SteadyTime deadline, bool reading, bool sending) override;

 private:
  struct Outgoing {
    std::byte head[kHeaderBytes];
    const std::byte* payload = nullptr;
    uint64_t bytes = 0;    // payload bytes
    uint64_t written = 0;  // of header + payload
  };
  Outgoing& queued(size_t i) { return queue_[(first_ + i) % queue_.size()]; }
  // Reads into `into` what is there; false when nothing more is now.
  bool read_some(std::byte* into, uint64_t want, uint64_t* got);
  void reduce_arrived(const Header& want, const Delivery& delivery);
  void fail_send(const std::string& why);
  [[noreturn]] void fail_receive(const std::string& why);

  Fd right_fd_, left_fd_;
  TcpLinkConfig config_;
  std::vector<Outgoing> queue_;  // a ring of chunks_in_flight slots, never reallocated
  size_t first_ = 0, queued_ = 0;
  uint64_t completed_ = 0;
  std::byte head_[kHeaderBytes];
  uint64_t head_have_ = 0;
  uint64_t payload_have_ = 0, reduced_ = 0;
  std::vector<std::byte> staging_;  // one chunk, reused: what is reduced arrives here
  std::string send_error_;
  std::string receive_error_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_TCP_LINK_H_
