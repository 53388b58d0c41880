// Discovery: the install dir, then STRATA_PLUGIN_PATH, then plugins.path of
// the config; STRATA_PLUGINS / STRATA_PLUGINS_DISABLE and plugins.enable /
// plugins.disable filter by name. Every file found ends as exactly one
// record and one log line: loaded, skipped (with why) or refused (with why).
// A plugin filtered out by its file name is never opened.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/loader/loader_test_util.h"

namespace strata::loader_test {
namespace {

using ::testing::HasSubstr;
using State = PluginRecord::State;

// One plugin of each fate, each in its own directory.
const std::vector<std::string> kVariants = {"good", "no_entry", "same_name", "newer_minor"};

struct Expected {
  fs::path file;
  State state;
  std::string reason;  // a substring; empty: no reason expected
};

// Clears the name filters of the environment for one test.
class DiscoveryTest : public ::testing::Test {
 protected:
  ScopedEnv plugins_{"STRATA_PLUGINS", std::nullopt};
  ScopedEnv disable_{"STRATA_PLUGINS_DISABLE", std::nullopt};
  ScopedEnv path_{"STRATA_PLUGIN_PATH", std::nullopt};

  static std::string env_path() {
    std::string path;
    for (const auto& v : kVariants) path += (path.empty() ? "" : ":") + fake_dir(v).string();
    return path + ":/nonexistent/strata/plugins";
  }

