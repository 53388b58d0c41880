// ServerLoop's bytes in and out: reading and framing requests (each one
// admitted against the quota from its head, before its body is buffered),
// and queueing and sending replies. The connections' lifecycle is in
// tcp_store_server_loop.cc, what requests mean in tcp_store_server_requests.cc.
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <utility>

#include "core/cluster/tcp_store_server_loop.h"
#include "core/common/logging.h"

namespace strata::tcp_store {
namespace {

using namespace std::chrono_literals;

// A refused connection gets this long to take its error reply.
constexpr auto kCloseTimeout = 1s;
// A connection is read only while none of its replies waits (a client has
// one request outstanding), so it holds one reply at most; this bound is
// the safety net behind that rule.
constexpr size_t kMaxPendingOut = 2 * kMaxFrameBytes;
constexpr size_t kReadChunk = 64 * 1024;

// How much to read next: never past what the connection may buffer
// uncounted (a hello, a request's head) or counted (an admitted frame), so
// no connection holds more than a few KiB the quota does not see.
size_t read_room(size_t want, size_t buffered) {
  return std::min(want > buffered ? want - buffered : 1, kReadChunk);
}

}  // namespace

void ServerLoop::read_from(Conn& c) {
  char chunk[kReadChunk];
  // Not while a reply waits: a client that pipelines requests without
  // reading the replies would make the server queue them without bound.
  // What it sends meanwhile waits in the kernel's buffers, which are bounded.
  while (c.out.empty()) {
    size_t want = kMaxRequestHeadBytes;
    if (c.state == Conn::State::kHello) want = kHelloFixedBytes + kMaxTokenBytes;
    if (c.admitted > 0) want = c.admitted;
    if (c.skip > 0) want = c.skip;  // dropped as it comes
    const ssize_t n = ::recv(c.sock.fd(), chunk, read_room(want, c.in.size()), 0);
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
  // One reply waiting at most: requests read behind it wait in c.in until
  // it has gone (run() calls this again then).
  while (!c.dead && c.state != Conn::State::kClosing && c.out.empty()) {
    if (c.state == Conn::State::kHello) {
      if (!handle_hello(c)) return;
      continue;
    }
    if (c.skip > 0) {
      const size_t dropped = std::min(c.skip, c.in.size());
      c.in.erase(0, dropped);
      c.skip -= dropped;
      if (c.skip > 0) return;
      continue;
    }
    if (c.admitted == 0) {
      if (!admit(c)) return;
      if (c.skip > 0) continue;  // refused: its bytes go unread
    }
    const FrameParse f = parse_frame(c.in);
    if (f.state == Parse::kNeedMore) return;
    if (f.state == Parse::kBad) {
      refuse(c, Code::kDataLoss, f.error);
      return;
    }
    auto request = decode_request(f.op, f.payload);
    const size_t consumed = f.consumed;
    if (!request.ok()) {
      refuse(c, Code::kDataLoss, request.status().message());
      return;
    }
    quota_.release(std::exchange(c.reserved, {}));
    c.admitted = 0;
    // A big frame's buffer goes with it rather than staying with the
    // connection, uncounted.
    if (c.in.size() == consumed && c.in.capacity() > kMaxRequestHeadBytes) {
      c.in = std::string();
    } else {
      c.in.erase(0, consumed);
    }
    handle(c, *request);
  }
}

// False while the head is incomplete, or when the request was refused.
bool ServerLoop::admit(Conn& c) {
  const RequestHead h = parse_request_head(c.in);
  if (h.state == Parse::kNeedMore) return false;
  if (h.state == Parse::kBad) {
    refuse(c, Code::kDataLoss, h.error);
    return false;
  }
  if (c.waiting && h.op != Op::kBye) {
    refuse(c, Code::kDataLoss, "sent a request while its get was still waiting");
    return false;
  }
  if (h.op == Op::kSet) {
    const bool new_key = values_.find(h.key) == values_.end();
    auto reserved = quota_.admit_set(h.key, new_key, h.value_bytes, h.frame_bytes, c.rank);
    if (!reserved.ok()) {
      const std::string& why = reserved.status().message();
      STRATA_LOG_WARN("store {}: {}", name_, why);
      // Answered at once, so the client learns before it has sent it all;
      // its body is then read and dropped, never buffered, and the
      // connection stays in step and usable.
      c.skip = h.frame_bytes;
      reply(c, encode_error(reserved.status().code(), "store " + name_ + ": " + why));
      return !c.dead;
    }
    c.reserved = *reserved;
  }
  c.admitted = h.frame_bytes;
  if (c.in.capacity() < c.admitted) c.in.reserve(c.admitted);
  return true;
}

bool ServerLoop::room_for(Conn& c, size_t bytes) {
  if (c.out_bytes + bytes <= kMaxPendingOut) return true;
  STRATA_LOG_WARN("store {}: dropping rank {} at {}: it does not read its replies", name_,
                  c.rank, c.peer);
  close(c);
  return false;
}

void ServerLoop::reply(Conn& c, std::string frame) {
  if (!room_for(c, frame.size())) return;
  count_queued(c, frame.size());
  c.out.push_back(OutPiece{std::move(frame), nullptr, 0});
  flush(c);
}

void ServerLoop::reply_value(Conn& c, const Value& value) {
  if (!room_for(c, value->size() + 5)) return;
  count_queued(c, value->size() + 5);
  c.out.push_back(OutPiece{encode_ok_header(value->size()), nullptr, 0});
  if (!value->empty()) c.out.push_back(OutPiece{{}, value, 0});
  flush(c);
}

void ServerLoop::count_queued(Conn& c, size_t bytes) {
  c.out_bytes += bytes;
  reply_bytes_ += bytes;
}

void ServerLoop::count_sent(Conn& c, size_t bytes) {
  c.out_bytes -= bytes;
  reply_bytes_ -= bytes;
}

void ServerLoop::flush(Conn& c) {
  while (!c.out.empty()) {
    // A header and its value leave in one call: sent apart, the value
    // could wait on Nagle's algorithm for the header's acknowledgement.
    std::array<iovec, 8> parts{};
    size_t count = 0;
    for (auto it = c.out.begin(); it != c.out.end() && count < parts.size(); ++it, ++count) {
      const std::string_view b = it->bytes().substr(it->sent);
      parts[count] = {const_cast<char*>(b.data()), b.size()};
    }
    msghdr msg{};
    msg.msg_iov = parts.data();
    msg.msg_iovlen = count;
    ssize_t n = ::sendmsg(c.sock.fd(), &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // poll() says when
    if (n <= 0) {
      close(c);
      return;
    }
    count_sent(c, static_cast<size_t>(n));
    for (auto sent = static_cast<size_t>(n); sent > 0;) {
      OutPiece& front = c.out.front();
      const size_t taken = std::min(front.bytes().size() - front.sent, sent);
      front.sent += taken;
      sent -= taken;
      if (front.sent == front.bytes().size()) c.out.pop_front();
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

}  // namespace strata::tcp_store
