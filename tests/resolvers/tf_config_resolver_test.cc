// TF_CONFIG in the full format of the seeds (chief, worker, ps, evaluator,
// task, rpc_layer) and every malformed variant refused with an error that
// names TF_CONFIG, the key and the problem.
#include "core/cluster/resolvers/tf_config_resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "resolver_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using testing::env_of;
using testing::error_of;
using ::testing::StartsWith;

constexpr const char* kFull = R"({
  "cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"],
              "ps": ["p0:2222", "p1:2222"], "evaluator": ["e0:2222"]},
  "task": {"type": "worker", "index": 1},
  "rpc_layer": "grpc"})";

StatusOr<ClusterSpec> parse(std::string_view text) { return parse_tf_config(text); }

TEST(TfConfig, ReadsTheFullFormat) {
  auto spec = parse(kFull);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("chief"), ElementsAre("c0:2222"));
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre("w0:2222", "w1:2222", "w2:2222"));
  EXPECT_THAT(spec->jobs.at("ps"), ElementsAre("p0:2222", "p1:2222"));
  EXPECT_THAT(spec->jobs.at("evaluator"), ElementsAre("e0:2222"));
  EXPECT_EQ(spec->task_type, "worker");
  EXPECT_EQ(spec->task_index, 1);
  EXPECT_EQ(spec->rpc_layer, "grpc");
  EXPECT_EQ(spec->source, "TF_CONFIG");
  // The chief comes first in the collective world, so worker 1 is rank 2.
  EXPECT_EQ(spec->world_size(), 4);
  EXPECT_EQ(spec->rank(), 2);
  EXPECT_FALSE(spec->is_chief());
  EXPECT_EQ(spec->chief_address(), "c0:2222");
  EXPECT_TRUE(spec->validate().ok());
}

TEST(TfConfig, TheSeedsExampleWorkerZeroIsChiefWithoutAChiefJob) {
  auto spec = parse(R"({"cluster": {"worker": ["host1:port", "host2:port", "host3:port"],
                                    "ps": ["host4:port", "host5:port"]},
                        "task": {"type": "worker", "index": 0}})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->world_size(), 3);
  EXPECT_EQ(spec->rank(), 0);
  EXPECT_TRUE(spec->is_chief());
  EXPECT_EQ(spec->chief_address(), "host1:port");
  EXPECT_EQ(spec->rpc_layer, "");
}

TEST(TfConfig, PsAndEvaluatorTasksHaveNoRank) {
  auto ps = parse(R"({"cluster": {"worker": ["w:1"], "ps": ["p:1", "q:1"]},
                      "task": {"type": "ps", "index": 1}})");
  ASSERT_TRUE(ps.ok()) << ps.status();
  EXPECT_EQ(ps->rank(), std::nullopt);
  EXPECT_FALSE(ps->is_chief());
  auto chief = parse(R"({"cluster": {"chief": ["c:1"], "worker": ["w:1"]},
                         "task": {"type": "chief", "index": 0}})");
  ASSERT_TRUE(chief.ok()) << chief.status();
  EXPECT_EQ(chief->rank(), 0);
  EXPECT_TRUE(chief->is_chief());
}

TEST(TfConfig, AnEvaluatorMayRunOutsideTheClusterAsInTf) {
  auto spec = parse(R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "evaluator"}})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->task_type, "evaluator");
  EXPECT_THAT(spec->jobs.at("evaluator"), ElementsAre(""));
  EXPECT_EQ(spec->world_size(), 1);
  EXPECT_TRUE(spec->validate().ok());
}

TEST(TfConfig, IndexDefaultsToZeroAndJobsMayBeIndexMaps) {
  auto spec = parse(R"({"cluster": {"worker": {"1": "b:1", "0": "a:1"}},
                        "task": {"type": "worker"}, "environment": "cloud", "job": {}})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre("a:1", "b:1"));
  EXPECT_EQ(spec->task_index, 0);
}

TEST(TfConfig, UnsetOrBlankDeclinesSoAutoMovesOn) {
  for (const auto& env : {env_of({}), env_of({{"TF_CONFIG", "  "}})}) {
    auto spec = TfConfigResolver(env).describe();
    EXPECT_EQ(spec.status().code(), Code::kNotSupported);
    EXPECT_EQ(error_of(spec), "TF_CONFIG is not set");
  }
  auto spec = TfConfigResolver(env_of({{"TF_CONFIG", kFull}})).describe();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->task_index, 1);
}

