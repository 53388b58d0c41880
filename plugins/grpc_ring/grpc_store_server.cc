#include "grpc_store_server.h"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/server_builder.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>

#include "grpc_store_wire.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/job_token.h"
#include "wire.h"

namespace strata::grpc_ring {
namespace {

namespace sw = store_wire;

// What a store call's failure is on the wire; GrpcStore maps it back.
grpc::StatusCode wire_code(strata_status_t code) {
  return code == STRATA_OUT_OF_MEMORY ? grpc::StatusCode::RESOURCE_EXHAUSTED
                                      : grpc::StatusCode::INVALID_ARGUMENT;
}

std::string metadata(const grpc::GenericCallbackServerContext* ctx, const char* key) {
  const auto& md = ctx->client_metadata();
  auto it = md.find(key);
  if (it == md.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

}  // namespace

class GrpcStoreServer::Service final : public grpc::CallbackGenericService {
 public:
  Service(StoreServerConfig config, GrpcStoreState& state)
      : config_(std::move(config)), state_(state) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* ctx) override;

  const StoreServerConfig& config() const { return config_; }
  GrpcStoreState& state() { return state_; }
  // host:port with the port bound (the configured one may be 0); set once
  // the server runs, read by gRPC's threads.
  std::string bound_address() const {
    const std::string& a = config_.listen_address;
    return a.substr(0, a.rfind(':') + 1) + std::to_string(port_.load());
  }
  void set_port(int port) { port_.store(port); }

  void hello(int rank) {
    std::lock_guard lock(mu_);
    present_.insert(rank);
  }
  void bye(int rank) {
    std::lock_guard lock(mu_);
    present_.erase(rank);
    changed_.notify_all();
  }
  std::string linger(std::chrono::milliseconds most) {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, most, [&] { return present_.empty(); });
    std::string left;
    for (int r : present_) left += (left.empty() ? "" : ", ") + std::to_string(r);
    return left;
  }

