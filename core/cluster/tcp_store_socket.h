// POSIX sockets for the TCP store, every wait bounded by a deadline: poll()
// with a timeout, never a blocking call. Sockets are non-blocking and
// close-on-exec; sends never raise SIGPIPE.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_SOCKET_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_SOCKET_H_

#include <string>
#include <string_view>
#include <utility>

#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata::tcp_store {

// Owns one file descriptor.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { reset(); }
  Socket(Socket&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Socket& operator=(Socket&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset();

 private:
  int fd_ = -1;
};

struct HostPort {
  std::string host;  // without brackets: "127.0.0.1", "::1", "chief-0"
  int port = 0;
  std::string text() const;  // "127.0.0.1:29500", "[::1]:29500"
};

// "host:port" or "[v6]:port"; the error says what a good address looks like.
StatusOr<HostPort> parse_host_port(std::string_view address);

// One attempt to connect, bounded by `deadline`. UNAVAILABLE when refused or
// unreachable (worth retrying), TIMED_OUT at the deadline.
StatusOr<Socket> connect_once(const HostPort& to, Deadline deadline);

// A listening socket (SO_REUSEADDR) on host:port; port 0 picks a free one.
StatusOr<Socket> listen_on(const HostPort& at, int backlog);

int local_port(const Socket& s);              // the port a socket is bound to
std::string peer_address(const Socket& s);    // "10.0.0.7:51234", for logs

// Sends everything or fails: TIMED_OUT at the deadline, UNAVAILABLE when
// the peer is gone.
Status send_all(const Socket& s, std::string_view data, Deadline deadline);

// Appends whatever arrives (at least one byte) to `buf`. UNAVAILABLE with
// "closed the connection" on end of stream, TIMED_OUT at the deadline.
Status receive_some(const Socket& s, std::string& buf, Deadline deadline);

// Reads and drops whatever is already waiting without blocking, so closing
// the socket sends FIN rather than RST.
void drain(const Socket& s);

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_SOCKET_H_
