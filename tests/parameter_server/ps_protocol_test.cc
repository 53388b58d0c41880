// The ps protocol's checks (token, sequence, shard, dtype, size), the
// coordinator's re-queueing, the ps stopping by itself, a dead ps reported
// by task and address, shard placement and the config keys.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <limits>
#include <thread>

#include "core/config/config.h"
#include "core/strategy/parameter_server/in_process_channel.h"
#include "core/strategy/parameter_server/parameter_server.h"
#include "core/strategy/parameter_server/ps_tcp_server.h"
#include "core/strategy/parameter_server/ps_worker_client.h"
#include "core/strategy/parameter_server/shard_placement.h"
#include "core/strategy/parameter_server/tcp_channel.h"

namespace strata::ps {
namespace {

using namespace std::chrono_literals;
const std::string kToken = "0123456789abcdef0123";

std::shared_ptr<ParameterServer> make_server(int workers, std::chrono::nanoseconds timeout = 5s) {
  ParameterServerOptions o;
  o.num_workers = workers;
  o.coordinator = true;
  o.token = kToken;
  o.worker_timeout = timeout;
  return std::make_shared<ParameterServer>(o, make_hogwild_scheme(0.5f));
}

Frame request(uint64_t seq, Op op, std::string payload) { return Frame{op, seq, std::move(payload)}; }

std::string error_of(const Frame& reply) {
  EXPECT_EQ(reply.op, Op::kError);
  return decode_error(reply.payload).message();
}

TEST(PsProtocol, AWrongOrMissingTokenIsRefused) {
  auto server = make_server(1);
  auto wrong = InProcessChannel::open(server, Hello{0, "not-the-token-at-all"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), Code::kPermissionDenied);
  EXPECT_FALSE(InProcessChannel::open(server, Hello{0, ""}).ok());
  EXPECT_FALSE(InProcessChannel::open(server, Hello{7, kToken}).ok());  // no worker 7
  EXPECT_TRUE(InProcessChannel::open(server, Hello{0, kToken}).ok());
}

TEST(PsProtocol, EveryBadMessageGetsAClearErrorNotACrash) {
  auto server = make_server(1);
  Session session = *server->admit(Hello{0, kToken}, "test");
  const std::vector<float> two = {1, 2};
  Frame ok = server->handle(session, request(1, Op::kInit, PayloadWriter().u32(0).floats(two).take()));
  EXPECT_EQ(ok.op, Op::kOk);
  EXPECT_NE(error_of(server->handle(session, request(5, Op::kHeartbeat, ""))).find("out of sequence"),
            std::string::npos);
  EXPECT_NE(error_of(server->handle(session, request(2, Op::kPush,
                                                     PayloadWriter().u32(9).i64(0).floats(two).take())))
                .find("no shard 9"),
            std::string::npos);
  const std::vector<float> three = {1, 2, 3};
  EXPECT_NE(error_of(server->handle(session, request(3, Op::kPush,
                                                     PayloadWriter().u32(0).i64(0).floats(three).take())))
                .find("3 element(s) but the shard has 2"),
            std::string::npos);
  std::string f64 = PayloadWriter().u32(0).i64(0).u8(2).i64(2).take() + std::string(16, '\0');
  EXPECT_NE(error_of(server->handle(session, request(4, Op::kPush, f64))).find("dtype code 2"),
            std::string::npos);
  EXPECT_NE(error_of(server->handle(session, request(5, Op::kPull, "\x01"))).find("cut short"),
            std::string::npos);
  EXPECT_NE(error_of(server->handle(session, request(6, Op::kOk, ""))).find("not a request"),
            std::string::npos);
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  EXPECT_NE(error_of(server->handle(session, request(7, Op::kPush,
                                                     PayloadWriter().u32(0).i64(lowest).floats(two).take())))
                .find("clocks start at 0"),
            std::string::npos);
  // Still serving, value untouched by the refused pushes.
  EXPECT_EQ(server->shard(0)->value, two);
}

TEST(PsProtocol, ADeadWorkersStepsAreRequeuedToTheOthers) {
  auto server = make_server(2, 150ms);
  Session w0 = *server->admit(Hello{0, kToken}, "w0");
  Session w1 = *server->admit(Hello{1, kToken}, "w1");
  auto next = [&](Session& s) {
    Frame r = server->handle(s, request(s.last_seq + 1, Op::kNextStep, PayloadWriter().i64(3).take()));
    PayloadReader p(r.payload);
    return p.i64("step");
  };
  EXPECT_EQ(next(w0), 0);
  EXPECT_EQ(next(w1), 1);  // worker 1 takes step 1 and dies
  EXPECT_EQ(next(w0), 2);
  server->handle(w0, request(w0.last_seq + 1, Op::kStepDone, PayloadWriter().i64(0).take()));
  server->handle(w0, request(w0.last_seq + 1, Op::kStepDone, PayloadWriter().i64(2).take()));
  EXPECT_EQ(next(w0), kWait);  // step 1 is still out
  const auto start = Clock::now();
  int64_t step = kWait;
  while (step == kWait && Clock::now() - start < 3s) {
    std::this_thread::sleep_for(20ms);
    step = next(w0);
  }
  EXPECT_EQ(step, 1);
  EXPECT_EQ(server->steps_requeued(), 1);
  // The dead worker cannot come back and count its step twice.
  Frame late = server->handle(w1, request(w1.last_seq + 1, Op::kStepDone, PayloadWriter().i64(1).take()));
  EXPECT_NE(error_of(late).find("declared dead"), std::string::npos);
  server->handle(w0, request(w0.last_seq + 1, Op::kStepDone, PayloadWriter().i64(1).take()));
  EXPECT_EQ(next(w0), kFinished);
}

// Regression (found by tests/fuzz/fuzz_ps_wire.cc): the coordinator sized
// a flag vector by the first next_step's total, so one request claiming
// 2^62 steps made ps 0 allocate 2^59 bytes and die of bad_alloc.
TEST(PsProtocol, AClaimedStepTotalIsNotAllocated) {
  auto server = make_server(1);
  Session w0 = *server->admit(Hello{0, kToken}, "w0");
  auto send = [&](Op op, int64_t value) {
    return server->handle(w0, request(w0.last_seq + 1, op, PayloadWriter().i64(value).take()));
  };
  Frame first = send(Op::kNextStep, int64_t{1} << 62);
  ASSERT_EQ(first.op, Op::kOk) << error_of(first);
  EXPECT_EQ(PayloadReader(first.payload).i64("step"), 0);
  EXPECT_EQ(server->steps_total(), int64_t{1} << 62);
  // Only steps handed out can be reported done.
  EXPECT_EQ(error_of(send(Op::kStepDone, 5)),
            "ps 0: step_done: worker 0 reported step 5 done, but only steps 0..0 were handed out");
  EXPECT_EQ(send(Op::kStepDone, 0).op, Op::kOk);
  EXPECT_EQ(server->steps_done(), 1);
  Frame second = send(Op::kNextStep, int64_t{1} << 62);
  EXPECT_EQ(PayloadReader(second.payload).i64("step"), 1);
}

TEST(PsProtocol, ThePsStopsByItselfOnceEveryWorkerIsDoneOrDead) {
  auto server = make_server(2, 200ms);
  Session w0 = *server->admit(Hello{0, kToken}, "w0");
  server->handle(w0, request(1, Op::kDone, ""));
  EXPECT_FALSE(server->finished());
  // Worker 1 never shows up: it counts as dead after startup_timeout,
  // here shortened through a worker that came once and went silent.
  Session w1 = *server->admit(Hello{1, kToken}, "w1");
  server->handle(w1, request(1, Op::kHeartbeat, ""));
  EXPECT_TRUE(server->wait_finished(Clock::now() + 5s).ok());
}

TEST(PsProtocol, ADeadPsIsReportedByTaskAndAddressWithinTheDeadline) {
  auto server = make_server(1);
  auto tcp = PsTcpServer::start("127.0.0.1:0", server);
  ASSERT_TRUE(tcp.ok()) << tcp.status();
  const std::string address = (*tcp)->address();
  auto refused = TcpChannel::connect(address, Hello{0, "wrong-token-wrong-token"}, Clock::now() + 5s);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kPermissionDenied);
  {  // a stranger's bytes are dropped; the ps goes on serving
    auto hp = tcp_store::parse_host_port(address);
    auto stranger = tcp_store::connect_once(*hp, Clock::now() + 5s);
    ASSERT_TRUE(stranger.ok());
    ASSERT_TRUE(tcp_store::send_all(*stranger, "GET / HTTP/1.0\r\n\r\n", Clock::now() + 5s).ok());
    std::string answer;
    EXPECT_FALSE(tcp_store::receive_some(*stranger, answer, Clock::now() + 5s).ok());  // closed
  }
  std::vector<PsTarget> targets(1);
  targets[0].main = std::move(*TcpChannel::connect(address, Hello{0, kToken}, Clock::now() + 5s));
  targets[0].heartbeat = std::move(*TcpChannel::connect(address, Hello{0, kToken}, Clock::now() + 5s));
  auto placement = ShardPlacement::compute({"w"}, {4}, 1, "round_robin", 1024);
  PsWorkerClient client(0, std::move(targets), *placement, 2s, 50ms);
  ASSERT_TRUE(client.init(std::vector<float>{1, 2, 3, 4}).ok());
  ASSERT_TRUE(client.pull().ok());
  (*tcp)->stop();
  const auto start = Clock::now();
  auto pulled = client.pull();
  ASSERT_FALSE(pulled.ok());
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_EQ(pulled.status().code(), Code::kPeerFailed);
  EXPECT_NE(pulled.status().message().find("ps 0 at " + address), std::string::npos)
      << pulled.status();
}

TEST(PsPlacement, RoundRobinSplitsLargeVariablesOverPsTasks) {
  auto p = ShardPlacement::compute({"kernel", "bias", "out"}, {4096, 64, 640}, 2, "round_robin",
                                   8 << 10);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->shards().size(), 4u);  // kernel (16 KiB) in two parts
  EXPECT_EQ(p->shards()[0].name, "kernel (part 1 of 2)");
  EXPECT_EQ(p->shards()[0].ps, 0);
  EXPECT_EQ(p->shards()[1].ps, 1);
  EXPECT_EQ(p->shards()[0].count + p->shards()[1].count, 4096u);
  EXPECT_EQ(p->total(), 4096u + 64 + 640);
  auto by_size = ShardPlacement::compute({"a", "b", "c"}, {100, 60, 50}, 2, "by_size", 1 << 20);
  ASSERT_TRUE(by_size.ok());
  EXPECT_EQ(by_size->shards()[0].ps, 0);  // biggest first, then the lightest ps
  EXPECT_EQ(by_size->shards()[1].ps, 1);
  EXPECT_EQ(by_size->shards()[2].ps, 1);
  EXPECT_FALSE(ShardPlacement::compute({"a"}, {1}, 2, "random", 4).ok());
}

