// Strategies for tests: every kind, over virtual CPU devices of a Runtime
// with the in-tree hierarchical_copy plugin.
#ifndef STRATA_TESTS_STRATEGY_STRATEGY_TEST_UTIL_H_
#define STRATA_TESTS_STRATEGY_STRATEGY_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core_test_runtime.h"
#include "core/strategy/strategy_factory.h"

namespace strata::testing {

struct StrategyCase {
  std::string kind;
  int replicas;
};

inline std::string case_name(const ::testing::TestParamInfo<StrategyCase>& info) {
  return info.param.kind + "_" + std::to_string(info.param.replicas);
}

inline const std::vector<StrategyCase>& all_strategy_cases() {
  static const std::vector<StrategyCase> cases = {
      {"default", 1}, {"one_device", 1}, {"mirrored", 1}, {"mirrored", 4},
      {"central_storage", 3}};
  return cases;
}

inline std::unique_ptr<Strategy> make_test_strategy(const std::shared_ptr<Runtime>& runtime,
                                                    const StrategyCase& c,
                                                    CommunicationOptions communication = {}) {
  StrategyOptions options;
  options.communication = communication;
  if (c.kind != "default") {
    for (int i = 0; i < c.replicas; ++i) options.devices.push_back("cpu:" + std::to_string(i));
  }
  auto s = make_strategy(runtime, c.kind, options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// A fixture parameterised by StrategyCase: runtime_ with 8 cpu devices and
// strategy_ of the case's kind.
class StrategyTest : public ::testing::TestWithParam<StrategyCase> {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(8);
    ASSERT_NE(runtime_, nullptr);
    strategy_ = make_test_strategy(runtime_, GetParam());
    ASSERT_NE(strategy_, nullptr);
  }
  int n() const { return strategy_->num_replicas_in_sync(); }

  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<Strategy> strategy_;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_STRATEGY_STRATEGY_TEST_UTIL_H_
