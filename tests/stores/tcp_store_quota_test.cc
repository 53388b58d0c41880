// The TCP store bounds what a job can make it hold (cluster.store_max_*):
// keys, bytes, one value, and frames whose header claims more than the
// quota allows, which are refused before anything is buffered. Each refusal
// names the key, the rank, the limit and the config key that raises it;
// the store's own accounting (TcpStoreServer::usage) shows it did not grow.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <thread>

#include "core/cluster/tcp_store_type.h"
#include "core/cluster/tcp_store_wire.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::SdkStoreAdapter;

constexpr uint64_t kMiB = uint64_t{1} << 20;

// Rank 0 hosts with `limits`; rank 1 is the member that hits them.
struct Job {
  explicit Job(StoreLimits limits) {
    TcpStoreOptions o;
    o.limits = limits;
    auto h = TcpStore::open("127.0.0.1:0", 0, 2, deadline_after(5s), o);
    address = h->address();
    server = h->server();
    rank0 = std::make_unique<SdkStoreAdapter>(std::move(h));
    rank1 = std::make_unique<SdkStoreAdapter>(
        TcpStore::open(address, 1, 2, deadline_after(5s), TcpStoreOptions{}));
  }
  std::string address;
  const tcp_store::TcpStoreServer* server = nullptr;
  std::unique_ptr<SdkStoreAdapter> rank0;
  std::unique_ptr<SdkStoreAdapter> rank1;
};

// A raw connection that said hello as `rank` of 2.
tcp_store::Socket raw_member(const std::string& address, int rank) {
  auto where = tcp_store::parse_host_port(address);
  EXPECT_TRUE(where.ok());
  auto s = tcp_store::connect_once(*where, deadline_after(5s));
  EXPECT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(tcp_store::send_all(*s, tcp_store::encode_hello({rank, 2, ""}),
                                  deadline_after(5s)).ok());
  std::string reply;
  EXPECT_TRUE(tcp_store::receive_some(*s, reply, deadline_after(5s)).ok());
  return std::move(*s);
}

TEST(TcpStoreQuotaTest, KeysOverTheQuotaAreRefusedNamingKeyRankAndSetting) {
  StoreLimits limits;
  limits.max_keys = 10;
  Job job(limits);
  int stored = 0;
  Status refused;
  for (int i = 0; i < 20 && refused.ok(); ++i) {
    refused = job.rank1->set("k/" + std::to_string(i), "v");
    if (refused.ok()) ++stored;
  }
  EXPECT_EQ(stored, 10);
  EXPECT_EQ(refused.code(), Code::kOutOfMemory) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("rank 1 cannot create key 'k/10'"));
  EXPECT_THAT(refused.message(), HasSubstr("cluster.store_max_keys is 10"));
  EXPECT_THAT(refused.message(), HasSubstr("raise cluster.store_max_keys"));
  EXPECT_EQ(job.server->usage().keys, 10u);
  // Keys that exist may change; an add may not create one either.
  EXPECT_TRUE(job.rank1->set("k/3", "changed").ok());
  EXPECT_EQ(job.rank1->add("counter", 1).status().code(), Code::kOutOfMemory);
  EXPECT_EQ(job.server->usage().keys, 10u);
}

TEST(TcpStoreQuotaTest, BytesOverTheQuotaAreRefusedAndNotHeld) {
  StoreLimits limits;
  limits.max_bytes = 4 * kMiB;
  Job job(limits);
  const std::string mib(kMiB, 'x');
  int stored = 0;
  Status refused;
  for (int i = 0; i < 8 && refused.ok(); ++i) {
    refused = job.rank1->set("big/" + std::to_string(i), mib);
    if (refused.ok()) ++stored;
  }
  EXPECT_EQ(stored, 3);
  EXPECT_EQ(refused.code(), Code::kOutOfMemory) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("rank 1 cannot set 'big/3'"));
  EXPECT_THAT(refused.message(), HasSubstr("cluster.store_max_bytes is 4 MiB"));
  EXPECT_THAT(refused.message(), HasSubstr("raise cluster.store_max_bytes"));
  const tcp_store::StoreUsage held = job.server->usage();
  EXPECT_LE(held.bytes, limits.max_bytes);
  EXPECT_GE(held.bytes, 3 * kMiB);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(job.rank1->set("more/" + std::to_string(i), mib).code(), Code::kOutOfMemory);
  }
  EXPECT_EQ(job.server->usage().bytes, held.bytes) << "refused values are not held";
  // The connection stays usable, and overwriting frees what it replaces.
  EXPECT_TRUE(job.rank1->set("big/0", "small now").ok());
  EXPECT_TRUE(job.rank1->set("big/3", mib).ok());
  EXPECT_EQ(*job.rank0->get("big/0", deadline_after(1s)), "small now");
}

// The flood that grew a chief from 22 MB to 514 MB, cut short of 40 sets:
// at most 16 fit the default 256 MiB (how many exactly depends on the
// bookkeeping each costs), the rest are refused.
TEST(TcpStoreQuotaTest, TheDefaultQuotaBoundsAFloodOfSixteenMiBValues) {
  Job job(StoreLimits{});
  const std::string value(tcp_store::kMaxValueBytes - 4096, 'x');
  int refused = 0;
  for (int i = 0; i < 18; ++i) {
    Status s = job.rank1->set("flood/" + std::to_string(i), value);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), Code::kOutOfMemory) << s;
      ++refused;
    }
  }
  EXPECT_GE(refused, 2);
  EXPECT_LE(job.server->usage().bytes, StoreLimits{}.max_bytes);
}

