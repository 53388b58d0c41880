// The "tcp" store beyond the shared semantics: rank 0 hosting on a free
// port for client processes, strangers and wrong tokens refused while the
// job goes on, an address nobody listens on, and the host lingering (up to
// its bound) for peers to say goodbye.
#include "core/cluster/tcp_store_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/tcp_store_wire.h"
#include "core/common/logging.h"
#include "strata/sdk/job_token.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::Peer;
using testing::SdkStoreAdapter;
using testing::TempDir;

TcpStoreOptions options(std::string token = "", std::chrono::nanoseconds linger = 5s) {
  TcpStoreOptions o;
  o.token = std::move(token);
  o.linger = linger;
  return o;
}

std::unique_ptr<TcpStore> host(int world, const TcpStoreOptions& o = options()) {
  return TcpStore::open("127.0.0.1:0", 0, world, deadline_after(5s), o);
}

// Opens rank `rank`, turning a throw into a status.
StatusOr<std::unique_ptr<TcpStore>> join(const std::string& address, int rank, int world,
                                         const TcpStoreOptions& o = options(),
                                         std::chrono::milliseconds timeout = 5000ms) {
  try {
    return TcpStore::open(address, rank, world, deadline_after(timeout), o);
  } catch (const sdk::Error& e) {
    return Status(static_cast<Code>(e.code()), e.what());
  }
}

// Everything a raw connection receives until the server closes it.
std::string read_until_closed(const tcp_store::Socket& s) {
  std::string got;
  const Deadline until = deadline_after(10s);
  while (tcp_store::receive_some(s, got, until).ok()) {
  }
  return got;
}

TEST(TcpStoreTest, RankZeroHostsOnAFreePortForClientProcesses) {
  constexpr int kPeers = 4;
  constexpr int kAdds = 100;
  TempDir dir;
  auto rank0 = host(kPeers + 1);
  EXPECT_THAT(rank0->address(), ::testing::StartsWith("127.0.0.1:"));
  EXPECT_NE(rank0->server()->port(), 0);
  std::vector<std::unique_ptr<Peer>> peers;
  for (int r = 1; r <= kPeers; ++r) {
    peers.push_back(std::make_unique<Peer>(
        std::vector<std::string>{"count", "tcp", rank0->address(), std::to_string(r),
                                 std::to_string(kPeers + 1), std::to_string(kAdds)},
        dir.path() / ("peer" + std::to_string(r) + ".log")));
  }
  for (auto& p : peers) EXPECT_EQ(p->wait(), 0) << p->output();
  EXPECT_EQ(rank0->add("counter", 0), kPeers * kAdds);
  for (int r = 1; r <= kPeers; ++r) {
    EXPECT_EQ(rank0->get("done/" + std::to_string(r), to_ns(deadline_after(1s))), "ok");
  }
  EXPECT_TRUE(rank0->server()->departed().empty()) << "peers that said goodbye are not departed";
}

TEST(TcpStoreTest, WrongTokenIsRefusedAtOnceLoggedAndHarmless) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  logger().sinks().push_back(sink);  // before the server thread starts
  std::string address;
  {
    auto rank0 = host(3, options("s3cret"));
    address = rank0->address();
    auto good = join(address, 1, 3, options("s3cret"));
    ASSERT_TRUE(good.ok()) << good.status();

    const auto start = Clock::now();
    auto bad = join(address, 2, 3, options("guess"), 10000ms);
    EXPECT_LT(Clock::now() - start, 3s) << "a refusal must not be retried until the deadline";
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), Code::kPermissionDenied);
    EXPECT_THAT(bad.status().message(), HasSubstr("wrong job token"));
    EXPECT_THAT(bad.status().message(), HasSubstr(address));

    (*good)->set("still", "fine");
    EXPECT_EQ(rank0->get("still", to_ns(deadline_after(5s))), "fine");
  }
  // The server thread has been joined: the sink can go.
  auto& sinks = logger().sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
  const auto lines = sink->last_formatted();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("refused connection from 127.0.0.1") != std::string::npos &&
           l.find("wrong job token") != std::string::npos;
  })) << "the refusal is logged with the stranger's address";
}

