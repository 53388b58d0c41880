#include "core/checkpoint/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/checkpoint/atomic_file.h"

namespace strata {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

StatusOr<RegularFile> RegularFile::open(const std::filesystem::path& path,
                                        const std::string& what) {
  // O_NONBLOCK: open() of a FIFO returns at once instead of waiting for a
  // writer; O_NOCTTY: a terminal device never becomes our controlling tty.
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFoundError(what + " does not exist");
    return file_error(err, "cannot open " + what);
  }
  RegularFile file(fd, 0, what);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return file_error(errno, "cannot stat " + what);
  if (!S_ISREG(info.st_mode)) {
    return FailedPreconditionError(what + " is " + kind_of(info.st_mode) +
                                   ", not a regular file; remove it or point to another path");
  }
  // Regular files ignore O_NONBLOCK, but clear it so reads never see EAGAIN
  // whatever the file system.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return file_error(errno, "cannot clear O_NONBLOCK on " + what);
  }
  file.size_ = static_cast<uint64_t>(info.st_size);
  return file;
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), what_(std::move(other.what_)) {}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status RegularFile::read_exact(unsigned char* out, size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd_, out, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return file_error(errno, "reading " + what_);
    if (n == 0) return DataLossError(what_ + " shrank while being read");
    out += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace strata
