#include "strata/sdk/resolver.h"

#include <string>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {
namespace {

void check_sink(strata_status_t st, const char* what) {
  if (st != STRATA_OK) throw Error(st, std::string("cluster sink refused ") + what);
}

strata_status_t abi_resolve(void* ud, const strata_cluster_sink_t* sink,
                        strata_message_t msg) {
  HostScope scope(static_cast<Resolver*>(ud)->host_services());
  return guard(msg, [&] {
    ClusterSink typed(sink);
    static_cast<Resolver*>(ud)->resolve(typed);
    return STRATA_OK;
  });
}

}  // namespace

void ClusterSink::add_task(std::string_view job, int index,
                           std::string_view address) {
  check_sink(s_->add_task(s_->ctx, std::string(job).c_str(), index,
                          std::string(address).c_str()),
             "add_task");
}

void ClusterSink::set_self(std::string_view job, int index) {
  check_sink(s_->set_self(s_->ctx, std::string(job).c_str(), index), "set_self");
}

void ClusterSink::set_rpc_layer(std::string_view rpc_layer) {
  check_sink(s_->set_rpc_layer(s_->ctx, std::string(rpc_layer).c_str()),
             "set_rpc_layer");
}

void ClusterSink::set_devices_per_task(std::string_view device_type, int count) {
  check_sink(s_->set_devices_per_task(s_->ctx, std::string(device_type).c_str(),
                                      count),
             "set_devices_per_task");
}

Resolver::Resolver(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {}

strata_resolver_t Resolver::table() {
  strata_resolver_t t{};
  t.struct_size = sizeof t;
  t.name = name_.c_str();
  t.description = description_.c_str();
  t.user_data = this;
  t.resolve = &abi_resolve;
  return t;
}

}  // namespace strata::sdk
