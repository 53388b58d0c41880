// Tensor fusion: plan_packs must follow TF's CollectiveAllReduce grouping
// exactly (users tune bytes_per_pack against TF's behaviour), and
// batch_all_reduce must reduce every tensor of every replica, whatever the
// packing, without writing outside the tensors.
#include "core/collective/packing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core_test_runtime.h"
#include "strata/sdk/host_kernels.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;

Buffer tensor(DType dtype, uint64_t count) { return Buffer{nullptr, dtype, count, {}}; }

std::vector<std::vector<size_t>> groups(const std::vector<PackPlan>& packs) {
  std::vector<std::vector<size_t>> out;
  for (const auto& p : packs) out.push_back(p.tensors);
  return out;
}

TEST(PlanPacksTest, ReverseOrderAndANewPackOnceTheCurrentOneHasPassedTheSize) {
  // Four 100-byte tensors, 150 bytes per pack: the last two fill the first
  // pack (100, then 200 > 150 closes it), the first two the second.
  const std::vector<Buffer> t(4, tensor(DType::kF32, 25));
  const auto packs = plan_packs(t, 150);
  EXPECT_THAT(groups(packs), ElementsAre(ElementsAre(3, 2), ElementsAre(1, 0)));
  EXPECT_EQ(packs[0].count, 50u);
  EXPECT_EQ(packs[1].dtype, DType::kF32);
}

TEST(PlanPacksTest, ReachingTheSizeExactlyIsNotPassingIt) {
  const std::vector<Buffer> t(3, tensor(DType::kF32, 25));
  EXPECT_THAT(groups(plan_packs(t, 200)), ElementsAre(ElementsAre(2, 1, 0)));
  EXPECT_THAT(groups(plan_packs(t, 199)), ElementsAre(ElementsAre(2, 1), ElementsAre(0)));
}

TEST(PlanPacksTest, PacksErrOnTheLargeSide) {
  // TF keeps every pack at least bytes_per_pack: a big tensor joins an open
  // pack instead of being set apart.
  const std::vector<Buffer> t = {tensor(DType::kU8, 10), tensor(DType::kU8, 10),
                                 tensor(DType::kU8, 1000), tensor(DType::kU8, 10)};
  const auto packs = plan_packs(t, 100);
  EXPECT_THAT(groups(packs), ElementsAre(ElementsAre(3, 2), ElementsAre(1, 0)));
  EXPECT_EQ(packs[0].count, 1010u);
  EXPECT_EQ(packs[1].count, 20u);
}

TEST(PlanPacksTest, OneDTypePerPack) {
  const std::vector<Buffer> t = {tensor(DType::kF32, 25), tensor(DType::kI32, 25),
                                 tensor(DType::kF32, 25), tensor(DType::kF64, 10),
                                 tensor(DType::kI32, 25)};
  const auto packs = plan_packs(t, 1 << 20);
  EXPECT_THAT(groups(packs), ElementsAre(ElementsAre(4, 1), ElementsAre(3), ElementsAre(2, 0)));
  EXPECT_EQ(packs[0].dtype, DType::kI32);
  EXPECT_EQ(packs[1].dtype, DType::kF64);
  EXPECT_EQ(packs[2].dtype, DType::kF32);
  EXPECT_EQ(packs[2].count, 50u);
}

TEST(PlanPacksTest, ZeroBytesPerPackLeavesEveryTensorAlone) {
  const std::vector<Buffer> t = {tensor(DType::kF32, 1), tensor(DType::kF32, 1),
                                 tensor(DType::kF32, 1)};
  EXPECT_THAT(groups(plan_packs(t, 0)),
              ElementsAre(ElementsAre(2), ElementsAre(1), ElementsAre(0)));
  EXPECT_TRUE(plan_packs({}, 100).empty());
}

// End to end on 4 virtual CPU devices through hierarchical_copy.
class BatchAllReduceTest : public ::testing::Test {
 protected:
  static constexpr int kReplicas = 4;
  static constexpr uint64_t kGap = 64;  // guard bytes after every tensor
  static constexpr unsigned char kGuard = 0xab;

  void SetUp() override {
    rt_ = testing::make_runtime(kReplicas);
    ASSERT_NE(rt_, nullptr);
    devices_ = *rt_->devices("cpu", kReplicas);
  }

  StatusOr<std::unique_ptr<CollectiveOps>> ops(uint64_t bytes_per_pack) {
    CommunicationOptions options;
    options.bytes_per_pack = bytes_per_pack;
    return CollectiveOps::create(rt_, TeamSpec{devices_}, options);
  }

  // Element value of tensor t, replica r: small integers exact in every dtype.
  static double input(int r, size_t t, uint64_t i) {
    return static_cast<double>((r + 1) * static_cast<int>(t + 1)) + static_cast<double>(i % 5);
  }
  static double sum(size_t t, uint64_t i) {
    double s = 0;
    for (int r = 0; r < kReplicas; ++r) s += input(r, t, i);
    return s;
  }

