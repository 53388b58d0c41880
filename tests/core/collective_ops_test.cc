// Call validation in CollectiveOps (core/collective/call_checks.cc), seen
// the way a user sees it: through a team of two virtual CPU devices with the
// hierarchical_copy plugin. Every malformed call is INVALID_ARGUMENT naming
// the replica and what was expected, carries the team context, and leaves
// the team usable for the next, correct call.
#include "core/collective/collective_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core_test_runtime.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kElements = 8;

class CollectiveOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = testing::make_runtime(3);  // cpu:2 exists but is not in the team
    ASSERT_NE(rt_, nullptr);
    auto devices = rt_->devices("cpu", 3);
    ASSERT_TRUE(devices.ok()) << devices.status();
    devices_ = *devices;
    auto ops = CollectiveOps::create(rt_, TeamSpec{{devices_[0], devices_[1]}});
    ASSERT_TRUE(ops.ok()) << ops.status();
    ops_ = std::move(*ops);
    const sdk::DeviceTable table = testing::cpu_table(*rt_);
    for (int r = 0; r < 2; ++r) {
      memory_.emplace_back(table, r, 4 * kElements * sizeof(float));
      auto* base = static_cast<float*>(memory_.back().data());
      in_.push_back(Buffer{base, DType::kF32, kElements, devices_[r]});
      out_.push_back(Buffer{base + 2 * kElements, DType::kF32, kElements, devices_[r]});
    }
  }

  // Asserts an INVALID_ARGUMENT with exactly `message`, in the team's context.
  static void expect_refused(const Status& s, const std::string& op, const std::string& message) {
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_EQ(s.message(), message);
    EXPECT_THAT(s.context(), StartsWith("op=" + op + " rank=0/1 replicas=2"));
    EXPECT_THAT(s.to_string(), StartsWith("INVALID_ARGUMENT: op=" + op + " rank=0/1"));
  }

  void write(int r, void* dst, const std::vector<float>& values) {
    const sdk::DeviceTable table = testing::cpu_table(*rt_);
    table.copy_async(r, dst, r, values.data(), STRATA_HOST_INDEX, values.size() * 4);
    table.synchronize(r, 5s);
  }
  std::vector<float> read(int r, const void* src, uint64_t n) {
    const sdk::DeviceTable table = testing::cpu_table(*rt_);
    std::vector<float> values(n);
    table.copy_async(r, values.data(), STRATA_HOST_INDEX, src, r, n * 4);
    table.synchronize(r, 5s);
    return values;
  }

  // Fills replica r's input with r + 1 and checks a plain all-reduce works.
  void expect_team_still_works() {
    for (int r = 0; r < 2; ++r) write(r, in_[r].data, std::vector<float>(kElements, r + 1.0f));
    const Status s = ops_->all_reduce(in_, out_, ReduceOp::kSum);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_TRUE(ops_->team().broken().ok());
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(read(r, out_[r].data, kElements), std::vector<float>(kElements, 3.0f)) << r;
    }
  }

  std::shared_ptr<Runtime> rt_;
  std::vector<strata_device_t> devices_;
  std::unique_ptr<CollectiveOps> ops_;
  std::vector<sdk::DeviceBuffer> memory_;
  std::vector<Buffer> in_;
  std::vector<Buffer> out_;
};

