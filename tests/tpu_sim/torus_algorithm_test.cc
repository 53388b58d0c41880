// The torus algorithms, each forced by id, on slices of several shapes
// (1x1, 1x4, 2x2, 2x3): every count class (empty, fewer elements than
// cores, not divisible by the grid, several 64-byte slices), in place and
// out of place, sum / max / mean (what the shared checker computes; the
// conformance suite covers every dtype and operator), every root — each
// buffer checked byte for byte, guards included, against a host reference.
// Also: teams that are sub-rectangles of the slice, teams that are not (a
// polite decline), and teams on another device type.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "collective_case.h"
#include "tpu_test_runtime.h"

namespace strata::testing {
namespace {

struct Shape {
  int rows;
  int cols;
};

std::string shape_name(const Shape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

CollectiveKind kind_of(const std::string& id) {
  if (id.find("/all_reduce/") != std::string::npos) return CollectiveKind::kAllReduce;
  if (id.find("/all_gather/") != std::string::npos) return CollectiveKind::kAllGather;
  return CollectiveKind::kBroadcast;
}

class TorusAlgorithmTest : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {
 protected:
  void SetUp() override {
    const Shape s = std::get<1>(GetParam());
    auto rt = tpu_runtime(s.rows, s.cols);
    ASSERT_TRUE(rt.ok()) << rt.status();
    runtime_ = *rt;
    std::vector<int> all;
    for (int c = 0; c < s.rows * s.cols; ++c) all.push_back(c);
    auto team = tpu_team(runtime_, all);
    ASSERT_TRUE(team.ok()) << team.status();
    team_ = std::move(*team);
  }
  const std::string& id() const { return std::get<0>(GetParam()); }
  int cores() const { return std::get<1>(GetParam()).rows * std::get<1>(GetParam()).cols; }

  // The cases one call of this op is checked with, root aside.
  std::vector<Case> cases() const {
    std::vector<Case> out;
    const CollectiveKind kind = kind_of(id());
    struct Op {
      DType dtype;
      ReduceOp op;
    };
    std::vector<Op> ops{{DType::kF32, ReduceOp::kSum}};
    if (kind == CollectiveKind::kAllReduce) {
      ops = {{DType::kF32, ReduceOp::kSum}, {DType::kF32, ReduceOp::kMax},
             {DType::kI32, ReduceOp::kMean}, {DType::kF32, ReduceOp::kMean},
             {DType::kI32, ReduceOp::kMax}};
    } else {
      ops.push_back({DType::kI32, ReduceOp::kSum});
    }
    int seed = 0;
    for (const Op& o : ops) {
      for (uint64_t count : {0u, 1u, 7u, 1023u, 4099u}) {
        for (bool in_place : {false, true}) {
          Case c;
          c.kind = kind;
          c.dtype = o.dtype;
          c.op = o.op;
          c.count = count;
          c.in_place = in_place;
          c.seed = ++seed;
          out.push_back(c);
        }
      }
    }
    return out;
  }

  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<CollectiveOps> team_;
};

TEST_P(TorusAlgorithmTest, MatchesHostReference) {
  const auto table = tpu_table(*runtime_);
  for (Case c : cases()) {
    const int roots = c.kind == CollectiveKind::kBroadcast ? cores() : 1;
    for (int root = 0; root < roots; ++root) {
      c.root = root;
      EXPECT_TRUE(run_case(*team_, table, c, id())) << c.describe();
    }
  }
}

TEST_P(TorusAlgorithmTest, RepeatedCallsOnOneTeamSeeNoStaleData) {
  const auto table = tpu_table(*runtime_);
  for (int i = 0; i < 6; ++i) {
    Case c;
    c.kind = kind_of(id());
    c.count = 1000 + static_cast<uint64_t>(i) * 333;  // scratch grows between calls
    c.in_place = i % 2 == 1;
    c.root = i % cores();
    c.seed = 100 + i;
    EXPECT_TRUE(run_case(*team_, table, c, id())) << c.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TorusAlgorithmTest,
    ::testing::Combine(::testing::Values("tpu_sim/all_reduce/torus", "tpu_sim/all_gather/torus",
                                         "tpu_sim/broadcast/torus"),
                       ::testing::Values(Shape{1, 1}, Shape{1, 4}, Shape{2, 2}, Shape{2, 3})),
    [](const auto& param_info) {
      std::string name =
          std::get<0>(param_info.param) + "_" + shape_name(std::get<1>(param_info.param));
      for (char& ch : name) {
        if (ch == '/') ch = '_';
      }
      return name;
    });

// Teams need not be the whole slice: any rectangle of it runs, its ring
// edges possibly crossing several links.
TEST(TorusTeams, SubRectanglesRunEveryAlgorithm) {
  auto rt = tpu_runtime(2, 3);
  ASSERT_TRUE(rt.ok()) << rt.status();
  const auto table = tpu_table(**rt);
  for (const std::vector<int>& cores : {std::vector<int>{1, 2, 4, 5}, std::vector<int>{5, 3},
                                        std::vector<int>{0, 2, 3, 5}, std::vector<int>{4}}) {
    auto team = tpu_team(*rt, cores);
    ASSERT_TRUE(team.ok()) << team.status();
    for (const char* id : {"tpu_sim/all_reduce/torus", "tpu_sim/all_gather/torus",
                           "tpu_sim/broadcast/torus"}) {
      Case c;
      c.kind = kind_of(id);
      c.count = 777;
      c.root = static_cast<int>(cores.size()) - 1;
      c.seed = 9;
      EXPECT_TRUE(run_case(**team, table, c, id)) << id << " on " << cores.size() << " cores";
    }
  }
}

TEST(TorusTeams, TeamsThatAreNotRectanglesAreDeclined) {
  auto rt = tpu_runtime(2, 3);
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto team = tpu_team(*rt, {0, 1, 3});  // an L: rows {0,1} x cols {0,1} lacks core 4
  ASSERT_TRUE(team.ok()) << team.status();
  Case c;
  c.count = 16;
  const auto result = run_case(**team, tpu_table(**rt), c, "tpu_sim/all_reduce/torus");
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("not a rectangle"), std::string::npos)
      << result.message();
}

TEST(TorusTeams, OtherDeviceTypesAreDeclined) {
  auto rt = tpu_runtime(2, 2, {}, /*general=*/true);
  ASSERT_TRUE(rt.ok()) << rt.status();
  TeamSpec spec;
  const auto cpu = *(*rt)->devices("cpu", 2);
  spec.local_devices = cpu;
  auto team = CollectiveOps::create(*rt, std::move(spec));
  ASSERT_TRUE(team.ok()) << team.status();
  Case c;
  c.count = 16;
  const sdk::DeviceTable table(&(*rt)->registry().find_device_type("cpu")->table);
  const auto result = run_case(**team, table, c, "tpu_sim/all_reduce/torus");
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("only on the simulated 'tpu' cores"),
            std::string::npos)
      << result.message();
  // Left to AUTO, the call goes to a general algorithm and succeeds.
  EXPECT_TRUE(run_case(**team, table, c, ""));
}

}  // namespace
}  // namespace strata::testing
