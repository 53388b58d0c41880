// A worker killed in the middle of a stream of all-reduces: the survivors
// must return an error naming the dead worker well within the collective
// timeout (60 s here), exit on their own, and leave no process behind. Real
// processes, each told its place by TF_CONFIG, meeting through the chief's
// TCP store; parameterised over the cross-process plugin that carries the
// all-reduces (mpi when built, through ompi-server as strata launch does).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/launch/worker_processes.h"

extern char** environ;

namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using strata::testing::WorkerProcesses;

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
  WorkerProcesses job(STRATA_STREAM_PROGRAM, kWorkers,
                      {"--plugin", plugin, "--iterations", "100000", "--die-rank", "2",
                       "--die-after", "50"},
                      "worker-failure-test",
                      ompi ? ompi->environment() : std::vector<std::string>{});
  ASSERT_TRUE(job.started());

  // Bounded wait for all three; anything still running after 45 s (less
  // than the 60 s collective timeout) is a hang: the job kills it.
  const auto start = WorkerProcesses::Clock::now();
  const auto until = start + 45s;
  std::vector<std::optional<int>> status(kWorkers);
  for (int i = 0; i < kWorkers; ++i) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(
        std::max(until - WorkerProcesses::Clock::now(), WorkerProcesses::Clock::duration{}));
    status[static_cast<size_t>(i)] = job.wait_exit(i, left);
    ASSERT_TRUE(status[static_cast<size_t>(i)].has_value())
        << "worker " << i << " hung; its log:\n" << job.log(i);
  }

  ASSERT_TRUE(WIFSIGNALED(*status[2])) << job.log(2);
  EXPECT_EQ(WTERMSIG(*status[2]), SIGKILL);
  for (int i = 0; i < 2; ++i) {
    const std::string log = job.log(i);
    ASSERT_TRUE(WIFEXITED(*status[static_cast<size_t>(i)])) << log;
    EXPECT_EQ(WEXITSTATUS(*status[static_cast<size_t>(i)]), 3) << log;
    EXPECT_THAT(log, HasSubstr("PEER_FAILED")) << log;
    EXPECT_THAT(log, HasSubstr("worker 2 (rank 2 of 3)")) << log;
    if (i == 0) std::cout << "worker 0 said: " << log;
  }
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
