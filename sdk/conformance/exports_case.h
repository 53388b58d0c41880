// Rule 1 for one plugin file: its dynamic symbol table exports
// strata_plugin_entry and nothing else. Extra exports can collide with the
// host's or another plugin's symbols, and GNU-unique ones (template statics
// of the C++ runtime) keep the library mapped after dlclose.
#ifndef STRATA_SDK_CONFORMANCE_EXPORTS_CASE_H_
#define STRATA_SDK_CONFORMANCE_EXPORTS_CASE_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace strata::conformance {

class ExportsCase : public testing::Test {
 public:
  explicit ExportsCase(std::filesystem::path library) : library_(std::move(library)) {}
  void TestBody() override;

  // The test's name; its suite is the plugin's name.
  static constexpr const char* kTestName = "exports_only_strata_plugin_entry";

 private:
  std::filesystem::path library_;
};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_EXPORTS_CASE_H_
