// `strata info --isolate` against plugins that crash or hang in
// register_all: each is named with what happened, the healthy plugins are
// still listed, and the exit status says something was wrong. Without
// --isolate the crash takes `strata info` down, but the debug log's last
// line names the file and the step that was running.
#include <cstdlib>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_runner.h"

namespace strata::cli_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

std::string fake_dir(const std::string& variant) {
  return std::string(STRATA_FAKE_PLUGIN_ROOT) + "/" + variant;
}

// --isolate-timeout bounds every probe, the healthy ones' too: only these
// are probed, so that a real plugin slow to load on a busy machine (mpi,
// grpc_ring, nccl's CUDA runtime, under a sanitizer) cannot pass for hung.
const char* const kProbedOnly =
    "STRATA_PLUGINS=fake_register_crashes,fake_register_hangs,fake_good,hierarchical_copy";

TEST(CliInfoIsolate, NamesTheCrashingAndTheHangingPluginAndListsTheHealthyOnes) {
  const std::string path =
      fake_dir("register_crashes") + ":" + fake_dir("register_hangs") + ":" + fake_dir("good");
  const CliResult r = run_cli("info --isolate --isolate-timeout 3", path, kProbedOnly);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The crash: the signal, and the child's last log line naming the step.
  EXPECT_THAT(r.out, ContainsRegex("register_crashes +- +- +refused +" +
                                   fake_dir("register_crashes")));
  EXPECT_THAT(r.out, HasSubstr("why: crashed: loading it killed a child process with SIGSEGV "
                               "(strata info --isolate); its last log line: [strata D] plugin "
                               "file " + fake_dir("register_crashes") +
                               "/libstrata_fake_register_crashes.so: calling register_all of "
                               "plugin fake_register_crashes"));
  // The hang: the bounded wait, then the kill.
  EXPECT_THAT(r.out, ContainsRegex("register_hangs +- +- +refused +" +
                                   fake_dir("register_hangs")));
  EXPECT_THAT(r.out, ContainsRegex("why: hung: still loading after 3[.0-9]* s in a child process "
                                   "\\(strata info --isolate\\), which was killed; its last log "
                                   "line: [^\n]*calling register_all of plugin "
                                   "fake_register_hangs"));
  // The healthy ones load and are listed, with their algorithms.
  EXPECT_THAT(r.out, ContainsRegex("fake_good +0\\.0\\.1 +1\\.[0-9]+ +loaded"));
  EXPECT_THAT(r.out, ContainsRegex("hierarchical_copy [^\n]* loaded"));
  EXPECT_THAT(r.out, HasSubstr("fake_good/all_reduce/sum"));
  EXPECT_THAT(r.err, HasSubstr("strata info: 2 plugin file(s) crashed, hung or ended the "
                               "process while loading"));
}

TEST(CliInfoIsolate, AllHealthyExitsZero) {
  const CliResult r = run_cli("info --isolate --json", fake_dir("good"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"fake_good/all_reduce/sum\""));
}

// Sets STRATA_LOG_LEVEL for the programs a test starts.
class ScopedLogLevel {
 public:
  explicit ScopedLogLevel(const char* level) {
    if (const char* old = std::getenv("STRATA_LOG_LEVEL")) saved_ = old;
    ::setenv("STRATA_LOG_LEVEL", level, 1);
  }
  ~ScopedLogLevel() {
    if (saved_) {
      ::setenv("STRATA_LOG_LEVEL", saved_->c_str(), 1);
    } else {
      ::unsetenv("STRATA_LOG_LEVEL");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(CliInfo, ACrashInRegisterAllIsAttributedByTheDebugLog) {
  ScopedLogLevel debug("debug");
  const CliResult r = run_cli("info", fake_dir("register_crashes"));
  EXPECT_EQ(r.exit_code, 128 + 11) << r.err;  // SIGSEGV, through the shell
  const std::string file = fake_dir("register_crashes") + "/libstrata_fake_register_crashes.so";
  // The last thing core said before the plugin's code killed it.
  const auto last = r.err.rfind("[strata ");
  ASSERT_NE(last, std::string::npos) << r.err;
  EXPECT_EQ(r.err.substr(last, r.err.find('\n', last) - last),
            "[strata D] plugin file " + file +
                ": calling register_all of plugin fake_register_crashes");
}

}  // namespace
}  // namespace strata::cli_test
