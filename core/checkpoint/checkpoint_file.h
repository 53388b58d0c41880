// One checkpoint file: named f32 tensors, a step and a little metadata.
//
// The format knows nothing about strategies. A variable is saved once, as
// its single logical value under its name; the strategy layer restores that
// value into however many replicas it has. So a checkpoint written under
// Mirrored with 4 replicas restores under OneDevice and back (issue 3,
// point 5). docs/CHECKPOINTS.md has the byte layout.
//
// Writes are atomic (AtomicFile: temp file, fsync, rename, fsync of the
// directory). Reads treat the file as untrusted: every length is bounded by
// the bytes that remain, and a CRC-32 over the whole file catches damage, so
// a truncated or corrupted file is refused with DataLoss, never half-read.
#ifndef STRATA_CORE_CHECKPOINT_CHECKPOINT_FILE_H_
#define STRATA_CORE_CHECKPOINT_CHECKPOINT_FILE_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

struct Checkpoint {
  int64_t step = 0;
  std::map<std::string, Tensor> tensors;  // by variable name
  // Text entries. "strategy", "replicas" and "optimizer" are informational;
  // the "fit/..." entries are where Model::fit stood (fit_position.h), which
  // a resumed fit continues from. The format itself gives no key a meaning.
  std::map<std::string, std::string> metadata;
  // Set by read_checkpoint, not stored: the file read and its CRC-32, which
  // names it in errors and lets workers check they restored the same one.
  std::filesystem::path source;
  uint32_t checksum = 0;
};

inline constexpr char kCheckpointMagic[9] = "STRATACK";  // 8 bytes on disk, no NUL
inline constexpr uint32_t kCheckpointVersion = 1;
inline constexpr size_t kCheckpointMaxNameBytes = 4096;      // tensor names, metadata keys
inline constexpr size_t kCheckpointMaxValueBytes = 1 << 20;  // one metadata value
inline constexpr int kCheckpointMaxRank = 8;

// Writes `checkpoint` to `path` atomically: on any failure the file at
// `path` (if any) is unchanged and no temp file is left behind.
// InvalidArgument for a tensor whose name, rank or size breaks the limits
// above or whose value count differs from its shape; file errors otherwise
// (see file_error in atomic_file.h).
Status write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);

// Reads and checks a whole checkpoint. NotFound for a missing file;
// FailedPrecondition, without blocking, for a FIFO, directory, device or
// socket at `path` (regular_file.h); DataLoss for an empty, short,
// truncated, foreign ("not a Strata checkpoint"), newer-version or corrupt
// ("checksum mismatch") file.
StatusOr<Checkpoint> read_checkpoint(const std::filesystem::path& path);

// The checks of read_checkpoint that catch damage (header, length, CRC),
// streaming the file through a small buffer instead of loading tensors.
Status verify_checkpoint(const std::filesystem::path& path);

}  // namespace strata

#endif  // STRATA_CORE_CHECKPOINT_CHECKPOINT_FILE_H_
