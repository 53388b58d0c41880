#include "core/cluster/tcp_store_wire.h"

#include <algorithm>
#include <cstring>

namespace strata::tcp_store {
namespace {

void put_u16(std::string& out, uint16_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8);
}
void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_bytes(std::string& out, std::string_view b) {
  put_u32(out, static_cast<uint32_t>(b.size()));
  out += b;
}

uint64_t get_le(std::string_view b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    v |= uint64_t{static_cast<unsigned char>(b[at + static_cast<size_t>(i)])} << (8 * i);
  }
  return v;
}

// Reads fields off a payload; any overrun makes ok() false for good.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == b_.size(); }
  uint64_t u(int n) {
    if (!ok_ || b_.size() - pos_ < static_cast<size_t>(n)) return fail();
    const uint64_t v = get_le(b_, pos_, n);
    pos_ += static_cast<size_t>(n);
    return v;
  }
  std::string_view bytes(size_t max) {
    const uint64_t n = u(4);
    if (!ok_ || n > max || b_.size() - pos_ < n) {
      fail();
      return {};
    }
    const std::string_view v = b_.substr(pos_, n);
    pos_ += n;
    return v;
  }

 private:
  uint64_t fail() { ok_ = false; return 0; }
  std::string_view b_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::string frame(Op op, std::string_view body) {
  std::string out;
  out.reserve(5 + body.size());
  put_u32(out, static_cast<uint32_t>(body.size() + 1));
  out += static_cast<char>(op);
  out += body;
  return out;
}

}  // namespace

std::string encode_hello(const Hello& hello) {
  std::string out(kMagic, sizeof kMagic);
  put_u16(out, kProtocolVersion);
  put_u16(out, static_cast<uint16_t>(hello.token.size()));
  put_u32(out, static_cast<uint32_t>(hello.rank));
  put_u32(out, static_cast<uint32_t>(hello.world));
  out += hello.token;
  return out;
}

HelloParse parse_hello(std::string_view bytes) {
  HelloParse p;
  const size_t magic = std::min(bytes.size(), sizeof kMagic);
  if (std::memcmp(bytes.data(), kMagic, magic) != 0) {
    p.state = Parse::kBad;
    p.error = "not a Strata store client (bad magic)";
    return p;
  }
  if (bytes.size() < kHelloFixedBytes) return p;
  const auto version = static_cast<uint16_t>(get_le(bytes, 4, 2));
  const size_t token_bytes = get_le(bytes, 6, 2);
  if (version != kProtocolVersion) {
    p.state = Parse::kBad;
    p.error = "speaks store protocol " + std::to_string(version) + ", this server speaks " +
              std::to_string(kProtocolVersion);
    return p;
  }
  if (token_bytes > kMaxTokenBytes) {
    p.state = Parse::kBad;
    p.error = "sent a job token of " + std::to_string(token_bytes) + " bytes (limit " +
              std::to_string(kMaxTokenBytes) + ")";
    return p;
  }
  if (bytes.size() < kHelloFixedBytes + token_bytes) return p;
  p.hello.rank = static_cast<int32_t>(static_cast<uint32_t>(get_le(bytes, 8, 4)));
  p.hello.world = static_cast<int32_t>(static_cast<uint32_t>(get_le(bytes, 12, 4)));
  p.hello.token = std::string(bytes.substr(kHelloFixedBytes, token_bytes));
  p.consumed = kHelloFixedBytes + token_bytes;
  p.state = Parse::kDone;
  return p;
}

FrameParse parse_frame(std::string_view bytes) {
  FrameParse p;
  if (bytes.size() < 4) return p;
  const uint64_t length = get_le(bytes, 0, 4);
  if (length == 0 || length > kMaxFrameBytes) {
    p.state = Parse::kBad;
    p.error = "frame of " + std::to_string(length) + " bytes (limit " +
              std::to_string(kMaxFrameBytes) + ")";
    return p;
  }
  if (bytes.size() - 4 < length) return p;
  p.op = static_cast<Op>(static_cast<unsigned char>(bytes[4]));
  p.payload = bytes.substr(5, length - 1);
  p.consumed = 4 + length;
  p.state = Parse::kDone;
  return p;
}

