// The "grpc" rendezvous store inside one process: rank 0 hosts it on a free
// loopback port, other ranks are further stores in threads, each with its
// own connection, exactly as other processes would dial it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <set>
#include <thread>

#include "fake_host.h"
#include "grpc_store.h"
#include "grpc_store_client.h"
#include "grpc_store_type.h"
#include "grpc_store_wire.h"
#include "ring_harness.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::grpc_ring::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

int64_t in(std::chrono::milliseconds d) { return sdk::Host::now_ns() + d.count() * 1000000; }

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class GrpcStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("STRATA_JOB_TOKEN", kToken, 1);
    ::unsetenv("STRATA_JOB_TOKEN_FILE");
    rank0_ = type_.open("127.0.0.1:0", 0, kWorld, in(10s));
    address_ = static_cast<GrpcStore&>(*rank0_).address();
  }

  std::unique_ptr<sdk::Store> open(int rank) { return type_.open(address_, rank, kWorld, in(10s)); }

  // The error `body` throws (a test fails if it throws none).
  template <class Body>
  sdk::Error error_of(Body&& body) {
    try {
      body();
    } catch (const sdk::Error& e) {
      return e;
    }
    ADD_FAILURE() << "no error";
    return sdk::Error(STRATA_OK, "");
  }

  static constexpr int kWorld = 3;
  FakeHost host_;
  GrpcStoreType type_{test_options()};
  std::unique_ptr<sdk::Store> rank0_;
  std::string address_;
};

TEST_F(GrpcStoreTest, SetGetAndAddAcrossRanks) {
  auto one = open(1);
  auto two = open(2);
  // A get parked before the key exists is answered by another rank's set.
  auto waiting = std::async(std::launch::async, [&] { return one->get("greeting", in(10s)); });
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(waiting.wait_for(0s), std::future_status::timeout) << "get returned before the set";
  two->set("greeting", "hello from rank 2");
  EXPECT_EQ(waiting.get(), "hello from rank 2");
  // Values are bytes (NULs included), replaced by a later set, and large
  // values arrive whole.
  const std::string binary("a\0b\xff", 4);
  rank0_->set("greeting", binary);
  EXPECT_EQ(two->get("greeting", in(5s)), binary);
  const std::string big(3u << 20, 'x');
  one->set("big", big);
  EXPECT_EQ(rank0_->get("big", in(5s)), big);
  // A missing counter is 0; everyone sees the same one.
  EXPECT_EQ(one->add("counter", 5), 5);
  EXPECT_EQ(two->add("counter", -2), 3);
  EXPECT_EQ(rank0_->add("counter", 0), 3);
  EXPECT_EQ(one->get("counter", in(5s)), "3");
  // A key that is there is read even with a deadline already past.
  EXPECT_EQ(two->get("counter", sdk::Host::now_ns() - 1), "3");
  // A get parked on a counter is answered by the first add.
  auto counted = std::async(std::launch::async, [&] { return two->get("later", in(10s)); });
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(one->add("later", 7), 7);
  EXPECT_EQ(counted.get(), "7");
  // A value that is not a number cannot be added to.
  const auto e = error_of([&] { one->add("big", 1); });
  EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
  EXPECT_THAT(e.what(), HasSubstr("not an integer"));
}

TEST_F(GrpcStoreTest, GetTimesOutNamingTheKey) {
  auto one = open(1);
  const auto start = Clock::now();
  const auto e = error_of([&] { one->get("never/set", in(300ms)); });
  const double took = seconds_since(start);
  EXPECT_EQ(e.code(), STRATA_TIMED_OUT);
  EXPECT_THAT(e.what(), HasSubstr("key 'never/set' was not set within"));
  EXPECT_THAT(e.what(), HasSubstr("rank 1"));
  EXPECT_GE(took, 0.29);
  EXPECT_LT(took, 2.0);
}

TEST_F(GrpcStoreTest, ConcurrentAddsAreExact) {
  std::unique_ptr<sdk::Store> stores[kWorld];
  for (int r = 1; r < kWorld; ++r) stores[r] = open(r);
  constexpr int kThreads = 3, kAdds = 100;
  std::vector<std::future<std::vector<int64_t>>> runs;
  for (int r = 0; r < kWorld; ++r) {
    sdk::Store& store = r == 0 ? *rank0_ : *stores[r];
    for (int t = 0; t < kThreads; ++t) {
      runs.push_back(std::async(std::launch::async, [&store] {
        std::vector<int64_t> seen;
        for (int i = 0; i < kAdds; ++i) seen.push_back(store.add("hits", 1));
        return seen;
      }));
    }
  }
  // Every add returned a different value: 1 .. N, each exactly once.
  std::set<int64_t> values;
  size_t total = 0;
  for (auto& run : runs) {
    for (int64_t v : run.get()) values.insert(v), ++total;
  }
  const int64_t n = kWorld * kThreads * kAdds;
  EXPECT_EQ(total, static_cast<size_t>(n));
  EXPECT_EQ(values.size(), static_cast<size_t>(n));
  EXPECT_EQ(*values.begin(), 1);
  EXPECT_EQ(*values.rbegin(), n);
  EXPECT_EQ(rank0_->get("hits", in(1s)), std::to_string(n));
}

