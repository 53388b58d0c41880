#include "core/checkpoint/checkpoint_file.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <span>
#include <vector>

#include "core/checkpoint/atomic_file.h"
#include "core/checkpoint/checkpoint_format.h"
#include "core/checkpoint/regular_file.h"

namespace strata {
namespace {

// Everything written goes through here so the CRC and the byte count can
// never disagree with what is on disk.
class CrcSink {
 public:
  explicit CrcSink(AtomicFile& file) : file_(file) {}
  Status put(const void* data, size_t size) {
    // An empty tensor's data() may be null, and crc32_z(crc, NULL, 0)
    // returns the initial value 0 instead of `crc`: skip empty writes.
    if (size == 0) return Status::Ok();
    crc_ = crc32_z(crc_, static_cast<const Bytef*>(data), size);
    bytes_ += size;
    return file_.write(data, size);
  }
  Status put(const std::string& bytes) { return put(bytes.data(), bytes.size()); }
  uint32_t crc() const { return static_cast<uint32_t>(crc_); }
  uint64_t bytes() const { return bytes_; }

 private:
  AtomicFile& file_;
  uLong crc_ = crc32_z(0, nullptr, 0);
  uint64_t bytes_ = 0;
};

Status put_floats(CrcSink& sink, std::span<const float> values) {
  if constexpr (std::endian::native == std::endian::little) {
    return sink.put(values.data(), values.size_bytes());
  } else {
    // The format is little-endian everywhere; swap in chunks on other hosts.
    std::string chunk;
    for (size_t i = 0; i < values.size(); ++i) {
      append_u32(chunk, std::bit_cast<uint32_t>(values[i]));
      if (chunk.size() >= (1u << 16)) {
        STRATA_RETURN_IF_ERROR(sink.put(chunk));
        chunk.clear();
      }
    }
    return sink.put(chunk);
  }
}

// The limits a reader enforces, checked before writing so that a file this
// build writes is always one it can read.
Status check_writable(const Checkpoint& ckpt, const std::string& where, uint64_t& length) {
  length = kCheckpointHeaderBytes + kCheckpointTrailerBytes;
  for (const auto& [name, tensor] : ckpt.tensors) {
    const std::string what = where + ": tensor '" + name.substr(0, 100) + "'";
    if (name.empty() || name.size() > kCheckpointMaxNameBytes) {
      return InvalidArgumentError(what + ": name must be 1 to " +
                                  std::to_string(kCheckpointMaxNameBytes) + " bytes");
    }
    if (tensor.rank() > kCheckpointMaxRank) {
      return InvalidArgumentError(what + ": rank " + std::to_string(tensor.rank()) +
                                  " exceeds the limit of " + std::to_string(kCheckpointMaxRank));
    }
    // Tensor's two-argument constructor checks neither the shape nor that
    // the values fill it; a file with either wrong would be refused on load.
    const std::optional<uint64_t> count = checked_elements(tensor.shape());
    if (!count) {
      return InvalidArgumentError(what + ": shape " + shape_string(tensor.shape()) +
                                  " has a negative dimension or too many elements");
    }
    if (*count != static_cast<uint64_t>(tensor.size())) {
      return InvalidArgumentError(what + ": shape " + shape_string(tensor.shape()) + " holds " +
                                  std::to_string(*count) + " elements but the tensor has " +
                                  std::to_string(tensor.size()));
    }
    length +=
        8 + name.size() + 8 * tensor.shape().size() + 4 * static_cast<uint64_t>(tensor.size());
  }
  for (const auto& [key, value] : ckpt.metadata) {
    if (key.empty() || key.size() > kCheckpointMaxNameBytes ||
        value.size() > kCheckpointMaxValueBytes) {
      return InvalidArgumentError(where + ": metadata '" + key.substr(0, 64) +
                                  "': key must be 1 to " + std::to_string(kCheckpointMaxNameBytes) +
                                  " bytes, value at most " +
                                  std::to_string(kCheckpointMaxValueBytes));
    }
    length += 8 + key.size() + value.size();
  }
  if (ckpt.tensors.size() > UINT32_MAX || ckpt.metadata.size() > UINT32_MAX) {
    return InvalidArgumentError(where + ": too many tensors or metadata entries");
  }
  return Status::Ok();
}

Status write_body(CrcSink& sink, const Checkpoint& ckpt, uint64_t length) {
  std::string bytes(kCheckpointMagic, 8);
  append_u32(bytes, kCheckpointVersion);
  append_u32(bytes, 0);  // flags, reserved
  append_u64(bytes, length);
  append_u64(bytes, static_cast<uint64_t>(ckpt.step));
  append_u32(bytes, static_cast<uint32_t>(ckpt.tensors.size()));
  append_u32(bytes, static_cast<uint32_t>(ckpt.metadata.size()));
  STRATA_RETURN_IF_ERROR(sink.put(bytes));
  for (const auto& [name, tensor] : ckpt.tensors) {
    bytes.clear();
    append_u32(bytes, static_cast<uint32_t>(name.size()));
    bytes += name;
    append_u32(bytes, static_cast<uint32_t>(tensor.rank()));
    for (int64_t d : tensor.shape()) append_u64(bytes, static_cast<uint64_t>(d));
    STRATA_RETURN_IF_ERROR(sink.put(bytes));
    STRATA_RETURN_IF_ERROR(put_floats(sink, tensor.values()));
  }
  for (const auto& [key, value] : ckpt.metadata) {
    bytes.clear();
    append_u32(bytes, static_cast<uint32_t>(key.size()));
    bytes += key;
    append_u32(bytes, static_cast<uint32_t>(value.size()));
    bytes += value;
    STRATA_RETURN_IF_ERROR(sink.put(bytes));
  }
  return Status::Ok();
}

Status check_crc(uint32_t computed, const unsigned char* trailer, const std::string& where) {
  const uint32_t expected = load_u32(trailer);
  if (expected == computed) return Status::Ok();
  return DataLossError(where + ": checksum mismatch: file is corrupt (expected " + crc_text(expected) +
                       ", computed " + crc_text(computed) + ")");
}

}  // namespace

Status write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  const std::string where = "checkpoint '" + path.string() + "'";
  uint64_t length = 0;
  STRATA_RETURN_IF_ERROR(check_writable(checkpoint, where, length));
  STRATA_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path));
  CrcSink sink(file);
  STRATA_RETURN_IF_ERROR(write_body(sink, checkpoint, length));
  std::string trailer;
  append_u32(trailer, sink.crc());
  STRATA_RETURN_IF_ERROR(sink.put(trailer));
  if (sink.bytes() != length) {  // a bug here, not bad input: refuse to publish it
    return InternalError(where + ": wrote " + std::to_string(sink.bytes()) + " bytes, expected " +
                         std::to_string(length));
  }
  return file.commit();
}

