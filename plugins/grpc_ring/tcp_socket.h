// Plain TCP for the tcp data plane: an owned descriptor and the few blocking
// steps of team formation, each bounded by a deadline. The data path itself
// (tcp_link.cc) is non-blocking and polls.
#ifndef STRATA_PLUGINS_GRPC_RING_TCP_SOCKET_H_
#define STRATA_PLUGINS_GRPC_RING_TCP_SOCKET_H_

#include <chrono>
#include <cstddef>
#include <string>

namespace strata::grpc_ring {

using SteadyTime = std::chrono::steady_clock::time_point;

// A socket descriptor closed on destruction (close() never blocks: no
// SO_LINGER, so what was written is still delivered after it).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  int get() const { return fd_; }
  int release();
  void reset();
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// A listening socket on `host` ("0.0.0.0", "127.0.0.1", "[::1]", a name),
// port 0 (the kernel picks); throws sdk::Error(UNAVAILABLE) naming it.
Fd listen_tcp(const std::string& host);
int local_port(int fd);
// "host:port" of the peer, for log lines.
std::string peer_name(int fd);

// Connects to "host:port" by `deadline`, retrying while nothing listens
// yet; non-blocking, TCP_NODELAY. Throws sdk::Error (TIMED_OUT, UNAVAILABLE)
// whose message starts with `who`.
Fd dial_tcp(const std::string& address, SteadyTime deadline, const std::string& who);

// Non-blocking, TCP_NODELAY and keepalive (a silent peer host is noticed
// within ~20 s) for a data connection.
void tune_data_socket(int fd);

// Until `events` (POLLIN/POLLOUT) or `deadline`; false on timeout.
bool poll_until(int fd, short events, SteadyTime deadline);
// The whole buffer by `deadline`, on a non-blocking socket; false on
// timeout, EOF or error (`error` says which).
bool write_fully(int fd, const void* data, size_t bytes, SteadyTime deadline, std::string* error);
bool read_fully(int fd, void* data, size_t bytes, SteadyTime deadline, std::string* error);

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_TCP_SOCKET_H_
