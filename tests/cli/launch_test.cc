// `strata launch`, run as a user would: small shell scripts as workers.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace strata::cli_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// The worker's index, read from its TF_CONFIG as any program would.
const char* kIndex = "i=$(echo \"$TF_CONFIG\" | sed 's/.*\"index\":\\([0-9]*\\).*/\\1/')\n";

// An executable /bin/sh script in the test's temporary directory.
std::string script(const std::string& name, const std::string& body) {
  const std::string path = temp_path(name);
  std::ofstream(path) << "#!/bin/sh\n" << kIndex << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Lines of `text` that start with "[worker-<i>] ", without the prefix.
std::map<int, std::vector<std::string>> by_worker(const std::string& text) {
  std::map<int, std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[worker-", 0) != 0) continue;
    const size_t close = line.find("] ");
    lines[std::stoi(line.substr(8, close - 8))].push_back(line.substr(close + 2));
  }
  return lines;
}

// Alive and not a zombie waiting for a parent (init in a container may be slow to reap).
bool alive(pid_t pid) {
  std::string text;
  std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/stat"), text);
  const size_t paren = text.rfind(')');
  return ::kill(pid, 0) == 0 && (paren == std::string::npos || text.compare(paren, 4, ") Z ") != 0);
}

pid_t read_pid(const std::string& path) {
  pid_t pid = 0;
  std::ifstream(path) >> pid;
  return pid;
}

TEST(CliLaunch, EveryLineOfEveryWorkerIsPrefixedAndWhole) {
  // Long lines and many of them, so pipe reads split lines mid-way.
  const std::string worker = script("w.sh",
                                    "pad=$(printf '%0900d' 0)\n"
                                    "for n in $(seq 1 200); do echo \"out $i $n $pad\"; done\n"
                                    "echo \"err $i\" >&2\n"
                                    "printf \"partial $i\"\n");
  const CliResult r = run_cli("launch -n 3 -q --no-ompi-server -- " + worker);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = by_worker(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out.substr(0, 2000);
  for (const auto& [i, lines] : out) {
    std::vector<std::string> expected;
    for (int n = 1; n <= 200; ++n)
      expected.push_back("out " + std::to_string(i) + " " + std::to_string(n) + " " +
                         std::string(900, '0'));
    expected.push_back("partial " + std::to_string(i));  // flushed at exit
    EXPECT_TRUE(lines == expected) << "worker " << i << "'s lines differ";
  }
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 603) << "only prefixed lines";
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(by_worker(r.err).at(i), std::vector<std::string>{"err " + std::to_string(i)});
  }
}

TEST(CliLaunch, WorkersGetTheirClusterDescriptionAndSettings) {
  const std::string config = temp_path("job.yaml");
  std::ofstream(config) << "strata: 1\n";
  ::setenv("STRATA_LAUNCH_TEST_INHERITED", "kept", 1);
  const std::string worker = script("w.sh",
                                    "echo \"TF=$TF_CONFIG\"\n"
                                    "echo \"DEV=$STRATA_DEVICES_PER_WORKER\"\n"
                                    "echo \"CFG=$STRATA_CONFIG\"\n"
                                    "echo \"TOKEN=$STRATA_JOB_TOKEN\"\n"
                                    "echo \"INHERITED=$STRATA_LAUNCH_TEST_INHERITED\"\n");
  const std::string args =
      "launch -n 3 --devices-per-worker cpu:2 --no-ompi-server --config '" + config + "' -- ";
  const CliResult r = run_cli(args + worker);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("launching 3 workers x 2 cpu devices: " + worker));
  const auto out = by_worker(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  std::set<std::string> tokens;
  nlohmann::json cluster;
  for (const auto& [i, lines] : out) {
    ASSERT_EQ(lines.size(), 5u) << r.out;
    const auto tf = nlohmann::json::parse(lines[0].substr(3));
    EXPECT_EQ(tf.at("task").at("type"), "worker");
    EXPECT_EQ(tf.at("task").at("index"), i);
    const auto& workers = tf.at("cluster").at("worker");
    ASSERT_EQ(workers.size(), 3u);
    std::set<std::string> distinct;
    for (const auto& a : workers) distinct.insert(a.get<std::string>());
    EXPECT_EQ(distinct.size(), 3u);
    EXPECT_THAT(workers.dump(), ContainsRegex("^\\[(\"127\\.0\\.0\\.1:[0-9]+\",?){3}\\]$"));
    if (cluster.is_null()) cluster = workers;
    EXPECT_EQ(workers, cluster) << "every worker sees the same cluster";
    EXPECT_EQ(lines[1], "DEV=cpu:2");
    EXPECT_EQ(lines[2], "CFG=" + config);
    EXPECT_THAT(lines[3], ContainsRegex("^TOKEN=[0-9a-f]{32}$"));
    tokens.insert(lines[3]);
    EXPECT_EQ(lines[4], "INHERITED=kept");
  }
  EXPECT_EQ(tokens.size(), 1u);
  const CliResult again = run_cli(args + worker);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(tokens.count(by_worker(again.out).at(0).at(3)), 0u) << "a fresh token per launch";
}

