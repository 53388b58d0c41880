// HealthMonitor: silent peers are named after kMissedBeats intervals, live
// and cleanly finished ones never are, a peer process killed with SIGKILL
// is named as departed as soon as the TCP store sees its connection drop,
// and the process hosting the TCP store (the chief), stopped or killed, is
// named within the silence limit rather than after the store's own 10 s
// request timeout.
#include "core/cluster/health_monitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/cluster/tcp_store_type.h"
#include "core/collective/progress.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using testing::first_failure;
using testing::worker_name;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Peer;
using testing::TempDir;

// A store in front of another that can stop answering (each request then
// waits until thawed, 5 s at most, as on a stopped host) or fail.
class FaultyStore final : public Store {
 public:
  explicit FaultyStore(Store& inner) : inner_(inner) {}
  ~FaultyStore() override { thaw(); }

  void freeze() {
    std::lock_guard lock(mu_);
    frozen_ = true;
  }
  void thaw() {
    {
      std::lock_guard lock(mu_);
      frozen_ = false;
    }
    thawed_.notify_all();
  }
  void fail_with(Status s) {
    std::lock_guard lock(mu_);
    failure_ = std::move(s);
  }

  Status set(std::string_view key, std::string_view value) override {
    STRATA_RETURN_IF_ERROR(fault());
    return inner_.set(key, value);
  }
  StatusOr<std::string> get(std::string_view key, Deadline deadline) override {
    STRATA_RETURN_IF_ERROR(fault());
    return inner_.get(key, deadline);
  }
  StatusOr<int64_t> add(std::string_view key, int64_t delta) override {
    STRATA_RETURN_IF_ERROR(fault());
    return inner_.add(key, delta);
  }

 private:
  Status fault() {
    std::unique_lock lock(mu_);
    thawed_.wait_for(lock, 5s, [&] { return !frozen_; });
    return failure_;
  }

  Store& inner_;
  std::mutex mu_;
  std::condition_variable thawed_;
  bool frozen_ = false;
  Status failure_;
};

class HealthMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = testing::make_runtime();
    ASSERT_NE(rt_, nullptr);
    auto store = testing::open_private_memory_store(*rt_, "health_test");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }
  std::shared_ptr<Runtime> rt_;
  std::unique_ptr<Store> store_;
};

TEST_F(HealthMonitorTest, ASilentPeerIsNamedAfterThreeIntervals) {
  const auto start = Clock::now();
  HealthMonitor rank0(*store_, 0, 3, 100ms, worker_name);
  HealthMonitor rank1(*store_, 1, 3, 100ms, worker_name);  // alive; rank 2 never starts
  const auto failure = first_failure(rank0, 10000ms);
  ASSERT_TRUE(failure.has_value()) << "rank 2 was never reported";
  EXPECT_GE(Clock::now() - start, rank0.silence_limit());
  EXPECT_EQ(failure->code(), Code::kPeerFailed);
  EXPECT_THAT(failure->message(), HasSubstr("worker 2 (rank 2 of 3) has not been heard from for"));
}

TEST_F(HealthMonitorTest, LivePeersAndPeersThatLeftAreNotReported) {
  HealthMonitor rank0(*store_, 0, 2, 200ms, worker_name);
  {
    HealthMonitor rank1(*store_, 1, 2, 200ms, worker_name);
    // Longer than the silence limit: a beating peer stays healthy throughout.
    const auto failure = first_failure(rank0, 1000ms);
    EXPECT_FALSE(failure.has_value()) << failure->to_string();
    ASSERT_TRUE(rank1.leave().ok());
  }
  const auto after_leave = first_failure(rank0, 1000ms);
  EXPECT_FALSE(after_leave.has_value()) << after_leave->to_string();
}

TEST_F(HealthMonitorTest, APeerThatStopsWithoutLeavingIsReported) {
  HealthMonitor rank0(*store_, 0, 2, 50ms);
  { HealthMonitor rank1(*store_, 1, 2, 50ms); }  // gone without leave()
  const auto failure = first_failure(rank0, 10000ms);
  ASSERT_TRUE(failure.has_value());
  EXPECT_THAT(failure->message(), HasSubstr("rank 1 of 2 has not been heard from for"));
}

