// Fuzz target: the TCP store's wire decoders (core/cluster/tcp_store_wire.h)
// on a byte stream as the server reads one connection: a hello, then
// frames, each decoded as a request and, as the client would, as a reply.
// Besides "no crash": a message the decoders accept re-encodes to exactly
// the bytes it came from, and a refused one says why.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/cluster/tcp_store_wire.h"
#include "tests/fuzz/fuzz_check.h"

namespace ts = strata::tcp_store;

namespace {

void check_request(ts::Op op, std::string_view payload, std::string_view frame) {
  strata::StatusOr<ts::Request> r = ts::decode_request(op, payload);
  if (!r.ok()) {
    STRATA_FUZZ_CHECK(r.status().code() == strata::Code::kDataLoss, r.status().to_string());
    return;
  }
  std::string again;
  switch (r->op) {
    case ts::Op::kSet: again = ts::encode_set(r->key, r->value); break;
    case ts::Op::kGet: again = ts::encode_get(r->key, r->number); break;
    case ts::Op::kAdd: again = ts::encode_add(r->key, r->number); break;
    case ts::Op::kBye: again = ts::encode_bye(); break;
    default: STRATA_FUZZ_CHECK(false, "decode_request accepted a reply op");
  }
  STRATA_FUZZ_CHECK(again == frame, "a request does not re-encode to its bytes");
  STRATA_FUZZ_CHECK(r->key.size() <= ts::kMaxKeyBytes, "key over the limit");
  STRATA_FUZZ_CHECK(r->value.size() <= ts::kMaxValueBytes, "value over the limit");
}

void check_reply(ts::Op op, std::string_view payload, std::string_view frame) {
  strata::StatusOr<std::string> reply = ts::decode_reply(op, payload);
  if (reply.ok()) {
    STRATA_FUZZ_CHECK(op == ts::Op::kOk, "an OK reply from a frame that is not OK");
    STRATA_FUZZ_CHECK(ts::encode_ok(*reply) == frame, "an OK reply does not re-encode");
    strata::StatusOr<int64_t> number = ts::decode_number(*reply);
    if (number.ok()) {
      STRATA_FUZZ_CHECK(ts::encode_ok_number(*number) == frame, "a number does not re-encode");
    }
    return;
  }
  const strata::Status& s = reply.status();
  STRATA_FUZZ_CHECK(s.code() != strata::Code::kOk, "an error reply carried OK");
  if (op == ts::Op::kError && s.code() != strata::Code::kDataLoss &&
      s.code() != strata::Code::kInternal && s.message().size() <= 4000) {
    STRATA_FUZZ_CHECK(ts::encode_error(s.code(), s.message()) == frame,
                      "an error reply does not re-encode: " + s.to_string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const ts::HelloParse hello = ts::parse_hello(in);
  if (hello.state == ts::Parse::kBad) {
    STRATA_FUZZ_CHECK(!hello.error.empty(), "a bad hello without a reason");
  }
  if (hello.state == ts::Parse::kDone) {
    STRATA_FUZZ_CHECK(hello.consumed <= in.size(), "hello consumed more than it had");
    STRATA_FUZZ_CHECK(ts::encode_hello(hello.hello) == in.substr(0, hello.consumed),
                      "a hello does not re-encode to its bytes");
    in.remove_prefix(hello.consumed);
  }
  // The rest as frames (also when the hello was refused: the client reads
  // frames from the server without one).
  for (;;) {
    const ts::FrameParse f = ts::parse_frame(in);
    if (f.state == ts::Parse::kNeedMore) break;
    if (f.state == ts::Parse::kBad) {
      STRATA_FUZZ_CHECK(!f.error.empty(), "a bad frame without a reason");
      break;
    }
    STRATA_FUZZ_CHECK(f.consumed > 4 && f.consumed <= in.size(), "a frame's length is off");
    const std::string_view frame = in.substr(0, f.consumed);
    check_request(f.op, f.payload, frame);
    check_reply(f.op, f.payload, frame);
    in.remove_prefix(f.consumed);
  }
  return 0;
}
