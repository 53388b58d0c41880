// Status is what every user of Strata reads when something goes wrong, so
// the exact text of to_string() is part of the contract and is pinned here.
#include "core/common/status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "strata/abi/status.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

// Where this file is, as Status should print it: relative to the repository.
constexpr const char* kThisFile = "tests/core/status_test.cc";

std::string at(int line) {
  return " [" + std::string(kThisFile) + ":" + std::to_string(line) + "]";
}

TEST(StatusTest, DefaultIsOkAndPrintsOk) {
  const Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.to_string(), "OK");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, AnOkCodeMakesAnOkStatusWithNothingToSay) {
  const Status s(Code::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.line(), 0);
  EXPECT_TRUE(s.with_context("ctx").ok());
  EXPECT_EQ(s.with_context("ctx").context(), "");
}

TEST(StatusTest, CopiesAreIndependentAndAMovedFromStatusIsOk) {
  Status a = InternalError("boom");
  Status b = a;
  b = b.prefixed("outer");
  EXPECT_EQ(a.message(), "boom") << "a copy must not share the error with its source";
  EXPECT_EQ(b.message(), "outer: boom");
  Status c;
  c = a;
  EXPECT_EQ(c.to_string(), a.to_string());
  c = Status::Ok();
  EXPECT_TRUE(c.ok());
  EXPECT_FALSE(a.ok());
  Status d = std::move(a);
  EXPECT_EQ(d.message(), "boom");
  EXPECT_TRUE(a.ok()) << "status.h promises that a moved-from Status is OK";  // NOLINT
  a = d;
  EXPECT_EQ(a.code(), Code::kInternal);
}

TEST(StatusTest, ToStringIsCodeMessageAndRepositoryRelativeLocation) {
  const int line = __LINE__ + 1;
  const Status s = NotFoundError("no key 'x'");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.line(), line);
  // An absolute build-machine path would make messages differ per machine;
  // and a file under tests/core/ must not be shortened to core/.
  EXPECT_STREQ(s.file(), kThisFile);
  EXPECT_EQ(s.to_string(), "NOT_FOUND: no key 'x'" + at(line));
}

TEST(StatusTest, ContextGoesBetweenCodeAndMessage) {
  const int line = __LINE__ + 1;
  const Status s = TimedOutError("no answer from rank 5 within 30s");
  const Status c = s.with_context("plugin=grpc_ring algo=ring op=all_reduce rank=3/8 seq=1207");
  EXPECT_EQ(c.to_string(),
            "TIMED_OUT: plugin=grpc_ring algo=ring op=all_reduce rank=3/8 seq=1207: "
            "no answer from rank 5 within 30s" + at(line));
  EXPECT_EQ(s.context(), "") << "with_context must return a copy";
}

TEST(StatusTest, WithContextKeepsTheFirstContext) {
  // The innermost layer knows plugin, rank and sequence; outer layers must
  // not overwrite it with something vaguer.
  const Status s = InternalError("boom").with_context("inner").with_context("outer");
  EXPECT_EQ(s.context(), "inner");
  EXPECT_EQ(s.message(), "boom");
}

TEST(StatusTest, PrefixedPrependsToMessageAndKeepsEverythingElse) {
  const int line = __LINE__ + 1;
  const Status s = InvalidArgumentError("bad magic").with_context("ctx");
  const Status p = s.prefixed("loading x.so");
  EXPECT_EQ(p.code(), Code::kInvalidArgument);
  EXPECT_EQ(p.message(), "loading x.so: bad magic");
  EXPECT_EQ(p.context(), "ctx");
  EXPECT_EQ(p.line(), line);
  EXPECT_EQ(p.to_string(), "INVALID_ARGUMENT: ctx: loading x.so: bad magic" + at(line));
  EXPECT_EQ(s.message(), "bad magic");
}