TEST(PsConfig, KeysAreCheckedAndNamed) {
  auto good = parse_config(
      "strata: 1\nstrategy: {kind: parameter_server, scheme: sync, worker_learning_rates: [0.1, 0.2], "
      "split_bytes: 8KiB, worker_timeout: 2s}", "t.yaml");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->strategy.parameter_server.scheme, "sync");
  EXPECT_EQ(good->strategy.parameter_server.worker_learning_rates.size(), 2u);
  EXPECT_EQ(good->strategy.parameter_server.split_bytes, 8u << 10);
  auto bad_scheme = parse_config("strata: 1\nstrategy: {kind: parameter_server, scheme: hogwash}", "t.yaml");
  ASSERT_FALSE(bad_scheme.ok());
  EXPECT_NE(bad_scheme.status().message().find("strategy.scheme"), std::string::npos)
      << bad_scheme.status();
  auto wrong_kind = parse_config("strata: 1\nstrategy: {kind: mirrored, scheme: hogwild}", "t.yaml");
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_NE(wrong_kind.status().message().find("only to strategy kind parameter_server"),
            std::string::npos);
  auto bad_rate = parse_config("strata: 1\nstrategy: {kind: parameter_server, learning_rate: fast}", "t.yaml");
  ASSERT_FALSE(bad_rate.ok());
  EXPECT_NE(bad_rate.status().message().find("strategy.learning_rate"), std::string::npos);
  EXPECT_FALSE(parse_config("strata: 1\nstrategy: {kind: parameter_server, variable_placement: x}", "t").ok());
  EXPECT_FALSE(parse_config("strata: 1\nstrategy: {kind: parameter_server, moving_rate: 2}", "t").ok());
}

}  // namespace
}  // namespace strata::ps