TEST_F(HealthMonitorTest, DestructorReturnsPromptlyWithALongInterval) {
  const auto start = Clock::now();
  { HealthMonitor m(*store_, 0, 2, 60s); }
  EXPECT_LT(Clock::now() - start, 5s);
}

TEST_F(HealthMonitorTest, RankOutsideTheWorldIsAnError) {
  HealthMonitor m(*store_, 5, 2, 100ms);
  EXPECT_EQ(m.check().code(), Code::kInvalidArgument);
}

// After leave() the monitor's thread no longer reads on its own, but
// check() still goes through it: a store that stopped answering holds it up
// for the silence limit, not for the store's own timeout once per peer.
TEST_F(HealthMonitorTest, ACheckAfterLeaveIsBoundedByTheSilenceLimit) {
  FaultyStore store(*store_);
  HealthMonitor rank0(store, 0, 3, 100ms, worker_name);
  HealthMonitor rank1(*store_, 1, 3, 100ms, worker_name);
  HealthMonitor rank2(*store_, 2, 3, 100ms, worker_name);
  ASSERT_TRUE(rank0.check().ok());
  ASSERT_TRUE(rank0.leave().ok());
  ASSERT_TRUE(rank0.check().ok()) << "live peers after leave()";
  store.freeze();
  const auto start = Clock::now();
  const Status s = rank0.check();
  const auto took = Clock::now() - start;
  store.thaw();
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_THAT(s.message(), HasSubstr("the job store stopped answering: no reply for")) << s;
  EXPECT_LT(took, rank0.silence_limit() + 2s) << s;
}

// What a collective reports when the health check has a verdict: the words
// "health check" once (core/collective/progress.cc adds them).
TEST_F(HealthMonitorTest, ACollectiveErrorNamesTheHealthCheckOnce) {
  FaultyStore store(*store_);
  HealthMonitor rank0(store, 0, 2, 100ms, worker_name);
  HealthMonitor rank1(*store_, 1, 2, 100ms, worker_name);
  ASSERT_TRUE(rank0.check().ok());
  const auto health = [&] { return rank0.check(); };

  store.freeze();
  StartedCall lost{UnavailableError("the plugin lost the store"), false, std::nullopt};
  Status s = finish_call(lost, deadline_after(10s), 10s, health);
  store.thaw();
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_THAT(s.message(), HasSubstr("health check: the job store stopped answering")) << s;
  EXPECT_THAT(s.message(), HasSubstr("; the call: the plugin lost the store")) << s;
  EXPECT_THAT(s.message(), Not(HasSubstr("health check: health check"))) << s;

  // Once the monitor hears the store again, it fails instead.
  const Deadline until = deadline_after(5s);
  while (!rank0.check().ok() && Clock::now() < until) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(rank0.check().ok());
  store.fail_with(UnavailableError("store 'memory' is gone"));
  StartedCall again{UnavailableError("the plugin lost the store"), false, std::nullopt};
  s = finish_call(again, deadline_after(10s), 10s, health);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_THAT(s.message(),
              HasSubstr("health check: cannot read the job store: store 'memory' is gone")) << s;
  EXPECT_THAT(s.message(), Not(HasSubstr("health check: health check"))) << s;
}

TEST(HealthMonitorTcpTest, AKilledPeerIsNamedAsDepartedAtOnce) {
  TempDir dir;
  auto host = TcpStore::open("127.0.0.1:0", 0, 2, deadline_after(5s), TcpStoreOptions{});
  const std::string address = host->address();
  const tcp_store::TcpStoreServer& server = *host->server();
  testing::SdkStoreAdapter store(std::move(host));
  Peer peer({"heartbeat", "tcp", address, "1", "2", "200"}, dir.path() / "peer.log");
  auto ready = store.get("ready/1", deadline_after(20s));
  ASSERT_TRUE(ready.ok()) << ready.status() << "\n" << peer.output();

  HealthMonitor monitor(store, 0, 2, 200ms, worker_name);
  EXPECT_TRUE(monitor.check().ok());
  peer.kill_now();
  const auto killed = Clock::now();
  const auto failure = first_failure(monitor, 5000ms);
  ASSERT_TRUE(failure.has_value()) << "the killed peer was never reported";
  EXPECT_EQ(failure->code(), Code::kPeerFailed);
  EXPECT_THAT(failure->message(),
              HasSubstr("worker 1 (rank 1 of 2) departed: its store connection closed"));
  EXPECT_LT(Clock::now() - killed, 3s);
  EXPECT_EQ(server.departed(), std::set<int>{1});
}

