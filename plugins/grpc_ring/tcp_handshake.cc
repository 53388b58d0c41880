#include "tcp_handshake.h"

#include "strata/sdk/job_token.h"

namespace strata::grpc_ring {
namespace {

void put_le(std::string& out, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_le(const std::string& in, size_t at, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  }
  return v;
}

}  // namespace

std::string encode_handshake(uint64_t team_id, int sender, const std::string& token) {
  std::string out;
  put_le(out, kHandshakeMagic, 4);
  put_le(out, kHandshakeVersion, 2);
  put_le(out, 0, 2);
  put_le(out, team_id, 8);
  put_le(out, static_cast<uint32_t>(sender), 4);
  put_le(out, token.size(), 4);
  return out + token;
}

std::string encode_welcome() {
  std::string out;
  put_le(out, kWelcomeMagic, 4);
  put_le(out, kHandshakeVersion, 2);
  put_le(out, 0, 2);
  return out;
}

bool is_welcome(const std::byte* bytes) {
  return std::string(reinterpret_cast<const char*>(bytes), kWelcomeBytes) == encode_welcome();
}

std::optional<size_t> handshake_length(const std::string& prefix, std::string* why) {
  if (prefix.size() < kHandshakeFixedBytes) return 0;
  if (get_le(prefix, 0, 4) != kHandshakeMagic) {
    *why = "it did not open with a grpc_ring data-plane handshake";
    return std::nullopt;
  }
  if (get_le(prefix, 4, 2) != kHandshakeVersion) {
    *why = "its handshake is version " + std::to_string(get_le(prefix, 4, 2)) + ", not " +
           std::to_string(kHandshakeVersion);
    return std::nullopt;
  }
  const uint64_t token_bytes = get_le(prefix, 20, 4);
  if (token_bytes > kMaxTokenBytes) {
    *why = "its token would be " + std::to_string(token_bytes) + " bytes, over the " +
           std::to_string(kMaxTokenBytes) + "-byte limit";
    return std::nullopt;
  }
  return kHandshakeFixedBytes + token_bytes;
}

std::optional<std::string> refusal(const std::string& handshake, const Door& door) {
  const std::string token = handshake.substr(kHandshakeFixedBytes);
  if (!sdk::job_tokens_equal(token, door.token)) return "it did not present this job's token";
  const uint64_t team = get_le(handshake, 8, 8);
  if (team != door.team_id) return "it names team '" + std::to_string(team) + "'";
  const uint64_t sender = get_le(handshake, 16, 4);
  if (sender != static_cast<uint64_t>(door.expected_sender)) {
    return "it claims to be rank '" + std::to_string(sender) + "', expected rank " +
           std::to_string(door.expected_sender) + " (the left neighbour)";
  }
  return std::nullopt;
}

}  // namespace strata::grpc_ring
