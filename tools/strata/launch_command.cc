// `strata launch -n N [options] -- PROGRAM ARGS`: N local workers of one job,
// each with its TF_CONFIG. The command line is checked here (a bad one
// exits 2 before anything starts); launcher.h runs the job.
#include "tools/strata/launch_command.h"

#include <charconv>
#include <filesystem>
#include <memory>
#include <string>

#include "tools/strata/cli11.h"

#include "core/common/units.h"
#include "tools/strata/cli_common.h"
#include "tools/strata/launch_output.h"
#include "tools/strata/launcher.h"

namespace strata::cli {
namespace {

// Each worker costs the launcher two pipes; past this a local launch is
// more likely a typo than a job this machine can hold.
constexpr int kMaxWorkers = 256;
constexpr int kMaxDevicesPerWorker = 1 << 16;

struct LaunchCommandOptions {
  LaunchOptions launch;
  std::string grace = "10s";
  std::string timeout;
  bool no_ompi_server = false;
};

// "" when `text` is "K" or "TYPE:K" as STRATA_DEVICES_PER_WORKER takes it.
std::string check_devices_per_worker(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string type = colon == std::string::npos ? "" : text.substr(0, colon);
  const std::string count = colon == std::string::npos ? text : text.substr(colon + 1);
  int value = 0;
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), value);
  const bool count_ok = ec == std::errc() && end == count.data() + count.size() && value >= 1 &&
                        value <= kMaxDevicesPerWorker;
  const bool type_ok =
      colon == std::string::npos ||
      (!type.empty() && type.size() <= 63 &&
       type.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos);
  if (count_ok && type_ok) return "";
  return "'" + text + "' should be a count (2) or type:count (cpu:2), the count from 1 to " +
         std::to_string(kMaxDevicesPerWorker);
}

// "" when `text` is a duration with a unit ("10s", "500ms", "2m").
std::string check_duration(const std::string& text) {
  StatusOr<std::chrono::nanoseconds> d = parse_duration(text);
  if (!d.ok()) return d.status().message();
  if (d->count() < 0) return "'" + text + "' is negative";
  return "";
}

std::chrono::nanoseconds duration_or_zero(const std::string& text) {
  if (text.empty()) return std::chrono::nanoseconds(0);
  return parse_duration(text).value();
}

int run_launch(LaunchCommandOptions& o) {
  if (o.launch.tolerate_worker_failures && o.launch.ps_tasks == 0) {
    launch_message(
        "--tolerate-worker-failures needs parameter server tasks (--ps M): without them the "
        "workers train through collectives, and the survivors' collectives would wait on the "
        "dead worker");
    return kExitUsage;
  }
  o.launch.grace = duration_or_zero(o.grace);
  o.launch.timeout = duration_or_zero(o.timeout);
  o.launch.ompi_server = !o.no_ompi_server;
  if (!o.launch.config.empty()) {
    // Workers may change directory before they read it.
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(o.launch.config, ec);
    if (!ec) o.launch.config = absolute.lexically_normal().string();
  }
  Launcher launcher(o.launch);
  return launcher.run();
}

}  // namespace

void add_launch_command(CLI::App& app, Context& context) {
  auto o = std::make_shared<LaunchCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "launch",
      "Run N local workers of one job, each with its TF_CONFIG; prefix their output with "
      "[worker-i]; when one fails, stop the others and exit with its status (with --ps "
      "and --tolerate-worker-failures, go on without a failed worker)");
  cmd->footer(
      "Example: strata launch -n 2 --devices-per-worker cpu:2 -- ./train --steps 100\n"
      "         strata launch -n 2 --ps 1 -- train_digits --config "
      "configs/parameter_server_cpu.yaml\n"
      "docs/CLI.md lists the environment each worker gets and the exit statuses.");
  cmd->add_option("-n,--workers", o->launch.workers, "Number of worker processes")
      ->type_name("N")
      ->required()
      ->check(CLI::Range(1, kMaxWorkers));
  cmd->add_option("--ps", o->launch.ps_tasks,
                  "Also run N parameter server tasks of the same program (TF_CONFIG job "
                  "\"ps\", output prefixed [ps-i]); they exit by themselves when the workers "
                  "are done")
      ->type_name("N")
      ->check(CLI::Range(0, kMaxWorkers));
  cmd->add_option("--devices-per-worker", o->launch.devices_per_worker,
                  "Local devices each worker drives: K or TYPE:K (cpu:2); sets "
                  "STRATA_DEVICES_PER_WORKER")
      ->type_name("K|TYPE:K")
      ->check(CLI::Validator(check_devices_per_worker, ""));
  cmd->add_option("--config", o->launch.config,
                  "YAML config the workers load: passed as STRATA_CONFIG (absolute path), which "
                  "every Strata program reads when it is not given --config itself")
      ->type_name("FILE")
      ->check(CLI::Validator(CLI::ExistingFile).description(""));
  cmd->add_option("--grace", o->grace,
                  "After a failure, a signal or --timeout: how long workers have to exit after "
                  "SIGTERM before SIGKILL")
      ->type_name("DURATION")
      ->capture_default_str()
      ->check(CLI::Validator(check_duration, ""));
  cmd->add_option("--timeout", o->timeout,
                  "Stop the whole job after this long and exit 124 (default: no limit)")
      ->type_name("DURATION")
      ->check(CLI::Validator(check_duration, ""));
  cmd->add_flag("--tolerate-worker-failures", o->launch.tolerate_worker_failures,
                "With --ps: a failing worker is reported and the job goes on without it (the "
                "parameter servers re-queue its steps); a failing ps task, or every worker "
                "failing, still stops the job");
  cmd->add_flag("--no-ompi-server", o->no_ompi_server,
                "Do not start ompi-server for the mpi plugin, even if it is on PATH");
  cmd->add_flag("-q,--quiet", o->launch.quiet, "No start line on stderr");
  cmd->add_option("PROGRAM", o->launch.program,
                  "The worker program and its arguments (put them after --)")
      ->type_name("")
      ->required();
  // Everything from PROGRAM on is PROGRAM's: `-- ./train -n 5` must not
  // give the launcher a second -n.
  cmd->positionals_at_end();
  cmd->callback([o, &context] { context.exit_code = run_launch(*o); });
}

}  // namespace strata::cli
