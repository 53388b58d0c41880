// What a resolver may tell core through the C sink, checked: resolvers
// written straight against the C ABI that misuse the sink, even ones that
// ignore a refusal and return OK, get an error naming them and the call.
// Also STRATA_DEVICES_PER_WORKER, applied when a resolver says nothing
// about devices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/cluster/resolve.h"
#include "core/device/cpu_device_type.h"
#include "resolver_test_util.h"

namespace strata {
namespace {

using testing::error_of;
using testing::ResolverRegistry;

using ResolveFn = strata_status_t (*)(void*, const strata_cluster_sink_t*, strata_message_t);

strata_resolver_t table_of(const char* name, ResolveFn fn) {
  strata_resolver_t t{};
  t.struct_size = sizeof t;
  t.name = name;
  t.resolve = fn;
  return t;
}

// Registers `fn` as resolver "raw" of plugin "c_plugin" and runs it.
StatusOr<ClusterSpec> run_raw(ResolveFn fn) {
  ResolverRegistry r;
  EXPECT_TRUE(r.add_table("c_plugin", table_of("raw", fn)).ok());
  return resolve_cluster(r.registry(), "raw", MapEnvironment());
}

constexpr const char* kWho = "cluster resolver 'raw' of plugin 'c_plugin': ";

TEST(ClusterSink, GapsInAJobAreRefused) {
  auto fn = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    s->add_task(s->ctx, "worker", 0, "a:1");
    s->add_task(s->ctx, "worker", 2, "c:1");
    return s->set_self(s->ctx, "worker", 0);
  };
  EXPECT_EQ(error_of(run_raw(fn)), std::string(kWho) +
                                       "it described worker 2 but not worker 1; "
                                       "a job's tasks are numbered from 0 without gaps");
}

TEST(ClusterSink, NoTasksOrNoSelfAreRefused) {
  auto no_tasks = [](void*, const strata_cluster_sink_t*, strata_message_t) -> strata_status_t {
    return STRATA_OK;
  };
  EXPECT_EQ(error_of(run_raw(no_tasks)),
            std::string(kWho) + "it described no tasks (add_task was never called)");
  auto no_self = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    return s->add_task(s->ctx, "worker", 0, "a:1");
  };
  EXPECT_EQ(
      error_of(run_raw(no_self)),
      std::string(kWho) + "it did not say which task this process is (set_self was never called)");
}

// Each of these calls is refused; the resolver ignores that and returns OK.
TEST(ClusterSink, ARefusedCallIsReportedEvenWhenIgnored) {
  auto null_job = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    EXPECT_EQ(s->add_task(s->ctx, nullptr, 0, "a:1"), STRATA_INVALID_ARGUMENT);
    s->add_task(s->ctx, "worker", 0, "a:1");
    s->set_self(s->ctx, "worker", 0);
    return STRATA_OK;
  };
  EXPECT_EQ(error_of(run_raw(null_job)),
            std::string(kWho) +
                "the cluster sink refused add_task(NULL, 0): job name NULL is "
                "not 1-63 characters of [a-z0-9_]");
  auto twice = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    s->add_task(s->ctx, "worker", 0, "a:1");
    s->add_task(s->ctx, "worker", 0, "b:1");
    s->set_self(s->ctx, "worker", 0);
    return STRATA_OK;
  };
  EXPECT_EQ(error_of(run_raw(twice)),
            std::string(kWho) +
                "the cluster sink refused add_task('worker', 0): worker 0 was "
                "already added (address 'a:1')");
  auto bad_index = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    s->add_task(s->ctx, "worker", -3, "a:1");
    return STRATA_OK;
  };
  EXPECT_EQ(error_of(run_raw(bad_index)),
            std::string(kWho) +
                "the cluster sink refused add_task('worker', -3): the index must "
                "be from 0 to 1048575");
  auto self_twice = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    s->add_task(s->ctx, "worker", 0, "a:1");
    s->set_self(s->ctx, "worker", 0);
    s->set_self(s->ctx, "ps", 0);
    return STRATA_OK;
  };
  EXPECT_EQ(error_of(run_raw(self_twice)),
            std::string(kWho) +
                "the cluster sink refused set_self('ps', 0): set_self was "
                "already called with (worker, 0)");
  auto devices = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    s->add_task(s->ctx, "worker", 0, "a:1");
    s->set_self(s->ctx, "worker", 0);
    s->set_devices_per_task(s->ctx, "cuda", 0);
    return STRATA_OK;
  };
  EXPECT_EQ(error_of(run_raw(devices)),
            std::string(kWho) +
                "the cluster sink refused set_devices_per_task('cuda', 0): the "
                "count must be from 1 to 65536");
}

