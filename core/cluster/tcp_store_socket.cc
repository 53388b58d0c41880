#include "core/cluster/tcp_store_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace strata::tcp_store {
namespace {

// Milliseconds until the deadline, rounded up so poll() never returns a
// hair early and spins; 0 once it has passed.
int poll_ms(Deadline deadline) {
  const auto left = deadline - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<int>(std::min<int64_t>(ms, 60'000));
}

// Waits for `events` on the socket. OK when ready, TIMED_OUT at the deadline.
Status wait_for(const Socket& s, short events, Deadline deadline, std::string_view what) {
  for (;;) {
    pollfd p{s.fd(), events, 0};
    const int n = ::poll(&p, 1, poll_ms(deadline));
    if (n > 0) return Status::Ok();
    if (n < 0 && errno != EINTR) return InternalError("poll: " + errno_text(errno));
    if (n == 0 && Clock::now() >= deadline) {
      return TimedOutError(std::string(what) + " did not finish before the deadline");
    }
  }
}

StatusOr<addrinfo*> resolve(const HostPort& hp, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* list = nullptr;
  const std::string port = std::to_string(hp.port);
  const int rc = ::getaddrinfo(hp.host.empty() ? nullptr : hp.host.c_str(), port.c_str(),
                               &hints, &list);
  if (rc != 0) {
    return UnavailableError("cannot resolve '" + hp.host + "': " + ::gai_strerror(rc));
  }
  return list;
}

}  // namespace

void Socket::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string HostPort::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

StatusOr<HostPort> parse_host_port(std::string_view address) {
  const auto bad = [&](std::string_view why) {
    return InvalidArgumentError("bad TCP store address '" + std::string(address) + "': " +
                                std::string(why) + " (expected host:port, e.g. "
                                "10.0.0.1:29500 or [::1]:29500)");
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) return bad("no host");
  int value = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return bad("port '" + std::string(port) + "' is not a number from 0 to 65535");
  }
  return HostPort{std::string(host), value};
}

StatusOr<Socket> connect_once(const HostPort& to, Deadline deadline) {
  STRATA_ASSIGN_OR_RETURN(addrinfo * list, resolve(to, false));
  Status last = UnavailableError("no address for '" + to.host + "'");
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                      ai->ai_protocol));
    if (!s.valid()) {
      last = UnavailableError("socket: " + errno_text(errno));
      continue;
    }
    const int one = 1;  // requests are small and latency-bound
    ::setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last = UnavailableError(errno_text(errno));
      continue;
    }
    if (Status w = wait_for(s, POLLOUT, deadline, "connect"); !w.ok()) {
      last = w;
      continue;
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      last = UnavailableError(errno_text(err));
      continue;
    }
    ::freeaddrinfo(list);
    return s;
  }
  ::freeaddrinfo(list);
  return last;
}

StatusOr<Socket> listen_on(const HostPort& at, int backlog) {
  STRATA_ASSIGN_OR_RETURN(addrinfo * list, resolve(at, true));
  Status last = UnavailableError("no address for '" + at.host + "'");
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                      ai->ai_protocol));
    const int one = 1;  // a restarted chief can take its port back at once
    if (!s.valid() ||
        ::setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        ::bind(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(s.fd(), backlog) != 0) {
      last = UnavailableError("cannot listen on " + at.text() + ": " + errno_text(errno));
      continue;
    }
    ::freeaddrinfo(list);
    return s;
  }
  ::freeaddrinfo(list);
  return last;
}

int local_port(const Socket& s) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return -1;
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return -1;
}

std::string peer_address(const Socket& s) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(s.fd(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return "?";
  char host[NI_MAXHOST];
  char port[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&a), len, host, sizeof host, port,
                    sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  return HostPort{host, std::atoi(port)}.text();
}

Status send_all(const Socket& s, std::string_view data, Deadline deadline) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(s.fd(), data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      STRATA_RETURN_IF_ERROR(wait_for(s, POLLOUT, deadline, "sending"));
    } else {
      return UnavailableError("sending failed: " + errno_text(errno));
    }
  }
  return Status::Ok();
}

Status receive_some(const Socket& s, std::string& buf, Deadline deadline) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::recv(s.fd(), chunk, sizeof chunk, 0);
    if (n > 0) {
      buf.append(chunk, static_cast<size_t>(n));
      return Status::Ok();
    }
    if (n == 0) return UnavailableError("the server closed the connection");
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      STRATA_RETURN_IF_ERROR(wait_for(s, POLLIN, deadline, "waiting for the reply"));
      continue;
    }
    return UnavailableError("receiving failed: " + errno_text(errno));
  }
}

void drain(const Socket& s) {
  char chunk[4096];
  for (int i = 0; i < 64 && ::recv(s.fd(), chunk, sizeof chunk, MSG_DONTWAIT) > 0; ++i) {
  }
}

}  // namespace strata::tcp_store
