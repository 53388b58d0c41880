// Strategies on devices whose memory the host cannot touch (cuda on a GPU
// machine; "walled" test devices here): the training layer's host tensors
// are staged into device memory for every collective and back, so training
// ends with one device's weights just as it does on virtual CPU devices.
#include <gtest/gtest.h>

#include "core/strategy/default_strategy.h"
#include "core/strategy/device_staging.h"
#include "training_fixture.h"
#include "walled_device_type.h"

namespace strata::testing {
namespace {

class DeviceStagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(4);
    ASSERT_NE(runtime_, nullptr);
    auto id = runtime_->registry().add_device_type("staging_test", walled_.table());
    ASSERT_TRUE(id.ok()) << id.status();
  }

  std::unique_ptr<Strategy> strategy(const std::string& kind, int replicas) {
    StrategyOptions options;
    for (int i = 0; i < replicas; ++i) options.devices.push_back("walled:" + std::to_string(i));
    auto s = make_strategy(runtime_, kind, options);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  WalledDeviceType walled_{4};
  std::shared_ptr<Runtime> runtime_;
};

TEST_F(DeviceStagingTest, OnlyDevicesTheHostCannotTouchNeedStaging) {
  auto cpu = runtime_->devices("cpu", 2);
  auto walled = runtime_->devices("walled", 2);
  ASSERT_TRUE(cpu.ok() && walled.ok());
  auto cpu_needs = DeviceStaging::needed(*runtime_, *cpu);
  auto walled_needs = DeviceStaging::needed(*runtime_, *walled);
  ASSERT_TRUE(cpu_needs.ok() && walled_needs.ok());
  EXPECT_FALSE(*cpu_needs);
  EXPECT_TRUE(*walled_needs);
}

// The negative control: a host pointer handed to a walled device is refused,
// so the collectives below only succeed because the strategy staged.
TEST_F(DeviceStagingTest, TheWalledTypeRefusesHostPointers) {
  float host[4] = {1, 2, 3, 4};
  const strata_device_type_t table = walled_.table();
  void* device = nullptr;
  char text[256] = {0};
  ASSERT_EQ(table.allocate(table.user_data, 0, sizeof host, &device, {text, sizeof text}),
            STRATA_OK);
  EXPECT_EQ(table.copy_async(table.user_data, 0, host, 0, device, 0, sizeof host,
                             {text, sizeof text}),
            STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(text).find("is not walled device memory"), std::string::npos) << text;
  table.free(table.user_data, 0, device);
}

TEST_F(DeviceStagingTest, BadListsFailBeforeTheCollectiveRuns) {
  auto walled = runtime_->devices("walled", 2);
  ASSERT_TRUE(walled.ok());
  float a[4] = {0}, b[4] = {0};
  DeviceStaging staging(*runtime_, std::chrono::seconds(5));
  bool ran = false;
  auto collective = [&](const DeviceStaging::Lists&) {
    ran = true;
    return Status::Ok();
  };
  Status split = staging.run({{Buffer{a, DType::kF32, 4, (*walled)[0]},
                               Buffer{b, DType::kF32, 4, (*walled)[1]}}},
                             collective);
  EXPECT_EQ(split.code(), Code::kInvalidArgument) << split;
  EXPECT_NE(split.message().find("replica 0 has buffers on walled:0 and walled:1"),
            std::string::npos)
      << split;
  const strata_device_t missing{(*walled)[0].type, 9};
  Status nowhere = staging.run({{Buffer{a, DType::kF32, 4, missing}}}, collective);
  EXPECT_FALSE(nowhere.ok());
  EXPECT_FALSE(ran);
}

TEST_F(DeviceStagingTest, ReplicaAllReduceIsRight) {
  auto s = strategy("mirrored", 4);
  ASSERT_NE(s, nullptr);
  auto values = s->run([](ReplicaContext& ctx) -> StatusOr<Tensor> {
    const float id = static_cast<float>(ctx.replica_id_in_sync_group());
    return ctx.all_reduce(ReduceOp::kSum, Tensor({3}, {id, 10 * id, 1}));
  });
  ASSERT_TRUE(values.ok()) << values.status();
  for (const Tensor& t : values->values()) {
    EXPECT_EQ(t[0], 6.0f);  // 0 + 1 + 2 + 3
    EXPECT_EQ(t[1], 60.0f);
    EXPECT_EQ(t[2], 4.0f);
  }
  EXPECT_GT(walled_.host_copies(), 0);
}

// TF's equivalence test on walled devices: Mirrored (batched all-reduce) and
// CentralStorage (reduce, then broadcast) end with one device's weights.
class DeviceStagingTraining : public DeviceStagingTest,
                              public ::testing::WithParamInterface<StrategyCase> {};

TEST_P(DeviceStagingTraining, EndsWithTheSingleDeviceWeights) {
  auto s = strategy(GetParam().kind, GetParam().replicas);
  ASSERT_NE(s, nullptr);
  const Dataset data = batches(digits(250), 32);
  FitOptions options;
  options.epochs = 2;

  DefaultStrategy single;
  auto reference = digits_model(single, make_sgd(0.5f));
  auto distributed = digits_model(*s, make_sgd(0.5f));
  ASSERT_NE(reference, nullptr);
  ASSERT_NE(distributed, nullptr);
  ASSERT_TRUE(reference->fit(data, options).ok());
  auto history = distributed->fit(data, options);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->global_step, 16);
  for (size_t i = 0; i < reference->variables().size(); ++i) {
    for (int r = 0; r < s->num_replicas_in_sync(); ++r) {
      EXPECT_LT(max_abs_difference(reference->variables()[i]->value(0),
                                   distributed->variables()[i]->value(r)),
                2e-4)
          << distributed->variables()[i]->name() << " replica " << r << " under "
          << s->describe();
    }
  }
  EXPECT_GT(walled_.host_copies(), 0);
}

INSTANTIATE_TEST_SUITE_P(WalledDevices, DeviceStagingTraining,
                         ::testing::Values(StrategyCase{"mirrored", 4},
                                           StrategyCase{"central_storage", 3}),
                         case_name);

}  // namespace
}  // namespace strata::testing
