#include "ring_team.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>

#include <grpcpp/create_channel.h>
#include <grpcpp/support/channel_arguments.h>
#include <nlohmann/json.hpp>

#include "credentials.h"
#include "grpc_data_plane.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/job_token.h"
#include "tcp_link.h"
#include "tcp_listener.h"
#include "wire.h"

namespace strata::grpc_ring {
namespace {

using Key = std::tuple<const void*, uint64_t, int>;
std::mutex g_registry_mu;
std::map<Key, std::weak_ptr<RingTeam>> g_registry;

std::string load_token(const GrpcRingOptions& options, const std::string& where) {
  sdk::JobToken token;
  std::string error;
  if (!sdk::load_job_token(options.token_file, &token, &error)) {
    throw sdk::Error(STRATA_PERMISSION_DENIED,
                     "grpc_ring team_create (" + where + "): the job token is unusable: " + error);
  }
  if (token.value.empty()) {
    throw sdk::Error(
        STRATA_FAILED_PRECONDITION,
        "grpc_ring team_create (" + where +
            "): no job token, and every ring connection must present one. Give every "
            "worker the same secret through " + sdk::kJobTokenFileEnv +
            " (a file only its owner can read) or " + sdk::kJobTokenEnv +
            ", or the option plugins.options.grpc_ring.token_file; `strata launch` sets one");
  }
  return token.value;
}

// The host part of this task's own address in TF_CONFIG
// (cluster[task.type][task.index]), or "" when there is none. The cluster
// description names the addresses the other tasks can reach; a machine's
// hostname need not resolve there (containers, network namespaces).
std::string tf_config_host() {
  const char* text = std::getenv("TF_CONFIG");
  if (text == nullptr) return {};
  const auto config = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) return {};
  const auto task = config.find("task");
  const auto cluster = config.find("cluster");
  if (task == config.end() || cluster == config.end() || !task->is_object()) return {};
  const auto type = task->find("type");
  const auto index = task->find("index");
  if (type == task->end() || index == task->end() || !type->is_string() ||
      !index->is_number_integer()) {
    return {};
  }
  const auto job = cluster->find(type->get<std::string>());
  if (job == cluster->end() || !job->is_array()) return {};
  const auto i = index->get<int64_t>();
  if (i < 0 || static_cast<size_t>(i) >= job->size() || !(*job)[static_cast<size_t>(i)].is_string()) {
    return {};
  }
  const std::string address = (*job)[static_cast<size_t>(i)].get<std::string>();
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

// The host this rank's neighbours dial: the configured one, the listening
// host when it is a real address, this task's TF_CONFIG host, else this
// machine's name.
std::string advertised_host(const GrpcRingOptions& options) {
  if (!options.advertise_host.empty()) return options.advertise_host;
  const std::string host = options.listen_address.substr(0, options.listen_address.rfind(':'));
  if (!host.empty() && host != "0.0.0.0" && host != "[::]" && host != "::") return host;
  if (std::string from_cluster = tf_config_host(); !from_cluster.empty()) return from_cluster;
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// The host part of listen_address: the tcp data plane listens where the
// gRPC server does.
std::string listen_host(const GrpcRingOptions& options) {
  return options.listen_address.substr(0, options.listen_address.rfind(':'));
}

std::chrono::steady_clock::time_point steady_deadline(int64_t deadline_ns) {
  // The host clock and steady_clock need not share an epoch: carry over
  // the time left, not the absolute value.
  const int64_t left = deadline_ns - sdk::Host::now_ns();
  return std::chrono::steady_clock::now() + std::chrono::nanoseconds(left > 0 ? left : 0);
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& address,
                                            const GrpcRingOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(1024);  // the neighbour only ever says welcome
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, static_cast<int>(options.window_bytes));
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, 1 << 20);
  // One connection per team: gRPC would otherwise share a subchannel with
  // other teams dialling the same address.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // A neighbour host that vanishes without closing its socket is noticed
  // by keepalive pings within ~20 s, not only by core's deadline.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  if (!options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  return grpc::CreateCustomChannel(address, channel_credentials(options), args);
}

}  // namespace

