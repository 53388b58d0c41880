// The slurm resolver: ranks from SLURM_PROCID, tasks placed on the nodes of
// the step in block order, ports from STRATA_SLURM_PORT_BASE (8888) plus the
// task's local index, and every missing or inconsistent variable named.
#include "core/cluster/resolvers/slurm_resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "resolver_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using testing::env_of;
using testing::error_of;
using testing::Variables;

// What srun sets for `srun -N4 -n7` (2 tasks on each of 3 nodes, then 1).
Variables step(std::string procid) {
  return {{"SLURM_PROCID", std::move(procid)},
          {"SLURM_STEP_NUM_TASKS", "7"},
          {"SLURM_STEP_NODELIST", "node[01-03,07]"},
          {"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}};
}

StatusOr<ClusterSpec> resolve_slurm(Variables variables) {
  return SlurmResolver(env_of(std::move(variables))).describe();
}

TEST(SlurmResolver, PlacesTasksInBlockOrderWithPortsPerLocalIndex) {
  auto spec = resolve_slurm(step("3"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"),
              ElementsAre("node01:8888", "node01:8889", "node02:8888", "node02:8889", "node03:8888",
                          "node03:8889", "node07:8888"));
  EXPECT_EQ(spec->jobs.size(), 1u);
  EXPECT_EQ(spec->task_type, "worker");
  EXPECT_EQ(spec->task_index, 3);
  EXPECT_EQ(spec->rank(), 3);
  EXPECT_EQ(spec->world_size(), 7);
  EXPECT_EQ(spec->chief_address(), "node01:8888");
  EXPECT_TRUE(spec->validate().ok()) << spec->validate();
}

TEST(SlurmResolver, PortBaseComesFromStrataSlurmPortBase) {
  Variables v = step("0");
  v["STRATA_SLURM_PORT_BASE"] = "29500";
  auto spec = resolve_slurm(v);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->jobs.at("worker")[1], "node01:29501");
  EXPECT_TRUE(spec->is_chief());
}

TEST(SlurmResolver, FallsBackToTheJobVariables) {
  auto spec = resolve_slurm({{"SLURM_PROCID", "1"},
                       {"SLURM_NTASKS", "2"},
                       {"SLURM_JOB_NODELIST", "gpu[1-2]"},
                       {"SLURM_TASKS_PER_NODE", "1(x2)"}});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre("gpu1:8888", "gpu2:8888"));
  EXPECT_EQ(spec->task_index, 1);
}

TEST(SlurmResolver, StepVariablesWinOverTheJobs) {
  Variables v = step("6");
  v["SLURM_NTASKS"] = "64";
  v["SLURM_JOB_NODELIST"] = "other[1-32]";
  v["SLURM_TASKS_PER_NODE"] = "2(x32)";
  auto spec = resolve_slurm(v);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->world_size(), 7);
  EXPECT_EQ(spec->jobs.at("worker")[6], "node07:8888");
}

TEST(SlurmResolver, OutsideSrunDeclines) {
  auto spec = resolve_slurm({{"SLURM_JOB_ID", "12"}, {"SLURM_JOB_NODELIST", "n1"}});
  EXPECT_EQ(spec.status().code(), Code::kNotSupported);
  EXPECT_EQ(error_of(spec), "SLURM_PROCID is not set (not a task started by srun)");
}

TEST(SlurmResolver, MissingVariablesAreNamed) {
  Variables v = step("0");
  v.erase("SLURM_STEP_NUM_TASKS");
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_PROCID is set but neither SLURM_STEP_NUM_TASKS nor SLURM_NTASKS is; start the "
            "program with srun, which sets both");
  v = step("0");
  v.erase("SLURM_STEP_NODELIST");
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_PROCID is set but neither SLURM_STEP_NODELIST nor SLURM_JOB_NODELIST is; start "
            "the program with srun, which sets both");
  v = step("0");
  v.erase("SLURM_STEP_TASKS_PER_NODE");
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_PROCID is set but neither SLURM_STEP_TASKS_PER_NODE nor SLURM_TASKS_PER_NODE "
            "is; start the program with srun, which sets both");
}

TEST(SlurmResolver, MalformedValuesAreQuoted) {
  EXPECT_EQ(error_of(resolve_slurm(step("one"))), "SLURM_PROCID='one' is not an integer from 0 to 65536");
  EXPECT_EQ(error_of(resolve_slurm(step("7"))),
            "SLURM_PROCID=7 is out of range: SLURM_STEP_NUM_TASKS='7' gives ranks 0-6");
  Variables v = step("0");
  v["SLURM_STEP_NUM_TASKS"] = "0";
  EXPECT_EQ(error_of(resolve_slurm(v)), "SLURM_STEP_NUM_TASKS='0' is not an integer from 1 to 65536");
  v = step("0");
  v["SLURM_STEP_NODELIST"] = "node[01-03,07";
  EXPECT_EQ(error_of(resolve_slurm(v)), "SLURM_STEP_NODELIST: unclosed '[' in host list 'node[01-03,07'");
  v = step("0");
  v["SLURM_STEP_TASKS_PER_NODE"] = "2(x3,1";
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_STEP_TASKS_PER_NODE: '2(x3' in '2(x3,1' is not N or N(xM), as in 2(x3),1");
  v = step("0");
  v["STRATA_SLURM_PORT_BASE"] = "http";
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "STRATA_SLURM_PORT_BASE='http' is not an integer from 1 to 65535");
  v["STRATA_SLURM_PORT_BASE"] = "65535";
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "port base 65535 (STRATA_SLURM_PORT_BASE) leaves no room for 2 tasks on one node: "
            "ports stop at 65535");
}

TEST(SlurmResolver, InconsistentCountsNameBothVariables) {
  Variables v = step("0");
  v["SLURM_STEP_NODELIST"] = "node[01-03]";
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_STEP_TASKS_PER_NODE='2(x3),1' describes 4 node(s) but "
            "SLURM_STEP_NODELIST='node[01-03]' has 3");
  v = step("0");
  v["SLURM_STEP_NUM_TASKS"] = "8";
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_STEP_TASKS_PER_NODE='2(x3),1' adds up to 7 task(s) but "
            "SLURM_STEP_NUM_TASKS='8'");
}

TEST(SlurmResolver, CyclicDistributionIsCaughtNotMisaddressed) {
  // With --distribution=cyclic rank 1 runs on node02, not beside rank 0.
  Variables v = step("1");
  v["SLURMD_NODENAME"] = "node02";
  v["SLURM_LOCALID"] = "0";
  v["SLURM_DISTRIBUTION"] = "cyclic";
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_PROCID=1 is local task 1 on node01 in block order, but "
            "SLURMD_NODENAME='node02'; tasks are not laid out in block order "
            "(SLURM_DISTRIBUTION=cyclic): start srun with --distribution=block");
  v.erase("SLURMD_NODENAME");
  EXPECT_EQ(error_of(resolve_slurm(v)),
            "SLURM_PROCID=1 is local task 1 on node01 in block order, but SLURM_LOCALID='0'; "
            "tasks are not laid out in block order (SLURM_DISTRIBUTION=cyclic): start srun "
            "with --distribution=block");
  v["SLURMD_NODENAME"] = "node01";
  v["SLURM_LOCALID"] = "1";
  EXPECT_TRUE(resolve_slurm(v).ok());
}

}  // namespace
}  // namespace strata
