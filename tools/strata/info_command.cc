// `strata info`: what this process would load and run with — plugins and
// why each was loaded, skipped or refused; device types and their devices;
// algorithms; resolvers; stores. With --isolate, each plugin is first tried
// in a child process (plugin_isolation.h), so one that crashes or hangs is
// reported instead of taking `strata info` down with it.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include "tools/strata/cli11.h"

#include "core/common/units.h"
#include "strata/abi/version.h"
#include "tools/strata/cli_common.h"
#include "core/runtime/runtime_report.h"
#include "tools/strata/plugin_isolation.h"
#include "tools/strata/text_table.h"

namespace strata::cli {
namespace {

struct InfoOptions {
  std::string config;
  bool json = false;
  bool isolate = false;
  double isolate_timeout_s = 30;
  std::string probe_plugin;  // set in the child processes of --isolate
};

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void print_plugins(const InfoReport& report) {
  std::cout << "Plugins\n";
  TextTable table({"name", "version", "abi", "state", "location"});
  for (const PluginInfo& p : report.plugins) {
    table.add_row({p.name, or_dash(p.version), or_dash(p.abi), p.state, p.location});
    if (!p.reason.empty()) table.add_note((p.state == "loaded" ? "note: " : "why: ") + p.reason);
  }
  table.print(std::cout);
  std::cout << "  searched:";
  for (const auto& dir : report.search_dirs) std::cout << " " << dir;
  std::cout << "\n";
}

void print_device_types(const InfoReport& report) {
  std::cout << "\nDevice types\n";
  for (const DeviceTypeInfo& type : report.device_types) {
    std::cout << "  " << type.name << " (" << type.plugin << "): " << or_dash(type.description)
              << "\n";
    if (!type.error.empty()) {
      std::cout << "    cannot count devices: " << type.error << "\n";
      continue;
    }
    if (type.count == 0) {
      std::cout << "    no devices present\n";
      continue;
    }
    TextTable table({"device", "name", "memory", "host-accessible", "peer access"});
    table.align_right(2);
    for (const DeviceInfo& d : type.devices) {
      if (!d.error.empty()) {
        table.add_row({d.id, "?", "?", "?", "?"});
        table.add_note("error: " + d.error);
        continue;
      }
      table.add_row({d.id, d.label, d.memory_bytes == 0 ? "unknown" : format_size(d.memory_bytes),
                     d.host_accessible ? "yes" : "no", describe_peers(type, d)});
    }
    table.print(std::cout, "    ");
    if (type.count > static_cast<int>(type.devices.size())) {
      std::cout << "    ... and " << type.count - static_cast<int>(type.devices.size()) << " more ("
                << type.count << " devices)\n";
    }
    std::cout << "    peer access: " << type.peer_summary << "\n";
  }
}

void print_components(const char* title, const std::vector<ComponentInfo>& items) {
  std::cout << "\n" << title << "\n";
  if (items.empty()) {
    std::cout << "  (none registered)\n";
    return;
  }
  TextTable table({"name", "plugin", "description"});
  for (const ComponentInfo& c : items) table.add_row({c.name, c.plugin, or_dash(c.description)});
  table.print(std::cout);
}

void print_text(const InfoReport& report) {
  std::cout << "strata " << STRATA_CLI_VERSION << ", plugin ABI " << STRATA_ABI_MAJOR << "."
            << STRATA_ABI_MINOR << ", config: " << report.config_source << "\n\n";
  print_plugins(report);
  print_device_types(report);
  std::cout << "\nAlgorithms\n";
  if (report.algorithms.empty()) {
    std::cout << "  (none registered: no plugin offers collectives)\n";
  } else {
    TextTable table({"id", "scope", "description"});
    for (const AlgorithmInfo& a : report.algorithms) {
      table.add_row({a.id, a.scope, or_dash(a.description)});
    }
    table.print(std::cout);
  }
  print_components("Resolvers", report.resolvers);
  print_components("Stores", report.stores);
}

nlohmann::json to_json(const InfoReport& report) {
  using nlohmann::json;
  json out;
  out["version"] = STRATA_CLI_VERSION;
  out["abi"] = std::to_string(STRATA_ABI_MAJOR) + "." + std::to_string(STRATA_ABI_MINOR);
  out["config"] = report.config_source;
  out["search_dirs"] = report.search_dirs;
  out["plugins"] = json::array();
  for (const PluginInfo& p : report.plugins) {
    out["plugins"].push_back({{"name", p.name},
                              {"version", p.version},
                              {"abi", p.abi},
                              {"state", p.state},
                              {"location", p.location},
                              {"reason", p.reason},
                              {"description", p.description}});
  }
  out["device_types"] = json::array();
  for (const DeviceTypeInfo& t : report.device_types) {
    json devices = json::array();
    for (const DeviceInfo& d : t.devices) {
      devices.push_back({{"id", d.id},
                         {"name", d.label},
                         {"memory_bytes", d.memory_bytes},
                         {"host_accessible", d.host_accessible},
                         {"peers", d.peers},
                         {"error", d.error}});
    }
    out["device_types"].push_back({{"name", t.name},
                                   {"plugin", t.plugin},
                                   {"description", t.description},
                                   {"count", t.count},
                                   {"devices", devices},
                                   {"peer_access", t.peer_summary},
                                   {"error", t.error}});
  }
  out["algorithms"] = json::array();
  for (const AlgorithmInfo& a : report.algorithms) {
    out["algorithms"].push_back(
        {{"id", a.id}, {"op", a.op}, {"scope", a.scope}, {"description", a.description}});
  }
  for (const auto& [key, items] :
       {std::pair{"resolvers", &report.resolvers}, std::pair{"stores", &report.stores}}) {
    out[key] = json::array();
    for (const ComponentInfo& c : *items) {
      out[key].push_back({{"name", c.name}, {"plugin", c.plugin}, {"description", c.description}});
    }
  }
  return out;
}

// --isolate: the files to refuse unopened, each with what its probe did.
StatusOr<std::map<std::filesystem::path, std::string>> isolate(const InfoOptions& options) {
  if (!(options.isolate_timeout_s > 0)) {
    return InvalidArgumentError("--isolate-timeout must be a positive number of seconds");
  }
  STRATA_ASSIGN_OR_RETURN(Config config, load_cli_config(options.config));
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return UnavailableError("cannot find this program (/proc/self/exe): " + ec.message());
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.isolate_timeout_s));
  return probe_plugins(self, options.config, Runtime::loader_options(config, {}), timeout);
}

