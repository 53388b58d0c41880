// The TCP store's wire format: round trips, and incomplete or hostile bytes
// recognised without reading past what arrived.
#include "core/cluster/tcp_store_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace strata::tcp_store {
namespace {

using ::testing::HasSubstr;

TEST(TcpStoreWire, HelloRoundTripsAndIsParsedIncrementally) {
  const std::string bytes = encode_hello({3, 8, "token"});
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_EQ(parse_hello(bytes.substr(0, n)).state, Parse::kNeedMore) << n;
  }
  const HelloParse p = parse_hello(bytes + "next");
  ASSERT_EQ(p.state, Parse::kDone);
  EXPECT_EQ(p.consumed, bytes.size());
  EXPECT_EQ(p.hello.rank, 3);
  EXPECT_EQ(p.hello.world, 8);
  EXPECT_EQ(p.hello.token, "token");
}

TEST(TcpStoreWire, GarbageHelloIsBadFromItsFirstByte) {
  EXPECT_EQ(parse_hello("G").state, Parse::kBad);
  EXPECT_THAT(parse_hello("GET / HTTP/1.1").error, HasSubstr("bad magic"));
  std::string future = encode_hello({0, 1, ""});
  future[4] = 9;  // protocol version 9
  EXPECT_THAT(parse_hello(future).error, HasSubstr("protocol 9"));
  std::string long_token = encode_hello({0, 1, ""});
  long_token[6] = '\xff';
  long_token[7] = '\xff';
  EXPECT_THAT(parse_hello(long_token).error, HasSubstr("job token of 65535 bytes"));
}

TEST(TcpStoreWire, RequestsRoundTrip) {
  const std::string frame = encode_set("key", std::string("v\0v", 3));
  const FrameParse f = parse_frame(frame);
  ASSERT_EQ(f.state, Parse::kDone);
  auto r = decode_request(f.op, f.payload);
  ASSERT_TRUE(r.ok()) << r.status() << " " << static_cast<int>(f.op) << " " << f.payload.size();
  EXPECT_EQ(r->op, Op::kSet);
  EXPECT_EQ(r->key, "key");
  EXPECT_EQ(r->value, std::string("v\0v", 3));

  const std::string add_frame = encode_add("n", -5);  // views point into it
  const FrameParse g = parse_frame(add_frame);
  auto add = decode_request(g.op, g.payload);
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->number, -5);
}

TEST(TcpStoreWire, RepliesCarryValuesAndStatuses) {
  const std::string number = encode_ok_number(-42);
  const FrameParse ok = parse_frame(number);
  auto payload = decode_reply(ok.op, ok.payload);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(*decode_number(*payload), -42);
  const std::string error = encode_error(Code::kTimedOut, "key 'k' was not set");
  const FrameParse err = parse_frame(error);
  auto status = decode_reply(err.op, err.payload);
  EXPECT_EQ(status.status().code(), Code::kTimedOut);
  EXPECT_EQ(status.status().message(), "key 'k' was not set");
}

TEST(TcpStoreWire, MalformedFramesAreRefusedNotTrusted) {
  EXPECT_EQ(parse_frame(std::string("\0\0\0\0", 4)).state, Parse::kBad);  // empty body
  EXPECT_EQ(parse_frame(std::string("\xff\xff\xff\xff", 4)).state, Parse::kBad);
  std::string truncated = encode_set("key", "value");
  truncated.pop_back();
  EXPECT_EQ(parse_frame(truncated).state, Parse::kNeedMore);
  // A key length that points past the end of the frame.
  const std::string lying = std::string("\x05\0\0\0\x02\xff\xff\0\0", 9);
  const FrameParse f = parse_frame(lying);
  ASSERT_EQ(f.state, Parse::kDone);
  EXPECT_EQ(decode_request(f.op, f.payload).status().code(), Code::kDataLoss);
  EXPECT_EQ(decode_request(Op::kError, "").status().code(), Code::kDataLoss);
}

TEST(TcpStoreWire, RequestHeadIsParsedIncrementallyUpToTheKey) {
  const std::string set = encode_set("some/key", std::string(1000, 'v'));
  for (size_t n = 0; n < 9 + 8; ++n) {
    EXPECT_EQ(parse_request_head(set.substr(0, n)).state, Parse::kNeedMore) << n;
  }
  const std::string head = set.substr(0, 9 + 8);  // the head views it
  const RequestHead h = parse_request_head(head);
  ASSERT_EQ(h.state, Parse::kDone);
  EXPECT_EQ(h.op, Op::kSet);
  EXPECT_EQ(h.key, "some/key");
  EXPECT_EQ(h.value_bytes, 1000u);
  EXPECT_EQ(h.frame_bytes, set.size());
  const std::string add_frame = encode_add("c", 5);
  const RequestHead add = parse_request_head(add_frame);
  ASSERT_EQ(add.state, Parse::kDone);
  EXPECT_EQ(add.key, "c");
  EXPECT_EQ(parse_request_head(encode_bye()).state, Parse::kDone);
}

TEST(TcpStoreWire, RequestHeadsClaimingMoreThanTheirFieldsAreBad) {
  // A get whose length prefix claims 1 MiB: bad from its first five bytes,
  // before anything of that size would be buffered.
  std::string get = encode_get("k", 10);
  get[0] = 0;
  get[1] = 0;
  get[2] = 0x10;
  EXPECT_EQ(parse_request_head(get.substr(0, 5)).state, Parse::kBad);
  EXPECT_THAT(parse_request_head(get.substr(0, 5)).error, HasSubstr("request type 2"));
  std::string key = encode_set("k", "v");
  key[5] = '\xff';  // key length far over kMaxKeyBytes
  key[6] = '\xff';
  EXPECT_THAT(parse_request_head(key).error, HasSubstr("malformed request"));
  std::string reply = encode_ok("x");  // not a request type
  EXPECT_THAT(parse_request_head(reply).error, HasSubstr("unknown request type"));
  std::string bye = encode_bye() + "x";
  bye[0] = 2;
  EXPECT_THAT(parse_request_head(bye).error, HasSubstr("goodbye frame of 2 bytes"));
}

// Found by the tcp_store_wire fuzz target (corpus: regress-short-get-frame.bin):
// a whole get of one byte stayed "need more" until the next request's bytes
// were read as its key's length.
TEST(TcpStoreWire, RequestFramesTooShortForTheirTypeAreBadFromTheirFirstFiveBytes) {
  for (const auto& [op, shortest] : {std::pair{Op::kSet, 9}, {Op::kGet, 13}, {Op::kAdd, 13}}) {
    for (int length = 1; length < shortest; ++length) {
      std::string frame(static_cast<size_t>(4 + length), '\0');
      frame[0] = static_cast<char>(length);
      frame[4] = static_cast<char>(op);
      const RequestHead h = parse_request_head(frame.substr(0, 5));
      EXPECT_EQ(h.state, Parse::kBad) << "type " << static_cast<int>(op) << ", " << length;
      EXPECT_THAT(h.error, HasSubstr("needs at least " + std::to_string(shortest)));
    }
  }
  // The shortest of each type is whole: its head is decided.
  EXPECT_EQ(parse_request_head(encode_set("", "")).state, Parse::kDone);
  EXPECT_EQ(parse_request_head(encode_get("", 0)).state, Parse::kDone);
  EXPECT_EQ(parse_request_head(encode_add("", 0)).state, Parse::kDone);
}

}  // namespace
}  // namespace strata::tcp_store
