// The chief (worker 0) hosts the job's TCP store. Stopped (SIGSTOP) or
// killed (SIGKILL) in the middle of a stream of all-reduces, it must be
// named by the survivors, within the health check's silence limit (three
// 200 ms heartbeats in all_reduce_stream) and a margin for a loaded
// machine: not after the store's own 10 s request timeout, and not as a
// store that "cannot be read". A connection made in a live worker's name
// that sends half a frame and drops must not end the job.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <iostream>
#include <string>
#include <vector>

#include "tests/launch/worker_processes.h"
#include "tests/stores/half_frame_client.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::WorkerProcesses;

constexpr int kWorkers = 3;
constexpr char kToken[] = "chief-failure-test";
constexpr auto kSilenceLimit = 600ms;  // all_reduce_stream: heartbeat 200 ms, 3 missed
constexpr auto kMargin = 5s;
// What naming the chief looked like before: the store's request timeout, twice.
constexpr auto kOldDetection = 10s;

std::string chief_named(const WorkerProcesses& job) {
  return "worker 0 (rank 0 of 3), the chief, which hosts the job store at " + job.address(0);
}

double seconds(WorkerProcesses::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Both survivors report a failure soon after `hit`, then exit 3 with a
// PEER_FAILED naming the chief and `what` happened to it.
void expect_survivors_name_the_chief(WorkerProcesses& job, WorkerProcesses::Clock::time_point hit,
                                     const std::string& what, bool kill_chief_after) {
  std::vector<double> took;
  for (int i = 1; i < kWorkers; ++i) {
    const auto seen = job.wait_for_log(i, "failed at call", 30s);
    ASSERT_TRUE(seen.has_value()) << "worker " << i << " never failed:\n" << job.log(i);
    took.push_back(seconds(*seen - hit));
    EXPECT_LT(*seen - hit, kSilenceLimit + kMargin) << job.log(i);
    EXPECT_LT(*seen - hit, kOldDetection) << job.log(i);
  }
  if (kill_chief_after) job.kill(0, SIGKILL);
  for (int i = 1; i < kWorkers; ++i) {
    const auto status = job.wait_exit(i, 30s);
    const std::string log = job.log(i);
    ASSERT_TRUE(status.has_value()) << "worker " << i << " did not exit:\n" << log;
    ASSERT_TRUE(WIFEXITED(*status)) << log;
    EXPECT_EQ(WEXITSTATUS(*status), 3) << log;
    EXPECT_THAT(log, HasSubstr("PEER_FAILED")) << log;
    EXPECT_THAT(log, HasSubstr(chief_named(job) + ", " + what)) << log;
  }
  std::cout << "survivors reported after " << took[0] << " s and " << took[1] << " s\n"
            << "worker 1 said: " << job.log(1);
}

class ChiefStoppedTest : public ::testing::TestWithParam<std::string> {};
class ChiefKilledTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ChiefStoppedTest, SurvivorsNameTheChiefWithinTheHeartbeatTimeout) {
  WorkerProcesses job(STRATA_STREAM_PROGRAM, kWorkers,
                      {"--plugin", GetParam(), "--iterations", "100000", "--stop-rank", "0",
                       "--stop-after", "50"},
                      kToken);
  ASSERT_TRUE(job.started());
  const auto stopped = job.wait_stopped(0, 60s);
  ASSERT_TRUE(stopped.has_value()) << "worker 0 never stopped:\n" << job.log(0);
  expect_survivors_name_the_chief(job, *stopped, "stopped answering", true);
}

TEST_P(ChiefKilledTest, SurvivorsNameTheChief) {
  WorkerProcesses job(STRATA_STREAM_PROGRAM, kWorkers,
                      {"--plugin", GetParam(), "--iterations", "100000", "--die-rank", "0",
                       "--die-after", "50"},
                      kToken);
  ASSERT_TRUE(job.started());
  const auto status = job.wait_exit(0, 60s);
  const auto killed = WorkerProcesses::Clock::now();
  ASSERT_TRUE(status.has_value()) << job.log(0);
  ASSERT_TRUE(WIFSIGNALED(*status)) << job.log(0);
  expect_survivors_name_the_chief(job, killed, "is gone", false);
}

TEST(HalfFrameClientTest, AConnectionDroppedInALiveWorkersNameDoesNotEndTheJob) {
  // Worker 0 pauses now and then, so the others wait in their all-reduces
  // long enough for the health check to run (every 200 ms).
  WorkerProcesses job(STRATA_STREAM_PROGRAM, kWorkers,
                      {"--plugin", STRATA_STORE_EXCHANGE_PLUGIN, "--iterations", "200",
                       "--slow-rank", "0", "--slow-every", "20", "--slow-ms", "400"},
                      kToken);
  ASSERT_TRUE(job.started());
  ASSERT_TRUE(job.wait_for_log(1, "worker 1 joined", 60s).has_value()) << job.log(1);
  // Half of a set's frame in worker 1's name, then the connection drops.
  const Status half = testing::send_half_a_frame_and_drop(job.address(0), 1, kWorkers, kToken);
  ASSERT_TRUE(half.ok()) << half;
  for (int i = 0; i < kWorkers; ++i) {
    const auto status = job.wait_exit(i, 60s);
    const std::string log = job.log(i);
    ASSERT_TRUE(status.has_value()) << "worker " << i << " did not finish:\n" << log;
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << log;
    EXPECT_THAT(log, HasSubstr("200 all-reduces done")) << log;
  }
}

std::vector<std::string> stoppable_plugins() {
  // store_exchange carries its data through the stopped chief's store, so
  // its own store requests (10 s each) would decide; a transport of its own
  // leaves the verdict to the health check.
  std::vector<std::string> p;
#ifdef STRATA_GRPC_RING_PLUGIN
  p.push_back(STRATA_GRPC_RING_PLUGIN);
#endif
  return p;
}

std::vector<std::string> all_plugins() {
  std::vector<std::string> p = {STRATA_STORE_EXCHANGE_PLUGIN};
  for (auto& s : stoppable_plugins()) p.push_back(s);
  return p;
}

std::string plugin_name(const ::testing::TestParamInfo<std::string>& p) {
  return p.param.find("grpc_ring") != std::string::npos ? "grpc_ring" : "store_exchange";
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ChiefStoppedTest);
INSTANTIATE_TEST_SUITE_P(Plugins, ChiefStoppedTest, ::testing::ValuesIn(stoppable_plugins()),
                         plugin_name);
INSTANTIATE_TEST_SUITE_P(Plugins, ChiefKilledTest, ::testing::ValuesIn(all_plugins()),
                         plugin_name);

}  // namespace
}  // namespace strata
