// The in-process "memory" store, reached as core reaches every store: by
// type name in the registry and through the C table (core/cluster/store.h).
// Spaces live as long as the process, so every test instance uses addresses
// of its own (tests stay independent under --gtest_repeat).
#include "core/cluster/memory_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "core/cluster/store.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

class MemoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto rt = Runtime::create({}, RuntimeOptions{.discover_plugins = false,
                                                 .use_environment = false,
                                                 .plugin_files = {}});
    ASSERT_TRUE(rt.ok()) << rt.status();
    rt_ = *rt;
    type_ = rt_->registry().find_store_type("memory");
    ASSERT_NE(type_, nullptr);
    static int instances = 0;
    prefix_ = "memory_store_test/" + std::to_string(++instances) + "/";
  }

  std::unique_ptr<Store> open(const std::string& address) {
    auto store = open_store(*type_, prefix_ + address, 0, 1, deadline_after(5s));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::shared_ptr<Runtime> rt_;
  const StoreTypeEntry* type_ = nullptr;
  std::string prefix_;
};

TEST_F(MemoryStoreTest, SetThenGetAndOverwrite) {
  auto store = open("set_get");
  ASSERT_TRUE(store->set("k", "v1").ok());
  auto v = store->get("k", deadline_after(1s));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "v1");
  ASSERT_TRUE(store->set("k", "second value").ok());
  EXPECT_EQ(*store->get("k", deadline_after(1s)), "second value");
}

TEST_F(MemoryStoreTest, ValuesAreBytesOfAnyLength) {
  auto store = open("bytes");
  const std::string binary("a\0b\xff", 4);
  ASSERT_TRUE(store->set("bin", binary).ok());
  EXPECT_EQ(*store->get("bin", deadline_after(1s)), binary);
  // Larger than the first read buffer core offers (1 KiB): it must retry.
  const std::string big(5000, 'x');
  ASSERT_TRUE(store->set("big", big).ok());
  EXPECT_EQ(*store->get("big", deadline_after(1s)), big);
  ASSERT_TRUE(store->set("empty", "").ok());
  EXPECT_EQ(*store->get("empty", deadline_after(1s)), "");
}

TEST_F(MemoryStoreTest, AddCountsFromZeroAndReturnsTheNewValue) {
  auto store = open("add");
  EXPECT_EQ(*store->add("n", 1), 1);
  EXPECT_EQ(*store->add("n", 5), 6);
  EXPECT_EQ(*store->add("n", -10), -4);
  EXPECT_EQ(*store->get("n", deadline_after(1s)), "-4");  // visible to get as text
  ASSERT_TRUE(store->set("m", "40").ok());
  EXPECT_EQ(*store->add("m", 2), 42);
}

TEST_F(MemoryStoreTest, AddOnANonNumberNamesTheKey) {
  auto store = open("add_text");
  ASSERT_TRUE(store->set("word", "hello").ok());
  const auto r = store->add("word", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "store 'memory' add 'word': key 'word' holds 'hello', which is not an integer");
  ASSERT_TRUE(store->set("tail", "12abc").ok());  // not silently read as 12
  EXPECT_EQ(store->add("tail", 1).status().code(), Code::kInvalidArgument);
  ASSERT_TRUE(store->set("huge", "9223372036854775807").ok());
  const auto overflow = store->add("huge", 1);
  EXPECT_EQ(overflow.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(overflow.status().message(), HasSubstr("overflow"));
  EXPECT_EQ(*store->get("huge", deadline_after(1s)), "9223372036854775807");  // unchanged
}

TEST_F(MemoryStoreTest, GetBlocksUntilAnotherThreadSets) {
  auto reader = open("blocking");
  auto writer = open("blocking");
  std::thread late([&] {
    std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(writer->set("ready", "yes").ok());
  });
  const auto start = Clock::now();
  auto v = reader->get("ready", deadline_after(10s));
  const auto waited = Clock::now() - start;
  late.join();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "yes");
  EXPECT_GE(waited, 40ms) << "get returned before the key could have been set";
}

TEST_F(MemoryStoreTest, GetTimesOutNamingTheKey) {
  auto store = open("timeout");
  const auto start = Clock::now();
  auto v = store->get("never/set", deadline_after(100ms));
  const auto waited = Clock::now() - start;
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kTimedOut);
  EXPECT_EQ(v.status().message(),
            "store 'memory' get 'never/set': key 'never/set' was not set before the deadline");
  EXPECT_GE(waited, 90ms);
  EXPECT_LT(waited, 5s);
}

TEST_F(MemoryStoreTest, AddressesNameSeparateSpaces) {
  auto a = open("space_a");
  auto a_again = open("space_a");
  auto b = open("space_b");
  ASSERT_TRUE(a->set("shared", "from a").ok());
  EXPECT_EQ(*a_again->get("shared", deadline_after(1s)), "from a");
  const auto missing = b->get("shared", deadline_after(20ms));
  EXPECT_EQ(missing.status().code(), Code::kTimedOut);
  EXPECT_EQ(*b->add("shared", 3), 3);  // b's own key, a's is untouched
  EXPECT_EQ(*a->get("shared", deadline_after(1s)), "from a");
}

TEST_F(MemoryStoreTest, PrefixStoreKeepsTeamsApart) {
  auto store = open("prefix");
  PrefixStore team1(*store, "team/1");
  PrefixStore team2(*store, "team/2");
  ASSERT_TRUE(team1.set("addr", "10.0.0.1").ok());
  ASSERT_TRUE(team2.set("addr", "10.0.0.2").ok());
  EXPECT_EQ(*team1.get("addr", deadline_after(1s)), "10.0.0.1");
  EXPECT_EQ(*store->get("team/2/addr", deadline_after(1s)), "10.0.0.2");
  EXPECT_EQ(*team1.add("count", 2), 2);
  EXPECT_EQ(*store->get("team/1/count", deadline_after(1s)), "2");
}

}  // namespace
}  // namespace strata