  static void put(DType d, char* p, double v) {
    switch (d) {
      case DType::kF32: { const auto x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
      case DType::kF64: std::memcpy(p, &v, 8); break;
      case DType::kF16: {
        const uint16_t x = sdk::float_to_half(static_cast<float>(v));
        std::memcpy(p, &x, 2);
        break;
      }
      case DType::kBF16: {
        const uint16_t x = sdk::float_to_bfloat16(static_cast<float>(v));
        std::memcpy(p, &x, 2);
        break;
      }
      case DType::kI32: { const auto x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
      case DType::kI64: { const auto x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
      case DType::kU8: *p = static_cast<char>(static_cast<uint8_t>(v)); break;
    }
  }

  std::shared_ptr<Runtime> rt_;
  std::vector<strata_device_t> devices_;
};

TEST_F(BatchAllReduceTest, MixedSizesAndDTypesGiveExactSumsForEveryPacking) {
  const std::vector<std::pair<DType, uint64_t>> shapes = {
      {DType::kF32, 1}, {DType::kF32, 10},  {DType::kI32, 100}, {DType::kF64, 3},
      {DType::kF32, 1000}, {DType::kU8, 7}, {DType::kI64, 5},   {DType::kF32, 50},
      {DType::kBF16, 9}, {DType::kF16, 4},  {DType::kF32, 0}};
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (const auto& [d, n] : shapes) {  // each tensor cache-line aligned, guard bytes after
    offsets.push_back(total);
    total = (total + n * dtype_size(d) + kGap + 63) / 64 * 64;
  }
  const sdk::DeviceTable table = testing::cpu_table(*rt_);
  // 0: every tensor alone; 256: several packs plus lone big tensors; 32 MiB: one per dtype.
  for (uint64_t bytes_per_pack : {uint64_t{0}, uint64_t{256}, uint64_t{32} << 20}) {
    SCOPED_TRACE("bytes_per_pack=" + std::to_string(bytes_per_pack));
    auto collective = ops(bytes_per_pack);
    ASSERT_TRUE(collective.ok()) << collective.status();
    std::vector<sdk::DeviceBuffer> memory;
    std::vector<std::vector<Buffer>> per_replica(kReplicas);
    for (int r = 0; r < kReplicas; ++r) {
      std::vector<char> host(total, static_cast<char>(kGuard));
      for (size_t t = 0; t < shapes.size(); ++t) {
        const auto [d, n] = shapes[t];
        for (uint64_t i = 0; i < n; ++i) {
          put(d, &host[offsets[t] + i * dtype_size(d)], input(r, t, i));
        }
      }
      memory.emplace_back(table, r, total);
      table.copy_async(r, memory.back().data(), r, host.data(), STRATA_HOST_INDEX, total);
      table.synchronize(r, 5s);
      for (size_t t = 0; t < shapes.size(); ++t) {
        per_replica[r].push_back(Buffer{static_cast<char*>(memory.back().data()) + offsets[t],
                                        shapes[t].first, shapes[t].second, devices_[r]});
      }
    }
    const Status s = (*collective)->batch_all_reduce(per_replica, ReduceOp::kSum);
    ASSERT_TRUE(s.ok()) << s;

    std::vector<char> want(total, static_cast<char>(kGuard));
    for (size_t t = 0; t < shapes.size(); ++t) {
      const auto [d, n] = shapes[t];
      for (uint64_t i = 0; i < n; ++i) put(d, &want[offsets[t] + i * dtype_size(d)], sum(t, i));
    }
    for (int r = 0; r < kReplicas; ++r) {
      std::vector<char> got(total);
      table.copy_async(r, got.data(), STRATA_HOST_INDEX, memory[r].data(), r, total);
      table.synchronize(r, 5s);
      for (size_t t = 0; t < shapes.size(); ++t) {
        const uint64_t end = t + 1 < shapes.size() ? offsets[t + 1] : total;
        // Tensor bytes hold the sum; the guard bytes after it are untouched.
        EXPECT_EQ(0, std::memcmp(&got[offsets[t]], &want[offsets[t]], end - offsets[t]))
            << "replica " << r << " tensor " << t << " (" << dtype_name(shapes[t].first) << " x "
            << shapes[t].second << ")";
      }
    }
  }
}

TEST_F(BatchAllReduceTest, MismatchedTensorListsAreRefusedClearly) {
  auto collective = ops(1024);
  ASSERT_TRUE(collective.ok()) << collective.status();
  const sdk::DeviceTable table = testing::cpu_table(*rt_);
  std::vector<sdk::DeviceBuffer> memory;
  std::vector<std::vector<Buffer>> lists(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    memory.emplace_back(table, r, 64);
    for (int t = 0; t < 3; ++t) {
      lists[r].push_back(Buffer{static_cast<char*>(memory.back().data()) + 16 * t, DType::kF32, 4,
                                devices_[r]});
    }
  }
  auto refused = [&](std::vector<std::vector<Buffer>> l) {
    const Status s = (*collective)->batch_all_reduce(l, ReduceOp::kSum);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    return s.message();
  };
  auto fewer = lists;
  fewer[1].pop_back();
  EXPECT_EQ(refused(fewer), "replica 1 passed 2 tensors, replica 0 passed 3");
  auto resized = lists;
  resized[2][1].count = 3;
  EXPECT_EQ(refused(resized), "tensor 1 of replica 2 differs in size or dtype from replica 0's");
  auto retyped = lists;
  retyped[3][0].dtype = DType::kI32;
  EXPECT_EQ(refused(retyped), "tensor 0 of replica 3 differs in size or dtype from replica 0's");
  auto moved = lists;
  moved[1][2].device = devices_[0];
  EXPECT_EQ(refused(moved), "tensor 2 of replica 1 is on cpu:0, not on the replica's device");
  auto short_list = lists;
  short_list.pop_back();
  EXPECT_EQ(refused(short_list),
            "batch_all_reduce needs one tensor list per local replica (4); got 3");
  // A refusal leaves the team usable.
  EXPECT_TRUE((*collective)->batch_all_reduce(lists, ReduceOp::kSum).ok());
}

}  // namespace
}  // namespace strata