TEST(ClusterSink, RpcLayerAndDevicesFromTheResolverAreKept) {
  auto fn = [](void*, const strata_cluster_sink_t* s, strata_message_t) -> strata_status_t {
    s->add_task(s->ctx, "worker", 0, "a:1");
    s->add_task(s->ctx, "ps", 0, "p:1");
    s->set_self(s->ctx, "ps", 0);
    s->set_rpc_layer(s->ctx, "grpc");
    return s->set_devices_per_task(s->ctx, "cuda", 4);
  };
  auto spec = run_raw(fn);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->task_type, "ps");
  EXPECT_EQ(spec->rpc_layer, "grpc");
  EXPECT_EQ(spec->device_type, "cuda");
  EXPECT_EQ(spec->devices_per_task, 4);
}

TEST(ClusterSink, AnUnknownStatusIsAPluginBug) {
  auto fn = [](void*, const strata_cluster_sink_t*, strata_message_t) -> strata_status_t {
    return 42;
  };
  auto spec = run_raw(fn);
  EXPECT_EQ(spec.status().code(), Code::kInternal);
  EXPECT_THAT(error_of(spec), ::testing::StartsWith("cluster resolver 'raw' of plugin 'c_plugin' "
                                                    "returned unknown status 42"));
}

// A registry with the cpu device type and one worker-0-of-2 resolver.
class DevicesPerWorker : public ::testing::Test {
 protected:
  void SetUp() override {
    CpuDeviceOptions options;
    options.count = 2;
    options.bandwidth = 1e9;  // do not measure: these tests allocate nothing
    cpu_ = std::make_unique<CpuDeviceType>(options);
    ASSERT_TRUE(r_.registry().add_device_type("core", cpu_->table()).ok());
    ASSERT_TRUE(r_.add("p", testing::answering("kube", 2, 0)).ok());
  }
  StatusOr<ClusterSpec> resolve(std::string value) {
    return resolve_cluster(
        r_.registry(), "kube",
        MapEnvironment(testing::Variables{{"STRATA_DEVICES_PER_WORKER", std::move(value)}}));
  }
  std::unique_ptr<CpuDeviceType> cpu_;
  ResolverRegistry r_;
};

TEST_F(DevicesPerWorker, CountOrTypeAndCount) {
  auto count = resolve("2");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->devices_per_task, 2);
  EXPECT_EQ(count->device_type, "");
  auto typed = resolve("cpu:2");
  ASSERT_TRUE(typed.ok()) << typed.status();
  EXPECT_EQ(typed->devices_per_task, 2);
  EXPECT_EQ(typed->device_type, "cpu");
  auto unset = resolve("");
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_EQ(unset->devices_per_task, 0);
}

TEST_F(DevicesPerWorker, BadValuesAreNamed) {
  for (const char* bad : {"two", "0", "cpu:", ":2", "CPU:2", "cpu:2:3"}) {
    EXPECT_EQ(error_of(resolve(bad)), "STRATA_DEVICES_PER_WORKER='" + std::string(bad) +
                                          "' should be a count (2) or type:count (cpu:2), the "
                                          "count from 1 to 65536");
  }
  EXPECT_EQ(error_of(resolve("gpu:2")),
            "STRATA_DEVICES_PER_WORKER='gpu:2' names device type 'gpu', which nobody registered; "
            "registered types: cpu");
}

TEST(DevicesPerWorkerFromResolver, TheResolversOwnAnswerWins) {
  ResolverRegistry r;
  ASSERT_TRUE(
      r.add("p", std::make_unique<testing::LambdaResolver>("kube",
                                                           [](sdk::ClusterSink& sink) {
                                                             sink.add_task("worker", 0, "a:1");
                                                             sink.set_self("worker", 0);
                                                             sink.set_devices_per_task("", 3);
                                                           }))
          .ok());
  auto spec = resolve_cluster(
      r.registry(), "kube", MapEnvironment(testing::Variables{{"STRATA_DEVICES_PER_WORKER", "8"}}));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->devices_per_task, 3);
}

}  // namespace
}  // namespace strata
