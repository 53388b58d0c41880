// Departures are for dead ranks only. A connection that drops without a
// goodbye while its rank lives on (a client that sent half a frame and
// closed, or anyone holding the job token connecting in a rank's name) must
// not make the health check report that rank: only its last connection
// counts, and a rank that connects again is no longer departed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/cluster/health_keys.h"
#include "core/cluster/health_monitor.h"
#include "core/cluster/tcp_store_type.h"
#include "tests/stores/half_frame_client.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using testing::first_failure;
using testing::HalfFrameClient;
using testing::SdkStoreAdapter;
using testing::send_half_a_frame_and_drop;
using testing::worker_name;

// The half frame's set claims this much (1 MiB).
constexpr size_t kHalfSetBytes = size_t{1} << 20;

// Waits (bounded) until the server's departed set is `expected`.
bool departed_becomes(const tcp_store::TcpStoreServer& server, const std::set<int>& expected) {
  const Deadline until = deadline_after(5s);
  while (Clock::now() < until) {
    if (server.departed() == expected) return true;
    std::this_thread::sleep_for(5ms);
  }
  return server.departed() == expected;
}

// Waits (bounded) until the store's usage is above `level` (`above`) or
// below it.
bool usage_crosses(const tcp_store::TcpStoreServer& server, uint64_t level, bool above) {
  const Deadline until = deadline_after(5s);
  while (Clock::now() < until) {
    if ((server.usage().bytes > level) == above) return true;
    std::this_thread::sleep_for(2ms);
  }
  return false;
}

TEST(TcpStoreDepartureTest, HalfAFrameThenCloseDoesNotMakeALiveRankDeparted) {
  auto host = TcpStore::open("127.0.0.1:0", 0, 2, deadline_after(5s), TcpStoreOptions{});
  const std::string address = host->address();
  const tcp_store::TcpStoreServer& server = *host->server();
  SdkStoreAdapter rank0(std::move(host));
  SdkStoreAdapter rank1(TcpStore::open(address, 1, 2, deadline_after(5s), TcpStoreOptions{}));
  HealthMonitor monitor0(rank0, 0, 2, 100ms, worker_name);
  HealthMonitor monitor1(rank1, 1, 2, 100ms, worker_name);
  ASSERT_TRUE(monitor0.check().ok());

  // The half frame's set claims 1 MiB, counted from its head until the
  // connection goes: usage rises once the server holds it, and falls back
  // once the server has closed it (heartbeats move it by a few bytes).
  const uint64_t level = server.usage().bytes + kHalfSetBytes / 2;
  auto half = HalfFrameClient::connect(address, 1, 2, "");
  ASSERT_TRUE(half.ok()) << half.status();
  const Status sent = half->send_half_a_set("half/frame", kHalfSetBytes);
  ASSERT_TRUE(sent.ok()) << sent;
  ASSERT_TRUE(usage_crosses(server, level, true)) << "the server never admitted the frame";
  half->drop();
  ASSERT_TRUE(usage_crosses(server, level, false)) << "the server never saw the drop";
  // The server's thread is in or past closing it; a request answered after
  // that one has finished.
  ASSERT_TRUE(rank1.set("after", "the drop").ok());
  EXPECT_TRUE(server.departed().empty()) << "rank 1 lives on with its own connections";
  const auto failure = first_failure(monitor0, 1000ms);
  EXPECT_FALSE(failure.has_value()) << failure->to_string();
  auto health = rank0.add(health::key(1), 0);
  ASSERT_TRUE(health.ok());
  EXPECT_FALSE(health::decode(*health).departed);
}

TEST(TcpStoreDepartureTest, ARankThatConnectsAgainIsNoLongerDeparted) {
  auto host = TcpStore::open("127.0.0.1:0", 0, 2, deadline_after(5s), TcpStoreOptions{});
  const std::string address = host->address();
  const tcp_store::TcpStoreServer& server = *host->server();
  SdkStoreAdapter rank0(std::move(host));
  // Rank 1's only connection drops before its process opened the store:
  // as far as the server can tell, rank 1 died.
  const Status half = send_half_a_frame_and_drop(address, 1, 2, "");
  ASSERT_TRUE(half.ok()) << half;
  ASSERT_TRUE(departed_becomes(server, {1}));

  // Then rank 1 connects and beats: alive after all.
  SdkStoreAdapter rank1(TcpStore::open(address, 1, 2, deadline_after(5s), TcpStoreOptions{}));
  HealthMonitor monitor1(rank1, 1, 2, 100ms, worker_name);
  EXPECT_TRUE(departed_becomes(server, {})) << "a rank that connected again is not departed";
  HealthMonitor monitor0(rank0, 0, 2, 100ms, worker_name);
  const auto failure = first_failure(monitor0, 1000ms);
  EXPECT_FALSE(failure.has_value()) << failure->to_string();
}

}  // namespace
}  // namespace strata
