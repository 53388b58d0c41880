// One suite, every built-in store type: set / get / add / deadline semantics
// as core sees them (through the registry and the C table), so the memory,
// file and TCP stores are interchangeable. The TCP case runs a bare server
// on a free port and opens ranks 1.. as clients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/store.h"
#include "core/cluster/tcp_store_options.h"
#include "core/cluster/tcp_store_server.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::TempDir;

constexpr int kWorld = 4;

class StoreSemanticsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    rt_ = testing::make_runtime();
    ASSERT_NE(rt_, nullptr);
    type_ = rt_->registry().find_store_type(GetParam());
    ASSERT_NE(type_, nullptr) << GetParam();
    static std::atomic<int> instances{0};
    if (GetParam() == "memory") {
      address_ = "semantics/" + std::to_string(++instances);
    } else if (GetParam() == "file") {
      address_ = dir_.str() + "/store";
    } else {
      auto server = tcp_store::TcpStoreServer::start(
          {"127.0.0.1", 0}, kWorld, TcpStoreOptions::from_environment()->token);
      ASSERT_TRUE(server.ok()) << server.status();
      server_ = std::move(*server);
      address_ = server_->address();
    }
  }

  // Ranks 1 .. kWorld-1: rank 0 is the bare server in the TCP case.
  std::unique_ptr<Store> open(int rank = 1) {
    auto store = open_store(*type_, address_, rank, kWorld, deadline_after(10s));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  TempDir dir_;
  std::unique_ptr<tcp_store::TcpStoreServer> server_;  // outlives the stores
  std::shared_ptr<Runtime> rt_;
  const StoreTypeEntry* type_ = nullptr;
  std::string address_;
};

TEST_P(StoreSemanticsTest, SetThenGetAndOverwrite) {
  auto store = open();
  ASSERT_TRUE(store->set("k", "v1").ok());
  auto v = store->get("k", deadline_after(5s));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "v1");
  ASSERT_TRUE(store->set("k", "second value").ok());
  EXPECT_EQ(*store->get("k", deadline_after(5s)), "second value");
}

TEST_P(StoreSemanticsTest, ValuesAreBytesOfAnyLength) {
  auto store = open();
  const std::string binary("a\0b\xff\n", 5);
  const std::string big(5000, 'x');  // larger than core's first 1 KiB buffer
  std::string huge(1 << 20, '\0');
  for (size_t i = 0; i < huge.size(); ++i) huge[i] = static_cast<char>(i * 131 % 251);
  ASSERT_TRUE(store->set("bin", binary).ok());
  ASSERT_TRUE(store->set("big", big).ok());
  ASSERT_TRUE(store->set("huge", huge).ok());
  ASSERT_TRUE(store->set("empty", "").ok());
  EXPECT_EQ(*store->get("bin", deadline_after(5s)), binary);
  EXPECT_EQ(*store->get("big", deadline_after(5s)), big);
  EXPECT_EQ(*store->get("huge", deadline_after(5s)), huge);
  EXPECT_EQ(*store->get("empty", deadline_after(5s)), "");
}

TEST_P(StoreSemanticsTest, AddCountsFromZeroAndReturnsTheNewValue) {
  auto store = open();
  EXPECT_EQ(*store->add("n", 1), 1);
  EXPECT_EQ(*store->add("n", 5), 6);
  EXPECT_EQ(*store->add("n", -10), -4);
  EXPECT_EQ(*store->add("n", 0), -4);  // a read that does not wait
  EXPECT_EQ(*store->get("n", deadline_after(5s)), "-4");
  ASSERT_TRUE(store->set("m", "40").ok());
  EXPECT_EQ(*store->add("m", 2), 42);
}

TEST_P(StoreSemanticsTest, AddOnANonNumberOrOverflowNamesTheKey) {
  auto store = open();
  ASSERT_TRUE(store->set("word", "hello").ok());
  const auto r = store->add("word", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("key 'word' holds 'hello', which is not an integer"));
  ASSERT_TRUE(store->set("tail", "12abc").ok());
  EXPECT_EQ(store->add("tail", 1).status().code(), Code::kInvalidArgument);
  ASSERT_TRUE(store->set("max", "9223372036854775807").ok());
  const auto overflow = store->add("max", 1);
  EXPECT_EQ(overflow.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(overflow.status().message(), HasSubstr("overflow"));
  EXPECT_EQ(*store->get("max", deadline_after(5s)), "9223372036854775807");
}

TEST_P(StoreSemanticsTest, GetWaitsForAnotherHandleToSet) {
  auto reader = open(1);
  auto writer = open(2);
  std::thread late([&] {
    // Not synchronisation: only makes it likely the get is already parked.
    std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(writer->set("ready", "yes").ok());
  });
  auto v = reader->get("ready", deadline_after(20s));
  late.join();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "yes");
}

TEST_P(StoreSemanticsTest, GetTimesOutNamingTheKey) {
  auto store = open();
  const auto start = Clock::now();
  auto v = store->get("never/set", deadline_after(200ms));
  const auto waited = Clock::now() - start;
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kTimedOut);
  EXPECT_THAT(v.status().message(), HasSubstr("'never/set'"));
  EXPECT_GE(waited, 150ms);
  EXPECT_LT(waited, 5s);
  // The store is still usable after a timeout.
  ASSERT_TRUE(store->set("after", "1").ok());
  EXPECT_EQ(*store->get("after", deadline_after(5s)), "1");
}

TEST_P(StoreSemanticsTest, AnExpiredDeadlineStillReadsAKeyThatIsThere) {
  auto store = open();
  ASSERT_TRUE(store->set("present", "here").ok());
  auto v = store->get("present", Clock::now() - 1s);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "here");
  EXPECT_EQ(store->get("absent", Clock::now() - 1s).status().code(), Code::kTimedOut);
}

TEST_P(StoreSemanticsTest, ConcurrentAddsFromManyHandlesAreExact) {
  constexpr int kThreadsPerHandle = 2;
  constexpr int kAdds = 60;
  std::vector<std::unique_ptr<Store>> handles;
  for (int r = 1; r < kWorld; ++r) handles.push_back(open(r));
  std::vector<std::thread> threads;
  for (auto& h : handles) {
    for (int t = 0; t < kThreadsPerHandle; ++t) {
      threads.emplace_back([&store = *h] {
        for (int i = 0; i < kAdds; ++i) EXPECT_TRUE(store.add("total", 1).ok());
      });
    }
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(*handles[0]->add("total", 0), (kWorld - 1) * kThreadsPerHandle * kAdds);
}

TEST_P(StoreSemanticsTest, KeysAreKeptApartExactly) {
  auto store = open();
  const std::vector<std::string> keys = {
      "a/b", "a%2Fb", "a b", "..", ".", "../../escape", "-", "_",
      "caf\xc3\xa9", std::string(500, 'k') + "1", std::string(500, 'k') + "2"};
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(store->set(keys[i], "value " + std::to_string(i)).ok()) << i;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    auto v = store->get(keys[i], deadline_after(5s));
    ASSERT_TRUE(v.ok()) << i << ": " << v.status();
    EXPECT_EQ(*v, "value " + std::to_string(i)) << "key " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltInTypes, StoreSemanticsTest,
                         ::testing::Values("memory", "file", "tcp"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace strata
