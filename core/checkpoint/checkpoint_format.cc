#include "core/checkpoint/checkpoint_format.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace strata {
namespace {

// A cursor over untrusted bytes: every read states its size up front and
// fails, rather than reading past the end, when fewer bytes remain.
class ByteReader {
 public:
  ByteReader(std::span<const unsigned char> bytes, size_t pos) : bytes_(bytes), pos_(pos) {}
  size_t remaining() const { return bytes_.size() - pos_; }
  bool u32(uint32_t& v) {
    if (remaining() < 4) return false;
    v = load_u32(bytes_.data() + pos_);
    pos_ += 4;
    return true;
  }
  bool u64(uint64_t& v) {
    if (remaining() < 8) return false;
    v = load_u64(bytes_.data() + pos_);
    pos_ += 8;
    return true;
  }
  const unsigned char* take(size_t n) {
    if (n > remaining()) return nullptr;
    const unsigned char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::span<const unsigned char> bytes_;
  size_t pos_;
};

// A length-prefixed string of at most `limit` bytes (and at least one when
// `min` is 1); `what` names it in the error.
Status read_string(ByteReader& in, size_t min, size_t limit, const std::string& what,
                   std::string& out) {
  uint32_t size = 0;
  if (!in.u32(size)) return DataLossError(what + ": record truncated before its length");
  if (size < min || size > limit) {
    return DataLossError(what + ": length " + std::to_string(size) + " is outside " +
                         std::to_string(min) + ".." + std::to_string(limit));
  }
  const unsigned char* p = in.take(size);
  if (p == nullptr) {
    return DataLossError(what + ": record truncated (" + std::to_string(size) +
                         " bytes declared, " + std::to_string(in.remaining()) + " remain)");
  }
  out.assign(reinterpret_cast<const char*>(p), size);
  return Status::Ok();
}

Status read_tensor(ByteReader& in, const std::string& what, Tensor& tensor) {
  uint32_t rank = 0;
  if (!in.u32(rank)) return DataLossError(what + ": record truncated before its rank");
  if (rank > static_cast<uint32_t>(kCheckpointMaxRank)) {
    return DataLossError(what + ": rank " + std::to_string(rank) + " exceeds the limit of " +
                         std::to_string(kCheckpointMaxRank));
  }
  Shape shape(rank);
  for (int64_t& d : shape) {
    uint64_t raw = 0;
    if (!in.u64(raw)) return DataLossError(what + ": record truncated inside its shape");
    d = std::bit_cast<int64_t>(raw);
  }
  const std::optional<uint64_t> count = checked_elements(shape);
  if (!count) {
    return DataLossError(what + ": shape " + shape_string(shape) +
                         " has a negative dimension or more elements than int64 can count");
  }
  if (*count > in.remaining() / 4) {
    return DataLossError(what + ": shape " + shape_string(shape) + " needs " +
                         std::to_string(*count) + " floats but only " +
                         std::to_string(in.remaining()) + " bytes remain (record truncated)");
  }
  std::vector<float> values(static_cast<size_t>(*count));
  const unsigned char* p = in.take(values.size() * 4);
  if constexpr (std::endian::native == std::endian::little) {
    if (!values.empty()) std::memcpy(values.data(), p, values.size() * 4);
  } else {
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = std::bit_cast<float>(load_u32(p + 4 * i));
    }
  }
  tensor = Tensor(std::move(shape), std::move(values));
  return Status::Ok();
}

}  // namespace

std::optional<uint64_t> checked_elements(const Shape& shape) {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t nonzero = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d == 0) {
      zero = true;
    } else if (nonzero > kMax / static_cast<uint64_t>(d)) {
      return std::nullopt;
    } else {
      nonzero *= static_cast<uint64_t>(d);
    }
  }
  return zero ? 0 : nonzero;
}

