#include "grpc_store.h"

#include <algorithm>
#include <cstdio>

#include "grpc_store_wire.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::grpc_ring {
namespace {

namespace sw = store_wire;
using Clock = GrpcStoreClient::Clock;
using std::chrono::milliseconds;

// set and add have no deadline in the store API; this bounds them.
constexpr milliseconds kCallTimeout{10000};
// Time for a get's answer to travel back after the server's wait ended.
constexpr milliseconds kReplyGrace{250};

// A host-clock deadline as gRPC's (wall clock): hosts' clocks differ, so
// only the time left travels.
Clock::time_point to_system(int64_t deadline_ns) {
  const int64_t left = deadline_ns - sdk::Host::now_ns();
  return Clock::now() + std::chrono::nanoseconds(std::max<int64_t>(left, 0));
}

std::string seconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", static_cast<double>(ns) / 1e9);
  return text;
}

strata_status_t code_of(const grpc::Status& s) {
  switch (s.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED: return STRATA_TIMED_OUT;
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED: return STRATA_PERMISSION_DENIED;
    case grpc::StatusCode::INVALID_ARGUMENT: return STRATA_INVALID_ARGUMENT;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return STRATA_OUT_OF_MEMORY;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED: return STRATA_UNAVAILABLE;
    default: return STRATA_INTERNAL;
  }
}

}  // namespace

GrpcStore::GrpcStore(GrpcStoreConfig config, int64_t deadline_ns) : config_(std::move(config)) {
  address_ = config_.address;
  if (config_.rank == 0) {
    StoreServerConfig sc;
    sc.listen_address = config_.address;
    sc.credentials = config_.server_credentials;
    sc.token = config_.token;
    sc.world = config_.world;
    sc.services = config_.services;
    sc.limits = config_.limits;
    server_ = std::make_unique<GrpcStoreServer>(std::move(sc));
    address_ = address_.substr(0, address_.rfind(':') + 1) + std::to_string(server_->port());
  }
  StoreClientConfig cc;
  cc.address = address_;
  cc.rank = config_.rank;
  cc.world = config_.world;
  cc.token = config_.token;
  cc.credentials = config_.channel_credentials;
  cc.tls_server_name = config_.tls_server_name;
  client_ = std::make_unique<GrpcStoreClient>(std::move(cc));
  hello(deadline_ns);
}

void GrpcStore::hello(int64_t deadline_ns) {
  const int64_t start = sdk::Host::now_ns();
  // Even a deadline that has passed gets one short try, as for get.
  const Clock::time_point deadline =
      std::max(to_system(deadline_ns), Clock::now() + milliseconds(100));
  const grpc::Status s = client_->call(sw::kHello, "", "", deadline, true, nullptr);
  if (s.ok()) return;
  const std::string rank = "rank " + std::to_string(config_.rank);
  if (code_of(s) == STRATA_PERMISSION_DENIED) {
    throw sdk::Error(STRATA_PERMISSION_DENIED,
                     rank + " was refused by the grpc store at " + address_ +
                         ": a wrong job token, world size or rank (rank 0's log says "
                         "which); every rank needs the same STRATA_JOB_TOKEN_FILE or "
                         "STRATA_JOB_TOKEN and the same TF_CONFIG");
  }
  if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
      s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    throw sdk::Error(STRATA_TIMED_OUT,
                     rank + " could not reach the grpc store at " + address_ + " within " +
                         seconds(sdk::Host::now_ns() - start) + " (gRPC: " +
                         s.error_message() + "; channel " + client_->channel_state() +
                         "); rank 0 hosts it: is it running, is the address right, and do all "
                         "ranks agree on TLS?");
  }
  fail(s, "hello");
}