StatusOr<Checkpoint> read_checkpoint(const std::filesystem::path& path) {
  const std::string where = "checkpoint '" + path.string() + "'";
  STRATA_ASSIGN_OR_RETURN(RegularFile file, RegularFile::open(path, where));
  const uint64_t size = file.size();
  std::vector<unsigned char> bytes;
  try {
    bytes.resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    return OutOfMemoryError(where + ": cannot hold " + std::to_string(size) + " bytes in memory");
  }
  STRATA_RETURN_IF_ERROR(file.read_exact(bytes.data(), bytes.size()));
  CheckpointHeader header;
  STRATA_RETURN_IF_ERROR(parse_checkpoint_header(bytes, size, where, header));
  const size_t body = bytes.size() - kCheckpointTrailerBytes;
  const auto crc = static_cast<uint32_t>(crc32_z(crc32_z(0, nullptr, 0), bytes.data(), body));
  STRATA_RETURN_IF_ERROR(check_crc(crc, bytes.data() + body, where));
  STRATA_ASSIGN_OR_RETURN(Checkpoint checkpoint,
                          parse_checkpoint_body(std::span(bytes).first(body), header, where));
  checkpoint.source = path;
  checkpoint.checksum = crc;
  return checkpoint;
}

Status verify_checkpoint(const std::filesystem::path& path) {
  const std::string where = "checkpoint '" + path.string() + "'";
  STRATA_ASSIGN_OR_RETURN(RegularFile file, RegularFile::open(path, where));
  const uint64_t size = file.size();
  // No bigger than the file: a fresh 1 MiB buffer costs 256 page faults,
  // which dominated verifying small files (seen fuzzing the reader).
  std::vector<unsigned char> chunk(static_cast<size_t>(std::min<uint64_t>(size, 1 << 20)));
  const size_t head = static_cast<size_t>(std::min<uint64_t>(size, kCheckpointHeaderBytes));
  STRATA_RETURN_IF_ERROR(file.read_exact(chunk.data(), head));
  CheckpointHeader header;
  STRATA_RETURN_IF_ERROR(
      parse_checkpoint_header(std::span(chunk).first(head), size, where, header));
  uLong crc = crc32_z(crc32_z(0, nullptr, 0), chunk.data(), head);
  for (uint64_t left = size - head - kCheckpointTrailerBytes; left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
    STRATA_RETURN_IF_ERROR(file.read_exact(chunk.data(), n));
    crc = crc32_z(crc, chunk.data(), n);
    left -= n;
  }
  unsigned char trailer[kCheckpointTrailerBytes];
  STRATA_RETURN_IF_ERROR(file.read_exact(trailer, sizeof trailer));
  return check_crc(static_cast<uint32_t>(crc), trailer, where);
}

}  // namespace strata