TEST_F(GrpcStoreTest, StrangersAreRefusedAndTheStoreKeepsServing) {
  auto one = open(1);
  one->set("secret", "s");
  // A process with another job's token cannot join ...
  ::setenv("STRATA_JOB_TOKEN", "another-jobs-token-0123456789", 1);
  const auto e = error_of([&] { open(2); });
  ::setenv("STRATA_JOB_TOKEN", kToken, 1);
  EXPECT_EQ(e.code(), STRATA_PERMISSION_DENIED);
  EXPECT_THAT(e.what(), HasSubstr("rank 2 was refused by the grpc store at " + address_));
  // ... nor can raw calls without the token, or from a rank outside the
  // world; each is one warning line, the token never logged.
  auto raw = [&](const std::string& token, int rank, const char* method) {
    StoreClientConfig c;
    c.address = address_;
    c.rank = rank;
    c.world = kWorld;
    c.token = token;
    c.credentials = grpc::InsecureChannelCredentials();
    GrpcStoreClient client(c);
    std::string reply;
    return client.call(method, "secret", store_wire::encode_i64(0),
                       std::chrono::system_clock::now() + 5s, true, &reply);
  };
  EXPECT_EQ(raw("", 1, store_wire::kGet).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(raw(kToken, 7, store_wire::kGet).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(raw(kToken, 1, "/strata.grpc_store.Store/Drop").error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  const auto warnings = host_.warnings();
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_THAT(warnings[0], HasSubstr("did not present this job's token"));
  EXPECT_THAT(warnings[1], HasSubstr("did not present this job's token"));
  EXPECT_THAT(warnings[2], HasSubstr("claims rank '7', outside the world"));
  EXPECT_THAT(warnings[3], HasSubstr("unknown method"));
  for (const auto& w : warnings) EXPECT_THAT(w, ::testing::Not(HasSubstr(kToken)));
  // The members were not disturbed.
  EXPECT_EQ(raw(kToken, 1, store_wire::kGet).error_code(), grpc::StatusCode::OK);
  EXPECT_EQ(one->add("after", 2), 2);
  EXPECT_EQ(rank0_->get("secret", in(1s)), "s");
}

TEST_F(GrpcStoreTest, UnreachableAddressNamesTheRankAndAddress) {
  const auto start = Clock::now();
  const auto e = error_of([&] { type_.open("127.0.0.1:1", 1, 2, in(300ms)); });
  EXPECT_EQ(e.code(), STRATA_TIMED_OUT);
  EXPECT_THAT(e.what(), HasSubstr("rank 1 could not reach the grpc store at 127.0.0.1:1 within"));
  EXPECT_THAT(e.what(), HasSubstr("rank 0 hosts it"));
  EXPECT_LT(seconds_since(start), 3.0);
}

TEST_F(GrpcStoreTest, BadAddressesAndMissingTokensAreRefusedAtOpen) {
  EXPECT_EQ(error_of([&] { type_.open("no-port", 1, 2, in(1s)); }).code(),
            STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(error_of([&] { type_.open("127.0.0.1:0", 1, 2, in(1s)); }).code(),
            STRATA_INVALID_ARGUMENT);
  ::unsetenv("STRATA_JOB_TOKEN");
  const auto e = error_of([&] { type_.open(address_, 1, kWorld, in(1s)); });
  EXPECT_EQ(e.code(), STRATA_FAILED_PRECONDITION);
  EXPECT_THAT(e.what(), HasSubstr("STRATA_JOB_TOKEN_FILE"));
}

TEST_F(GrpcStoreTest, ClosingRankZeroWaitsForTheOthersThenFailsThemFast) {
  auto one = open(1);
  auto two = open(2);
  two.reset();  // a rank that finished is not waited for
  // Rank 0 closes first; rank 1 still reads, then leaves after 0.4 s.
  auto leaving = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(400ms);
    one->set("last", "word");
    EXPECT_EQ(one->get("last", in(1s)), "word");
    one.reset();
  });
  const auto start = Clock::now();
  rank0_.reset();
  const double took = seconds_since(start);
  leaving.get();
  EXPECT_GE(took, 0.35) << "rank 0 did not wait for rank 1";
  EXPECT_LT(took, 4.0) << "rank 0 waited for a rank that had closed";
}

TEST_F(GrpcStoreTest, AParkedGetEndsWhenRankZeroIsGone) {
  GrpcStoreConfig c;
  c.address = address_;
  c.rank = 2;
  c.world = kWorld;
  c.token = kToken;
  c.channel_credentials = grpc::InsecureChannelCredentials();
  auto two = std::make_unique<GrpcStore>(c, in(5s));
  auto parked = std::async(std::launch::async, [&] {
    const auto start = Clock::now();
    const auto e = error_of([&] { two->get("never", in(30s)); });
    return std::make_pair(e, seconds_since(start));
  });
  std::this_thread::sleep_for(200ms);
  rank0_.reset();  // lingers up to 5 s for rank 2, then answers its get
  const auto [e, took] = parked.get();
  EXPECT_EQ(e.code(), STRATA_UNAVAILABLE);
  EXPECT_THAT(e.what(), HasSubstr("closing"));
  EXPECT_THAT(e.what(), HasSubstr("rank 2"));
  EXPECT_LT(took, 8.0) << "the get waited for its own deadline";
  // Later calls fail fast, naming the store.
  const auto start = Clock::now();
  const auto later = error_of([&] { two->set("k", "v"); });
  EXPECT_EQ(later.code(), STRATA_UNAVAILABLE);
  EXPECT_THAT(later.what(), HasSubstr("grpc store at " + address_));
  EXPECT_LT(seconds_since(start), 3.0);
}

}  // namespace
}  // namespace strata::grpc_ring::testing
