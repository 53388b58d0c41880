// Algorithms that load fine and misbehave when called: garbage statuses,
// exceptions across the C ABI, a test() that never completes. Each call
// ends in a clear Status carrying plugin=, algo=, op=, rank= and seq=; a
// failure during a call leaves the team unusable (FAILED_PRECONDITION), and
// a new team in the same Runtime works. The last tests drive the same
// failures through the SDK, whose trampolines must turn them into statuses.
#include <chrono>
#include <ostream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/loader/loader_test_util.h"

namespace strata::loader_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Loaded {
  std::shared_ptr<Runtime> runtime;
  std::unique_ptr<CollectiveOps> ops;
};

// The fake of `variant`, loaded, and a team of kReplicas cpu devices.
Loaded load(std::string_view variant, std::string_view dir = {}) {
  Loaded l;
  l.runtime = make_runtime({fake_dir(dir.empty() ? variant : dir)});
  if (l.runtime != nullptr) l.ops = make_ops(l.runtime);
  return l;
}

// The context core adds to a failure of call `seq` of `algo`.
void expect_context(const Status& s, std::string_view plugin, std::string_view algo,
                    int seq = 0) {
  EXPECT_THAT(s.context(), StartsWith("plugin=" + std::string(plugin) + " algo=" +
                                      std::string(algo) + " op=all_reduce rank=0/1 "));
  EXPECT_THAT(s.context(), HasSubstr(" seq=" + std::to_string(seq)));
}

// After a failed call: the team refuses further calls, naming the failure,
// and a new team of the same Runtime works.
void expect_team_broken_by(Loaded& l, const Status& failure) {
  const Status next = all_reduce_via(*l.ops, kRealAllReduce);
  EXPECT_EQ(next.code(), Code::kFailedPrecondition) << next;
  EXPECT_THAT(next.message(), HasSubstr("this team is unusable after an earlier failure"));
  EXPECT_THAT(next.message(), HasSubstr(failure.message()));
  expect_real_all_reduce_works(l.runtime);
}

// Runs fake_<variant>/all_reduce/sum and returns its failure.
Status failing_call(Loaded& l, std::string_view variant, const CallOptions& options = {}) {
  const std::string id = "fake_" + std::string(variant) + "/all_reduce/sum";
  const Status s = all_reduce_via(*l.ops, id, options);
  EXPECT_FALSE(s.ok()) << id << " succeeded";
  expect_context(s, "fake_" + std::string(variant), "sum");
  return s;
}

TEST(GarbageStatus, FromPostIsInternalCitingRule4) {
  Loaded l = load("post_garbage");
  ASSERT_NE(l.ops, nullptr);
  const Status s = failing_call(l, "post_garbage");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(),
            "post returned unknown status -999 (plugin bug: see sdk/README.md rule 4)");
  expect_team_broken_by(l, s);
}

TEST(GarbageStatus, FromTestIsInternalCitingRule4) {
  Loaded l = load("test_garbage");
  ASSERT_NE(l.ops, nullptr);
  const Status s = failing_call(l, "test_garbage");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(), "test returned unknown status 42 (plugin bug: see sdk/README.md rule 4)");
  expect_team_broken_by(l, s);
}

TEST(GarbageStatus, FromSupportsIsADeclineThatNamesTheBug) {
  LogCapture log(spdlog::level::warn);
  Loaded l = load("supports_garbage");
  ASSERT_NE(l.ops, nullptr);
  // Forced, there is no other candidate: NOT_SUPPORTED with the reason.
  const Status s = all_reduce_via(*l.ops, "fake_supports_garbage/all_reduce/sum");
  EXPECT_EQ(s.code(), Code::kNotSupported) << s;
  EXPECT_THAT(s.message(), HasSubstr("fake_supports_garbage/all_reduce/sum: declined: supports "
                                     "returned unknown status 42 (plugin bug: see "
                                     "sdk/README.md rule 4)"));
  EXPECT_THAT(s.context(), HasSubstr("op=all_reduce rank=0/1"));
  EXPECT_EQ(log.lines_with("unknown status 42").size(), 1u);
  // Nothing started, so the team is still usable.
  const Status real = all_reduce_via(*l.ops, kRealAllReduce);
  EXPECT_TRUE(real.ok()) << real;
}

