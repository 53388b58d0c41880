#include "core/cluster/tcp_store_server.h"

#include "core/cluster/tcp_store_server_loop.h"
#include "core/common/logging.h"

namespace strata::tcp_store {

StatusOr<std::unique_ptr<TcpStoreServer>> TcpStoreServer::start(const HostPort& at, int world,
                                                                  std::string token,
                                                                  StoreLimits limits) {
  if (world < 1) {
    return InvalidArgumentError("a TCP store needs a world of at least 1 rank, not " +
                                std::to_string(world));
  }
  auto listener = listen_on(at, 1024);
  if (!listener.ok()) {
    return listener.status().prefixed("rank 0 cannot host the TCP store at " + at.text());
  }
  std::unique_ptr<TcpStoreServer> server(new TcpStoreServer());
  server->host_ = at.host;
  server->port_ = local_port(*listener);
  const std::string name = server->address();
  server->loop_ = std::make_unique<ServerLoop>(std::move(*listener), world, std::move(token),
                                               name, limits);
  STRATA_RETURN_IF_ERROR(server->loop_->init());
  server->thread_ = std::thread([loop = server->loop_.get()] { loop->run(); });
  STRATA_LOG_INFO("store {}: serving a world of {} ranks", name, world);
  return server;
}

TcpStoreServer::~TcpStoreServer() { stop(std::chrono::nanoseconds(0)); }

std::string TcpStoreServer::address() const { return HostPort{host_, port_}.text(); }

void TcpStoreServer::stop(std::chrono::nanoseconds linger) {
  if (!thread_.joinable()) return;
  loop_->request_stop(deadline_after(linger));
  thread_.join();
}

std::set<int> TcpStoreServer::departed() const { return loop_->departed(); }

StoreUsage TcpStoreServer::usage() const { return loop_->usage(); }

}  // namespace strata::tcp_store
