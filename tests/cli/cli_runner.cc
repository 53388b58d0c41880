#include "cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace strata::cli_test {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every file a test makes lives in one directory per test process, removed
// when the process's tests end, so runs leave nothing behind in /tmp.
std::string process_temp_dir() {
  return ::testing::TempDir() + "strata_cli_" + std::to_string(getpid());
}

class ProcessTempDirRemover : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(process_temp_dir(), ignored);
  }
};

[[maybe_unused]] ::testing::Environment* const kRemover =
    ::testing::AddGlobalTestEnvironment(new ProcessTempDirRemover);

}  // namespace

std::string test_plugin_dir() { return CLI_TEST_PLUGIN_DIR; }

std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = process_temp_dir();
  std::filesystem::create_directories(dir);
  std::string base = dir + "/";
  if (info != nullptr) base += std::string(info->test_suite_name()) + "_" + info->name() + "_";
  return base + name;
}

CliResult run_cli(const std::string& args, const std::string& plugin_path,
                  const std::string& environment) {
  const std::string err_path = temp_path("stderr.txt");
  const std::string command =
      "env -u STRATA_PLUGINS -u STRATA_PLUGINS_DISABLE -u STRATA_CONFIG "
      "STRATA_PLUGIN_PATH=" +
      quoted(plugin_path) + " " + environment + " " + quoted(STRATA_CLI_PATH) + " " + args +
      " 2>" + quoted(err_path);
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed for: " << command;
    return result;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) result.out.append(buf, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_file(err_path);
  std::remove(err_path.c_str());
  return result;
}

std::vector<std::vector<std::string>> bench_rows(const std::string& out) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace strata::cli_test
