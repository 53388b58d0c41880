// TLS (tls_cert / tls_key / tls_ca / tls_server_name): a ring team whose
// every rank has the job's certificate all-reduces; a plaintext client and
// one holding another CA's certificate never reach the team's door (no
// stream, no warning from our code: the handshake fails in gRPC), while a
// client with a proper certificate does reach it, so the refusals are TLS's
// doing. The grpc store takes the same options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <grpcpp/create_channel.h>

#include <cstdlib>
#include <filesystem>
#include <future>

#include "credentials.h"
#include "grpc_store.h"
#include "grpc_store_type.h"
#include "ring_harness.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "tls_files.h"

namespace strata::grpc_ring::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

GrpcRingOptions tls_options(const TlsIdentity& id) {
  GrpcRingOptions o = test_options();
  o.tls_cert = id.cert;
  o.tls_key = id.key;
  o.tls_ca = id.ca;
  o.tls_server_name = kPeerName;  // the certificate does not name 127.0.0.1
  o.data_plane = DataPlaneKind::kAuto;  // as configured with TLS alone: the grpc data plane
  return o;
}

class GrpcRingTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    files_ = TlsFiles::make(::testing::TempDir(), &why);
    if (!files_) skip_reason_ = new std::string(why);
  }
  static void TearDownTestSuite() {
    if (files_) std::filesystem::remove_all(files_->dir());
    files_.reset();
    delete skip_reason_;
    skip_reason_ = nullptr;
  }

  void SetUp() override {
    if (skip_reason_ != nullptr) GTEST_SKIP() << *skip_reason_;
    ::setenv("STRATA_JOB_TOKEN", kToken, 1);
    ::unsetenv("STRATA_JOB_TOKEN_FILE");
    algo_ = make_all_reduce_ring(tls_options(files_->member()));
  }

  void form(uint64_t id) { ranks_.form(*algo_, host_, id); }
  void expect_all_reduce_works(uint64_t sequence) {
    ranks_.expect_all_reduce(*algo_, sequence, 3000, 1.5f, 2.0f);
  }

  // A stream to rank 0 claiming to be rank 1, with this job's token, over
  // a channel with `credentials`.
  Outcome stranger(std::shared_ptr<grpc::ChannelCredentials> credentials) {
    RingTeam& team = static_cast<RingTeamState*>(ranks_.state[0].get())->team();
    const std::string address = "127.0.0.1:" + std::to_string(team.listen_port());
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride(kPeerName);
    Signal signal;
    LinkConfig lc;
    lc.channel = grpc::CreateCustomChannel(address, credentials, args);
    lc.token = kToken;
    lc.team_id = team.id();
    lc.rank = 1;
    lc.peer = 0;
    lc.peer_address = address;
    RingLink link(std::move(lc), signal);
    try {
      link.open(std::chrono::steady_clock::now() + 1500ms);
      return {};
    } catch (const sdk::Error& e) {
      return {e.code(), e.what()};
    }
  }

  static inline std::optional<TlsFiles> files_;
  static inline std::string* skip_reason_ = nullptr;
  FakeHost host_;
  std::unique_ptr<sdk::Algorithm> algo_;
  TwoRanks ranks_;
};

TEST_F(GrpcRingTls, ATeamWithTlsOnEveryRankAllReduces) {
  EXPECT_EQ(tls_options(files_->member()).resolved_data_plane(), DataPlaneKind::kGrpc);
  form(1);
  expect_all_reduce_works(0);
  expect_all_reduce_works(1);
  EXPECT_TRUE(host_.warnings().empty());
}

