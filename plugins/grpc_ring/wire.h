// The bytes on a ring stream. Every message is a fixed 48-byte header
// followed by one chunk of payload, sent as one gRPC message of two slices
// (no protobuf: the payload is the user's bytes, framed by HTTP/2 only).
//
// The receiver knows exactly which message must come next (streams are
// ordered, and every rank runs the same schedule), so a header is not
// interpreted but compared field by field with the expected one: anything
// malformed, oversized, replayed or from another team or call fails the
// collective with both values named.
#ifndef STRATA_PLUGINS_GRPC_RING_WIRE_H_
#define STRATA_PLUGINS_GRPC_RING_WIRE_H_

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/abi/types.h"

namespace strata::grpc_ring {

inline constexpr uint32_t kMagic = 0x31524753;  // "SGR1" on the wire
inline constexpr uint16_t kWireVersion = 1;
inline constexpr size_t kHeaderBytes = 48;
// The one method every ring stream is opened on.
inline constexpr const char* kStreamMethod = "/strata.grpc_ring.Ring/Stream";
// Metadata the opening side presents (keys are lower case, as HTTP/2 wants).
inline constexpr const char* kTokenKey = "strata-job-token-bin";  // binary: any byte
inline constexpr const char* kTeamKey = "strata-team-id";
inline constexpr const char* kRankKey = "strata-sender-rank";

struct Header {
  uint32_t magic = kMagic;
  uint16_t version = kWireVersion;
  uint16_t op = 0;        // strata_op_t of the call
  uint64_t team_id = 0;
  uint64_t sequence = 0;  // the call's sequence on its team
  uint32_t step = 0;
  uint32_t chunk = 0;
  int32_t dtype = 0;
  uint32_t sender = 0;    // process rank
  uint64_t bytes = 0;     // payload bytes after the header

  bool operator==(const Header&) const = default;
  std::string describe() const;  // "team 7 call 3 all_reduce step 2 chunk 0 ..."
};

// Compares a received header with the one due: throws sdk::Error(DATA_LOSS)
// naming both when it is not a grpc_ring v1 header or not the one due
// (malformed, replayed, of another call). `from`: "a message from rank 1".
void check_header(const Header& got, const Header& want, const std::string& from);

// The fixed little-endian layout of a header (kHeaderBytes).
void write_header(const Header& header, std::byte* out);
Header read_header(const std::byte* in);

// Header + payload as one message. The payload is copied into a slice the
// message owns, so the caller's buffer may change as soon as this returns.
grpc::ByteBuffer encode(const Header& header, const void* payload);

// A received message, walked slice by slice without joining them.
class Message {
 public:
  explicit Message(grpc::ByteBuffer& buffer);
  size_t size() const { return size_; }
  // The header, or nullopt when the message is shorter than one.
  std::optional<Header> header() const;
  // Copies the payload to dst.
  void copy_payload(void* dst) const;
  // dst[i] = op(local[i], payload[i]) for `count` elements of `elem` bytes.
  // With `divisor`, MEAN divides the sum by it. Slices split wherever HTTP/2
  // framing put them, so an element cut in two is joined in a small buffer.
  void reduce_payload(strata_dtype_t dtype, strata_redop_t op, void* dst, const void* local,
                      uint64_t count, uint32_t divisor) const;

 private:
  template <class Fn>
  void for_each_payload_piece(Fn&& fn) const;
  std::vector<grpc::Slice> slices_;
  size_t size_ = 0;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_WIRE_H_
