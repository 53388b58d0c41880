#include "core/cluster/tcp_store_type.h"

#include "strata/sdk/error.h"

namespace strata {
namespace {

[[noreturn]] void throw_status(const Status& s) {
  throw sdk::Error(static_cast<strata_status_t>(s.code()), s.message());
}

class TcpStoreType final : public sdk::StoreType {
 public:
  explicit TcpStoreType(StoreLimits limits)
      : StoreType("tcp", "key/value server hosted by rank 0; address is host:port"),
        limits_(limits) {}

  std::unique_ptr<sdk::Store> open(std::string_view address, int rank, int world,
                                   int64_t deadline_ns) override {
    auto options = TcpStoreOptions::from_environment();
    if (!options.ok()) throw_status(options.status());
    options->limits = limits_;
    return TcpStore::open(address, rank, world, from_ns(deadline_ns), *options);
  }

 private:
  const StoreLimits limits_;
};

}  // namespace

std::unique_ptr<TcpStore> TcpStore::open(std::string_view address, int rank, int world,
                                         Deadline deadline, const TcpStoreOptions& options) {
  auto where = tcp_store::parse_host_port(address);
  if (!where.ok()) throw_status(where.status());
  if (world < 1 || rank < 0 || rank >= world) {
    throw sdk::InvalidArgument("rank " + std::to_string(rank) + " is not in a world of " +
                               std::to_string(world));
  }
  std::unique_ptr<TcpStore> store(new TcpStore());
  store->linger_ = options.linger;
  if (rank == 0) {
    auto server = tcp_store::TcpStoreServer::start(*where, world, options.token, options.limits);
    if (!server.ok()) throw_status(server.status());
    store->server_ = std::move(*server);
    where->port = store->server_->port();
  } else if (where->port == 0) {
    throw sdk::InvalidArgument("TCP store address '" + std::string(address) +
                               "' has port 0, which only rank 0 (the host) may use");
  }
  store->client_ =
      tcp_store::TcpStoreClient::connect(*where, rank, world, deadline, options);
  return store;
}

TcpStore::~TcpStore() {
  client_.reset();  // our goodbye first, so the server does not wait for it
  if (server_ != nullptr) server_->stop(linger_);
}

void TcpStore::set(std::string_view key, std::string_view value) { client_->set(key, value); }

std::string TcpStore::get(std::string_view key, int64_t deadline_ns) {
  return client_->get(key, deadline_ns);
}

int64_t TcpStore::add(std::string_view key, int64_t delta) { return client_->add(key, delta); }

std::unique_ptr<sdk::StoreType> make_tcp_store_type(StoreLimits limits) {
  return std::make_unique<TcpStoreType>(limits);
}

}  // namespace strata
