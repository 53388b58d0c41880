// The "grpc" store is bounded like the TCP store (cluster.store_max_*, which
// core hands every plugin through option()): keys, bytes, one value. Each
// refusal is OUT_OF_MEMORY in the TCP store's words, naming the key, the
// rank, the limit and the config key that raises it; rank 0 holds nothing
// of it and logs it; the caller goes on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "fake_host.h"
#include "grpc_ring_options.h"
#include "grpc_store.h"
#include "grpc_store_type.h"
#include "ring_harness.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::grpc_ring::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr uint64_t kMiB = uint64_t{1} << 20;

int64_t quota_deadline_in(std::chrono::milliseconds d) {
  return sdk::Host::now_ns() + d.count() * 1000000;
}

// What `body` threw (a test fails if it threw nothing).
template <class Body>
sdk::Error error_of(Body&& body) {
  try {
    body();
  } catch (const sdk::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return sdk::Error(STRATA_OK, "");
}

// Rank 0 hosts the store with `limits`; rank 1 is the member that hits them.
class GrpcStoreQuotaTest : public ::testing::Test {
 protected:
  void open_with(GrpcStoreLimits limits) {
    ::setenv("STRATA_JOB_TOKEN", kToken, 1);
    ::unsetenv("STRATA_JOB_TOKEN_FILE");
    GrpcRingOptions options = test_options();
    options.store_limits = limits;
    type_ = std::make_unique<GrpcStoreType>(options);
    rank0_ = type_->open("127.0.0.1:0", 0, 2, quota_deadline_in(10s));
    rank1_ = type_->open(static_cast<GrpcStore&>(*rank0_).address(), 1, 2,
                         quota_deadline_in(10s));
  }
  GrpcStoreState& held() { return static_cast<GrpcStore&>(*rank0_).server()->state(); }

  FakeHost host_;
  std::unique_ptr<GrpcStoreType> type_;
  std::unique_ptr<sdk::Store> rank0_;
  std::unique_ptr<sdk::Store> rank1_;
};

TEST_F(GrpcStoreQuotaTest, KeysOverTheQuotaAreRefusedNamingKeyRankAndSetting) {
  GrpcStoreLimits limits;
  limits.max_keys = 10;
  open_with(limits);
  for (int i = 0; i < 10; ++i) rank1_->set("k/" + std::to_string(i), "v");
  const sdk::Error e = error_of([&] { rank1_->set("k/10", "v"); });
  EXPECT_EQ(e.code(), STRATA_OUT_OF_MEMORY) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("rank 1 cannot create key 'k/10': the job's store already "
                                  "holds 10 keys, its quota (cluster.store_max_keys is 10); "
                                  "raise cluster.store_max_keys in the job's config (read by "
                                  "rank 0, which hosts the store) if the job really needs more"));
  EXPECT_EQ(held().held_keys(), 10u);
  // Keys that exist may change; an add may not create one either.
  rank1_->set("k/3", "changed");
  EXPECT_EQ(error_of([&] { rank1_->add("counter", 1); }).code(), STRATA_OUT_OF_MEMORY);
  EXPECT_EQ(held().held_keys(), 10u);
}

TEST_F(GrpcStoreQuotaTest, BytesOverTheQuotaAreRefusedAndNotHeld) {
  GrpcStoreLimits limits;
  limits.max_bytes = 4 * kMiB;
  open_with(limits);
  const std::string mib(kMiB, 'x');
  for (int i = 0; i < 3; ++i) rank1_->set("big/" + std::to_string(i), mib);
  host_.clear_log();
  const sdk::Error e = error_of([&] { rank1_->set("big/3", mib); });
  EXPECT_EQ(e.code(), STRATA_OUT_OF_MEMORY) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("rank 1 cannot set 'big/3': the job's store holds 3.00 MiB and "
                                  "this value of 1 MiB would take it over its quota "
                                  "(cluster.store_max_bytes is 4 MiB); raise "
                                  "cluster.store_max_bytes"));
  ASSERT_EQ(host_.warnings().size(), 1u) << "rank 0 logs who filled the store";
  EXPECT_THAT(host_.warnings()[0], HasSubstr("rank 1 cannot set 'big/3'"));
  const uint64_t held_bytes = held().held_bytes();
  EXPECT_LE(held_bytes, limits.max_bytes);
  EXPECT_GE(held_bytes, 3 * kMiB);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(error_of([&] { rank1_->set("more/" + std::to_string(i), mib); }).code(),
              STRATA_OUT_OF_MEMORY);
  }
  EXPECT_EQ(held().held_bytes(), held_bytes) << "refused values are not held";
  // The caller goes on, and overwriting frees what it replaces.
  rank1_->set("big/0", "small now");
  rank1_->set("big/3", mib);
  EXPECT_EQ(rank0_->get("big/0", quota_deadline_in(5s)), "small now");
}

TEST_F(GrpcStoreQuotaTest, AValueOverTheLimitIsRefusedAndTheCallerGoesOn) {
  GrpcStoreLimits limits;
  limits.max_value_bytes = kMiB;
  open_with(limits);
  const uint64_t before = held().held_bytes();
  const sdk::Error e = error_of([&] { rank1_->set("one", std::string(kMiB + 1, 'x')); });
  EXPECT_EQ(e.code(), STRATA_OUT_OF_MEMORY) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("rank 1 cannot set 'one': its value of 1.00 MiB is over the "
                                  "store's limit for one value (cluster.store_max_value is "
                                  "1 MiB)"));
  EXPECT_EQ(held().held_bytes(), before);
  rank1_->set("one", std::string(kMiB, 'x'));
}

TEST(GrpcRingOptionsTest, TheJobsStoreLimitsComeFromTheHost) {
  FakeHost host;
  EXPECT_EQ(GrpcRingOptions::from_host().store_limits.max_bytes, 256 * kMiB) << "the default";
  host.set_option("cluster.store_max_bytes", "4194304");
  host.set_option("cluster.store_max_keys", "10");
  host.set_option("cluster.store_max_value", "1024");
  const GrpcStoreLimits limits = GrpcRingOptions::from_host().store_limits;
  EXPECT_EQ(limits.max_bytes, 4 * kMiB);
  EXPECT_EQ(limits.max_keys, 10u);
  EXPECT_EQ(limits.max_value_bytes, 1024u);
  host.set_option("cluster.store_max_keys", "lots");
  const sdk::Error e = error_of([] { GrpcRingOptions::from_host(); });
  EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
  EXPECT_THAT(e.what(), HasSubstr("cluster.store_max_keys: 'lots'"));
}

}  // namespace
}  // namespace strata::grpc_ring::testing