// A member that pipelines requests and never reads a reply: the server
// stops reading it while a reply waits, so replies do not pile up in the
// server (what it sent meanwhile waits in the kernel's bounded buffers).
// Before, a million adds were all read, and their replies queued (9 MB) per
// connection, uncounted, up to 32 MiB each.
TEST(TcpStoreQuotaTest, ACallerThatNeverReadsItsRepliesHoldsOneAtMost) {
  Job job(StoreLimits{});
  tcp_store::Socket raw = raw_member(job.address, 1);
  // Small kernel buffers on our side, so the replies overflow them soon.
  const int small = 4096;
  ASSERT_EQ(::setsockopt(raw.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
  // Well over what the kernel's buffers hold: the server's send buffer
  // grows to tcp_wmem's maximum (4 MiB by default, some 300,000 replies).
  constexpr int kAdds = 1'000'000;
  std::string pipelined;
  for (int i = 0; i < kAdds; ++i) pipelined += tcp_store::encode_add("pipelined", 1);
  // Sent as far as the server takes it within a second; never read.
  (void)tcp_store::send_all(raw, pipelined, deadline_after(1s));
  uint64_t most_queued = 0;
  const Deadline until = deadline_after(1500ms);
  while (Clock::now() < until) {
    most_queued = std::max(most_queued, job.server->usage().replies);
    std::this_thread::sleep_for(5ms);
  }
  // One add's reply is 13 bytes.
  EXPECT_LE(most_queued, 64u) << "the server queued replies nobody reads";
  auto done = job.rank0->add("pipelined", 0);
  ASSERT_TRUE(done.ok()) << done.status();
  std::cout << "the server answered " << *done << " of " << kAdds << " adds; replies queued: "
            << most_queued << " bytes at most\n";
  EXPECT_GT(*done, 0) << "the server answered some";
  EXPECT_LT(*done, kAdds) << "the server kept reading a caller that does not read its replies";
  // The job goes on meanwhile.
  EXPECT_TRUE(job.rank1->set("after", "fine").ok());
}

TEST(TcpStoreQuotaTest, AValueOverTheLimitIsRefusedAndTheConnectionGoesOn) {
  StoreLimits limits;
  limits.max_value_bytes = kMiB;
  Job job(limits);
  const uint64_t before = job.server->usage().bytes;
  Status s = job.rank1->set("one", std::string(kMiB + 1, 'x'));
  EXPECT_EQ(s.code(), Code::kOutOfMemory) << s;
  EXPECT_THAT(s.message(), HasSubstr("rank 1 cannot set 'one': its value of 1.00 MiB"));
  EXPECT_THAT(s.message(), HasSubstr("cluster.store_max_value is 1 MiB"));
  EXPECT_EQ(job.server->usage().bytes, before);
  EXPECT_TRUE(job.rank1->set("one", std::string(kMiB, 'x')).ok());
}

TEST(TcpStoreQuotaTest, AHugeHeaderIsRefusedBeforeItsBodyIsBuffered) {
  StoreLimits limits;
  limits.max_bytes = 2 * kMiB;
  Job job(limits);
  const uint64_t before = job.server->usage().bytes;
  tcp_store::Socket raw = raw_member(job.address, 1);
  // A set whose header claims 15 MiB, of which only the head is sent.
  const std::string frame = tcp_store::encode_set("huge", std::string(15 * kMiB, 'x'));
  ASSERT_TRUE(tcp_store::send_all(raw, frame.substr(0, 64), deadline_after(5s)).ok());
  std::string reply;
  ASSERT_TRUE(tcp_store::receive_some(raw, reply, deadline_after(5s)).ok());
  EXPECT_THAT(reply, HasSubstr("rank 1 cannot set 'huge'"));
  EXPECT_THAT(reply, HasSubstr("store_max_bytes"));
  EXPECT_EQ(job.server->usage().bytes, before) << "nothing was reserved for the refused body";
  // The job goes on meanwhile.
  EXPECT_TRUE(job.rank1->set("small", "fine").ok());
}

TEST(TcpStoreQuotaTest, AnAdmittedFrameIsCountedWhileItArrivesAndReleasedIfItNeverDoes) {
  Job job(StoreLimits{});
  const uint64_t before = job.server->usage().bytes;
  {
    tcp_store::Socket raw = raw_member(job.address, 1);
    const std::string frame = tcp_store::encode_set("slow", std::string(8 * kMiB, 'x'));
    ASSERT_TRUE(tcp_store::send_all(raw, frame.substr(0, 64), deadline_after(5s)).ok());
    const Deadline until = deadline_after(5s);
    while (job.server->usage().bytes < before + 8 * kMiB && Clock::now() < until) {
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_GE(job.server->usage().bytes, before + 8 * kMiB) << "the claimed frame is counted";
  }
  const Deadline until = deadline_after(5s);
  while (job.server->usage().bytes != before && Clock::now() < until) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(job.server->usage().bytes, before) << "a dropped connection gives its frame back";
}

TEST(TcpStoreQuotaTest, AGetClaimingAMegabyteIsRefusedFromItsHeader) {
  Job job(StoreLimits{});
  tcp_store::Socket raw = raw_member(job.address, 1);
  // Length 1 MiB, type GET: a get is a key and a number, never that long.
  ASSERT_TRUE(tcp_store::send_all(raw, std::string("\x00\x00\x10\x00\x02", 5),
                                  deadline_after(5s)).ok());
  std::string reply;
  const Deadline until = deadline_after(5s);
  while (tcp_store::receive_some(raw, reply, until).ok()) {
  }
  EXPECT_THAT(reply, HasSubstr("request type 2 of 1048576 bytes"));
  EXPECT_TRUE(job.rank1->set("after", "fine").ok());
}

}  // namespace
}  // namespace strata
