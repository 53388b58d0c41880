// Rule 1 of sdk/README.md, checked on the built files: every plugin built
// by strata_add_plugin() exports strata_plugin_entry and nothing else, and
// the same source built without its version script is caught, GNU-unique
// symbols and all (the conformance suite runs the same check on a vendor's
// file: sdk/conformance/exports_case.cc).
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sdk/conformance/exported_symbols.h"
#include "tests/loader/loader_test_util.h"

namespace strata::loader_test {
namespace {

using ::testing::HasSubstr;
using conformance::exported_symbols;
using conformance::rule1_violation;

std::vector<fs::path> built_plugins() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(STRATA_PLUGIN_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("libstrata_") && name.ends_with(".so")) files.push_back(entry.path());
  }
  files.push_back(fake_file("sdk", "sdk"));
  return files;
}

TEST(Exports, EveryPluginBuiltByStrataAddPluginExportsOnlyItsEntry) {
  const auto files = built_plugins();
  ASSERT_GE(files.size(), 2u) << "no plugin found in " << STRATA_PLUGIN_DIR;
  for (const fs::path& file : files) {
    auto exports = exported_symbols(file);
    ASSERT_TRUE(exports.ok()) << exports.status();
    EXPECT_EQ(rule1_violation(file, *exports), "") << file;
    ASSERT_EQ(exports->size(), 1u) << file;
    EXPECT_EQ(exports->front().name, "strata_plugin_entry");
    EXPECT_EQ(exports->front().binding, "global");
    EXPECT_EQ(exports->front().kind, "function");
  }
}

TEST(Exports, TheSameSourceWithoutTheVersionScriptIsCaughtCitingRule1) {
  const fs::path file = STRATA_UNSCRIPTED_EXAMPLE;
  auto exports = exported_symbols(file);
  ASSERT_TRUE(exports.ok()) << exports.status();
  const std::string violation = rule1_violation(file, *exports);
  EXPECT_THAT(violation, HasSubstr(" dynamic symbol(s) besides strata_plugin_entry: violates "
                                   "rule 1 (export strata_plugin_entry and nothing else;"));
  // std::to_chars' digit table: a template static, exported GNU-unique.
  EXPECT_THAT(violation, HasSubstr("GNU-unique object _ZZNSt8__detail18__to_chars_10_impl"));
  EXPECT_THAT(violation, HasSubstr("GNU-unique: the dynamic linker never unloads"));
}

TEST(Exports, AFileThatIsNoLibraryIsAnErrorNotAPass) {
  auto exports = exported_symbols(fake_dir("text") / "libstrata_fake_text.so");
  EXPECT_EQ(exports.status().code(), Code::kInvalidArgument) << exports.status();
}

}  // namespace
}  // namespace strata::loader_test
