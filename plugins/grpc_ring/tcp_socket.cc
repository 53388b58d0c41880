#include "tcp_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "strata/sdk/error.h"

namespace strata::grpc_ring {
namespace {

// "[::1]" -> "::1"; "" and "0.0.0.0" stay as they are.
std::string bare_host(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

addrinfo* resolve(const std::string& host, const std::string& port, bool passive,
                  std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* list = nullptr;
  const std::string h = bare_host(host);
  const int rc = ::getaddrinfo(h.empty() ? nullptr : h.c_str(), port.c_str(), &hints, &list);
  if (rc != 0) {
    *error = ::gai_strerror(rc);
    return nullptr;
  }
  return list;
}

int milliseconds_until(SteadyTime deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Fd listen_tcp(const std::string& host) {
  std::string error = "no address";
  addrinfo* list = resolve(host, "0", true, &error);
  for (addrinfo* a = list; a != nullptr; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) continue;
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd.get(), 64) == 0) {
      ::freeaddrinfo(list);
      return fd;
    }
    error = std::strerror(errno);
  }
  if (list != nullptr) ::freeaddrinfo(list);
  throw sdk::Error(STRATA_UNAVAILABLE, "grpc_ring: cannot listen for the tcp data plane on " +
                                           host + ": " + error +
                                           " (option listen_address names the host)");
}

int local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

std::string peer_name(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "?";
  char host[NI_MAXHOST] = {0};
  char port[NI_MAXSERV] = {0};
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof host, port,
                    sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  return std::string(host) + ":" + port;
}

void tune_data_socket(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A peer host that vanishes without closing (a cut link, a power loss)
  // is noticed within ~20 s, as the gRPC control stream's keepalive does:
  // probes after 10 s of silence, and written data unacknowledged for 20 s
  // aborts the connection; the caller's read or write then fails.
  const int idle_s = 10, interval_s = 5, probes = 2;
  const unsigned user_timeout_ms = 20000;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof idle_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof interval_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

Fd dial_tcp(const std::string& address, SteadyTime deadline, const std::string& who) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    throw sdk::Error(STRATA_INVALID_ARGUMENT, who + ": '" + address + "' is not host:port");
  }
  std::string error = "nothing listened";
  auto pause = std::chrono::milliseconds(5);
  do {
    addrinfo* list = resolve(address.substr(0, colon), address.substr(colon + 1), false, &error);
    for (addrinfo* a = list; a != nullptr; a = a->ai_next) {
      Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      if (!fd) continue;
      tune_data_socket(fd.get());
      if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
        error = std::strerror(errno);
        continue;
      }
      if (!poll_until(fd.get(), POLLOUT, deadline)) {
        error = "the connection was not established in time";
        continue;
      }
      int soerr = 0;
      socklen_t len = sizeof soerr;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soerr, &len);
      if (soerr == 0) {
        ::freeaddrinfo(list);
        return fd;
      }
      error = std::strerror(soerr);
    }
    if (list != nullptr) ::freeaddrinfo(list);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  } while (std::chrono::steady_clock::now() < deadline);
  throw sdk::Error(STRATA_TIMED_OUT, who + ": could not connect to " + address +
                                         " by the team's deadline (" + error + ")");
}

bool poll_until(int fd, short events, SteadyTime deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, milliseconds_until(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return true;  // let the caller's read or write report it
  }
}

bool write_fully(int fd, const void* data, size_t bytes, SteadyTime deadline, std::string* error) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!poll_until(fd, POLLOUT, deadline)) {
        *error = "timed out";
        return false;
      }
    } else {
      *error = std::strerror(errno);
      return false;
    }
  }
  return true;
}

bool read_fully(int fd, void* data, size_t bytes, SteadyTime deadline, std::string* error) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, p, bytes, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
    } else if (n == 0) {
      *error = "the connection was closed";
      return false;
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!poll_until(fd, POLLIN, deadline)) {
        *error = "timed out";
        return false;
      }
    } else {
      *error = std::strerror(errno);
      return false;
    }
  }
  return true;
}

}  // namespace strata::grpc_ring
