// Ranks in processes of their own, as in a job: rank 1 dies (SIGKILL) or
// stops (SIGSTOP) in the middle of an all_reduce. Rank 0's call fails with
// PEER_FAILED naming rank 1 within seconds when it died, with TIMED_OUT at
// its own deadline when it stopped; either way destroying the team
// afterwards returns promptly. Each rank is this test binary re-executed
// with GrpcRingPeerProcess.DISABLED_Rank, meeting through a FakeHost store
// shared as files in a temporary directory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "ring_harness.h"
#include "strata/sdk/error.h"

namespace strata::grpc_ring::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kLongCallCount = uint64_t{1} << 23;  // 32 MiB of f32 in 4 KiB chunks: a long call

int64_t ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// The body of one rank (run only when re-executed by the tests below):
// role "survivor" is rank 0 and writes how its call ended to DIR/outcome;
// "kill" and "stop" are rank 1, which post the call and then die or stop.
TEST(GrpcRingPeerProcess, DISABLED_Rank) {
  const char* dir = std::getenv("STRATA_TEST_RING_DIR");
  const char* role_env = std::getenv("STRATA_TEST_RING_ROLE");
  const char* plane_env = std::getenv("STRATA_TEST_RING_PLANE");
  ASSERT_TRUE(dir != nullptr && role_env != nullptr && plane_env != nullptr);
  const std::string role = role_env;
  const DataPlaneKind plane = std::string(plane_env) == "grpc" ? DataPlaneKind::kGrpc
                                                                 : DataPlaneKind::kTcp;
  ::setenv("STRATA_JOB_TOKEN", kToken, 1);
  FakeHost host;
  host.share_through(dir);
  const int rank = role == "survivor" ? 0 : 1;
  auto algo = make_all_reduce_ring(test_options(plane));
  const strata_team_desc_t desc = team_desc(host.store(), 5, rank, 2, 20s);
  auto state = algo->create_team(desc);
  std::vector<float> in(kLongCallCount, 1.0f), out(kLongCallCount, 0.0f);
  if (rank == 1) {
    const F32Call abi(desc, STRATA_ALL_REDUCE, in, out, kLongCallCount);
    auto op = algo->create(state.get(), abi.call);
    // post() sends the first chunks (of the 8192 the call needs); rank 0
    // receives them and waits for the rest.
    op->post();
    std::this_thread::sleep_for(20ms);
    ::raise(role == "kill" ? SIGKILL : SIGSTOP);
    std::this_thread::sleep_for(60s);  // stopped: the parent kills it
    return;
  }
  const auto start = Clock::now();
  const Outcome o = run_call(*algo, state.get(), desc, STRATA_ALL_REDUCE, in, out, kLongCallCount, 0,
                             role == "survivor" && std::getenv("STRATA_TEST_RING_STOPPED")
                                 ? 2000ms
                                 : 20000ms);
  const int64_t failed_ms = ms_since(start);
  const auto destroy = Clock::now();
  state.reset();
  const int64_t destroy_ms = ms_since(destroy);
  std::ofstream(std::string(dir) + "/outcome") << o.code << "\n"
                                               << failed_ms << "\n"
                                               << destroy_ms << "\n"
                                               << o.message << "\n";
}

class GrpcRingPeerDeath : public ::testing::TestWithParam<DataPlaneKind> {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "grpc_ring_peer_" + std::to_string(::getpid()) + "_" +
           plane_name(GetParam());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    for (const pid_t pid : {survivor_, victim_}) {
      if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
    std::filesystem::remove_all(dir_);
  }

  pid_t spawn(const std::string& role, bool stopped) {
    // The environment is built before fork: only exec follows it.
    std::vector<std::string> env = {"STRATA_TEST_RING_DIR=" + dir_,
                                    "STRATA_TEST_RING_ROLE=" + role,
                                    "STRATA_TEST_RING_PLANE=" + plane_name(GetParam()),
                                    "STRATA_LOG_LEVEL=warning"};
    if (stopped) env.emplace_back("STRATA_TEST_RING_STOPPED=1");
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    char filter[] = "--gtest_filter=GrpcRingPeerProcess.DISABLED_Rank";
    char disabled[] = "--gtest_also_run_disabled_tests";
    char exe[] = "/proc/self/exe";
    char* argv[] = {exe, filter, disabled, nullptr};
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execve("/proc/self/exe", argv, envp.data());
      ::_exit(127);
    }
    return pid;
  }

  // The child's wait status, or -1 if it had not ended by `bound`.
  static int reap(pid_t pid, std::chrono::milliseconds bound) {
    const auto until = Clock::now() + bound;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (Clock::now() > until) return -1;
      std::this_thread::sleep_for(10ms);
    }
    return status;
  }

  struct Result {
    int code = -1;
    int64_t failed_ms = -1, destroy_ms = -1;
    std::string message;
  };
  Result outcome() const {
    std::ifstream in(dir_ + "/outcome");
    Result r;
    in >> r.code >> r.failed_ms >> r.destroy_ms;
    std::getline(in >> std::ws, r.message);
    return r;
  }

  std::string dir_;
  pid_t survivor_ = -1, victim_ = -1;
};

TEST_P(GrpcRingPeerDeath, AKilledPeerFailsTheCallNamingItWithinSeconds) {
  survivor_ = spawn("survivor", false);
  victim_ = spawn("kill", false);
  const int victim = reap(victim_, 30s);
  ASSERT_TRUE(victim != -1 && WIFSIGNALED(victim) && WTERMSIG(victim) == SIGKILL)
      << "rank 1 did not die by SIGKILL mid-call (status " << victim << ")";
  const int survivor = reap(survivor_, 30s);
  ASSERT_TRUE(survivor != -1 && WIFEXITED(survivor) && WEXITSTATUS(survivor) == 0)
      << "status " << survivor;
  const Result r = outcome();
  EXPECT_EQ(r.code, STRATA_PEER_FAILED) << r.message;
  EXPECT_THAT(r.message, HasSubstr("rank 1"));
  EXPECT_LT(r.failed_ms, 5000) << r.message;
  EXPECT_LT(r.destroy_ms, 3000);
}

TEST_P(GrpcRingPeerDeath, AStoppedPeerTimesOutAtTheDeadlineAndNothingHangs) {
  survivor_ = spawn("survivor", true);
  victim_ = spawn("stop", false);
  const int survivor = reap(survivor_, 30s);
  ASSERT_TRUE(survivor != -1 && WIFEXITED(survivor) && WEXITSTATUS(survivor) == 0)
      << "status " << survivor;
  const Result r = outcome();
  EXPECT_EQ(r.code, STRATA_TIMED_OUT) << r.message;
  EXPECT_GE(r.failed_ms, 1900);
  EXPECT_LT(r.failed_ms, 5000);
  EXPECT_LT(r.destroy_ms, 3000);
}

INSTANTIATE_TEST_SUITE_P(Planes, GrpcRingPeerDeath,
                         ::testing::Values(DataPlaneKind::kTcp, DataPlaneKind::kGrpc),
                         plane_test_name);

}  // namespace
}  // namespace strata::grpc_ring::testing