TEST(HealthMonitorTcpTest, APeerThatLeftAndExitedIsNotReported) {
  TempDir dir;
  auto host = TcpStore::open("127.0.0.1:0", 0, 2, deadline_after(5s), TcpStoreOptions{});
  const std::string address = host->address();
  testing::SdkStoreAdapter store(std::move(host));
  Peer peer({"heartbeat", "tcp", address, "1", "2", "100"}, dir.path() / "peer.log");
  ASSERT_TRUE(store.get("ready/1", deadline_after(20s)).ok()) << peer.output();
  HealthMonitor monitor(store, 0, 2, 100ms, worker_name);
  ASSERT_TRUE(store.set("release", "1").ok());
  EXPECT_EQ(peer.wait(), 0) << peer.output();
  const auto failure = first_failure(monitor, 1000ms);
  EXPECT_FALSE(failure.has_value()) << failure->to_string();
}

// The address `strata_store_peer host` printed, once it has.
std::string hosted_address(const Peer& host) {
  const Deadline until = deadline_after(20s);
  while (Clock::now() < until) {
    const std::string out = host.output();
    const size_t at = out.find("address=");
    const size_t end = at == std::string::npos ? at : out.find('\n', at);
    if (end != std::string::npos) return out.substr(at + 8, end - at - 8);
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "the host never printed its address:\n" << host.output();
  return "";
}

// Rank 1 of a job whose store is hosted by another process (rank 0, the
// chief), with that process stopped or killed by `signal`.
void expect_store_host_named(int signal, const std::string& what) {
  TempDir dir;
  Peer host({"host", "tcp", "127.0.0.1:0", "0", "2", "100"}, dir.path() / "host.log");
  const std::string address = hosted_address(host);
  ASSERT_FALSE(address.empty());
  auto rank1 = TcpStore::open(address, 1, 2, deadline_after(10s), TcpStoreOptions{});
  testing::SdkStoreAdapter store(std::move(rank1));
  ASSERT_TRUE(store.get("ready/0", deadline_after(20s)).ok()) << host.output();
  HealthMonitor monitor(store, 1, 2, 100ms, worker_name, StoreHost{0, address});
  const auto healthy = first_failure(monitor, 500ms);
  ASSERT_FALSE(healthy.has_value()) << healthy->to_string();

  ::kill(host.pid(), signal);
  const auto hit = Clock::now();
  const auto failure = first_failure(monitor, 15000ms);
  const auto took = Clock::now() - hit;
  ::kill(host.pid(), SIGKILL);  // a stopped host too, so the monitor's request ends
  ASSERT_TRUE(failure.has_value()) << "the store's host was never reported";
  EXPECT_EQ(failure->code(), Code::kPeerFailed) << failure->to_string();
  EXPECT_THAT(failure->message(),
              HasSubstr("worker 0 (rank 0 of 2), the chief, which hosts the job store at " +
                        address + ", " + what))
      << failure->to_string();
  // Within the silence limit (0.3 s) and a margin for a loaded machine;
  // the store's own request timeout (10 s) must play no part.
  EXPECT_LT(took, monitor.silence_limit() + 4s) << failure->to_string();
}

TEST(HealthMonitorTcpTest, AStoppedStoreHostIsNamedWithinTheSilenceLimit) {
  expect_store_host_named(SIGSTOP, "stopped answering: no reply for");
}

TEST(HealthMonitorTcpTest, AKilledStoreHostIsNamed) {
  expect_store_host_named(SIGKILL, "is gone: ");
}

}  // namespace
}  // namespace strata
