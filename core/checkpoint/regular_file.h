// RegularFile: a file opened for reading only once it is known to be a
// regular file, without blocking on the way.
//
// A plain open(O_RDONLY) of a FIFO blocks until some process opens it for
// writing, so a FIFO left where a checkpoint or the index should be would
// hang a restore before any type check ran. This opens with O_NONBLOCK
// (which a FIFO honours and a regular file ignores), then fstat()s the
// descriptor it got -- no stat-then-open race -- and refuses a FIFO, a
// directory, a device or a socket, naming what it found.
#ifndef STRATA_CORE_CHECKPOINT_REGULAR_FILE_H_
#define STRATA_CORE_CHECKPOINT_REGULAR_FILE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "core/common/status.h"

namespace strata {

class RegularFile {
 public:
  // `what` names the file in errors ("checkpoint '/run/ckpt-3.strata'").
  // NotFound for a missing file, FailedPrecondition for anything but a
  // regular file (symbolic links are followed: one to /dev/null is a
  // character device), file_error()'s codes otherwise.
  static StatusOr<RegularFile> open(const std::filesystem::path& path, const std::string& what);

  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&&) = delete;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  // The size fstat() reported when the file was opened.
  uint64_t size() const { return size_; }
  // Reads exactly `size` bytes; DataLoss if the file ends first (it shrank
  // while being read).
  Status read_exact(unsigned char* out, size_t size);

 private:
  RegularFile(int fd, uint64_t size, std::string what)
      : fd_(fd), size_(size), what_(std::move(what)) {}

  int fd_ = -1;
  uint64_t size_ = 0;
  std::string what_;
};

}  // namespace strata

#endif  // STRATA_CORE_CHECKPOINT_REGULAR_FILE_H_
