// The door of a team: the job token is required to form one, strangers
// (wrong token, no token, a second stream claiming a member's rank, bytes
// that are not HTTP/2) are refused with one warning line each, and the
// team keeps working afterwards, on either data plane. The tcp data plane's
// own door (its listening port, open while the team forms) refuses a wrong
// token, bytes of another protocol and silence the same way.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <grpcpp/create_channel.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <future>

#include "ring_harness.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::grpc_ring::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class GrpcRingSecurity : public ::testing::TestWithParam<DataPlaneKind> {
 protected:
  void SetUp() override {
    ::setenv("STRATA_JOB_TOKEN", kToken, 1);
    ::unsetenv("STRATA_JOB_TOKEN_FILE");
  }

  void form(uint64_t id) { ranks_.form(*algo_, host_, id); }
  void expect_all_reduce_works(uint64_t sequence) {
    ranks_.expect_all_reduce(*algo_, sequence, 5000, 1.0f, 2.0f);
  }

  // A client stream to rank 0 presenting `token` as rank `rank`.
  Outcome stranger(const std::string& token, int rank) {
    const std::string address = "127.0.0.1:" + std::to_string(rank0().listen_port());
    Signal signal;
    LinkConfig lc;
    lc.channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
    lc.token = token;
    lc.team_id = rank0().id();
    lc.rank = rank;
    lc.peer = 0;
    lc.peer_address = address;
    RingLink link(std::move(lc), signal);
    try {
      link.open(std::chrono::steady_clock::now() + 5s);
      return {};
    } catch (const sdk::Error& e) {
      return {e.code(), e.what()};
    }
  }

  RingTeam& rank0() { return static_cast<RingTeamState*>(ranks_.state[0].get())->team(); }

  FakeHost host_;
  std::unique_ptr<sdk::Algorithm> algo_ = make_all_reduce_ring(test_options(GetParam()));
  TwoRanks ranks_;
};

// A blocking client connection to 127.0.0.1:port; reads time out after 5 s.
int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  timeval five{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &five, sizeof five);
  return fd;
}

// What the other side did with a connection: 0 when it closed it (a reset,
// when it left our bytes unread, counts as closed), else the bytes it sent,
// or -1 when nothing came within 5 s.
ssize_t answer_of(int fd) {
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  return n < 0 && errno == ECONNRESET ? 0 : n;
}

TEST_P(GrpcRingSecurity, NoTokenFailsTeamCreateNamingTheVariables) {
  ::unsetenv("STRATA_JOB_TOKEN");
  const strata_team_desc_t d = team_desc(host_.store(), 1, 0, 2, 2s);
  try {
    algo_->create_team(d);
    FAIL() << "team_create succeeded without a token";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_FAILED_PRECONDITION);
    EXPECT_THAT(e.what(), HasSubstr("STRATA_JOB_TOKEN_FILE"));
    EXPECT_THAT(e.what(), HasSubstr("STRATA_JOB_TOKEN"));
    EXPECT_THAT(e.what(), HasSubstr("token_file"));
  }
}

TEST_P(GrpcRingSecurity, StrangersAreRefusedAndLoggedOnceAndTheJobGoesOn) {
  form(2);
  expect_all_reduce_works(0);
  host_.clear_log();

  const Outcome wrong = stranger("not-the-token-of-this-job-at-all", 1);
  EXPECT_EQ(wrong.code, STRATA_PERMISSION_DENIED) << wrong.message;
  EXPECT_THAT(wrong.message, HasSubstr("refused"));
  const Outcome none = stranger("", 1);
  EXPECT_EQ(none.code, STRATA_PERMISSION_DENIED) << none.message;
  // The right token but a rank that is connected already: a replayed or
  // hijacking stream, not the neighbour.
  const Outcome second = stranger(kToken, 1);
  EXPECT_EQ(second.code, STRATA_PERMISSION_DENIED) << second.message;

  const auto warnings = host_.warnings();
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_THAT(warnings[0], HasSubstr("did not present this job's token"));
  EXPECT_THAT(warnings[1], HasSubstr("did not present this job's token"));
  EXPECT_THAT(warnings[2], HasSubstr("connected already"));
  for (const auto& w : warnings) EXPECT_THAT(w, ::testing::Not(HasSubstr(kToken)));
  expect_all_reduce_works(1);
}