TEST(TfConfig, BadJsonGivesThePositionAndTheTextBeforeIt) {
  auto spec = parse(R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker" "index": 0}})");
  EXPECT_EQ(spec.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(error_of(spec),
            "TF_CONFIG is not valid JSON: parse error at line 1, column 66: syntax error while "
            "parsing object - unexpected string literal; expected '}' (stopped at: "
            "'...\"type\": \"worker\" \"index\"')");
  EXPECT_EQ(error_of(parse("{\"cluster\":\n  {\"worker\": [\"a:1\",]}}")),
            "TF_CONFIG is not valid JSON: parse error at line 2, column 21: syntax error while "
            "parsing value - unexpected ']'; expected '[', '{', or a literal (stopped at: "
            "'...\":   {\"worker\": [\"a:1\",]')");
  EXPECT_THAT(error_of(parse("'cluster'")),
              StartsWith("TF_CONFIG is not valid JSON: parse error at line 1, column 1: "));
}

TEST(TfConfig, WrongShapesNameTheKeyAndWhatWasFound) {
  EXPECT_EQ(error_of(parse(R"(["a:1"])")),
            R"(TF_CONFIG must be a JSON object such as {"cluster": {"worker": ["host1:2222", )"
            R"("host2:2222"]}, "task": {"type": "worker", "index": 0}}, got an array (["a:1"]))");
  EXPECT_THAT(error_of(parse(R"({"task": {"type": "worker"}})")),
              StartsWith(R"(TF_CONFIG has no "cluster"; expected e.g. {"cluster": )"));
  EXPECT_EQ(error_of(parse(R"({"cluster": "w:1"})")),
            R"(TF_CONFIG: "cluster" must be an object of job name -> list of "host:port", )"
            R"(got a string ("w:1"))");
  EXPECT_EQ(
      error_of(parse(R"({"cluster": {}, "task": {"type": "worker"}})")),
      R"(TF_CONFIG: "cluster" has no jobs; list at least one, e.g. "worker": ["host1:2222"])");
  EXPECT_EQ(
      error_of(parse(R"({"cluster": {"master": ["m:1"]}})")),
      "TF_CONFIG: cluster has job 'master', which is not one of chief, worker, ps, evaluator");
  EXPECT_EQ(
      error_of(parse(R"({"cluster": {"worker": "w:1"}})")),
      R"(TF_CONFIG: cluster.worker must be a list of "host:port" strings, got a string ("w:1"))");
}

TEST(TfConfig, EmptyJobsAndBadAddressesAreRefused) {
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": ["w:1"], "ps": []}})")),
            R"(TF_CONFIG: cluster.ps is empty; list at least one "host:port")");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": ["w:1", 2222]}})")),
            R"(TF_CONFIG: cluster.worker[1] must be a "host:port" string, got a number (2222))");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": ["w:1", null]}})")),
            R"(TF_CONFIG: cluster.worker[1] must be a "host:port" string, got null)");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": [""]}})")),
            R"(TF_CONFIG: cluster.worker[0] is an empty string; expected "host:port")");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": {"0": "a:1", "2": "c:1"}}})")),
            "TF_CONFIG: cluster.worker has no task 1 but has task 2; every task needs an address");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": {"one": "a:1"}}})")),
            "TF_CONFIG: cluster.worker has key 'one'; the keys of a job written as an object are "
            "task indices");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"chief": ["a:1", "b:1"], "worker": ["w:1"]}})")),
            "TF_CONFIG: cluster.chief has 2 tasks; there can be at most one chief");
}

// Regression (issue 24): nlohmann::json keeps the last of two equal keys,
// so a second "worker" list silently replaced the first.
TEST(TfConfig, ARepeatedKeyIsRefusedNamingTheKeyAndItsObject) {
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": ["a:1"], "worker": ["b:1", "c:1"]},
                               "task": {"type": "worker", "index": 1}})")),
            "TF_CONFIG: key 'worker' appears twice in 'cluster'; JSON keys must be unique (the "
            "second would silently replace the first)");
  EXPECT_THAT(error_of(parse(R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker"},
                                 "task": {"type": "worker", "index": 0}})")),
              StartsWith("TF_CONFIG: key 'task' appears twice in the top-level object;"));
  EXPECT_THAT(error_of(parse(R"({"cluster": {"worker": ["a:1", "b:1"]},
                                 "task": {"type": "worker", "index": 0, "index": 1}})")),
              StartsWith("TF_CONFIG: key 'index' appears twice in 'task';"));
  EXPECT_THAT(error_of(parse(R"({"cluster": {"worker": {"0": "a:1", "0": "b:1"}},
                                 "task": {"type": "worker"}})")),
              StartsWith("TF_CONFIG: key '0' appears twice in 'cluster.worker';"));
  // The same key in two different objects is no repeat.
  auto spec = parse(R"({"cluster": {"worker": ["a:1"]},
                        "task": {"type": "worker", "index": 0, "cluster": 1}})");
  EXPECT_TRUE(spec.ok()) << spec.status();
}

