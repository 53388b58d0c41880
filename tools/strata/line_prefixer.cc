#include "tools/strata/line_prefixer.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace strata::cli {

bool write_fully(int fd, std::string_view bytes) {
  // Bounded: each pass writes something or waits for the fd. A blocking fd
  // blocks in write() like any program's output would; a non-blocking one
  // whose reader stopped draining is given up on after ~60 s idle.
  int idle_waits = 0;
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      idle_waits = 0;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && idle_waits < 600) {
      // Our stdout may be non-blocking when it is shared with another
      // process that set O_NONBLOCK on it.
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
      ++idle_waits;
      continue;
    }
    return false;
  }
  return true;
}

LinePrefixer::LinePrefixer(std::string prefix, int out_fd)
    : prefix_(std::move(prefix)), out_fd_(out_fd) {}

void LinePrefixer::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      const size_t room = kMaxLineBytes - partial_.size();
      if (bytes.size() < room) {
        partial_.append(bytes);
        return;
      }
      // Too long to be a line anyone reads as one: cut it here.
      partial_.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      emit(partial_);
      partial_.clear();
      continue;
    }
    if (partial_.empty()) {
      emit(bytes.substr(0, newline));
    } else {
      partial_.append(bytes.substr(0, newline));
      emit(partial_);
      partial_.clear();
    }
    bytes.remove_prefix(newline + 1);
  }
}

void LinePrefixer::flush() {
  if (partial_.empty()) return;
  emit(partial_);
  partial_.clear();
}

void LinePrefixer::emit(std::string_view line) {
  scratch_.clear();
  scratch_.reserve(prefix_.size() + line.size() + 1);
  scratch_.append(prefix_);
  scratch_.append(line);
  scratch_.push_back('\n');
  write_fully(out_fd_, scratch_);
}

}  // namespace strata::cli