TEST_P(GrpcRingSecurity, GarbageBytesOnTheWorkerPortAreDroppedAndTheJobGoesOn) {
  form(3);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(rank0().listen_port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval five{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &five, sizeof five);
  std::string garbage = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919) & 0xff));
  EXPECT_GT(::write(fd, garbage.data(), garbage.size()), 0);
  // The server hangs up on a connection that does not speak HTTP/2.
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) {
  }
  EXPECT_EQ(n, 0) << "the server should close the connection, not leave it open";
  ::close(fd);
  expect_all_reduce_works(0);
}

TEST_P(GrpcRingSecurity, WorldReadableTokenFileIsRefused) {
  ::unsetenv("STRATA_JOB_TOKEN");
  const std::string path = ::testing::TempDir() + "grpc_ring_token";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kToken, f);
    std::fclose(f);
  }
  ::chmod(path.c_str(), 0644);  // readable by others: refused
  ::setenv("STRATA_JOB_TOKEN_FILE", path.c_str(), 1);
  try {
    algo_->create_team(team_desc(host_.store(), 4, 0, 2, 2s));
    FAIL() << "a world-readable token file was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_PERMISSION_DENIED) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("token"));
  }
  ::unlink(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Planes, GrpcRingSecurity,
                         ::testing::Values(DataPlaneKind::kTcp, DataPlaneKind::kGrpc),
                         plane_test_name);

// Strangers on rank 0's tcp data port while the team forms: a handshake
// with a wrong token, bytes of another protocol, and a connection that
// sends nothing. Each is closed without a welcome and logged once; the
// left neighbour is admitted and the team all-reduces; once formed, the
// port is closed.
TEST(GrpcRingTcpDoor, StrangersOnTheDataPortAreRefusedLoggedAndTheTeamForms) {
  ::setenv("STRATA_JOB_TOKEN", kToken, 1);
  ::unsetenv("STRATA_JOB_TOKEN_FILE");
  FakeHost host;
  auto algo = make_all_reduce_ring(test_options(DataPlaneKind::kTcp));
  TwoRanks ranks;
  for (int r = 0; r < 2; ++r) ranks.desc[r] = team_desc(host.store(), 41, r, 2, 10s);
  auto zero = std::async(std::launch::async, [&] { return algo->create_team(ranks.desc[0]); });
  const std::string address = sdk::Host::store_get(host.store(), "grpc_ring/tcp_address/0",
                                                   sdk::Host::now_ns() + 10'000'000'000);
  const int port = std::stoi(address.substr(address.rfind(':') + 1));

  const int wrong_token = connect_loopback(port);
  const int garbage = connect_loopback(port);
  const int silent = connect_loopback(port);
  ASSERT_GE(wrong_token, 0);
  ASSERT_GE(garbage, 0);
  ASSERT_GE(silent, 0);
  const std::string forged = encode_handshake(41, 1, "not-the-token-of-this-job-at-all");
  ASSERT_EQ(::write(wrong_token, forged.data(), forged.size()), static_cast<ssize_t>(forged.size()));
  std::string junk = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 512; ++i) junk.push_back(static_cast<char>((i * 7919) & 0xff));
  ASSERT_EQ(::write(garbage, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));

  // Only now does the real left neighbour start.
  ranks.state[1] = algo->create_team(ranks.desc[1]);
  ranks.state[0] = zero.get();
  EXPECT_EQ(answer_of(wrong_token), 0) << "no welcome for a wrong token: the door closes";
  EXPECT_EQ(answer_of(garbage), 0);
  EXPECT_EQ(answer_of(silent), 0);
  for (const int fd : {wrong_token, garbage, silent}) ::close(fd);

  const auto warnings = host.warnings();
  ASSERT_EQ(warnings.size(), 3u) << ::testing::PrintToString(warnings);
  EXPECT_THAT(warnings[0], HasSubstr("did not present this job's token"));
  EXPECT_THAT(warnings[1], HasSubstr("did not open with a grpc_ring data-plane handshake"));
  EXPECT_THAT(warnings[2], HasSubstr("sent no complete handshake"));
  for (const auto& w : warnings) {
    EXPECT_THAT(w, HasSubstr("refused a tcp data connection from 127.0.0.1:"));
    EXPECT_THAT(w, ::testing::Not(HasSubstr(kToken)));
  }
  ranks.expect_all_reduce(*algo, 0, 5000, 1.0f, 2.0f);
  EXPECT_LT(connect_loopback(port), 0) << "the data port stays open after the team formed";
}

}  // namespace
}  // namespace strata::grpc_ring::testing
