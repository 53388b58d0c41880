#include "grpc_store_client.h"

#include <grpcpp/create_channel.h>

#include <condition_variable>
#include <mutex>

#include "grpc_store_wire.h"
#include "wire.h"

namespace strata::grpc_ring {
namespace {

namespace sw = store_wire;

std::shared_ptr<grpc::Channel> make_channel(const StoreClientConfig& config) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(sw::kMaxValueBytes + 64));
  // Ranks usually start before rank 0 listens; gRPC's default first
  // reconnect back-off (1 s, growing to 120 s) would make a job wait long
  // after the store came up. 10 ms doubling to 1 s, as the TCP store does.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 10);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 10);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Several stores (or runtimes) of one process must not share a
  // connection that one of them is about to close.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (!config.tls_server_name.empty()) args.SetSslTargetNameOverride(config.tls_server_name);
  return grpc::CreateCustomChannel(config.address, config.credentials, args);
}

const char* state_name(grpc_connectivity_state s) {
  switch (s) {
    case GRPC_CHANNEL_IDLE: return "IDLE";
    case GRPC_CHANNEL_CONNECTING: return "CONNECTING";
    case GRPC_CHANNEL_READY: return "READY";
    case GRPC_CHANNEL_TRANSIENT_FAILURE: return "TRANSIENT_FAILURE";
    case GRPC_CHANNEL_SHUTDOWN: return "SHUTDOWN";
  }
  return "unknown";
}

}  // namespace

GrpcStoreClient::GrpcStoreClient(StoreClientConfig config)
    : config_(std::move(config)),
      channel_(make_channel(config_)),
      stub_(std::make_unique<grpc::GenericStub>(channel_)) {}

grpc::Status GrpcStoreClient::call(const char* method, std::string_view key,
                                   std::string_view body, Clock::time_point deadline,
                                   bool wait_for_ready, std::string* reply) {
  grpc::ClientContext ctx;
  ctx.set_deadline(deadline);
  ctx.set_wait_for_ready(wait_for_ready);
  ctx.AddMetadata(kTokenKey, config_.token);
  ctx.AddMetadata(sw::kRankKey, std::to_string(config_.rank));
  ctx.AddMetadata(sw::kWorldKey, std::to_string(config_.world));
  const grpc::ByteBuffer request = sw::to_buffer(sw::encode_request(key, body));
  grpc::ByteBuffer response;

  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status status;
  stub_->UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     std::lock_guard lock(mu);
                     status = std::move(s);
                     done = true;
                     cv.notify_all();
                   });
  std::unique_lock lock(mu);
  // gRPC ends the call at its deadline; the margin only covers a late
  // callback. If even that passes, cancelling makes gRPC answer at once
  // (the callback refers to this frame, so it must run before we return).
  if (!cv.wait_until(lock, deadline + std::chrono::seconds(2), [&] { return done; })) {
    ctx.TryCancel();
    cv.wait(lock, [&] { return done; });
  }
  if (status.ok() && reply != nullptr) *reply = sw::from_buffer(response);
  return status;
}

std::string GrpcStoreClient::channel_state() const {
  return state_name(channel_->GetState(false));
}

}  // namespace strata::grpc_ring
