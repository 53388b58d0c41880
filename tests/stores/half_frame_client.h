// A connection to the TCP store in a rank's name that sends half of a set's
// frame and drops without a goodbye: a client that gave up half-way, or
// anyone holding the job's token connecting in a live rank's name. Used by
// the departure tests here and the launch tests (tests/launch).
#ifndef STRATA_TESTS_STORES_HALF_FRAME_CLIENT_H_
#define STRATA_TESTS_STORES_HALF_FRAME_CLIENT_H_

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "core/cluster/tcp_store_socket.h"
#include "core/cluster/tcp_store_wire.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata::testing {

class HalfFrameClient {
 public:
  // Connects to the store at `address` as `rank` of `world`, presenting
  // `token`, and waits for the hello's answer: an error if it refused.
  static StatusOr<HalfFrameClient> connect(const std::string& address, int rank, int world,
                                           const std::string& token) {
    using namespace std::chrono_literals;
    STRATA_ASSIGN_OR_RETURN(const tcp_store::HostPort where,
                            tcp_store::parse_host_port(address));
    STRATA_ASSIGN_OR_RETURN(tcp_store::Socket raw,
                            tcp_store::connect_once(where, deadline_after(5s)));
    STRATA_RETURN_IF_ERROR(tcp_store::send_all(
        raw, tcp_store::encode_hello({rank, world, token}), deadline_after(5s)));
    std::string reply;
    STRATA_RETURN_IF_ERROR(tcp_store::receive_some(raw, reply, deadline_after(5s)));
    if (reply.find("refused") != std::string::npos) {
      return PermissionDeniedError("the store refused the hello: " + reply);
    }
    return HalfFrameClient(std::move(raw));
  }

  // The first half of a set of `value_bytes` bytes under `key`; the whole
  // frame is admitted (and counted) from its head.
  Status send_half_a_set(std::string_view key, size_t value_bytes) {
    using namespace std::chrono_literals;
    const std::string frame = tcp_store::encode_set(key, std::string(value_bytes, 'x'));
    return tcp_store::send_all(sock_, std::string_view(frame).substr(0, frame.size() / 2),
                               deadline_after(5s));
  }

  // Closes the connection without a goodbye.
  void drop() { sock_.reset(); }

 private:
  explicit HalfFrameClient(tcp_store::Socket s) : sock_(std::move(s)) {}
  tcp_store::Socket sock_;
};

// connect, send_half_a_set, drop.
inline Status send_half_a_frame_and_drop(const std::string& address, int rank, int world,
                                         const std::string& token, size_t value_bytes = 4096) {
  STRATA_ASSIGN_OR_RETURN(HalfFrameClient c,
                          HalfFrameClient::connect(address, rank, world, token));
  STRATA_RETURN_IF_ERROR(c.send_half_a_set("half/frame", value_bytes));
  c.drop();
  return Status::Ok();
}

}  // namespace strata::testing

#endif  // STRATA_TESTS_STORES_HALF_FRAME_CLIENT_H_
