#include "core/strategy/parameter_server/ps_wire.h"

#include <cstring>

namespace strata::ps {
namespace {

template <class T>
void put(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out.append(bytes, sizeof(T));
}

template <class T>
T get(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  return v;
}

bool known_op(uint8_t op) {
  return (op >= 1 && op <= 8) || (op >= 0x80 && op <= 0x82);
}

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::kInit: return "init";
    case Op::kPull: return "pull";
    case Op::kPush: return "push";
    case Op::kNextStep: return "next_step";
    case Op::kStepDone: return "step_done";
    case Op::kHeartbeat: return "heartbeat";
    case Op::kIdle: return "idle";
    case Op::kDone: return "done";
    case Op::kOk: return "ok";
    case Op::kNotReady: return "not_ready";
    case Op::kError: return "error";
  }
  return "?";
}

std::string encode_hello(const Hello& hello) {
  std::string out(kMagic, 4);
  put<uint16_t>(out, kVersion);
  put<uint16_t>(out, static_cast<uint16_t>(hello.token.size()));
  put<int32_t>(out, hello.worker);
  out += hello.token;
  return out;
}

Parse parse_hello(std::string_view bytes, Hello* hello, size_t* consumed, std::string* error) {
  if (bytes.empty()) return Parse::kNeedMore;
  const size_t have = std::min<size_t>(bytes.size(), 4);
  if (std::memcmp(bytes.data(), kMagic, have) != 0) {
    *error = "not a Strata parameter server client (bad magic)";
    return Parse::kBad;
  }
  if (bytes.size() < kHelloFixedBytes) return Parse::kNeedMore;
  const uint16_t version = get<uint16_t>(bytes.data() + 4);
  const uint16_t token_len = get<uint16_t>(bytes.data() + 6);
  if (version != kVersion) {
    *error = "protocol version " + std::to_string(version) + ", this ps speaks " +
             std::to_string(kVersion);
    return Parse::kBad;
  }
  if (token_len > kMaxTokenBytes) {
    *error = "token of " + std::to_string(token_len) + " bytes is too long";
    return Parse::kBad;
  }
  if (bytes.size() < kHelloFixedBytes + token_len) return Parse::kNeedMore;
  hello->worker = get<int32_t>(bytes.data() + 8);
  hello->token.assign(bytes.data() + kHelloFixedBytes, token_len);
  *consumed = kHelloFixedBytes + token_len;
  return Parse::kDone;
}

std::string encode_frame(Op op, uint64_t seq, std::string_view payload) {
  std::string out;
  out.reserve(4 + 9 + payload.size());
  put<uint32_t>(out, static_cast<uint32_t>(9 + payload.size()));
  put<uint8_t>(out, static_cast<uint8_t>(op));
  put<uint64_t>(out, seq);
  out.append(payload);
  return out;
}

StatusOr<Frame> decode_body(std::string_view body) {
  if (body.size() < 9) {
    return DataLossError("frame body of " + std::to_string(body.size()) +
                         " bytes is shorter than its 9-byte header");
  }
  const uint8_t op = static_cast<uint8_t>(body[0]);
  if (!known_op(op)) return DataLossError("unknown op " + std::to_string(op) + " in a frame");
  Frame f;
  f.op = static_cast<Op>(op);
  f.seq = get<uint64_t>(body.data() + 1);
  f.payload.assign(body.substr(9));
  return f;
}

Parse parse_frame(std::string_view bytes, Frame* frame, size_t* consumed, std::string* error) {
  if (bytes.size() < 4) return Parse::kNeedMore;
  const uint32_t len = get<uint32_t>(bytes.data());
  if (len < 9 || len > kMaxBodyBytes) {
    *error = "frame length " + std::to_string(len) + " is outside [9, " +
             std::to_string(kMaxBodyBytes) + "]";
    return Parse::kBad;
  }
  if (bytes.size() < 4 + size_t{len}) return Parse::kNeedMore;
  StatusOr<Frame> f = decode_body(bytes.substr(4, len));
  if (!f.ok()) {
    *error = f.status().message();
    return Parse::kBad;
  }
  *frame = std::move(*f);
  *consumed = 4 + size_t{len};
  return Parse::kDone;
}

