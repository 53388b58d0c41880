// Implementing a cluster resolver in C++.
#ifndef STRATA_SDK_RESOLVER_H_
#define STRATA_SDK_RESOLVER_H_

#include <string>
#include <string_view>

#include "strata/abi/registrar.h"
#include "strata/abi/cluster.h"

namespace strata::sdk {

// Typed, throwing wrapper over the sink core passes to resolve().
class ClusterSink {
 public:
  explicit ClusterSink(const strata_cluster_sink_t* sink) : s_(sink) {}
  void add_task(std::string_view job, int index, std::string_view address);
  void set_self(std::string_view job, int index);
  void set_rpc_layer(std::string_view rpc_layer);
  void set_devices_per_task(std::string_view device_type, int count);

 private:
  const strata_cluster_sink_t* s_;
};

class Resolver {
 public:
  Resolver(std::string name, std::string description);
  virtual ~Resolver() = default;
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  // Describe the cluster; throw NotSupported when this resolver's
  // environment is absent, anything else names the variable at fault.
  virtual void resolve(ClusterSink& sink) = 0;

  const std::string& name() const { return name_; }
  strata_resolver_t table();

  // Set by sdk::Registrar: the services of the Runtime this object belongs
  // to, made current around every call into it.
  void bind_host(const strata_host_services_t* services) { services_ = services; }
  const strata_host_services_t* host_services() const { return services_; }

 private:
  const strata_host_services_t* services_ = nullptr;
  std::string name_;
  std::string description_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_RESOLVER_H_
