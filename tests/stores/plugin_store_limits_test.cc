// cluster.store_max_* bound a plugin's store as they bound the TCP store:
// core hands the job's limits to every plugin (option(), strata/abi/
// registrar.h), and the grpc_ring plugin, loaded as users load it, refuses
// a set past them with the TCP store's very words.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "core/cluster/store.h"
#include "core/config/config.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// The part of a refusal the store itself words: "rank 0 cannot ... more".
std::string refusal(const Status& s) {
  const size_t from = s.message().find("rank 0 cannot");
  const size_t to = s.message().find("really needs more");
  if (from == std::string::npos || to == std::string::npos) return s.to_string();
  return s.message().substr(from, to - from);
}

class PluginStoreLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("STRATA_JOB_TOKEN", "plugin-store-limits-test-0123456789", 1);
    ::unsetenv("STRATA_JOB_TOKEN_FILE");
    auto config = parse_config(
        "strata: 1\ncluster: {store_max_keys: 3, store_max_value: 1KiB}\n", "test.yaml");
    ASSERT_TRUE(config.ok()) << config.status();
    auto rt = Runtime::create(*config, RuntimeOptions{.discover_plugins = false,
                                                      .use_environment = false,
                                                      .plugin_files = {STRATA_GRPC_RING_PLUGIN}});
    ASSERT_TRUE(rt.ok()) << rt.status();
    rt_ = *rt;
  }

  // Rank 0 of a one-rank job on a store of `type` at a free loopback port.
  std::unique_ptr<Store> open(const std::string& type) {
    const StoreTypeEntry* entry = rt_->registry().find_store_type(type);
    EXPECT_NE(entry, nullptr) << type;
    if (entry == nullptr) return nullptr;
    auto store = open_store(*entry, "127.0.0.1:0", 0, 1, deadline_after(10s));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::shared_ptr<Runtime> rt_;
};

TEST_F(PluginStoreLimitsTest, TheGrpcStoreHonoursTheJobsLimitsInTheTcpStoresWords) {
  std::unique_ptr<Store> grpc = open("grpc");
  std::unique_ptr<Store> tcp = open("tcp");
  ASSERT_NE(grpc, nullptr);
  ASSERT_NE(tcp, nullptr);
  for (Store* s : {grpc.get(), tcp.get()}) {
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->set("k/" + std::to_string(i), "v").ok());
  }
  const Status grpc_keys = grpc->set("k/3", "v");
  const Status tcp_keys = tcp->set("k/3", "v");
  EXPECT_EQ(grpc_keys.code(), Code::kOutOfMemory) << grpc_keys;
  EXPECT_THAT(grpc_keys.message(),
              HasSubstr("rank 0 cannot create key 'k/3': the job's store already holds 3 keys, "
                        "its quota (cluster.store_max_keys is 3)"));
  EXPECT_EQ(refusal(grpc_keys), refusal(tcp_keys));

  const Status grpc_value = grpc->set("k/0", std::string(1025, 'x'));
  const Status tcp_value = tcp->set("k/0", std::string(1025, 'x'));
  EXPECT_EQ(grpc_value.code(), Code::kOutOfMemory) << grpc_value;
  EXPECT_THAT(grpc_value.message(),
              HasSubstr("rank 0 cannot set 'k/0': its value of 1.00 KiB is over the store's "
                        "limit for one value (cluster.store_max_value is 1 KiB)"));
  EXPECT_EQ(refusal(grpc_value), refusal(tcp_value));
  EXPECT_TRUE(grpc->set("k/0", std::string(1024, 'x')).ok());
}

}  // namespace
}  // namespace strata
