// The TCP store's wire protocol, shared by its server and client.
//
// A connection starts with the client's hello (not framed, so a stranger's
// garbage is recognised from its first four bytes):
//   "STRS" | u16 version | u16 token length | i32 rank | i32 world | token
// Everything after it, both ways, is a frame: u32 body length | body, where
// the body starts with an Op byte. The server answers the hello with an OK
// or ERROR frame, then each request with exactly one reply frame; a client
// has at most one request outstanding per connection. Integers are little
// endian. Every length is bounded before anything is allocated.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_WIRE_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/cluster/store_limits.h"
#include "core/common/status.h"

namespace strata::tcp_store {

inline constexpr char kMagic[4] = {'S', 'T', 'R', 'S'};
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kHelloFixedBytes = 16;
inline constexpr size_t kMaxTokenBytes = 256;
inline constexpr size_t kMaxKeyBytes = 4096;
inline constexpr size_t kMaxValueBytes = StoreLimits::kProtocolMaxValueBytes;
inline constexpr size_t kMaxFrameBytes = kMaxValueBytes + kMaxKeyBytes + 64;
// The longest prefix of a request frame parse_request_head needs.
inline constexpr size_t kMaxRequestHeadBytes = 9 + kMaxKeyBytes;

enum class Op : uint8_t {
  kSet = 1,    // key, value                  -> OK
  kGet = 2,    // key, i64 timeout in ms      -> OK value | ERROR TIMED_OUT
  kAdd = 3,    // key, i64 delta              -> OK i64 | ERROR INVALID_ARGUMENT
  kBye = 4,    // (nothing); no reply: the client is leaving on purpose
  kOk = 0x80,
  kError = 0x81,  // i32 code (strata_status_t), message
};

struct Hello {
  int32_t rank = 0;
  int32_t world = 0;
  std::string token;
};

std::string encode_hello(const Hello& hello);

// Incremental parsing of bytes received so far: kNeedMore until a whole
// message is there, kBad (with `error`) as soon as the bytes cannot be one.
enum class Parse { kNeedMore, kBad, kDone };

struct HelloParse {
  Parse state = Parse::kNeedMore;
  Hello hello;
  size_t consumed = 0;
  std::string error;
};
HelloParse parse_hello(std::string_view bytes);

struct FrameParse {
  Parse state = Parse::kNeedMore;
  Op op = Op::kOk;
  std::string_view payload;  // the body after the op byte; views `bytes`
  size_t consumed = 0;
  std::string error;
};
FrameParse parse_frame(std::string_view bytes);

// The start of a request frame: enough (at most kMaxRequestHeadBytes) to
// decide whether to take the rest before any of it is buffered. kBad when
// the bytes cannot start a request (a length over the limit or not the
// request type's, an unknown type, a key over kMaxKeyBytes).
struct RequestHead {
  Parse state = Parse::kNeedMore;
  Op op = Op::kBye;
  size_t frame_bytes = 0;     // the whole frame, its length prefix included
  std::string_view key;       // views `bytes`; empty for kBye
  size_t value_bytes = 0;     // kSet: the value's length, as the frame implies
  std::string error;
};
RequestHead parse_request_head(std::string_view bytes);

// A decoded request (server side).
struct Request {
  Op op = Op::kBye;
  std::string key;
  std::string value;       // kSet
  int64_t number = 0;      // kGet: timeout in ms; kAdd: delta
};
StatusOr<Request> decode_request(Op op, std::string_view payload);

std::string encode_set(std::string_view key, std::string_view value);
std::string encode_get(std::string_view key, int64_t timeout_ms);
std::string encode_add(std::string_view key, int64_t delta);
std::string encode_bye();
std::string encode_ok(std::string_view payload);
// The first bytes of encode_ok(payload) for a payload of `payload_bytes`,
// so a stored value can follow without being copied into the frame.
std::string encode_ok_header(size_t payload_bytes);
std::string encode_ok_number(int64_t value);
std::string encode_error(Code code, std::string_view message);

// A reply's payload for OK; the carried Status for ERROR; DATA_LOSS for a
// frame that is neither.
StatusOr<std::string> decode_reply(Op op, std::string_view payload);
StatusOr<int64_t> decode_number(std::string_view payload);

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_WIRE_H_
