// Fuzz target: the parameter-server protocol (core/strategy/parameter_server/
// ps_wire.h) on both ends of a connection.
//  - Server (first byte even): the bytes are what a worker sends, read the
//    way ps_tcp_server.cc does: parse_hello, ParameterServer::admit, then
//    parse_frame and ParameterServer::handle for each frame, on a fresh ps
//    whose scheme, coordinator role and token the first byte picks. Every
//    request gets exactly one well-formed reply echoing its sequence.
//  - Client (first byte odd): the bytes are what a ps sends back, read the
//    way ps_worker_client.cc and tcp_channel.cc do.
// An accepted frame re-encodes to exactly the bytes it came from.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/common/logging.h"
#include "core/config/config.h"
#include "core/strategy/parameter_server/parameter_server.h"
#include "core/strategy/parameter_server/ps_wire.h"
#include "core/strategy/parameter_server/scheme.h"
#include "tests/fuzz/fuzz_check.h"

namespace ps = strata::ps;

namespace {

constexpr std::array<const char*, 8> kSchemes = {"hogwild", "downpour", "agn",    "sagn",
                                                 "sync",    "dynamic_sgd", "aeasgd", "aeamsgd"};
constexpr int kWorkers = 2;
constexpr std::string_view kToken = "fuzz-token";

// One frame off the front of `in`: nullopt-like false when there is none
// (more needed, or refused: then with a reason).
bool next_frame(std::string_view& in, ps::Frame* frame) {
  size_t consumed = 0;
  std::string error;
  const ps::Parse p = ps::parse_frame(in, frame, &consumed, &error);
  if (p == ps::Parse::kBad) STRATA_FUZZ_CHECK(!error.empty(), "a bad frame without a reason");
  if (p != ps::Parse::kDone) return false;
  STRATA_FUZZ_CHECK(consumed >= 13 && consumed <= in.size(), "a frame's length is off");
  STRATA_FUZZ_CHECK(ps::encode_frame(frame->op, frame->seq, frame->payload) == in.substr(0, consumed),
                    "a frame does not re-encode to its bytes");
  in.remove_prefix(consumed);
  return true;
}

void serve(uint8_t choice, std::string_view in) {
  // A refused token is logged as a warning; thousands a second would be
  // all the fuzzer does.
  static const bool quiet = (strata::logger().set_level(spdlog::level::off), true);
  (void)quiet;
  strata::ParameterServerConfig config;
  config.scheme = kSchemes[(choice >> 3) % kSchemes.size()];
  strata::StatusOr<std::unique_ptr<ps::Scheme>> scheme = ps::make_scheme(config, kWorkers);
  STRATA_FUZZ_CHECK(scheme.ok(), scheme.status().to_string());
  ps::ParameterServerOptions options;
  options.num_workers = kWorkers;
  options.coordinator = (choice & 2) != 0;
  if ((choice & 4) != 0) options.token = std::string(kToken);
  // Nobody expires and no pull waits: the run depends on the bytes alone.
  options.worker_timeout = std::chrono::hours(1);
  options.startup_timeout = std::chrono::hours(1);
  options.pull_wait = std::chrono::nanoseconds(0);
  ps::ParameterServer server(options, std::shared_ptr<const ps::Scheme>(std::move(*scheme)));

  ps::Hello hello;
  size_t consumed = 0;
  std::string error;
  const ps::Parse p = ps::parse_hello(in, &hello, &consumed, &error);
  if (p == ps::Parse::kBad) STRATA_FUZZ_CHECK(!error.empty(), "a bad hello without a reason");
  if (p != ps::Parse::kDone) return;
  STRATA_FUZZ_CHECK(ps::encode_hello(hello) == in.substr(0, consumed),
                    "a hello does not re-encode to its bytes");
  in.remove_prefix(consumed);
  strata::StatusOr<ps::Session> session = server.admit(hello, "fuzz");
  if (!session.ok()) return;
  ps::Frame request;
  while (next_frame(in, &request)) {
    const ps::Frame reply = server.handle(*session, request);
    STRATA_FUZZ_CHECK(reply.seq == request.seq, "a reply that does not echo its request");
    STRATA_FUZZ_CHECK(reply.op == ps::Op::kOk || reply.op == ps::Op::kNotReady ||
                          reply.op == ps::Op::kError,
                      "a reply that is not OK, NOT_READY or ERROR");
    if (reply.op == ps::Op::kError) {
      const strata::Status s = ps::decode_error(reply.payload);
      STRATA_FUZZ_CHECK(!s.ok() && s.code() != strata::Code::kDataLoss,
                        "the ps sent an error reply its own client cannot read: " + s.to_string());
    }
  }
  (void)server.finished();
  server.tick();
}

// The reads a worker makes of a reply, by request.
void read_reply(const ps::Frame& reply) {
  if (reply.op == ps::Op::kError) {
    const strata::Status s = ps::decode_error(reply.payload);
    STRATA_FUZZ_CHECK(!s.ok(), "an error reply decoded as OK");
    return;
  }
  {  // pull: clock, round, the shard's values
    ps::PayloadReader r(reply.payload);
    (void)r.i64("clock");
    (void)r.i64("round");
    const std::vector<float> values = r.floats("shard value");
    if (r.status("pull reply").ok()) {
      STRATA_FUZZ_CHECK(8 + 8 + 9 + values.size() * 4 == reply.payload.size(),
                        "a pull reply's floats do not account for its bytes");
    }
  }
  {  // push and next_step: one number
    ps::PayloadReader r(reply.payload);
    (void)r.i64("step");
    (void)r.status("next_step reply");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t choice = data[0];
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((choice & 1) == 0) {
    serve(choice, in);
    return 0;
  }
  ps::Frame reply;
  while (next_frame(in, &reply)) read_reply(reply);
  return 0;
}