TEST_F(GrpcRingTls, PlaintextAndForeignCaClientsNeverReachTheDoor) {
  form(2);
  host_.clear_log();
  const Outcome plain = stranger(grpc::InsecureChannelCredentials());
  EXPECT_NE(plain.code, STRATA_OK);
  EXPECT_NE(plain.code, STRATA_PERMISSION_DENIED) << "a plaintext stream reached the door";
  const Outcome foreign = stranger(channel_credentials(tls_options(files_->stranger())));
  EXPECT_NE(foreign.code, STRATA_OK);
  EXPECT_NE(foreign.code, STRATA_PERMISSION_DENIED) << "another CA's client reached the door";
  EXPECT_TRUE(host_.warnings().empty()) << host_.warnings().front();
  // Control: the job's own certificate does get through TLS, to the door,
  // which refuses a second rank 1 (so the refusals above were TLS's).
  const Outcome member = stranger(channel_credentials(tls_options(files_->member())));
  EXPECT_EQ(member.code, STRATA_PERMISSION_DENIED) << member.message;
  ASSERT_EQ(host_.warnings().size(), 1u);
  EXPECT_THAT(host_.warnings()[0], HasSubstr("connected already"));
  expect_all_reduce_works(0);
}

TEST_F(GrpcRingTls, TheGrpcStoreTakesTheSameOptions) {
  GrpcStoreType tls_type(tls_options(files_->member()));
  auto zero = tls_type.open("127.0.0.1:0", 0, 2, sdk::Host::now_ns() + 10'000'000'000);
  const std::string address = static_cast<GrpcStore&>(*zero).address();
  auto one = tls_type.open(address, 1, 2, sdk::Host::now_ns() + 10'000'000'000);
  one->set("k", "over tls");
  EXPECT_EQ(zero->get("k", sdk::Host::now_ns() + 1'000'000'000), "over tls");
  // A rank without TLS cannot reach it; the error says what to check.
  GrpcStoreType plain_type(test_options());
  try {
    plain_type.open(address, 1, 2, sdk::Host::now_ns() + 500'000'000);
    ADD_FAILURE() << "a plaintext rank opened a TLS store";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_TIMED_OUT) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("agree on TLS"));
  }
  EXPECT_EQ(one->add("n", 4), 4);
}

// Raw TCP would carry the ring's data around TLS: asking for it with TLS
// configured refuses the plugin at load, naming the option (or the
// variable); without TLS, tcp is the default and grpc may be chosen.
TEST(GrpcRingDataPlaneOption, TcpWithTlsIsRefusedNamingTheOption) {
  ::unsetenv("STRATA_GRPC_RING_DATA_PLANE");
  {
    FakeHost host;
    EXPECT_EQ(GrpcRingOptions::from_host().resolved_data_plane(), DataPlaneKind::kTcp);
    host.set_option("data_plane", "grpc");
    EXPECT_EQ(GrpcRingOptions::from_host().resolved_data_plane(), DataPlaneKind::kGrpc);
    host.set_option("data_plane", "udp");
    EXPECT_THROW(GrpcRingOptions::from_host(), sdk::Error);
  }
  FakeHost host;
  host.set_option("tls_cert", "/nonexistent/cert.pem");
  host.set_option("tls_key", "/nonexistent/key.pem");
  host.set_option("tls_ca", "/nonexistent/ca.pem");
  EXPECT_EQ(GrpcRingOptions::from_host().resolved_data_plane(), DataPlaneKind::kGrpc);
  host.set_option("data_plane", "tcp");
  try {
    GrpcRingOptions::from_host();
    ADD_FAILURE() << "data_plane tcp was accepted together with TLS";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("plugins.options.grpc_ring.data_plane"));
    EXPECT_THAT(e.what(), HasSubstr("TLS"));
  }
  host.set_option("data_plane", "grpc");
  ::setenv("STRATA_GRPC_RING_DATA_PLANE", "tcp", 1);
  try {
    GrpcRingOptions::from_host();
    ADD_FAILURE() << "STRATA_GRPC_RING_DATA_PLANE=tcp was accepted together with TLS";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("STRATA_GRPC_RING_DATA_PLANE"));
  }
  ::unsetenv("STRATA_GRPC_RING_DATA_PLANE");
}

}  // namespace
}  // namespace strata::grpc_ring::testing