TEST(StatusTest, CodeNamesAndValuesMatchTheAbi) {
  const std::pair<Status, std::pair<strata_status_t, const char*>> cases[] = {
      {NotSupportedError("m"), {STRATA_NOT_SUPPORTED, "NOT_SUPPORTED"}},
      {InvalidArgumentError("m"), {STRATA_INVALID_ARGUMENT, "INVALID_ARGUMENT"}},
      {OutOfMemoryError("m"), {STRATA_OUT_OF_MEMORY, "OUT_OF_MEMORY"}},
      {TimedOutError("m"), {STRATA_TIMED_OUT, "TIMED_OUT"}},
      {PeerFailedError("m"), {STRATA_PEER_FAILED, "PEER_FAILED"}},
      {AbortedError("m"), {STRATA_ABORTED, "ABORTED"}},
      {NotFoundError("m"), {STRATA_NOT_FOUND, "NOT_FOUND"}},
      {AlreadyExistsError("m"), {STRATA_ALREADY_EXISTS, "ALREADY_EXISTS"}},
      {InternalError("m"), {STRATA_INTERNAL, "INTERNAL"}},
      {UnavailableError("m"), {STRATA_UNAVAILABLE, "UNAVAILABLE"}},
      {PermissionDeniedError("m"), {STRATA_PERMISSION_DENIED, "PERMISSION_DENIED"}},
      {FailedPreconditionError("m"), {STRATA_FAILED_PRECONDITION, "FAILED_PRECONDITION"}},
      {DataLossError("m"), {STRATA_DATA_LOSS, "DATA_LOSS"}},
  };
  for (const auto& [status, expected] : cases) {
    EXPECT_EQ(static_cast<strata_status_t>(status.code()), expected.first);
    EXPECT_STREQ(code_name(status.code()), expected.second);
    EXPECT_EQ(status.to_string().rfind(std::string(expected.second) + ": m [", 0), 0u)
        << status.to_string();
  }
  EXPECT_STREQ(code_name(static_cast<Code>(-99)), "UNKNOWN");
}

TEST(StatusTest, StreamsAsToString) {
  const Status s = AbortedError("stopped");
  std::ostringstream os;
  os << s;
  EXPECT_EQ(os.str(), s.to_string());
}

// Returned from a function, as in real code (a local `StatusOr<int> v = 42`
// trips a GCC 12 -Wmaybe-uninitialized false positive inside std::variant).
StatusOr<int> forty_two() { return 42; }

TEST(StatusOrTest, HoldsAValue) {
  const StatusOr<int> v = forty_two();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 42);
  EXPECT_TRUE(v.status().ok());
}

TEST(StatusOrTest, HoldsAnError) {
  const StatusOr<int> e = NotFoundError("gone");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Code::kNotFound);
  EXPECT_EQ(e.status().message(), "gone");
}

TEST(StatusOrTest, OkStatusWithoutValueBecomesInternal) {
  // An OK StatusOr without a value would crash at value(); refuse it early.
  StatusOr<int> e = Status::Ok();
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Code::kInternal);
  EXPECT_EQ(e.status().message(), "StatusOr constructed from an OK status");
}

TEST(StatusOrTest, MovesOutMoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> p = std::make_unique<int>(7);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(**p, 7);
  std::unique_ptr<int> taken = std::move(p).value();
  EXPECT_EQ(*taken, 7);

  StatusOr<std::string> s = std::string("abc");
  EXPECT_EQ(s->size(), 3u);
}

// Helpers exercising the macros the way library code uses them.
int g_evaluations = 0;

Status count_and_return(Status s) {
  ++g_evaluations;
  return s;
}

Status two_steps(Status first, int* reached) {
  STRATA_RETURN_IF_ERROR(count_and_return(first));
  *reached = 2;
  return Status::Ok();
}

StatusOr<int> half(int x) {
  if (x % 2 != 0) return InvalidArgumentError(std::to_string(x) + " is odd");
  return x / 2;
}

StatusOr<int> quarter(int x) {
  STRATA_ASSIGN_OR_RETURN(int h, half(x));
  STRATA_ASSIGN_OR_RETURN(int q, half(h));  // a second use in one scope
  return q;
}

TEST(StatusMacrosTest, ReturnIfErrorReturnsEarlyAndEvaluatesOnce) {
  int reached = 0;
  g_evaluations = 0;
  const Status s = two_steps(DataLossError("torn"), &reached);
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_EQ(s.message(), "torn");
  EXPECT_EQ(reached, 0);
  EXPECT_EQ(g_evaluations, 1);

  EXPECT_TRUE(two_steps(Status::Ok(), &reached).ok());
  EXPECT_EQ(reached, 2);
  EXPECT_EQ(g_evaluations, 2);
}

TEST(StatusMacrosTest, AssignOrReturnAssignsOrPropagates) {
  auto ok = quarter(12);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);

  auto first = quarter(7);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().message(), "7 is odd");

  auto second = quarter(6);  // 6 -> 3, which is odd
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(second.status().message(), "3 is odd");
  EXPECT_THAT(second.status().to_string(), HasSubstr("tests/core/status_test.cc:"));
}

}  // namespace
}  // namespace strata