TEST(CliLaunch, OneFailureStopsTheOthersAndGivesItsStatus) {
  const std::string worker = script("w.sh",
                                    "if [ \"$i\" = 1 ]; then sleep 0.3; echo bye; exit 3; fi\n"
                                    "exec sleep 60\n");
  const auto start = Clock::now();
  const CliResult r = run_cli("launch -n 3 --grace 5s --no-ompi-server -- " + worker);
  EXPECT_LT(seconds_since(start), 20.0) << "the sleeping workers were not stopped";
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[worker-1] bye\n"));
  EXPECT_THAT(r.err, HasSubstr("strata launch: worker 1 exited with status 3; stopped 2 "));
}

TEST(CliLaunch, WorkersThatIgnoreSigtermAreKilledAfterTheGrace) {
  // Worker 0 fails only once worker 1 ignores SIGTERM (10 s at most).
  const std::string ready = temp_path("ready");
  std::filesystem::remove(ready);
  const std::string worker =
      script("w.sh", "if [ \"$i\" = 0 ]; then\n  for n in $(seq 1 200); do [ -e " + ready +
                         " ] && break; sleep 0.05; done\n  exit 5\nfi\ntrap '' TERM\ntouch " +
                         ready + "\nsleep 60\n");
  const auto start = Clock::now();
  const CliResult r = run_cli("launch -n 2 --grace 1s --no-ompi-server -- " + worker);
  const double took = seconds_since(start);
  EXPECT_GE(took, 0.9);
  EXPECT_LT(took, 20.0);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_THAT(r.err, HasSubstr("worker 0 exited with status 5"));
  EXPECT_THAT(r.err, HasSubstr("1 still running after the 1 s grace period, killed"));
}

TEST(CliLaunch, AWorkerKilledBySigkillGives137AndIsNamed) {
  const std::string worker =
      script("w.sh", "if [ \"$i\" = 1 ]; then kill -9 $$; fi\nexec sleep 60\n");
  const CliResult r = run_cli("launch -n 2 --no-ompi-server -- " + worker);
  EXPECT_EQ(r.exit_code, 137) << r.err;
  EXPECT_THAT(r.err, HasSubstr("worker 1 was killed by signal 9 (SIGKILL)"));
}

TEST(CliLaunch, TimeoutStopsTheJobWith124) {
  const std::string worker = script("w.sh", "exec sleep 60\n");
  const CliResult r = run_cli("launch -n 2 --timeout 500ms --no-ompi-server -- " + worker);
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_THAT(r.err, HasSubstr("timed out after"));
}

