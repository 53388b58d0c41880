#include "core/cluster/tcp_store_client.h"

#include <algorithm>
#include <thread>

#include "core/cluster/duration_text.h"
#include "core/cluster/tcp_store_wire.h"
#include "strata/sdk/error.h"

namespace strata::tcp_store {
namespace {

using namespace std::chrono_literals;

constexpr auto kMinRoundTrip = 100ms;
constexpr auto kFirstRetry = 10ms;
constexpr auto kMaxRetry = 1s;
constexpr auto kByeTimeout = 100ms;
// Longer gets are asked for in rounds of this (the server clamps to a week).
constexpr auto kMaxServerWait = std::chrono::hours(24);

struct Frame {
  Op op;
  std::string payload;
};

// One whole reply frame, or why not.
StatusOr<Frame> read_frame(const Socket& s, Deadline deadline) {
  std::string buf;
  for (;;) {
    const FrameParse f = parse_frame(buf);
    if (f.state == Parse::kDone) {
      // One request, one reply: anything more is a confused server.
      if (f.consumed != buf.size()) return DataLossError("the server sent more than one reply");
      return Frame{f.op, std::string(f.payload)};
    }
    if (f.state == Parse::kBad) return DataLossError("the server sent a bad reply: " + f.error);
    STRATA_RETURN_IF_ERROR(receive_some(s, buf, deadline));
  }
}

// Tells the server this connection ends on purpose (so it does not count the
// rank as departed), then closes it.
void say_goodbye(Socket& s) {
  (void)send_all(s, encode_bye(), deadline_after(kByeTimeout));
  drain(s);
  s.reset();
}

}  // namespace

TcpStoreClient::TcpStoreClient(HostPort server, int rank, int world, TcpStoreOptions options)
    : server_(std::move(server)), address_(server_.text()), rank_(rank), world_(world),
      options_(std::move(options)) {}

TcpStoreClient::~TcpStoreClient() {
  std::lock_guard lock(mu_);
  for (Socket& s : idle_) say_goodbye(s);
}

std::unique_ptr<TcpStoreClient> TcpStoreClient::connect(const HostPort& server, int rank,
                                                        int world, Deadline deadline,
                                                        TcpStoreOptions options) {
  if (options.token.size() > kMaxTokenBytes) {
    throw sdk::InvalidArgument("STRATA_JOB_TOKEN is " + std::to_string(options.token.size()) +
                               " bytes; the limit is " + std::to_string(kMaxTokenBytes));
  }
  std::unique_ptr<TcpStoreClient> c(new TcpStoreClient(server, rank, world, std::move(options)));
  const auto start = Clock::now();
  auto pause = std::chrono::duration_cast<Clock::duration>(kFirstRetry);
  int attempts = 0;
  Status last;
  for (;;) {
    ++attempts;
    auto s = c->open_connection(deadline);
    if (s.ok()) {
      c->idle_.push_back(std::move(*s));
      return c;
    }
    // Refused or unreachable means "not up yet": retry. Anything else is the
    // server's answer (wrong token, world), which retrying will not change.
    if (s.status().code() != Code::kUnavailable && s.status().code() != Code::kTimedOut) {
      throw sdk::Error(static_cast<strata_status_t>(s.status().code()),
                       "rank " + std::to_string(rank) + ": " + s.status().message());
    }
    last = s.status();
    const auto now = Clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min<Clock::duration>(pause * 2, kMaxRetry);
  }
  throw sdk::Error(STRATA_TIMED_OUT,
                   "rank " + std::to_string(rank) + " could not reach the TCP store at " +
                       c->address_ + " within " + seconds_text(Clock::now() - start) + " (" +
                       std::to_string(attempts) + " attempts; last: " + last.message() +
                       "); rank 0 hosts it: is it running, and is the address right?");
}

StatusOr<Socket> TcpStoreClient::open_connection(Deadline deadline) {
  STRATA_ASSIGN_OR_RETURN(Socket s, connect_once(server_, deadline));
  const Hello hello{rank_, world_, options_.token};
  STRATA_RETURN_IF_ERROR(send_all(s, encode_hello(hello), deadline));
  STRATA_ASSIGN_OR_RETURN(Frame f, read_frame(s, deadline));
  auto answer = decode_reply(f.op, f.payload);
  if (!answer.ok()) return answer.status();
  return s;
}

void TcpStoreClient::fail(const Status& s) const {
  throw sdk::Error(static_cast<strata_status_t>(s.code()),
                   s.message() + " (TCP store at " + address_ + ", rank " +
                       std::to_string(rank_) + ")");
}

std::string TcpStoreClient::call(std::string_view what, std::string_view key,
                                 const std::string& frame, Deadline deadline) {
  if (key.size() > kMaxKeyBytes) {
    throw sdk::InvalidArgument("key of " + std::to_string(key.size()) +
                               " bytes; the TCP store allows " + std::to_string(kMaxKeyBytes));
  }
  Socket s;
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      s = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!s.valid()) {
    auto fresh = open_connection(deadline);
    if (!fresh.ok()) fail(fresh.status());
    s = std::move(*fresh);
  }
  const auto start = Clock::now();
  const Status sent = send_all(s, frame, deadline);
  StatusOr<Frame> reply = sent.ok() ? read_frame(s, deadline) : StatusOr<Frame>(sent);
  if (!reply.ok()) {
    // Its reply may still come; the connection must not carry it into the
    // next request.
    say_goodbye(s);
    if (reply.status().code() == Code::kTimedOut) {
      fail(TimedOutError("no reply to " + std::string(what) + " '" +
                                    std::string(key) + "' within " +
                                    seconds_text(Clock::now() - start)));
    }
    fail(reply.status());
  }
  {
    std::lock_guard lock(mu_);
    idle_.push_back(std::move(s));
  }
  auto payload = decode_reply(reply->op, reply->payload);
  if (!payload.ok()) fail(payload.status());
  return std::move(*payload);
}

void TcpStoreClient::set(std::string_view key, std::string_view value) {
  if (value.size() > kMaxValueBytes) {
    throw sdk::InvalidArgument("value of " + std::to_string(value.size()) + " bytes for key '" +
                               std::string(key) + "'; the TCP store allows " +
                               std::to_string(kMaxValueBytes));
  }
  call("set", key, encode_set(key, value), deadline_after(options_.request_timeout));
}

std::string TcpStoreClient::get(std::string_view key, int64_t deadline_ns) {
  const Deadline deadline = from_ns(deadline_ns);
  for (;;) {
    const auto now = Clock::now();
    const auto left = std::max(deadline - now, Clock::duration::zero());
    // The server gives up a little early, so its TIMED_OUT normally arrives
    // before ours and the connection stays usable.
    const auto wait = left - std::min<Clock::duration>(left / 20, 10ms);
    const auto server_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::min<Clock::duration>(wait, kMaxServerWait));
    if (wait <= kMaxServerWait) {
      return call("get", key, encode_get(key, server_ms.count()),
                  std::max(deadline, now + kMinRoundTrip));
    }
    try {
      return call("get", key, encode_get(key, server_ms.count()),
                  now + kMaxServerWait + kMinRoundTrip);
    } catch (const sdk::Error& e) {
      if (e.code() != STRATA_TIMED_OUT) throw;  // else: the next round
    }
  }
}

int64_t TcpStoreClient::add(std::string_view key, int64_t delta) {
  const std::string payload =
      call("add", key, encode_add(key, delta), deadline_after(options_.request_timeout));
  auto v = decode_number(payload);
  if (!v.ok()) fail(v.status());
  return *v;
}

}  // namespace strata::tcp_store
