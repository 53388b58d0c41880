// Which files the loader would try, and in what order, without loading any:
// shared by PluginLoader and by `strata info --isolate`, which checks each
// of them in a child process first.
#ifndef STRATA_CORE_PLUGIN_PLUGIN_DISCOVERY_H_
#define STRATA_CORE_PLUGIN_PLUGIN_DISCOVERY_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace strata {

struct LoaderOptions {
  std::vector<std::filesystem::path> config_paths;
  std::vector<std::string> enable;   // empty: every plugin
  std::vector<std::string> disable;
  bool use_install_dir = true;
  bool use_environment = true;  // STRATA_PLUGIN_PATH, STRATA_PLUGINS(_DISABLE)
  // Per-plugin options from the config, handed over by host services.
  std::map<std::string, std::map<std::string, std::string>> options;
  // Settings of the job that every plugin's option() answers too, under
  // their config names ("cluster.store_max_bytes": "268435456"): the limits
  // a plugin's store type honours like core's (strata/abi/registrar.h).
  std::map<std::string, std::string> job_settings;
  // Files refused without being opened, with the reason: those that
  // crashed or hung in a child process (`strata info --isolate`).
  std::map<std::filesystem::path, std::string> quarantined;
};

// What plugin `name`'s option() answers: its own options and the job
// settings, which win (a plugin's options cannot change the job's limits).
std::map<std::string, std::string> plugin_options(const std::string& name,
                                                  const LoaderOptions& options);

// libstrata_<name>.so -> "<name>"; any other file name as it is.
std::string plugin_name_from_file(const std::filesystem::path& file);

// Why a plugin of this name should not be loaded, or "" to load it
// (STRATA_PLUGINS, STRATA_PLUGINS_DISABLE, plugins.enable/disable).
std::string plugin_filtered_out(const std::string& name, const LoaderOptions& options);

// <install dir>, STRATA_PLUGIN_PATH, then plugins.path; canonical, in
// order, without duplicates.
std::vector<std::filesystem::path> plugin_search_dirs(
    const std::filesystem::path& install_dir, const LoaderOptions& options);

// Every libstrata_*.so in `dirs` in the order discovery loads them (each
// directory sorted by name, so alike on every rank). Directories that do
// not exist are logged at debug level and passed over.
std::vector<std::filesystem::path> plugin_candidates(
    const std::vector<std::filesystem::path>& dirs);

}  // namespace strata

#endif  // STRATA_CORE_PLUGIN_PLUGIN_DISCOVERY_H_
