#include "tcp_listener.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::grpc_ring {
namespace {

struct Pending {
  Fd fd;
  std::string peer;
  std::string bytes;  // the handshake so far
  SteadyTime until;
};

void refuse(const Door& door, const Pending& p, const std::string& why) {
  sdk::Host::log(STRATA_LOG_WARNING, "grpc_ring: rank " + std::to_string(door.rank) +
                                         " of team " + std::to_string(door.team_id) +
                                         " refused a tcp data connection from " + p.peer +
                                         ": " + why);
}

// Reads what `p` sent so far: true once its handshake is complete, false
// while more may come; a refusal reason in `why` ends it.
bool read_handshake(Pending& p, std::string* why) {
  char buf[512];
  for (;;) {
    const auto total = handshake_length(p.bytes, why);
    if (!total) return false;
    const size_t want = *total == 0 ? kHandshakeFixedBytes : *total;
    if (p.bytes.size() >= want && *total != 0) return true;
    const ssize_t n = ::recv(p.fd.get(), buf, std::min(sizeof buf, want - p.bytes.size()),
                             MSG_DONTWAIT);
    if (n > 0) {
      p.bytes.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      *why = "it closed the connection before completing a handshake";
      return false;
    } else {
      if (errno != EAGAIN && errno != EINTR) *why = std::strerror(errno);
      return false;
    }
  }
}

}  // namespace

TcpListener::TcpListener(const std::string& host) : fd_(listen_tcp(host)) {
  port_ = local_port(fd_.get());
}

Fd TcpListener::accept_neighbour(const Door& door, SteadyTime deadline,
                                 std::chrono::milliseconds handshake_time) {
  std::vector<Pending> pending;
  std::vector<pollfd> polled;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    // Strangers whose time ran out are closed; the earliest such moment
    // bounds the poll.
    SteadyTime wake = deadline;
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->until <= now) {
        refuse(door, *it, "it sent no complete handshake within " +
                              std::to_string(handshake_time.count()) + " ms");
        it = pending.erase(it);
      } else {
        wake = std::min(wake, it->until);
        ++it;
      }
    }
    if (now >= deadline) break;
    polled.assign(1, pollfd{fd_.get(), POLLIN, 0});
    for (const Pending& p : pending) polled.push_back(pollfd{p.fd.get(), POLLIN, 0});
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake - now);
    if (::poll(polled.data(), polled.size(), static_cast<int>(wait.count())) < 0 &&
        errno != EINTR) {
      break;
    }
    if (polled[0].revents != 0) {
      for (;;) {
        Fd fd(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!fd) break;
        std::string peer = peer_name(fd.get());
        pending.push_back(Pending{std::move(fd), std::move(peer), {}, now + handshake_time});
      }
    }
    for (size_t i = 0; i < pending.size();) {
      std::string why;
      if (read_handshake(pending[i], &why)) {
        if (auto no = refusal(pending[i].bytes, door)) {
          why = *no;
        } else {
          Fd admitted = std::move(pending[i].fd);
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
          for (const Pending& p : pending) {
            refuse(door, p, "the left neighbour connected while it had sent no complete "
                            "handshake");
          }
          const std::string welcome = encode_welcome();
          std::string error;
          if (!write_fully(admitted.get(), welcome.data(), welcome.size(), deadline, &error)) {
            throw sdk::Error(STRATA_PEER_FAILED, "grpc_ring: could not welcome rank " +
                                                     std::to_string(door.expected_sender) +
                                                     " on the tcp data plane: " + error);
          }
          tune_data_socket(admitted.get());
          return admitted;
        }
      }
      if (!why.empty()) {
        refuse(door, pending[i], why);
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
  throw sdk::Error(STRATA_TIMED_OUT, "rank " + std::to_string(door.expected_sender) +
                                         " (the left neighbour) never opened its tcp data "
                                         "connection to this rank by the team's deadline");
}

}  // namespace strata::grpc_ring
