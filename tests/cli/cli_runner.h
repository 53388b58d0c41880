// Runs the `strata` binary under test and splits what it printed, so CLI
// tests read like a shell session: run, then look at stdout, stderr, status.
#ifndef STRATA_TESTS_CLI_CLI_RUNNER_H_
#define STRATA_TESTS_CLI_CLI_RUNNER_H_

#include <string>
#include <vector>

namespace strata::cli_test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `strata <args>` (args are passed through the shell, so quote paths)
// with only the in-tree plugins, plus those in `plugin_path` when given.
// STRATA_PLUGINS / STRATA_PLUGINS_DISABLE / STRATA_CONFIG from the caller's
// environment are removed so a developer's shell cannot change the results;
// `environment` ("NAME=value ...", shell-quoted) is set instead.
CliResult run_cli(const std::string& args, const std::string& plugin_path = "",
                  const std::string& environment = "");

// The directory of the test-only `cli_test` plugin.
std::string test_plugin_dir();

// configs/rules_example.yaml of the source tree: a config with selection rules.
inline const std::string kRulesConfig =
    std::string(STRATA_SOURCE_DIR) + "/configs/rules_example.yaml";

// `s` in single quotes, for paths passed through run_cli's shell.
std::string quoted(const std::string& s);

// A fresh path under the test's temporary directory.
std::string temp_path(const std::string& name);

// Data rows of `strata bench` (lines not starting with '#'), split on blanks.
std::vector<std::vector<std::string>> bench_rows(const std::string& out);

}  // namespace strata::cli_test

#endif  // STRATA_TESTS_CLI_CLI_RUNNER_H_
