// Runtime's device naming: "cpu:3" is how users, configs and error messages
// refer to devices, so parsing, printing and every refusal are pinned.
#include "core/runtime/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace strata {
namespace {

using ::testing::HasSubstr;

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Config config;
    config.devices.cpu_count = 4;
    auto rt = Runtime::create(config, RuntimeOptions{.discover_plugins = false,
                                                     .use_environment = false,
                                                 .plugin_files = {}});
    ASSERT_TRUE(rt.ok()) << rt.status();
    rt_ = *rt;
    cpu_ = rt_->registry().find_device_type("cpu")->id;
  }

  std::shared_ptr<Runtime> rt_;
  uint32_t cpu_ = 0;
};

TEST_F(RuntimeTest, ParsesAndNamesDevices) {
  auto d = rt_->parse_device("cpu:3");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->type, cpu_);
  EXPECT_EQ(d->index, 3);
  EXPECT_EQ(rt_->device_name(*d), "cpu:3");
  auto first = rt_->parse_device("cpu:0");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->index, 0);
}

TEST_F(RuntimeTest, UnknownTypeListsTheRegisteredTypes) {
  auto d = rt_->parse_device("gpu:0");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Code::kNotFound);
  EXPECT_EQ(d.status().message(), "unknown device type 'gpu' in 'gpu:0'; registered types: cpu");
}

TEST_F(RuntimeTest, MissingDeviceSaysHowManyThereAre) {
  auto d = rt_->parse_device("cpu:99");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Code::kNotFound);
  EXPECT_EQ(d.status().message(),
            "device 'cpu:99' does not exist; this process has 4 cpu device(s)");
  EXPECT_EQ(rt_->parse_device("cpu:4").status().code(), Code::kNotFound);  // one past the end
}

TEST_F(RuntimeTest, BadSyntaxShowsTheExpectedForm) {
  auto d = rt_->parse_device("cpu");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(d.status().message(), "device 'cpu' should be written TYPE:INDEX, e.g. cpu:0");
  for (const char* text : {"cpu:", "cpu:x", "cpu:-1", "cpu:1x", "cpu: 1", "cpu:1:2"}) {
    auto bad = rt_->parse_device(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.status().code(), Code::kInvalidArgument) << text;
    EXPECT_EQ(bad.status().message(), "device '" + std::string(text) + "' has a bad index");
  }
}

TEST_F(RuntimeTest, DevicesReturnsTheFirstNOfAType) {
  auto all = rt_->devices("cpu", 4);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*all)[static_cast<size_t>(i)].type, cpu_);
    EXPECT_EQ((*all)[static_cast<size_t>(i)].index, i);
  }
  auto one = rt_->devices("cpu", 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(rt_->device_name(one->front()), "cpu:0");
}

TEST_F(RuntimeTest, DevicesOutOfBounds) {
  for (int count : {0, -1, 5}) {
    auto d = rt_->devices("cpu", count);
    ASSERT_FALSE(d.ok()) << count;
    EXPECT_EQ(d.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(d.status().message(),
              "asked for " + std::to_string(count) +
                  " cpu device(s) but this process has 4 (raise devices.cpu.count in the config)");
  }
  auto gpu = rt_->devices("gpu", 1);
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), Code::kNotFound);
  EXPECT_EQ(gpu.status().message(), "unknown device type 'gpu'");
}

TEST_F(RuntimeTest, DeviceCountAndExistence) {
  EXPECT_EQ(*rt_->device_count("cpu"), 4);
  EXPECT_TRUE(rt_->device_exists({cpu_, 0}));
  EXPECT_TRUE(rt_->device_exists({cpu_, 3}));
  EXPECT_FALSE(rt_->device_exists({cpu_, 4}));
  EXPECT_FALSE(rt_->device_exists({cpu_, -1}));
  EXPECT_FALSE(rt_->device_exists({cpu_ + 50, 0}));
  // An unregistered type still prints, so messages about it stay readable.
  EXPECT_EQ(rt_->device_name({cpu_ + 50, 2}), "type" + std::to_string(cpu_ + 50) + ":2");
}

TEST_F(RuntimeTest, CpuCountComesFromTheConfig) {
  Config config;
  config.devices.cpu_count = 2;
  auto rt = Runtime::create(config, RuntimeOptions{.discover_plugins = false,
                                                   .use_environment = false,
                                                 .plugin_files = {}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  EXPECT_EQ(*(*rt)->device_count("cpu"), 2);
  EXPECT_THAT((*rt)->parse_device("cpu:2").status().message(),
              HasSubstr("this process has 2 cpu device(s)"));
}

TEST_F(RuntimeTest, ExplicitPluginFileRegistersItsAlgorithms) {
  auto rt = Runtime::create(
      {}, RuntimeOptions{.discover_plugins = false,
                         .use_environment = false,
                         .plugin_files = {std::string(STRATA_PLUGIN_DIR) +
                                          "/libstrata_hierarchical_copy.so"}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  EXPECT_NE((*rt)->registry().find_algorithm("hierarchical_copy/all_reduce/hierarchical"),
            nullptr);
  EXPECT_TRUE(rt_->registry().algorithms().empty()) << "no plugin without discovery";
}

}  // namespace
}  // namespace strata
