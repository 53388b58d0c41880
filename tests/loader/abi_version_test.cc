// What the loader decides before any table is registered: is the file a
// shared library, is it a Strata plugin, which ABI does it speak. Every
// refusal names the problem (and the rule of sdk/README.md it breaks), and
// leaves the process working; a newer minor loads.
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/loader/loader_test_util.h"

namespace strata::loader_test {
namespace {

using ::testing::HasSubstr;

const std::string kHostAbi =
    std::to_string(STRATA_ABI_MAJOR) + "." + std::to_string(STRATA_ABI_MINOR);

TEST(NotAPlugin, LibraryWithoutEntrySymbolIsRefusedCitingRule1) {
  EXPECT_EQ(expect_refused("no_entry"),
            "exports no strata_plugin_entry symbol: not a Strata plugin "
            "(sdk/README.md rule 1)");
}

TEST(NotAPlugin, TextFileNamedLikeAPluginIsRefusedAsNotASharedLibrary) {
  // A Git LFS pointer: what a clone without git-lfs has instead of the .so.
  EXPECT_EQ(expect_refused("text"),
            "not a shared library for this machine (Unsupported binary format)");
}

TEST(NotAPlugin, EmptyFileIsRefusedWithAMessageAPersonCanUse) {
  // Boost.DLL's own words for a file shorter than a header are
  // "basic_ios::clear: iostream error".
  EXPECT_EQ(expect_refused("empty"),
            "not a shared library for this machine (too short for an executable header: "
            "empty, truncated or unreadable)");
}

TEST(NotAPlugin, EntryThatThrowsIsRefusedCitingRule2) {
  // The exception's own text is kept: it is often the only clue.
  EXPECT_EQ(expect_refused("entry_throws"),
            "strata_plugin_entry threw an exception across the C ABI (sdk/README.md rule 2): "
            "entry blew up");
}

TEST(NotAPlugin, NamedExplicitlyTheRefusalIsAnErrorNamingTheFile) {
  // strata-conformance --plugin: the user asked for this file, so a refusal
  // fails Runtime::create instead of being a line in the log.
  RuntimeOptions options;
  options.use_environment = false;
  options.plugin_files = {fake_file("no_entry")};
  auto runtime = Runtime::create(Config{}, options);
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), Code::kInvalidArgument) << runtime.status();
  EXPECT_EQ(runtime.status().message(),
            "plugin " + fake_file("no_entry").string() +
                ": exports no strata_plugin_entry symbol: not a Strata plugin "
                "(sdk/README.md rule 1)");
}

TEST(AbiMajor, OtherMajorIsRefusedNamingBothVersionsAndRule3) {
  EXPECT_EQ(expect_refused("other_major"),
            "speaks ABI 2." + std::to_string(STRATA_ABI_MINOR) + " but this host speaks " +
                kHostAbi + "; rebuild it against this SDK (rule 3)");
}

TEST(AbiMajor, RecordKeepsTheVersionThePluginClaims) {
  auto runtime = make_runtime({fake_dir("other_major")});
  ASSERT_NE(runtime, nullptr);
  const PluginRecord* record = record_of(*runtime, fake_file("other_major"));
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->abi_major, 2u);
  EXPECT_EQ(record->version, "0.0.1");
}

TEST(AbiMajor, EntryReturningNullIsRefusedAsDeclined) {
  EXPECT_EQ(expect_refused("declines_host"), "declined to serve host ABI " + kHostAbi);
}

// Core's copy of algorithm `id`, from a plugin of another minor: always the
// host's size, and it serves a call with the team usable afterwards.
const AlgorithmEntry* host_sized_and_working(const std::shared_ptr<Runtime>& runtime,
                                             const std::string& id) {
  const AlgorithmEntry* algo = runtime->registry().find_algorithm(id);
  EXPECT_NE(algo, nullptr) << id;
  if (algo == nullptr) return nullptr;
  EXPECT_EQ(algo->table.struct_size, sizeof(strata_algorithm_t));
  auto ops = make_ops(runtime);
  EXPECT_NE(ops, nullptr);
  if (ops == nullptr) return algo;
  const Status status = all_reduce_via(*ops, id);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(all_reduce_via(*ops, kRealAllReduce).ok());
  return algo;
}

TEST(AbiMinor, NewerMinorLoadsWorksAndIsNoted) {
  LogCapture log;
  auto runtime = make_runtime({fake_dir("newer_minor")});
  ASSERT_NE(runtime, nullptr);
  const PluginRecord* record = record_of(*runtime, fake_file("newer_minor"));
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginRecord::State::kLoaded) << record->reason;
  EXPECT_EQ(record->name, "fake_newer_minor");
  EXPECT_EQ(record->abi_major, static_cast<uint32_t>(STRATA_ABI_MAJOR));
  EXPECT_EQ(record->abi_minor, 99u);
  EXPECT_EQ(record->reason, "built for ABI minor 99; fields newer than " + kHostAbi +
                                " are ignored");
  const auto lines = log.lines_with(fake_file("newer_minor").string());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("(ABI 1.99); built for ABI minor 99"));

  // Its longer table was cut to the host's size, junk tail and all.
  const AlgorithmEntry* algo = host_sized_and_working(runtime, "fake_newer_minor/all_reduce/sum");
  ASSERT_NE(algo, nullptr);
  EXPECT_EQ(algo->table.wait, nullptr);
}

TEST(AbiMinor, OlderMinorTableGetsTheCallsItKnows) {
  auto runtime = make_runtime({fake_dir("older_minor")});
  ASSERT_NE(runtime, nullptr);
  const PluginRecord* record = record_of(*runtime, fake_file("older_minor"));
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginRecord::State::kLoaded) << record->reason;
  EXPECT_EQ(record->abi_minor, 0u);

  // The 1.0 table stops before run(): core pads it with NULL, whatever the
  // plugin's memory holds past struct_size, and makes the 1.0 calls.
  const AlgorithmEntry* algo = host_sized_and_working(runtime, "fake_older_minor/all_reduce/sum");
  ASSERT_NE(algo, nullptr);
  EXPECT_EQ(algo->table.run, nullptr);
}

TEST(PluginName, NameOutsideTheAlphabetIsRefused) {
  EXPECT_EQ(expect_refused("bad_name"),
            "has an invalid plugin name 'Fake-Bad-Name'; names are [a-z0-9_]");
}

TEST(Refusals, ManyBadFilesInOneRuntimeLeaveItWorking) {
  // Every refusal above, in one process and one Runtime, in discovery order.
  const std::vector<std::string> variants = {"no_entry", "text",          "empty",
                                             "entry_throws", "other_major", "declines_host",
                                             "bad_name"};
  std::vector<fs::path> dirs;
  for (const auto& v : variants) dirs.push_back(fake_dir(v));
  auto runtime = make_runtime(dirs);
  ASSERT_NE(runtime, nullptr);
  for (const auto& v : variants) {
    const PluginRecord* record = record_of(*runtime, fake_file(v));
    ASSERT_NE(record, nullptr) << v;
    EXPECT_EQ(record->state, PluginRecord::State::kRefused) << v;
    expect_nothing_left(*runtime, "fake_" + v, fake_file(v));
  }
  expect_real_all_reduce_works(runtime);
}

}  // namespace
}  // namespace strata::loader_test
