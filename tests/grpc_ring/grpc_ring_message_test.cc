// Every message is checked before it touches a buffer: one that is short,
// not ours, of another team, call, step or dtype, replayed, larger than its
// header says or over the size limit fails that collective with a clear
// error, leaves the output alone, and crashes nothing. A neighbour that
// dies, and abort(), end a call promptly. Rank 1 is a FakeNeighbour that
// sends exactly what each test wants; rank 0 is the real plugin. Every test
// runs on both data planes (tcp and grpc) unless it is about one plane's
// framing: a gRPC message carries its own length, a TCP stream only the
// header's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>

#include "ring_harness.h"
#include "strata/sdk/error.h"

namespace strata::grpc_ring::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// 8 floats: for two processes, block 0 is [0, 4) and block 1 is [4, 8).
constexpr uint64_t kCount = 8;
constexpr uint64_t kBlockBytes = 4 * sizeof(float);

class GrpcRingMessages : public ::testing::TestWithParam<DataPlaneKind> {
 protected:
  void SetUp() override {
    ::setenv("STRATA_JOB_TOKEN", kToken, 1);
    ::unsetenv("STRATA_JOB_TOKEN_FILE");
    static uint64_t next_id = 100;
    id_ = next_id++;
    algo_ = make_all_reduce_ring(test_options(GetParam()));
    peer_ = std::make_unique<FakeNeighbour>(host_, id_, GetParam());
    desc_ = team_desc(host_.store(), id_, 0, 2, 10s);
    auto state = std::async(std::launch::async, [&] { return algo_->create_team(desc_); });
    peer_->connect();
    state_ = state.get();
  }

  // Rank 0's all_reduce `sequence`, with whatever rank 1 sends meanwhile.
  Outcome call(uint64_t sequence, std::chrono::milliseconds timeout = 10s) {
    in_.assign(kCount, 1.0f);
    out_.assign(kCount, -1.0f);  // a sentinel: a refused message must not land
    return run_call(*algo_, state_.get(), desc_, STRATA_ALL_REDUCE, in_, out_, kCount, sequence,
                    timeout);
  }

  // What a correct rank 1 sends in call `sequence`: its block 1 for the
  // reduce-scatter step, then the finished block 0.
  void send_correct(uint64_t sequence) {
    peer_->send(peer_->header(sequence, 0, kBlockBytes), std::vector<float>(4, 10.0f));
    peer_->send(peer_->header(sequence, 1, kBlockBytes), std::vector<float>(4, 7.0f));
  }

  void expect_untouched_block_0() {
    EXPECT_EQ(std::vector<float>(out_.begin(), out_.begin() + 4), std::vector<float>(4, -1.0f));
  }

  void expect_team_refuses_further_calls() {
    const Outcome next = call(99);
    EXPECT_EQ(next.code, STRATA_FAILED_PRECONDITION) << next.message;
    EXPECT_THAT(next.message, HasSubstr("build a new team"));
  }

  FakeHost host_;
  std::unique_ptr<sdk::Algorithm> algo_;
  uint64_t id_ = 0;
  std::unique_ptr<FakeNeighbour> peer_;
  strata_team_desc_t desc_{};
  std::unique_ptr<sdk::TeamState> state_;
  std::vector<float> in_, out_;
};

// gRPC messages carry their own length: a message shorter or longer than
// its header, or over the size limit, is a thing of its own.
class GrpcStreamMessages : public GrpcRingMessages {};
// A TCP stream has only the header's length to go by.
class TcpStreamMessages : public GrpcRingMessages {};

TEST_P(GrpcRingMessages, CorrectMessagesGiveTheExactResult) {
  send_correct(0);
  const Outcome o = call(0);
  ASSERT_EQ(o.code, STRATA_OK) << o.message;
  EXPECT_EQ(out_, (std::vector<float>{7, 7, 7, 7, 11, 11, 11, 11}));
}

TEST_P(GrpcRingMessages, ReplayedMessageFailsTheCall) {
  send_correct(0);
  ASSERT_EQ(call(0).code, STRATA_OK);
  send_correct(0);  // call 0's messages again, during call 1
  const Outcome o = call(1);
  EXPECT_EQ(o.code, STRATA_DATA_LOSS);
  EXPECT_THAT(o.message, HasSubstr("replayed"));
  EXPECT_THAT(o.message, HasSubstr("got team " + std::to_string(id_) + " call 0"));
  EXPECT_THAT(o.message, HasSubstr("expected team " + std::to_string(id_) + " call 1"));
  EXPECT_THAT(o.message, HasSubstr("rank 0 of 2"));
  EXPECT_EQ(std::vector<float>(out_.begin() + 4, out_.end()), std::vector<float>(4, -1.0f));
  expect_team_refuses_further_calls();
}

TEST_P(GrpcStreamMessages, ShortMessageFailsTheCall) {
  peer_->send_raw("");
  const Outcome o = call(0);
  EXPECT_EQ(o.code, STRATA_DATA_LOSS);
  EXPECT_THAT(o.message, HasSubstr("shorter than a header"));
  expect_untouched_block_0();
}

TEST_P(GrpcRingMessages, ForeignBytesFailTheCall) {
  peer_->send_raw(std::string(kHeaderBytes + kBlockBytes, 'x'));
  const Outcome o = call(0);
  EXPECT_EQ(o.code, STRATA_DATA_LOSS);
  EXPECT_THAT(o.message, HasSubstr("not a grpc_ring v1 message"));
}