TEST(TcpStoreTest, StrangersAreRefusedWhileTheJobGoesOn) {
  auto rank0 = host(2);
  auto rank1 = join(rank0->address(), 1, 2);
  ASSERT_TRUE(rank1.ok()) << rank1.status();
  auto where = tcp_store::parse_host_port(rank0->address());
  ASSERT_TRUE(where.ok());

  // One says nothing at all and keeps its connection open.
  auto silent = tcp_store::connect_once(*where, deadline_after(5s));
  ASSERT_TRUE(silent.ok()) << silent.status();

  // One speaks HTTP: refused with an error frame, then closed.
  auto http = tcp_store::connect_once(*where, deadline_after(5s));
  ASSERT_TRUE(http.ok());
  ASSERT_TRUE(tcp_store::send_all(*http, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", deadline_after(5s)).ok());
  EXPECT_THAT(read_until_closed(*http), HasSubstr("bad magic"));

  // One says a proper hello, then sends a frame far over the size limit.
  auto big = tcp_store::connect_once(*where, deadline_after(5s));
  ASSERT_TRUE(big.ok());
  const std::string hello = tcp_store::encode_hello({1, 2, ""});
  ASSERT_TRUE(tcp_store::send_all(*big, hello + std::string("\xf0\xff\xff\x7f\x01", 5),
                                  deadline_after(5s)).ok());
  EXPECT_THAT(read_until_closed(*big), HasSubstr("limit"));

  // Meanwhile a parked get is answered when the other rank sets its key.
  std::thread setter([&] { rank0->set("key", "value"); });
  EXPECT_EQ((*rank1)->get("key", to_ns(deadline_after(10s))), "value");
  setter.join();
  EXPECT_TRUE(rank0->server()->departed().empty()) << "a dropped stranger is not a departed rank";
}

TEST(TcpStoreTest, WrongWorldOrRankIsRefused) {
  auto rank0 = host(2);
  auto world = join(rank0->address(), 1, 3);
  EXPECT_EQ(world.status().code(), Code::kFailedPrecondition);
  EXPECT_THAT(world.status().message(), HasSubstr("expects a world of 3 ranks, the store serves 2"));
  auto where = tcp_store::parse_host_port(rank0->address());
  auto raw = tcp_store::connect_once(*where, deadline_after(5s));
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(tcp_store::send_all(*raw, tcp_store::encode_hello({7, 2, ""}), deadline_after(5s)).ok());
  EXPECT_THAT(read_until_closed(*raw), HasSubstr("rank 7 is not in a world of 2"));
}

TEST(TcpStoreTest, NobodyListeningTimesOutNamingTheAddress) {
  auto where = tcp_store::HostPort{"127.0.0.1", 0};
  const tcp_store::Socket holder = testing::reserve_port(&where.port);
  const auto start = Clock::now();
  auto s = join(where.text(), 1, 2, options(), 400ms);
  const auto waited = Clock::now() - start;
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kTimedOut);
  EXPECT_THAT(s.status().message(), HasSubstr("could not reach the TCP store at " + where.text() +
                                              " within 0.4 s"));
  EXPECT_THAT(s.status().message(), HasSubstr("Connection refused"));
  EXPECT_GE(waited, 380ms);
  EXPECT_LT(waited, 3s);
}

TEST(TcpStoreTest, HostThatCannotBindNamesTheAddress) {
  auto rank0 = host(2);
  auto second = join(rank0->address(), 0, 2);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("cannot host the TCP store at " + rank0->address()));
  EXPECT_EQ(join("127.0.0.1:0", 1, 2).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(join("no-port", 1, 2).status().code(), Code::kInvalidArgument);
}

TEST(TcpStoreTest, HostKeepsServingUntilPeersSayGoodbye) {
  auto rank0 = host(2, options("", 20s));
  auto rank1 = join(rank0->address(), 1, 2);
  ASSERT_TRUE(rank1.ok());
  rank0->set("final", "from rank 0");
  std::atomic<bool> closing{false};
  Clock::time_point rank0_gone;
  std::thread closer([&] {
    closing = true;
    rank0.reset();
    rank0_gone = Clock::now();
  });
  const Deadline bound = deadline_after(10s);
  while (!closing && Clock::now() < bound) std::this_thread::yield();
  EXPECT_EQ((*rank1)->get("final", to_ns(deadline_after(5s))), "from rank 0");
  (*rank1)->set("late", "still served");
  EXPECT_EQ((*rank1)->get("late", to_ns(deadline_after(5s))), "still served");
  const auto rank1_gone = Clock::now();
  rank1->reset();
  closer.join();
  EXPECT_GE(rank0_gone, rank1_gone) << "rank 0 stopped serving before rank 1 said goodbye";
  EXPECT_LT(rank0_gone - rank1_gone, 5s) << "rank 0 lingered after everyone left";
}

TEST(TcpStoreTest, LingerIsBoundedAndLaterRequestsFailFast) {
  auto rank0 = host(2, options("", 300ms));
  auto rank1 = join(rank0->address(), 1, 2);
  ASSERT_TRUE(rank1.ok());
  const std::string address = rank0->address();
  const auto start = Clock::now();
  rank0.reset();
  const auto lingered = Clock::now() - start;
  EXPECT_GE(lingered, 250ms);
  EXPECT_LT(lingered, 3s);
  SdkStoreAdapter orphan(std::move(*rank1));
  const auto before = Clock::now();
  const auto r = orphan.add("x", 1);
  EXPECT_LT(Clock::now() - before, 3s);
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr(address));
}

TEST(TcpStoreTest, OversizedValuesAndKeysAreRefused) {
  auto rank0 = host(1);
  SdkStoreAdapter s(std::move(rank0));
  EXPECT_EQ(s.set("k", std::string(tcp_store::kMaxValueBytes + 1, 'x')).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(s.set(std::string(tcp_store::kMaxKeyBytes + 1, 'k'), "v").code(),
            Code::kInvalidArgument);
  EXPECT_TRUE(s.set("k", "v").ok());
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// The token reaches the store from a private file as well as from the
// environment; a file others can read is refused before any connection.
TEST(TcpStoreOptionsTest, TokenComesFromAPrivateFileAndAnOpenOneIsRefused) {
  TempDir dir;
  const std::string path = dir.str() + "/job.token";
  std::string error;
  ASSERT_TRUE(sdk::write_job_token_file(path, "0123456789abcdef0123", &error)) << error;
  ::setenv(sdk::kJobTokenFileEnv, path.c_str(), 1);
  auto good = TcpStoreOptions::from_environment();
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->token, "0123456789abcdef0123");

  ::chmod(path.c_str(), 0644);
  auto open = TcpStoreOptions::from_environment();
  ::unsetenv(sdk::kJobTokenFileEnv);
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().code(), Code::kPermissionDenied);
  EXPECT_THAT(open.status().message(), HasSubstr("can be read by other users"));
  EXPECT_THAT(open.status().message(), HasSubstr(path));
}

}  // namespace
}  // namespace strata
