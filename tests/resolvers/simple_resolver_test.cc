// The simple resolver: STRATA_WORKERS / STRATA_TASK_INDEX (plus optional
// STRATA_CHIEF, STRATA_PS, STRATA_TASK_TYPE), and a single process when none
// of them is set.
#include "core/cluster/resolvers/simple_resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "resolver_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using testing::env_of;
using testing::error_of;
using testing::Variables;

StatusOr<ClusterSpec> resolve_simple(Variables variables) {
  return SimpleResolver(env_of(std::move(variables))).describe();
}

TEST(SimpleResolver, NothingSetIsASingleProcess) {
  auto spec = resolve_simple({{"STRATA_WORKERS", ""}});  // blank counts as unset
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre(""));
  EXPECT_EQ(spec->world_size(), 1);
  EXPECT_EQ(spec->rank(), 0);
  EXPECT_TRUE(spec->is_chief());
  EXPECT_EQ(spec->resolver, "simple");
  EXPECT_TRUE(spec->validate().ok());
}

TEST(SimpleResolver, WorkersAndIndex) {
  auto spec = resolve_simple({{"STRATA_WORKERS", "a:5000,b:5001,[::1]:5002"}, {"STRATA_TASK_INDEX", "2"}});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre("a:5000", "b:5001", "[::1]:5002"));
  EXPECT_EQ(spec->task_type, "worker");
  EXPECT_EQ(spec->rank(), 2);
  EXPECT_EQ(spec->chief_address(), "a:5000");
}

TEST(SimpleResolver, OneWorkerNeedsNoIndex) {
  auto spec = resolve_simple({{"STRATA_WORKERS", "localhost:29500"}});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->task_index, 0);
}

TEST(SimpleResolver, ChiefAndParameterServers) {
  Variables v = {{"STRATA_CHIEF", "c:1"},
                 {"STRATA_WORKERS", "w0:1,w1:1"},
                 {"STRATA_PS", "p0:1,p1:1"},
                 {"STRATA_TASK_TYPE", "chief"}};
  auto chief = resolve_simple(v);
  ASSERT_TRUE(chief.ok()) << chief.status();
  EXPECT_EQ(chief->rank(), 0);
  EXPECT_TRUE(chief->is_chief());
  EXPECT_EQ(chief->world_size(), 3);
  v["STRATA_TASK_TYPE"] = "ps";
  v["STRATA_TASK_INDEX"] = "1";
  auto ps = resolve_simple(v);
  ASSERT_TRUE(ps.ok()) << ps.status();
  EXPECT_EQ(ps->task_type, "ps");
  EXPECT_EQ(ps->rank(), std::nullopt);
  v["STRATA_TASK_TYPE"] = "worker";
  auto worker = resolve_simple(v);
  ASSERT_TRUE(worker.ok()) << worker.status();
  EXPECT_EQ(worker->rank(), 2);  // after the chief
}

TEST(SimpleResolver, BadInputIsNamed) {
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_TASK_INDEX", "1"}})),
            "STRATA_TASK_INDEX set, but neither STRATA_WORKERS nor STRATA_CHIEF lists the job's "
            "tasks; set STRATA_WORKERS=host:port,host:port");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1,b:1"}})),
            "STRATA_TASK_INDEX is not set; STRATA_WORKERS lists 2 task(s), indices 0-1, so say "
            "which one this process is");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1,b:1"}, {"STRATA_TASK_INDEX", "2"}})),
            "STRATA_TASK_INDEX=2 is out of range: STRATA_WORKERS lists 2 task(s), indices 0-1");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1,b:1"}, {"STRATA_TASK_INDEX", "x"}})),
            "STRATA_TASK_INDEX='x' is not an integer from 0 to 65536");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1,,b:1"}, {"STRATA_TASK_INDEX", "0"}})),
            "STRATA_WORKERS='a:1,,b:1' has an empty entry at position 1; write "
            "host:port,host:port");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1,b"}, {"STRATA_TASK_INDEX", "0"}})),
            "STRATA_WORKERS='a:1,b': entry 1 'b' is not host:port with a port from 1 to 65535");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:99999"}})),
            "STRATA_WORKERS='a:99999': entry 0 'a:99999' is not host:port with a port from 1 "
            "to 65535");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1"}, {"STRATA_TASK_TYPE", "boss"}})),
            "STRATA_TASK_TYPE='boss' is not one of worker, chief, ps");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_WORKERS", "a:1"}, {"STRATA_TASK_TYPE", "ps"}})),
            "STRATA_TASK_TYPE=ps but STRATA_PS is not set; list that job's addresses there");
  EXPECT_EQ(error_of(resolve_simple({{"STRATA_CHIEF", "a:1,b:1"}})),
            "STRATA_CHIEF='a:1,b:1' lists 2 addresses; a job has one chief");
}

TEST(SimpleResolver, DuplicateAddressesAreCaughtByValidate) {
  auto spec = resolve_simple({{"STRATA_WORKERS", "a:1,a:1"}, {"STRATA_TASK_INDEX", "0"}});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->validate().message(),
            "STRATA_WORKERS, STRATA_TASK_INDEX (simple resolver): worker 0 and worker 1 have the "
            "same address 'a:1'");
}

}  // namespace
}  // namespace strata
