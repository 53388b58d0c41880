// Fuzz target: the TCP store's wire decoders (core/cluster/tcp_store_wire.h)
// on a byte stream as the server reads one connection: a hello, then
// frames, each decoded as a request and, as the client would, as a reply.
// Before each frame, parse_request_head reads the same bytes, as the server
// does to decide what to buffer and count against the quota.
// Besides "no crash": a message the decoders accept re-encodes to exactly
// the bytes it came from, a refused one says why, and the head agrees with
// the full decoders.
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

bool same_head(const ts::RequestHead& a, const ts::RequestHead& b) {
  return a.state == b.state && a.op == b.op && a.frame_bytes == b.frame_bytes &&
         a.key == b.key && a.value_bytes == b.value_bytes && a.error == b.error;
}

// What the server decides from the start of a request, before it buffers
// the rest: it needs at most kMaxRequestHeadBytes and never more bytes than
// the frame has, admits no more than a frame may hold, and on a complete
// frame agrees with parse_frame + decode_request.
void check_request_head(std::string_view in, const ts::FrameParse& f) {
  const ts::RequestHead h = ts::parse_request_head(in);
  STRATA_FUZZ_CHECK(same_head(h, ts::parse_request_head(in.substr(0, ts::kMaxRequestHeadBytes))),
                    "the head needs more than kMaxRequestHeadBytes");
  if (h.state == ts::Parse::kBad) {
    STRATA_FUZZ_CHECK(!h.error.empty(), "a bad request head without a reason");
    STRATA_FUZZ_CHECK(f.state != ts::Parse::kDone || !ts::decode_request(f.op, f.payload).ok(),
                      "the head refuses a request decode_request accepts: " + h.error);
    return;
  }
  if (f.state == ts::Parse::kBad) {
    STRATA_FUZZ_CHECK(in.size() < 5, "the head takes a frame parse_frame refuses: " + f.error);
  }
  if (h.state == ts::Parse::kNeedMore) {
    STRATA_FUZZ_CHECK(f.state != ts::Parse::kDone, "a complete frame whose head is undecided");
    return;
  }
  STRATA_FUZZ_CHECK(h.frame_bytes > 4 && h.frame_bytes - 4 <= ts::kMaxFrameBytes,
                    "the head admits a frame over kMaxFrameBytes");
  STRATA_FUZZ_CHECK(h.key.size() <= ts::kMaxKeyBytes, "the head's key is over the limit");
  STRATA_FUZZ_CHECK(h.op == ts::Op::kSet || h.value_bytes == 0, "a value for a request without");
  STRATA_FUZZ_CHECK(h.value_bytes < h.frame_bytes, "a value longer than its frame");
  if (f.state != ts::Parse::kDone) return;
  STRATA_FUZZ_CHECK(h.op == f.op && h.frame_bytes == f.consumed,
                    "the head's op or length differs from parse_frame's");
  const strata::StatusOr<ts::Request> r = ts::decode_request(f.op, f.payload);
  if (!r.ok()) {
    // Only a value's own length field lies past the head.
    STRATA_FUZZ_CHECK(h.op == ts::Op::kSet, "the head accepts a request decode_request refuses: " +
                                                r.status().to_string());
    return;
  }
  STRATA_FUZZ_CHECK(h.key == r->key && h.value_bytes == r->value.size(),
                    "the head's key or value length differs from decode_request's");
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
    check_request_head(in, f);
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
