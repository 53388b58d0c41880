// AtomicFile: replaces a file so that a reader, or the same path after a
// crash or power loss, sees either the whole old contents or the whole new
// ones, never a mix or a prefix. Checkpoints and the checkpoint index are
// written through it (DESIGN.md "Errors": "Nothing is lost").
//
// The bytes go to `<path>.tmp-<pid>-<random>` in the target's directory (a
// rename is only atomic within one file system), and commit() then
//   1. flushes stdio's buffer and fsyncs the file, so its data is on disk
//      before any name points at it;
//   2. renames it over the target, which atomically swaps the name;
//   3. fsyncs the directory, so the rename itself survives a power loss.
// Until commit() succeeds the target is untouched; an AtomicFile dropped
// before (or whose commit fails before the rename) removes its temp file.
#ifndef STRATA_CORE_CHECKPOINT_ATOMIC_FILE_H_
#define STRATA_CORE_CHECKPOINT_ATOMIC_FILE_H_

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/common/status.h"

namespace strata {

class AtomicFile {
 public:
  // Creates the temp file next to `target` (exclusively: never reuses one).
  static StatusOr<AtomicFile> create(const std::filesystem::path& target);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temp file unless committed

  Status write(const void* data, size_t size);
  Status write(std::string_view bytes) { return write(bytes.data(), bytes.size()); }
  // Flush, fsync, rename over the target, fsync the directory. A failure
  // after the rename (the directory fsync) is reported, but the target then
  // already holds the new contents.
  Status commit();

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  AtomicFile(std::filesystem::path target, std::filesystem::path temp, std::FILE* file)
      : target_(std::move(target)), temp_(std::move(temp)), file_(file) {}
  void discard();  // closes and removes the temp file

  std::filesystem::path target_;
  std::filesystem::path temp_;
  std::FILE* file_ = nullptr;
  bool has_temp_ = true;  // the temp file exists and is ours to remove
};

// A Status for a failed file operation: `what`, then the errno's text, with
// a code chosen by errno (ENOENT: NotFound, EACCES: PermissionDenied,
// ENOTDIR/EISDIR: FailedPrecondition, others such as ENOSPC: Unavailable).
Status file_error(int err, const std::string& what);

// Writes `contents` to `target` through an AtomicFile.
Status write_file_atomically(const std::filesystem::path& target, std::string_view contents);

}  // namespace strata

#endif  // STRATA_CORE_CHECKPOINT_ATOMIC_FILE_H_