GrpcStore::~GrpcStore() {
  // A rank 0 that is gone already answers at once (no wait for ready).
  const grpc::Status s =
      client_->call(sw::kBye, "", "", Clock::now() + milliseconds(2000), false, nullptr);
  if (!s.ok() && config_.rank != 0) {
    sdk::Host::log(STRATA_LOG_DEBUG, "grpc store: rank " + std::to_string(config_.rank) +
                                         " could not say bye to " + address_ + ": " +
                                         s.error_message());
  }
  client_.reset();
  if (server_ == nullptr) return;
  const std::string left = server_->linger(config_.linger);
  if (!left.empty()) {
    sdk::Host::log(STRATA_LOG_WARNING,
                   "grpc store at " + address_ + ": rank 0 closes it although rank(s) " + left +
                       " did not close theirs within " +
                       seconds(std::chrono::nanoseconds(config_.linger).count()));
  }
  server_.reset();
}

void GrpcStore::check_key(std::string_view key) const {
  if (key.size() > sw::kMaxKeyBytes) {
    throw sdk::InvalidArgument("a key of " + std::to_string(key.size()) +
                               " bytes is over the grpc store's " +
                               std::to_string(sw::kMaxKeyBytes) + "-byte limit (" + where() +
                               ")");
  }
}

void GrpcStore::set(std::string_view key, std::string_view value) {
  check_key(key);
  if (value.size() > sw::kMaxValueBytes) {
    throw sdk::InvalidArgument("set '" + std::string(key) + "': a value of " +
                               std::to_string(value.size()) + " bytes is over the " +
                               std::to_string(sw::kMaxValueBytes) + "-byte limit (" + where() +
                               ")");
  }
  const grpc::Status s =
      client_->call(sw::kSet, key, value, Clock::now() + kCallTimeout, false, nullptr);
  if (!s.ok()) fail(s, "set '" + std::string(key) + "'");
}

std::string GrpcStore::get(std::string_view key, int64_t deadline_ns) {
  check_key(key);
  const int64_t start = sdk::Host::now_ns();
  for (;;) {
    // The server parks the get for what is left (capped); the answer is
    // the value or "not yet", and then we ask again until our deadline.
    const int64_t left_ms = (deadline_ns - sdk::Host::now_ns()) / 1000000;
    const int64_t wait_ms = std::clamp<int64_t>(left_ms, 0, sw::kMaxServerWaitMs);
    std::string reply;
    const grpc::Status s =
        client_->call(sw::kGet, key, sw::encode_i64(wait_ms),
                      Clock::now() + milliseconds(wait_ms) + kReplyGrace, false, &reply);
    const bool more = sdk::Host::now_ns() < deadline_ns;
    if (!s.ok()) {
      // A slow round trip is not the end while our own deadline is ahead.
      if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && more) continue;
      if (s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
        fail(s, "get '" + std::string(key) + "'");
      }
    } else if (!reply.empty() && reply[0] == sw::kFound) {
      return reply.substr(1);
    } else if (reply.size() != 1 || reply[0] != sw::kNotYet) {
      throw sdk::Error(STRATA_DATA_LOSS, "get '" + std::string(key) +
                                             "': the server sent a malformed reply (" +
                                             where() + ")");
    } else if (more) {
      continue;
    }
    throw sdk::Error(STRATA_TIMED_OUT, "key '" + std::string(key) + "' was not set within " +
                                           seconds(sdk::Host::now_ns() - start) + " (" +
                                           where() + ")");
  }
}

int64_t GrpcStore::add(std::string_view key, int64_t delta) {
  check_key(key);
  std::string reply;
  const grpc::Status s = client_->call(sw::kAdd, key, sw::encode_i64(delta),
                                       Clock::now() + kCallTimeout, false, &reply);
  if (!s.ok()) fail(s, "add '" + std::string(key) + "'");
  const auto value = sw::decode_i64(reply);
  if (!value) {
    throw sdk::Error(STRATA_DATA_LOSS, "add '" + std::string(key) +
                                           "': the server sent a malformed reply (" + where() +
                                           ")");
  }
  return *value;
}

void GrpcStore::fail(const grpc::Status& status, const std::string& what) const {
  std::string text = what + " failed: " + status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    text += " (rank 0 hosts the store: did it exit or close it?)";
  }
  throw sdk::Error(code_of(status), text + " (" + where() + ")");
}

std::string GrpcStore::where() const {
  return "grpc store at " + address_ + ", rank " + std::to_string(config_.rank);
}

}  // namespace strata::grpc_ring