TEST_F(CollectiveOpsTest, WrongNumberOfBuffers) {
  const std::vector<Buffer> one = {in_[0]};
  expect_refused(ops_->all_reduce(one, out_, ReduceOp::kSum), "all_reduce",
                 "all_reduce needs one input and one output per local replica (2); "
                 "got 1 inputs and 2 outputs");
  expect_refused(ops_->broadcast(in_, {}, 0), "broadcast",
                 "broadcast needs one input and one output per local replica (2); "
                 "got 2 inputs and 0 outputs");
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, BufferOnTheWrongDevice) {
  auto in = in_;
  in[1].device = devices_[2];
  expect_refused(ops_->all_reduce(in, out_, ReduceOp::kSum), "all_reduce",
                 "replica 1's input is on cpu:2 but the replica runs on cpu:1");
  auto out = out_;
  out[0].device = devices_[1];
  expect_refused(ops_->all_reduce(in_, out, ReduceOp::kMax), "all_reduce",
                 "replica 0's output is on cpu:1 but the replica runs on cpu:0");
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, MixedDTypes) {
  auto out = out_;
  out[1].dtype = DType::kI32;
  expect_refused(ops_->all_reduce(in_, out, ReduceOp::kSum), "all_reduce",
                 "replica 1's output is i32 but replica 0's input is f32");
  auto in = in_;
  in[1].dtype = DType::kF64;
  expect_refused(ops_->reduce(in, out_, ReduceOp::kSum, 0), "reduce",
                 "replica 1's input is f64 but replica 0's input is f32");
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, WrongCountsForEachOp) {
  auto out = out_;
  out[1].count = kElements - 1;
  expect_refused(ops_->all_reduce(in_, out, ReduceOp::kSum), "all_reduce",
                 "all_reduce: replica 1's output has 7 elements, expected 8");
  // all_gather: each output holds every replica's input, count x 2.
  expect_refused(ops_->all_gather(in_, out_), "all_gather",
                 "all_gather: replica 0's output has 8 elements, expected 16");
  // reduce_scatter: each input holds every replica's slice, output x 2.
  expect_refused(ops_->reduce_scatter(in_, out_, ReduceOp::kSum), "reduce_scatter",
                 "reduce_scatter: replica 0's input has 8 elements, expected 16");
  auto in = in_;
  in[1].count = kElements + 1;
  expect_refused(ops_->broadcast(in, out_, 0), "broadcast",
                 "broadcast: replica 1's input has 9 elements, expected 8");
  expect_refused(ops_->reduce(in, out_, ReduceOp::kSum, 1), "reduce",
                 "reduce: replica 1's input has 9 elements, expected 8");
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, WellFormedGatherAndScatterPassValidation) {
  // all_gather: each output holds count x replicas, replica r's part at r x count.
  auto out = out_;
  for (auto& b : out) b.count = 2 * kElements;
  for (int r = 0; r < 2; ++r) write(r, in_[r].data, std::vector<float>(kElements, r + 1.0f));
  Status s = ops_->all_gather(in_, out);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<float> gathered(kElements, 1.0f);
  gathered.resize(2 * kElements, 2.0f);
  for (int r = 0; r < 2; ++r) EXPECT_EQ(read(r, out[r].data, 2 * kElements), gathered) << r;

  // In place: each replica's input is its own slot of its output.
  auto in = in_;
  for (int r = 0; r < 2; ++r) {
    in[r].data = static_cast<float*>(out[r].data) + r * kElements;
    write(r, out[r].data, std::vector<float>(2 * kElements, 0.0f));
    write(r, in[r].data, std::vector<float>(kElements, r + 1.0f));
  }
  s = ops_->all_gather(in, out);
  ASSERT_TRUE(s.ok()) << s;
  for (int r = 0; r < 2; ++r) EXPECT_EQ(read(r, out[r].data, 2 * kElements), gathered) << r;

  // reduce_scatter: inputs hold count x replicas; replica r gets slice r's sum.
  for (int r = 0; r < 2; ++r) {
    in[r].data = in_[r].data;
    in[r].count = 2 * kElements;
    std::vector<float> values(kElements, r + 1.0f);
    values.resize(2 * kElements, 10.0f * (r + 1));
    write(r, in[r].data, values);
  }
  s = ops_->reduce_scatter(in, out_, ReduceOp::kSum);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(read(0, out_[0].data, kElements), std::vector<float>(kElements, 3.0f));
  EXPECT_EQ(read(1, out_[1].data, kElements), std::vector<float>(kElements, 30.0f));
}