  // Builds a Runtime that discovers through the environment and checks the
  // one record and one log line of each expected file.
  std::shared_ptr<Runtime> discover(const std::vector<Expected>& expected, Config config = {}) {
    LogCapture log;
    auto runtime = make_runtime({}, std::move(config), /*use_environment=*/true);
    if (runtime == nullptr) return nullptr;
    for (const Expected& e : expected) {
      SCOPED_TRACE(e.file.string());
      const PluginRecord* record = record_of(*runtime, e.file);
      if (record == nullptr) continue;
      EXPECT_EQ(record->state, e.state)
          << state_name(record->state) << " (" << record->reason << ")";
      if (e.reason.empty()) {
        EXPECT_EQ(record->reason, "");
      } else {
        EXPECT_THAT(record->reason, HasSubstr(e.reason));
      }
      const auto lines = log.lines_with(e.file.string());
      EXPECT_EQ(lines.size(), 1u);
      if (lines.size() != 1) continue;
      EXPECT_THAT(lines[0], HasSubstr(std::string(" ") + state_name(e.state) + " "));
      // Loaded plugins stay mapped; skipped and refused ones are not (any more).
      EXPECT_EQ(is_mapped(e.file), e.state == State::kLoaded);
    }
    return runtime;
  }
};

fs::path same_name_a() { return fake_file("same_name", "same_name_a"); }
fs::path same_name_b() { return fake_file("same_name", "same_name_b"); }

TEST_F(DiscoveryTest, PluginPathFindsEveryFakeEachOnceInOrder) {
  ScopedEnv path("STRATA_PLUGIN_PATH", env_path());
  auto runtime = discover({
      {fake_file("good"), State::kLoaded, ""},
      {fake_file("no_entry"), State::kRefused, "exports no strata_plugin_entry"},
      {same_name_a(), State::kLoaded, ""},
      {same_name_b(), State::kSkipped, "a plugin named 'fake_same_name' is already loaded"},
      {fake_file("newer_minor"), State::kLoaded, "built for ABI minor 99"},
  });
  ASSERT_NE(runtime, nullptr);
  // The install dir first, then the path in its order; the missing one is
  // searched (and found empty) without a record.
  LoaderOptions options;
  const auto dirs = runtime->loader().search_dirs(options);
  ASSERT_GE(dirs.size(), 6u);
  EXPECT_EQ(dirs[0], fs::weakly_canonical(PluginLoader::install_dir()));
  for (size_t i = 0; i < kVariants.size(); ++i) EXPECT_EQ(dirs[i + 1], fake_dir(kVariants[i]));
  for (const PluginRecord& r : runtime->loader().records()) {
    EXPECT_THAT(r.path.string(), ::testing::Not(HasSubstr("nonexistent")));
  }
  expect_real_all_reduce_works(runtime);
}

TEST_F(DiscoveryTest, StrataPluginsKeepsOnlyTheListedAndOpensNoOther) {
  ScopedEnv path("STRATA_PLUGIN_PATH", env_path());
  ScopedEnv only("STRATA_PLUGINS", "hierarchical_copy,fake_good");
  auto runtime = discover({
      {fake_file("good"), State::kLoaded, ""},
      // Skipped by its file name: its (missing) entry is never looked at.
      {fake_file("no_entry"), State::kSkipped, "not listed in STRATA_PLUGINS"},
      {same_name_a(), State::kSkipped, "not listed in STRATA_PLUGINS"},
      {same_name_b(), State::kSkipped, "not listed in STRATA_PLUGINS"},
      {fake_file("newer_minor"), State::kSkipped, "not listed in STRATA_PLUGINS"},
  });
  ASSERT_NE(runtime, nullptr);
  expect_real_all_reduce_works(runtime);
}

TEST_F(DiscoveryTest, StrataPluginsDisableSkipsTheNamed) {
  ScopedEnv path("STRATA_PLUGIN_PATH", env_path());
  ScopedEnv disable("STRATA_PLUGINS_DISABLE", "fake_no_entry,fake_newer_minor");
  auto runtime = discover({
      {fake_file("good"), State::kLoaded, ""},
      {fake_file("no_entry"), State::kSkipped, "disabled by STRATA_PLUGINS_DISABLE"},
      {fake_file("newer_minor"), State::kSkipped, "disabled by STRATA_PLUGINS_DISABLE"},
  });
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->registry().find_algorithm("fake_newer_minor/all_reduce/sum"), nullptr);
}

TEST_F(DiscoveryTest, ConfigEnableAndDisableFilterToo) {
  ScopedEnv path("STRATA_PLUGIN_PATH", env_path());
  Config config;
  config.plugins.enable = {"hierarchical_copy", "fake_good", "fake_newer_minor"};
  config.plugins.disable = {"fake_newer_minor"};
  discover({{fake_file("good"), State::kLoaded, ""},
            {fake_file("no_entry"), State::kSkipped, "not listed in plugins.enable of the"},
            {fake_file("newer_minor"), State::kSkipped, "disabled by plugins.disable in the"}},
           config);
}

TEST_F(DiscoveryTest, FiltersApplyToThePluginsOwnNameToo) {
  // The files are libstrata_fake_same_name_{a,b}.so; the plugin inside
  // calls itself fake_same_name. Disabling that name skips both, once they
  // have said who they are.
  Config config;
  config.plugins.path = {fake_dir("same_name")};
  config.plugins.disable = {"fake_same_name"};
  auto runtime = discover({{same_name_a(), State::kSkipped, "disabled by plugins.disable"},
                           {same_name_b(), State::kSkipped, "disabled by plugins.disable"}},
                          config);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(record_of(*runtime, same_name_a())->name, "fake_same_name");
  EXPECT_TRUE(runtime->registry().registered_by("fake_same_name").empty());
}

TEST_F(DiscoveryTest, ADirectoryListedTwiceIsSearchedOnce) {
  ScopedEnv path("STRATA_PLUGIN_PATH", fake_dir("good").string() + ":" +
                                           fake_dir("good").string() + "/.");
  Config config;
  config.plugins.path = {fake_dir("good")};
  discover({{fake_file("good"), State::kLoaded, ""}}, config);
}

TEST_F(DiscoveryTest, WithoutTheEnvironmentThePathAndFiltersAreIgnored) {
  ScopedEnv path("STRATA_PLUGIN_PATH", env_path());
  ScopedEnv only("STRATA_PLUGINS", "fake_good");
  auto runtime = make_runtime({}, Config{}, /*use_environment=*/false);
  ASSERT_NE(runtime, nullptr);
  for (const PluginRecord& r : runtime->loader().records()) {
    EXPECT_THAT(r.path.string(), ::testing::Not(HasSubstr(STRATA_FAKE_PLUGIN_ROOT)));
  }
  // STRATA_PLUGINS did not filter hierarchical_copy out either.
  expect_real_all_reduce_works(runtime);
}

TEST_F(DiscoveryTest, TheRealPluginDirHoldsNoFakes) {
  // The fakes live in tests/loader's build directory only, so a normal
  // discovery (and every other test binary) never meets them.
  for (const auto& entry : fs::directory_iterator(STRATA_PLUGIN_DIR)) {
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr("fake")));
  }
}

}  // namespace
}  // namespace strata::loader_test