TEST(GarbageStatus, FromSupportsLetsTheSelectorFallBack) {
  // Preferred by `implementation:`, the broken algorithm is tried first and
  // skipped; the call is served by the next candidate.
  auto runtime = make_runtime({fake_dir("supports_garbage")});
  ASSERT_NE(runtime, nullptr);
  CommunicationOptions options;
  options.implementation = "fake_supports_garbage";
  auto ops = make_ops(runtime, options);
  ASSERT_NE(ops, nullptr);
  auto selection = ops->explain(CollectiveKind::kAllReduce, DType::kF32, kCount);
  ASSERT_TRUE(selection.ok()) << selection.status();
  ASSERT_FALSE(selection->candidates.empty());
  EXPECT_EQ(selection->candidates[0].algorithm->id, "fake_supports_garbage/all_reduce/sum");
  EXPECT_FALSE(selection->candidates[0].accepted);
  EXPECT_EQ(selection->chosen->plugin, "hierarchical_copy");
  const Status s = all_reduce_via(*ops, "");
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Exception, FromPostIsInternalCitingRule2) {
  Loaded l = load("post_throws");
  ASSERT_NE(l.ops, nullptr);
  const Status s = failing_call(l, "post_throws");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  // The exception's own text is kept: it is often the only clue.
  EXPECT_EQ(s.message(), "fake_post_throws/all_reduce/sum post threw an exception across "
                         "the C ABI (sdk/README.md rule 2): post blew up");
  expect_team_broken_by(l, s);
}

TEST(Exception, FromTestIsInternalCitingRule2) {
  Loaded l = load("test_throws");
  ASSERT_NE(l.ops, nullptr);
  const Status s = failing_call(l, "test_throws");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(), "fake_test_throws/all_reduce/sum test threw an exception across "
                         "the C ABI (sdk/README.md rule 2): test blew up");
  expect_team_broken_by(l, s);
}

TEST(Exception, FromTeamCreateIsInternalCitingRule2) {
  Loaded l = load("team_create_throws");
  ASSERT_NE(l.ops, nullptr);
  // team_create runs before a call of the algorithm starts, so there is no
  // plugin=/algo= context: the message names the algorithm instead.
  const Status s = all_reduce_via(*l.ops, "fake_team_create_throws/all_reduce/sum");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(), "fake_team_create_throws/all_reduce/sum team_create threw an exception "
                         "across the C ABI (sdk/README.md rule 2): team_create blew up");
  EXPECT_THAT(s.context(), HasSubstr("op=all_reduce rank=0/1"));
  expect_real_all_reduce_works(l.runtime);
}

TEST(Deadline, TestThatNeverCompletesTimesOutAbortsAndBreaksTheTeam) {
  LogCapture log;
  Loaded l = load("never_completes");
  ASSERT_NE(l.ops, nullptr);
  // An earlier good call on the team, so the failing one is not seq 0.
  ASSERT_TRUE(all_reduce_via(*l.ops, kRealAllReduce).ok());

  CallOptions options;
  options.timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  const Status s = all_reduce_via(*l.ops, "fake_never_completes/all_reduce/sum", options);
  const auto elapsed = std::chrono::steady_clock::now() - start;

  EXPECT_EQ(s.code(), Code::kTimedOut) << s;
  EXPECT_EQ(s.message(), "did not finish within 200.00 ms; aborted, and the team is unusable "
                         "until rebuilt");
  expect_context(s, "fake_never_completes", "sum", /*seq=*/1);
  EXPECT_GE(elapsed, std::chrono::milliseconds(200));
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  EXPECT_THAT(log.lines_with("abort called"),
              ElementsAre("info fake_never_completes: abort called"));
  expect_team_broken_by(l, s);
}

