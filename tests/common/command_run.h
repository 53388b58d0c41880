// Runs a shell command to its end and keeps what it printed (stdout and
// stderr together), its exit status and its wall time: how the launch and
// parameter-server tests watch whole jobs of processes. The commands bound
// themselves (`strata launch --timeout`), so reading to EOF cannot hang.
#ifndef STRATA_TESTS_COMMON_COMMAND_RUN_H_
#define STRATA_TESTS_COMMON_COMMAND_RUN_H_

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace strata::testing {

struct CommandRun {
  int exit_code = -1;  // -1: could not start, or killed by a signal
  std::string output;
  double seconds = 0;
};

inline CommandRun run_command(const std::string& command) {
  CommandRun r;
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace strata::testing

#endif  // STRATA_TESTS_COMMON_COMMAND_RUN_H_
