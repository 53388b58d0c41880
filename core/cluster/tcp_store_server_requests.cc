// ServerLoop's answers: the hello, and set / get / add / bye against the
// key/value table. The loop itself (sockets, poll, lifecycle) is in
// tcp_store_server_loop.cc.
#include <algorithm>

#include "core/cluster/store_counter.h"
#include "core/cluster/tcp_store_server_loop.h"
#include "core/common/logging.h"
#include "strata/sdk/job_token.h"

namespace strata::tcp_store {
namespace {

constexpr int64_t kMaxWaitMs = int64_t{7} * 24 * 3600 * 1000;  // a week

}  // namespace

// False while the hello is incomplete or after refusing it.
bool ServerLoop::handle_hello(Conn& c) {
  const HelloParse p = parse_hello(c.in);
  if (p.state == Parse::kNeedMore) return false;
  if (p.state == Parse::kBad) {
    refuse(c, Code::kInvalidArgument, p.error);
    return false;
  }
  c.in.erase(0, p.consumed);
  const Hello& h = p.hello;
  if (!sdk::job_tokens_equal(h.token, token_)) {
    refuse(c, Code::kPermissionDenied,
           "rank " + std::to_string(h.rank) +
               " presented the wrong job token (STRATA_JOB_TOKEN or STRATA_JOB_TOKEN_FILE must give the job's)");
    return false;
  }
  if (h.world != world_) {
    refuse(c, Code::kFailedPrecondition,
           "rank " + std::to_string(h.rank) + " expects a world of " + std::to_string(h.world) +
               " ranks, the store serves " + std::to_string(world_));
    return false;
  }
  if (h.rank < 0 || h.rank >= world_) {
    refuse(c, Code::kInvalidArgument, "rank " + std::to_string(h.rank) +
                                          " is not in a world of " + std::to_string(world_));
    return false;
  }
  c.rank = h.rank;
  c.state = Conn::State::kReady;
  ++live_[static_cast<size_t>(c.rank)];
  STRATA_LOG_DEBUG("store {}: rank {} connected from {}", name_, c.rank, c.peer);
  reply(c, encode_ok({}));
  return true;
}

void ServerLoop::handle(Conn& c, Request& r) {
  switch (r.op) {
    case Op::kSet:
      values_[r.key] = std::move(r.value);
      reply(c, encode_ok({}));
      wake(r.key);
      return;
    case Op::kGet:
      if (auto it = values_.find(r.key); it != values_.end()) {
        reply(c, encode_ok(it->second));
      } else if (r.number <= 0) {
        reply(c, encode_error(Code::kTimedOut,
                              "key '" + r.key + "' was not set before the deadline"));
      } else {
        c.waiting = true;
        c.wait_key = std::move(r.key);
        // Clamped so that no client can make the deadline arithmetic overflow.
        c.wait_by = deadline_after(std::chrono::milliseconds(std::min(r.number, kMaxWaitMs)));
      }
      return;
    case Op::kAdd: {
      auto v = add(r.key, r.number);
      reply(c, v.ok() ? encode_ok_number(*v) : encode_error(v.status().code(), v.status().message()));
      if (v.ok()) wake(r.key);
      return;
    }
    default:  // kBye: the client is leaving on purpose, not dying
      c.said_bye = true;
      close(c);
      return;
  }
}

StatusOr<int64_t> ServerLoop::add(const std::string& key, int64_t delta) {
  std::string& slot = values_[key];
  STRATA_ASSIGN_OR_RETURN(const int64_t value, add_to_counter(key, slot, delta));
  slot = std::to_string(value);
  return value;
}

void ServerLoop::wake(const std::string& key) {
  const std::string& value = values_[key];
  for (auto& c : conns_) {
    if (c->waiting && !c->dead && c->wait_key == key) {
      c->waiting = false;
      reply(*c, encode_ok(value));
    }
  }
}

}  // namespace strata::tcp_store
