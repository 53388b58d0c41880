// register_all and what it adds: a plugin that throws, fails half-way,
// registers an id twice, returns a status nobody defined, or hands over a
// malformed table is refused as a whole. Whatever it had registered is
// rolled back and listed in the reason, its unload() still runs, and the
// process keeps working.
#include <cstddef>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/loader/loader_test_util.h"

namespace strata::loader_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RegisterAll, ThrowingRawPluginIsRefusedCitingRule2) {
  EXPECT_EQ(expect_refused("register_throws"),
            "register_all threw an exception across the C ABI (sdk/README.md rule 2): fake "
            "backend library not found");
}

TEST(RegisterAll, FailureAfterTwoAddsRollsBothBackAndSaysSo) {
  EXPECT_EQ(expect_refused("register_fails_midway"),
            "registration failed; rolled back fake_register_fails_midway/all_reduce/first, "
            "fake_register_fails_midway/all_reduce/second: register_all: "
            "licence server unreachable");
}

TEST(RegisterAll, UnloadRunsOnceAfterAFailedRegistration) {
  LogCapture log;
  auto runtime = make_runtime({fake_dir("register_fails_midway")});
  ASSERT_NE(runtime, nullptr);
  EXPECT_THAT(log.lines_with("unload called"),
              ElementsAre("info fake_register_fails_midway: unload called"));
}

TEST(RegisterAll, UnloadRunsOnceWhenTheRuntimeGoesAway) {
  LogCapture log;
  auto runtime = make_runtime({fake_dir("good")});
  ASSERT_NE(runtime, nullptr);
  EXPECT_TRUE(log.lines_with("unload called").empty());
  EXPECT_TRUE(is_mapped(fake_file("good")));
  runtime.reset();
  EXPECT_THAT(log.lines_with("unload called"), ElementsAre("info fake_good: unload called"));
  EXPECT_FALSE(is_mapped(fake_file("good")));
}

TEST(Unload, ThrowingUnloadAtTeardownIsLoggedNotFatal) {
  LogCapture log;
  auto runtime = make_runtime({fake_dir("unload_throws")});
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(record_of(*runtime, fake_file("unload_throws"))->state, PluginRecord::State::kLoaded);
  runtime.reset();  // ~PluginLoader: an escaping exception would terminate
  EXPECT_THAT(log.lines_with("unload threw"),
              ElementsAre("error plugin fake_unload_throws: unload threw an exception across "
                          "the C ABI (sdk/README.md rule 2): unload blew up"));
  EXPECT_FALSE(is_mapped(fake_file("unload_throws")));
}

TEST(Unload, ThrowingUnloadAfterAFailedRegistrationKeepsTheRefusal) {
  LogCapture log;
  Config config;
  config.plugins.options["fake_unload_throws"]["fail"] = "yes";
  auto runtime = make_runtime({fake_dir("unload_throws")}, config);
  ASSERT_NE(runtime, nullptr);
  const PluginRecord* record = record_of(*runtime, fake_file("unload_throws"));
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginRecord::State::kRefused);
  EXPECT_EQ(record->reason, "register_all: failing as the config asked");
  EXPECT_EQ(log.lines_with("unload threw").size(), 1u);
  expect_nothing_left(*runtime, "fake_unload_throws", fake_file("unload_throws"));
  expect_real_all_reduce_works(runtime);
}

TEST(RegisterAll, UnknownStatusIsRefusedCitingRule4) {
  EXPECT_EQ(expect_refused("register_garbage"),
            "register_all returned unknown status 42 (plugin bug: see sdk/README.md rule 4)");
}

TEST(DuplicateId, SecondAddFailsAlreadyExistsAndThePluginIsRolledBack) {
  EXPECT_EQ(expect_refused("duplicate_id"),
            "registration failed; rolled back fake_duplicate_id/all_reduce/sum: register_all: "
            "algorithm id 'fake_duplicate_id/all_reduce/sum' is already registered");
}