int run_info(const InfoOptions& options) {
  if (!options.probe_plugin.empty()) {
    auto config = load_cli_config(options.config);
    if (!config.ok()) return report_error("info", config.status());
    return run_probe(std::move(*config), options.probe_plugin);
  }
  RuntimeOptions runtime_options;
  if (options.isolate) {
    auto quarantined = isolate(options);
    if (!quarantined.ok()) return report_error("info", quarantined.status());
    runtime_options.quarantined = std::move(*quarantined);
  }
  auto runtime = open_runtime(options.config, 0, runtime_options);
  if (!runtime.ok()) return report_error("info", runtime.status());
  const InfoReport report = collect_info(**runtime);
  if (options.json) {
    std::cout << to_json(report).dump(2) << "\n";
  } else {
    print_text(report);
  }
  if (runtime_options.quarantined.empty()) return kExitOk;
  std::cerr << "strata info: " << runtime_options.quarantined.size()
            << " plugin file(s) crashed, hung or ended the process while loading in a child "
               "process; refused here (see their 'why'):";
  for (const auto& [file, why] : runtime_options.quarantined) std::cerr << " " << file.string();
  std::cerr << "\n";
  return kExitFailure;
}

}  // namespace

void add_info_command(CLI::App& app, Context& context) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info",
      "List plugins (loaded, skipped or refused, and why), device types and their "
      "devices, algorithms, resolvers and stores");
  cmd->add_option("--config", options->config,
                  "YAML config to load (plugins.path/enable/disable, devices.cpu.count); default: "
                  "$STRATA_CONFIG, else the built-in defaults");
  cmd->add_flag("--json", options->json, "Print one JSON document instead of tables");
  cmd->add_flag("--isolate", options->isolate,
                "Load each plugin in a child process first; one that crashes, hangs or exits "
                "is refused (and named) instead of ending this command, which then exits 1");
  cmd->add_option("--isolate-timeout", options->isolate_timeout_s,
                  "Seconds a child may take to load and unload one plugin before it counts "
                  "as hung and is killed (default 30)");
  // The child side of --isolate; not for people.
  cmd->add_option("--probe-plugin", options->probe_plugin)->group("");
  cmd->callback([options, &context] { context.exit_code = run_info(*options); });
}

}  // namespace strata::cli
