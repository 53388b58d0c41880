// `strata info --isolate`: before the process loads any plugin, each file
// discovery would load is loaded (entry point, register_all, unload) in a
// child process of its own — `strata info --probe-plugin FILE` — with a
// bounded wait. A plugin that crashes the child, hangs in it or ends it
// (exit() is rule 2's business too) is then refused in this process without
// being opened, with what happened as the reason; the healthy ones load as
// usual. The child logs at debug level, so the reason carries its last log
// line: which step of which file was running (plugin_loader.h).
#ifndef STRATA_TOOLS_STRATA_PLUGIN_ISOLATION_H_
#define STRATA_TOOLS_STRATA_PLUGIN_ISOLATION_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "core/common/status.h"
#include "core/config/config.h"
#include "core/plugin/plugin_discovery.h"

namespace strata::cli {

// The line a probe prints once the plugin was loaded and unloaded again,
// whatever the loader decided: without it the plugin ended the child.
inline constexpr const char* kProbeFinished = "strata-probe: finished";

// Probes every candidate of `options` (name filters applied) with `self`
// (this program) and returns the files to refuse, with the reason: crashed
// (the signal), hung (still loading after `timeout`; killed), or ended the
// process. `config_file` (may be empty) is passed on, for plugin options.
StatusOr<std::map<std::filesystem::path, std::string>> probe_plugins(
    const std::filesystem::path& self, const std::string& config_file,
    const LoaderOptions& options, std::chrono::nanoseconds timeout);

// The child's side: loads `file` alone with `config` and prints
// kProbeFinished on stdout once it is unloaded. Returns the exit status (0).
int run_probe(Config config, const std::filesystem::path& file);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_PLUGIN_ISOLATION_H_
