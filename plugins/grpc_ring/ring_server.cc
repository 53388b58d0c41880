#include "ring_server.h"

#include <grpcpp/server_builder.h>

#include <chrono>
#include <mutex>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/job_token.h"
#include "wire.h"

namespace strata::grpc_ring {
namespace {

std::string metadata(const grpc::GenericCallbackServerContext* ctx, const char* key) {
  const auto& md = ctx->client_metadata();
  auto it = md.find(key);
  if (it == md.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

// One accepted (or refused) stream. Deletes itself when gRPC is done with it.
class StreamReactor final : public grpc::ServerGenericBidiReactor {
 public:
  StreamReactor(grpc::GenericCallbackServerContext* ctx, const ServerConfig& config,
                std::shared_ptr<Inbox> inbox)
      : config_(config), inbox_(std::move(inbox)) {
    sdk::HostScope scope(config_.services);
    if (auto why = refusal(ctx)) {
      // The stranger learns only that it was refused; the log says why.
      sdk::Host::log(STRATA_LOG_WARNING, "grpc_ring: rank " + std::to_string(config_.rank) +
                                             " of team " + std::to_string(config_.team_id) +
                                             " refused a connection from " + ctx->peer() +
                                             ": " + *why);
      Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "refused by the ring"));
      return;
    }
    // The welcome tells the opener that it was accepted, so team_create
    // returns only once both directions are known to work.
    welcome_ = grpc::ByteBuffer(nullptr, 0);
    StartWrite(&welcome_);
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    if (ok) {
      inbox_->push(std::move(incoming_));
      incoming_.Clear();
      StartRead(&incoming_);
      return;
    }
    // A graceful end (the sender's team was destroyed) or a broken one: for
    // a call still waiting on data the difference does not matter.
    inbox_->close(STRATA_PEER_FAILED,
                  "the stream from rank " + std::to_string(config_.expected_sender) +
                      " ended (its process exited or lost the connection, or it sent a "
                      "message over the " + std::to_string(config_.max_message_bytes) +
                      "-byte limit)");
    Finish(grpc::Status::OK);
  }
  void OnWriteDone(bool) override {}
  void OnDone() override { delete this; }

 private:
  std::optional<std::string> refusal(grpc::GenericCallbackServerContext* ctx) {
    if (ctx->method() != kStreamMethod) return "unknown method '" + ctx->method() + "'";
    if (!sdk::job_tokens_equal(metadata(ctx, kTokenKey), config_.token)) {
      return "it did not present this job's token";
    }
    if (metadata(ctx, kTeamKey) != std::to_string(config_.team_id)) {
      return "it names team '" + metadata(ctx, kTeamKey) + "'";
    }
    if (metadata(ctx, kRankKey) != std::to_string(config_.expected_sender)) {
      return "it claims to be rank '" + metadata(ctx, kRankKey) + "', expected rank " +
             std::to_string(config_.expected_sender) + " (the left neighbour)";
    }
    if (!inbox_->claim()) {
      return "rank " + std::to_string(config_.expected_sender) + " is connected already";
    }
    return std::nullopt;
  }

  const ServerConfig& config_;
  std::shared_ptr<Inbox> inbox_;
  grpc::ByteBuffer welcome_;
  grpc::ByteBuffer incoming_;
};

}  // namespace

class RingServer::Service final : public grpc::CallbackGenericService {
 public:
  Service(ServerConfig config, std::shared_ptr<Inbox> inbox)
      : config_(std::move(config)), inbox_(std::move(inbox)) {}
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* ctx) override {
    return new StreamReactor(ctx, config_, inbox_);
  }
  const ServerConfig& config() const { return config_; }

 private:
  ServerConfig config_;
  std::shared_ptr<Inbox> inbox_;
};

RingServer::RingServer(ServerConfig config, std::shared_ptr<Inbox> inbox) {
  const std::string address = config.listen_address;
  const int max_message = static_cast<int>(config.max_message_bytes);
  const int window = static_cast<int>(config.window_bytes);
  service_ = std::make_unique<Service>(std::move(config), std::move(inbox));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, service_->config().credentials, &port_);
  builder.RegisterCallbackGenericService(service_.get());
  // Anything bigger than the largest legitimate message is refused by gRPC
  // before it is buffered: a stranger cannot make a worker allocate.
  builder.SetMaxReceiveMessageSize(max_message);
  builder.SetMaxSendMessageSize(64);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, window);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, 4);
  // Keepalive pings from the sender are how a silent peer host is noticed.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    throw sdk::Error(STRATA_UNAVAILABLE,
                     "grpc_ring: cannot listen on " + address +
                         " (option listen_address: is the host this machine's, the port free?)");
  }
}

RingServer::~RingServer() {
  // The grace lets the last messages of a finished call drain when a peer
  // destroys its team a moment before this one.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  server_->Wait();
}

}  // namespace strata::grpc_ring
