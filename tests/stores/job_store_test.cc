// open_job_store: "auto" picks a private memory store for one process and
// the chief-hosted TCP store otherwise; "<type>:<address>" is taken as
// written; every mistake names the setting.
#include "core/cluster/job_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "core/cluster/tcp_store_socket.h"
#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

ClusterSpec two_tasks(const std::string& chief, int rank) {
  ClusterSpec spec;
  spec.jobs["chief"] = {chief};
  spec.jobs["worker"] = {"127.0.0.1:1"};
  spec.task_type = rank == 0 ? "chief" : "worker";
  spec.task_index = 0;
  spec.resolver = "tf_config";
  spec.source = "TF_CONFIG";
  return spec;
}

ClusterConfig with_store(std::string store) {
  ClusterConfig c;
  c.store = std::move(store);
  c.rendezvous_timeout = 5s;
  return c;
}

class JobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = testing::make_runtime();
    ASSERT_NE(rt_, nullptr);
  }
  std::shared_ptr<Runtime> rt_;
};

TEST_F(JobStoreTest, AutoForOneProcessIsAPrivateMemoryStore) {
  const ClusterSpec spec = single_process_cluster();
  auto a = open_job_store(rt_->registry(), spec, with_store("auto"));
  auto b = open_job_store(rt_->registry(), spec, with_store("auto"));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*a)->set("k", "a").ok());
  EXPECT_EQ((*b)->get("k", deadline_after(20ms)).status().code(), Code::kTimedOut);
}

TEST_F(JobStoreTest, ExplicitTypeAndAddressAreUsed) {
  testing::TempDir dir;
  auto store = open_job_store(rt_->registry(), single_process_cluster(),
                              with_store("file:" + dir.str() + "/job"));
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->set("k", "v").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "job" / "k_k"));
}

TEST_F(JobStoreTest, AutoForSeveralProcessesIsTheChiefsTcpStore) {
  // A port that was free a moment ago; the chief binds it.
  int port = 0;
  testing::reserve_port(&port).reset();
  const std::string chief = "127.0.0.1:" + std::to_string(port);

  StatusOr<std::unique_ptr<Store>> worker = InternalError("not opened");
  std::thread t([&] {
    worker = open_job_store(rt_->registry(), two_tasks(chief, 1), with_store("auto"));
  });
  auto host = open_job_store(rt_->registry(), two_tasks(chief, 0), with_store("auto"));
  t.join();
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE(worker.ok()) << worker.status();
  ASSERT_TRUE((*worker)->set("from", "worker").ok());
  EXPECT_EQ(*(*host)->get("from", deadline_after(5s)), "worker");
  worker->reset();  // goodbye first, so the host does not linger
}

TEST_F(JobStoreTest, AutoWithoutAChiefPortNamesTheResolver) {
  auto s = open_job_store(rt_->registry(), two_tasks("chief-host", 0), with_store("auto"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("resolver 'tf_config' (TF_CONFIG)"));
  EXPECT_THAT(s.status().message(), HasSubstr("'chief-host'"));
}

TEST_F(JobStoreTest, MistakesNameTheSetting) {
  auto bad = open_job_store(rt_->registry(), single_process_cluster(), with_store("nocolon"));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("cluster.store 'nocolon'"));

  auto unknown = open_job_store(rt_->registry(), single_process_cluster(), with_store("etcd:x"));
  EXPECT_EQ(unknown.status().code(), Code::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown store type 'etcd'"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("file"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("tcp"));

  ClusterSpec ps = two_tasks("127.0.0.1:2", 0);
  ps.jobs["ps"] = {"127.0.0.1:3"};
  ps.task_type = "ps";
  auto no_rank = open_job_store(rt_->registry(), ps, with_store("memory:x"));
  EXPECT_EQ(no_rank.status().code(), Code::kFailedPrecondition);
  EXPECT_THAT(no_rank.status().message(), HasSubstr("task ps 0"));
}

TEST_F(JobStoreTest, AnUnreachableStoreNamesItsAddressAfterTheTimeout) {
  int port = 0;
  const tcp_store::Socket holder = testing::reserve_port(&port);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  ClusterConfig c = with_store("tcp:" + address);
  c.rendezvous_timeout = 200ms;
  auto s = open_job_store(rt_->registry(), two_tasks("127.0.0.1:2", 1), c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kTimedOut);
  EXPECT_THAT(s.status().message(), HasSubstr("could not reach the TCP store at " + address));
}

TEST_F(JobStoreTest, TheTcpStoreIsHostedByRankZeroAndTheOthersByNoRank) {
  const StoreHost chief = job_store_host(two_tasks("127.0.0.1:2", 1), with_store("auto"));
  EXPECT_EQ(chief.rank, 0);
  EXPECT_EQ(chief.address, "127.0.0.1:2");
  const StoreHost tcp = job_store_host(two_tasks("127.0.0.1:2", 1), with_store("tcp:10.0.0.9:5"));
  EXPECT_EQ(tcp.rank, 0);
  EXPECT_EQ(tcp.address, "10.0.0.9:5");
  EXPECT_EQ(job_store_host(two_tasks("127.0.0.1:2", 1), with_store("file:/x")).rank, -1);
  EXPECT_EQ(job_store_host(single_process_cluster(), with_store("auto")).rank, -1);
}

TEST_F(JobStoreTest, TheConfiguredQuotaReachesTheChiefsStore) {
  Config config;
  config.cluster.store_limits.max_keys = 3;
  auto rt = Runtime::create(config, RuntimeOptions{.discover_plugins = false,
                                                   .use_environment = false,
                                                   .plugin_files = {}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  ClusterConfig c = with_store("tcp:127.0.0.1:0");
  auto store = open_job_store((*rt)->registry(), two_tasks("127.0.0.1:2", 0), c);
  ASSERT_TRUE(store.ok()) << store.status();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*store)->set("k" + std::to_string(i), "v").ok());
  Status refused = (*store)->set("k3", "v");
  EXPECT_EQ(refused.code(), Code::kOutOfMemory) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("cluster.store_max_keys is 3"));
}

}  // namespace
}  // namespace strata
