#include "core/cluster/tcp_store_server_loop.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/cluster/duration_text.h"
#include "core/cluster/health_keys.h"
#include "core/common/logging.h"

namespace strata::tcp_store {
namespace {

using namespace std::chrono_literals;

// A stranger gets this long to say hello before it is dropped, and a
// refused connection this long to take its error reply.
constexpr auto kHelloTimeout = 10s;
constexpr size_t kMaxConnections = 4096;

}  // namespace

ServerLoop::ServerLoop(Socket listener, int world, std::string token, std::string name,
                       StoreLimits limits)
    : listener_(std::move(listener)), world_(world), token_(std::move(token)),
      name_(std::move(name)), quota_(limits), live_(static_cast<size_t>(world), 0) {}

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
      // Read only while no reply waits (read_from says why); POLLHUP and
      // POLLERR come regardless.
      const bool reading = c->state != Conn::State::kClosing && c->out.empty();
      const short events =
          static_cast<short>((reading ? POLLIN : 0) | (c->out.empty() ? 0 : POLLOUT));
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
      if (!c.out.empty() && (ev & (POLLOUT | POLLHUP | POLLERR))) {
        flush(c);
        // Requests that arrived behind the reply waited in c.in.
        if (!c.dead && c.out.empty() && !c.in.empty()) process(c);
      }
      if (!c.dead && (ev & (POLLIN | POLLHUP | POLLERR))) read_from(c);
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

void ServerLoop::close(Conn& c) {
  if (c.dead) return;
  c.dead = true;
  c.waiting = false;
  quota_.release(std::exchange(c.reserved, {}));
  c.admitted = 0;
  c.in = std::string();
  c.out.clear();  // lets go of the values its replies shared
  count_sent(c, c.out_bytes);
  if (c.rank >= 0) {
    --live_[static_cast<size_t>(c.rank)];
    if (!c.said_bye) mark_departed(c);
  }
  drain(c.sock);
  c.sock.reset();
}

void ServerLoop::mark_departed(const Conn& c) {
  // One dropped connection is not a dead rank: a process dies with all its
  // connections, while a healthy one may lose a single one (a client that
  // gave up half-way through a frame, or anyone holding the job's token
  // who connects in its name and drops). Only the last one counts.
  const int others = live_[static_cast<size_t>(c.rank)];
  if (others > 0) {
    STRATA_LOG_INFO("store {}: a connection of rank {} from {} closed without a goodbye; "
                    "the rank still has {} open, so it is not departed", name_, c.rank, c.peer,
                    others);
    return;
  }
  bool first = false;
  {
    std::lock_guard lock(mu_);
    first = departed_.insert(c.rank).second;
  }
  if (!first) return;
  STRATA_LOG_WARN("store {}: rank {} departed: its connection from {} closed without a "
                  "goodbye", name_, c.rank, c.peer);
  const std::string key = health::key(c.rank);
  if (!add(key, health::kDeparted, -1).ok()) {
    if (values_.find(key) == values_.end()) quota_.add_key(key);
    values_[key] = quota_.make_value(std::to_string(health::kDeparted));
  }
  wake(key);
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
