#include "core/plugin/plugin_loader.h"

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/library_info.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <ios>
#include <string_view>

#include "core/common/logging.h"
#include "core/plugin/abi_status.h"
#include "core/plugin/call_watchdog.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/registry.h"

namespace strata {
namespace fs = std::filesystem;

struct PluginLoader::Loaded {
  std::string name;
  boost::dll::shared_library library;  // empty for built-ins
  std::unique_ptr<PluginHost> host;
  void (*unload)(const strata_registrar_t*) = nullptr;
  sdk::Keeper keeper;  // core's built-in objects
};

namespace {

// unload() must not throw (rule 2), and it runs in ~PluginLoader, where a
// stray exception would terminate the process.
void call_unload(const std::string& name, void (*unload)(const strata_registrar_t*),
                 const strata_registrar_t* registrar) noexcept {
  if (unload == nullptr) return;
  STRATA_LOG_DEBUG("plugin {}: calling unload", name);
  try {
    unload(registrar);
  } catch (...) {
    STRATA_LOG_ERROR("plugin {}: unload{}", name, threw_across_abi());
  }
}

// struct_size of strata_plugin_info_t in ABI 1.0; later minors only grow it.
constexpr size_t kPluginInfoV1Size = offsetof(strata_plugin_info_t, unload) + sizeof(void*);

// dlopen's "<file>: undefined symbol: <name>" as a sentence that names the
// symbol (demangled when it is C++) and says what to do about it.
std::string describe_load_failure(const std::string& what) {
  static constexpr std::string_view kUndefined = "undefined symbol: ";
  const auto at = what.find(kUndefined);
  if (at == std::string::npos) return "cannot be loaded: " + what;
  const auto begin = at + kUndefined.size();
  const auto end = what.find_first_of(" \t\n)", begin);
  std::string symbol = what.substr(begin, end == std::string::npos ? end : end - begin);
  std::string shown = "'" + symbol + "'";
  int demangle_status = -1;
  char* demangled = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &demangle_status);
  if (demangle_status == 0 && demangled != nullptr) shown += " (" + std::string(demangled) + ")";
  std::free(demangled);
  return "needs symbol " + shown +
         ", which neither it nor the libraries it links define, so it was refused at load "
         "(immediate binding) instead of ending the process at its first call; link it "
         "against the library that defines the symbol (strata_add_plugin() links with "
         "-Wl,--no-undefined, which reports this at build time). dlopen said: " +
         what;
}

// Takes away what `plugin` registered. A watchdog scan may be formatting a
// warning about a blocked call of one of its algorithms (call_watchdog.h):
// wait for it before the entry it reads is freed.
void remove_registrations(Registry& registry, const std::string& plugin) {
  CallWatchdog::quiesce();
  registry.remove_plugin(plugin);
}

void log_record(const PluginRecord& r) {
  const std::string where = r.builtin ? "built into core" : r.path.string();
  switch (r.state) {
    case PluginRecord::State::kLoaded:
      STRATA_LOG_INFO("plugin {} {} loaded from {} (ABI {}.{}){}{}", r.name, r.version,
                      where, r.abi_major, r.abi_minor, r.reason.empty() ? "" : "; ",
                      r.reason);
      break;
    case PluginRecord::State::kSkipped:
      STRATA_LOG_INFO("plugin {} skipped ({}): {}", r.name, where, r.reason);
      break;
    case PluginRecord::State::kRefused:
      STRATA_LOG_WARN("plugin {} refused ({}): {}", r.name, where, r.reason);
      break;
  }
}

}  // namespace

const char* state_name(PluginRecord::State state) {
  switch (state) {
    case PluginRecord::State::kLoaded: return "loaded";
    case PluginRecord::State::kSkipped: return "skipped";
    case PluginRecord::State::kRefused: return "refused";
  }
  return "?";
}

PluginLoader::PluginLoader(Registry& registry) : registry_(registry) {}

PluginLoader::~PluginLoader() {
  // Newest first: a later plugin may use device types an earlier one added.
  for (auto it = loaded_.rbegin(); it != loaded_.rend(); ++it) {
    remove_registrations(registry_, (*it)->name);
    call_unload((*it)->name, (*it)->unload, (*it)->host->registrar());
  }
  loaded_.clear();
}

fs::path PluginLoader::install_dir() {
  std::error_code ec;
  const fs::path self = boost::dll::this_line_location(ec);
  if (ec) return {};
  return self.parent_path() / "strata" / "plugins";
}