RequestHead parse_request_head(std::string_view bytes) {
  RequestHead h;
  auto bad = [&h](std::string why) {
    h.state = Parse::kBad;
    h.error = std::move(why);
    return h;
  };
  if (bytes.size() < 5) return h;
  const uint64_t length = get_le(bytes, 0, 4);
  if (length == 0 || length > kMaxFrameBytes) {
    return bad("frame of " + std::to_string(length) + " bytes (limit " +
               std::to_string(kMaxFrameBytes) + ")");
  }
  h.op = static_cast<Op>(static_cast<unsigned char>(bytes[4]));
  h.frame_bytes = 4 + length;
  // op byte, key length, key, then an i64 (get, add) or a value (set).
  constexpr size_t kNumberRequestMax = 1 + 4 + kMaxKeyBytes + 8;
  switch (h.op) {
    case Op::kBye:
      if (length != 1) return bad("goodbye frame of " + std::to_string(length) + " bytes");
      h.state = Parse::kDone;
      return h;
    case Op::kGet:
    case Op::kAdd:
      if (length > kNumberRequestMax) {
        return bad("request type " + std::to_string(static_cast<int>(h.op)) + " of " +
                   std::to_string(length) + " bytes (limit " +
                   std::to_string(kNumberRequestMax) + ")");
      }
      break;
    case Op::kSet:
      break;
    default:
      return bad("unknown request type " + std::to_string(static_cast<int>(h.op)));
  }
  // The shortest request of its type (an empty key, then the value's length
  // or the i64). A shorter frame is bad now: waiting for its key's length
  // would leave a complete frame unanswered, or read the next one's bytes.
  const size_t min_length = 1 + 4 + (h.op == Op::kSet ? 4 : 8);
  if (length < min_length) {
    return bad("malformed request (type " + std::to_string(static_cast<int>(h.op)) +
               ", a frame of " + std::to_string(length) + " bytes; it needs at least " +
               std::to_string(min_length) + ")");
  }
  if (bytes.size() < 9) return h;
  const uint64_t key_bytes = get_le(bytes, 5, 4);
  const uint64_t fixed = 1 + 4 + key_bytes + (h.op == Op::kSet ? 4 : 8);
  if (key_bytes > kMaxKeyBytes || fixed > length ||
      (h.op != Op::kSet && fixed != length)) {
    return bad("malformed request (type " + std::to_string(static_cast<int>(h.op)) +
               ", key of " + std::to_string(key_bytes) + " bytes in a frame of " +
               std::to_string(length) + ")");
  }
  if (bytes.size() < 9 + key_bytes) return h;
  h.key = bytes.substr(9, key_bytes);
  h.value_bytes = h.op == Op::kSet ? length - fixed : 0;
  h.state = Parse::kDone;
  return h;
}

StatusOr<Request> decode_request(Op op, std::string_view payload) {
  Request r;
  r.op = op;
  Reader in(payload);
  switch (op) {
    case Op::kSet:
      r.key = in.bytes(kMaxKeyBytes);
      r.value = in.bytes(kMaxValueBytes);
      break;
    case Op::kGet:
    case Op::kAdd:
      r.key = in.bytes(kMaxKeyBytes);
      r.number = static_cast<int64_t>(in.u(8));
      break;
    case Op::kBye:
      break;
    default:
      return DataLossError("unknown request type " + std::to_string(static_cast<int>(op)));
  }
  if (!in.ok() || !in.at_end()) {
    return DataLossError("malformed request (type " + std::to_string(static_cast<int>(op)) +
                         ", " + std::to_string(payload.size()) + " bytes)");
  }
  return r;
}

std::string encode_set(std::string_view key, std::string_view value) {
  std::string body;
  put_bytes(body, key);
  put_bytes(body, value);
  return frame(Op::kSet, body);
}

std::string encode_get(std::string_view key, int64_t timeout_ms) {
  std::string body;
  put_bytes(body, key);
  put_u64(body, static_cast<uint64_t>(timeout_ms));
  return frame(Op::kGet, body);
}

std::string encode_add(std::string_view key, int64_t delta) {
  std::string body;
  put_bytes(body, key);
  put_u64(body, static_cast<uint64_t>(delta));
  return frame(Op::kAdd, body);
}

std::string encode_bye() { return frame(Op::kBye, {}); }
std::string encode_ok(std::string_view payload) { return frame(Op::kOk, payload); }

std::string encode_ok_header(size_t payload_bytes) {
  std::string out;
  put_u32(out, static_cast<uint32_t>(payload_bytes + 1));
  out += static_cast<char>(Op::kOk);
  return out;
}

std::string encode_ok_number(int64_t value) {
  std::string body;
  put_u64(body, static_cast<uint64_t>(value));
  return frame(Op::kOk, body);
}

std::string encode_error(Code code, std::string_view message) {
  std::string body;
  put_u32(body, static_cast<uint32_t>(static_cast<int32_t>(code)));
  put_bytes(body, message.substr(0, 4000));
  return frame(Op::kError, body);
}

StatusOr<std::string> decode_reply(Op op, std::string_view payload) {
  if (op == Op::kOk) return std::string(payload);
  if (op != Op::kError) {
    return DataLossError("unexpected reply type " + std::to_string(static_cast<int>(op)));
  }
  Reader in(payload);
  const auto code = static_cast<int32_t>(static_cast<uint32_t>(in.u(4)));
  const std::string_view message = in.bytes(kMaxValueBytes);
  if (!in.ok() || !in.at_end()) return DataLossError("malformed error reply");
  if (code >= 0 || code < static_cast<int32_t>(Code::kDataLoss)) {
    return InternalError("error reply with unknown code " + std::to_string(code) + ": " +
                         std::string(message));
  }
  return Status(static_cast<Code>(code), std::string(message));
}

StatusOr<int64_t> decode_number(std::string_view payload) {
  Reader in(payload);
  const auto v = static_cast<int64_t>(in.u(8));
  if (!in.ok() || !in.at_end()) return DataLossError("malformed number reply");
  return v;
}

}  // namespace strata::tcp_store
