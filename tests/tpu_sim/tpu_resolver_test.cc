// The "tpu" cluster resolver the plugin registers, loaded as users load it
// and fed through the process environment (it reads getenv, as a Cloud TPU
// VM's variables are read): the shapes it accepts, and an error naming the
// variable for every malformed value.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/cluster/resolve.h"
#include "core/plugin/registry.h"
#include "tpu_test_runtime.h"

namespace strata::testing {
namespace {

constexpr const char* kVariables[] = {"TPU_NAME", "TPU_WORKER_HOSTNAMES", "TPU_WORKER_ID",
                                      "TPU_TOPOLOGY", "STRATA_DEVICES_PER_WORKER"};

class TpuResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clear();
    auto rt = tpu_runtime(2, 2);  // 4 cores in this process
    ASSERT_TRUE(rt.ok()) << rt.status();
    rt_ = *rt;
  }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : kVariables) unsetenv(name);
  }
  static void set(const char* name, const char* value) { setenv(name, value, 1); }
  StatusOr<ClusterSpec> resolve(std::string_view name = "tpu") {
    return resolve_cluster(rt_->registry(), name);
  }
  std::string error(std::string_view name = "tpu") {
    auto spec = resolve(name);
    return spec.ok() ? "<resolved, but an error was expected>" : spec.status().message();
  }

  std::shared_ptr<Runtime> rt_;
};

TEST_F(TpuResolverTest, RegisteredByThePluginUnderItsOwnName) {
  const ResolverEntry* entry = rt_->registry().find_resolver("tpu");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->plugin, "tpu_sim");
}

TEST_F(TpuResolverTest, LocalIsOneWorkerDrivingEveryCore) {
  set("TPU_NAME", "local");
  auto spec = resolve();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->world_size(), 1);
  EXPECT_EQ(spec->rank(), 0);
  EXPECT_EQ(spec->device_type, "tpu");
  EXPECT_EQ(spec->devices_per_task, 4);
  EXPECT_EQ(spec->rpc_layer, "grpc");
  EXPECT_EQ(spec->chief_address(), "localhost:8470");
}

TEST_F(TpuResolverTest, AGrpcAddressNamesTheWorker) {
  set("TPU_NAME", "grpc://10.0.0.2:8471");
  auto spec = resolve();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->chief_address(), "10.0.0.2:8471");
}

TEST_F(TpuResolverTest, MultiHostSlicesShareTheTopology) {
  set("TPU_WORKER_HOSTNAMES", "t1v-0,t1v-1:9000");
  set("TPU_WORKER_ID", "1");
  set("TPU_TOPOLOGY", "2x2x1");
  auto spec = resolve();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->world_size(), 2);
  EXPECT_EQ(spec->rank(), 1);
  EXPECT_EQ(spec->address_of_rank(0), "t1v-0:8470");
  EXPECT_EQ(spec->address_of_rank(1), "t1v-1:9000");
  EXPECT_EQ(spec->devices_per_task, 2);  // 4 cores over 2 hosts
}

TEST_F(TpuResolverTest, DeclinesWithoutItsVariablesSoAutoMovesOn) {
  EXPECT_NE(error().find("TPU_NAME, TPU_WORKER_HOSTNAMES and TPU_TOPOLOGY are not set"),
            std::string::npos)
      << error();
  auto spec = resolve("auto");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->resolver, "simple");
  set("TPU_TOPOLOGY", "2x2");
  auto tpu = resolve("auto");
  ASSERT_TRUE(tpu.ok()) << tpu.status();
  EXPECT_EQ(tpu->resolver, "tpu");
}

struct Malformed {
  std::vector<std::pair<const char*, const char*>> variables;
  std::string expected;  // a part of the message, naming the variable
};

TEST_F(TpuResolverTest, MalformedValuesNameTheVariable) {
  const std::vector<Malformed> cases = {
      {{{"TPU_NAME", "my-pod"}}, "TPU_NAME='my-pod' names a Cloud TPU"},
      {{{"TPU_NAME", "grpc://:8470"}}, "TPU_NAME='grpc://:8470'"},
      {{{"TPU_NAME", "grpc://host:99999"}}, "is not a host name or host:port"},
      {{{"TPU_WORKER_HOSTNAMES", "a,,b"}, {"TPU_WORKER_ID", "0"}},
       "TPU_WORKER_HOSTNAMES='a,,b': entry 1 is empty"},
      {{{"TPU_WORKER_HOSTNAMES", "a,b"}}, "TPU_WORKER_ID is not set"},
      {{{"TPU_WORKER_HOSTNAMES", "a,b"}, {"TPU_WORKER_ID", "two"}},
       "TPU_WORKER_ID='two' is not a worker index from 0 to 1"},
      {{{"TPU_WORKER_HOSTNAMES", "a,b"}, {"TPU_WORKER_ID", "2"}}, "TPU_WORKER_ID='2'"},
      {{{"TPU_TOPOLOGY", "2y2"}}, "TPU_TOPOLOGY"},
      {{{"TPU_TOPOLOGY", "2x2x2"}}, "TPU_TOPOLOGY: '2x2x2' is not a 2-D topology"},
      {{{"TPU_TOPOLOGY", "0x4"}}, "TPU_TOPOLOGY (rows): '0'"},
      {{{"TPU_TOPOLOGY", "4x4"}}, "gives each of 1 worker(s) 16 cores, but this process "
                                  "simulates 4"},
      {{{"TPU_WORKER_HOSTNAMES", "a,b,c"}, {"TPU_WORKER_ID", "0"}, {"TPU_TOPOLOGY", "2x2"}},
       "4 cores, which 3 workers cannot share evenly"},
  };
  for (const Malformed& c : cases) {
    clear();
    for (const auto& [name, value] : c.variables) set(name, value);
    const std::string message = error();
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << message;
    // "auto" stops at a resolver whose variables are set but wrong.
    EXPECT_NE(error("auto").find(c.expected), std::string::npos) << error("auto");
  }
}

}  // namespace
}  // namespace strata::testing