RingTeam::RingTeam(const strata_team_desc_t& team, const GrpcRingOptions& options)
    : options_(options), rank_(team.process_rank), size_(team.process_count),
      id_(team.team_id) {
  const auto deadline = steady_deadline(team.deadline_ns);
  const std::string token = load_token(options_, where());
  inbox_ = std::make_shared<Inbox>(signal_);

  ServerConfig sc;
  sc.listen_address = options_.listen_address;
  sc.credentials = server_credentials(options_);
  sc.team_id = id_;
  sc.rank = rank_;
  sc.expected_sender = left();
  sc.token = token;
  sc.max_message_bytes = kHeaderBytes + options_.chunk_bytes;
  sc.window_bytes = options_.window_bytes;
  sc.services = sdk::Host::services();
  server_ = std::make_unique<RingServer>(std::move(sc), inbox_);
  const bool tcp = options_.resolved_data_plane() == DataPlaneKind::kTcp;
  if (tcp && options_.tls()) {
    throw sdk::Error(STRATA_INVALID_ARGUMENT,
                     "grpc_ring team_create (" + where() +
                         "): data_plane tcp would carry the ring's data in clear text beside "
                         "TLS; use data_plane grpc");
  }
  std::unique_ptr<TcpListener> listener;
  if (tcp) listener = std::make_unique<TcpListener>(listen_host(options_));

  const std::string prefix = "grpc_ring/address/";
  const std::string tcp_prefix = "grpc_ring/tcp_address/";
  const std::string host = advertised_host(options_);
  if (tcp) {
    sdk::Host::store_set(team.store, tcp_prefix + std::to_string(rank_),
                         host + ":" + std::to_string(listener->port()));
  }
  sdk::Host::store_set(team.store, prefix + std::to_string(rank_),
                       host + ":" + std::to_string(server_->port()));
  std::string address;
  try {
    address = sdk::Host::store_get(team.store, prefix + std::to_string(right()), team.deadline_ns);
  } catch (const sdk::Error& e) {
    throw sdk::Error(e.code(), "grpc_ring team_create (" + where() + "): rank " +
                                   std::to_string(right()) +
                                   " (the right neighbour) never published its address: " +
                                   e.what());
  }

  LinkConfig lc;
  lc.channel = make_channel(address, options_);
  lc.token = token;
  lc.team_id = id_;
  lc.rank = rank_;
  lc.peer = right();
  lc.peer_address = address;
  link_ = std::make_unique<RingLink>(std::move(lc), signal_);
  link_->open(deadline);
  if (!inbox_->wait_claimed(deadline)) {
    throw sdk::Error(STRATA_TIMED_OUT, "grpc_ring team_create (" + where() + "): rank " +
                                           std::to_string(left()) +
                                           " (the left neighbour) never opened its stream to "
                                           "this rank by the team's deadline");
  }
  if (!tcp) {
    data_plane_ = std::make_unique<GrpcDataPlane>(*link_, *inbox_, signal_, left());
    return;
  }
  try {
    const std::string tcp_address =
        sdk::Host::store_get(team.store, tcp_prefix + std::to_string(right()), team.deadline_ns);
    Fd to_right = TcpLink::dial(tcp_address, id_, rank_, right(), token, deadline);
    Door door;
    door.team_id = id_;
    door.rank = rank_;
    door.expected_sender = left();
    door.token = token;
    Fd from_left = listener->accept_neighbour(door, deadline);
    listener->close();  // the door shuts: nobody else may connect to this team
    TcpLink::await_welcome(to_right.get(), right(), tcp_address, deadline);
    TcpLinkConfig config;
    config.rank = rank_;
    config.left = left();
    config.right = right();
    config.chunks_in_flight = options_.chunks_in_flight;
    data_plane_ = std::make_unique<TcpLink>(std::move(to_right), std::move(from_left), config);
  } catch (const sdk::Error& e) {
    throw sdk::Error(e.code(), "grpc_ring team_create (" + where() + "), tcp data plane: " +
                                   e.what());
  }
}

RingTeam::~RingTeam() {
  // The data connections first (closing never blocks), then the outgoing
  // stream, so the neighbour sees a clean half-close; then the server,
  // which waits briefly for ours from the left.
  data_plane_.reset();
  link_.reset();
  server_.reset();
}

std::string RingTeam::where() const {
  return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ", team " +
         std::to_string(id_);
}

std::byte* RingTeam::scratch(size_t bytes) {
  if (bytes > scratch_bytes_) {
    scratch_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    scratch_bytes_ = bytes;
  }
  return scratch_.get();
}

void RingTeam::mark_broken(const std::string& why) {
  std::lock_guard lock(broken_mu_);
  if (broken_.empty()) broken_ = why;
}

void RingTeam::check_usable() const {
  std::lock_guard lock(broken_mu_);
  if (!broken_.empty()) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "grpc_ring (" + where() + "): an earlier call on this team failed (" +
                         broken_ + "); its streams may still carry that call's messages, so "
                         "build a new team");
  }
}

RingTeamState::RingTeamState(const strata_team_desc_t& team, const GrpcRingOptions& options)
    : key_(team.store, team.team_id, team.process_rank) {
  {
    std::lock_guard lock(g_registry_mu);
    team_ = g_registry[key_].lock();
    if (team_) return;
  }
  // Built outside the lock: threads standing in for processes (tests) must
  // all reach their rendezvous. Algorithms of one process build a team one
  // after another (core creates its teams in turn), so no two race here.
  auto built = std::make_shared<RingTeam>(team, options);
  std::lock_guard lock(g_registry_mu);
  team_ = g_registry[key_].lock();
  if (!team_) {
    team_ = std::move(built);
    g_registry[key_] = team_;
  }
}

RingTeamState::~RingTeamState() {
  team_.reset();
  std::lock_guard lock(g_registry_mu);
  if (auto it = g_registry.find(key_); it != g_registry.end() && it->second.expired()) {
    g_registry.erase(it);
  }
}

}  // namespace strata::grpc_ring
