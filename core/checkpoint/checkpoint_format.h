// The byte layout of a checkpoint file (docs/CHECKPOINTS.md has the table)
// and its bounds-checked decoder. Internal to core/checkpoint: callers use
// checkpoint_file.h.
//
//   header   magic "STRATACK" | u32 version | u32 flags (0) | u64 file length
//            | i64 step | u32 tensor count | u32 metadata count      (40 bytes)
//   tensors  u32 name length | name | u32 rank | rank x i64 dims | n x f32
//   metadata u32 key length | key | u32 value length | value
//   trailer  u32 CRC-32 (zlib) of every byte before it                (4 bytes)
//
// All integers and floats are little-endian. The file length lives in the
// header (and so under the CRC) because a truncated file then says so
// plainly, instead of surfacing as a checksum mismatch of garbage bytes.
#ifndef STRATA_CORE_CHECKPOINT_CHECKPOINT_FORMAT_H_
#define STRATA_CORE_CHECKPOINT_CHECKPOINT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/checkpoint/checkpoint_file.h"
#include "core/common/status.h"

namespace strata {

inline constexpr size_t kCheckpointHeaderBytes = 40;
inline constexpr size_t kCheckpointTrailerBytes = 4;

inline void append_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
inline void append_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
inline uint32_t load_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t load_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The element count of `shape`, or nullopt when a dimension is negative or
// the product of the nonzero dimensions exceeds INT64_MAX. Bounding the
// nonzero product (not just the result) keeps shape_elements(), which
// multiplies left to right in int64, free of overflow for [2^40, 2^40, 0].
std::optional<uint64_t> checked_elements(const Shape& shape);

struct CheckpointHeader {
  uint32_t version = 0;
  uint64_t length = 0;
  int64_t step = 0;
  uint32_t tensor_count = 0;
  uint32_t metadata_count = 0;
};

// Checks the header against the real file size: empty, foreign (bad
// magic), short, unsupported version or flags, truncated or extended. `head`
// holds the file's first min(file_size, kCheckpointHeaderBytes) bytes or more.
// `where` starts every message ("checkpoint '/ckpt/ckpt-3.strata'").
Status parse_checkpoint_header(std::span<const unsigned char> head, uint64_t file_size,
                               const std::string& where, CheckpointHeader& header);

// Decodes the records after the header. `body` is the file without its
// trailer, already checked by CRC; the decoder still trusts no length, so
// a CRC collision or a writer bug gives DataLoss, never an out-of-bounds read.
StatusOr<Checkpoint> parse_checkpoint_body(std::span<const unsigned char> body,
                                           const CheckpointHeader& header,
                                           const std::string& where);

// "0x1a2b3c4d": a checkpoint's CRC as every error and log line prints it,
// so a user can match a checksum mismatch against a resume agreement.
std::string crc_text(uint32_t crc);

}  // namespace strata

#endif  // STRATA_CORE_CHECKPOINT_CHECKPOINT_FORMAT_H_
