// Plugins that could take the process down by surprise (sdk/README.md rules
// 1, 5 and 7): a library that needs a symbol nothing defines is refused at
// load naming it; every step that runs a plugin's code is announced at
// debug level first, so a crash inside it is attributable; a call blocked
// inside the plugin past its deadline is reported while it blocks, at a
// falling rate; and an estimate that is not a time is reported, not
// silently ranked last.
#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/loader/loader_test_util.h"

namespace strata::loader_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(LoadHazards, UnresolvedSymbolIsRefusedAtLoadNamingIt) {
  // With lazy binding this plugin loaded, registered, and ended the process
  // with "symbol lookup error" (status 127) at its first post().
  const std::string reason = expect_refused("unresolved_symbol");
  EXPECT_THAT(reason, StartsWith("needs symbol 'fake_backend_missing_function', which neither "
                                 "it nor the libraries it links define"));
  EXPECT_THAT(reason, HasSubstr("undefined symbol: fake_backend_missing_function"));
}

TEST(LoadHazards, EveryStepIntoPluginCodeIsLoggedFirstNamingTheFile) {
  LogCapture log(spdlog::level::debug);
  auto runtime = make_runtime({fake_dir("good")});
  ASSERT_NE(runtime, nullptr);
  runtime.reset();
  const std::string file = fake_file("good").string();
  const auto lines = log.lines();
  auto index_of = [&](const std::string& text) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i] == text) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no log line '" << text << "' among:\n" << ::testing::PrintToString(lines);
    return -1;
  };
  const int open = index_of("debug plugin file " + file +
                            ": loading (dlopen runs its static constructors)");
  const int entry = index_of("debug plugin file " + file + ": calling strata_plugin_entry");
  const int reg = index_of("debug plugin file " + file + ": calling register_all of plugin fake_good");
  const int unload = index_of("debug plugin fake_good: calling unload");
  // Announced before it runs: the last line before a crash names the step.
  EXPECT_LT(open, entry);
  EXPECT_LT(entry, reg);
  EXPECT_LT(reg, unload);
}

TEST(BlockedCall, PostBlockedPastTheDeadlineIsReportedAtABoundedRate) {
  Config config;
  config.plugins.options["fake_post_blocks"]["block_ms"] = "2700";
  auto runtime = make_runtime({fake_dir("post_blocks")}, config);
  ASSERT_NE(runtime, nullptr);
  auto ops = make_ops(runtime);
  ASSERT_NE(ops, nullptr);
  LogCapture log(spdlog::level::warn);
  CallOptions options;
  options.timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  const Status s = all_reduce_via(*ops, "fake_post_blocks/all_reduce/sum", options);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // Core cannot take the call back: it ends when post() returns, here with
  // the work done (all_reduce_via checked the sums), only late.
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_GE(elapsed, std::chrono::milliseconds(2700));

  const auto warnings = log.lines_with("has not returned");
  // Past the deadline (200 ms) plus 250 ms of grace, then 1 s later; the
  // next would be 2 s after that, when post() has long returned. Looked at
  // every 100 ms, an unbounded watchdog would have said it ~22 times.
  ASSERT_GE(warnings.size(), 1u) << ::testing::PrintToString(log.lines());
  EXPECT_LE(warnings.size(), 3u) << ::testing::PrintToString(warnings);
  for (const std::string& w : warnings) {
    EXPECT_THAT(w, AllOf(StartsWith("warning plugin fake_post_blocks algorithm "
                                    "fake_post_blocks/all_reduce/sum: post() has not returned "),
                         HasSubstr("after the call's deadline (seq 0)"),
                         HasSubstr("sdk/README.md rule 7")));
  }
  EXPECT_THAT(log.lines_with("returned at last"),
              ::testing::ElementsAre(AllOf(
                  StartsWith("warning plugin fake_post_blocks algorithm "
                             "fake_post_blocks/all_reduce/sum: post() returned at last, "),
                  HasSubstr("after the call's deadline (seq 0)"))));
}

TEST(BlockedCall, CallsThatReturnInTimeAreNeverReported) {
  auto runtime = make_runtime({fake_dir("good")});
  ASSERT_NE(runtime, nullptr);
  auto ops = make_ops(runtime);
  ASSERT_NE(ops, nullptr);
  LogCapture log(spdlog::level::warn);
  CallOptions options;
  // Each call takes microseconds; the deadline only has to outlast a call
  // descheduled for a while on a loaded machine (300 ms could be too short).
  options.timeout = std::chrono::seconds(2);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(800);
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(all_reduce_via(*ops, "fake_good/all_reduce/sum", options).ok());
  }
  EXPECT_TRUE(log.lines_with("has not returned").empty());
}

// The selector's view of an estimate that is not a time: ranked last, as
// if there were none, and one warning naming the plugin however often asked.
void expect_bad_estimate_reported(std::string_view variant, std::string_view shown) {
  auto runtime = make_runtime({fake_dir(variant)});
  ASSERT_NE(runtime, nullptr);
  auto ops = make_ops(runtime);
  ASSERT_NE(ops, nullptr);
  LogCapture log(spdlog::level::warn);
  const std::string id = "fake_" + std::string(variant) + "/all_reduce/sum";
  for (int i = 0; i < 3; ++i) {
    auto selection = ops->explain(CollectiveKind::kAllReduce, DType::kF32, kCount);
    ASSERT_TRUE(selection.ok()) << selection.status();
    for (const auto& c : selection->candidates) {
      if (c.algorithm->id == id) {
        EXPECT_FALSE(c.estimate.has_value());
      }
    }
  }
  EXPECT_THAT(log.lines_with("estimate()"),
              ::testing::ElementsAre("warning plugin fake_" + std::string(variant) + ": " + id +
                                     " estimate() answered " + std::string(shown) +
                                     " seconds, which is not a time; the selector ranks it "
                                     "after every algorithm with an estimate (sdk/README.md "
                                     "rule 5: a finite, non-negative number of seconds). "
                                     "Reported once."));
}

TEST(BadEstimate, NaNIsReportedOnceNamingThePlugin) {
  expect_bad_estimate_reported("estimate_nan", "nan");
}

TEST(BadEstimate, NegativeIsReportedOnceNamingThePlugin) {
  expect_bad_estimate_reported("estimate_negative", "-1e-06");
}

}  // namespace
}  // namespace strata::loader_test
