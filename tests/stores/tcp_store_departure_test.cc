// Departures are for dead ranks only. A connection that drops without a
// goodbye while its rank lives on (a client that sent half a frame and
// closed, or anyone holding the job token connecting in a rank's name) must
// not make the health check report that rank: only its last connection
// counts, and a rank that connects again is no longer departed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "core/cluster/health_keys.h"
#include "core/cluster/health_monitor.h"
#include "core/cluster/tcp_store_type.h"
#include "core/cluster/tcp_store_wire.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::SdkStoreAdapter;
using testing::worker_name;

// Connects in `rank`'s name, sends half of a set's frame, then closes.
void send_half_a_frame_and_close(const std::string& address, int rank, int world) {
  auto where = tcp_store::parse_host_port(address);
  ASSERT_TRUE(where.ok()) << where.status();
  auto raw = tcp_store::connect_once(*where, deadline_after(5s));
  ASSERT_TRUE(raw.ok()) << raw.status();
  ASSERT_TRUE(tcp_store::send_all(*raw, tcp_store::encode_hello({rank, world, ""}),
                                  deadline_after(5s)).ok());
  std::string hello_reply;
  ASSERT_TRUE(tcp_store::receive_some(*raw, hello_reply, deadline_after(5s)).ok());
  const std::string frame = tcp_store::encode_set("half/frame", std::string(1000, 'x'));
  ASSERT_TRUE(tcp_store::send_all(*raw, frame.substr(0, frame.size() / 2),
                                  deadline_after(5s)).ok());
  raw->reset();
}

// check() for `bound`; the first failure, if any.
std::optional<Status> first_failure(HealthMonitor& m, std::chrono::milliseconds bound) {
  const Deadline until = deadline_after(bound);
  while (Clock::now() < until) {
    Status s = m.check();
    if (!s.ok()) return s;
    std::this_thread::sleep_for(10ms);
  }
  return std::nullopt;
}

// Waits (bounded) until the server's departed set is `expected`.
bool departed_becomes(const tcp_store::TcpStoreServer& server, const std::set<int>& expected) {
  const Deadline until = deadline_after(5s);
  while (Clock::now() < until) {
    if (server.departed() == expected) return true;
    std::this_thread::sleep_for(5ms);
  }
  return server.departed() == expected;
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

  send_half_a_frame_and_close(address, 1, 2);
  // The server has seen the close once a request after it is answered.
  ASSERT_TRUE(rank1.set("after", "the drop").ok());
  std::this_thread::sleep_for(100ms);
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
  send_half_a_frame_and_close(address, 1, 2);
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
