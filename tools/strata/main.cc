// `strata`: inspect what is loaded (info), see how a call would be routed
// (explain), measure collectives the way nccl-tests does (bench) and run N
// local workers of one job (launch).
// docs/CLI.md describes every command.
#include <exception>
#include <iostream>
#include <string>

#include "tools/strata/cli11.h"

#include "strata/abi/version.h"
#include "tools/strata/cli_common.h"
#include "tools/strata/launch_command.h"

namespace {

// Quotes an argument only when the shell would need it, so the recorded
// command line can be pasted back.
std::string shell_quote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos) {
    return arg;
  }
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string version_text() {
  return std::string("strata ") + STRATA_CLI_VERSION + " (plugin ABI " +
         std::to_string(STRATA_ABI_MAJOR) + "." + std::to_string(STRATA_ABI_MINOR) + ")";
}

int run(int argc, char** argv) {
  strata::cli::Context context;
  for (int i = 0; i < argc; ++i) {
    context.command_line += (i == 0 ? "" : " ") + shell_quote(argv[i]);
  }

  CLI::App app{
      "Strata: distributed training collectives with run-time loaded backends.\n"
      "Plugins are found in <prefix>/lib/strata/plugins, then STRATA_PLUGIN_PATH, "
      "then the config's plugins.path; STRATA_LOG_LEVEL=info shows each one.",
      "strata"};
  app.set_version_flag("--version", version_text(), "Print the version and exit");
  app.require_subcommand(1);
  app.footer("Run 'strata COMMAND --help' for the options of one command.");
  strata::cli::add_info_command(app, context);
  strata::cli::add_explain_command(app, context);
  strata::cli::add_bench_command(app, context);
  strata::cli::add_launch_command(app, context);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? strata::cli::kExitOk : strata::cli::kExitUsage;
  }
  return context.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Library code returns Status and never throws across our calls, but a
  // bad_alloc or a filesystem error must still end in a message, not abort().
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "strata: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "strata: internal error: unknown exception\n";
  }
  return strata::cli::kExitFailure;
}
