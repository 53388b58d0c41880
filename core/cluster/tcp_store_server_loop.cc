#include "core/cluster/tcp_store_server_loop.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/cluster/duration_text.h"
#include "core/cluster/health_keys.h"
#include "core/common/logging.h"

namespace strata::tcp_store {
namespace {

using namespace std::chrono_literals;

// A stranger gets this long to say hello before it is dropped, and a
// refused connection this long to take its error reply.
constexpr auto kHelloTimeout = 10s;
constexpr auto kCloseTimeout = 1s;
constexpr size_t kMaxConnections = 4096;
constexpr size_t kMaxPendingOut = 2 * kMaxFrameBytes;

}  // namespace

ServerLoop::ServerLoop(Socket listener, int world, std::string token, std::string name)
    : listener_(std::move(listener)), world_(world), token_(std::move(token)),
      name_(std::move(name)), live_(static_cast<size_t>(world), 0) {}

Status ServerLoop::init() {
  wake_ = Socket(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake_.valid()) return InternalError("eventfd: " + std::string(std::strerror(errno)));
  return Status::Ok();
}

void ServerLoop::request_stop(Deadline by) {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    stop_by_ = by;
  }
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_.fd(), &one, sizeof one);
}

std::set<int> ServerLoop::departed() const {
  std::lock_guard lock(mu_);
  return departed_;
}

void ServerLoop::run() {
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_ && (peers_finished() || Clock::now() >= stop_by_)) break;
    }
    fds.clear();
    fds.push_back({wake_.fd(), POLLIN, 0});
    const bool accepting = Clock::now() >= accept_paused_until_;
    fds.push_back({listener_.fd(), static_cast<short>(accepting ? POLLIN : 0), 0});
    for (const auto& c : conns_) {
      const short events = static_cast<short>((c->state != Conn::State::kClosing ? POLLIN : 0) |
                                              (c->out.empty() ? 0 : POLLOUT));
      fds.push_back({c->sock.fd(), events, 0});
    }
    if (::poll(fds.data(), fds.size(), poll_timeout_ms()) < 0 && errno != EINTR) {
      STRATA_LOG_ERROR("store {}: poll failed: {}", name_, std::strerror(errno));
      break;
    }
    if (fds[0].revents != 0) {
      uint64_t drained = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_.fd(), &drained, sizeof drained);
    }
    // Connections accepted below have no pollfd yet; only the first
    // `polled` are matched with theirs.
    const size_t polled = conns_.size();
    if (fds[1].revents != 0) accept_all();
    for (size_t i = 0; i < polled; ++i) {
      Conn& c = *conns_[i];
      const short ev = fds[i + 2].revents;
      if (ev & (POLLIN | POLLHUP | POLLERR)) read_from(c);
      if (!c.dead && (ev & POLLOUT)) flush(c);
    }
    expire();
    std::erase_if(conns_, [](const auto& c) { return c->dead; });
  }
  for (auto& c : conns_) {
    c->said_bye = true;  // the server is leaving, not the rank
    close(*c);
  }
  conns_.clear();
}

void ServerLoop::accept_all() {
  for (;;) {
    Socket s(::accept4(listener_.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!s.valid()) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        STRATA_LOG_WARN("store {}: cannot accept: {}", name_, std::strerror(errno));
        accept_paused_until_ = deadline_after(100ms);  // or the loop would spin
      }
      return;
    }
    if (conns_.size() >= kMaxConnections) {
      STRATA_LOG_WARN("store {}: refused connection from {}: {} connections already open",
                      name_, peer_address(s), kMaxConnections);
      continue;
    }
    auto c = std::make_unique<Conn>();
    c->peer = peer_address(s);
    c->sock = std::move(s);
    c->hello_by = deadline_after(kHelloTimeout);
    conns_.push_back(std::move(c));
  }
}

void ServerLoop::read_from(Conn& c) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::recv(c.sock.fd(), chunk, sizeof chunk, 0);
    if (n > 0) {
      c.in.append(chunk, static_cast<size_t>(n));
      process(c);  // parse as we go: garbage is refused before it piles up
      if (c.dead || c.state == Conn::State::kClosing) return;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0 && errno == EINTR) continue;
    close(c);  // end of stream or a reset
    return;
  }
}

