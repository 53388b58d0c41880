// ClusterSpec's answers (world, rank, chief, addresses) and the shape checks
// of validate(), whose errors name the spec's source.
#include "core/cluster/cluster_spec.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

ClusterSpec spec_of(std::map<std::string, std::vector<std::string>> jobs, std::string type,
                    int index) {
  ClusterSpec spec;
  spec.jobs = std::move(jobs);
  spec.task_type = std::move(type);
  spec.task_index = index;
  spec.resolver = "test";
  spec.source = "TEST_VAR";
  return spec;
}

TEST(ClusterSpec, ChiefComesFirstThenWorkers) {
  const ClusterSpec spec =
      spec_of({{"chief", {"c:1"}}, {"worker", {"w0:1", "w1:1"}}, {"ps", {"p:1"}}}, "worker", 1);
  EXPECT_EQ(spec.world_size(), 3);
  EXPECT_EQ(spec.rank(), 2);
  EXPECT_FALSE(spec.is_chief());
  EXPECT_EQ(spec.chief_address(), "c:1");
  EXPECT_EQ(spec.address_of_rank(0), "c:1");
  EXPECT_EQ(spec.address_of_rank(1), "w0:1");
  EXPECT_EQ(spec.address_of_rank(2), "w1:1");
  EXPECT_EQ(spec.address_of_rank(3), "");
  EXPECT_EQ(spec.address_of_rank(-1), "");
  EXPECT_EQ(spec.task_name_of_rank(0), "chief 0");
  EXPECT_EQ(spec.task_name_of_rank(2), "worker 1");
  EXPECT_EQ(spec.task_name_of_rank(3), "rank 3 (outside a world of 3)");
}

TEST(ClusterSpec, WithoutAChiefWorkerZeroIsChief) {
  const ClusterSpec spec = spec_of({{"worker", {"w0:1", "w1:1"}}}, "worker", 0);
  EXPECT_EQ(spec.rank(), 0);
  EXPECT_TRUE(spec.is_chief());
  EXPECT_EQ(spec.chief_address(), "w0:1");
  EXPECT_FALSE(spec_of({{"worker", {"w0:1", "w1:1"}}}, "worker", 1).is_chief());
}

TEST(ClusterSpec, PsAndEvaluatorAreOutsideTheWorld) {
  const ClusterSpec ps = spec_of({{"worker", {"w:1"}}, {"ps", {"p:1"}}}, "ps", 0);
  EXPECT_EQ(ps.rank(), std::nullopt);
  EXPECT_FALSE(ps.is_chief());
  EXPECT_EQ(ps.world_size(), 1);
}

TEST(ClusterSpec, ToStringForLogs) {
  ClusterSpec spec = spec_of({{"chief", {"c:1"}}, {"worker", {"a:1", "b:1", "d:1"}}}, "worker", 1);
  spec.resolver = "tf_config";
  EXPECT_EQ(spec.to_string(), "worker 1 of {chief: 1, worker: 3} (tf_config)");
  spec.devices_per_task = 2;
  spec.device_type = "cpu";
  EXPECT_EQ(spec.to_string(),
            "worker 1 of {chief: 1, worker: 3} (tf_config), 2 cpu device(s) per task");
}

TEST(ClusterSpec, SingleProcess) {
  const ClusterSpec spec = single_process_cluster();
  EXPECT_EQ(spec.world_size(), 1);
  EXPECT_EQ(spec.rank(), 0);
  EXPECT_TRUE(spec.is_chief());
  EXPECT_EQ(spec.chief_address(), "");
  EXPECT_TRUE(spec.validate().ok()) << spec.validate();
}

TEST(ClusterSpec, ValidateNamesTheSourceAndTheProblem) {
  EXPECT_EQ(spec_of({}, "worker", 0).validate().message(), "TEST_VAR: the cluster has no jobs");
  EXPECT_EQ(spec_of({{"worker", {}}}, "worker", 0).validate().message(),
            "TEST_VAR: job 'worker' has no tasks");
  EXPECT_EQ(spec_of({{"Worker", {"a:1"}}}, "Worker", 0).validate().message(),
            "TEST_VAR: job name 'Worker' is not 1-63 characters of [a-z0-9_]");
  EXPECT_EQ(spec_of({{"worker", {"a:1"}}}, "ps", 0).validate().message(),
            "TEST_VAR: this task's type 'ps' is not a job of the cluster (jobs: worker)");
  EXPECT_EQ(spec_of({{"worker", {"a:1", "b:1"}}}, "worker", 2).validate().message(),
            "TEST_VAR: task index 2 is out of range for job 'worker', which has 2 task(s) "
            "(indices 0-1)");
  EXPECT_EQ(spec_of({{"worker", {"a:1"}}}, "worker", -1).validate().message(),
            "TEST_VAR: task index -1 is out of range for job 'worker', which has 1 task(s) "
            "(index 0)");
  EXPECT_EQ(spec_of({{"chief", {"a:1", "b:1"}}}, "chief", 0).validate().message(),
            "TEST_VAR: job 'chief' has 2 tasks; there can be at most one chief");
  EXPECT_EQ(spec_of({{"worker", {"a:1"}}, {"ps", {"a:1"}}}, "worker", 0).validate().message(),
            "TEST_VAR: ps 0 and worker 0 have the same address 'a:1'");
  ClusterSpec devices = spec_of({{"worker", {"a:1"}}}, "worker", 0);
  devices.device_type = "GPU";
  EXPECT_EQ(devices.validate().message(),
            "TEST_VAR: device type 'GPU' is not 1-63 characters of [a-z0-9_]");
  devices.device_type = "";
  devices.devices_per_task = -2;
  EXPECT_EQ(devices.validate().message(),
            "TEST_VAR: devices per task is -2; it must be 0 (unknown) or more");
  // Unknown addresses ("") are allowed, and not duplicates of each other.
  EXPECT_TRUE(spec_of({{"worker", {"", ""}}}, "worker", 1).validate().ok());
}

}  // namespace
}  // namespace strata