// Runs `strata launch -n 2` in the background; each worker goes to a fresh
// directory, writes its pid to pid.<i>, then runs `tail` (which may write
// child.<i>). Once every file of
// `kinds` holds a pid (20 s at most), sends `sig` to the launcher and returns
// its wait status (-1 if it did not end within 20 s) and the pids read.
int signal_launcher(const std::string& tail, const std::vector<std::string>& kinds, int sig,
                    std::vector<pid_t>* pids) {
  const std::string dir = temp_path("pids");
  std::filesystem::remove_all(dir);  // from an earlier --gtest_repeat round
  EXPECT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string worker = script("w.sh", "cd " + dir + "\necho $$ > pid.$i\n" + tail);
  const pid_t launcher = ::fork();
  if (launcher == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(STRATA_CLI_PATH, STRATA_CLI_PATH, "launch", "-n", "2", "--no-ompi-server", "--grace",
            "5s", "--", worker.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto read_all = [&] {
    pids->clear();
    for (const std::string& kind : kinds) {
      for (int i = 0; i < 2; ++i)
        pids->push_back(read_pid(dir + "/" + kind + "." + std::to_string(i)));
    }
    return std::count(pids->begin(), pids->end(), 0) == 0;
  };
  for (int tries = 0; tries < 400 && !read_all(); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(::kill(launcher, sig), 0);
  int status = -1;
  for (int tries = 0; tries < 400 && ::waitpid(launcher, &status, WNOHANG) == 0; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return status;
}

void expect_gone(const std::vector<pid_t>& pids) {
  for (pid_t p : pids) {
    ASSERT_GT(p, 0);
    for (int tries = 0; tries < 100 && alive(p); ++tries) {  // 5 s at most
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_FALSE(alive(p)) << "pid " << p << " outlived the launcher";
    if (alive(p)) ::kill(p, SIGKILL);
  }
}

TEST(CliLaunch, SigtermToTheLauncherLeavesNoWorkerNorTheirChildren) {
  std::vector<pid_t> pids;
  const int status =
      signal_launcher("sleep 60 &\necho $! > child.$i\nwait\n", {"pid", "child"}, SIGTERM, &pids);
  ASSERT_TRUE(WIFEXITED(status)) << "launcher wait status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  expect_gone(pids);
}

TEST(CliLaunch, ALauncherKilledOutrightTakesItsWorkersWithIt) {
  std::vector<pid_t> pids;
  const int status = signal_launcher("exec sleep 60\n", {"pid"}, SIGKILL, &pids);
  EXPECT_TRUE(WIFSIGNALED(status)) << status;
  expect_gone(pids);  // PR_SET_PDEATHSIG
}

TEST(CliLaunch, OmpiServerUriIsHandedToEveryWorker) {
  if (std::system("command -v ompi-server >/dev/null") != 0) GTEST_SKIP() << "no ompi-server";
  ::unsetenv("OMPI_MCA_pmix_server_uri");
  const std::string worker = script("w.sh",
                                    "echo \"$OMPI_MCA_pmix_server_uri $OMPI_MCA_oob_tcp_if_include "
                                    "$OMPI_MCA_btl_tcp_if_include\"\n"
                                    "[ -z \"$OMPI_MCA_pmix_server_uri\" ] || "
                                    "cat \"${OMPI_MCA_pmix_server_uri#file:}\"\n");
  const CliResult r = run_cli("launch -n 2 -q -- " + worker);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [i, lines] : by_worker(r.out)) {
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_THAT(lines[0], ContainsRegex("^file:/.*/ompi-server.uri lo lo$"));
    EXPECT_THAT(lines[1], HasSubstr("tcp://127.0.0.1:"));
  }
  const CliResult off = run_cli("launch -n 1 -q --no-ompi-server -- " + worker);
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.out, "[worker-0]   \n") << "no OMPI_* variables without the server";
}

TEST(CliLaunch, BadCommandLinesExitWithTwoAndAMissingProgramWith127) {
  const std::string ok = script("ok.sh", "exit 0\n");
  const std::pair<std::string, std::string> cases[] = {
      {"launch -n 0 -- " + ok, "--workers: Value 0 not in range"},
      {"launch -n 2", "PROGRAM is required"},
      {"launch -n 2 --", "PROGRAM is required"},
      {"launch -- " + ok, "--workers is required"},
      {"launch -n 2 --grace 10 -- " + ok, "--grace"},
      {"launch -n 2 --devices-per-worker 0 -- " + ok, "count (2) or type:count (cpu:2)"},
      {"launch -n 2 --config /nonexistent.yaml -- " + ok, "/nonexistent.yaml"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << args;
  }
  const CliResult missing = run_cli("launch -n 2 -- no-such-program-strata-test");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_THAT(missing.err, HasSubstr("program 'no-such-program-strata-test' is not on PATH"));
  // Options after PROGRAM belong to it, not to the launcher.
  const CliResult passed = run_cli("launch -n 1 -q --no-ompi-server -- /bin/echo -n 5 --quiet");
  EXPECT_EQ(passed.exit_code, 0) << passed.err;
  EXPECT_EQ(passed.out, "[worker-0] 5 --quiet\n");
}

}  // namespace
}  // namespace strata::cli_test
