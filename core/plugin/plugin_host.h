// What core hands one plugin: its registrar (bound to the plugin's name, so
// every table it adds is attributed to it) and its host services (logging
// prefixed with its name, its own config options). One per loaded plugin,
// alive until the plugin is unloaded.
#ifndef STRATA_CORE_PLUGIN_PLUGIN_HOST_H_
#define STRATA_CORE_PLUGIN_PLUGIN_HOST_H_

#include <map>
#include <string>

#include "strata/abi/registrar.h"

namespace strata {

class Registry;

class PluginHost {
 public:
  PluginHost(std::string plugin_name, Registry& registry,
             std::map<std::string, std::string> options);
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  const strata_registrar_t* registrar() const { return &registrar_; }
  const strata_host_services_t* services() const { return &services_; }
  const std::string& plugin_name() const { return plugin_name_; }
  Registry& registry() const { return registry_; }
  const char* option(const std::string& key) const;

 private:
  std::string plugin_name_;
  Registry& registry_;
  std::map<std::string, std::string> options_;
  strata_host_services_t services_{};
  strata_registrar_t registrar_{};
};

}  // namespace strata

#endif  // STRATA_CORE_PLUGIN_PLUGIN_HOST_H_
