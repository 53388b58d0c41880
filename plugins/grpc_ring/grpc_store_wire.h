// The bytes of the "grpc" rendezvous store. Each store call is one unary
// gRPC call on a generic method (no protobuf, like the ring): the request is
// `u32 key length | key | body`, the reply a short body; integers are little
// endian. The job token, the caller's rank and the world size travel as
// metadata, so the server can refuse a stranger before reading anything.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_WIRE_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_WIRE_H_

#include <grpcpp/support/byte_buffer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::grpc_ring::store_wire {

inline constexpr const char* kHello = "/strata.grpc_store.Store/Hello";
inline constexpr const char* kSet = "/strata.grpc_store.Store/Set";
inline constexpr const char* kGet = "/strata.grpc_store.Store/Get";
inline constexpr const char* kAdd = "/strata.grpc_store.Store/Add";
inline constexpr const char* kBye = "/strata.grpc_store.Store/Bye";
// Metadata (the token key is the ring's, so one secret, one spelling).
inline constexpr const char* kRankKey = "strata-store-rank";
inline constexpr const char* kWorldKey = "strata-store-world";

// The TCP store's limits, so a job can switch stores without surprises.
inline constexpr uint64_t kMaxKeyBytes = 4096;
inline constexpr uint64_t kMaxValueBytes = 16u << 20;
inline constexpr uint64_t kMaxRequestBytes = 4 + kMaxKeyBytes + kMaxValueBytes;

// A get parks on the server at most this long; the client asks again until
// its own deadline, so no call holds a gRPC deadline of minutes.
inline constexpr int64_t kMaxServerWaitMs = 5000;

struct Request {
  std::string key;
  std::string body;  // Set: the value; Get: i64 wait ms; Add: i64 delta
};

grpc::ByteBuffer to_buffer(std::string_view bytes);
// Everything in `buffer` as one string (it may arrive in several slices).
std::string from_buffer(const grpc::ByteBuffer& buffer);

std::string encode_request(std::string_view key, std::string_view body);
// nullopt when the bytes are not a request (the reason in *error).
std::optional<Request> decode_request(std::string_view bytes, std::string* error);

std::string encode_i64(int64_t value);
std::optional<int64_t> decode_i64(std::string_view bytes);

// A get's reply: one byte, 1 = found (the value follows), 0 = not yet.
inline constexpr char kFound = 1;
inline constexpr char kNotYet = 0;

}  // namespace strata::grpc_ring::store_wire

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_WIRE_H_