TEST_P(GrpcRingMessages, WrongTeamStepOrDtypeFailsTheCall) {
  Header h = peer_->header(0, 0, kBlockBytes);
  h.dtype = STRATA_I32;
  peer_->send(h, std::vector<float>(4, 1.0f));
  const Outcome o = call(0);
  EXPECT_EQ(o.code, STRATA_DATA_LOSS);
  EXPECT_THAT(o.message, HasSubstr("dtype i32"));
  EXPECT_THAT(o.message, HasSubstr("expected"));
  expect_team_refuses_further_calls();
}

TEST_P(GrpcStreamMessages, PayloadLargerThanItsHeaderSaysFailsTheCall) {
  std::string bytes(kHeaderBytes, '\0');
  write_header(peer_->header(0, 0, kBlockBytes), reinterpret_cast<std::byte*>(bytes.data()));
  bytes.append(2 * kBlockBytes, '\0');  // 16 bytes more than declared
  peer_->send_raw(bytes);
  const Outcome o = call(0);
  EXPECT_EQ(o.code, STRATA_DATA_LOSS);
  EXPECT_THAT(o.message, HasSubstr("carries 32 payload bytes, its header says 16"));
  expect_untouched_block_0();
}

TEST_P(GrpcStreamMessages, OversizedMessageIsCutOffByTheLimit) {
  // Over header + chunk_bytes: gRPC refuses it before buffering it all.
  const std::vector<float> big(4096, 1.0f);
  peer_->send(peer_->header(0, 0, big.size() * sizeof(float)), big);
  const Outcome o = call(0);
  EXPECT_EQ(o.code, STRATA_PEER_FAILED);
  EXPECT_THAT(o.message, HasSubstr("byte limit"));
  expect_untouched_block_0();
}

TEST_P(GrpcRingMessages, DeadNeighbourFailsTheCallNamingIt) {
  peer_->send(peer_->header(0, 0, kBlockBytes), std::vector<float>(4, 10.0f));
  auto killer = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(200ms);
    peer_->vanish();
  });
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = call(0, 20s);
  killer.get();
  EXPECT_EQ(o.code, STRATA_PEER_FAILED) << o.message;
  EXPECT_THAT(o.message, HasSubstr("rank 1"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST_P(GrpcRingMessages, AbortReturnsAtOnceAndTheTeamStillCloses) {
  in_.assign(kCount, 1.0f);
  out_.assign(kCount, 0.0f);
  const F32Call abi(desc_, STRATA_ALL_REDUCE, in_, out_, kCount);
  auto op = algo_->create(state_.get(), abi.call);
  op->post();
  EXPECT_FALSE(op->test());
  const auto start = std::chrono::steady_clock::now();
  op->abort();
  op.reset();
  // Rule 7: abort returns promptly. A blocked abort would sit out the call's
  // 10 s timeout; the bound leaves room for a loaded sanitizer run.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  state_.reset();  // closes the streams though the neighbour never answered
  peer_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// A header that declares more than is due is refused before a byte of its
// payload is read: nothing is allocated for it, the output stays untouched.
TEST_P(TcpStreamMessages, HeaderDeclaringMoreThanDueIsRefusedBeforeItsPayload) {
  const std::vector<float> big(4096, 1.0f);
  peer_->send(peer_->header(0, 0, big.size() * sizeof(float)), big);
  const Outcome o = call(0);
  EXPECT_EQ(o.code, STRATA_DATA_LOSS) << o.message;
  EXPECT_THAT(o.message, HasSubstr("16384 bytes; expected"));
  expect_untouched_block_0();
  expect_team_refuses_further_calls();
}

// A neighbour that stops mid-header (its process died while writing) is a
// dead peer, not a wait until the deadline.
TEST_P(TcpStreamMessages, HalfAHeaderThenEndOfStreamFailsTheCallNamingTheRank) {
  peer_->send_raw(std::string(kHeaderBytes / 2, '\0'));
  auto killer = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(100ms);
    peer_->vanish();
  });
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = call(0, 20s);
  killer.get();
  EXPECT_EQ(o.code, STRATA_PEER_FAILED) << o.message;
  EXPECT_THAT(o.message, HasSubstr("connection from rank 1 ended"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  expect_untouched_block_0();
}

INSTANTIATE_TEST_SUITE_P(Planes, GrpcRingMessages,
                         ::testing::Values(DataPlaneKind::kTcp, DataPlaneKind::kGrpc),
                         plane_test_name);
INSTANTIATE_TEST_SUITE_P(Grpc, GrpcStreamMessages, ::testing::Values(DataPlaneKind::kGrpc),
                         plane_test_name);
INSTANTIATE_TEST_SUITE_P(Tcp, TcpStreamMessages, ::testing::Values(DataPlaneKind::kTcp),
                         plane_test_name);

TEST(GrpcRingFormation, MissingRankTimesOutNamingIt) {
  ::setenv("STRATA_JOB_TOKEN", kToken, 1);
  FakeHost host;
  auto algo = make_all_reduce_ring(test_options());
  const auto start = std::chrono::steady_clock::now();
  try {
    algo->create_team(team_desc(host.store(), 7, 0, 3, 1s));
    FAIL() << "a team formed without ranks 1 and 2";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_TIMED_OUT) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("rank 1 (the right neighbour)"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

}  // namespace
}  // namespace strata::grpc_ring::testing
