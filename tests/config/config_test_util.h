// Shared by the config tests: parse a text as the file "test.yaml", and
// the message of a parse that must fail.
#ifndef STRATA_TESTS_CONFIG_CONFIG_TEST_UTIL_H_
#define STRATA_TESTS_CONFIG_CONFIG_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/config/config.h"

namespace strata::config_testing {

inline StatusOr<Config> parse(std::string_view yaml) { return parse_config(yaml, "test.yaml"); }

// The message of a parse that must fail with INVALID_ARGUMENT.
inline std::string error_of(std::string_view yaml) {
  StatusOr<Config> config = parse(yaml);
  EXPECT_FALSE(config.ok()) << "parsed but should not have:\n" << yaml;
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument) << config.status();
  return config.status().message();
}

}  // namespace strata::config_testing

#endif  // STRATA_TESTS_CONFIG_CONFIG_TEST_UTIL_H_