std::vector<fs::path> PluginLoader::search_dirs(const LoaderOptions& options) {
  return plugin_search_dirs(install_dir(), options);
}

std::vector<fs::path> PluginLoader::candidate_files(const LoaderOptions& options) {
  return plugin_candidates(search_dirs(options));
}

bool PluginLoader::is_loaded(const std::string& name) const {
  return std::any_of(loaded_.begin(), loaded_.end(),
                     [&](const auto& l) { return l->name == name; });
}

void PluginLoader::add_record(PluginRecord record) {
  log_record(record);
  records_.push_back(std::move(record));
}

void PluginLoader::load_all(const LoaderOptions& options) {
  for (const fs::path& file : candidate_files(options)) {
    PluginRecord record;
    (void)load_one(file, options, /*apply_filters=*/true, record);
    add_record(std::move(record));
  }
}

StatusOr<std::string> PluginLoader::load_file(const fs::path& path,
                                              const LoaderOptions& options) {
  PluginRecord record;
  Status status = load_one(path, options, /*apply_filters=*/false, record);
  const std::string name = record.name;
  const std::string reason = record.reason;
  const bool loaded = record.state == PluginRecord::State::kLoaded;
  add_record(std::move(record));
  if (!status.ok()) return status;
  if (!loaded) return FailedPreconditionError("plugin " + path.string() + " skipped: " + reason);
  return name;
}

