// A plugin only the resolver tests load, adding resolvers through the
// registrar the way a scheduler vendor would:
//   mpi           stand-in for plugins/mpi: RESOLVER_TEST_MPI="rank/size"
//   batch_sched   RESOLVER_TEST_SCHED="index/size"; says rpc_layer and devices
//   broken_sched  fails when RESOLVER_TEST_BROKEN is set
// Each declines (NOT_SUPPORTED) when its variable is unset.
#include <charconv>
#include <cstdlib>
#include <string>

#include "strata/sdk/plugin.h"

namespace sdk = strata::sdk;

namespace {

struct Place {
  int index = 0;
  int size = 0;
};

// "index/size" from `variable`, or NotSupported when it is unset.
Place read_place(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr) throw sdk::NotSupported(std::string(variable) + " is not set");
  const std::string text(value);
  const size_t slash = text.find('/');
  Place p;
  const bool ok =
      slash != std::string::npos &&
      std::from_chars(text.data(), text.data() + slash, p.index).ec == std::errc() &&
      std::from_chars(text.data() + slash + 1, text.data() + text.size(), p.size).ec == std::errc();
  if (!ok) throw sdk::InvalidArgument(std::string(variable) + "='" + text + "' is not index/size");
  return p;
}

class FakeMpiResolver final : public sdk::Resolver {
 public:
  FakeMpiResolver() : Resolver("mpi", "test stand-in for plugins/mpi") {}
  void resolve(sdk::ClusterSink& sink) override {
    const Place p = read_place("RESOLVER_TEST_MPI");
    for (int i = 0; i < p.size; ++i)
      sink.add_task("worker", i, "mpi" + std::to_string(i) + ":9000");
    sink.set_self("worker", p.index);
  }
};

class BatchSchedResolver final : public sdk::Resolver {
 public:
  BatchSchedResolver() : Resolver("batch_sched", "test scheduler resolver") {}
  void resolve(sdk::ClusterSink& sink) override {
    const Place p = read_place("RESOLVER_TEST_SCHED");
    for (int i = 0; i < p.size; ++i) {
      sink.add_task("worker", i, "sched" + std::to_string(i) + ":7000");
    }
    sink.set_self("worker", p.index);
    sink.set_rpc_layer("grpc");
    sink.set_devices_per_task("cpu", 2);
  }
};

class BrokenSchedResolver final : public sdk::Resolver {
 public:
  BrokenSchedResolver() : Resolver("broken_sched", "test resolver that fails") {}
  void resolve(sdk::ClusterSink&) override {
    const char* value = std::getenv("RESOLVER_TEST_BROKEN");
    if (value == nullptr) throw sdk::NotSupported("RESOLVER_TEST_BROKEN is not set");
    throw sdk::InvalidArgument("RESOLVER_TEST_BROKEN='" + std::string(value) + "' is not a number");
  }
};

void register_resolvers(sdk::Registrar& registrar) {
  registrar.add_resolver(std::make_unique<FakeMpiResolver>());
  registrar.add_resolver(std::make_unique<BatchSchedResolver>());
  registrar.add_resolver(std::make_unique<BrokenSchedResolver>());
}

}  // namespace

STRATA_PLUGIN("resolver_test", "0.0.1", "cluster resolvers for tests/resolvers", register_resolvers)
