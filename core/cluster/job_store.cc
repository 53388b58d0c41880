#include "core/cluster/job_store.h"

#include <unistd.h>

#include <atomic>

#include "core/cluster/tcp_store_socket.h"
#include "core/plugin/registry.h"

namespace strata {
namespace {

// "cluster.store 'x' (configs/job.yaml:4:10)" when it came from a file.
std::string setting(const ClusterConfig& config) {
  std::string s = "cluster.store '" + config.store + "'";
  if (config.store_mark.line > 0) s += " (" + config.store_mark.to_string() + ")";
  return s;
}

std::string registered_types(const Registry& registry) {
  std::string names;
  for (const auto* t : registry.store_types()) names += (names.empty() ? "" : ", ") + t->name;
  return names.empty() ? "none" : names;
}

struct Choice {
  std::string type;
  std::string address;
};

StatusOr<Choice> choose(const ClusterSpec& spec, const ClusterConfig& config) {
  if (config.store != "auto") {
    const size_t colon = config.store.find(':');
    if (colon == std::string::npos || colon == 0) {
      return InvalidArgumentError(setting(config) +
                                  " should be 'auto' or '<type>:<address>', e.g. "
                                  "tcp:10.0.0.1:29500, file:/shared/job1 or memory:name");
    }
    return Choice{config.store.substr(0, colon), config.store.substr(colon + 1)};
  }
  if (spec.world_size() <= 1) {
    // Private to this open: two runtimes in one process must not meet by
    // accident in a shared space.
    static std::atomic<int> opened{0};
    return Choice{"memory", "job_store/" + std::to_string(::getpid()) + "/" +
                                std::to_string(opened.fetch_add(1))};
  }
  const std::string chief = spec.chief_address();
  auto parsed = tcp_store::parse_host_port(chief);
  if (chief.empty() || !parsed.ok() || parsed->port == 0) {
    return InvalidArgumentError(
        "cluster.store is 'auto', so the chief hosts a TCP store at its own address, but "
        "resolver '" + spec.resolver + "' (" + spec.source + ") gave " +
        spec.task_name_of_rank(0) + " the address '" + chief +
        "', which has no usable port; give the tasks host:port addresses or set "
        "cluster.store to 'tcp:<host>:<port>' or 'file:<shared directory>'");
  }
  return Choice{"tcp", chief};
}

}  // namespace

StoreHost job_store_host(const ClusterSpec& spec, const ClusterConfig& config) {
  auto choice = choose(spec, config);
  if (!choice.ok() || choice->type != "tcp") return {};
  return StoreHost{0, choice->address};
}

StatusOr<std::unique_ptr<Store>> open_job_store(const Registry& registry,
                                                const ClusterSpec& spec,
                                                const ClusterConfig& config) {
  const std::optional<int> rank = spec.rank();
  if (!rank.has_value()) {
    return FailedPreconditionError(
        "task " + spec.task_type + " " + std::to_string(spec.task_index) +
        " is not part of the collective world (chief and workers), so it has no rank to "
        "open the job store with");
  }
  STRATA_ASSIGN_OR_RETURN(const Choice choice, choose(spec, config));
  const StoreTypeEntry* type = registry.find_store_type(choice.type);
  if (type == nullptr) {
    return NotFoundError("unknown store type '" + choice.type + "' in " + setting(config) +
                         "; registered store types: " + registered_types(registry));
  }
  return open_store(*type, choice.address, *rank, spec.world_size(),
                    deadline_after(config.rendezvous_timeout));
}

}  // namespace strata
