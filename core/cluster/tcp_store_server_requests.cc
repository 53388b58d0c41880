// ServerLoop's answers: the hello, and set / get / add / bye against the
// key/value table. The loop itself (sockets, poll, lifecycle) is in
// tcp_store_server_loop.cc.
#include <algorithm>

#include "core/cluster/health_keys.h"
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
  clear_departure(c.rank);
  reply(c, encode_ok({}));
  return true;
}

// A rank that connects again was not dead after all (its last connection
// dropped while it lived): peers must stop reporting it.
void ServerLoop::clear_departure(int rank) {
  {
    std::lock_guard lock(mu_);
    if (departed_.erase(rank) == 0) return;
  }
  const std::string key = health::key(rank);
  auto it = values_.find(key);
  if (it == values_.end()) return;
  auto current = add_to_counter(key, *it->second, 0);
  if (!current.ok() || !health::decode(*current).departed) return;
  STRATA_LOG_WARN("store {}: rank {} connected again, so it is no longer counted as departed",
                  name_, rank);
  it->second = quota_.make_value(std::to_string(*current - health::kDeparted));
  wake(key);
}

void ServerLoop::handle(Conn& c, Request& r) {
  switch (r.op) {
    case Op::kSet: {
      // Admitted from its head (admit()), so it fits the quota.
      auto [it, inserted] = values_.try_emplace(r.key);
      if (inserted) quota_.add_key(r.key);
      it->second = quota_.make_value(std::move(r.value));
      reply(c, encode_ok({}));
      wake(r.key);
      return;
    }
    case Op::kGet:
      if (auto it = values_.find(r.key); it != values_.end()) {
        reply_value(c, it->second);
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
      auto v = add(r.key, r.number, c.rank);
      if (!v.ok() && v.status().code() == Code::kOutOfMemory) {
        STRATA_LOG_WARN("store {}: {}", name_, v.status().message());
        v = Status(v.status().code(), "store " + name_ + ": " + v.status().message());
      }
      reply(c, v.ok() ? encode_ok_number(*v)
                      : encode_error(v.status().code(), v.status().message()));
      if (v.ok()) wake(r.key);
      return;
    }
    default:  // kBye: the client is leaving on purpose, not dying
      c.said_bye = true;
      close(c);
      return;
  }
}

// `rank` < 0: the server's own bookkeeping, which the quota does not refuse.
StatusOr<int64_t> ServerLoop::add(const std::string& key, int64_t delta, int rank) {
  auto it = values_.find(key);
  const std::string_view current = it == values_.end() ? std::string_view() : *it->second;
  STRATA_ASSIGN_OR_RETURN(const int64_t value, add_to_counter(key, current, delta));
  if (it == values_.end()) {
    if (rank >= 0) STRATA_RETURN_IF_ERROR(quota_.admit_new_key(key, rank));
    it = values_.try_emplace(key).first;
    quota_.add_key(key);
  }
  it->second = quota_.make_value(std::to_string(value));
  return value;
}

void ServerLoop::wake(const std::string& key) {
  const auto it = values_.find(key);
  if (it == values_.end()) return;
  for (auto& c : conns_) {
    if (c->waiting && !c->dead && c->wait_key == key) {
      c->waiting = false;
      reply_value(*c, it->second);
    }
  }
}

}  // namespace strata::tcp_store
