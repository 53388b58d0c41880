// What every `strata` subcommand shares: how a command reports failure, how
// it starts a Runtime from --config, builds a team from --devices, and turns
// "OP SIZE --dtype" into the element count the collectives take.
#ifndef STRATA_TOOLS_STRATA_CLI_COMMON_H_
#define STRATA_TOOLS_STRATA_CLI_COMMON_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/collective/call_size.h"
#include "core/collective/collective_ops.h"
#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/runtime/runtime.h"

namespace CLI {
class App;
}  // namespace CLI

namespace strata::cli {

// Exit statuses: 0 success, 1 the command ran and failed (or found wrong
// results), 2 the command line itself was malformed.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Handed to every subcommand: it records the result of the one that ran.
struct Context {
  std::string command_line;  // as typed, for bench reports
  int exit_code = kExitOk;
};

void add_info_command(CLI::App& app, Context& context);
void add_explain_command(CLI::App& app, Context& context);
void add_bench_command(CLI::App& app, Context& context);

// Prints "strata <command>: <status.to_string()>" on stderr and returns
// kExitFailure, so a command can `return report_error(...)`.
int report_error(std::string_view command, const Status& status);

// Starts a Runtime with plugin discovery from the config every program
// picks the same way (core/config/config_choice.h): `config_file` (--config)
// when given, else STRATA_CONFIG, else the documented defaults. With the
// defaults, the virtual CPU device count is raised to `min_cpu_devices` so
// `--devices 16` works without writing YAML; a config file is taken as written.
StatusOr<std::shared_ptr<Runtime>> open_runtime(const std::string& config_file,
                                                int min_cpu_devices = 0,
                                                RuntimeOptions options = {});
// The config open_runtime starts from.
StatusOr<Config> load_cli_config(const std::string& config_file, int min_cpu_devices = 0);

// A single-process team of the first `count` devices of `device_type`.
StatusOr<std::unique_ptr<CollectiveOps>> open_team(const std::shared_ptr<Runtime>& runtime,
                                                   const std::string& device_type, int count);

// "all_reduce, broadcast, ..." for messages.
std::string collective_names();
// "cpu:0 .. cpu:3" (or "cpu:0" for a team of one).
std::string describe_devices(const Runtime& runtime, const Team& team);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_CLI_COMMON_H_