 private:
  StoreServerConfig config_;
  GrpcStoreState& state_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::set<int> present_;
  std::atomic<int> port_{0};
};

namespace {

// One store call: reads the request, answers once, deletes itself when
// gRPC is done with it. The waiter is the single right to answer, so a set,
// the timer and a cancellation can race for a parked get safely.
class StoreCall final : public grpc::ServerGenericBidiReactor {
 public:
  StoreCall(grpc::GenericCallbackServerContext* ctx, GrpcStoreServer::Service& service)
      : ctx_(ctx), service_(service) {
    waiter_ = std::make_shared<GrpcStoreState::Waiter>(
        [this](const std::string* value) { reply_get(value); });
    sdk::HostScope scope(service_.config().services);
    if (auto why = refusal()) {
      // The stranger learns only that it was refused; the log says why.
      sdk::Host::log(STRATA_LOG_WARNING, "grpc_ring store at " + service_.bound_address() +
                                             ": refused a call from " + ctx->peer() + ": " + *why);
      finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "refused by the grpc store"));
      return;
    }
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) return finish(grpc::Status(grpc::StatusCode::CANCELLED, "no request arrived"));
    sdk::HostScope scope(service_.config().services);
    std::string error;
    auto request = sw::decode_request(sw::from_buffer(request_), &error);
    if (!request) return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error));
    try {
      serve(ctx_->method(), *request);
    } catch (const sdk::Error& e) {
      // A refusal by the quota is logged here too: rank 0's log then says
      // who filled the store, as the TCP store's does.
      if (e.code() == STRATA_OUT_OF_MEMORY) {
        sdk::Host::log(STRATA_LOG_WARNING,
                       "grpc store at " + service_.bound_address() + ": " + e.what());
      }
      finish(grpc::Status(wire_code(e.code()), e.what()));
    }
  }
  void OnCancel() override { finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled")); }
  void OnWriteDone(bool) override {}
  void OnDone() override { delete this; }

 private:
  std::optional<std::string> refusal() {
    const std::string method = ctx_->method();
    if (method != sw::kHello && method != sw::kSet && method != sw::kGet && method != sw::kAdd &&
        method != sw::kBye) {
      return "unknown method '" + method + "'";
    }
    if (!sdk::job_tokens_equal(metadata(ctx_, kTokenKey), service_.config().token)) {
      return "it did not present this job's token";
    }
    const std::string rank = metadata(ctx_, sw::kRankKey);
    const std::string world = metadata(ctx_, sw::kWorldKey);
    if (world != std::to_string(service_.config().world)) {
      return "it belongs to a world of '" + world + "' processes, this store's has " +
             std::to_string(service_.config().world);
    }
    rank_ = -1;
    for (int r = 0; r < service_.config().world; ++r) {
      if (rank == std::to_string(r)) rank_ = r;
    }
    if (rank_ < 0) return "it claims rank '" + rank + "', outside the world";
    return std::nullopt;
  }

  void serve(const std::string& method, const sw::Request& r) {
    if (method == sw::kGet) {
      const auto wait = sw::decode_i64(r.body);
      if (!wait) return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad get"));
      const auto ms = std::chrono::milliseconds(std::clamp<int64_t>(*wait, 0, sw::kMaxServerWaitMs));
      // Parked or answered "not yet" through the waiter; a value is ours.
      if (auto value = service_.state().get_or_park(r.key, ms, waiter_)) reply_get(&*value, true);
      return;
    }
    std::string reply;
    if (method == sw::kSet) {
      service_.state().set(r.key, r.body, rank_);
    } else if (method == sw::kAdd) {
      const auto delta = sw::decode_i64(r.body);
      if (!delta) return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad add"));
      reply = sw::encode_i64(service_.state().add(r.key, *delta, rank_));
    } else if (method == sw::kHello) {
      service_.hello(rank_);
    } else {
      service_.bye(rank_);
    }
    write_and_finish(reply);
  }

  void reply_get(const std::string* value, bool claim = false) {
    if (claim && !waiter_->claim()) return;
    if (value == nullptr && service_.state().releasing()) {
      // Not "not yet": the client would ask again at once, until its deadline.
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the store is closing (rank 0 closed it)"));
      return;
    }
    std::string reply(1, value != nullptr ? sw::kFound : sw::kNotYet);
    if (value) reply += *value;
    reply_ = sw::to_buffer(reply);
    StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
  }
  void write_and_finish(const std::string& reply) {
    if (!waiter_->claim()) return;
    reply_ = sw::to_buffer(reply);
    StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
  }
  void finish(const grpc::Status& status) {
    if (waiter_->claim()) Finish(status);
  }

  grpc::GenericCallbackServerContext* ctx_;
  GrpcStoreServer::Service& service_;
  std::shared_ptr<GrpcStoreState::Waiter> waiter_;
  int rank_ = -1;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer reply_;
};

}  // namespace

grpc::ServerGenericBidiReactor* GrpcStoreServer::Service::CreateReactor(
    grpc::GenericCallbackServerContext* ctx) {
  return new StoreCall(ctx, *this);
}

GrpcStoreServer::GrpcStoreServer(StoreServerConfig config) : state_(config.limits) {
  const std::string address = config.listen_address;
  service_ = std::make_unique<Service>(std::move(config), state_);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, service_->config().credentials, &port_);
  builder.RegisterCallbackGenericService(service_.get());
  // Anything bigger than the largest request is refused before it is
  // buffered: a stranger cannot make rank 0 allocate.
  builder.SetMaxReceiveMessageSize(static_cast<int>(sw::kMaxRequestBytes));
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    throw sdk::Error(STRATA_UNAVAILABLE,
                     "grpc store: rank 0 cannot listen on " + address +
                         " (cluster.store grpc:<host:port>: is the host this machine's, the "
                         "port free?)");
  }
  service_->set_port(port_);
}

GrpcStoreServer::~GrpcStoreServer() {
  state_.release_all();
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  server_->Wait();
}

std::string GrpcStoreServer::linger(std::chrono::milliseconds most) {
  return service_->linger(most);
}

}  // namespace strata::grpc_ring
