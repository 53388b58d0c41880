#include "core/checkpoint/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

namespace strata {
namespace {

// Unpredictable enough that two writers (two processes, or two threads of
// one) never pick the same temp name; O_EXCL below catches the rest.
std::string random_suffix() {
  static thread_local std::mt19937_64 engine([] {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    uint64_t seed = static_cast<uint64_t>(now) ^ (static_cast<uint64_t>(::getpid()) << 32);
    try {
      std::random_device device;
      seed ^= (static_cast<uint64_t>(device()) << 32) | device();
    } catch (...) {
      // No entropy source: the clock and pid above still make names unique
      // enough, and O_EXCL refuses a collision.
    }
    return seed;
  }());
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t bits = engine();
  std::string text(12, '0');
  for (char& c : text) {
    c = kHex[bits & 0xf];
    bits >>= 4;
  }
  return text;
}

}  // namespace

Status file_error(int err, const std::string& what) {
  const std::string text = what + ": " + std::generic_category().message(err);
  switch (err) {
    case ENOENT: return NotFoundError(text);
    case EACCES:
    case EPERM:
    case EROFS: return PermissionDeniedError(text);
    case ENOTDIR:
    case EISDIR: return FailedPreconditionError(text);
    default: return UnavailableError(text);  // ENOSPC, EIO, ...: may pass on retry
  }
}

StatusOr<AtomicFile> AtomicFile::create(const std::filesystem::path& target) {
  if (target.filename().empty()) {
    return InvalidArgumentError("cannot write '" + target.string() + "': not a file name");
  }
  // Three tries cover a (practically impossible) name collision.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::filesystem::path temp = target;
    temp += ".tmp-" + std::to_string(::getpid()) + "-" + random_suffix();
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return file_error(errno, "cannot create temporary file '" + temp.string() + "' for '" +
                                   target.string() + "'");
    }
    std::FILE* file = ::fdopen(fd, "wb");
    if (file == nullptr) {
      const int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return file_error(err, "cannot open temporary file '" + temp.string() + "'");
    }
    return AtomicFile(target, std::move(temp), file);
  }
  return AlreadyExistsError("cannot create a unique temporary file for '" + target.string() + "'");
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      file_(other.file_),
      has_temp_(other.has_temp_) {
  other.file_ = nullptr;
  other.has_temp_ = false;  // the temp file is this object's now
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (has_temp_) {
    ::unlink(temp_.c_str());
    has_temp_ = false;
  }
}

Status AtomicFile::write(const void* data, size_t size) {
  if (file_ == nullptr) {
    return FailedPreconditionError("write to '" + temp_.string() + "' after commit or failure");
  }
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
    const int err = errno;
    discard();
    return file_error(err, "writing '" + temp_.string() + "' for '" + target_.string() + "'");
  }
  return Status::Ok();
}

Status AtomicFile::commit() {
  if (file_ == nullptr) {
    return FailedPreconditionError("commit of '" + target_.string() + "' after commit or failure");
  }
  const std::string where = "'" + temp_.string() + "' for '" + target_.string() + "'";
  // fflush hands stdio's buffer to the kernel; fsync makes the kernel put
  // it on disk. Without the fsync a crash soon after the rename can leave
  // the new name pointing at an empty or partly written file.
  if (std::fflush(file_) != 0) {
    const int err = errno;
    discard();
    return file_error(err, "flushing " + where);
  }
  if (::fsync(::fileno(file_)) != 0) {
    const int err = errno;
    discard();
    return file_error(err, "fsync of " + where);
  }
  // fclose can report a delayed write error (e.g. on NFS): check it.
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) {
    const int err = errno;
    discard();
    return file_error(err, "closing " + where);
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    discard();
    return file_error(err, "cannot rename " + where + " (the existing file is unchanged)");
  }
  has_temp_ = false;  // it is the target now
  // The rename lives in the directory's own data: fsync it too, or a power
  // loss can bring back the old name (or none) even though the file is safe.
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    return file_error(errno, "'" + target_.string() + "' was written but its directory '" +
                                 dir.string() + "' could not be opened to fsync it");
  }
  const int synced = ::fsync(dir_fd);
  const int err = errno;
  ::close(dir_fd);
  if (synced != 0) {
    return file_error(err, "'" + target_.string() + "' was written but fsync of its directory '" +
                               dir.string() + "' failed");
  }
  return Status::Ok();
}

Status write_file_atomically(const std::filesystem::path& target, std::string_view contents) {
  STRATA_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(target));
  STRATA_RETURN_IF_ERROR(file.write(contents));
  return file.commit();
}

}  // namespace strata