Status PluginLoader::load_one(const fs::path& path, const LoaderOptions& options,
                              bool apply_filters, PluginRecord& record) {
  record.path = path;
  record.name = plugin_name_from_file(path);
  auto refuse = [&](Status s) {
    record.state = PluginRecord::State::kRefused;
    record.reason = s.message();
    return s.prefixed("plugin " + path.string());
  };
  auto skip = [&](std::string why) {
    record.state = PluginRecord::State::kSkipped;
    record.reason = std::move(why);
    return Status::Ok();
  };
  if (apply_filters) {
    if (auto why = plugin_filtered_out(record.name, options); !why.empty()) return skip(why);
  }
  if (auto q = options.quarantined.find(path); q != options.quarantined.end()) {
    return refuse(UnavailableError(q->second));
  }

  // Look at the file before running any of its code.
  try {
    boost::dll::library_info info(path, /*throw_if_not_native_format=*/true);
    (void)info.sections();
  } catch (const std::ios_base::failure&) {
    // What the stream says ("basic_ios::clear: iostream error") helps nobody.
    return refuse(InvalidArgumentError(
        "not a shared library for this machine (too short for an executable header: "
        "empty, truncated or unreadable)"));
  } catch (const std::exception& e) {
    return refuse(InvalidArgumentError(
        std::string("not a shared library for this machine (") + e.what() + ")"));
  }

  auto loaded = std::make_unique<Loaded>();
  // Its constructors run inside dlopen: the first of its code to run.
  STRATA_LOG_DEBUG("plugin file {}: loading (dlopen runs its static constructors)",
                   path.string());
  try {
    // RTLD_NOW: every symbol is bound here, where a missing one is a refusal.
    loaded->library.load(path, boost::dll::load_mode::rtld_now |
                                   boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return refuse(InvalidArgumentError(describe_load_failure(e.what())));
  }
  if (!loaded->library.has(STRATA_PLUGIN_ENTRY_SYMBOL)) {
    return refuse(InvalidArgumentError(
        "exports no strata_plugin_entry symbol: not a Strata plugin (sdk/README.md rule 1)"));
  }
  const auto entry =
      loaded->library.get<const strata_plugin_info_t*(uint32_t, uint32_t)>(
          STRATA_PLUGIN_ENTRY_SYMBOL);
  const strata_plugin_info_t* info = nullptr;
  STRATA_LOG_DEBUG("plugin file {}: calling strata_plugin_entry", path.string());
  try {
    info = entry(STRATA_ABI_MAJOR, STRATA_ABI_MINOR);
  } catch (...) {
    return refuse(InternalError(STRATA_PLUGIN_ENTRY_SYMBOL + threw_across_abi()));
  }
  if (info == nullptr) {
    return refuse(FailedPreconditionError("declined to serve host ABI " +
                                          std::to_string(STRATA_ABI_MAJOR) + "." +
                                          std::to_string(STRATA_ABI_MINOR)));
  }
  if (info->struct_size < kPluginInfoV1Size) {
    return refuse(InvalidArgumentError("strata_plugin_info_t.struct_size is " +
                                       std::to_string(info->struct_size) +
                                       ", too small for ABI 1.0"));
  }
  record.abi_major = info->abi_major;
  record.abi_minor = info->abi_minor;
  record.version = info->version == nullptr ? "" : info->version;
  record.description = info->description == nullptr ? "" : info->description;
  if (info->abi_major != STRATA_ABI_MAJOR) {
    return refuse(FailedPreconditionError(
        "speaks ABI " + std::to_string(info->abi_major) + "." +
        std::to_string(info->abi_minor) + " but this host speaks " +
        std::to_string(STRATA_ABI_MAJOR) + "." + std::to_string(STRATA_ABI_MINOR) +
        "; rebuild it against this SDK (rule 3)"));
  }
  if (info->name == nullptr || !is_valid_name(info->name)) {
    return refuse(InvalidArgumentError(std::string("has an invalid plugin name '") +
                                       (info->name == nullptr ? "(null)" : info->name) +
                                       "'; names are [a-z0-9_]"));
  }
  record.name = info->name;
  if (info->abi_minor > STRATA_ABI_MINOR) {
    record.reason = "built for ABI minor " + std::to_string(info->abi_minor) +
                    "; fields newer than " + std::to_string(STRATA_ABI_MAJOR) + "." +
                    std::to_string(STRATA_ABI_MINOR) + " are ignored";
  }
  if (apply_filters) {
    if (auto why = plugin_filtered_out(record.name, options); !why.empty()) return skip(why);
  }
  if (is_loaded(record.name)) {
    return skip("a plugin named '" + record.name + "' is already loaded");
  }
  STRATA_LOG_DEBUG("plugin file {}: calling register_all of plugin {}", path.string(),
                   record.name);
  Status registered = register_plugin(*info, options, loaded);
  if (!registered.ok()) return refuse(registered);
  record.state = PluginRecord::State::kLoaded;
  return Status::Ok();
}

Status PluginLoader::register_plugin(const strata_plugin_info_t& info,
                                     const LoaderOptions& options,
                                     std::unique_ptr<Loaded>& loaded) {
  loaded->name = info.name;
  loaded->unload = info.unload;
  loaded->host = std::make_unique<PluginHost>(loaded->name, registry_,
                                              plugin_options(loaded->name, options));
  if (info.register_all == nullptr) {
    return InvalidArgumentError("strata_plugin_info_t.register_all is NULL");
  }
  AbiMessage message;
  Status status;
  try {
    status = from_abi(info.register_all(loaded->host->registrar(), message.view()), message,
                      "register_all");
  } catch (...) {
    status = InternalError("register_all" + threw_across_abi());
  }
  return finish_registration(std::move(status), loaded);
}

Status PluginLoader::finish_registration(Status status, std::unique_ptr<Loaded>& loaded) {
  if (!status.ok()) {
    const auto partial = registry_.registered_by(loaded->name);
    remove_registrations(registry_, loaded->name);
    call_unload(loaded->name, loaded->unload, loaded->host->registrar());
    std::string rolled_back;
    for (const auto& id : partial) rolled_back += (rolled_back.empty() ? "" : ", ") + id;
    if (!rolled_back.empty()) {
      status = status.prefixed("registration failed; rolled back " + rolled_back);
    }
    return status;
  }
  loaded_.push_back(std::move(loaded));
  return Status::Ok();
}

Status PluginLoader::register_builtin(
    const std::string& name, const std::string& description,
    const std::function<void(sdk::Registrar&)>& register_fn, const LoaderOptions& options) {
  PluginRecord record;
  record.builtin = true;
  record.name = name;
  record.version = STRATA_VERSION;
  record.description = description;
  record.abi_major = STRATA_ABI_MAJOR;
  record.abi_minor = STRATA_ABI_MINOR;
  auto loaded = std::make_unique<Loaded>();
  loaded->name = name;
  loaded->host = std::make_unique<PluginHost>(name, registry_, plugin_options(name, options));
  Status status;
  try {
    sdk::Registrar registrar(loaded->host->registrar(), loaded->keeper);
    register_fn(registrar);
  } catch (const std::exception& e) {
    status = InternalError(std::string("registering built-in '") + name + "': " + e.what());
  }
  status = finish_registration(std::move(status), loaded);
  record.state = status.ok() ? PluginRecord::State::kLoaded : PluginRecord::State::kRefused;
  record.reason = status.ok() ? "" : status.message();
  add_record(std::move(record));
  return status;
}

}  // namespace strata
