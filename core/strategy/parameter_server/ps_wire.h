// The worker <-> parameter server protocol. Like the TCP store's (whose
// sockets it uses), a connection starts with an unframed hello, so a
// stranger's bytes are recognised from the first four:
//   "STPS" | u16 version | u16 token length | i32 worker | token
// and the ps answers with one reply frame (OK, or ERROR and a close).
// After it, frames both ways: u32 body length | body, body =
//   u8 op | u64 sequence | payload
// A request's sequence is the previous one's plus one on that connection;
// its reply echoes it, so a reply can never be taken for another's.
// Float arrays travel as u8 dtype (1 = f32) | u64 count | count * 4 bytes,
// and every length is checked against what is left before it is read.
// Integers are little endian (the sender's order; both ends are x86/arm64).
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_WIRE_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_WIRE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"

namespace strata::ps {

inline constexpr char kMagic[4] = {'S', 'T', 'P', 'S'};
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kHelloFixedBytes = 12;
inline constexpr size_t kMaxTokenBytes = 4096;
inline constexpr size_t kMaxBodyBytes = size_t{1} << 30;
inline constexpr uint8_t kDTypeF32 = 1;

enum class Op : uint8_t {
  kInit = 1,       // u32 shard, floats            -> OK (first init wins)
  kPull = 2,       // u32 shard, i64 min_round     -> OK i64 clock, i64 round, floats | NOT_READY
  kPush = 3,       // u32 shard, i64 clock, floats -> OK i64 round it joined
  kNextStep = 4,   // i64 total_steps              -> OK i64 step | kWait | kFinished
  kStepDone = 5,   // i64 step                     -> OK
  kHeartbeat = 6,  //                              -> OK
  kIdle = 7,       // u8 idle (1) or active (0)    -> OK
  kDone = 8,       //                              -> OK; the worker is leaving
  kOk = 0x80,
  kNotReady = 0x81,
  kError = 0x82,   // i32 code, message
};
const char* op_name(Op op);

// kNextStep's answers besides a step number.
inline constexpr int64_t kWait = -1;      // steps are out but not all done
inline constexpr int64_t kFinished = -2;  // every step is done

struct Hello {
  int32_t worker = 0;
  std::string token;
};
std::string encode_hello(const Hello& hello);
// kNeedMore (nullopt-like) until the whole hello is there.
enum class Parse { kNeedMore, kBad, kDone };
Parse parse_hello(std::string_view bytes, Hello* hello, size_t* consumed, std::string* error);

struct Frame {
  Op op = Op::kOk;
  uint64_t seq = 0;
  std::string payload;
};
std::string encode_frame(Op op, uint64_t seq, std::string_view payload);
// The body of one frame when `bytes` holds it whole.
Parse parse_frame(std::string_view bytes, Frame* frame, size_t* consumed, std::string* error);
// A body without its length prefix (the in-process transport's).
StatusOr<Frame> decode_body(std::string_view body);

// Builds a payload.
class PayloadWriter {
 public:
  PayloadWriter& u8(uint8_t v);
  PayloadWriter& u32(uint32_t v);
  PayloadWriter& i32(int32_t v);
  PayloadWriter& i64(int64_t v);
  PayloadWriter& floats(std::span<const float> v);
  PayloadWriter& text(std::string_view v);  // the rest of the payload
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads a payload; the first short read or bad value sticks, and status()
// names the field and what was wrong.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view in) : in_(in) {}
  uint8_t u8(const char* field);
  uint32_t u32(const char* field);
  int32_t i32(const char* field);
  int64_t i64(const char* field);
  // A float array of exactly `expected` elements (any count when < 0).
  std::vector<float> floats(const char* field, int64_t expected = -1);
  std::string rest() { std::string r(in_.substr(pos_)); pos_ = in_.size(); return r; }
  // OK when every read succeeded and nothing is left over.
  Status status(std::string_view what) const;
  // OK when every read so far succeeded (more may follow).
  Status reads_ok(std::string_view what) const;

 private:
  bool take(size_t n, const char* field, const char** at);
  std::string_view in_;
  size_t pos_ = 0;
  std::string error_;
};

std::string encode_error(const Status& status);
Status decode_error(std::string_view payload);

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_WIRE_H_
