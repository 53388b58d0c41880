// A worker killed in the middle of a stream of all-reduces: the survivors
// must return an error naming the dead worker well within the collective
// timeout (60 s here), exit on their own, and leave no process behind. Real
// processes, each told its place by TF_CONFIG, meeting through the chief's
// TCP store; parameterised over the cross-process plugin that carries the
// all-reduces (mpi when built, through ompi-server as strata launch does).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "strata/sdk/free_port.h"

extern char** environ;

namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

struct Worker {
  pid_t pid = -1;
  std::string log;
  int status = -1;
  bool exited = false;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Open MPI's rendezvous server, for the mpi plugin to connect processes
// that mpirun did not start (what strata launch runs for its workers).
class OmpiServer {
 public:
  OmpiServer() {
    uri_ = ::testing::TempDir() + "/ompi_uri_" + std::to_string(::getpid());
    std::remove(uri_.c_str());
    std::vector<std::string> args_text = {"ompi-server", "--no-daemonize", "--report-uri", uri_};
    std::vector<char*> args;
    for (auto& a : args_text) args.push_back(a.data());
    args.push_back(nullptr);
    ::setenv("OMPI_MCA_oob_tcp_if_include", "lo", 1);
    if (posix_spawnp(&pid_, "ompi-server", nullptr, nullptr, args.data(), environ) != 0) {
      pid_ = -1;
      return;
    }
    for (int i = 0; i < 200 && slurp(uri_).empty(); ++i) std::this_thread::sleep_for(25ms);
  }
  ~OmpiServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::remove(uri_.c_str());
  }
  bool ready() const { return pid_ > 0 && !slurp(uri_).empty(); }
  std::vector<std::string> environment() const {
    return {"OMPI_MCA_pmix_server_uri=file:" + uri_, "OMPI_MCA_oob_tcp_if_include=lo",
            "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_ALLOW_RUN_AS_ROOT=1",
            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
  }

 private:
  pid_t pid_ = -1;
  std::string uri_;
};

bool is_mpi(const std::string& plugin) {
  return plugin.size() >= 16 && plugin.compare(plugin.size() - 16, 16, "libstrata_mpi.so") == 0;
}

class WorkerFailureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkerFailureTest, SurvivorsNameTheKilledWorkerAndExit) {
  const std::string plugin = GetParam();
  std::unique_ptr<OmpiServer> ompi;
  if (is_mpi(plugin)) {
    ompi = std::make_unique<OmpiServer>();
    if (!ompi->ready()) GTEST_SKIP() << "ompi-server (openmpi-bin) could not be started";
  }
  constexpr int kWorkers = 3;
  std::string cluster = "[";
  {
    std::vector<strata::sdk::PortReservation> held;  // distinct ports
    for (int i = 0; i < kWorkers; ++i) {
      std::string error;
      held.push_back(strata::sdk::PortReservation::make(
          strata::sdk::PortReservation::Scope::kLoopback, error));
      ASSERT_TRUE(held.back().valid()) << error;
      cluster += std::string(i ? "," : "") + "\"127.0.0.1:" + std::to_string(held.back().port()) +
                 "\"";
    }
  }
  cluster += "]";
  std::vector<Worker> workers(kWorkers);
  const std::string dir = ::testing::TempDir();
  for (int i = 0; i < kWorkers; ++i) {
    std::vector<std::string> env_text;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string(*e).rfind("TF_CONFIG=", 0) != 0) env_text.emplace_back(*e);
    }
    env_text.push_back("TF_CONFIG={\"cluster\":{\"worker\":" + cluster +
                       "},\"task\":{\"type\":\"worker\",\"index\":" + std::to_string(i) + "}}");
    env_text.push_back("STRATA_JOB_TOKEN=worker-failure-test");
    if (ompi) {
      for (const auto& e : ompi->environment()) env_text.push_back(e);
    }
    std::vector<char*> env;
    for (auto& s : env_text) env.push_back(s.data());
    env.push_back(nullptr);
    workers[static_cast<size_t>(i)].log =
        dir + "/worker_failure_" + std::to_string(::getpid()) + "_" + std::to_string(i) + ".log";
    std::vector<std::string> args_text = {STRATA_STREAM_PROGRAM, "--plugin", plugin,
                                          "--iterations", "100000", "--die-rank", "2",
                                          "--die-after", "50"};
    std::vector<char*> args;
    for (auto& s : args_text) args.push_back(s.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, workers[static_cast<size_t>(i)].log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
    ASSERT_EQ(posix_spawn(&workers[static_cast<size_t>(i)].pid, STRATA_STREAM_PROGRAM, &actions,
                          nullptr, args.data(), env.data()),
              0);
    posix_spawn_file_actions_destroy(&actions);
  }

  // Bounded wait for all three; anything still running after 45 s (less
  // than the 60 s collective timeout) is a hang: kill it and fail.
  const auto start = std::chrono::steady_clock::now();
  int remaining = kWorkers;
  while (remaining > 0 && std::chrono::steady_clock::now() - start < 45s) {
    for (auto& w : workers) {
      if (w.exited) continue;
      if (::waitpid(w.pid, &w.status, WNOHANG) == w.pid) {
        w.exited = true;
        --remaining;
      }
    }
    std::this_thread::sleep_for(20ms);
  }
  const auto took = std::chrono::steady_clock::now() - start;
  for (auto& w : workers) {
    if (!w.exited) {
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, &w.status, 0);
      ADD_FAILURE() << "a worker hung; its log:\n" << slurp(w.log);
    }
  }
  ASSERT_EQ(remaining, 0);
  EXPECT_LT(took, 45s);

  ASSERT_TRUE(WIFSIGNALED(workers[2].status)) << slurp(workers[2].log);
  EXPECT_EQ(WTERMSIG(workers[2].status), SIGKILL);
  for (int i = 0; i < 2; ++i) {
    const Worker& w = workers[static_cast<size_t>(i)];
    const std::string log = slurp(w.log);
    ASSERT_TRUE(WIFEXITED(w.status)) << log;
    EXPECT_EQ(WEXITSTATUS(w.status), 3) << log;
    EXPECT_THAT(log, HasSubstr("PEER_FAILED")) << log;
    EXPECT_THAT(log, HasSubstr("worker 2 (rank 2 of 3)")) << log;
    if (!HasFailure()) std::remove(w.log.c_str());
    if (i == 0) std::cout << "worker 0 said: " << log;
  }
  std::remove(workers[2].log.c_str());
}

std::vector<std::string> plugins() {
  std::vector<std::string> p = {STRATA_STORE_EXCHANGE_PLUGIN};
#ifdef STRATA_MPI_PLUGIN
  p.push_back(STRATA_MPI_PLUGIN);
#endif
  return p;
}

INSTANTIATE_TEST_SUITE_P(Plugins, WorkerFailureTest, ::testing::ValuesIn(plugins()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return is_mpi(p.param) ? "mpi" : "store_exchange";
                         });

}  // namespace