PayloadWriter& PayloadWriter::u8(uint8_t v) { put(out_, v); return *this; }
PayloadWriter& PayloadWriter::u32(uint32_t v) { put(out_, v); return *this; }
PayloadWriter& PayloadWriter::i32(int32_t v) { put(out_, v); return *this; }
PayloadWriter& PayloadWriter::i64(int64_t v) { put(out_, v); return *this; }
PayloadWriter& PayloadWriter::text(std::string_view v) { out_.append(v); return *this; }
PayloadWriter& PayloadWriter::floats(std::span<const float> v) {
  put<uint8_t>(out_, kDTypeF32);
  put<uint64_t>(out_, v.size());
  if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size_bytes());
  return *this;
}

bool PayloadReader::take(size_t n, const char* field, const char** at) {
  if (!error_.empty()) return false;
  if (in_.size() - pos_ < n) {
    error_ = std::string(field) + " is cut short (" + std::to_string(in_.size() - pos_) +
             " byte(s) left, " + std::to_string(n) + " needed)";
    return false;
  }
  *at = in_.data() + pos_;
  pos_ += n;
  return true;
}

uint8_t PayloadReader::u8(const char* f) { const char* a; return take(1, f, &a) ? get<uint8_t>(a) : 0; }
uint32_t PayloadReader::u32(const char* f) { const char* a; return take(4, f, &a) ? get<uint32_t>(a) : 0; }
int32_t PayloadReader::i32(const char* f) { const char* a; return take(4, f, &a) ? get<int32_t>(a) : 0; }
int64_t PayloadReader::i64(const char* f) { const char* a; return take(8, f, &a) ? get<int64_t>(a) : 0; }

std::vector<float> PayloadReader::floats(const char* field, int64_t expected) {
  const uint8_t dtype = u8(field);
  const char* at = nullptr;
  if (!take(8, field, &at)) return {};
  const uint64_t count = get<uint64_t>(at);
  if (dtype != kDTypeF32) {
    error_ = std::string(field) + " has dtype code " + std::to_string(dtype) +
             "; parameter servers hold f32 (code 1) only";
    return {};
  }
  if (expected >= 0 && count != static_cast<uint64_t>(expected)) {
    error_ = std::string(field) + " has " + std::to_string(count) + " element(s) but the shard has " +
             std::to_string(expected);
    return {};
  }
  if (count > (in_.size() - pos_) / sizeof(float)) {
    error_ = std::string(field) + " claims " + std::to_string(count) + " floats but " +
             std::to_string(in_.size() - pos_) + " byte(s) follow";
    return {};
  }
  std::vector<float> out(count);
  if (count > 0 && take(count * sizeof(float), field, &at)) {
    std::memcpy(out.data(), at, count * sizeof(float));
  }
  return out;
}

Status PayloadReader::reads_ok(std::string_view what) const {
  if (!error_.empty()) return InvalidArgumentError(std::string(what) + ": " + error_);
  return Status::Ok();
}

Status PayloadReader::status(std::string_view what) const {
  if (!error_.empty()) return InvalidArgumentError(std::string(what) + ": " + error_);
  if (pos_ != in_.size()) {
    return InvalidArgumentError(std::string(what) + ": " + std::to_string(in_.size() - pos_) +
                                " unexpected byte(s) after the message");
  }
  return Status::Ok();
}

std::string encode_error(const Status& status) {
  return PayloadWriter().i32(static_cast<int32_t>(status.code())).text(status.message()).take();
}

Status decode_error(std::string_view payload) {
  PayloadReader r(payload);
  const int32_t code = r.i32("error code");
  std::string message = r.rest();
  if (!r.status("error reply").ok() || code >= 0 || code < -13) {
    return DataLossError("the parameter server sent a malformed error reply");
  }
  return Status(static_cast<Code>(code), std::move(message));
}

}  // namespace strata::ps