TEST_F(CollectiveOpsTest, NullDataWithElements) {
  auto in = in_;
  in[1].data = nullptr;
  expect_refused(ops_->all_reduce(in, out_, ReduceOp::kSum), "all_reduce",
                 "replica 1's input is NULL");
  auto empty = in_;
  auto empty_out = out_;
  for (auto* list : {&empty, &empty_out}) {
    for (auto& b : *list) {
      b.data = nullptr;
      b.count = 0;
    }
  }
  const Status zero = ops_->all_reduce(empty, empty_out, ReduceOp::kSum);
  EXPECT_NE(zero.code(), Code::kInvalidArgument) << "NULL is fine with no elements: " << zero;
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, MixedInPlaceAndOutOfPlace) {
  auto out = out_;
  out[0] = in_[0];  // replica 0 in place, replica 1 not
  expect_refused(ops_->all_reduce(in_, out, ReduceOp::kSum), "all_reduce",
                 "all_reduce must be in place for every local replica or for none; "
                 "replica 0 is in place, replica 1 is not");
  auto overlapping = out_;
  overlapping[0].data = static_cast<float*>(in_[0].data) + 1;
  expect_refused(ops_->all_reduce(in_, overlapping, ReduceOp::kSum), "all_reduce",
                 "replica 0's input and output overlap without being the in-place layout "
                 "of all_reduce");
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, RootOutOfRange) {
  expect_refused(ops_->broadcast(in_, out_, 2), "broadcast",
                 "broadcast root 2 is not a replica (0..1)");
  expect_refused(ops_->reduce(in_, out_, ReduceOp::kSum, -1), "reduce",
                 "reduce root -1 is not a replica (0..1)");
  expect_team_still_works();
}

TEST_F(CollectiveOpsTest, InPlaceAllReduceAfterErrors) {
  expect_refused(ops_->broadcast(in_, out_, 7), "broadcast",
                 "broadcast root 7 is not a replica (0..1)");
  for (int r = 0; r < 2; ++r) write(r, in_[r].data, std::vector<float>(kElements, 10.0f * (r + 1)));
  ASSERT_TRUE(ops_->all_reduce(in_, in_, ReduceOp::kMax).ok());
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(read(r, in_[r].data, kElements), std::vector<float>(kElements, 20.0f)) << r;
  }
}

// The previous call's algorithm is reused without a lookup only for the
// very same shape and forced algorithm. Both real algorithms give the same
// sums, so the name that names nothing is what shows a reuse across names:
// it must be refused every time, right after a successful call of the same
// shape too.
TEST_F(CollectiveOpsTest, RepeatedCallsReuseOnlyTheirOwnSelection) {
  CallOptions scatter;
  scatter.algorithm = "hierarchical_copy/all_reduce/scatter_reduce";
  CallOptions one_device;
  one_device.algorithm = "hierarchical_copy/all_reduce/reduction_to_one_device";
  CallOptions unknown;
  unknown.algorithm = "hierarchical_copy/all_reduce/no_such_algorithm";
  for (int round = 0; round < 2; ++round) {
    for (const CallOptions* options : {&scatter, &scatter, &unknown, &one_device, &unknown}) {
      for (int r = 0; r < 2; ++r) write(r, in_[r].data, std::vector<float>(kElements, r + 2.0f));
      const Status s = ops_->all_reduce(in_, out_, ReduceOp::kSum, *options);
      if (options == &unknown) {
        EXPECT_FALSE(s.ok()) << "round " << round;
        EXPECT_THAT(s.message(), HasSubstr("no_such_algorithm")) << s;
        continue;
      }
      ASSERT_TRUE(s.ok()) << options->algorithm << ": " << s;
      for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(read(r, out_[r].data, kElements), std::vector<float>(kElements, 5.0f))
            << options->algorithm << " replica " << r;
      }
    }
    // A different count between repeats of the same forced algorithm.
    auto half_in = in_;
    auto half_out = out_;
    for (int r = 0; r < 2; ++r) {
      half_in[r].count = kElements / 2;
      half_out[r].count = kElements / 2;
      write(r, out_[r].data, std::vector<float>(kElements, -1.0f));
    }
    ASSERT_TRUE(ops_->all_reduce(half_in, half_out, ReduceOp::kSum, one_device).ok());
    for (int r = 0; r < 2; ++r) {
      std::vector<float> expected(kElements, -1.0f);
      std::fill_n(expected.begin(), kElements / 2, 5.0f);
      EXPECT_EQ(read(r, out_[r].data, kElements), expected) << r;
    }
  }
  EXPECT_TRUE(ops_->team().broken().ok());
}

}  // namespace
}  // namespace strata
