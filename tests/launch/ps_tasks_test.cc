// `strata launch --ps N`: N parameter server tasks of the same program next
// to the workers, each told its role by TF_CONFIG (job "ps"), their output
// prefixed [ps-i], and the launch ending when every task has exited. With
// --tolerate-worker-failures, a failing worker is only reported, while a
// failing ps task or every worker failing still stops the job.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/common/command_run.h"

namespace {

std::string run(const std::string& command, int* exit_code) {
  const strata::testing::CommandRun r = strata::testing::run_command(command);
  *exit_code = r.exit_code;
  return r.output;
}

TEST(LaunchPs, PsTasksGetTheirRoleAndTheClusterListsThem) {
  int code = -1;
  const std::string out = run(std::string(STRATA_CLI) +
                                  " launch -n 2 --ps 1 --timeout 20s -- /bin/sh -c 'echo \"$TF_CONFIG\"'",
                              &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("launching 2 workers and 1 ps task:"), std::string::npos) << out;
  EXPECT_NE(out.find(R"([ps-0] {"cluster":{"ps":["127.0.0.1:)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("task":{"index":0,"type":"ps"})"), std::string::npos) << out;
  EXPECT_NE(out.find(R"([worker-1] {"cluster":{"ps":["127.0.0.1:)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("task":{"index":1,"type":"worker"})"), std::string::npos) << out;
}

// Ports from the ephemeral range, once released, can be taken by any
// outgoing connection before the task binds them ("Address already in use"
// under a parallel ctest). The launcher hands out ports outside it.
TEST(LaunchPs, PortsAreDistinctAndOutsideTheEphemeralRange) {
  int low = 32768, high = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
  // Where the range covers (nearly) every port, the launcher falls back to
  // port 0 and only distinctness is asked for.
  const bool room = std::max(0, low - 1024) + std::max(0, 65535 - high) >= 1000;
  int code = -1;
  const std::string out =
      run(std::string(STRATA_CLI) +
              " launch -n 3 --ps 2 --timeout 20s -- /bin/sh -c 'echo \"$TF_CONFIG\"'",
          &code);
  ASSERT_EQ(code, 0) << out;
  const size_t start = out.find("{\"cluster\"");
  ASSERT_NE(start, std::string::npos) << out;
  const size_t end = out.find('\n', start);
  ASSERT_NE(end, std::string::npos) << out;
  const std::string first = out.substr(start, end - start);
  // Scanned by hand: std::regex trips GCC 12's -Wmaybe-uninitialized in the
  // sanitizer builds (-O1).
  const std::string host = "127.0.0.1:";
  std::set<int> ports;
  for (size_t at = first.find(host); at != std::string::npos; at = first.find(host, at + 1)) {
    const int port = std::atoi(first.c_str() + at + host.size());
    if (room) {
      EXPECT_TRUE(port < low || port > high) << port << " is in " << low << "-" << high << "\n"
                                             << out;
    }
    ports.insert(port);
  }
  EXPECT_EQ(ports.size(), 5u) << out;
}

TEST(LaunchPs, AFailedPsTaskIsNamedAndStopsTheJob) {
  int code = -1;
  const std::string out = run(std::string(STRATA_CLI) +
                                  " launch -n 1 --ps 1 --grace 1s --timeout 20s -- /bin/sh -c "
                                  "'case \"$TF_CONFIG\" in *\\\"ps\\\"}*) exit 3;; *) sleep 10;; esac'",
                              &code);
  EXPECT_EQ(code, 3) << out;
  EXPECT_NE(out.find("ps 0 exited with status 3"), std::string::npos) << out;
}

TEST(LaunchPs, NoPsByDefaultAndBadCountsAreRefused) {
  int code = -1;
  const std::string out =
      run(std::string(STRATA_CLI) + " launch -n 1 -- /bin/sh -c 'echo \"$TF_CONFIG\"'", &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out.find("\"ps\""), std::string::npos) << out;
  run(std::string(STRATA_CLI) + " launch -n 1 --ps -1 -- true", &code);
  EXPECT_EQ(code, 2);
}

// A task script in a fresh directory: its role ("ps" or "worker") and
// index come from TF_CONFIG, then `body` runs with $dir, $role and $i set.
class TaskScript {
 public:
  explicit TaskScript(const std::string& body) {
    char dir_template[] = "/tmp/launch_tolerate_XXXXXX";
    if (::mkdtemp(dir_template) == nullptr) return;
    dir_ = dir_template;
    path_ = dir_ + "/task.sh";
    std::ofstream(path_) << "#!/bin/sh\n"
                         << "dir=" << dir_ << "\n"
                         << "case \"$TF_CONFIG\" in *'\"type\":\"ps\"'*) role=ps;; *) role=worker;; "
                            "esac\n"
                         << "i=$(echo \"$TF_CONFIG\" | sed 's/.*\"index\":\\([0-9]*\\).*/\\1/')\n"
                         << body << "\n";
    ::chmod(path_.c_str(), 0755);
  }
  ~TaskScript() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

std::string launch(const std::string& flags, const TaskScript& script) {
  return std::string(STRATA_CLI) + " launch -q --grace 1s --timeout 30s " + flags + " -- " +
         script.path();
}

TEST(LaunchTolerate, AFailedWorkerIsReportedAndTheOthersFinish) {
  // Workers 0 and 2 go on only after worker 1 has failed, so a launcher
  // that stopped the job would kill them before they say "finished".
  TaskScript script(
      "if [ $role = worker ] && [ $i = 1 ]; then touch $dir/failed; exit 3; fi\n"
      "n=0; while [ ! -e $dir/failed ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n+1)); done\n"
      "sleep 1; echo \"$role $i finished\"");
  ASSERT_FALSE(script.path().empty());
  int code = -1;
  const std::string out =
      run(launch("-n 3 --ps 1 --tolerate-worker-failures", script), &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("strata launch: worker 1 exited with status 3; the job goes on without it "
                     "(--tolerate-worker-failures)"),
            std::string::npos)
      << out;
  for (const char* line : {"[worker-0] worker 0 finished", "[worker-2] worker 2 finished",
                           "[ps-0] ps 0 finished"}) {
    EXPECT_NE(out.find(line), std::string::npos) << out;
  }
  EXPECT_NE(out.find("strata launch: lost 1 of 3 workers: worker 1 (exited with status 3); "
                     "every other task finished (--tolerate-worker-failures)"),
            std::string::npos)
      << out;
}

TEST(LaunchTolerate, AFailedPsTaskStillStopsTheJob) {
  TaskScript script("if [ $role = ps ]; then exit 4; fi\nsleep 20");
  ASSERT_FALSE(script.path().empty());
  int code = -1;
  const std::string out =
      run(launch("-n 2 --ps 1 --tolerate-worker-failures", script), &code);
  EXPECT_EQ(code, 4) << out;
  EXPECT_NE(out.find("strata launch: ps 0 exited with status 4; stopped 2 running workers"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("goes on without"), std::string::npos) << out;
}

TEST(LaunchTolerate, WhenEveryWorkerFailsTheJobStopsWithTheLastStatus) {
  TaskScript script(
      "if [ $role = ps ]; then exec sleep 20; fi\n"
      "if [ $i = 0 ]; then exit 3; fi\n"
      "exit 5");
  ASSERT_FALSE(script.path().empty());
  int code = -1;
  const std::string out =
      run(launch("-n 2 --ps 1 --tolerate-worker-failures", script), &code);
  // Either worker may fail first; the first is tolerated, the last stops
  // the job (and the ps) with its own status.
  ASSERT_TRUE(code == 3 || code == 5) << out;
  const std::string last = code == 5 ? "worker 1 exited with status 5" : "worker 0 exited with "
                                                                         "status 3";
  const std::string first = code == 5 ? "worker 0 exited with status 3" : "worker 1 exited with "
                                                                          "status 5";
  EXPECT_NE(out.find("strata launch: " + first + "; the job goes on without it"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("strata launch: " + last + "; stopped 1 running worker; lost earlier: " +
                     first.substr(0, 8) + " (" + first.substr(9) + ")"),
            std::string::npos)
      << out;
}

TEST(LaunchTolerate, WithoutPsTasksTheFlagIsRefused) {
  for (const char* ps : {"", " --ps 0"}) {
    int code = -1;
    const std::string out = run(std::string(STRATA_CLI) + " launch -n 2" + ps +
                                    " --tolerate-worker-failures -- /bin/sh -c 'echo started'",
                                &code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("strata launch: --tolerate-worker-failures needs parameter server tasks "
                       "(--ps M)"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("started"), std::string::npos) << "nothing may start\n" << out;
  }
}

}  // namespace