Status parse_checkpoint_header(std::span<const unsigned char> head, uint64_t file_size,
                               const std::string& where, CheckpointHeader& header) {
  if (file_size == 0) return DataLossError(where + ": file is empty (0 bytes)");
  // The magic first, on as many bytes as there are, so a foreign file is
  // called foreign rather than "short" or "corrupt".
  const size_t magic = std::min<size_t>(head.size(), 8);
  if (std::memcmp(head.data(), kCheckpointMagic, magic) != 0) {
    return DataLossError(where + ": not a Strata checkpoint (it does not start with \"" +
                         std::string(kCheckpointMagic) + "\")");
  }
  const uint64_t minimum = kCheckpointHeaderBytes + kCheckpointTrailerBytes;
  if (file_size < minimum || head.size() < kCheckpointHeaderBytes) {
    return DataLossError(where + ": file too short (" + std::to_string(file_size) +
                         " bytes; a checkpoint has at least " + std::to_string(minimum) +
                         "): truncated");
  }
  const unsigned char* p = head.data();
  header.version = load_u32(p + 8);
  if (header.version != kCheckpointVersion) {
    return DataLossError(where + ": unsupported format version " + std::to_string(header.version) +
                         " (this build reads version " + std::to_string(kCheckpointVersion) + ")");
  }
  if (const uint32_t flags = load_u32(p + 12); flags != 0) {
    return DataLossError(where + ": unsupported flags " + std::to_string(flags) + " (version " +
                         std::to_string(kCheckpointVersion) + " has none)");
  }
  header.length = load_u64(p + 16);
  if (header.length != file_size) {
    return DataLossError(
        where + ": length mismatch: the header records " + std::to_string(header.length) +
        " bytes but the file has " + std::to_string(file_size) +
        (file_size < header.length ? " (truncated)" : " (extra bytes at the end)"));
  }
  header.step = std::bit_cast<int64_t>(load_u64(p + 24));
  header.tensor_count = load_u32(p + 32);
  header.metadata_count = load_u32(p + 36);
  return Status::Ok();
}

StatusOr<Checkpoint> parse_checkpoint_body(std::span<const unsigned char> body,
                                           const CheckpointHeader& header,
                                           const std::string& where) {
  Checkpoint ckpt;
  ckpt.step = header.step;
  ByteReader in(body, kCheckpointHeaderBytes);
  // The counts are not trusted either: each record consumes bytes, so a
  // huge count runs out of input after at most body.size() / 8 records.
  for (uint32_t i = 0; i < header.tensor_count; ++i) {
    const std::string what = where + ": tensor #" + std::to_string(i);
    std::string name;
    STRATA_RETURN_IF_ERROR(read_string(in, 1, kCheckpointMaxNameBytes, what + " name", name));
    Tensor tensor;
    STRATA_RETURN_IF_ERROR(read_tensor(in, what + " ('" + name + "')", tensor));
    if (!ckpt.tensors.emplace(name, std::move(tensor)).second) {
      return DataLossError(where + ": tensor name '" + name + "' appears twice");
    }
  }
  for (uint32_t i = 0; i < header.metadata_count; ++i) {
    const std::string what = where + ": metadata #" + std::to_string(i);
    std::string key;
    std::string value;
    STRATA_RETURN_IF_ERROR(read_string(in, 1, kCheckpointMaxNameBytes, what + " key", key));
    STRATA_RETURN_IF_ERROR(read_string(in, 0, kCheckpointMaxValueBytes, what + " value", value));
    if (!ckpt.metadata.emplace(key, std::move(value)).second) {
      return DataLossError(where + ": metadata key '" + key + "' appears twice");
    }
  }
  if (in.remaining() != 0) {
    return DataLossError(where + ": " + std::to_string(in.remaining()) +
                         " unexpected bytes after the last record");
  }
  return ckpt;
}

std::string crc_text(uint32_t crc) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "0x00000000";
  for (int i = 9; i >= 2; --i, crc >>= 4) text[static_cast<size_t>(i)] = kHex[crc & 0xf];
  return text;
}

}  // namespace strata