void ServerLoop::process(Conn& c) {
  while (!c.dead && c.state != Conn::State::kClosing) {
    if (c.state == Conn::State::kHello) {
      if (!handle_hello(c)) return;
      continue;
    }
    const FrameParse f = parse_frame(c.in);
    if (f.state == Parse::kNeedMore) return;
    if (f.state == Parse::kBad) {
      refuse(c, Code::kDataLoss, f.error);
      return;
    }
    auto request = decode_request(f.op, f.payload);
    c.in.erase(0, f.consumed);
    if (!request.ok()) {
      refuse(c, Code::kDataLoss, request.status().message());
      return;
    }
    if (c.waiting && request->op != Op::kBye) {
      refuse(c, Code::kDataLoss, "sent a request while its get was still waiting");
      return;
    }
    handle(c, *request);
  }
}

void ServerLoop::reply(Conn& c, std::string frame) {
  if (c.out.size() + frame.size() > kMaxPendingOut) {
    STRATA_LOG_WARN("store {}: dropping rank {} at {}: it does not read its replies", name_,
                    c.rank, c.peer);
    close(c);
    return;
  }
  c.out += frame;
  flush(c);
}

void ServerLoop::flush(Conn& c) {
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.sock.fd(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;  // poll() says when to go on
    } else {
      close(c);
      return;
    }
  }
  if (c.state == Conn::State::kClosing) close(c);
}

void ServerLoop::refuse(Conn& c, Code code, const std::string& why) {
  const bool stranger = c.state == Conn::State::kHello;
  STRATA_LOG_WARN("store {}: {} {}: {}", name_,
                  stranger ? "refused connection from" : "dropped rank " + std::to_string(c.rank) + " at",
                  c.peer, why);
  // Closing it as the server's own decision: no "departed" for this rank.
  c.said_bye = true;
  c.waiting = false;
  c.state = Conn::State::kClosing;
  c.close_by = deadline_after(kCloseTimeout);
  reply(c, encode_error(code, "store " + name_ + " refused the connection: " + why));
}

void ServerLoop::close(Conn& c) {
  if (c.dead) return;
  c.dead = true;
  c.waiting = false;
  if (c.rank >= 0) {
    --live_[static_cast<size_t>(c.rank)];
    if (!c.said_bye) {
      bool first = false;
      {
        std::lock_guard lock(mu_);
        first = departed_.insert(c.rank).second;
      }
      if (first) {
        STRATA_LOG_WARN("store {}: rank {} departed: its connection from {} closed without a "
                        "goodbye", name_, c.rank, c.peer);
        const std::string key = health::key(c.rank);
        if (!add(key, health::kDeparted).ok()) values_[key] = std::to_string(health::kDeparted);
        wake(key);
      }
    }
  }
  drain(c.sock);
  c.sock.reset();
}

void ServerLoop::expire() {
  const auto now = Clock::now();
  for (auto& c : conns_) {
    if (c->dead) continue;
    if (c->state == Conn::State::kHello && now >= c->hello_by) {
      refuse(*c, Code::kTimedOut, "sent no hello within " + seconds_text(kHelloTimeout));
    } else if (c->state == Conn::State::kClosing && now >= c->close_by) {
      close(*c);
    } else if (c->waiting && now >= c->wait_by) {
      c->waiting = false;
      reply(*c, encode_error(Code::kTimedOut,
                             "key '" + c->wait_key + "' was not set before the deadline"));
    }
  }
}

bool ServerLoop::peers_finished() const {
  // Rank 0 hosts this server and has already closed its own store. A rank
  // that never connected is not waited for: by the time rank 0 leaves, every
  // healthy rank has long been through the job's first rendezvous.
  for (size_t r = 1; r < live_.size(); ++r) {
    if (live_[r] > 0) return false;
  }
  return true;
}

int ServerLoop::poll_timeout_ms() const {
  Deadline next = deadline_after(1s);
  for (const auto& c : conns_) {
    if (c->state == Conn::State::kHello) next = std::min(next, c->hello_by);
    if (c->state == Conn::State::kClosing) next = std::min(next, c->close_by);
    if (c->waiting) next = std::min(next, c->wait_by);
  }
  {
    std::lock_guard lock(mu_);
    if (stopping_) next = std::min(next, stop_by_);
  }
  if (accept_paused_until_ > Clock::now()) next = std::min(next, accept_paused_until_);
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1000));
}

}  // namespace strata::tcp_store
