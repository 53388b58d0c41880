// Finds, checks, loads and unloads plugins (Boost.DLL underneath).
//
// Discovery order: <install>/lib/strata/plugins (next to libstrata), then the
// directories in STRATA_PLUGIN_PATH, then `plugins: {path: [...]}` from the
// config. Files named libstrata_<name>.so are candidates. STRATA_PLUGINS and
// `plugins.enable` keep only the named plugins; STRATA_PLUGINS_DISABLE and
// `plugins.disable` skip them. Every candidate ends as one record and one log
// line: loaded, skipped (with why) or refused (with why). A refused plugin
// never stops the process; whatever it registered is rolled back. Libraries
// are bound at load (RTLD_NOW), so one that needs a symbol nothing defines
// is refused naming it, instead of ending the process at its first call;
// and before core runs any of a plugin's code (its entry point,
// register_all, unload) a debug line names the file, so a crash inside it
// is attributable (STRATA_LOG_LEVEL=debug). A plugin
// library is registered once per process: while one live loader (Runtime)
// has it, another that finds it skips it.
#ifndef STRATA_CORE_PLUGIN_PLUGIN_LOADER_H_
#define STRATA_CORE_PLUGIN_PLUGIN_LOADER_H_

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/plugin/plugin_discovery.h"
#include "strata/abi/plugin.h"
#include "strata/sdk/registrar.h"

namespace strata {

class Registry;

struct PluginRecord {
  enum class State { kLoaded, kSkipped, kRefused };
  State state = State::kRefused;
  std::string name;   // the plugin's own name once known, else from the file
  std::filesystem::path path;  // empty for core's built-ins
  std::string version;
  std::string description;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::string reason;  // why skipped or refused; a note for some loads
  bool builtin = false;
};
const char* state_name(PluginRecord::State state);  // "loaded"

class PluginLoader {
 public:
  explicit PluginLoader(Registry& registry);
  ~PluginLoader();  // unloads everything, newest first
  PluginLoader(const PluginLoader&) = delete;
  PluginLoader& operator=(const PluginLoader&) = delete;

  // Registers core's own tables (CPU devices, stores, resolvers) through the
  // same registrar path plugins use; the objects live as long as the loader.
  Status register_builtin(const std::string& name, const std::string& description,
                          const std::function<void(sdk::Registrar&)>& register_fn,
                          const LoaderOptions& options);

  // Discovers and loads every candidate. Never fails: see records().
  void load_all(const LoaderOptions& options);

  // Loads one file the user named (e.g. strata-conformance --plugin). Name
  // filters do not apply. Returns the plugin's name, or why it was refused.
  StatusOr<std::string> load_file(const std::filesystem::path& path,
                                  const LoaderOptions& options);

  // Directories searched, in order, with duplicates removed.
  static std::vector<std::filesystem::path> search_dirs(const LoaderOptions& options);
  // The files load_all() would try, in its order (plugin_discovery.h).
  static std::vector<std::filesystem::path> candidate_files(const LoaderOptions& options);
  const std::vector<PluginRecord>& records() const { return records_; }

  // <dir of libstrata>/strata/plugins: the install (or build-tree) location.
  static std::filesystem::path install_dir();

 private:
  struct Loaded;
  Status load_one(const std::filesystem::path& path, const LoaderOptions& options,
                  bool apply_filters, PluginRecord& record);
  Status register_plugin(const strata_plugin_info_t& info, const LoaderOptions& options,
                         std::unique_ptr<Loaded>& loaded);
  Status finish_registration(Status status, std::unique_ptr<Loaded>& loaded);
  bool is_loaded(const std::string& name) const;
  void add_record(PluginRecord record);

  Registry& registry_;
  std::vector<std::unique_ptr<Loaded>> loaded_;
  std::vector<PluginRecord> records_;
};

}  // namespace strata

#endif  // STRATA_CORE_PLUGIN_PLUGIN_LOADER_H_