// Regression (issue 24): "\u0000" is valid JSON, and the NUL cut the
// address short wherever it became a C string.
TEST(TfConfig, ANulOrControlCharacterInAnAddressIsRefusedNamingTheAddress) {
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": ["a:1", "h1\u0000.evil:2222"]},
                               "task": {"type": "worker", "index": 0}})")),
            R"(TF_CONFIG: cluster.worker[1] holds a NUL byte at offset 2, got a string )"
            R"(("h1\u0000.evil:2222"); expected "host:port")");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": {"0": "a\u0000:1"}}, "task": {}})")),
            R"(TF_CONFIG: cluster.worker.0 holds a NUL byte at offset 1, got a string )"
            R"(("a\u0000:1"); expected "host:port")");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"chief": ["c:1\t"]}, "task": {"type": "chief"}})")),
            R"(TF_CONFIG: cluster.chief[0] holds a control character at offset 3, got a string )"
            R"(("c:1\t"); expected "host:port")");
}

TEST(TfConfig, TaskProblemsAreNamed) {
  const std::string cluster = R"("cluster": {"chief": ["c:1"], "worker": ["a:1", "b:1", "d:1"]})";
  auto with_task = [&](const std::string& task) { return parse("{" + cluster + task + "}"); };
  EXPECT_EQ(error_of(with_task("")),
            R"(TF_CONFIG has no "task"; add "task": {"type": "worker", "index": N} to say which )"
            R"(task this process is)");
  EXPECT_EQ(error_of(with_task(R"(, "task": "worker")")),
            R"(TF_CONFIG: "task" must be an object like {"type": "worker", "index": 0}, got a )"
            R"(string ("worker"))");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"index": 0})")),
            R"(TF_CONFIG: task has no "type"; expected one of chief, worker, ps, evaluator)");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "master", "index": 0})")),
            R"(TF_CONFIG: task.type must be one of chief, worker, ps, evaluator, got a string )"
            R"(("master"))");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "ps", "index": 0})")),
            "TF_CONFIG: task.type is 'ps' but cluster has no job 'ps' (its jobs: chief, worker)");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "worker", "index": 3})")),
            "TF_CONFIG: task.index 3 is out of range: cluster.worker has 3 task(s), indices 0-2");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "chief", "index": 1})")),
            "TF_CONFIG: task.index 1 is out of range: cluster.chief has 1 task(s), indices 0-0");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "worker", "index": -1})")),
            "TF_CONFIG: task.index must be a non-negative integer, got a number (-1)");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "worker", "index": "1"})")),
            R"(TF_CONFIG: task.index must be a non-negative integer, got a string ("1"))");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "worker", "index": 1.5})")),
            "TF_CONFIG: task.index must be a non-negative integer, got a number (1.5)");
  EXPECT_EQ(error_of(with_task(R"(, "task": {"type": "evaluator", "index": 1})")),
            "TF_CONFIG: task.type is 'evaluator' but cluster has no job 'evaluator' (its jobs: "
            "chief, worker)");
}

TEST(TfConfig, RpcLayerMustBeAString) {
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker"},
                               "rpc_layer": 7})")),
            R"(TF_CONFIG: "rpc_layer" must be a string such as "grpc", got a number (7))");
}

TEST(TfConfig, LongValuesAreShortenedInMessages) {
  const std::string long_list(200, 'x');
  auto spec = parse(R"({"cluster": {"worker": {"0": ")" + long_list + R"("}, "ps": 5}})");
  EXPECT_EQ(error_of(spec),
            R"(TF_CONFIG: cluster.ps must be a list of "host:port" strings, got a number (5))");
  EXPECT_EQ(
      error_of(parse(R"({"cluster": {"worker": [")" + long_list + R"(", {"a": 1}]}})")),
      R"(TF_CONFIG: cluster.worker[1] must be a "host:port" string, got an object ({"a":1}))");
  EXPECT_EQ(error_of(parse(R"({"cluster": {"worker": [[")" + long_list + R"("]]}})")),
            R"(TF_CONFIG: cluster.worker[0] must be a "host:port" string, got an array )"
            R"((["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...))");
}

}  // namespace
}  // namespace strata
