// The Runtime: one per process (or per test), owning the registry, the
// loaded plugins and the config. Teams and CollectiveOps hold a shared_ptr
// to it, so plugins stay loaded while anything can still call into them.
#ifndef STRATA_CORE_RUNTIME_RUNTIME_H_
#define STRATA_CORE_RUNTIME_RUNTIME_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/config/config.h"
#include "core/config/config_choice.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"
#include "strata/abi/types.h"

namespace strata {

struct RuntimeOptions {
  bool discover_plugins = true;  // search the install dir, env and config paths
  bool use_environment = true;   // STRATA_PLUGIN_PATH, STRATA_PLUGINS(_DISABLE)
  // Plugins to load explicitly (strata-conformance --plugin); a refusal here
  // is an error, unlike a refusal during discovery.
  std::vector<std::filesystem::path> plugin_files;
  // Files refused unopened, with the reason (LoaderOptions::quarantined).
  // (An initializer, so that designated initializers may leave it out.)
  std::map<std::filesystem::path, std::string> quarantined = {};
};

class Runtime : public std::enable_shared_from_this<Runtime> {
 public:
  static StatusOr<std::shared_ptr<Runtime>> create(Config config = {},
                                                   RuntimeOptions options = {});
  // Loads the YAML file, then create().
  static StatusOr<std::shared_ptr<Runtime>> from_config_file(
      const std::filesystem::path& path, RuntimeOptions options = {});
  // A program's Runtime: the config chosen by the one rule of every program
  // (--config > STRATA_CONFIG > default; config_choice.h), then create().
  // `built_in` is used when the choice is the built-in defaults.
  static StatusOr<std::shared_ptr<Runtime>> from_choice(const ConfigChoice& choice,
                                                        Config built_in = {},
                                                        RuntimeOptions options = {});
  // What the loader of a Runtime made with these would be told.
  static LoaderOptions loader_options(const Config& config, const RuntimeOptions& options);
  ~Runtime();

  Registry& registry() { return *registry_; }
  const Registry& registry() const { return *registry_; }
  const PluginLoader& loader() const { return *loader_; }
  const Config& config() const { return config_; }

  // "cpu:3" -> {type id of cpu, 3}; the error names the known device types.
  StatusOr<strata_device_t> parse_device(std::string_view name) const;
  std::string device_name(strata_device_t device) const;  // "cpu:3"
  bool device_exists(strata_device_t device) const;
  // The first `count` devices of a type: cpu:0 .. cpu:count-1.
  StatusOr<std::vector<strata_device_t>> devices(std::string_view type, int count) const;
  StatusOr<int> device_count(std::string_view type) const;

 private:
  Runtime() = default;
  Status init(Config config, const RuntimeOptions& options);

  Config config_;
  std::unique_ptr<Registry> registry_;
  std::unique_ptr<PluginLoader> loader_;  // destroyed first: unregisters plugins
};

}  // namespace strata

#endif  // STRATA_CORE_RUNTIME_RUNTIME_H_
