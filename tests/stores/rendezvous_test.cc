// rendezvous(): everyone arrives, or everyone who came gets an error naming
// those who did not — in threads over the memory store, and in processes
// over the file and TCP stores.
#include "core/cluster/rendezvous.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/tcp_store_type.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using testing::worker_name;
using ::testing::HasSubstr;
using testing::Peer;
using testing::TempDir;


class RendezvousTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = testing::make_runtime();
    ASSERT_NE(rt_, nullptr);
    auto store = testing::open_private_memory_store(*rt_, "rendezvous_test");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  // Runs `ranks` of a world in threads; returns each one's status.
  std::vector<Status> run(const std::vector<int>& ranks, int world, Deadline deadline,
                          const std::string& name = "x") {
    std::vector<Status> out(ranks.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < ranks.size(); ++i) {
      threads.emplace_back([&, i] {
        out[i] = rendezvous(*store_, name, ranks[i], world, deadline, worker_name);
      });
    }
    for (auto& t : threads) t.join();
    return out;
  }

  std::shared_ptr<Runtime> rt_;
  std::unique_ptr<Store> store_;
};

TEST_F(RendezvousTest, EveryoneArrives) {
  for (const Status& s : run({0, 1, 2, 3}, 4, deadline_after(20s))) EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(rendezvous(*store_, "solo", 0, 1, deadline_after(1s)).ok());
}

TEST_F(RendezvousTest, MissingRanksAreNamedToEveryoneWhoCame) {
  const auto start = Clock::now();
  const auto results = run({0, 1}, 4, deadline_after(300ms));
  EXPECT_GE(Clock::now() - start, 290ms);
  for (const Status& s : results) {
    EXPECT_EQ(s.code(), Code::kTimedOut);
    EXPECT_EQ(s.message(),
              "ranks 2 and 3 (worker 2, worker 3) never arrived at rendezvous 'x' within 0.3 s");
  }
}

TEST_F(RendezvousTest, WithoutNamesTheRanksAloneAreListed) {
  const Status s = rendezvous(*store_, "plain", 1, 2, deadline_after(50ms));
  EXPECT_EQ(s.code(), Code::kTimedOut);
  EXPECT_THAT(s.message(), HasSubstr("rank 0 never arrived at rendezvous 'plain' within"));
}

TEST_F(RendezvousTest, ARankClaimedTwiceIsCaught) {
  const auto results = run({1, 1, 0}, 2, deadline_after(20s), "twice");
  int refused = 0;
  for (const Status& s : results) {
    if (s.code() == Code::kFailedPrecondition) {
      ++refused;
      EXPECT_THAT(s.message(), HasSubstr("rank 1 (worker 1) arrived 2 times"));
    }
  }
  EXPECT_EQ(refused, 1);
}

TEST_F(RendezvousTest, RankOutsideTheWorldIsRefused) {
  EXPECT_EQ(rendezvous(*store_, "bad", 4, 4, deadline_after(1s)).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(rendezvous(*store_, "bad", -1, 4, deadline_after(1s)).code(),
            Code::kInvalidArgument);
}

TEST(DescribeRanks, ListsReadably) {
  EXPECT_EQ(describe_ranks({3}, {}), "rank 3");
  EXPECT_EQ(describe_ranks({2, 3}, worker_name), "ranks 2 and 3 (worker 2, worker 3)");
  EXPECT_EQ(describe_ranks({1, 2, 5}, {}), "ranks 1, 2 and 5");
  std::vector<int> many;
  for (int r = 0; r < 20; ++r) many.push_back(r);
  EXPECT_THAT(describe_ranks(many, {}), HasSubstr(", 15 and 4 more"));
}

// Ranks 1.. as processes over `type` at `address`; this process is rank 0.
class MultiProcessRendezvous : public ::testing::Test {
 protected:
  std::vector<std::unique_ptr<Peer>> spawn(const std::string& type, const std::string& address,
                                           const std::vector<int>& ranks, int world,
                                           const std::string& name, int timeout_ms) {
    std::vector<std::unique_ptr<Peer>> peers;
    for (int r : ranks) {
      peers.push_back(std::make_unique<Peer>(
          std::vector<std::string>{"rendezvous", type, address, std::to_string(r),
                                   std::to_string(world), name, std::to_string(timeout_ms)},
          dir_.path() / (name + std::to_string(r) + ".log")));
    }
    return peers;
  }
  TempDir dir_;
};

TEST_F(MultiProcessRendezvous, FileStoreFormsAndNamesTheAbsent) {
  auto rt = testing::make_runtime();
  const std::string address = dir_.str() + "/store";
  auto store = open_store(*rt->registry().find_store_type("file"), address, 0, 4,
                          deadline_after(5s));
  ASSERT_TRUE(store.ok()) << store.status();

  auto all = spawn("file", address, {1, 2, 3}, 4, "all", 20000);
  EXPECT_TRUE(rendezvous(**store, "all", 0, 4, deadline_after(20s), worker_name).ok());
  for (auto& p : all) EXPECT_EQ(p->wait(), 0) << p->output();

  // Rank 2 is never started: ranks 0, 1 and 3 all hear about it.
  auto some = spawn("file", address, {1, 3}, 4, "some", 1500);
  const Status s = rendezvous(**store, "some", 0, 4, deadline_after(1500ms), worker_name);
  EXPECT_EQ(s.code(), Code::kTimedOut);
  EXPECT_THAT(s.message(), HasSubstr("rank 2 (worker 2) never arrived at rendezvous 'some'"));
  for (auto& p : some) {
    EXPECT_EQ(p->wait(), 3);
    EXPECT_THAT(p->output(), HasSubstr("rank 2 (worker 2) never arrived"));
  }
}

TEST_F(MultiProcessRendezvous, TcpStoreHostedByRankZero) {
  testing::SdkStoreAdapter store(
      TcpStore::open("127.0.0.1:0", 0, 4, deadline_after(5s), *TcpStoreOptions::from_environment()));
  const std::string address = static_cast<TcpStore&>(store.inner()).address();
  auto peers = spawn("tcp", address, {1, 2, 3}, 4, "tcp", 20000);
  const Status s = rendezvous(store, "tcp", 0, 4, deadline_after(20s), worker_name);
  EXPECT_TRUE(s.ok()) << s;
  for (auto& p : peers) EXPECT_EQ(p->wait(), 0) << p->output();
}

}  // namespace
}  // namespace strata
