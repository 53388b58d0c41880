// The first bytes on a tcp data-plane connection. The dialling rank sends a
// handshake (magic, version, team id, its rank, the job token); the
// listening rank answers with a welcome only if every field is the one it
// expects, so each side knows the connection is its neighbour's before a
// single ring message moves. Little-endian, like the ring's header:
//   u32 magic "SGRT" | u16 version | u16 0 | u64 team | u32 sender |
//   u32 token bytes | token
// and the welcome: u32 magic "SGRW" | u16 version | u16 0.
#ifndef STRATA_PLUGINS_GRPC_RING_TCP_HANDSHAKE_H_
#define STRATA_PLUGINS_GRPC_RING_TCP_HANDSHAKE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace strata::grpc_ring {

inline constexpr uint32_t kHandshakeMagic = 0x54524753;  // "SGRT"
inline constexpr uint32_t kWelcomeMagic = 0x57524753;    // "SGRW"
inline constexpr uint16_t kHandshakeVersion = 1;
inline constexpr size_t kHandshakeFixedBytes = 24;
inline constexpr size_t kWelcomeBytes = 8;
inline constexpr size_t kMaxTokenBytes = 4096;

// Who the listening side admits: its left neighbour of this team, with
// this job's token.
struct Door {
  uint64_t team_id = 0;
  int rank = 0;             // the listening process
  int expected_sender = 0;  // its left neighbour
  std::string token;
};

std::string encode_handshake(uint64_t team_id, int sender, const std::string& token);
std::string encode_welcome();
bool is_welcome(const std::byte* bytes);  // kWelcomeBytes

// How many bytes the handshake in `prefix` has in all, once the fixed part
// is there (0 before); nullopt with `why` set when the fixed part already
// shows it is not one (another protocol, a token over the limit).
std::optional<size_t> handshake_length(const std::string& prefix, std::string* why);
// A complete handshake checked against the door: nullopt when admitted,
// else why it was refused (never quoting the token).
std::optional<std::string> refusal(const std::string& handshake, const Door& door);

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_TCP_HANDSHAKE_H_