TEST(Deadline, TeamTimeoutFromCommunicationOptionsAppliesToo) {
  auto runtime = make_runtime({fake_dir("never_completes")});
  ASSERT_NE(runtime, nullptr);
  CommunicationOptions options;
  options.timeout = std::chrono::milliseconds(100);
  auto ops = make_ops(runtime, options);
  ASSERT_NE(ops, nullptr);
  const auto start = std::chrono::steady_clock::now();
  const Status s = all_reduce_via(*ops, "fake_never_completes/all_reduce/sum");
  EXPECT_EQ(s.code(), Code::kTimedOut) << s;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// How run() (ABI 1.1) of fake_<variant> fails: the status core reports
// (the message names the step), how often the plugin's destroy() and
// abort() must run, and whether the team survives (only a failed create
// started nothing).
struct RunFailureCase {
  std::string_view variant;
  Code code;
  std::string message;
  size_t destroys;
  size_t aborts;
  bool team_usable;
};

void PrintTo(const RunFailureCase& c, std::ostream* os) { *os << c.variant; }

class RunFailure : public ::testing::TestWithParam<RunFailureCase> {};

TEST_P(RunFailure, ReportsTheStepDestroysWhatWasHandedBackAndBreaksTheTeamIfStarted) {
  const RunFailureCase& c = GetParam();
  Loaded l = load(c.variant);
  ASSERT_NE(l.ops, nullptr);
  LogCapture log;
  const Status s = failing_call(l, c.variant);
  EXPECT_EQ(s.code(), c.code) << s;
  EXPECT_EQ(s.message(), c.message);
  EXPECT_EQ(log.lines_with("destroy called").size(), c.destroys);
  EXPECT_EQ(log.lines_with("abort called").size(), c.aborts);
  if (c.team_usable) {
    EXPECT_TRUE(all_reduce_via(*l.ops, kRealAllReduce).ok());
  } else {
    expect_team_broken_by(l, s);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Abi11, RunFailure,
    ::testing::Values(
        RunFailureCase{"run_create_fails", Code::kOutOfMemory, "create: no memory for the plan",
                       0, 0, true},
        RunFailureCase{"run_post_fails", Code::kUnavailable,
                       "post: the backend refused the send", 1, 0, false},
        // Thrown after *op was written: handed back, maybe still running.
        RunFailureCase{"run_throws", Code::kInternal,
                       "fake_run_throws/all_reduce/sum run threw an exception across the C ABI "
                       "(sdk/README.md rule 2): run blew up after create",
                       1, 1, false},
        // An undefined status: core cannot tell how far run() got.
        RunFailureCase{"run_garbage", Code::kInternal,
                       "run returned unknown status 42 (plugin bug: see sdk/README.md rule 4): "
                       "create: the plan cache is corrupt",
                       0, 0, false}),
    [](const ::testing::TestParamInfo<RunFailureCase>& param) {
      return std::string(param.param.variant);
    });

TEST(SdkPlugin, NotSupportedFromCreateReachesTheCallerWithItsMessage) {
  Loaded l = load("sdk", "sdk");
  ASSERT_NE(l.ops, nullptr);
  const Status s = all_reduce_via(*l.ops, "fake_sdk/all_reduce/refuses");
  EXPECT_EQ(s.code(), Code::kNotSupported) << s;
  EXPECT_EQ(s.message(), "create: fake_sdk cannot serve " + std::to_string(kCount) + " elements");
  expect_context(s, "fake_sdk", "refuses");
  // create() started nothing: the same team still works.
  const Status real = all_reduce_via(*l.ops, kRealAllReduce);
  EXPECT_TRUE(real.ok()) << real;
}

TEST(SdkPlugin, StdExceptionFromPostBecomesInternalWithWhat) {
  Loaded l = load("sdk", "sdk");
  ASSERT_NE(l.ops, nullptr);
  const Status s = all_reduce_via(*l.ops, "fake_sdk/all_reduce/crashes");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(), "post: backend exploded");
  expect_context(s, "fake_sdk", "crashes");
  expect_team_broken_by(l, s);
}

TEST(SdkPlugin, CreateReturningNullptrIsAnErrorNotACrash) {
  Loaded l = load("sdk", "sdk");
  ASSERT_NE(l.ops, nullptr);
  const Status s = all_reduce_via(*l.ops, "fake_sdk/all_reduce/no_op");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(), "create: Algorithm::create returned no operation (nullptr)");
  expect_context(s, "fake_sdk", "no_op");
  const Status real = all_reduce_via(*l.ops, kRealAllReduce);
  EXPECT_TRUE(real.ok()) << real;
}

TEST(SdkPlugin, UnknownStatusFromCreateNamesTheStep) {
  Loaded l = load("sdk", "sdk");
  ASSERT_NE(l.ops, nullptr);
  const Status s = all_reduce_via(*l.ops, "fake_sdk/all_reduce/garbage");
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_EQ(s.message(), "run returned unknown status 42 (plugin bug: see sdk/README.md rule 4): "
                         "create: invented a status");
  expect_context(s, "fake_sdk", "garbage");
}

TEST(SdkPlugin, LoadsAgainAfterAnUnload) {
  // The SDK keeps per-library state (call_once, the keeper): a second
  // Runtime after the first one is gone must get a working plugin again.
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Loaded l = load("sdk", "sdk");
    ASSERT_NE(l.ops, nullptr);
    EXPECT_EQ(all_reduce_via(*l.ops, "fake_sdk/all_reduce/refuses").code(),
              Code::kNotSupported);
  }
}

}  // namespace
}  // namespace strata::loader_test
