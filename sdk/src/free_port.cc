#include "strata/sdk/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <utility>

namespace strata::sdk {
namespace {

constexpr int kFirstUnprivileged = 1024;
// Each try is one bind(); ports outside the range are mostly free, so a few
// tries suffice, and a machine that has them all taken gets port 0 quickly.
constexpr int kTries = 64;

bool bind_to(int fd, sockaddr_in& addr, int port) {
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
}

// A random free port below or above `ephemeral`; false when none of the
// tries found one (or the range leaves no room).
bool bind_outside(int fd, sockaddr_in& addr, const PortRange& ephemeral) {
  for (int attempt = 0; attempt < kTries; ++attempt) {
    uint32_t draw = 0;
    ssize_t got = 0;
    do {
      got = ::getrandom(&draw, sizeof draw, 0);
    } while (got < 0 && errno == EINTR);  // a signal must not send us back to port 0
    if (got != static_cast<ssize_t>(sizeof draw)) return false;
    const int port = port_for_draw(draw, ephemeral);
    if (port == 0) return false;
    if (bind_to(fd, addr, port)) return true;
  }
  return false;
}

}  // namespace

int port_for_draw(uint32_t draw, const PortRange& ephemeral) {
  const int above_from = std::max(ephemeral.high + 1, kFirstUnprivileged);
  const int below = std::max(0, ephemeral.low - kFirstUnprivileged);
  const int above = std::max(0, 65535 - above_from + 1);
  if (below + above == 0) return 0;
  const int k = static_cast<int>(draw % static_cast<uint32_t>(below + above));
  return k < below ? kFirstUnprivileged + k : above_from + (k - below);
}

PortRange ephemeral_port_range() {
  PortRange range;
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0, high = 0;
  if (in >> low >> high && 0 < low && low <= high && high <= 65535) {
    range.low = low;
    range.high = high;
  }
  return range;
}

PortReservation PortReservation::make(Scope scope, std::string& error) {
  PortReservation r;
  r.fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (r.fd_ < 0) {
    const int saved = errno;
    error = std::string("cannot create a socket: ") + std::strerror(saved);
    return r;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(scope == Scope::kLoopback ? INADDR_LOOPBACK : INADDR_ANY);
  if (!bind_outside(r.fd_, addr, ephemeral_port_range()) && !bind_to(r.fd_, addr, 0)) {
    const int saved = errno;
    error = std::string("cannot bind a free port: ") + std::strerror(saved);
    return PortReservation();  // invalid; r's destructor closes the socket
  }
  socklen_t length = sizeof addr;
  if (::getsockname(r.fd_, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    const int saved = errno;
    error = std::string("cannot read the port bound: ") + std::strerror(saved);
    return PortReservation();
  }
  r.port_ = ntohs(addr.sin_port);
  return r;
}

PortReservation::PortReservation(PortReservation&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), port_(std::exchange(other.port_, 0)) {}

PortReservation& PortReservation::operator=(PortReservation&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    port_ = std::exchange(other.port_, 0);
  }
  return *this;
}

PortReservation::~PortReservation() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace strata::sdk
