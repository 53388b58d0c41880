#include "tpu_resolver.h"

#include <charconv>
#include <cstdlib>

#include "strata/sdk/error.h"
#include "tpu_sim_options.h"

namespace strata::tpu_sim {
namespace {

// TF's TPUClusterResolver default worker port.
constexpr const char* kDefaultPort = "8470";

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

// "host" or "host:port" -> "host:port"; throws naming `variable`.
std::string address(const char* variable, const std::string& value, const std::string& entry) {
  const size_t colon = entry.find(':');
  const std::string host = entry.substr(0, colon);
  bool ok = !host.empty();
  for (char c : host) ok = ok && host_char(c);
  std::string port = kDefaultPort;
  if (ok && colon != std::string::npos) {
    port = entry.substr(colon + 1);
    int p = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    ok = ec == std::errc() && end == port.data() + port.size() && p >= 1 && p <= 65535;
  }
  if (!ok) {
    throw sdk::InvalidArgument(std::string(variable) + "='" + value + "': '" + entry +
                               "' is not a host name or host:port (port 1-65535)");
  }
  return host + ":" + port;
}

std::vector<std::string> hosts_from(const EnvLookup& env) {
  std::vector<std::string> hosts;
  if (auto list = env("TPU_WORKER_HOSTNAMES")) {
    size_t start = 0;
    for (;;) {
      const size_t comma = list->find(',', start);
      const std::string entry =
          list->substr(start, comma == std::string::npos ? comma : comma - start);
      if (entry.empty()) {
        throw sdk::InvalidArgument("TPU_WORKER_HOSTNAMES='" + *list + "': entry " +
                                   std::to_string(hosts.size()) +
                                   " is empty; expected host names separated by commas");
      }
      hosts.push_back(address("TPU_WORKER_HOSTNAMES", *list, entry));
      if (comma == std::string::npos) return hosts;
      start = comma + 1;
    }
  }
  const auto name = env("TPU_NAME");
  if (!name || *name == "local") return {std::string("localhost:") + kDefaultPort};
  const std::string scheme = "grpc://";
  if (name->rfind(scheme, 0) == 0) return {address("TPU_NAME", *name, name->substr(scheme.size()))};
  throw sdk::InvalidArgument("TPU_NAME='" + *name +
                             "' names a Cloud TPU, which a simulated slice cannot look up; "
                             "use TPU_NAME=local, TPU_NAME=grpc://host:port, or "
                             "TPU_WORKER_HOSTNAMES with TPU_WORKER_ID");
}

int worker_id(const EnvLookup& env, int hosts) {
  const auto id = env("TPU_WORKER_ID");
  if (!id) {
    if (hosts == 1) return 0;
    throw sdk::InvalidArgument("TPU_WORKER_ID is not set, but TPU_WORKER_HOSTNAMES lists " +
                               std::to_string(hosts) + " workers; set it to this worker's index");
  }
  int value = -1;
  const auto [end, ec] = std::from_chars(id->data(), id->data() + id->size(), value);
  if (ec != std::errc() || end != id->data() + id->size() || value < 0 || value >= hosts) {
    throw sdk::InvalidArgument("TPU_WORKER_ID='" + *id + "' is not a worker index from 0 to " +
                               std::to_string(hosts - 1));
  }
  return value;
}

}  // namespace

TpuCluster read_tpu_cluster(const EnvLookup& env, int local_cores) {
  if (!env("TPU_NAME") && !env("TPU_WORKER_HOSTNAMES") && !env("TPU_TOPOLOGY")) {
    throw sdk::NotSupported("TPU_NAME, TPU_WORKER_HOSTNAMES and TPU_TOPOLOGY are not set");
  }
  TpuCluster cluster;
  cluster.workers = hosts_from(env);
  const int hosts = static_cast<int>(cluster.workers.size());
  cluster.self = worker_id(env, hosts);
  cluster.cores_per_worker = local_cores;
  if (auto topology = env("TPU_TOPOLOGY")) {
    int rows = 0;
    int cols = 0;
    parse_topology("TPU_TOPOLOGY", *topology, &rows, &cols);
    if ((rows * cols) % hosts != 0) {
      throw sdk::InvalidArgument("TPU_TOPOLOGY='" + *topology + "' has " +
                                 std::to_string(rows * cols) + " cores, which " +
                                 std::to_string(hosts) + " workers cannot share evenly");
    }
    cluster.cores_per_worker = rows * cols / hosts;
    if (cluster.cores_per_worker > local_cores) {
      throw sdk::InvalidArgument(
          "TPU_TOPOLOGY='" + *topology + "' gives each of " + std::to_string(hosts) +
          " worker(s) " + std::to_string(cluster.cores_per_worker) +
          " cores, but this process simulates " + std::to_string(local_cores) +
          " (plugins.options.tpu_sim.rows x cols)");
    }
  }
  return cluster;
}

TpuResolver::TpuResolver(int local_cores)
    : Resolver("tpu", "TPU slice from TPU_NAME / TPU_WORKER_HOSTNAMES / TPU_WORKER_ID / "
                      "TPU_TOPOLOGY"),
      local_cores_(local_cores) {}

void TpuResolver::resolve(sdk::ClusterSink& sink) {
  const TpuCluster cluster = read_tpu_cluster(
      [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        if (v == nullptr) return std::nullopt;
        return std::string(v);
      },
      local_cores_);
  for (size_t i = 0; i < cluster.workers.size(); ++i) {
    sink.add_task("worker", static_cast<int>(i), cluster.workers[i]);
  }
  sink.set_self("worker", cluster.self);
  sink.set_rpc_layer("grpc");
  sink.set_devices_per_task("tpu", cluster.cores_per_worker);
}

}  // namespace strata::tpu_sim
