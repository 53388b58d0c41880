#include "grpc_store_wire.h"

#include <grpcpp/support/slice.h>

#include <cstring>
#include <vector>

namespace strata::grpc_ring::store_wire {
namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(std::string_view in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  return v;
}

}  // namespace

grpc::ByteBuffer to_buffer(std::string_view bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

std::string from_buffer(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  out.reserve(buffer.Length());
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

std::string encode_request(std::string_view key, std::string_view body) {
  std::string out;
  out.reserve(4 + key.size() + body.size());
  put_u32(out, static_cast<uint32_t>(key.size()));
  out.append(key);
  out.append(body);
  return out;
}

std::optional<Request> decode_request(std::string_view bytes, std::string* error) {
  if (bytes.size() < 4) {
    *error = "a request of " + std::to_string(bytes.size()) + " bytes has no key length";
    return std::nullopt;
  }
  const uint32_t key_bytes = get_u32(bytes);
  // Checked against the limit before the sum, so a huge length cannot wrap.
  if (key_bytes > kMaxKeyBytes || 4 + static_cast<uint64_t>(key_bytes) > bytes.size()) {
    *error = "a key length of " + std::to_string(key_bytes) + " bytes does not fit the " +
             std::to_string(bytes.size()) + "-byte request (keys are at most " +
             std::to_string(kMaxKeyBytes) + " bytes)";
    return std::nullopt;
  }
  Request r;
  r.key.assign(bytes.substr(4, key_bytes));
  r.body.assign(bytes.substr(4 + key_bytes));
  if (r.body.size() > kMaxValueBytes) {
    *error = "a value of " + std::to_string(r.body.size()) + " bytes is over the " +
             std::to_string(kMaxValueBytes) + "-byte limit";
    return std::nullopt;
  }
  return r;
}

std::string encode_i64(int64_t value) {
  std::string out(8, '\0');
  const auto u = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  return out;
}

std::optional<int64_t> decode_i64(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  return static_cast<int64_t>(u);
}

}  // namespace strata::grpc_ring::store_wire