TEST(DuplicateId, TheRefusalKeepsTheAlreadyExistsCode) {
  // Through load_file the Status itself is visible, not only the record.
  RuntimeOptions options;
  options.use_environment = false;
  options.plugin_files = {fake_file("duplicate_id")};
  auto runtime = Runtime::create(Config{}, options);
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), Code::kAlreadyExists) << runtime.status();
}

TEST(DuplicateName, SecondFileWithTheSameNameIsSkippedAsAlreadyLoaded) {
  LogCapture log;
  auto runtime = make_runtime({fake_dir("same_name")});
  ASSERT_NE(runtime, nullptr);
  const PluginRecord* first = record_of(*runtime, fake_file("same_name", "same_name_a"));
  const PluginRecord* second = record_of(*runtime, fake_file("same_name", "same_name_b"));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(first->state, PluginRecord::State::kLoaded) << first->reason;
  EXPECT_EQ(second->state, PluginRecord::State::kSkipped) << second->reason;
  EXPECT_EQ(second->name, "fake_same_name");
  EXPECT_EQ(second->reason, "a plugin named 'fake_same_name' is already loaded");
  EXPECT_EQ(log.lines_with("same_name_b").size(), 1u);
  // The first one's tables, once; the second's library is closed again.
  EXPECT_THAT(runtime->registry().registered_by("fake_same_name"),
              ElementsAre("fake_same_name/all_reduce/sum"));
  EXPECT_TRUE(is_mapped(fake_file("same_name", "same_name_a")));
  EXPECT_FALSE(is_mapped(fake_file("same_name", "same_name_b")));
  auto ops = make_ops(runtime);
  ASSERT_NE(ops, nullptr);
  const Status status = all_reduce_via(*ops, "fake_same_name/all_reduce/sum");
  EXPECT_TRUE(status.ok()) << status;
}

// dlopen hands every Runtime of a process the same library instance, so a
// plugin is registered once per Runtime and must keep each registration's
// objects apart (plugin.h). Before the SDK did, the first Runtime's unload()
// freed the objects the second one still called into.
TEST(SharedLibrary, TwoLiveRuntimesEachRegisterItAndOutliveEachOther) {
  auto first = make_runtime({fake_dir("sdk")});
  ASSERT_NE(first, nullptr);
  auto second = make_runtime({fake_dir("sdk")});
  ASSERT_NE(second, nullptr);
  const PluginRecord* record = record_of(*second, fake_file("sdk"));
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginRecord::State::kLoaded) << record->reason;
  EXPECT_FALSE(second->registry().registered_by("fake_sdk").empty());

  auto ops = make_ops(second);
  ASSERT_NE(ops, nullptr);
  first.reset();  // unloads the first registration only
  EXPECT_TRUE(all_reduce_via(*ops, kRealAllReduce).ok());
  expect_real_all_reduce_works(second);
  ops.reset();
  second.reset();
  auto third = make_runtime({fake_dir("sdk")});
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(record_of(*third, fake_file("sdk"))->state, PluginRecord::State::kLoaded);
  expect_real_all_reduce_works(third);
}

TEST(MalformedTable, ZeroStructSizeIsRefusedNamingStructSize) {
  const std::string reason = expect_refused("zero_struct_size");
  EXPECT_THAT(reason, HasSubstr("register_all: algorithm table has struct_size 0, smaller "
                                "than ABI 1.0's " +
                                std::to_string(offsetof(strata_algorithm_t, run))));
  EXPECT_THAT(reason, HasSubstr("(uninitialised struct_size?)"));
}

TEST(MalformedTable, MissingCreateIsRefusedNamingTheField) {
  EXPECT_EQ(expect_refused("null_create"),
            "register_all: algorithm 'sum' is missing required function 'create'");
}

TEST(MalformedTable, RefusalsCarryInvalidArgument) {
  for (const char* variant : {"zero_struct_size", "null_create"}) {
    RuntimeOptions options;
    options.use_environment = false;
    options.plugin_files = {fake_file(variant)};
    auto runtime = Runtime::create(Config{}, options);
    ASSERT_FALSE(runtime.ok()) << variant;
    EXPECT_EQ(runtime.status().code(), Code::kInvalidArgument) << runtime.status();
  }
}

}  // namespace
}  // namespace strata::loader_test
